"""OpenID CIBA poll mode with requests-oauth2client (PyPI), pointed at scanid.

usage: requests_oauth2client_ciba.py ISSUER CLIENT_ID CLIENT_SECRET LOGIN_HINT EXPECTED_SUB

1. Discovery (the backchannel authentication endpoint from the metadata, handed to the
   library, which does not read it itself), then the library's
   backchannel_authentication_request with login_hint and a binding_message; prints
   {"started": true} (the test's raw phone then approves the request).
2. Polls with the library's ciba() until the tokens come, answering authorization_pending and
   slow_down as the spec says, then checks the ID token with jwskate against the JWKS: its
   signature, iss, aud, sub (EXPECTED_SUB) and no nonce.
Prints {"result": {...}} and exits 0; any failed check prints why and exits 1.
"""
import json
import sys
import time
import traceback

import requests
from jwskate import JwkSet, Jwt
from requests_oauth2client import OAuth2Client
from requests_oauth2client.exceptions import AuthorizationPending, SlowDown


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def main() -> int:
    issuer, client_id, secret, login_hint, expected_sub = sys.argv[1:6]
    meta = requests.get(f"{issuer}/.well-known/openid-configuration", timeout=10).json()
    # The library does not read backchannel_authentication_endpoint from discovery itself
    # (1.8): it is handed the metadata's value.
    client = OAuth2Client.from_discovery_document(
        meta,
        issuer=issuer,
        auth=(client_id, secret),
        testing=True,
        backchannel_authentication_endpoint=meta["backchannel_authentication_endpoint"],
    )
    check("poll" in meta["backchannel_token_delivery_modes_supported"], "poll mode")
    jwks = JwkSet(requests.get(meta["jwks_uri"], timeout=10).json())
    started = client.backchannel_authentication_request(
        scope="openid profile", login_hint=login_hint, binding_message="Py 42"
    )
    print(json.dumps({"started": True}), flush=True)
    interval = started.interval or 5
    polls = 0
    deadline = time.time() + 60
    while True:
        check(time.time() < deadline, "tokens within a minute")
        polls += 1
        try:
            token = client.ciba(started)
            break
        except AuthorizationPending:
            time.sleep(interval)
        except SlowDown:
            interval += 5
            time.sleep(interval)
    id_token = Jwt(str(token.id_token))
    check(id_token.verify_signature(jwks.public_jwks()), "the id_token's signature")
    claims = id_token.claims
    check(claims["iss"] == issuer, "id_token iss")
    check(claims["aud"] == client_id, "id_token aud")
    check(claims["sub"] == expected_sub, "id_token sub is the person who approved")
    check("nonce" not in claims, "no nonce")
    print(json.dumps({"result": {"sub": claims["sub"], "polls": polls}}), flush=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:  # noqa: BLE001 - the test reads why
        traceback.print_exc()
        sys.exit(1)
