"""client_secret_jwt (RFC 7523 §2.2) from libraries nobody here wrote.

Usage:
  client_secret_jwt.py cc TOKEN_ENDPOINT ISSUER CLIENT_ID SECRET
      requests-oauth2client's ClientSecretJwt gets client_credentials tokens: HS256 with the
      token endpoint as aud (its default), HS512 with the issuer as aud.
  client_secret_jwt.py keycloak BASE REALM ADMIN_ID ADMIN_SECRET TOKEN_ENDPOINT
      python-keycloak's KeycloakAdmin creates a client-secret-jwt client with a secret it
      chose; requests-oauth2client authenticates with it; a regenerated secret replaces it.

Prints one JSON line; exits non-zero on the first surprise. Run by tests/it/client_secret_jwt.rs.
"""

import json
import sys

from requests_oauth2client import ClientSecretJwt, OAuth2Client
from requests_oauth2client.exceptions import InvalidClient


def token(endpoint, client_id, secret, **kw):
    # testing: the test server is plain http on loopback.
    client = OAuth2Client(endpoint, auth=ClientSecretJwt(client_id, secret, **kw), testing=True)
    return client.client_credentials()


def cc(endpoint, issuer, client_id, secret):
    t = token(endpoint, client_id, secret)
    t2 = token(endpoint, client_id, secret, alg="HS512", aud=issuer)
    assert t.access_token and t2.access_token
    try:
        token(endpoint, client_id, secret + "x")
        raise AssertionError("a wrong secret got a token")
    except InvalidClient:
        pass
    return {"ok": True, "access_token": t.access_token}


def keycloak(base, realm, admin_id, admin_secret, endpoint):
    from keycloak import KeycloakAdmin

    admin = KeycloakAdmin(
        server_url=base, realm_name=realm, client_id=admin_id, client_secret_key=admin_secret
    )
    chosen = "a-chosen-secret-of-at-least-thirty-two-chars"
    admin.create_client(
        {
            "clientId": "py-hmac",
            "name": "Py HMAC",
            "publicClient": False,
            "standardFlowEnabled": False,
            "serviceAccountsEnabled": True,
            "clientAuthenticatorType": "client-secret-jwt",
            "secret": chosen,
            "attributes": {"token.endpoint.auth.signing.alg": "HS256"},
        }
    )
    rep = admin.get_client("py-hmac")
    assert rep["clientAuthenticatorType"] == "client-secret-jwt", rep
    assert "secret" not in rep, "a secret in the representation"
    assert token(endpoint, "py-hmac", chosen).access_token
    try:
        token(endpoint, "py-hmac", chosen, alg="HS512")
        raise AssertionError("an algorithm the client did not register got a token")
    except InvalidClient:
        pass
    new = admin.generate_client_secrets("py-hmac")["value"]
    assert new != chosen
    assert token(endpoint, "py-hmac", new).access_token
    try:
        token(endpoint, "py-hmac", chosen)
        raise AssertionError("the old secret still works")
    except InvalidClient:
        pass
    return {"ok": True}


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    out = cc(*args) if mode == "cc" else keycloak(*args)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
