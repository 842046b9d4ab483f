#!/usr/bin/env python3
"""What one whole QR login costs on AWS (a first one, and a returning one whose consent is
remembered): runs `scanid serve` on a DynamoDB table in the emulator
(moto) behind a counting proxy, drives one login the way a browser, the phone app and a relying
party do (page, polls, app scan and decision, consent, code exchange, userinfo), and counts per
step the HTTP requests (each one a Lambda invocation behind API Gateway), the DynamoDB calls
with their capacity units, and the KMS calls. Then it prices a million logins on list prices,
for `kms` and `kms-envelope` signing, with the login page's polling before and after it was cut.

usage: infra/login-cost.py [--markdown] [--release-bin PATH]

The Lambda column prices each request's duration. The counts (requests, RRU, WRU, KMS calls)
come from SCANID_BIN (default target/debug/scanid: what the test command builds); the
durations come from a release build when there is one (`--release-bin`, SCANID_RELEASE_BIN,
or `release/scanid` beside SCANID_BIN's `debug/` when it is not older than SCANID_BIN): the
kms-envelope login is run RELEASE_RUNS more times on it and each step's median duration is
priced (the script checks those runs count what the first one did: a release build that
counts otherwise is of other source, refused when named, ignored when found). Without one
(the test command: building one would add minutes) the durations are the debug build's, an
overstatement, and the output says so beside every figure. The browser keeps its connection
alive, and the counting proxy sends without Nagle's delay (it cost ~40 ms per DynamoDB call
until issue 27's seventh cut, priced as Lambda duration though production has no proxy).

Exits 1 when a login (the page's polling as it is now) costs more HTTP requests, RRU or WRU
than BAR, the figures of issue 27 (the test command runs it: the per-login cost is held as the
cold starts are).

Needs: the scanid CLI (SCANID_BIN, default target/debug/scanid) and the emulator
(AWS_ENDPOINT_URL, or it starts infra/emulator.sh).
"""
import argparse
import base64
import collections
import http.client
import http.cookiejar
import json
import math
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import localaws
from localaws import CB

# List prices, us-east-1, USD (see docs/book/src/performance.md for the sources and the date).
PRICE = {
    "api_request": 1.00 / 1e6,          # API Gateway HTTP API, per request (first 300 M)
    "lambda_request": 0.20 / 1e6,       # Lambda, per invocation
    "lambda_gb_s": 0.0000133334,        # Lambda arm64, per GB-second
    "rru": 0.125 / 1e6,                 # DynamoDB on-demand, per read request unit
    "wru": 0.625 / 1e6,                 # DynamoDB on-demand, per write request unit
    "kms_symmetric": 0.03 / 1e4,        # KMS Decrypt and other symmetric requests
    "kms_sign_RS256": 0.03 / 1e4,       # KMS Sign with an RSA_2048 key
    "kms_sign_ES256": 0.15 / 1e4,       # KMS Sign with an ECC_NIST_P256 key (other asymmetric)
}
MEMORY_GB = 256 / 1024                  # template.yaml's MemorySize
# What one login may cost (3 s / 2 s / 1 s polling): the figures of issue 27 (no transaction on
# the login path, the polls read eventually consistent, 5.5 polls, the code exchange one write),
# measured 2026-11-25 (docs/benchmarks/2026-11-25-login-cost-cuts.md; before it: 15.5 requests, 29.5 RRU, 24 WRU). The script
# exits 1 above any.
# Issue 41: the page's polls on the login-status function's URL, not API Gateway (7 of the
# 12.5 requests go through it); the login completed by the session it starts and that session
# listed by the approval's write (two WRU fewer), what the decision and the consent page only
# show or weigh read eventually consistent (two RRU fewer).
BAR = {"requests": 12.5, "API requests": 7.0, "RRU": 21.75, "WRU": 11.0}
# The login the polling model assumes: the person scans 8 s after the page opens and approves
# 4 s after the scan.
SCAN_AFTER_S, APPROVE_AFTER_S = 8.0, 4.0
# How many logins the release build's durations are the median of.
RELEASE_RUNS = 5
# How many recent logins an identity keeps (domain/identity.rs `RECENT_LOGINS`).
RECENT_LOGINS = 20


