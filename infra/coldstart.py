#!/usr/bin/env python3
"""Cold starts measured: runs each Lambda function's release binary under a local Lambda
Runtime API (a small fake of the real one, below) against the AWS emulator (moto), and
measures, per function:

  init       process start -> the runtime's first GET /invocation/next (what Lambda bills as
             Init Duration): exec, configuration, the DynamoDB connection, the key set;
  aws        the part of init spent in AWS calls (the function logs it: `init` line), which on
             moto is loopback time and on AWS is the TLS handshake and the reads;
  first      the first invocation (event queued -> response posted);
  tenth      the tenth invocation of the same event.

Each function is cold-started --runs times (default 5); the table shows medians. The events
are events/<function>.json, with a real client and a real access token where the sample
names an unknown one, so the measured path is the one users take.

usage: infra/coldstart.py [--runs N] [--markdown] [--check] [--bars] [--samples]
                          [--bin-dir DIR] [FUNCTION ...]

  --bin-dir  where the binaries are: DIR/<function>/bootstrap (cargo lambda's layout, default
             target/lambda-x86_64) or DIR/<function> (cargo's, e.g. target/debug)
  --check    exit 1 if a function fails to start or answers its event with a 5xx (the test
             command runs `--runs 1 --check --bin-dir target/debug`: every function starts
             under a Lambda Runtime API on DynamoDB and serves its event)
  --samples  send events/<function>.json as they are (an unknown client, a wrong secret):
             what an attacker's failed requests cost
  --bars     also exit 1 if a median is over the bars: init without its AWS calls > 30 ms, or
             first invocation > 50 ms (for release binaries; debug ones are slower)

Needs: the binaries (infra/build-functions.sh --x86-64, or --bin-dir), the scanid CLI
(SCANID_BIN, default target/debug/scanid) and the emulator: AWS_ENDPOINT_URL, or it starts
infra/emulator.sh itself.
"""
import argparse
import base64
import json
import pathlib
import queue
import re
import statistics
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote

import localaws
from localaws import ROOT

PREFIX = "/2018-06-01/runtime"


