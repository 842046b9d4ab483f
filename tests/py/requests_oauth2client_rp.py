"""A FAPI-style relying party written with requests-oauth2client (PyPI), pointed at scanid:
private_key_jwt, PAR, PKCE and DPoP (RFC 9449), as its documentation shows them.

usage: requests_oauth2client_rp.py ISSUER CLIENT_ID PRIVATE_JWK REDIRECT_URI

1. Discovery; an authorization request with PKCE, state, nonce and a DPoP key (`dpop_jkt`),
   pushed to the PAR endpoint (the client assertion's `aud` the issuer, as FAPI 2.0 wants);
   prints {"authorization_url": URL}.
2. Reads the callback URL (where the browser landed after the QR login) from stdin (the JS test,
   tests/js/fapi.test.mjs, drives the login in Chromium).
3. Redeems the code with a DPoP proof (the library answers `use_dpop_nonce` itself), checks the
   token is DPoP-bound (`token_type` DPoP, the access token's signature by the JWKS and its
   `cnf.jkt` the key's thumbprint), calls userinfo with DPoP, refreshes with DPoP, and shows the
   access token used as a bearer token is refused (401, `WWW-Authenticate: DPoP`).
Prints {"result": {...}} and exits 0; any failed check prints why and exits 1.
"""
import json
import sys
import traceback

import requests
from jwskate import Jwk, JwkSet, Jwt
from requests_oauth2client import DPoPToken, OAuth2Client, PrivateKeyJwt


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def main() -> int:
    issuer, client_id, private_jwk, redirect_uri = sys.argv[1:5]
    key = Jwk(json.loads(private_jwk))
    client = OAuth2Client.from_discovery_endpoint(
        issuer=issuer,
        auth=PrivateKeyJwt(client_id, key, aud=issuer),
        redirect_uri=redirect_uri,
        dpop_bound_access_tokens=True,
        testing=True,
    )
    meta = requests.get(f"{issuer}/.well-known/openid-configuration", timeout=10).json()
    check("ES256" in meta["dpop_signing_alg_values_supported"], "dpop algs in discovery")
    jwks = JwkSet(requests.get(meta["jwks_uri"], timeout=10).json())

    request = client.authorization_request(scope="openid profile", dpop=True)
    dpop_key = request.dpop_key
    check(request.dpop_jkt is not None, "the request binds the code (dpop_jkt)")
    pushed = client.pushed_authorization_request(request)
    print(json.dumps({"authorization_url": str(pushed.uri)}), flush=True)

    callback = sys.stdin.readline().strip()
    response = request.validate_callback(callback)
    # requests-oauth2client 1.8.0 cannot rebuild a DPoPToken once it validated its id_token
    # (TypeError: missing `_dpop_key`): the id_token is validated here instead, with jwskate.
    token = client.authorization_code(response, validate=False, dpop=True, dpop_key=dpop_key)
    id_token = Jwt(str(token.id_token))
    check(id_token.verify_signature(jwks.public_jwks()), "the id_token's signature")
    check(id_token.claims["iss"] == issuer, "id_token iss")
    check(id_token.claims["aud"] == client_id, "id_token aud")
    check(id_token.claims["nonce"] == request.nonce, "id_token nonce")
    check(isinstance(token, DPoPToken), f"a DPoP token: {type(token).__name__}")
    check(token.token_type.lower() == "dpop", f"token_type {token.token_type}")
    thumbprint = dpop_key.private_key.public_jwk().thumbprint()

    def bound(access_token):
        jwt = Jwt(access_token)
        check(jwt.verify_signature(jwks.public_jwks()), "the access token's signature")
        check(jwt.claims["iss"] == issuer, "iss")
        check(jwt.claims["cnf"]["jkt"] == thumbprint, f"cnf.jkt {jwt.claims.get('cnf')}")
        return jwt.claims["sub"]

    sub = bound(str(token.access_token))
    info = client.userinfo(token)
    check(info["sub"] == sub, f"userinfo sub {info}")

    refreshed = client.refresh_token(token)
    check(isinstance(refreshed, DPoPToken), "the refreshed token is DPoP-bound")
    check(bound(str(refreshed.access_token)) == sub, "same sub after the refresh")
    check(client.userinfo(refreshed)["sub"] == sub, "userinfo after the refresh")

    bearer = requests.get(
        meta["userinfo_endpoint"],
        headers={"Authorization": f"Bearer {refreshed.access_token}"},
        timeout=10,
    )
    challenge = bearer.headers.get("www-authenticate", "")
    check(bearer.status_code == 401, f"a bearer use: {bearer.status_code}")
    check(challenge.startswith("DPoP ") and "invalid_token" in challenge, challenge)

    print(json.dumps({"result": {"sub": sub, "jkt": thumbprint, "username": info.get("preferred_username")}}))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # any failed check or library error: say why, exit 1
        traceback.print_exc()
        print(json.dumps({"error": f"{type(e).__name__}: {e}"}), flush=True)
        sys.exit(1)
