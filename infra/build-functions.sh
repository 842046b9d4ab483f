#!/usr/bin/env bash
# Builds every Lambda function for arm64 in ONE cargo invocation (the dependencies are compiled
# once and shared; each function is then a short link), with the `lambda-release` profile
# (opt-level s, panic abort, no LTO, stripped). Binaries land in target/lambda/<name>/bootstrap.
#
#   infra/build-functions.sh            # arm64 (what template.yaml deploys)
#   infra/build-functions.sh --x86-64   # for this machine, in target/lambda-x86_64 (the cold-start
#                                       # harness, infra/coldstart.py, runs these)
#
# Needs: pip install cargo-lambda ziglang (zig links for arm64; --x86-64 uses the host linker).
set -euo pipefail
cd "$(dirname "$0")/.."

arch=(--arm64)
if [[ "${1:-}" == "--x86-64" ]]; then
  arch=(--x86-64 --compiler cargo --lambda-dir "${CARGO_TARGET_DIR:-target}/lambda-x86_64")
  shift
fi

bins=()
for dir in functions/*/; do
  name=$(basename "$dir")
  [[ "$name" == scanid ]] && continue # the operator CLI, not a function
  bins+=(--bin "$name")
done

start=$(date +%s)
cargo lambda build --profile lambda-release "${arch[@]}" "${bins[@]}" "$@"
echo "built $((${#bins[@]} / 2)) functions in $(($(date +%s) - start)) s" >&2