class RuntimeApi(ThreadingHTTPServer):
    """The Lambda Runtime API (2018-06-01) as a function sees it: it long-polls
    /invocation/next for an event and posts the response (or error) back."""

    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.events = queue.Queue()
        self.results = queue.Queue()
        self.first_next = None
        self.closed = threading.Event()

    def handle_error(self, request, client_address):
        pass  # a function killed mid-poll resets its connection: expected

    def invoke(self, payload, timeout=30.0):
        """Queues one event; returns (seconds from queueing to the posted response, kind, body)."""
        request_id = str(uuid.uuid4())
        start = time.perf_counter()
        self.events.put((request_id, payload))
        while True:
            try:
                kind, rid, body, at = self.results.get(timeout=0.05)
                break
            except queue.Empty:
                proc = getattr(self, "proc", None)
                if proc is not None and proc.poll() is not None:
                    raise RuntimeError(f"the function exited (status {proc.returncode})")
                if time.perf_counter() - start > timeout:
                    raise RuntimeError(f"no response in {timeout} s")
        if rid != request_id:
            raise RuntimeError(f"response for {rid}, expected {request_id}")
        return at - start, kind, body


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_):
        pass

    def reply(self, status, body=b"", headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        api = self.server
        if self.path != f"{PREFIX}/invocation/next":
            return self.reply(404)
        if api.first_next is None:
            api.first_next = time.perf_counter()
        while not api.closed.is_set():
            try:
                request_id, payload = api.events.get(timeout=0.2)
                break
            except queue.Empty:
                continue
        else:
            return self.reply(410)
        deadline = int(time.time() * 1000) + 10_000
        self.reply(200, payload, [
            ("Content-Type", "application/json"),
            ("Lambda-Runtime-Aws-Request-Id", request_id),
            ("Lambda-Runtime-Deadline-Ms", str(deadline)),
            ("Lambda-Runtime-Invoked-Function-Arn",
             "arn:aws:lambda:us-east-1:123456789012:function:scanid"),
            ("Lambda-Runtime-Trace-Id", "Root=1-00000000-000000000000000000000000"),
        ])

    def do_POST(self):
        at = time.perf_counter()
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        m = re.fullmatch(rf"{PREFIX}/invocation/([^/]+)/(response|error)", self.path)
        if m:
            self.server.results.put((m.group(2), m.group(1), body, at))
            return self.reply(202, b"{}")
        if self.path == f"{PREFIX}/init/error":
            self.server.results.put(("init-error", None, body, at))
            return self.reply(202, b"{}")
        self.reply(404)


def event(name, secret, token, samples=False):
    """events/<name>.json with a real client and token where the sample has unknown ones (or
    as it is, with `samples`)."""
    raw = (ROOT / "events" / f"{name}.json").read_text()
    if samples:
        return raw.encode()
    e = json.loads(raw)
    if "client_id=unknown" in e.get("rawQueryString", ""):
        e["rawQueryString"] = e["rawQueryString"].replace("client_id=unknown", "client_id=shop")
        e["queryStringParameters"] = dict(e.get("queryStringParameters") or {}, client_id="shop")
    body = e.get("body") or ""
    if name == "token":
        body = "grant_type=client_credentials&scope=openid"
    if "client_id=unknown" in body:
        body = body.replace("client_id=unknown", "client_id=shop")
        body = body.replace("client_secret=wrong", f"client_secret={quote(secret)}")
        if token:
            body = body.replace("token=unknown", f"token={quote(token)}")
    if name == "token":
        basic = base64.b64encode(f"shop:{secret}".encode()).decode()
        e["headers"]["authorization"] = f"Basic {basic}"
    if name == "userinfo" and token:
        e["headers"]["authorization"] = f"Bearer {token}"
    if body:
        e["body"] = body
    return json.dumps(e).encode()


def function_name(binary):
    return binary.parent.name if binary.name == "bootstrap" else binary.name


def find_binary(bin_dir, name):
    for path in (bin_dir / name / "bootstrap", bin_dir / name):
        if path.is_file():
            return path
    return None


# Functions a queue or a log subscription triggers, not an HTTP route
# (scanid_lambda::QUEUE_FUNCTIONS): no API event, no table or key set at init; not measured here.
QUEUE_FUNCTIONS = ("backchannel-sender", "events-writer",)


def functions():
    """The HTTP functions: one per events/<function>.json, less the queue functions."""
    return sorted(p.stem for p in (ROOT / "events").glob("*.json")
                  if p.stem not in QUEUE_FUNCTIONS)


def launch(binary, env, output=subprocess.PIPE):
    """Starts a function's binary under a fresh Runtime API: (api, process, start time). Its
    output is read as it comes (a full pipe would stall it) into `proc.lines`."""
    api = RuntimeApi()
    threading.Thread(target=api.serve_forever, daemon=True).start()
    fenv = dict(env, AWS_LAMBDA_RUNTIME_API=f"127.0.0.1:{api.server_address[1]}",
                AWS_LAMBDA_FUNCTION_NAME=function_name(binary),
                AWS_LAMBDA_FUNCTION_MEMORY_SIZE="256", AWS_LAMBDA_FUNCTION_VERSION="$LATEST",
                AWS_LAMBDA_LOG_GROUP_NAME="/aws/lambda/coldstart",
                AWS_LAMBDA_LOG_STREAM_NAME="coldstart")
    start = time.perf_counter()
    proc = subprocess.Popen([str(binary)], env=fenv, stdout=output, stderr=subprocess.STDOUT)
    proc.lines = []
    if output == subprocess.PIPE:
        def drain():
            for line in proc.stdout:
                proc.lines.append(line.decode(errors="replace"))
        threading.Thread(target=drain, daemon=True).start()
    api.proc = proc
    return api, proc, start


def stop(api, proc):
    proc.kill()
    proc.wait()
    time.sleep(0.01)  # the drain thread reads what is left
    api.closed.set()
    api.shutdown()
    api.server_close()
    return "".join(proc.lines)


def cold_start(binary, env, payload, invocations=10):
    api, proc, start = launch(binary, env)
    try:
        while api.first_next is None:
            if proc.poll() is not None:
                time.sleep(0.05)
                raise RuntimeError(f"{function_name(binary)} exited during init:\n"
                                   f"{''.join(proc.lines)[-2000:]}")
            if time.perf_counter() - start > 30:
                raise RuntimeError(f"{function_name(binary)} did not finish its init in 30 s")
            time.sleep(0.001)
        latencies, statuses = [], []
        for _ in range(invocations):
            seconds, kind, body = api.invoke(payload)
            if kind != "response":
                raise RuntimeError(f"{function_name(binary)}: {kind}: {body[:300]!r}")
            latencies.append(seconds * 1000)
            statuses.append(json.loads(body).get("statusCode"))
        init = (api.first_next - start) * 1000
    finally:
        output = stop(api, proc)
    aws = None
    for line in output.splitlines():
        try:
            log = json.loads(line)
        except ValueError:
            continue
        if log.get("message") == "init":
            aws = log["table_ms"] + log["key_set_ms"] + log["kms_ms"]
    if aws is None:
        raise RuntimeError(f"{function_name(binary)}: no init line in its log:\n{output[-2000:]}")
    return {"init": init, "aws": aws, "first": latencies[0], "tenth": latencies[9],
            "status": statuses[0]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("functions", nargs="*")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--bars", action="store_true")
    ap.add_argument("--samples", action="store_true",
                    help="send the sample events as they are (unknown client, wrong secret)")
    ap.add_argument("--bin-dir", default=str(ROOT / "target/lambda-x86_64"))
    args = ap.parse_args()
    env = dict(localaws.environment(), SCANID_PUBLIC_URL="https://id.example.com",
               RUST_LOG="info")
    env, secret = localaws.fresh_table(env, "kms-envelope", "coldstart")
    bin_dir = pathlib.Path(args.bin_dir)
    names = args.functions or functions()
    # The token function first: its access token makes the introspection, revocation and
    # userinfo events real.
    names.sort(key=lambda n: n != "token")
    token, rows = None, []
    for name in names:
        binary = find_binary(bin_dir, name)
        if binary is None:
            print(f"no binary of {name} in {bin_dir}: run infra/build-functions.sh --x86-64",
                  file=sys.stderr)
            return 1
        payload = event(name, secret, token, args.samples)
        runs = [cold_start(binary, env, payload) for _ in range(args.runs)]
        row = {k: statistics.median(r[k] for r in runs) for k in ("init", "aws", "first", "tenth")}
        row["init_max"] = max(r["init"] for r in runs)
        row["status"] = runs[0]["status"]
        rows.append((name, row))
        if name == "token" and not args.samples:
            token = issue_token(binary, env, payload)
        print(f"{name}: {row}", file=sys.stderr)
    report(rows, args.markdown)
    failed = [name for name, r in rows if not isinstance(r["status"], int) or r["status"] >= 500]
    if (args.check or args.bars) and failed:
        print(f"answered 5xx: {', '.join(failed)}", file=sys.stderr)
        return 1
    over = [name for name, r in rows if r["init"] - r["aws"] > 30 or r["first"] > 50]
    if args.bars and over:
        print(f"over the bars (init - AWS <= 30 ms, first <= 50 ms): {', '.join(over)}",
              file=sys.stderr)
        return 1
    return 0


def issue_token(binary, env, payload):
    api, proc, _ = launch(binary, env, output=subprocess.DEVNULL)
    try:
        _, _, body = api.invoke(payload)
        return json.loads(json.loads(body)["body"])["access_token"]
    finally:
        stop(api, proc)


def report(rows, markdown):
    cols = ("init", "aws", "first", "tenth")
    if markdown:
        print("| function | init (ms) | of which AWS calls (ms) | init − AWS (ms) | "
              "1st invocation (ms) | 10th invocation (ms) | status |")
        print("|---|--:|--:|--:|--:|--:|--:|")
        for name, r in rows:
            print(f"| {name} | {r['init']:.1f} | {r['aws']:.1f} | {r['init'] - r['aws']:.1f} | "
                  f"{r['first']:.1f} | {r['tenth']:.1f} | {r['status']} |")
        return
    print(f"{'function':<26}" + "".join(f"{c:>10}" for c in (*cols, "init-aws")) + "  status")
    for name, r in rows:
        print(f"{name:<26}" + "".join(f"{r[c]:>10.1f}" for c in cols)
              + f"{r['init'] - r['aws']:>10.1f}  {r['status']}")


if __name__ == "__main__":
    sys.exit(main())
