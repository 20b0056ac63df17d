#!/usr/bin/env bash
# Which SQL statements SQLite prepares, per event, while one worker serves one scenario: a
# uprobe on workerd's sqlite3LockAndPrepare records each statement's text. The runtime caches
# prepared statements per object, so this counts exactly what a new object, a change of
# schema or an uncached statement costs, where events/s are too noisy to show it.
#
#   bash bench/statements.sh [hookonce|baseline|baseline-bodies] [SCENARIO] [SECONDS] [BUILD_DIR]
#
# Defaults: hookonce, unique, 1 s (in a 1 s `unique` run every event reaches a new object),
# build. Needs root and perf (Debian: linux-perf). A 2 s run of the scenario goes first, so
# that the isolate is warm; the counted run's entities are new (the load generator's nonce).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
kind=${1:-hookonce} scenario=${2:-unique} seconds=${3:-1} build=${4:-build}
command -v perf >/dev/null || { echo "statements: needs perf (apt-get install linux-perf)" >&2; exit 2; }
. "$root/bench/lib.sh"
bench_scratch statements
cargo build -q --release -p hookonce-loadgen
loadgen=$CARGO_TARGET_DIR/release/loadgen

# The statement's text is sqlite3LockAndPrepare's second argument.
probe=probe_workerd:hookonce_prepare
perf probe -q -x "$workerd" -d "$probe" 2>/dev/null || true
perf probe -q -x "$workerd" -a 'hookonce_prepare=sqlite3LockAndPrepare sql=+0(%si):string'
trap 'perf probe -q -d "$probe" 2>/dev/null || true; bench_cleanup' EXIT

bench_serve w "$kind" "$build"
url=http://127.0.0.1:$port
load() { "$loadgen" --url "$url" --scenario "$scenario" --seconds "$1" --concurrency 16 --json; }
load 2 >/dev/null
perf record -q -e "$probe" -p "$served" -o "$tmp/perf.data" 2>/dev/null &
recorder=$!
sleep 0.5
events=$(load "$seconds" | sed -n 's/.*"ok":\([0-9]*\).*/\1/p')
kill -INT "$recorder"
wait "$recorder" || true
perf script -i "$tmp/perf.data" 2>/dev/null >"$tmp/script.txt"

# One record per prepare; a statement's text can span lines. Each is shown by its first
# 80 characters, whitespace folded.
python3 - "$tmp/script.txt" "$events" "$kind" "$scenario" "$seconds" <<'PY'
import collections, re, sys
text, events = open(sys.argv[1]).read(), int(sys.argv[2])
counts = collections.Counter(
    re.sub(r"\s+", " ", m.group(1)).strip()[:80]
    for m in re.finditer(r'hookonce_prepare: \([0-9a-f]+\) sql="(.*?)"\n(?=\s*\S+\s+\d+ |\Z)', text, re.S)
)
print(f"{sys.argv[3]}, {sys.argv[4]}, {sys.argv[5]} s: {events} events, "
      f"{sum(counts.values()) / max(events, 1):.2f} statements prepared per event")
for sql, n in counts.most_common():
    print(f"{n / max(events, 1):7.3f}  {sql}")
PY
