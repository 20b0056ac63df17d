#!/usr/bin/env bash
# hookonce benchmark: native core (criterion), bundle size, then load (hookonce, the two JS
# peers: ids only and body-keeping, and two floors: JS and Rust), storage cost (rows written,
# bytes on disk per event and per object with the body kept and once pruned) and start-up on
# local workerd, each against both JS peers in the same run; then hookonce's `hot` with 0,
# 1, 2 and 4 destinations (fan-out). Prints one markdown table and writes it to
# bench/out/latest.md. Progress goes to stderr.
#
#   bash bench/run.sh                  # after `make build` (`make bench` also builds the Rust
#                                      # floor); ~53 min (5 rounds of 20 s per scenario and worker, then fan-out)
#   BENCH_QUICK=1 bash bench/run.sh    # tiny load (1 round of 1 s per scenario), for CI
# Each scenario runs BENCH_ROUNDS rounds; in each round every worker runs once, in an order
# that rotates from round to round, so drift on a shared machine hits all alike. The table
# gives the median round, and each ratio is the median of the rounds' ratios (report.rs).
# Before the first round each worker serves BENCH_WARMUP seconds (5) of `unique`, not
# measured, so that no round pays V8's first compile of a worker's code: the start-up row
# measures a cold worker.
# Knobs: BENCH_ROUNDS (5), BENCH_WARMUP (5, seconds; 0 for none), BENCH_SECONDS (20, per round), BENCH_CONCURRENCY (16), BENCH_BUILD_DIR (build),
# BENCH_STORAGE_DIR (where workerd keeps Durable Object SQLite files; /dev/shm if writable).
# Without a hookonce build the hookonce column is left empty and the rest still runs.
#
# workerd is driven directly, never through `wrangler dev`: on 2-core machines its proxy
# caps even a trivial Durable Object at ~350 req/s, which would measure the proxy.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
quick=${BENCH_QUICK:-0}
seconds=${BENCH_SECONDS:-20}
rounds=${BENCH_ROUNDS:-5}
warmup=${BENCH_WARMUP:-5}
[[ $quick == 1 ]] && seconds=1 rounds=1 warmup=0
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench: BENCH_ROUNDS must be a positive number" >&2; exit 2; }
[[ $warmup =~ ^[0-9]+$ ]] || { echo "bench: BENCH_WARMUP must be a number of seconds" >&2; exit 2; }
concurrency=${BENCH_CONCURRENCY:-16}
build=${BENCH_BUILD_DIR:-$root/build}
out=$root/bench/out
raw=$out/raw
scenarios=(unique hot dupes shuffled big)
# Scenarios whose objects' SQLite files are measured (bytes per event).
stored=(unique hot)
# Events about no entity (GitHub-shaped, to bucket objects): hookonce only, after the rest;
# the peers have no GitHub source. Stored too.
alone=no-entity

step() { printf 'bench: %s\n' "$*" >&2; }
die() { printf 'bench: error: %s\n' "$*" >&2; exit 1; }

rm -rf "$raw" && mkdir -p "$raw"
. "$root/bench/lib.sh"
[[ -x $workerd ]] || die "$workerd missing: run npm ci (or scripts/bootstrap.sh)"
bench_scratch bench
storage_kind=$(stat -f -c %T "$storage" 2>/dev/null || echo unknown)

# floor: a JS Worker whose object answers at once (bench/floor), the ceiling on this machine;
# floor-rs: the same in Rust, talking to the runtime as the edge does (bench/floor-rs), what
# a Worker in Rust costs before it does any work.
floor_rs=$out/floor-rs
built() { [[ -f $1/index.js && -f $1/index_bg.wasm ]]; }
# The peers: baseline keeps ids only, baseline-bodies each raw body with its id as well.
workers=(baseline baseline-bodies floor)
note=
if built "$build"; then
    workers=(hookonce "${workers[@]}")
else
    note="hookonce not measured: no worker-build output in ${build#"$root"/} (run make build)."
    step "warning: $note"
fi
if built "$floor_rs"; then
    workers+=(floor-rs)
else
    note="${note:+$note }The Rust floor not measured: no ${floor_rs#"$root"/} (make bench builds it)."
    step "warning: the Rust floor is not built (make bench builds it)"
fi

