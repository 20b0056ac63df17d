#!/usr/bin/env bash
# Memory as objects accumulate: the peer and each hookonce build on a workerd of its own,
# the same scenario round after round (each round's entities are new: the load generator's
# nonce), and after each round the resident memory of each workerd, whole process (V8's heap,
# the wasm memory, SQLite's caches of every live object). For a finding, not for the
# README's table (bench/run.sh).
#
#   bash bench/memory.sh [BUILD_DIR ...]
# Knobs: MEMORY_SCENARIO (unique), MEMORY_ROUNDS (4), MEMORY_SECONDS (20),
# BENCH_CONCURRENCY (16). Each BUILD_DIR is a hookonce worker-build output (default: build),
# optionally prefixed with VAR=VALUE@ as in bench/quick.sh, e.g.
#   bash bench/memory.sh build 'BENCH_SOURCES={"cockpit":{…,"keep_raw_bodies":false,…}}@build'
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
scenario=${MEMORY_SCENARIO:-unique}
rounds=${MEMORY_ROUNDS:-4}
seconds=${MEMORY_SECONDS:-20}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "memory: MEMORY_ROUNDS must be a positive number" >&2; exit 2; }
. "$root/bench/lib.sh"
bench_scratch memory

bench_builds "$@"

rss() { awk '/^VmRSS:/ {printf "%.0f", $2 / 1024}' "/proc/$1/status"; }

printf '| after round |'
for n in "${names[@]}"; do printf ' %s events/s | %s RSS MiB |' "$n" "$n"; done
printf '\n| ---: |'
for _ in "${names[@]}"; do printf ' ---: | ---: |'; done
printf '\n| 0 (started) |'
for n in "${names[@]}"; do printf ' — | %s |' "$(rss "${pid[$n]}")"; done
printf '\n'
for r in $(seq 1 "$rounds"); do
    row="| $r |"
    for n in "${names[@]}"; do
        echo "memory: round $r/$rounds: $n, $scenario for ${seconds}s" >&2
        report=$("$loadgen" --url "${url[$n]}" --scenario "$scenario" --seconds "$seconds" \
            --concurrency "${BENCH_CONCURRENCY:-16}" --json)
        eps=$(sed -n 's/.*"events_per_sec":\([0-9]*\).*/\1/p' <<<"$report")
        row+=" $eps | $(rss "${pid[$n]}") |"
    done
    echo "$row"
done
