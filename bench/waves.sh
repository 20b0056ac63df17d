#!/usr/bin/env bash
# What an entity's first, second, third… event costs: in `unique` the load generator sends
# event k to entity k mod 1,000, so each wave of 1,000 answers is every entity's next event
# (give or take the 16 in flight). `loadgen --waves` reads workerd's main thread's CPU time
# at each wave's end; this prints the median µs per request of each wave over the rounds,
# per worker, rounds interleaved with the order rotating. Each round's entities are new
# (the load generator's nonce), and every worker first serves WAVE_WARM seconds unmeasured,
# so the isolate is warm. For a finding, not for the README's table (bench/run.sh).
#
#   bash bench/waves.sh [BUILD_DIR ...]
# Knobs: WAVE_SECONDS (8), WAVE_ROUNDS (3), WAVE_WARM (4), WAVE_SCENARIO (unique),
# BENCH_CONCURRENCY (16). Each BUILD_DIR is a hookonce worker-build output (default:
# build), optionally prefixed with VAR=VALUE@ as in bench/quick.sh.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
scenario=${WAVE_SCENARIO:-unique}
seconds=${WAVE_SECONDS:-8}
rounds=${WAVE_ROUNDS:-3}
warm=${WAVE_WARM:-4}
. "$root/bench/lib.sh"
bench_scratch waves

bench_builds "$@"

run() {
    "$loadgen" --url "${url[$1]}" --scenario "$scenario" --seconds "$2" \
        --concurrency "${BENCH_CONCURRENCY:-16}" --json "${@:3}"
}
for w in "${names[@]}"; do
    run "$w" "$warm" >/dev/null
done
n=${#names[@]}
for ((r = 1; r <= rounds; r++)); do
    for w in $(bench_order "$r"); do
        run "$w" "$seconds" --waves --pid "${pid[$w]}" 2>"$tmp/waves.txt" >"$tmp/out.json"
        errors=$(sed -n 's/.*"errors":\([0-9]*\).*/\1/p' "$tmp/out.json")
        [[ $errors == 0 ]] || { echo "waves: $w answered $errors errors in round $r" >&2; exit 1; }
        # "wave N: answers a-b: X us …" -> "N X", one line per wave.
        sed -n 's/^loadgen: wave \([0-9]*\): answers [0-9-]*: \([0-9]*\) us.*/\1 \2/p' "$tmp/waves.txt" >>"$tmp/rows-$w"
    done
    echo "round $r done" >&2
done

# One line per wave: the median over the rounds, per worker, and each build over the peer.
waves=$(cat "$tmp"/rows-* | awk '{print $1}' | sort -n | uniq -c | awk -v r="$rounds" '$1 == r * '"$n"' {print $2}')
[[ -n $waves ]] || { echo "waves: no wave completed in every round; raise WAVE_SECONDS" >&2; exit 1; }
printf '%-6s' wave
for w in "${names[@]}"; do printf '%12s' "$w"; done
for w in "${builds[@]}"; do printf '%12s' "$w/peer"; done
echo "   (us of workerd's main thread per request, median of $rounds rounds)"
for v in $waves; do
    printf '%-6s' "$v"
    declare -A med=()
    for w in "${names[@]}"; do
        med[$w]=$(awk -v v="$v" '$1 == v {print $2}' "$tmp/rows-$w" | median)
        printf '%12.0f' "${med[$w]}"
    done
    for w in "${builds[@]}"; do
        awk -v a="${med[$w]}" -v b="${med[peer]}" 'BEGIN {printf "%12.2f", a / b}'
    done
    echo
done
