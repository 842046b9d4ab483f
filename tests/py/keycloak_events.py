"""python-keycloak's KeycloakAdmin (PyPI `python-keycloak`), unchanged, reading scanid's events
and keys: `get_events` finds the QR login just made, `get_keys` the signing keys.

Usage: keycloak_events.py BASE_URL REALM CLIENT_ID CLIENT_SECRET LOGIN_CLIENT USER_SUB [EXPORT IMPORTER_ID IMPORTER_SECRET]

CLIENT_ID is a service account with `view-events`. LOGIN_CLIENT and USER_SUB are the client
and the identity of a login made just before. Prints one JSON line; exits non-zero on the
first surprise. Run by tests/it/admin_events.rs.
"""

import json
import sys
import time

from keycloak import KeycloakAdmin, urls_patterns
from keycloak.exceptions import KeycloakPutError


def main():
    base, realm, admin_id, admin_secret, login_client, sub = sys.argv[1:7]
    admin = KeycloakAdmin(
        server_url=base,
        realm_name=realm,
        client_id=admin_id,
        client_secret_key=admin_secret,
    )
    # Events are stored within a second or so of happening.
    deadline = time.time() + 10
    while True:
        logins = admin.get_events(query={"type": "LOGIN", "client": login_client})
        if logins or time.time() > deadline:
            break
        time.sleep(0.2)
    assert len(logins) == 1, logins
    login = logins[0]
    assert login["userId"] == sub, login
    assert login["realmId"] == realm, login
    assert login["details"]["scanid_event"] == "login.approved", login
    mine = admin.get_events(query={"user": sub, "max": 50})
    assert any(e["type"] == "LOGIN" for e in mine), mine
    assert all(e["userId"] == sub for e in mine), mine
    assert admin.get_events(query={"client": login_client, "dateFrom": "2999-01-01"}) == []
    # How they are kept: Keycloak's events config (python-keycloak sets it but has no getter:
    # read with its own connection and URL). Setting it is refused: the retention is a setting.
    path = urls_patterns.URL_ADMIN_EVENTS_CONFIG.format(**{"realm-name": realm})
    config = admin.connection.raw_get(path)
    assert config.status_code == 200, config.text
    config = config.json()
    assert config["eventsEnabled"] is True and config["adminEventsEnabled"] is True, config
    assert config["eventsExpiration"] > 0, config
    assert admin.get_realm(realm)["eventsExpiration"] == config["eventsExpiration"]
    try:
        admin.set_events({"eventsEnabled": False})
        raise AssertionError("set_events was accepted")
    except KeycloakPutError as e:
        assert e.response_code == 405, e

    keys = admin.get_keys()
    assert keys["active"], keys
    kids = {k["kid"]: k for k in keys["keys"]}
    for alg, kid in keys["active"].items():
        assert kids[kid]["status"] == "ACTIVE", keys
        assert kids[kid]["algorithm"] == alg, keys
    imported = None
    if len(sys.argv) > 9:
        # partial_import_realm with a Keycloak realm export, as a manage-clients account.
        export_file, importer_id, importer_secret = sys.argv[7:10]
        importer = KeycloakAdmin(
            server_url=base,
            realm_name=realm,
            client_id=importer_id,
            client_secret_key=importer_secret,
        )
        with open(export_file, encoding="utf-8") as f:
            export = json.load(f)
        export["ifResourceExists"] = "SKIP"
        answer = importer.partial_import_realm(realm, export)
        assert answer["added"] == 5, answer
        names = {r["resourceName"] for r in answer["results"]}
        assert "webshop" in names and "account" not in names, answer
        assert any(n["resourceName"] == "alice" for n in answer["notImported"]), answer
        assert importer.get_client_id("webshop") == "webshop"
        imported = answer["added"]
    print(json.dumps({"ok": True, "login": login["time"], "keys": len(kids), "imported": imported}))


if __name__ == "__main__":
    main()
