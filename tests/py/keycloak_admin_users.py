"""python-keycloak's KeycloakAdmin (PyPI `python-keycloak`), unchanged, managing scanid's
identities (Keycloak's users) through the admin API.

Usage: keycloak_admin_users.py BASE_URL REALM ADMIN_ID ADMIN_SECRET SUB CLIENT_ID CLIENT_SECRET ACCESS_TOKEN

ADMIN_ID is a service account the operator gave `manage-users`; SUB an identity that logged in
to CLIENT_ID (a confidential client) and got ACCESS_TOKEN. The script lists, reads, searches
and counts users, adds and removes a group, lists the identity's sessions and keys, then
disables it: the access token must then introspect as inactive. It prints one JSON line and
exits non-zero on the first surprise. Run by tests/it/admin_users.rs.
"""

import json
import sys

from keycloak import KeycloakAdmin, KeycloakOpenID
from keycloak.exceptions import KeycloakError


def refused(call):
    """The HTTP status and body of the KeycloakError `call` raises (fails when it succeeds)."""
    try:
        call()
    except KeycloakError as e:
        return e.response_code, (e.response_body or b"").decode("utf-8", "replace")
    raise AssertionError("the call succeeded")


def main():
    base, realm, admin_id, admin_secret, sub, client_id, client_secret, access = sys.argv[1:9]
    admin = KeycloakAdmin(
        server_url=base,
        realm_name=realm,
        client_id=admin_id,
        client_secret_key=admin_secret,
    )
    rp = KeycloakOpenID(
        server_url=base, realm_name=realm, client_id=client_id, client_secret_key=client_secret
    )
    assert rp.introspect(access)["active"] is True

    users = admin.get_users()
    assert [u["id"] for u in users] == [sub], users
    user = admin.get_user(sub)
    assert user["username"] == "alice" and user["enabled"] is True, user
    assert user["firstName"] == "" and user["attributes"]["service_id"], user
    assert admin.get_user_id("alice") == sub
    assert admin.get_users({"search": "ali"})[0]["id"] == sub
    assert admin.get_users({"search": "nobody"}) == []
    assert admin.users_count() == 1
    status, _ = refused(lambda: admin.get_user("00000000-0000-4000-8000-000000000000"))
    assert status == 404, status

    # Groups: python-keycloak adds by group id; scanid's group id is its name.
    admin.group_user_add(sub, "staff")
    groups = admin.get_user_groups(sub)
    assert [(g["id"], g["name"], g["path"]) for g in groups] == [("staff", "staff", "/staff")], groups
    assert any(g["name"] == "staff" for g in admin.get_groups())
    assert admin.get_group("staff")["path"] == "/staff"
    assert [u["id"] for u in admin.get_group_members("staff")] == [sub]
    admin.group_user_remove(sub, "staff")
    assert admin.get_user_groups(sub) == []

    sessions = admin.get_sessions(sub)
    assert sessions and all(s["userId"] == sub for s in sessions), sessions
    creds = admin.get_credentials(sub)
    assert creds[0]["type"] == "device-key", creds

    # A field scanid cannot change: refused by name, nothing written.
    status, body = refused(lambda: admin.update_user(sub, {"username": "mallory"}))
    assert status == 400 and "username" in body, (status, body)
    assert admin.get_user(sub)["username"] == "alice"

    # Disabled: its tokens are inactive at once.
    admin.update_user(sub, {"enabled": False})
    assert admin.get_user(sub)["enabled"] is False
    assert rp.introspect(access)["active"] is False
    print(json.dumps({"ok": True, "users": len(users), "sessions": len(sessions)}))


if __name__ == "__main__":
    main()