class Counter:
    """DynamoDB and KMS calls by step, with their capacity units."""

    def __init__(self):
        self.step = "setup"
        self.calls = collections.defaultdict(collections.Counter)
        self.lock = threading.Lock()
        self.ddb_ms = 0.0

    def add(self, op, rru=0, wru=0):
        with self.lock:
            c = self.calls[self.step]
            c[op] += 1
            c["RRU"] += rru
            c["WRU"] += wru


def units(op, request, response):
    """(RRU, WRU) one DynamoDB call consumes: strongly consistent reads of 4 KB, eventually
    consistent ones half that, writes of 1 KB, transactions twice
    (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/
    read-write-operations.html). Item sizes are taken from the request or response JSON."""
    kb = lambda value, unit: max(1, math.ceil(len(json.dumps(value)) / unit))  # noqa: E731
    if op == "GetItem":
        rru = kb(response.get("Item", {}), 4096)
        return (rru if request.get("ConsistentRead") else rru / 2), 0
    if op in ("Query", "Scan"):
        return kb(response.get("Items", []), 4096), 0
    if op == "PutItem":
        return 0, kb(request.get("Item", {}), 1024)
    if op in ("UpdateItem", "DeleteItem"):
        return 0, kb(response.get("Attributes") or request, 1024)
    if op == "TransactWriteItems":
        w = 0
        for item in request.get("TransactItems", []):
            put = item.get("Put")
            w += kb(put["Item"], 1024) if put else 1
        return 0, 2 * w
    if op == "TransactGetItems":
        return 2 * len(request.get("TransactItems", [])), 0
    return 0, 0


def proxy(upstream, counter):
    """A counting HTTP proxy in front of the emulator."""
    target = urllib.parse.urlsplit(upstream)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body leave in separate writes: with Nagle's algorithm on, the body waited
        # for the server's delayed ACK of the headers (some 40 ms on every DynamoDB call, billed
        # to the request as Lambda duration though it is this proxy's, which production lacks).
        disable_nagle_algorithm = True

        def log_message(self, *_):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            conn = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
            headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
            headers["Host"] = target.netloc
            started = time.perf_counter()
            conn.request("POST", self.path, body, headers)
            resp = conn.getresponse()
            data = resp.read()
            with counter.lock:
                counter.ddb_ms += (time.perf_counter() - started) * 1000
            amz = self.headers.get("X-Amz-Target", "")
            service, _, op = amz.partition(".")
            if service.startswith("DynamoDB"):
                try:
                    rru, wru = units(op, json.loads(body or b"{}"), json.loads(data or b"{}"))
                except ValueError:
                    rru, wru = 0, 0
                counter.add(op, rru, wru)
            elif service == "TrentService":
                counter.add(f"kms:{op}")
            self.send_response(resp.status)
            for k, v in resp.getheaders():
                if k.lower() not in ("content-length", "transfer-encoding", "connection"):
                    self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


