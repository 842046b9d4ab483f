#!/usr/bin/env python3
"""Invokes every function with its sample event (events/<function>.json) the way a developer
does by hand: `cargo lambda watch` runs the functions (built on their first invocation) against
a fresh table in the AWS emulator, and `cargo lambda invoke <function> --data-file ...` sends
each event. Prints the status each function answered; exits 1 if one failed or answered 5xx.

usage: infra/invoke-all.py [--port 9000] [FUNCTION ...]

The samples name an unknown client (they document the event's shape); with a real client
registered here, this script puts it in (and a real access token, from the token function) so
that each function takes its main path. Needs: pip install cargo-lambda; the scanid CLI
(SCANID_BIN, default target/debug/scanid); the emulator (AWS_ENDPOINT_URL, or it starts
infra/emulator.sh).
"""
import argparse
import json
import pathlib
import socket
import subprocess
import sys
import tempfile
import time

import localaws
from coldstart import event, functions
from localaws import ROOT


def wait_port(port, proc, seconds=120):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("cargo lambda watch exited")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise RuntimeError(f"cargo lambda watch is not listening on {port}")


def invoke(name, payload, port, tmp):
    data = pathlib.Path(tmp) / f"{name}.json"
    data.write_bytes(payload)
    start = time.perf_counter()
    out = subprocess.run(["cargo", "lambda", "invoke", name, "--invoke-port", str(port),
                          "--data-file", str(data), "--output-format", "json"],
                         capture_output=True, text=True, cwd=ROOT, timeout=600)
    seconds = time.perf_counter() - start
    if out.returncode != 0:
        return None, seconds, out.stderr.strip().splitlines()[-1:] or ["failed"]
    response = json.loads(out.stdout)
    return response.get("statusCode"), seconds, response


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("functions", nargs="*")
    ap.add_argument("--port", type=int, default=9000)
    args = ap.parse_args()
    env = dict(localaws.environment(), SCANID_PUBLIC_URL="https://id.example.com",
               RUST_LOG="warn")
    env, secret = localaws.fresh_table(env, "kms-envelope", "invoke")
    names = args.functions or functions()
    names.sort(key=lambda n: n != "token")  # its access token feeds the later events
    keep = ("AWS_ENDPOINT_URL", "AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")
    with tempfile.TemporaryDirectory() as tmp:
        env_file = pathlib.Path(tmp) / "functions.env"
        env_file.write_text("".join(f"{k}={v}\n" for k, v in env.items()
                                    if k.startswith("SCANID_") and k != "SCANID_BIN"
                                    or k in keep or k == "RUST_LOG"))
        watch = subprocess.Popen(["cargo", "lambda", "watch", "--ignore-changes",
                                  "--invoke-port", str(args.port), "--env-file", str(env_file)],
                                 cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        failed, token = 0, None
        try:
            wait_port(args.port, watch)
            print(f"{'function':<26}{'status':>8}{'seconds':>10}")
            for name in names:
                status, seconds, response = invoke(name, event(name, secret, token), args.port,
                                                   tmp)
                ok = status is not None and status < 500
                failed += not ok
                if name == "token" and ok:
                    token = json.loads(response["body"]).get("access_token")
                note = "" if ok else f"  {response}"
                print(f"{name:<26}{status if status else '-':>8}{seconds:>10.1f}{note}")
        finally:
            watch.terminate()
            watch.wait()
    print(f"{len(names) - failed} of {len(names)} functions answered", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
