#!/usr/bin/env bash
# Forwarding throughput, A/B: each BUILD (a worker-build output; default: build) serves on
# workerd direct with the cockpit source forwarding to a local origin (bench/forward.py),
# and takes FORWARD_EVENTS notify events over FORWARD_ENTITIES entities; printed per run:
# the seconds from the first post until the origin has every event, forwards per second,
# attempts. The builds alternate for FORWARD_ROUNDS rounds, in an order that rotates, so
# that drift on a shared machine hits all alike; compare medians, not single runs.
#
#   bash bench/forward.sh BUILD_A BUILD_B
# A BUILD may be VAR=VALUE@DIR, for VAR=VALUE in its config's environment only, e.g.
# BENCH_FORWARD_MAX_IN_FLIGHT=1000@build. Knobs: FORWARD_ROUNDS (3), FORWARD_ENTITIES (50), FORWARD_EVENTS (1000),
# FORWARD_CONCURRENCY (16).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
. "$root/bench/lib.sh"
bench_scratch forward
(($#)) || set -- build
cargo build -q --release -p hookonce-loadgen
loadgen=$CARGO_TARGET_DIR/release/loadgen
names=("$@")
for ((round = 1; round <= ${FORWARD_ROUNDS:-3}; round++)); do
    while read -r spec; do
        origin=$(bench_port)
        # [VAR=VALUE@]BUILD: VAR=VALUE in this build's config environment only.
        build=${spec#*@} var=
        [[ $spec == *@* ]] && var=${spec%%@*} && export "${var?}"
        BENCH_FORWARD_URL=http://127.0.0.1:$origin/hooks bench_serve "r$round" hookonce "$build"
        [[ -z $var ]] || unset "${var%%=*}"
        printf '%s round %s: ' "$spec" "$round"
        python3 bench/forward.py "http://127.0.0.1:$port" "$origin" "${FORWARD_ENTITIES:-50}" \
            "${FORWARD_EVENTS:-1000}" "${FORWARD_CONCURRENCY:-16}"
        kill "$served"
        wait "$served" 2>/dev/null || true
        rm -rf "${tmp:?}/r$round"
    done < <(bench_order "$round")
done