class Client:
    """A browser (cookies, no automatic redirects, kept-alive connections) that times and counts
    its requests."""

    def __init__(self, counter, server_pid=None):
        self.counter = counter
        self.server_pid = server_pid
        self.cpu = collections.Counter()
        self.ddb_ms = collections.Counter()
        self.jar = http.cookiejar.CookieJar()
        # One kept-alive connection per server, as a browser (and API Gateway in front of
        # Lambda) keeps them: Lambda bills the handler's time, not a client's TCP handshake.
        self.conns = {}
        self.requests = collections.Counter()
        self.millis = collections.Counter()

    def send(self, method, url, body=None, headers=None):
        req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
        self.jar.add_cookie_header(req)
        parts = urllib.parse.urlsplit(url)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        sent = dict(req.header_items())
        if body is not None and not any(k.lower() == "content-type" for k in sent):
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        cpu, ddb = server_cpu_ms(self.server_pid), self.counter.ddb_ms
        start = time.perf_counter()
        for attempt in (1, 2):
            conn = self.conns.get(parts.netloc)
            if conn is None:
                conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
                self.conns[parts.netloc] = conn
            try:
                conn.request(method, path, body=body, headers=sent)
                r = conn.getresponse()
                status, data, hdrs = r.status, r.read(), r.headers
                break
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                # The server closed a kept-alive connection: a new one, once.
                conn.close()
                del self.conns[parts.netloc]
                if attempt == 2:
                    raise
        if r.will_close:
            conn.close()
            del self.conns[parts.netloc]
        self.jar.extract_cookies(r, req)
        self.requests[self.counter.step] += 1
        self.millis[self.counter.step] += (time.perf_counter() - start) * 1000
        self.cpu[self.counter.step] += server_cpu_ms(self.server_pid) - cpu
        self.ddb_ms[self.counter.step] += self.counter.ddb_ms - ddb
        return status, data.decode(errors="replace"), hdrs


def server_cpu_ms(pid):
    """The server process's CPU time so far (user and system, ms), from /proc: what a request
    costs in CPU, apart from the time it waits (on the store, or for a core on a busy
    machine)."""
    if pid is None:
        return 0.0
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def attr(html, marker, name):
    at = html.index(marker)
    m = re.compile(rf'{name}="([^"]*)"').search(html, at)
    return m.group(1).replace("&amp;", "&")


