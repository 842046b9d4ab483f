#!/usr/bin/env bash
# The instructions a whole QR login costs `scanid serve` (user space, every thread), counted by
# valgrind's callgrind: a figure that does not move with the machine's other tenants, as time
# does on this shared VM (the same binary's CPU time a login varied by 20% in one afternoon,
# docs/benchmarks/2026-11-29-logins-cpu.md), so two builds can be told apart by a few percent.
# It does not see the kernel (sockets, `pread`, wake-ups: a third of the server's time) and it
# weighs instructions, not their cost (aws-lc's assembly runs on valgrind's CPU model), so it
# says where a change saves work, and `run.sh` says what that is worth in logins a second.
# usage: [SCANID_BENCH_BIN=path] [SECS=40] [CALLGRIND_OUT=file] bash infra/bench/instructions.sh [ES256|RS256]
# Prints one JSON line: logins, instructions, instructions_per_login. CALLGRIND_OUT keeps the
# profile for `callgrind_annotate --inclusive=yes` (build with
# CARGO_PROFILE_RELEASE_STRIP=debuginfo for function names).
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(cd ../.. && pwd)
TGT=${CARGO_TARGET_DIR:-$ROOT/target}
ALG=${1:-ES256}
case $ALG in ES256|RS256) ;; *) echo "usage: instructions.sh [ES256|RS256]" >&2; exit 2;; esac
command -v valgrind >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null; }
if [ -n "${SCANID_BENCH_BIN:-}" ]; then
  BIN="$SCANID_BENCH_BIN"
else
  (cd "$ROOT" && nice -n 10 cargo build --release -q -p scanid-cli)
  BIN="$TGT/release/scanid"
fi
(cd "$ROOT" && nice -n 10 cargo build --release -q -p scanid-tests --bin scanid-load)
LOAD="$TGT/release/scanid-load"
WORK=$(mktemp -d)
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
export SCANID_LOGIN_RATE_PER_MINUTE=1000000 SCANID_DECISION_RATE_PER_MINUTE=1000000 SCANID_SIGNUP_RATE_PER_HOUR=1000000
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
ISSUER="http://127.0.0.1:$PORT/realms/scanid"
SECRET=$("$BIN" client create --data-dir "$WORK/data" --name bench --client-id bench \
  --redirect-uri https://shop.example/cb --client-credentials --token-alg "$ALG" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["client_secret"])')
RUST_LOG=warn valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" \
  "$BIN" serve --addr "127.0.0.1:$PORT" --data-dir "$WORK/data" --signing-alg "$ALG" --no-demo \
  --max-connections-per-source 100000 > "$WORK/serve.log" 2>&1 &
PID=$!
for _ in $(seq 120); do
  curl -sf -o /dev/null "$ISSUER/.well-known/openid-configuration" && break
  kill -0 "$PID" 2>/dev/null || { cat "$WORK/serve.log" >&2; exit 1; }
  sleep 1
done
logins() {
  "$LOAD" --threads 1 logins --issuer "$ISSUER" --client-id bench --secret="$SECRET" \
    --secs "$1" --concurrency 4
}
# Warm: the app identities signed up, their recent logins full (20 each), the caches filled.
logins 20 > /dev/null
callgrind_control --zero "$PID" > /dev/null 2>&1
N=$(logins "${SECS:-40}" | python3 -c 'import json, sys; print(json.load(sys.stdin)["logins"])')
callgrind_control --dump=measured "$PID" > /dev/null 2>&1
DUMP=
for _ in $(seq 30); do
  DUMP=$(ls "$WORK"/cg.out.*1 2>/dev/null | head -1) && [ -n "$DUMP" ] && break
  sleep 1
done
[ -n "$DUMP" ] || { echo "callgrind wrote no profile" >&2; exit 1; }
IR=$(awk '/^(summary|totals):/ {print $2; exit}' "$DUMP")
[ -n "${CALLGRIND_OUT:-}" ] && cp "$DUMP" "$CALLGRIND_OUT"
python3 -c "import json; n, ir = $N, $IR; print(json.dumps({'alg': '$ALG', 'logins': n, 'instructions': ir, 'instructions_per_login': ir // max(n, 1)}))"
