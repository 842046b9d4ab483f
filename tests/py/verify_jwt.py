"""Verifies a JWT with PyJWT using only the issuer's JWKS: an independent implementation.

usage: verify_jwt.py JWKS_URL ISSUER TOKEN [AUDIENCE [REQUIRED]]
With AUDIENCE, `aud` must name it; REQUIRED (comma-separated, default exp,iat,iss) are the
claims that must be present (a signed introspection response has no exp, RFC 9701).
Prints the verified claims as JSON; exits 1 if the token does not verify.
"""
import json
import sys

import jwt


def main() -> int:
    jwks_url, issuer, token = sys.argv[1:4]
    audience = sys.argv[4] if len(sys.argv) > 4 else None
    required = sys.argv[5].split(",") if len(sys.argv) > 5 else ["exp", "iat", "iss"]
    client = jwt.PyJWKClient(jwks_url, cache_keys=False)
    try:
        key = client.get_signing_key_from_jwt(token)
        claims = jwt.decode(
            token,
            key.key,
            algorithms=["RS256", "ES256", "PS256", "EdDSA"],
            issuer=issuer,
            audience=audience,
            options={"verify_aud": audience is not None, "require": required},
        )
    except Exception as e:  # any failure is a verification failure
        print(f"verification failed: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print(json.dumps(claims))
    return 0


if __name__ == "__main__":
    sys.exit(main())
