#!/usr/bin/env bash
# The soak: `scanid serve` (release build, embedded store, ES256) under a mixed load at half its
# measured capacity for MINUTES minutes: whole QR logins (10%), refresh-token grants (40%),
# introspection (25%) and userinfo (25%), started at a fixed rate whatever the latency
# (tests/src/bin/scanid_load.rs `mixed`).
#
# The server runs with one-minute lifetimes (access and refresh tokens, SSO idle, QR logins;
# SSO sessions at most two minutes) and purges expired records every minute, so that within the
# run everything written expires and is purged: the data dir must stop growing.
#
# It prints one line per minute (operations/s, HTTP requests/s, p50/p99/max latency, the
# server's RSS, the data dir's size without the stored audit events, and theirs: events.db keeps
# them for SCANID_EVENT_RETENTION_DAYS, so it grows with the traffic by design) and then a
# Markdown table, and exits 1 when a request
# failed, RSS grew by more than 20% from the end of minute 2 to the end, the data dir grew by
# more than 10% over the last three minutes, or the last minute's p99 is over twice minute 2's.
# usage: bash infra/soak.sh [minutes, default 10] [seconds of the capacity probe, default 20]
set -euo pipefail
cd "$(dirname "$0")/.."
MINUTES=${1:-10}
PROBE=${2:-20}
[ "$MINUTES" -ge 4 ] || { echo "soak.sh: at least 4 minutes" >&2; exit 2; }
TGT=${CARGO_TARGET_DIR:-target}
nice -n 10 cargo build --release -q -p scanid-cli -p scanid-tests --bin scanid --bin scanid-load
BIN=$TGT/release/scanid
LOAD=$TGT/release/scanid-load
WORK=$(mktemp -d)
PORT=${SOAK_PORT:-18650}
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

export SCANID_DATA_DIR=$WORK/data SCANID_SIGNING_ALG=ES256 \
  SCANID_ACCESS_TOKEN_TTL=60 SCANID_REFRESH_TOKEN_TTL=60 SCANID_SSO_IDLE_TTL=60 \
  SCANID_SSO_MAX_TTL=120 SCANID_LOGIN_TTL=60 SCANID_PURGE_INTERVAL_SECS=60 \
  SCANID_LOGIN_RATE_PER_MINUTE=1000000 SCANID_DECISION_RATE_PER_MINUTE=1000000 \
  SCANID_SIGNUP_RATE_PER_HOUR=1000000
SECRET=$("$BIN" client create --name soak --client-id soak --redirect-uri https://shop.example/cb |
  python3 -c 'import sys,json; print(json.load(sys.stdin)["client_secret"])')
RUST_LOG=warn "$BIN" serve --addr "127.0.0.1:$PORT" --no-demo --max-connections-per-source 100000 > "$WORK/serve.out" 2>&1 &
PID=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$PORT/realms/scanid/.well-known/openid-configuration" >/dev/null && break; sleep 0.2; done
# 64 app identities: a person does not log in many times a second (each login updates its
# identity's recent-logins record).
TARGET=(--issuer "http://127.0.0.1:$PORT/realms/scanid" --client-id soak --secret="$SECRET" --apps 64)

echo "capacity probe: ${PROBE} s back to back on 16 workers" >&2
CAP=$("$LOAD" mixed "${TARGET[@]}" --secs "$PROBE" --interval "$PROBE" --concurrency 16 |
  python3 -c 'import sys,json; rows=[json.loads(l) for l in sys.stdin]; print(rows[0]["ops_per_sec"])')
RATE=$(python3 -c "print(round($CAP / 2, 1))")
echo "capacity: $CAP operations/s; the soak runs at $RATE/s for $MINUTES min" >&2
"$LOAD" mixed "${TARGET[@]}" --rate "$RATE" --secs $((MINUTES * 60)) --interval 60 \
  --pid "$PID" --data-dir "$SCANID_DATA_DIR" | tee "$WORK/rows.jsonl" >&2

python3 - "$WORK/rows.jsonl" "$CAP" "$RATE" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
cap, rate = sys.argv[2], sys.argv[3]
print(f"Capacity {cap} operations/s (back to back); soak at {rate}/s.\n")
print("| minute | ops/s | HTTP req/s | p50 ms | p99 ms | max ms | errors | RSS MB | data dir MB | audit events MB |")
print("|---|---|---|---|---|---|---|---|---|---|")
for i, r in enumerate(rows, 1):
    print(f"| {i} | {r['ops_per_sec']} | {r['requests_per_sec']} | {r['p50_ms']} | {r['p99_ms']} "
          f"| {r['max_ms']} | {r['errors']} | {r['rss_mb']} | {r['data_mb']} | {r.get('events_mb')} |")
problems = []
if any(r["errors"] for r in rows):
    problems.append("requests failed")
if any(r["late"] for r in rows):
    problems.append("the server fell behind the rate")
base, last = rows[1], rows[-1]
if last["rss_mb"] > base["rss_mb"] * 1.2:
    problems.append(f"RSS grew from {base['rss_mb']} to {last['rss_mb']} MB")
if last["data_mb"] > rows[-4]["data_mb"] * 1.1:
    problems.append(f"the data dir still grows: {rows[-4]['data_mb']} -> {last['data_mb']} MB")
if last["p99_ms"] > base["p99_ms"] * 2:
    problems.append(f"p99 drifted from {base['p99_ms']} to {last['p99_ms']} ms")
print()
print("verdict: " + ("; ".join(problems) if problems else
      f"flat: RSS {base['rss_mb']} -> {last['rss_mb']} MB, data dir "
      f"{rows[-4]['data_mb']} -> {last['data_mb']} MB over the last 3 minutes, "
      f"p99 {base['p99_ms']} -> {last['p99_ms']} ms"))
sys.exit(1 if problems else 0)
PY
