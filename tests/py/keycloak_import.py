"""python-keycloak's KeycloakAdmin (PyPI `python-keycloak`), unchanged, importing a Keycloak realm
export into scanid with `partial_import_realm` and `ifResourceExists` FAIL, SKIP and OVERWRITE:
OVERWRITE replaces the settings of clients changed since the first import (their id stays), says
OVERWRITTEN for each, and each is an admin event.

Usage: keycloak_import.py BASE_URL REALM CLIENT_ID CLIENT_SECRET EXPORT

CLIENT_ID is a service account with `manage-clients` and `view-events`. Prints one JSON line;
exits non-zero on the first surprise. Run by tests/it/admin_events.rs (SQLite and DynamoDB).
"""

import json
import sys
import time

from keycloak import KeycloakAdmin
from keycloak.exceptions import KeycloakError


def main():
    base, realm, admin_id, admin_secret, export_file = sys.argv[1:6]
    admin = KeycloakAdmin(
        server_url=base,
        realm_name=realm,
        client_id=admin_id,
        client_secret_key=admin_secret,
    )
    with open(export_file, encoding="utf-8") as f:
        export = json.load(f)
    clients = ["billing-worker", "legacy-portal", "spa", "tv-app", "webshop"]

    export["ifResourceExists"] = "FAIL"
    first = admin.partial_import_realm(realm, export)
    assert first["added"] == 5, first

    # Changed in scanid since: a name, a redirect URI, a disabled client.
    admin.update_client(
        "webshop", {"name": "Changed", "redirectUris": ["https://changed.example/cb"]}
    )
    admin.update_client("tv-app", {"enabled": False})
    # A new secret: the export's stops working (the caller checks it works again after).
    admin.generate_client_secrets("billing-worker")

    # FAIL writes nothing; SKIP leaves the changes.
    try:
        admin.partial_import_realm(realm, export)
        raise AssertionError("FAIL imported over existing clients")
    except KeycloakError as e:
        assert e.response_code == 409, e
    export["ifResourceExists"] = "SKIP"
    skipped = admin.partial_import_realm(realm, export)
    assert skipped["skipped"] == 5 and skipped["overwritten"] == 0, skipped
    assert admin.get_client("webshop")["name"] == "Changed"

    # OVERWRITE: the export's settings again, the same ids.
    export["ifResourceExists"] = "OVERWRITE"
    answer = admin.partial_import_realm(realm, export)
    assert (answer["added"], answer["overwritten"], answer["skipped"]) == (0, 5, 0), answer
    assert sorted(r["resourceName"] for r in answer["results"]) == clients, answer
    for r in answer["results"]:
        assert r["action"] == "OVERWRITTEN" and r["resourceType"] == "CLIENT", r
        assert r["id"] == r["resourceName"], r
    web = admin.get_client("webshop")
    assert web["id"] == "webshop", web
    assert web["name"] == "Web shop", web
    assert web["redirectUris"] == ["https://shop.example.com/callback"], web
    assert admin.get_client("tv-app")["enabled"] is True
    assert admin.get_client_id("webshop") == "webshop"

    # Each overwrite is an admin event: an UPDATE of the client, by this account.
    deadline = time.time() + 10
    while True:
        events = admin.get_admin_events(
            query={"authClient": admin_id, "operationTypes": "UPDATE", "max": 100}
        )
        updated = {
            e["resourcePath"] for e in events if e["resourceType"] == "CLIENT" and not e["error"]
        }
        if {f"clients/{c}" for c in clients} <= updated or time.time() > deadline:
            break
        time.sleep(0.2)
    assert {f"clients/{c}" for c in clients} <= updated, events
    print(json.dumps({"ok": True, "overwritten": answer["overwritten"]}))


if __name__ == "__main__":
    main()