# 1. Native core.
step "1/7 core pipeline, criterion (native)"
criterion_args=()
[[ $quick == 1 ]] && criterion_args=(--warm-up-time 0.1 --measurement-time 0.2 --sample-size 10)
rm -rf "$CARGO_TARGET_DIR/criterion/1KiB" "$CARGO_TARGET_DIR/criterion/64KiB"
cargo bench -q -p hookonce-core --bench pipeline -- "${criterion_args[@]}" >"$raw/criterion.log" 2>&1 \
    || { cat "$raw/criterion.log" >&2; die "criterion failed"; }

# 2. Bundle: exactly the files workerd loads, as deployed.
step "2/7 bundle sizes"
# sizes FILE...: raw and gzipped bytes of the files as one (a peer: its worker and the recipe).
sizes() { ls "$@" >/dev/null 2>&1 && printf '[%d,%d]' "$(cat "$@" | wc -c)" "$(cat "$@" | gzip -9 | wc -c)" || printf null; }
recipe=bench/baseline/recipe.js
printf '{"wasm":%s,"glue":%s,"baseline":%s,"baseline-bodies":%s}\n' "$(sizes "$build/index_bg.wasm")" \
    "$(sizes "$build/index.js")" "$(sizes bench/baseline/worker.js $recipe)" \
    "$(sizes bench/baseline-bodies/worker.js $recipe)" >"$raw/bundle.json"

step "3/7 building the load generator (release)"
cargo build -q --release -p hookonce-loadgen || die "loadgen build failed"
loadgen=$CARGO_TARGET_DIR/release/loadgen
measure=$CARGO_TARGET_DIR/release/bench-storage

# 4. Start-up: each worker started BENCH_STARTUP_RUNS times (5) on empty storage, one start
# at a time (so none competes with another) and the workers in turn; the median is the
# figure, as one start can read several times the others on a shared machine. The last
# start of each worker serves the loads.
runs=${BENCH_STARTUP_RUNS:-5}
build_of() { [[ $1 == floor-rs ]] && echo "$floor_rs" || echo "$build"; }
declare -A url server started
serve_logs=$raw  # workerd's logs: bench/out/raw/NAME.log
for r in $(seq 1 "$runs"); do
    for w in "${workers[@]}"; do
        step "4/7 start-up $r/$runs: $w (workerd direct)"
        bench_serve "$w" "$w" "$(build_of "$w")"
        started[$w]+="$(( (ready_at - served_at) / 1000 )) "
        if (( r < runs )); then
            kill "$served"
            wait "$served" 2>/dev/null || true
        else
            url[$w]=http://127.0.0.1:$port server[$w]=$served
        fi
    done
done
for w in "${workers[@]}"; do
    # Microseconds, sorted; the median in ms, and every start for the raw record.
    sorted=$(tr ' ' '\n' <<<"${started[$w]}" | grep . | sort -n)
    median=$(awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}' <<<"$sorted")
    printf '{"ms":%s,"runs_ms":[%s]}\n' "$(awk -v m="$median" 'BEGIN {printf "%.3f", m / 1000}')" \
        "$(awk '{printf "%s%.3f", (NR > 1 ? "," : ""), $1 / 1000}' <<<"$sorted")" >"$raw/startup-$w.json"
done

# The entity objects' SQLite files under a workerd state DIR; each run's entities are new.
objects() { find "$1/do/hookonce-bench-entity" -name '*.sqlite' ! -name metadata.sqlite | sort; }
# Runs scenario $1 against URL $2 into $raw/load-$3.json; with the server's process id
# $4, its CPU time per event too (whole process, user + system; see bench/README.md).
run_load() {
    "$loadgen" --url "$2" --scenario "$1" --seconds "$seconds" \
        --concurrency "$concurrency" ${4:+--pid "$4"} --json >"$raw/load-$3.json"
}
# Measures the objects created under DIR $2 since $raw/objects-before-$1 into
# $raw/storage-$1.json (extra args: bench-storage's).
measure_objects() {
    local name=$1 dir=$2
    shift 2
    objects "$dir" | comm -13 "$raw/objects-before-$name" - >"$raw/objects-$name.txt" || return
    mapfile -t files <"$raw/objects-$name.txt"
    "$measure" "$@" "${files[@]}" >"$raw/storage-$name.json"
}
# One run of scenario $2 against URL $3 (state DIR $4) as $raw/load-$1.json, then its
# objects measured, for a stored scenario.
load() {
    local name=$1 s=$2 at=$3 dir=$4
    shift 4
    objects "$dir" >"$raw/objects-before-$name"
    run_load "$s" "$at" "$name" || return
    [[ " ${stored[*]} $alone " == *" $s "* ]] || return 0
    measure_objects "$name" "$dir" "$@"
}

