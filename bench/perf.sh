#!/usr/bin/env bash
# Where workerd's CPU goes per event, by the JavaScript or wasm call it is spent under: `perf`
# samples the whole process (both cores, the runtime's C++ too) while one worker serves one
# scenario, V8 names its JIT frames (--perf-basic-prof), and each sample is charged to the
# innermost JS or wasm frame on its stack. So `__wbg_exec_…` is everything the runtime did
# inside a `sql.exec` call (SQLite included), a wasm function is its own code, and
# "(no JS frame)" is the runtime serving requests, promises and GC outside any call.
#
#   bash bench/perf.sh [hookonce|baseline|baseline-bodies|floor|floor-rs] [SCENARIO] [SECONDS]
# (floor-rs: BENCH_BUILD_DIR=bench/out/floor-rs)
#
# Defaults: hookonce, unique, 16 s of load, sampled from second 4 to 6 s before the end
# (PERF_SKIP=0 PERF_WINDOW=2: the first 2 s instead, where every event makes a new object).
# Prints µs of CPU per event for the top entries (PERF_TOP, 40), with the part spent in the
# frame itself. PERF_CALLERS=PREFIX also splits the frames named PREFIX… (a runtime call:
# `__wbg_exec`, `__wbg_fetch`) by the nearest hookonce wasm frame that called them.
# PERF_WARM=SECONDS runs the scenario that long first, unsampled, so that the sampled run
# meets a warm isolate (its entities are still new: the load generator's nonce).
# PERF_THREAD=main samples only the thread that serves every request, the one the load keeps
# busy, and also splits its time by what the runtime was doing: SQLite preparing, stepping
# or otherwise, the alarm, an object's constructor, starting an actor, GC, compiling, wasm
# or JS code itself, the runtime under a JS or wasm call, and the rest.
# wasm frames carry names only when the build kept its name section:
#   CARGO_PROFILE_RELEASE_STRIP=false BENCH_BUILD_DIR=target/profile-build make build
# (see bench/README.md). Needs root and perf (Debian: linux-perf). The map makes V8 a little
# slower: compare profiles with each other, not with bench/run.sh.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
kind=${1:-hookonce} scenario=${2:-unique} seconds=${3:-16}
build=${BENCH_BUILD_DIR:-$root/build}
command -v perf >/dev/null || { echo "perf.sh: needs perf (apt-get install linux-perf)" >&2; exit 2; }
((seconds >= 8)) || { echo "perf.sh: SECONDS must be at least 8" >&2; exit 2; }
thread=${PERF_THREAD:-all} warm=${PERF_WARM:-0}
[[ $thread == all || $thread == main ]] || { echo "perf.sh: PERF_THREAD must be all or main" >&2; exit 2; }
[[ $warm =~ ^[0-9]+$ ]] || { echo "perf.sh: PERF_WARM must be a number of seconds" >&2; exit 2; }
. "$root/bench/lib.sh"
bench_scratch perf
cargo build -q --release -p hookonce-loadgen
loadgen=$CARGO_TARGET_DIR/release/loadgen

BENCH_V8_FLAGS=--perf-basic-prof bench_serve w "$kind" "$build"
url=http://127.0.0.1:$port
trap 'rm -f "/tmp/perf-$served.map"; bench_cleanup' EXIT
if ((warm > 0)); then
    "$loadgen" --url "$url" --scenario "$scenario" --seconds "$warm" \
        --concurrency "${BENCH_CONCURRENCY:-16}" --json >/dev/null
fi
"$loadgen" --url "$url" --scenario "$scenario" --seconds "$seconds" --concurrency "${BENCH_CONCURRENCY:-16}" \
    --json --progress >"$tmp/load.json" 2>"$tmp/progress.txt" &
load=$!
# By default steady state only: past the first objects and the JIT's first tier-up.
skip=${PERF_SKIP:-4}
window=${PERF_WINDOW:-$((seconds - 6))}
((skip + window <= seconds)) || { echo "perf.sh: PERF_SKIP + PERF_WINDOW exceed SECONDS" >&2; exit 2; }
sleep "$skip"
perf record -q -F 4000 -g -p "$served" -o "$tmp/perf.data" -- sleep "$window" 2>/dev/null
wait "$load"
perf script -i "$tmp/perf.data" -F tid,ip,sym 2>/dev/null >"$tmp/script.txt"