def one_login(env, signing, returning=False, prior=1):
    """One whole QR login's steps, counted. `returning`: the person logs in to the same client
    again (after `prior` logins), from a new browser (no SSO session: the QR again), and the
    consent they gave the first time is remembered; only the last login is counted (with
    `prior` = RECENT_LOGINS, its decision rewrites a full list of recent logins)."""
    counter = Counter()
    env, secret = localaws.fresh_table(env, signing, "logincost")
    server, endpoint = proxy(env["AWS_ENDPOINT_URL"], counter)
    port = free_port()
    # As the template deploys it (LoginStatusPolling=function-url): the pages on the public
    # URL, the page's polls on another origin (the login-status function's URL; here the same
    # process under 127.0.0.1), which the browser sends no cookie to.
    base = f"http://localhost:{port}"
    issuer = f"{base}/realms/scanid"
    senv = dict(env, AWS_ENDPOINT_URL=endpoint)
    with tempfile.TemporaryDirectory() as data:
        serve = subprocess.Popen(
            [env["SCANID_BIN"], "serve", "--addr", f"127.0.0.1:{port}", "--no-demo",
             "--public-url", base, "--login-status-url", f"http://127.0.0.1:{port}",
             # One person's 21 logins in a minute (the full list of recent logins): the
             # limits still count each (the same writes), they only do not refuse.
             "--login-rate-per-minute", "1000", "--decision-rate-per-minute", "1000",
             "--data-dir", data], env=senv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            wait_ready(issuer, serve)
            key = f"{data}/device.json"
            localaws.cli(env, "app", "enroll", "--key-file", key, "--server", base,
                         "--name", "alice", "--display-name", "Alice", "--country", "SE")
            if returning:
                for _ in range(prior):
                    run_login(counter, issuer, base, key, secret, env, serve.pid)
                counter.calls.clear()
            return run_login(counter, issuer, base, key, secret, env, serve.pid)
        finally:
            serve.kill()
            serve.wait()
            server.shutdown()


def wait_ready(issuer, serve):
    for _ in range(200):
        if serve.poll() is not None:
            raise RuntimeError(f"scanid serve exited: {serve.stderr.read().decode()}")
        try:
            urllib.request.urlopen(f"{issuer}/.well-known/openid-configuration", timeout=1)
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("scanid serve did not start")


def run_login(counter, issuer, base, key, secret, env, server_pid=None):
    b = Client(counter, server_pid)
    oidc = f"{issuer}/protocol/openid-connect"
    query = urllib.parse.urlencode({
        "client_id": "shop", "redirect_uri": CB, "response_type": "code",
        "scope": "openid profile", "state": "st", "nonce": "n-1"})

    counter.step = "login page (authorize)"
    status, page, _ = b.send("GET", f"{oidc}/auth?{query}")
    assert status == 200, (status, page[:300])
    payload = attr(page, 'id="app-link"', "data-qr-payload")
    status_url = attr(page, 'id="state"', "data-status-url")
    # The polls go to the function URL, with the page's token and no cookie.
    assert status_url.startswith("http://127.0.0.1:") and "&poll=" in status_url, status_url

    counter.step = "poll, before the scan"
    status, body, _ = b.send("GET", status_url, headers={"Accept": "application/json"})
    assert json.loads(body)["status"] == "pending", body

    counter.step = "app: scan and approve (2 requests)"
    app_cpu, app_ddb = server_cpu_ms(server_pid), counter.ddb_ms
    app = subprocess.Popen(
        [env["SCANID_BIN"], "app", "approve", "--key-file", key, "--server", base, payload],
        env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    # The app scans and asks for the number; the page's next poll (once scanned) shows it.
    # That poll is one the page makes anyway: counted apart, as a poll.
    for line in app.stderr:
        if line.startswith("Which number"):
            break
    counter.step = "poll, scanned (shows the number)"
    status, body, _ = b.send("GET", status_url, headers={"Accept": "application/json"})
    assert "number" in json.loads(body), (status, body[:300])
    number = json.loads(body)["number"]
    counter.step = "app: scan and approve (2 requests)"
    out, err = app.communicate(f"{number}\n")
    assert app.returncode == 0, err
    assert json.loads(out)["status"] == "approved", out
    b.requests[counter.step] += 2
    b.cpu[counter.step] = server_cpu_ms(server_pid) - app_cpu - b.cpu[
        "poll, scanned (shows the number)"]
    b.ddb_ms[counter.step] = counter.ddb_ms - app_ddb - b.ddb_ms[
        "poll, scanned (shows the number)"]

    counter.step = "poll, approved"
    status, body, _ = b.send("GET", status_url, headers={"Accept": "application/json"})
    nxt = json.loads(body)["next"]

    counter.step = "consent page"
    status, page, headers = b.send("GET", nxt)
    if status not in (302, 303):
        assert status == 200, (status, page[:300])
        csrf = attr(page, 'name="csrf"', "value")
        session = attr(page, 'name="session"', "value")

        counter.step = "consent: allow"
        form = urllib.parse.urlencode({"session": session, "csrf": csrf, "consent": "allow"})
        status, _, headers = b.send("POST", f"{issuer}/login-actions/consent", form.encode(),
                                    {"Content-Type": "application/x-www-form-urlencoded"})
        assert status in (302, 303), status
    # (A consent given before is remembered: the consent step sends the browser straight
    # back to the client, with the code.)
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(headers["Location"]).query)["code"][0]

    counter.step = "token (code exchange)"
    basic = base64.b64encode(f"shop:{secret}".encode()).decode()
    form = urllib.parse.urlencode({"grant_type": "authorization_code", "code": code,
                                   "redirect_uri": CB})
    status, body, _ = b.send("POST", f"{oidc}/token", form.encode(), {
        "Content-Type": "application/x-www-form-urlencoded", "Authorization": f"Basic {basic}"})
    assert status == 200, body
    access = json.loads(body)["access_token"]

    counter.step = "userinfo"
    status, body, _ = b.send("GET", f"{oidc}/userinfo", headers={
        "Authorization": f"Bearer {access}"})
    assert status == 200, body

    # The reference app's own start-up is not the service's time: its two calls are counted
    # at the mean duration of the others.
    app = "app: scan and approve (2 requests)"
    others = [s for s in b.requests if s != app]
    b.millis[app] = 2 * sum(b.millis[s] for s in others) / sum(b.requests[s] for s in others)
    order = [s for s in ["login page (authorize)", "poll, before the scan",
                         "app: scan and approve (2 requests)",
                         "poll, scanned (shows the number)", "poll, approved", "consent page",
                         "consent: allow", "token (code exchange)", "userinfo"]
             if b.requests[s]]
    for s in order:
        # Where a step's time goes (printed, not priced): the server's CPU, and its waits on
        # the store (the emulator, through the counting proxy).
        counter.calls[s]["_cpu_ms"] = b.cpu[s]
        counter.calls[s]["_ddb_ms"] = b.ddb_ms[s]
    return [(s, b.requests[s], b.millis[s], counter.calls[s]) for s in order]


def polls(idle, scanned, first, scan_at, approve_at, pick=None):
    """How many polls a page makes until it sees the approval, how long after the approval it
    sees it, and how long after the scan it shows the number. `pick`: the wait after the poll
    that first shows the number (the person reads it there and picks it on the phone)."""
    t, n, shown = first, 0, None
    while True:
        n += 1
        if t >= approve_at:
            return n, t - approve_at, (t if shown is None else shown) - scan_at
        if t >= scan_at:
            if shown is None:
                shown = t
                t += pick or scanned
            else:
                t += scanned
        else:
            t += idle


def held_model(on_page=5.0, ahead=7.0, margin=2.0, hold_max=20.0):
    """Polls per login where `scanid serve` holds each poll until the login changes
    (service/login_watch.rs), averaged like `poll_model`: (mean polls, mean and worst delay
    before the page follows the approval, mean and worst delay before it shows the number).
    The first poll leaves with the page; before the scan a held poll returns `margin` s before
    the page's last code is due, with the codes of the next `ahead` s; the scan and the
    decision answer the poll waiting at once."""
    runs = []
    for k in range(200):
        scan_at = SCAN_AFTER_S + k / 100
        approve_at = scan_at + APPROVE_AFTER_S
        t, last_code, n = 0.0, on_page - 1, 0
        while True:
            n += 1
            returns = min(last_code - margin, t + hold_max)
            if returns >= scan_at:
                break
            t, last_code = returns, returns + ahead - 1
        n += 1  # held from the scan until the decision
        assert approve_at - scan_at < hold_max
        runs.append(n)
    return sum(runs) / len(runs), 0.0, 0.0, 0.0, 0.0


def poll_model(idle, scanned, first, pick=None):
    """Polls per login, and what a person waits, averaged over where in the poll cycle the
    scan falls (scan 8-10 s after the page opens, approval 4 s later): (mean polls, mean and
    worst delay before the page follows the approval, mean and worst delay before it shows
    the number after the scan)."""
    runs = [polls(idle, scanned, first, SCAN_AFTER_S + k / 100, SCAN_AFTER_S + k / 100
                  + APPROVE_AFTER_S, pick) for k in range(200)]
    return (sum(n for n, _, _ in runs) / len(runs), sum(d for _, d, _ in runs) / len(runs),
            max(d for _, d, _ in runs), sum(s for *_, s in runs) / len(runs),
            max(s for *_, s in runs))


def price(rows, poll_count, alg, api_polls=False):
    """USD per login: rows are the measured steps, with three polls (one pending, one that
    shows the number, one that sees the approval); a login with `poll_count` polls has
    `poll_count - 3` more pending ones. Every request is a Lambda invocation; all but the polls
    are API Gateway requests, the polls too with `api_polls` (LoginStatusPolling=api: else they
    go to the login-status function's URL).
    (kms-envelope's `Decrypt` happens once per process start, a Lambda cold start, not per
    login: it is not priced here.)"""
    pending = next((n, ms, c) for s, n, ms, c in rows if s == "poll, before the scan")

    def per_login(total, one_poll):
        measured = sum(1 for s, *_ in rows if s.startswith("poll"))
        return total + one_poll * (poll_count - measured)

    requests = per_login(sum(n for _, n, _, _ in rows), pending[0])
    ms = per_login(sum(m for _, _, m, _ in rows), pending[1])
    rru = per_login(sum(c["RRU"] for *_, c in rows), pending[2]["RRU"])
    wru = per_login(sum(c["WRU"] for *_, c in rows), pending[2]["WRU"])
    sign = sum(c["kms:Sign"] for *_, c in rows)
    # The same duration counted as the server's CPU time plus its waits on the store: what the
    # requests take when nothing else runs on the machine (on a busy one, the wall time above
    # also counts the time a request waits for a core). Printed beside, not priced.
    busy = per_login(sum(c["_cpu_ms"] + c["_ddb_ms"] for *_, c in rows),
                     pending[2]["_cpu_ms"] + pending[2]["_ddb_ms"])
    api = requests if api_polls else requests - poll_count
    cost = {
        "API Gateway": api * PRICE["api_request"],
        "Lambda requests": requests * PRICE["lambda_request"],
        "Lambda duration": ms / 1000 * MEMORY_GB * PRICE["lambda_gb_s"],
        "DynamoDB reads": rru * PRICE["rru"],
        "DynamoDB writes": wru * PRICE["wru"],
        "KMS": sign * PRICE[f"kms_sign_{alg}"],
    }
    return requests, rru, wru, sign, cost, busy / 1000 * MEMORY_GB * PRICE["lambda_gb_s"], api


def release_bin(env, given):
    """The release build to time the requests with, if any (see the module's docs)."""
    if given:
        return given
    debug = env["SCANID_BIN"]
    parent, name = os.path.split(debug)
    if os.path.basename(parent) != "debug":
        return None
    candidate = os.path.join(os.path.dirname(parent), "release", name)
    try:
        if os.path.getmtime(candidate) >= os.path.getmtime(debug):
            return candidate
    except OSError:
        pass
    return None


def counts(rows):
    return [(s, n, {k: v for k, v in c.items() if not k.startswith("_")}) for s, n, _, c in rows]


def release_durations(env, rows, binary):
    """`rows` with each step's duration (and CPU and store waits) the median of RELEASE_RUNS
    kms-envelope logins on the release build `binary`; None when those logins count other
    calls than `rows` (a release build of other source)."""
    runs = [one_login(dict(env, SCANID_BIN=binary), "kms-envelope") for _ in range(RELEASE_RUNS)]
    for run in runs:
        if counts(run) != counts(rows):
            return None
    med = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
    out = []
    for i, (s, n, _, c) in enumerate(rows):
        c = collections.Counter(c)
        for k in ("_cpu_ms", "_ddb_ms"):
            c[k] = med([run[i][3][k] for run in runs])
        out.append((s, n, med([run[i][2] for run in runs]), c))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--release-bin", default=os.environ.get("SCANID_RELEASE_BIN"))
    args = ap.parse_args()
    env = localaws.environment()
    measured = {signing: one_login(env, signing) for signing in ("kms", "kms-envelope")}
    timed_on = release_bin(env, args.release_bin)
    timed = timed_on and release_durations(env, measured["kms-envelope"], timed_on)
    if timed:
        measured["kms-envelope"] = timed
        build = f"release build ({timed_on}), median of {RELEASE_RUNS} logins"
    elif timed_on and args.release_bin:
        print(f"login-cost: the release build {timed_on} counts other calls than "
              f"{env['SCANID_BIN']}: is it built from the same source?", file=sys.stderr)
        return 1
    else:
        why = (f"{timed_on} counts other calls, so it is not this source's"
               if timed_on else "no release build found")
        build = f"DEBUG build ({why}: an overstatement; see `--release-bin`)"
    print(f"Lambda durations measured on the {build}.\n")
    rows = measured["kms"]
    # Page polling: every second (before issue 24), every 2 s until the scan then every second
    # (issue 24), and every 3 s until the scan, 2 s after the poll that first shows the number,
    # then every second (issue 27: the codes in hand cover 5 s; POLL_*_MS in domain/login.rs).
    polling = [("every 1 s (before)", "1 s", poll_model(1.0, 1.0, first=1.0), (300, 300)),
               ("every 2 s until scanned, then 1 s, none while hidden (issue 24)", "2 s / 1 s",
                poll_model(2.0, 1.0, first=2.0), (150, 0)),
               ("every 3 s until scanned, 2 s after the number shows, then 1 s, none while "
                "hidden (now)", "3 s / 2 s / 1 s", poll_model(3.0, 1.0, first=3.0, pick=2.0),
                (100, 0))]
    new = polling[-1][2][0]
    # `scanid serve` on its embedded store: not priced (a Lambda function answers at once; a
    # held request bills its whole wait, $3.33 per million seconds at 256 MB, some 12 s a
    # login, against $1.20 per million for each poll it saves).
    held = ("held until the login changes (`scanid serve` only)", "held", held_model(),
            (75, 0))
    print_polling = polling + [held]
    print("## One QR login, step by step (kms signing)\n")
    print("| step | HTTP requests | DynamoDB calls | RRU | WRU | KMS calls |")
    print("|---|--:|---|--:|--:|--:|")
    for step, n, _, c in rows:
        ddb = ", ".join(f"{op} ×{k}" if k > 1 else op for op, k in sorted(c.items())
                        if op not in ("RRU", "WRU") and not op.startswith(("kms:", "_")))
        kms = ", ".join(f"{op[4:]} ×{k}" for op, k in c.items() if op.startswith("kms:"))
        print(f"| {step} | {n} | {ddb or '–'} | {c['RRU']:g} | {c['WRU']} | {kms or '–'} |")
    env_rows = measured["kms-envelope"]
    print(f"\n## Where a request's time goes (kms-envelope on the emulator; {build})\n")
    print("| step | duration ms (priced) | server CPU ms | waiting on DynamoDB ms |")
    print("|---|--:|--:|--:|")
    for step, n, ms, c in env_rows:
        print(f"| {step} | {ms:.0f} | {c['_cpu_ms']:.0f} | {c['_ddb_ms']:.0f} |")
    env_kms = sum(c[op] for *_, c in env_rows for op in c if op.startswith("kms:"))
    env_sign = sum(c["kms:Sign"] for *_, c in env_rows)
    print(f"\nWith `kms-envelope` the same login makes {env_sign} KMS `Sign` calls; its "
          f"{env_kms} KMS call(s) are the `Decrypt` of the signing key on the process's first "
          "token (once per cold start on Lambda, not per login).\n")
    print(f"## Polling: a person who scans 8-10 s after the page opens and approves "
          f"{APPROVE_AFTER_S:.0f} s later\n")
    print("| page polls | polls per login | number shown after the scan (mean / worst) "
          "| approval followed after (mean / worst) | abandoned page, visible / hidden |")
    print("|---|--:|--:|--:|--:|")
    for label, _, (n, lag, worst, shown, shown_worst), (visible, hidden) in print_polling:
        print(f"| {label} | {n:.1f} | {shown:.2f} s / {shown_worst:.2f} s "
              f"| {lag:.2f} s / {worst:.2f} s | {visible} / {hidden} |")
    print(f"\n## Per million logins (USD, list prices; Lambda durations: {build})\n")
    print("Requests: Lambda invocations, of them through API Gateway (the rest are the page's "
          "polls on the login-status function's URL, the template's default; the row marked "
          "`api` polls through the API, LoginStatusPolling=api).\n")
    print("| signing | polling | requests/login (API GW) | RRU | WRU | KMS Sign | API GW | Lambda "
          "| DynamoDB | KMS | total |")
    print("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    # The `kms` rows take the kms-envelope login's durations (the same build timed).
    kms_rows = [(s, n, e[2], c) for (s, n, _, c), e in zip(measured["kms"], env_rows)]
    for signing, alg, rs in (("kms", "RS256", kms_rows),
                             ("kms", "ES256", kms_rows),
                             ("kms-envelope", "any", measured["kms-envelope"])):
        rows_of = [(label, count, False) for _, label, (count, *_), _ in polling]
        if signing == "kms-envelope":
            rows_of.append((f"{polling[-1][1]}, `api`", new, True))
        for label, count, api_polls in rows_of:
            requests, rru, wru, sign, cost, _, api = price(
                rs, count, "RS256" if alg == "any" else alg, api_polls)
            m = {k: v * 1e6 for k, v in cost.items()}
            print(f"| {signing} {alg} | {label} | {requests:.1f} ({api:.1f}) | {rru:.1f} | "
                  f"{wru:.1f} | {sign} | "
                  f"{m['API Gateway']:.2f} | {m['Lambda requests'] + m['Lambda duration']:.2f} | "
                  f"{m['DynamoDB reads'] + m['DynamoDB writes']:.2f} | {m['KMS']:.2f} | "
                  f"{sum(m.values()):.2f} |")
    print("\n## kms-envelope, the Lambda duration counted as CPU + store waits (not priced "
          "above)\n")
    print("| polling | Lambda, wall time (priced) | Lambda, CPU + store waits | total with it |")
    print("|---|--:|--:|--:|")
    for _, label, (count, *_), _ in polling:
        _, _, _, _, cost, quiet, _ = price(measured["kms-envelope"], count, "RS256")
        m = {k: v * 1e6 for k, v in cost.items()}
        total = sum(m.values()) - m["Lambda duration"] + quiet * 1e6
        print(f"| {label} | {m['Lambda requests'] + m['Lambda duration']:.2f} "
              f"| {m['Lambda requests'] + quiet * 1e6:.2f} | {total:.2f} |")
    # A returning person: the same client again, from a new browser; the consent is
    # remembered, so the consent page sends the browser straight back with the code.
    timed_env = dict(env, SCANID_BIN=timed_on) if timed else env
    again = one_login(timed_env, "kms-envelope", returning=True)
    # The identity's recent logins are one item (domain/identity.rs RECENT_LOGINS, 20), which
    # the decision reads and writes whole: a person with a full list pays for its size.
    seasoned = one_login(timed_env, "kms-envelope", returning=True, prior=RECENT_LOGINS)
    steps = [s for s, *_ in again]
    if "consent: allow" in steps or "consent page" not in steps:
        print(f"login-cost: the returning login did not skip the consent form: {steps}",
              file=sys.stderr)
        return 1
    print(f"\n## A returning person (consent remembered), kms-envelope, polling as now "
          f"(one login, on the process that served the first; Lambda durations: "
          f"{'release' if timed else 'DEBUG'} build)\n")
    print("| login | requests/login | RRU | WRU | API GW | Lambda | DynamoDB | total |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|")
    for label, rs in (("first (the consent page, then allow)", measured["kms-envelope"]),
                      ("returning (the consent step redirects at once)", again),
                      (f"returning, {RECENT_LOGINS} recent logins on record", seasoned)):
        requests, rru, wru, _, cost, _, _ = price(rs, new, "RS256")
        m = {k: v * 1e6 for k, v in cost.items()}
        print(f"| {label} | {requests:.1f} | {rru:.1f} | {wru:.1f} | {m['API Gateway']:.2f} | "
              f"{m['Lambda requests'] + m['Lambda duration']:.2f} | "
              f"{m['DynamoDB reads'] + m['DynamoDB writes']:.2f} | {sum(m.values()):.2f} |")
    requests, rru, wru, *_, api = price(measured["kms-envelope"], new, "RS256")
    over = [f"{k} {v:g} > {BAR[k]:g}" for k, v in
            (("requests", requests), ("API requests", api), ("RRU", rru), ("WRU", wru))
            if v > BAR[k] + 1e-9]
    print(f"\nThe bar (issues 27 and 41): {BAR['requests']:g} requests, "
          f"{BAR['API requests']:g} of them through API Gateway, {BAR['RRU']:g} RRU and "
          f"{BAR['WRU']:g} WRU per login; this login: {requests:.1f}, {api:.1f}, {rru:.1f} "
          f"and {wru:.1f}.")
    if over:
        print(f"login-cost: a login costs more than its bar (issues 27, 41): {', '.join(over)}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
