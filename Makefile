# Umbra: top-level entry points. Every target except `clean` first runs scripts/setup.sh, which
# installs missing system packages (LLVM 22, clang-22, lit, FileCheck, cmake) and is a no-op
# when everything is present. Rust (cargo) comes from rustup.
#
#   make build    cargo build --release (the `umbra` driver and the passes library)
#   make plugin   the opt/clang pass plugin, build/plugin/libUmbraPlugin.so
#   make test     formatting and clippy checks, then unit tests and the lit suite
#   make lint     formatting and clippy checks only
#   make demo     build driver and plugin, run examples/run-demo.sh (a gradient, a Hessian-vector
#                 product and a tangent beside finite differences, timed; the other examples)
#   make rules-doc  regenerate the rule reference, docs/reference/rules.md (`umbra rules --markdown`)
#   make bench    the benchmark suite (bench/run.sh): table, bench/results/{results.csv,ratios.png}
#   make bench-check  build the benchmarks and the applications (bench/apps) at small sizes and
#                 check their gradients (no timing)
#   make bench-apps   the applications at full size: gradient/primal, tape, peak RSS, system time
#   make fuzz     generated programs of loops and branches, gradients against finite differences
#                 (scripts/fuzz.sh; SEEDS="FIRST LAST", default 1 50)
#   make enzyme-compat  Enzyme's integration tests (../shared/enzyme-integration) run unchanged:
#                 pass/fail per test and level (scripts/enzyme-compat.py; not part of `make test`,
#                 it takes minutes; ARGS="--write-docs" rewrites docs/reference/enzyme-compat.md)
#   make clean    remove build outputs

SHELL := /bin/bash
export PATH := $(HOME)/.cargo/bin:$(PATH)
export LLVM_SYS_221_PREFIX := /usr/lib/llvm-22

CARGO ?= cargo
CMAKE ?= cmake

.PHONY: all setup build plugin test lint demo clean rules-doc bench bench-check bench-apps fuzz \
	enzyme-compat

all: build

setup:
	@bash scripts/setup.sh

build: setup
	$(CARGO) build --release

# The plugin links against the passes library built by cargo.
plugin: build
	$(CMAKE) -S cmake -B build/plugin -DCMAKE_BUILD_TYPE=Release
	$(CMAKE) --build build/plugin

lint: setup
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --release --all-targets -- -D warnings

# The lit suite (run by `cargo test`) exercises both the driver and the plugin.
test: lint plugin
	$(CARGO) test --release
	$(MAKE) bench-check

# The report (bench/report) is its own cargo workspace, so that `make test` never builds plotters.
bench: build
	bash bench/run.sh full
	bash bench/apps/run.sh full
	$(CARGO) run --release --quiet --manifest-path bench/report/Cargo.toml -- bench/results

bench-check: build
	bash bench/run.sh check
	bash bench/apps/run.sh check

bench-apps: build
	bash bench/apps/run.sh full

fuzz: plugin
	bash scripts/fuzz.sh $(SEEDS)

enzyme-compat: plugin
	python3 scripts/enzyme-compat.py $(ARGS)

# Regenerates docs/reference/rules.md's rule reference from `umbra rules --markdown`.
rules-doc: build
	bash scripts/rules-doc.sh

demo: plugin
	bash examples/run-demo.sh

clean:
	$(CARGO) clean
	rm -rf build
	find test -type d -name Output -prune -exec rm -rf {} +