# Events in the window: the load generator's per-second counts for seconds skip+1 .. skip+window.
python3 - "$tmp/script.txt" "$tmp/progress.txt" "$skip" "$window" "$kind" "$scenario" "${PERF_TOP:-40}" \
    "${PERF_CALLERS:-}" "$thread" "$served" <<'PY'
import collections, re, sys
script, progress, skip, window, kind, scenario, top, callers, thread, pid = sys.argv[1:11]
skip, window, top = int(skip), int(window), int(top)
per_second = [int(n) for n in re.findall(r"second \d+: (\d+) requests", open(progress).read())]
events = sum(per_second[skip:skip + window])
# Each sample: its thread id, then its frames innermost first ("ip symbol").
samples, stack, tid = [], [], None
for line in open(script):
    line = line.strip()
    if not line:
        if stack and (thread == "all" or tid == pid):
            samples.append(stack)
        stack, tid = [], None
        continue
    if tid is None and line.isdigit():
        tid = line
        continue
    stack.append(line.split(" ", 1)[1] if " " in line else "?")
if stack and (thread == "all" or tid == pid):
    samples.append(stack)

def name(frame):
    frame = re.sub(r"^JS:[*~^+']*", "", frame)
    frame = re.sub(r"::h[0-9a-f]{16}", "", frame)
    frame = re.sub(r"-\d+-(turbofan|liftoff|maglev|sparkplug)$", "", frame)
    return re.sub(r" \S+\.js:\d+:\d+$", "", frame)

under, own = collections.Counter(), collections.Counter()
for s in samples:
    i = next((i for i, f in enumerate(s) if f.startswith("JS:")), None)
    key = "(no JS frame)" if i is None else name(s[i])
    under[key] += 1
    if i == 0:
        own[key] += 1
us = 1e6 / 4000 / max(events, 1)
where = "of the serving thread's CPU" if thread == "main" else "of CPU"
print(f"{kind}, {scenario}: {events} events in {window} s, {len(samples) * us:.0f} µs {where} per event")
if thread == "main":
    # The first of these found anywhere on a sample's stack names what the thread was doing:
    # SQLite first, so that the alarm's and a constructor's statements count as SQLite.
    doing = [
        ("SQLite: preparing a statement", ("sqlite3LockAndPrepare",)),
        ("SQLite: running a statement", ("sqlite3_step",)),
        ("SQLite: other (open, commit, WAL)", ("sqlite3",)),
        ("setting the alarm, besides its SQLite", ("Alarm", "SqliteMetadata")),
        ("an object's constructor, besides its SQLite", ("ensureConstructed",)),
        ("starting an actor", ("Actor::Actor",)),
        ("garbage collection", ("v8::internal::Heap", "Scavenge", "MarkCompact")),
        ("compiling", ("Compile",)),
    ]
    def is_wasm(frame):
        return bool(re.search(r"-\d+-(liftoff|turbofan)$", frame)) or "wasm" in frame
    split = collections.Counter()
    for s in samples:
        what = next((label for label, marks in doing if any(m in f for f in s for m in marks)), None)
        if what is None:
            if s[0].startswith("JS:"):
                what = "wasm code itself" if is_wasm(s[0]) else "JavaScript code itself"
            elif any(f.startswith("JS:") for f in s):
                what = "the runtime, under a JS or wasm call"
            else:
                what = "the runtime, outside any call"
        split[what] += 1
    print(f"{'µs/event':>9}  what the thread was doing")
    for what, n in split.most_common():
        print(f"{n * us:9.1f}  {what}")
    print()
print(f"{'µs/event':>9} {'own':>6}  innermost JS or wasm frame")
for key, n in under.most_common(top):
    print(f"{n * us:9.1f} {own[key] * us:6.1f}  {key[:110]}")
if callers:
    by = collections.Counter()
    for s in samples:
        js = [name(f) for f in s if f.startswith("JS:")]
        if js and js[0].startswith(callers):
            by[next((n for n in js[1:] if n.startswith("hookonce")), "(no hookonce frame)")] += 1
    print(f"\n{'µs/event':>9}  {callers}… by the nearest hookonce frame that called it")
    for key, n in by.most_common(top):
        print(f"{n * us:9.1f}  {key[:110]}")
PY
