#!/usr/bin/env bash
# Benchmarks scanid side by side with panva's oidc-provider in the same run, on loopback only,
# each run bounded by time (wrk -d). Measures:
#   - token issuance (client_credentials, JWT access tokens) with RS256 and with ES256;
#   - discovery and JWKS throughput;
#   - scanid's peak resident memory.
# usage: [SCANID_BENCH_BIN=path] bash infra/bench/run.sh [seconds per run, default 10]
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(cd ../.. && pwd)
SECS=${1:-10}
command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
[ -d node_modules/oidc-provider ] || npm ci --no-audit --no-fund --loglevel=error
# SCANID_BENCH_BIN: a scanid binary to measure instead of this tree's release build (to compare
# two versions, each side by side with oidc-provider in its own run).
if [ -n "${SCANID_BENCH_BIN:-}" ]; then
  BIN="$SCANID_BENCH_BIN"
else
  (cd "$ROOT" && cargo build --release -q -p scanid-cli)
  BIN="$ROOT/target/release/scanid"
fi
WORK=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

rps() { wrk "$@" | awk '/Requests\/sec/ {print int($2)}'; }
non2xx() { wrk "$@" | awk '/Non-2xx/ {print $5}'; }

start_scanid() { # ALG PORT -> pid
  local dir="$WORK/scanid-$1"
  secret=$("$BIN" client create --data-dir "$dir" --name bench --client-id bench \
    --redirect-uri https://bench.example/cb --client-credentials --token-alg "$1" | sed 's/.*"client_secret":"\([^"]*\)".*/\1/')
  RUST_LOG=warn "$BIN" serve --addr "127.0.0.1:$2" --data-dir "$dir" --signing-alg "$1" --no-demo > "$WORK/scanid-$1.out" &
  PIDS+=($!)
  SCANID_PID=$!
  sleep 1
}

start_peer() { # ALG PORT
  NODE_ENV=production node provider.mjs "$2" "$1" > "$WORK/peer-$1.out" &
  PIDS+=($!)
  sleep 1.5
}

check_jwt() { # URL BASIC EXTRA ALG
  local body
  body=$(curl -s -u "$2" -d "grant_type=client_credentials$3" "$1")
  local token
  token=$(printf '%s' "$body" | python3 -c 'import sys,json; print(json.load(sys.stdin)["access_token"])')
  local alg
  alg=$(printf '%s' "$token" | cut -d. -f1 | python3 -c 'import sys,base64,json; s=sys.stdin.read().strip(); s+="="*(-len(s)%4); print(json.loads(base64.urlsafe_b64decode(s))["alg"])')
  [ "$alg" = "$4" ] || { echo "expected a $4 JWT from $1, got: $body" >&2; exit 1; }
}

echo "| measure | scanid | oidc-provider | ratio |"
echo "|---|---|---|---|"
for ALG in RS256 ES256; do
  SP=$([ "$ALG" = RS256 ] && echo 18601 || echo 18611); PP=$([ "$ALG" = RS256 ] && echo 18602 || echo 18612)
  start_scanid "$ALG" "$SP"
  start_peer "$ALG" "$PP"
  S_BASIC=$(printf 'bench:%s' "$secret" | base64 -w0)
  P_BASIC=$(printf 'bench:bench-secret' | base64 -w0)
  check_jwt http://127.0.0.1:$SP/realms/scanid/protocol/openid-connect/token "bench:$secret" "" "$ALG"
  check_jwt http://127.0.0.1:$PP/token "bench:bench-secret" "&resource=urn%3Abench%3Aapi" "$ALG"
  # Warm both up, then measure alternately.
  BASIC=$S_BASIC TOKEN_PATH=/realms/scanid/protocol/openid-connect/token wrk -t1 -c8 -d2s -s token.lua http://127.0.0.1:$SP >/dev/null
  BASIC=$P_BASIC TOKEN_PATH=/token EXTRA="&resource=urn%3Abench%3Aapi" wrk -t1 -c8 -d2s -s token.lua http://127.0.0.1:$PP >/dev/null
  S=$(BASIC=$S_BASIC TOKEN_PATH=/realms/scanid/protocol/openid-connect/token rps -t2 -c32 -d"${SECS}s" -s token.lua http://127.0.0.1:$SP)
  P=$(BASIC=$P_BASIC TOKEN_PATH=/token EXTRA="&resource=urn%3Abench%3Aapi" rps -t2 -c32 -d"${SECS}s" -s token.lua http://127.0.0.1:$PP)
  echo "| token issuance, $ALG (req/s) | $S | $P | $(python3 -c "print(f'{$S/$P:.2f}x')") |"
  if [ "$ALG" = RS256 ]; then
    for P_ in ".well-known/openid-configuration" "protocol/openid-connect/certs"; do
      S=$(rps -t2 -c64 -d"${SECS}s" "http://127.0.0.1:$SP/realms/scanid/$P_")
      case $P_ in .well*) PPATH=".well-known/openid-configuration";; *) PPATH="jwks";; esac
      P=$(rps -t2 -c64 -d"${SECS}s" "http://127.0.0.1:$PP/$PPATH")
      echo "| ${P_##*/} (req/s) | $S | $P | $(python3 -c "print(f'{$S/$P:.2f}x')") |"
    done
    echo "| scanid peak RSS (MB) | $(awk '/VmHWM/ {printf "%.1f", $2/1024}' /proc/$SCANID_PID/status) | | |"
  fi
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  PIDS=()
  sleep 0.5
done
