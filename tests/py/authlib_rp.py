"""A confidential relying party written with Authlib (requests integration), as a Python web
app would use it against Keycloak, pointed at scanid.

usage: authlib_rp.py ISSUER CLIENT_ID CLIENT_SECRET REDIRECT_URI

1. Discovery; prints {"authorization_url": URL} (code flow, PKCE S256, state, nonce).
2. Reads the callback URL (where the browser landed after the login) from stdin: a person can
   paste it, the JS test (tests/js/rp-matrix.test.mjs) drives the QR login in Chromium.
3. Checks `iss` (RFC 9207), exchanges the code (client_secret_basic, state checked by Authlib),
   validates the id_token as Authlib's OpenID clients do (JWKS, iss, aud, nonce, at_hash),
   calls userinfo, refreshes, introspects at Keycloak's `token/introspect`, logs out the way
   Keycloak's server-side adapters do (POST logout with client credentials and the refresh
   token: 204), and shows the refresh token and the access token are dead afterwards.
Prints {"result": {...}} and exits 0; any failed check prints why and exits 1.
"""
import json
import sys
from urllib.parse import parse_qs, urlsplit

import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session, OAuthError
from authlib.oidc.core import CodeIDToken, UserInfo
from joserfc import jwt
from joserfc.jwk import KeySet
from joserfc.jws import JWSRegistry


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def main() -> int:
    issuer, client_id, client_secret, redirect_uri = sys.argv[1:5]
    meta = requests.get(f"{issuer}/.well-known/openid-configuration", timeout=10).json()
    check(meta["issuer"] == issuer, f"discovery issuer {meta['issuer']!r}")

    session = OAuth2Session(
        client_id,
        client_secret,
        scope="openid profile",
        redirect_uri=redirect_uri,
        code_challenge_method="S256",
        token_endpoint_auth_method="client_secret_basic",
    )
    verifier = generate_token(48)
    nonce = generate_token(20)
    url, state = session.create_authorization_url(
        meta["authorization_endpoint"], code_verifier=verifier, nonce=nonce
    )
    print(json.dumps({"authorization_url": url}), flush=True)

    callback = sys.stdin.readline().strip()
    params = parse_qs(urlsplit(callback).query)
    check(params.get("iss") == [issuer], f"iss in the authorization response: {params.get('iss')}")

    token = session.fetch_token(
        meta["token_endpoint"], authorization_response=callback, state=state, code_verifier=verifier
    )
    check(token["token_type"].lower() == "bearer", f"token_type {token['token_type']}")

    # The id_token, validated exactly as authlib.integrations.base_client's parse_id_token does.
    keys = KeySet.import_key_set(requests.get(meta["jwks_uri"], timeout=10).json())
    decoded = jwt.decode(
        token["id_token"],
        key=keys,
        registry=JWSRegistry(algorithms=meta["id_token_signing_alg_values_supported"]),
    )
    claims = CodeIDToken(
        decoded.claims,
        decoded.header,
        {"iss": {"values": [issuer]}},
        {"nonce": nonce, "client_id": client_id, "access_token": token["access_token"]},
    )
    claims.validate(leeway=120)
    sub = claims["sub"]

    resp = session.get(meta["userinfo_endpoint"])
    resp.raise_for_status()
    info = UserInfo(resp.json())
    check(info["sub"] == sub, f"userinfo sub {info['sub']} != {sub}")

    first = dict(token)
    refreshed = session.refresh_token(meta["token_endpoint"], refresh_token=token["refresh_token"])
    check(refreshed["access_token"] != first["access_token"], "refresh gave a new access token")
    check(refreshed["refresh_token"] != first["refresh_token"], "refresh token rotated")
    rt = refreshed["refresh_token"]
    at = refreshed["access_token"]

    introspect = f"{issuer}/protocol/openid-connect/token/introspect"
    before = requests.post(introspect, auth=(client_id, client_secret), data={"token": at}, timeout=10).json()
    check(before.get("active") is True, f"introspection before logout: {before}")

    # Keycloak's back-channel logout: POST {issuer}/protocol/openid-connect/logout.
    logout = requests.post(
        f"{issuer}/protocol/openid-connect/logout",
        auth=(client_id, client_secret),
        data={"refresh_token": rt},
        timeout=10,
    )
    check(logout.status_code == 204, f"back-channel logout: {logout.status_code} {logout.text}")

    try:
        session.refresh_token(meta["token_endpoint"], refresh_token=rt)
        dead_error = None
    except OAuthError as e:
        dead_error = e.error
    check(dead_error == "invalid_grant", f"refresh after logout: {dead_error!r}")
    after = requests.post(introspect, auth=(client_id, client_secret), data={"token": at}, timeout=10).json()
    check(after == {"active": False}, f"introspection after logout: {after}")

    print(json.dumps({"result": {
        "sub": sub,
        "preferred_username": claims.get("preferred_username"),
        "userinfo": dict(info),
        "id_token_alg": decoded.header.get("alg"),
        "refreshed": True,
        "logout_status": logout.status_code,
        "refresh_after_logout": dead_error,
        "introspect_after_logout": after,
    }}), flush=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # report any failure to the driver
        print(f"authlib_rp failed: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
