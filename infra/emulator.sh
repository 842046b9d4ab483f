#!/usr/bin/env bash
# The local AWS emulator used by the tests (and by anyone trying scanid's AWS mode without an
# AWS account): moto server (PyPI `moto[server]`), DynamoDB and KMS on loopback, serving one
# request at a time so conditional writes are atomic as in DynamoDB (infra/moto_serialized.py).
#
#   infra/emulator.sh start [PORT]   starts it in the background (default port: a free one),
#                                    waits until it answers, prints `export AWS_ENDPOINT_URL=...`
#   infra/emulator.sh stop           stops it
#
# State (pid, port, log) lives in ${SCANID_EMULATOR_DIR:-target/emulator}. moto keeps its data in
# memory: a restart starts empty.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${SCANID_EMULATOR_DIR:-$PWD/target/emulator}"
mkdir -p "$dir"

case "${1:-}" in
  start)
    if [ -f "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
      echo "export AWS_ENDPOINT_URL=http://127.0.0.1:$(cat "$dir/port")"
      exit 0
    fi
    port="${2:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')}"
    # moto's own server app, one request at a time (see infra/moto_serialized.py for why).
    python3 infra/moto_serialized.py 127.0.0.1 "$port" >"$dir/log" 2>&1 &
    echo $! >"$dir/pid"
    echo "$port" >"$dir/port"
    for _ in $(seq 1 100); do
      if python3 -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:$port/moto-api/', timeout=1)" 2>/dev/null; then
        echo "export AWS_ENDPOINT_URL=http://127.0.0.1:$port"
        exit 0
      fi
      if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
        echo "moto server exited; its log:" >&2
        cat "$dir/log" >&2
        exit 1
      fi
      sleep 0.2
    done
    echo "moto server did not answer on port $port" >&2
    exit 1
    ;;
  stop)
    if [ -f "$dir/pid" ]; then
      kill "$(cat "$dir/pid")" 2>/dev/null || true
      rm -f "$dir/pid" "$dir/port"
    fi
    ;;
  *)
    echo "usage: infra/emulator.sh start [PORT] | stop" >&2
    exit 2
    ;;
esac
