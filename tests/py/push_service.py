"""A local Web Push service for tests: receives scanid's RFC 8030 requests.

Usage: push_service.py

It makes a subscription's keys itself (a P-256 key pair and a 16-octet auth secret, as a
browser does), listens on 127.0.0.1, and prints one JSON line:
{"endpoint", "p256dh", "auth"}. Then, for each POST it receives, it checks the VAPID
authorization (RFC 8292) with PyJWT: `vapid t=<jwt>, k=<key>`, the JWT an ES256 signature by
`k`, `aud` this service's origin, `exp` in the future and at most 24 h away, `sub` mailto: or
https:; it decrypts the body with http_ece (RFC 8291, aes128gcm) and prints one JSON line:
{"headers": {ttl, urgency, content-encoding}, "vapid": claims, "payload": the decrypted JSON}
or {"error": ...}. The first request is answered 201; a request to a path ending in /gone is
answered 410 (a subscription the push service dropped).
"""

import base64
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def b64u(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def unb64u(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


PRIVATE = ec.generate_private_key(ec.SECP256R1())
PUBLIC = PRIVATE.public_key().public_bytes(
    serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
)
AUTH = os.urandom(16)


def check_vapid(header, origin):
    if not header.startswith("vapid "):
        raise ValueError("Authorization is not vapid: %r" % header)
    params = dict(
        p.strip().split("=", 1) for p in header[len("vapid "):].split(",")
    )
    token, k = params["t"], params["k"]
    key_bytes = unb64u(k)
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), key_bytes)
    claims = jwt.decode(
        token,
        key,
        algorithms=["ES256"],
        audience=origin,
        options={"require": ["exp", "aud", "sub"]},
    )
    if claims["exp"] > time.time() + 24 * 3600:
        raise ValueError("exp more than 24 h away")
    if not (claims["sub"].startswith("mailto:") or claims["sub"].startswith("https:")):
        raise ValueError("sub is neither mailto: nor https:")
    return claims, k


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        origin = "http://%s:%d" % self.server.server_address[:2]
        out = {
            "path": self.path,
            "headers": {
                h: self.headers.get(h)
                for h in ("ttl", "urgency", "content-encoding", "content-type")
            },
        }
        try:
            claims, k = check_vapid(self.headers.get("authorization", ""), origin)
            out["vapid"] = claims
            out["k"] = k
            plain = http_ece.decrypt(
                body,
                private_key=PRIVATE,
                auth_secret=AUTH,
                version="aes128gcm",
            )
            out["payload"] = json.loads(plain)
        except Exception as e:  # noqa: BLE001 - reported to the test
            out["error"] = "%s: %s" % (type(e).__name__, e)
        gone = self.path.endswith("/gone")
        self.send_response(410 if gone else 201)
        self.send_header("content-length", "0")
        self.end_headers()
        print(json.dumps(out), flush=True)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    host, port = server.server_address[:2]
    print(
        json.dumps(
            {
                "endpoint": "http://%s:%d/push/sub-1" % (host, port),
                "p256dh": b64u(PUBLIC),
                "auth": b64u(AUTH),
            }
        ),
        flush=True,
    )
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
