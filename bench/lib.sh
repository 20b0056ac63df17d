# Shared by bench/run.sh, bench/quick.sh and bench/profile.sh; sourced, not run.

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