# 5. Load. First each worker's warm-up, on entities no round uses (the load generator's
# nonce), then per scenario $rounds rounds; in each, every worker once, the order rotating.
if ((warmup > 0)); then
    for w in "${workers[@]}"; do
        step "5/7 warm-up: $w, ${warmup}s of unique at concurrency $concurrency, not measured"
        "$loadgen" --url "${url[$w]}" --scenario unique --seconds "$warmup" \
            --concurrency "$concurrency" --json >"$raw/warmup-$w.json" || die "warming $w up failed"
    done
fi
for s in "${scenarios[@]}"; do
    for w in "${workers[@]}"; do
        [[ $w == floor* ]] || objects "$tmp/$w" >"$raw/objects-before-$w-$s"
    done
    for ((r = 1; r <= rounds; r++)); do
        n=${#workers[@]}
        for ((i = 0; i < n; i++)); do
            w=${workers[$(((i + r - 1) % n))]}
            step "5/7 load: $s round $r/$rounds on $w, ${seconds}s at concurrency $concurrency (workerd direct)"
            run_load "$s" "${url[$w]}" "$w-$s-r$r" "${server[$w]}" || die "loading $w failed"
        done
    done
    # The bytes of every object the rounds created, over the events they all recorded.
    if [[ " ${stored[*]} " == *" $s "* ]]; then
        for w in "${workers[@]}"; do
            [[ $w == floor* ]] && continue  # it stores nothing
            measure_objects "$w-$s" "$tmp/$w" || die "measuring $w's storage failed"
        done
    fi
done

if [[ ${workers[0]} == hookonce ]]; then
    objects "$tmp/hookonce" >"$raw/objects-before-hookonce-$alone"
    for ((r = 1; r <= rounds; r++)); do
        step "5/7 load: $alone round $r/$rounds on hookonce, ${seconds}s at concurrency $concurrency (workerd direct)"
        run_load "$alone" "${url[hookonce]}" "hookonce-$alone-r$r" "${server[hookonce]}" \
            || die "loading hookonce failed"
    done
    measure_objects "hookonce-$alone" "$tmp/hookonce" || die "measuring hookonce's storage failed"
fi

# 6. Storage once bodies are pruned: hookonce on a workerd of its own that keeps bodies
# for 1 s; the stored scenarios again, then wait for the alarms to prune every body.
if [[ ${workers[0]} == hookonce ]]; then
    BENCH_BODY_RETENTION=1 bench_serve pruned hookonce "$build"
    for s in "${stored[@]}" "$alone"; do
        step "6/7 storage after pruning: $s on hookonce with body_retention_secs = 1"
        load "pruned-$s" "$s" "http://127.0.0.1:$port" "$tmp/pruned" --wait-pruned 120 \
            || die "hookonce did not prune the bodies of $s"
    done
fi

# 7. Fan-out: hookonce forwarding every event of the default source to 0, 1, 2 and 4
# destinations, each count on a workerd of its own, its destinations on a bench-origin of
# its own (200 at once, on loopback), `hot` in rotating rounds: events/s and CPU per event
# of each over the run without forwarding, rows written per applied event (3 plus 2 per
# destination); and, as the forwarding runs mostly after the load, the same to the moment
# the origin has every message the round's applied events owe it.
fanout=(0 1 2 4)
if [[ ${workers[0]} == hookonce ]]; then
    declare -A fan_url fan_pid fan_origin
    for n in "${fanout[@]}"; do
        # An origin per count, so each round's deliveries are its own (GET /count).
        "$CARGO_TARGET_DIR/release/bench-origin" >"$raw/origin-$n.port" &
        pids+=("$!")
        until [[ -s $raw/origin-$n.port ]]; do sleep 0.05; done
        fan_origin[$n]=http://127.0.0.1:$(cat "$raw/origin-$n.port")
        BENCH_DESTINATIONS=$n BENCH_ORIGIN=${fan_origin[$n]} bench_serve "fanout-$n" hookonce "$build"
        fan_url[$n]=http://127.0.0.1:$port fan_pid[$n]=$served
        if ((warmup > 0)); then
            step "7/7 warm-up: hookonce with $n destinations, ${warmup}s of unique, not measured"
            "$loadgen" --url "${fan_url[$n]}" --scenario unique --seconds "$warmup" \
                --concurrency "$concurrency" --json >"$raw/warmup-fanout-$n.json" || die "warming fan-out $n up failed"
        fi
    done
    taken() { curl -sf "${fan_origin[$1]}/count"; }
    ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }  # workerd's user + system CPU
    for ((r = 1; r <= rounds; r++)); do
        for ((i = 0; i < ${#fanout[@]}; i++)); do
            n=${fanout[$(((i + r - 1) % ${#fanout[@]}))]} pid=${fan_pid[$n]}
            step "7/7 fan-out: hot round $r/$rounds on hookonce with $n destinations, ${seconds}s at concurrency $concurrency, then its forwarding"
            before=$(taken "$n") cpu0=$(ticks "$pid") t0=$(date +%s%N)
            run_load hot "${fan_url[$n]}" "fanout-$n-r$r" "$pid" || die "loading fan-out $n failed"
            # The forwarding runs in the entities' alarms, mostly once the load has stopped:
            # the round is done when the origin has every message its applied events owe.
            # `hot` is one entity, whose rows go out one at a time per destination (~90/s on
            # these machines), so the wait grows with the backlog: 120 s plus 1 s per 20 owed.
            applied=$(grep -o '"outcomes":{[^}]*}' "$raw/load-fanout-$n-r$r.json" | grep -o '"applied":[0-9]*' | cut -d: -f2)
            owed=$((${applied:-0} * n)) wait=$((120 + owed / 20))
            deadline=$((SECONDS + wait))
            until (($(taken "$n") - before >= owed)); do
                ((SECONDS < deadline)) || die "fan-out $n: the origin took $(($(taken "$n") - before)) of $owed messages in $wait s"
                sleep 0.05
            done
            printf '{"applied":%d,"owed":%d,"seconds":%s,"cpu_ticks":%d,"clk_tck":%d}\n' "${applied:-0}" "$owed" \
                "$(awk -v ns=$(($(date +%s%N) - t0)) 'BEGIN {printf "%.3f", ns / 1e9}')" \
                "$(($(ticks "$pid") - cpu0))" "$(getconf CLK_TCK)" >"$raw/done-fanout-$n-r$r.json"
        done
    done
fi

json_str() { local s=${1//\\/\\\\}; printf '"%s"' "${s//\"/\\\"}"; }
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
cmd="bash bench/run.sh"
[[ $quick == 1 ]] && cmd="BENCH_QUICK=1 $cmd"
[[ -n ${BENCH_SECONDS:-} && $quick != 1 ]] && cmd="BENCH_SECONDS=$seconds $cmd"
[[ -n ${BENCH_ROUNDS:-} && $quick != 1 ]] && cmd="BENCH_ROUNDS=$rounds $cmd"
[[ -n ${BENCH_WARMUP:-} && $quick != 1 ]] && cmd="BENCH_WARMUP=$warmup $cmd"
printf '{"date":%s,"machine":%s,"command":%s,"seconds":"%s","rounds":"%s","warmup":"%s","concurrency":"%s","storage":%s,"note":%s}\n' \
    "$(json_str "$(date -u '+%Y-%m-%d %H:%M UTC')")" \
    "$(json_str "${cpu:-unknown CPU}, $(nproc) cores, $(uname -sr), workerd $("$workerd" --version | awk '{print $2}')")" \
    "$(json_str "$cmd")" "$seconds" "$rounds" "$warmup" "$concurrency" "$(json_str "$storage_kind")" "$(json_str "$note")" \
    >"$raw/meta.json"

status=0
"$CARGO_TARGET_DIR/release/bench-report" "$raw" "$CARGO_TARGET_DIR/criterion" >"$out/latest.md" || status=$?
cat "$out/latest.md"
# A figure with failed requests in it measures the failures: say so, and fail the run.
failed=$(grep -l '"errors":[1-9]' "$raw"/load-*.json 2>/dev/null || true)
if [[ -n $failed ]]; then
    printf 'bench: requests failed in %s; see the errors rows\n' "$(basename -a $failed | tr '\n' ' ')" >&2
    status=1
fi
exit "$status"
