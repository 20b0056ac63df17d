#!/usr/bin/env bash
# A quick A/B of one change: hookonce builds against the JS peers (ids only, and keeping each
# raw body as hookonce does; QUICK_BODIES_PEER=0 leaves the second out), interleaved, several
# rounds, on workerd direct. Prints events/s, p99 and workerd's CPU time per event (user +
# system, from /proc: untouched by other processes taking the CPU, though it moves with the
# machine's speed as throughput does) per round, and the medians of the ratios; for a
# commit message, not for the README (bench/run.sh).
#
#   bash bench/quick.sh [BUILD_DIR ...]
#   bash bench/quick.sh build BENCH_LOG=error@build    # the same build, decision lines off
# Each worker first serves QUICK_WARMUP seconds (5; 0 for none) of `unique`, not measured, so
# that no round pays V8's first compile of its code; in each round every worker runs once, in
# an order that rotates from round to round (as bench/run.sh does), so that no build always
# runs right after the same one.
# Knobs: QUICK_SCENARIOS ("hot unique"), QUICK_ROUNDS (3), QUICK_SECONDS (6), QUICK_WARMUP (5),
# BENCH_CONCURRENCY (16). Each BUILD_DIR is a worker-build output (default: build),
# optionally prefixed with VAR=VALUE@ for bench/workerd-config.sh (BENCH_LOG,
# BENCH_BODY_RETENTION, BENCH_SOURCES); with two or more, each is compared with the peer
# and with the first.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
scenarios=(${QUICK_SCENARIOS:-hot unique})
rounds=${QUICK_ROUNDS:-3}
seconds=${QUICK_SECONDS:-6}
warmup=${QUICK_WARMUP:-5}
[[ $warmup =~ ^[0-9]+$ ]] || { echo "quick: QUICK_WARMUP must be a number of seconds" >&2; exit 2; }
. "$root/bench/lib.sh"
bench_scratch quick

# Workers: the peers, then each build.
BENCH_BODIES_PEER=${QUICK_BODIES_PEER:-1} bench_builds "$@"

field() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p"; }
# CPU time of a process, user + system, in clock ticks.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
if ((warmup > 0)); then
    for n in "${names[@]}"; do
        "$loadgen" --url "${url[$n]}" --scenario unique --seconds "$warmup" \
            --concurrency "${BENCH_CONCURRENCY:-16}" --json >/dev/null
    done
fi
declare -A shown
for s in "${scenarios[@]}"; do
    for r in $(seq 1 "$rounds"); do
        for n in $(bench_order "$r"); do
            before=$(ticks "${pid[$n]}")
            "$loadgen" --url "${url[$n]}" --scenario "$s" --seconds "$seconds" \
                --concurrency "${BENCH_CONCURRENCY:-16}" --json >"$tmp/out.json"
            after=$(ticks "${pid[$n]}")
            eps=$(field events_per_sec <"$tmp/out.json")
            p99=$(sed -n 's/.*"p99":\([0-9.]*\).*/\1/p' "$tmp/out.json")
            errors=$(field errors <"$tmp/out.json")
            ok=$(field ok <"$tmp/out.json")
            us=$(awk -v t=$((after - before)) -v hz="$hz" -v n="$ok" 'BEGIN {print 1e6 * t / hz / n}')
            printf '%s %s %s\n' "$eps" "$p99" "$us" >>"$tmp/$s-$n"
            echo "$errors" >>"$tmp/errors-$s-$n"
            shown[$n]=$(printf ' %s %.0f/s p99 %.1f ms %.0f us/ev' "$n" "$eps" "$p99" "$us")
            [[ $errors == 0 ]] || shown[$n]+=" ($errors errors)"
        done
        line="$s round $r:"
        for n in "${names[@]}"; do line+=${shown[$n]}; done
        echo "$line"
    done
done
echo
# Ratio of column C (1 events/s, 2 p99, 3 CPU) of worker $2 over worker $3, round by round: the median.
over() { paste "$tmp/$s-$2" "$tmp/$s-$3" | awk -v c="$1" '{print $c / $(c + 3)}' | median; }
for s in "${scenarios[@]}"; do
    for n in "${builds[@]}"; do
        eps=$(awk '{print $1}' "$tmp/$s-$n" | median)
        us=$(awk '{print $3}' "$tmp/$s-$n" | median)
        printf '%-9s %s: median %.0f events/s, CPU %.0f us/event' "$s" "$n" "$eps" "$us"
        for p in "${peers[@]}"; do
            printf '; %.2fx %s (p99 %.2fx; its CPU %.0f us/event)' "$(over 1 "$n" "$p")" "$p" \
                "$(over 2 "$n" "$p")" "$(awk '{print $3}' "$tmp/$s-$p" | median)"
        done
        if [[ $n != b0 ]]; then
            printf '; %.2fx b0 events/s, CPU %.2fx b0' "$(over 1 "$n" b0)" "$(over 3 "$n" b0)"
        fi
        errors=$(cat "$tmp/errors-$s-$n" "${peers[@]/#/$tmp/errors-$s-}" | awk '{n += $1} END {print n + 0}')
        [[ $errors == 0 ]] || printf '; %s ERRORS in all rounds: not a valid comparison' "$errors"
        echo
    done
done
