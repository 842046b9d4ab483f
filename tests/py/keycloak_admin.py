"""python-keycloak's KeycloakAdmin (PyPI `python-keycloak`), unchanged, driving scanid's admin API.

Usage: keycloak_admin.py BASE_URL REALM CLIENT_ID CLIENT_SECRET

CLIENT_ID is a service account (client_credentials) the operator gave `manage-clients`. The
script manages clients as an operator's pipeline would, asserts what scanid must answer, and
prints one JSON line; it exits non-zero on the first surprise. Run by tests/it/admin.rs.
"""

import json
import sys

from keycloak import KeycloakAdmin, KeycloakOpenID
from keycloak.exceptions import KeycloakError


def service_token(base, realm, client_id, secret):
    """A client_credentials access token for the client (python-keycloak's own call)."""
    oidc = KeycloakOpenID(
        server_url=base, realm_name=realm, client_id=client_id, client_secret_key=secret
    )
    return oidc.token(grant_type="client_credentials")["access_token"]


def refused(call):
    """The HTTP status of the KeycloakError `call` raises (fails when it succeeds)."""
    try:
        call()
    except KeycloakError as e:
        return e.response_code, (e.response_body or b"").decode("utf-8", "replace")
    raise AssertionError("the call succeeded")


def main():
    base, realm, admin_id, admin_secret = sys.argv[1:5]
    admin = KeycloakAdmin(
        server_url=base,
        realm_name=realm,
        client_id=admin_id,
        client_secret_key=admin_secret,
    )
    info = admin.get_server_info()
    assert info["systemInfo"]["version"], info
    assert admin.get_realm(realm)["realm"] == realm

    clients = admin.get_clients()
    assert any(c["clientId"] == admin_id for c in clients), clients
    assert all("secret" not in c for c in clients), "a secret in the list"
    assert admin.get_client_id(admin_id) == admin_id

    # A service account: no code flow, no redirect URI.
    new_id = admin.create_client(
        {
            "clientId": "py-robot",
            "name": "Py robot",
            "publicClient": False,
            "standardFlowEnabled": False,
            "serviceAccountsEnabled": True,
            "frontchannelLogout": True,  # ignored: changes nothing scanid does
        }
    )
    assert new_id == "py-robot", new_id
    assert admin.get_client_id("py-robot") == "py-robot"
    status, body = refused(lambda: admin.create_client({"clientId": "py-robot"}))
    assert status == 409, (status, body)

    # A web client with its own secret (as one moved from Keycloak keeps it).
    web_secret = "k" * 32
    admin.create_client(
        {
            "clientId": "py-web",
            "redirectUris": ["https://py.example/cb"],
            "webOrigins": ["+"],
            "secret": web_secret,
            "attributes": {"pkce.code.challenge.method": "S256"},
        }
    )
    web = admin.get_client("py-web")
    assert web["redirectUris"] == ["https://py.example/cb"], web
    assert web["attributes"]["pkce.code.challenge.method"] == "S256", web
    assert "secret" not in web, "a secret in a read"

    # A behaviour scanid does not have: refused, naming the field; nothing written.
    status, body = refused(
        lambda: admin.create_client(
            {"clientId": "py-implicit", "implicitFlowEnabled": True, "redirectUris": ["https://py.example/cb"]}
        )
    )
    assert status == 400 and "implicitFlowEnabled" in body, (status, body)
    assert admin.get_client_id("py-implicit") is None

    admin.update_client(
        new_id,
        {"name": "Py robot, renamed", "attributes": {"oauth2.device.authorization.grant.enabled": "true"}},
    )
    robot = admin.get_client(new_id)
    assert robot["name"] == "Py robot, renamed", robot
    assert robot["attributes"]["oauth2.device.authorization.grant.enabled"] == "true", robot

    # Secrets: write-only; each generation replaces the last at once.
    assert "value" not in admin.get_client_secrets(new_id)
    first = admin.generate_client_secrets(new_id)["value"]
    assert service_token(base, realm, "py-robot", first)
    second = admin.generate_client_secrets(new_id)["value"]
    assert second != first
    status, _ = refused(lambda: service_token(base, realm, "py-robot", first))
    assert status == 401, status
    assert service_token(base, realm, "py-robot", second)

    # Disabled: no tokens; enabled again: tokens.
    admin.update_client(new_id, {"enabled": False})
    assert admin.get_client(new_id)["enabled"] is False
    status, _ = refused(lambda: service_token(base, realm, "py-robot", second))
    assert status == 401, status
    admin.update_client(new_id, {"enabled": True})
    assert service_token(base, realm, "py-robot", second)

    user = admin.get_client_service_account_user(new_id)
    assert user["username"] == "service-account-py-robot", user

    admin.delete_client(new_id)
    admin.delete_client("py-web")
    assert admin.get_client_id("py-robot") is None
    status, _ = refused(lambda: service_token(base, realm, "py-robot", second))
    assert status == 401, status
    print(json.dumps({"ok": True, "clients": len(clients)}))


if __name__ == "__main__":
    main()
