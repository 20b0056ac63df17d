# Shared by the scripts in bench/ that serve workers on workerd; sourced, not run.
# Set `root` (the repository) first. Every script builds into the workspace's target
# directory and serves with the workerd that npm installed.
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
workerd=$root/node_modules/workerd/bin/workerd

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

# bench_port: a TCP port for a server, below the kernel's ephemeral range (so no client's
# connection, such as the load generator's, can hold it) and used by no socket on this
# machine in any state: the kernel's own tables (/proc/net/tcp and tcp6, whose second column
# is the local address, the port in hex after the colon), so no tool like `ss` is needed.
bench_port() {
    local low port
    read -r low _ </proc/sys/net/ipv4/ip_local_port_range
    ((low > 12000)) || low=32768
    while :; do
        port=$((10000 + RANDOM % (low - 10000)))
        bench_port_used "$port" /proc/net/tcp /proc/net/tcp6 || { echo "$port"; return; }
    done
}

# bench_port_used PORT TABLE...: whether a socket in any of the kernel's TCP tables (the
# format of /proc/net/tcp) has PORT as its local port.
bench_port_used() {
    local hex
    printf -v hex '%04X' "$1"
    shift
    awk -v port="$hex" 'FNR > 1 && substr($2, index($2, ":") + 1) == port { found = 1; exit }
        END { exit !found }' "$@" 2>/dev/null
}

# bench_serve NAME KIND BUILD [FLAG...]: serves worker KIND (bench/workerd-config.sh's) from
# BUILD on a workerd of its own, on empty storage in $tmp/NAME with `workerd serve FLAG...`
# and its log in ${serve_logs:-$tmp}/NAME.log, and waits until it answers. workerd-config.sh
# sees the caller's environment (BENCH_BODY_RETENTION=1 bench_serve …). A port taken between
# bench_port and workerd's bind is tried again on another, up to 5 times; any other failure
# prints the log and exits. Needs $tmp, $workerd and $loadgen; appends the workerd to $pids
# and sets $port, $served (its pid), $served_at and $ready_at (unix ns: started, answered).
bench_serve() {
    local name=$1 kind=$2 build=$3 log=${serve_logs:-$tmp}/$1.log attempt
    shift 3
    for attempt in 1 2 3 4 5; do
        port=$(bench_port)
        rm -rf "${tmp:?}/$name"
        bench/workerd-config.sh "$kind" "$port" "$tmp/$name" "$build" >/dev/null
        served_at=$(date +%s%N)
        # From the object's directory: V8 writes its logs (perf.sh's --perf-basic-prof) there.
        (cd "$tmp/$name" && exec "$workerd" serve "$@" config.capnp) >"$log" 2>&1 &
        served=$!
        pids+=("$served")
        ready_at=$("$loadgen" --url "http://127.0.0.1:$port" --ready --timeout 60 --pid "$served") && return
        wait "$served" 2>/dev/null || true
        grep -q 'Address already in use' "$log" || break
        printf 'bench: port %s was taken; %s tries another (%s/5)\n' "$port" "$name" "$attempt" >&2
    done
    cat "$log" >&2
    printf 'bench: error: %s (%s) did not answer\n' "$name" "$kind" >&2
    exit 1
}

# bench_start NAME KIND [VAR=VALUE@]BUILD: bench_serve with VAR=VALUE in the config's
# environment if given; sets url[NAME] and pid[NAME] (see bench_builds).
bench_start() {
    local build=$3
    if [[ $build == *@* ]]; then local -x "${build%%@*}"; build=${build#*@}; fi
    bench_serve "$1" "$2" "$build"
    pid[$1]=$served
    url[$1]=http://127.0.0.1:$port
}

# bench_order ROUND: the workers of $names, one a line, in the order round ROUND (from 1)
# runs them. The order rotates by one each round, so that drift on a shared machine hits all
# alike and no worker always runs right after the same one.
bench_order() {
    local k=${#names[@]} i
    for ((i = 0; i < k; i++)); do echo "${names[$(((i + $1 - 1) % k))]}"; done
}

# The median of the numbers on standard input, one a line.
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# bench_builds [BUILD...]: builds the load generator ($loadgen), then serves the peer as
# `peer` (bench/baseline: ids only), with BENCH_BODIES_PEER=1 the body-keeping peer as
# `peer-bodies` (bench/baseline-bodies), and each hookonce BUILD ([VAR=VALUE@]DIR; default:
# build) as b0, b1, …; $peers lists the peers, $builds the builds, $names all of them in that
# order, and url[NAME] and pid[NAME] find them.
bench_builds() {
    (($#)) || set -- build
    cargo build -q --release -p hookonce-loadgen
    loadgen=$CARGO_TARGET_DIR/release/loadgen
    declare -gA url pid
    peers=(peer) builds=()
    bench_start peer baseline build
    if [[ ${BENCH_BODIES_PEER:-0} == 1 ]]; then
        peers+=(peer-bodies)
        bench_start peer-bodies baseline-bodies build
    fi
    local i=0 build
    for build in "$@"; do
        builds+=("b$i")
        bench_start "b$i" hookonce "$build"
        echo "b$i = $build" >&2
        i=$((i + 1))
    done
    names=("${peers[@]}" "${builds[@]}")
}
