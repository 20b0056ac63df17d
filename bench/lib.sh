# Shared by bench/run.sh, bench/quick.sh, bench/phases.sh and bench/profile.sh; sourced, not run.

# bench_scratch NAME: a fresh directory in $tmp for workerd configs and Durable Object
# storage, under $BENCH_STORAGE_DIR, else /dev/shm when writable (tmpfs: on these VMs every
# new object's SQLite file is fsynced to a virtual disk, which would measure the disk), else
# $TMPDIR; sets $storage to that parent. On exit, every pid in $pids (the workerds the
# script started) is killed and $tmp removed.
bench_scratch() {
    storage=${BENCH_STORAGE_DIR:-}
    if [[ -z $storage ]]; then
        storage=${TMPDIR:-/tmp}
        [[ -d /dev/shm && -w /dev/shm ]] && storage=/dev/shm
    fi
    tmp=$(mktemp -d -p "$storage" "hookonce-$1.XXXXXX")
    pids=()
    trap bench_cleanup EXIT
}

bench_cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$tmp"
}

# bench_start NAME KIND [VAR=VALUE@]BUILD: serves worker KIND (bench/workerd-config.sh's)
# from BUILD on a workerd of its own, with VAR=VALUE in the config's environment if given,
# and waits until it answers. Needs $tmp, $workerd and $loadgen; sets url[NAME] and
# pid[NAME] (see bench_builds).
bench_start() {
    local port=$((20000 + RANDOM % 20000)) build=$3 env=()
    if [[ $build == *@* ]]; then env=("${build%%@*}"); build=${build#*@}; fi
    env "${env[@]}" bench/workerd-config.sh "$2" "$port" "$tmp/$1" "$build" >/dev/null
    "$workerd" serve "$tmp/$1/config.capnp" >"$tmp/$1.log" 2>&1 &
    pids+=($!)
    pid[$1]=$!
    url[$1]=http://127.0.0.1:$port
    "$loadgen" --url "${url[$1]}" --ready --timeout 60 >/dev/null || { cat "$tmp/$1.log" >&2; exit 1; }
}

# The median of the numbers on standard input, one a line.
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# bench_builds [BUILD...]: builds the load generator ($loadgen), then serves the peer as
# `peer` and each hookonce BUILD ([VAR=VALUE@]DIR; default: build) as b0, b1, …; $names
# lists them in that order, and url[NAME] and pid[NAME] find them.
bench_builds() {
    (($#)) || set -- build
    cargo build -q --release -p hookonce-loadgen
    loadgen=$CARGO_TARGET_DIR/release/loadgen
    declare -gA url pid
    names=(peer)
    bench_start peer baseline build
    local i=0 build
    for build in "$@"; do
        names+=("b$i")
        bench_start "b$i" hookonce "$build"
        echo "b$i = $build" >&2
        i=$((i + 1))
    done
}
