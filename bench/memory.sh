#!/usr/bin/env bash
# Memory as objects accumulate: the peer and each hookonce build on a workerd of its own,
# the same scenario round after round (each round's entities are new: the load generator's
# nonce), and after each round the resident memory of each workerd, whole process (V8's heap,
# the wasm memory, SQLite's caches of every live object). For a finding, not for the
# README's table (bench/run.sh).
#
#   bash bench/memory.sh [BUILD_DIR ...]
# Knobs: MEMORY_SCENARIO (unique), MEMORY_ROUNDS (4), MEMORY_SECONDS (20),
# BENCH_CONCURRENCY (16), MEMORY_IDLE (0): seconds to wait after each round, with no load,
# before reading each workerd's memory again, by then with its objects closed (their WAL
# index maps, RssShmem, are gone); what the process keeps then is RssAnon. Each BUILD_DIR
# is a hookonce worker-build output (default: build), optionally prefixed with VAR=VALUE@
# as in bench/quick.sh, e.g.
#   bash bench/memory.sh build 'BENCH_SOURCES={"cockpit":{…,"keep_raw_bodies":false,…}}@build'
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
scenario=${MEMORY_SCENARIO:-unique}
rounds=${MEMORY_ROUNDS:-4}
seconds=${MEMORY_SECONDS:-20}
idle=${MEMORY_IDLE:-0}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "memory: MEMORY_ROUNDS must be a positive number" >&2; exit 2; }
[[ $idle =~ ^[0-9]+$ ]] || { echo "memory: MEMORY_IDLE must be a number of seconds" >&2; exit 2; }
. "$root/bench/lib.sh"
bench_scratch memory

bench_builds "$@"
declare -A loaded

rss() { awk -v f="${2:-VmRSS}:" '$1 == f {printf "%.0f", $2 / 1024}' "/proc/$1/status"; }

printf '| after round |'
for n in "${names[@]}"; do
    printf ' %s events/s | %s RSS MiB |' "$n" "$n"
    ((idle == 0)) || printf ' %s RSS / RssAnon MiB after %s s idle |' "$n" "$idle"
done
printf '\n| ---: |'
for _ in "${names[@]}"; do printf ' ---: | ---: |'; ((idle == 0)) || printf ' ---: |'; done
printf '\n| 0 (started) |'
for n in "${names[@]}"; do
    printf ' — | %s |' "$(rss "${pid[$n]}")"
    ((idle == 0)) || printf ' — |'
done
printf '\n'
for r in $(seq 1 "$rounds"); do
    row="| $r |"
    for n in "${names[@]}"; do
        echo "memory: round $r/$rounds: $n, $scenario for ${seconds}s" >&2
        report=$("$loadgen" --url "${url[$n]}" --scenario "$scenario" --seconds "$seconds" \
            --concurrency "${BENCH_CONCURRENCY:-16}" --json)
        eps=$(sed -n 's/.*"events_per_sec":\([0-9]*\).*/\1/p' <<<"$report")
        loaded[$n]="$eps | $(rss "${pid[$n]}")"
    done
    if ((idle > 0)); then
        echo "memory: round $r/$rounds: ${idle}s idle" >&2
        sleep "$idle"
    fi
    for n in "${names[@]}"; do
        row+=" ${loaded[$n]} |"
        ((idle == 0)) || row+=" $(rss "${pid[$n]}") / $(rss "${pid[$n]}" RssAnon) |"
    done
    echo "$row"
done
