#!/usr/bin/env bash
# Where in a round hookonce loses to the peer: the CPU time of workerd's main thread per
# event in the round's first PHASE_SPLIT seconds (new objects, then each entity's second
# event) and in the rest (every object warm), per worker, rounds interleaved with the
# order rotating. workerd serves every request on that one thread and the load keeps it
# busy, so its time per event is what bounds events/s; the split tells a cost paid once
# per object from one paid per event. For a commit message or a finding, not for the
# README's table (bench/run.sh).
#
#   bash bench/phases.sh [BUILD_DIR ...]
# Knobs: PHASE_SCENARIO (unique), PHASE_SECONDS (20), PHASE_SPLIT (5), PHASE_ROUNDS (3),
# BENCH_CONCURRENCY (16). Each BUILD_DIR is a hookonce worker-build output (default:
# build), optionally prefixed with VAR=VALUE@ as in bench/quick.sh.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
scenario=${PHASE_SCENARIO:-unique}
seconds=${PHASE_SECONDS:-20}
split=${PHASE_SPLIT:-5}
rounds=${PHASE_ROUNDS:-3}
((split >= 1 && split < seconds)) || { echo "phases: PHASE_SPLIT must be 1 to PHASE_SECONDS - 1" >&2; exit 2; }
. "$root/bench/lib.sh"
bench_scratch phases

bench_builds "$@"

# CPU time of a process's main thread, user + system, in clock ticks.
main_ticks() { awk '{print $14 + $15}' "/proc/$1/task/$1/stat"; }
hz=$(getconf CLK_TCK)
for ((r = 1; r <= rounds; r++)); do
    line="$scenario round $r:"
    for w in $(bench_order "$r"); do
        t0=$(main_ticks "${pid[$w]}")
        "$loadgen" --url "${url[$w]}" --scenario "$scenario" --seconds "$seconds" \
            --concurrency "${BENCH_CONCURRENCY:-16}" --json --progress >"$tmp/out.json" 2>"$tmp/progress.txt" &
        load=$!
        sleep "$split"
        t1=$(main_ticks "${pid[$w]}")
        wait "$load"
        t2=$(main_ticks "${pid[$w]}")
        errors=$(sed -n 's/.*"errors":\([0-9]*\).*/\1/p' "$tmp/out.json")
        # Events completed in the first $split seconds and after, from the per-second counts.
        read -r early late < <(sed -n 's/.*second \([0-9]*\): \([0-9]*\) requests.*/\1 \2/p' "$tmp/progress.txt" |
            awk -v s="$split" '{if ($1 <= s) e += $2; else l += $2} END {print e + 0, l + 0}')
        ((early > 0 && late > 0)) || { echo "phases: $w completed no events in a phase" >&2; exit 1; }
        awk -v a=$((t1 - t0)) -v b=$((t2 - t1)) -v e="$early" -v l="$late" -v hz="$hz" -v err="$errors" \
            'BEGIN {print e, 1e6 * a / hz / e, l, 1e6 * b / hz / l, err}' >>"$tmp/rows-$w"
        line+=$(tail -1 "$tmp/rows-$w" | awk -v w="$w" '{printf "  %s: first %d events %.0f us/ev, then %d events %.0f us/ev", w, $1, $2, $3, $4}')
        [[ $errors == 0 ]] || line+=" ($errors errors)"
    done
    echo "$line"
done
echo
col() { awk -v c="$1" '{print $c}' "$tmp/rows-$2" | median; }
ratio() { paste "$tmp/rows-$2" "$tmp/rows-peer" | awk -v c="$1" '{print $c / $(c + 5)}' | median; }
printf '%-5s first %ss: median %.0f events, %.0f us of main thread an event; then %.0f us an event\n' \
    peer "$split" "$(col 1 peer)" "$(col 2 peer)" "$(col 4 peer)"
for w in "${builds[@]}"; do
    printf '%-5s first %ss: median %.0f events (%.2fx the peer), %.0f us an event (%.2fx); then %.0f us an event (%.2fx)' \
        "$w" "$split" "$(col 1 "$w")" "$(ratio 1 "$w")" "$(col 2 "$w")" "$(ratio 2 "$w")" \
        "$(col 4 "$w")" "$(ratio 4 "$w")"
    errors=$(awk '{n += $5} END {print n + 0}' "$tmp/rows-$w")
    [[ $errors == 0 ]] || printf '; %s ERRORS: not a valid comparison' "$errors"
    echo
done
