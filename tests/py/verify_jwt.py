"""Verifies a JWT with PyJWT using only the issuer's JWKS: an independent implementation.

usage: verify_jwt.py JWKS_URL ISSUER TOKEN
Prints the verified claims as JSON; exits 1 if the token does not verify.
"""
import json
import sys

import jwt


def main() -> int:
    jwks_url, issuer, token = sys.argv[1:4]
    client = jwt.PyJWKClient(jwks_url, cache_keys=False)
    try:
        key = client.get_signing_key_from_jwt(token)
        claims = jwt.decode(
            token,
            key.key,
            algorithms=["RS256", "ES256", "PS256", "EdDSA"],
            issuer=issuer,
            options={"verify_aud": False, "require": ["exp", "iat", "iss"]},
        )
    except Exception as e:  # any failure is a verification failure
        print(f"verification failed: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print(json.dumps(claims))
    return 0


if __name__ == "__main__":
    sys.exit(main())
