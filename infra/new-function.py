#!/usr/bin/env python3
"""Scaffolds what a route-table function needs besides its handler: functions/<name>/ (the
Lambda binary: wiring only) and events/<name>.json (an API Gateway HTTP API v2 sample event).
template.yaml entries are written by hand (IAM differs per function); tests/it/events.rs checks
all three against shared/http/src/routes.rs.

usage: infra/new-function.py NAME "METHOD /path/{with}/params" [--query Q] [--body B]
                             [--content-type T] [--param k=v ...]
                             --endpoint CONST [--signs]
"""
import argparse
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def event(method, template, path, query, body, content_type, params):
    headers = {"accept": "application/json", "host": "id.example.com", "user-agent": "curl/8.5.0",
               "x-forwarded-proto": "https", "x-forwarded-for": "203.0.113.10"}
    if content_type:
        headers["content-type"] = content_type
    e = {
        "version": "2.0",
        "routeKey": f"{method} {template}",
        "rawPath": path,
        "rawQueryString": query,
        "headers": headers,
        "requestContext": {
            "accountId": "123456789012", "apiId": "a1b2c3d4e5", "domainName": "id.example.com",
            "domainPrefix": "id",
            "http": {"method": method, "path": path, "protocol": "HTTP/1.1",
                     "sourceIp": "203.0.113.10", "userAgent": "curl/8.5.0"},
            "requestId": "JKJaXmPLvHcESHA=", "routeKey": f"{method} {template}", "stage": "$default",
            "time": "22/Nov/2026:10:15:30 +0000", "timeEpoch": 1795342530123,
        },
        "pathParameters": params,
        "isBase64Encoded": False,
    }
    if body is not None:
        e["body"] = body
    return e


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("name")
    ap.add_argument("route")
    ap.add_argument("--query", default="")
    ap.add_argument("--body")
    ap.add_argument("--content-type")
    ap.add_argument("--param", action="append", default=[])
    ap.add_argument("--no-realm", action="store_true", help="the route has no {realm} (directory)")
    ap.add_argument("--signs", action="store_true", help="the function signs tokens (links the KMS signer)")
    ap.add_argument("--endpoint", required=True,
                    help="its constant in scanid_http::routes::endpoints, e.g. DIRECTORY_AVATAR")
    a = ap.parse_args()
    method, template = a.route.split(" ", 1)
    params = {} if a.no_realm else {"realm": "scanid"}
    params.update(dict(p.split("=", 1) for p in a.param))
    path = template
    for k, v in params.items():
        path = path.replace("{" + k + "}", v)
    ev = event(method, template, path, a.query, a.body, a.content_type, params)
    (ROOT / "events" / f"{a.name}.json").write_text(json.dumps(ev, indent=2) + "\n")

    runner = "run_signing" if a.signs else "run"
    crate = ROOT / "functions" / a.name
    (crate / "src").mkdir(parents=True, exist_ok=True)
    (crate / "Cargo.toml").write_text(f"""[package]
name = "scanid-fn-{a.name}"
description = "Lambda function {a.name}: {a.route}"
version.workspace = true
edition.workspace = true
license.workspace = true
publish.workspace = true

[[bin]]
name = "{a.name}"
path = "src/main.rs"

[dependencies]
scanid-lambda.workspace = true
lambda_http.workspace = true
tokio.workspace = true

[lints]
workspace = true
""")
    (crate / "src" / "main.rs").write_text(f"""//! Lambda function `{a.name}`: {a.route}.
//! Wiring only; the handler lives in `scanid-http` (`scanid_http::routes`).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {{
    scanid_lambda::{runner}(scanid_lambda::endpoints::{a.endpoint}).await
}}
""")


if __name__ == "__main__":
    main()
