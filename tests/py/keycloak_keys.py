"""python-keycloak's KeycloakAdmin (PyPI `python-keycloak`), unchanged, rotating scanid's signing
keys. python-keycloak has no rotate call: the calls go through its own connection
(`connection.raw_post` / `raw_delete`, with the token it got), and `get_keys` reads the result.

Usage: keycloak_keys.py BASE_URL REALM ADMIN_ID ADMIN_SECRET VIEWER_ID VIEWER_SECRET

ADMIN_ID is a service account with `realm-admin`, VIEWER_ID one with a lesser role. Rotates
ES256: publish (PASSIVE in get_keys and in the JWKS), activate too early (409), activate with
force, remove the old key (409 while its tokens may live, then with force). Prints one JSON
line; exits non-zero on the first surprise. Run by tests/it/admin_keys.rs.
"""

import json
import sys

import requests
from keycloak import KeycloakAdmin


def main():
    base, realm, admin_id, admin_secret, viewer_id, viewer_secret = sys.argv[1:7]

    def kc(client_id, secret):
        return KeycloakAdmin(
            server_url=base, realm_name=realm, client_id=client_id, client_secret_key=secret
        )

    admin = kc(admin_id, admin_secret)
    viewer = kc(viewer_id, viewer_secret)
    keys_path = f"admin/realms/{realm}/keys"
    before = admin.get_keys()
    old = before["active"]["ES256"]

    # A lesser role reads the keys but cannot rotate or remove them.
    assert viewer.get_keys()["active"] == before["active"]
    r = viewer.connection.raw_post(f"{keys_path}/rotate?alg=ES256", data="")
    assert r.status_code == 403, (r.status_code, r.text)
    r = viewer.connection.raw_delete(f"{keys_path}/{old}")
    assert r.status_code == 403, (r.status_code, r.text)

    r = admin.connection.raw_post(f"{keys_path}/rotate?alg=ES256", data="")
    assert r.status_code == 200, (r.status_code, r.text)
    step = r.json()
    assert step["step"] == "published" and step["activate_after"], step
    new = step["kid"]
    listed = {k["kid"]: k for k in admin.get_keys()["keys"]}
    assert listed[new]["status"] == "PASSIVE" and listed[new]["algorithm"] == "ES256", listed
    jwks = requests.get(f"{base}/realms/{realm}/protocol/openid-connect/certs", timeout=10).json()
    assert new in {k["kid"] for k in jwks["keys"]}, jwks

    r = admin.connection.raw_post(f"{keys_path}/rotate?alg=ES256", data="")
    assert r.status_code == 409 and "300 s" in r.text, (r.status_code, r.text)
    r = admin.connection.raw_post(f"{keys_path}/rotate?alg=ES256&force=true", data="")
    assert r.status_code == 200, (r.status_code, r.text)
    assert r.json()["step"] == "activated" and r.json()["kid"] == new, r.text
    after = admin.get_keys()
    assert after["active"]["ES256"] == new, after

    r = admin.connection.raw_delete(f"{keys_path}/{new}")
    assert r.status_code == 409, (r.status_code, r.text)
    r = admin.connection.raw_delete(f"{keys_path}/{old}")
    assert r.status_code == 409, (r.status_code, r.text)
    r = admin.connection.raw_delete(f"{keys_path}/{old}?force=true")
    assert r.status_code == 204, (r.status_code, r.text)
    assert old not in {k["kid"] for k in admin.get_keys()["keys"]}
    print(json.dumps({"ok": True, "published": new, "removed": old}))


if __name__ == "__main__":
    main()
