#!/usr/bin/env bash
# run-demo.sh [EXAMPLE.c ...] - build each example with Umbra and run it.
#
# For every example (default: all examples/*.c): clang-22 -O2 -g -c -emit-llvm,
# the umbra driver, link with -lm, run.  Each program prints its derivatives
# beside finite-difference estimates and exits non-zero if they disagree:
#   energy.c    gradient (reverse), Hessian-vector product (forward over reverse) and
#               tangent (forward) of a particle energy, each timed against the primal
#   logistic.c  a logistic-regression loss, gradient entries by forward mode
#   pendulum.c  sensitivities of a simulated pendulum, forward mode
# Then, with no arguments, the Rust crate examples/rust/ (cargo run --offline, its build.rs
# differentiating src/model.rs with the driver; built in a scratch directory).
# Environment: UMBRA_BIN (default <repo>/target/release/umbra), CLANG (clang-22).
# `make demo` builds the driver (cargo build --release) and runs this script.
set -euo pipefail

EX_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$EX_DIR/.." && pwd)
UMBRA_BIN=${UMBRA_BIN:-$ROOT/target/release/umbra}
CLANG=${CLANG:-clang-22}

if [[ ! -x "$UMBRA_BIN" ]]; then
  echo "run-demo: umbra driver not found at $UMBRA_BIN (run: cargo build --release)" >&2
  exit 1
fi

if [[ $# -gt 0 ]]; then
  examples=("$@")
else
  examples=("$EX_DIR"/*.c)
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/umbra-demo.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

failed=()
for src in "${examples[@]}"; do
  name=$(basename "${src%.c}")
  echo
  echo "=================================================================="
  echo "  $name  ($src)"
  echo "=================================================================="
  if ! "$CLANG" -O2 -g -c -emit-llvm -I "$ROOT/runtime/include" "$src" -o "$WORK/$name.bc"; then
    echo "run-demo: $name: clang failed" >&2; failed+=("$name"); continue
  fi
  if ! "$UMBRA_BIN" "$WORK/$name.bc" -o "$WORK/$name.o"; then
    echo "run-demo: $name: umbra failed" >&2; failed+=("$name"); continue
  fi
  if ! "$CLANG" "$WORK/$name.o" -lm -o "$WORK/$name"; then
    echo "run-demo: $name: link failed" >&2; failed+=("$name"); continue
  fi
  if ! "$WORK/$name"; then
    echo "run-demo: $name: derivatives disagree with finite differences (or the program failed)" >&2
    failed+=("$name"); continue
  fi
done

ran=${#examples[@]}
if [[ $# -eq 0 ]]; then
  echo
  echo "=================================================================="
  echo "  rust  ($EX_DIR/rust, cargo run --offline)"
  echo "=================================================================="
  ran=$((ran + 1))
  if ! (cd "$EX_DIR/rust" && UMBRA="$UMBRA_BIN" CARGO_TARGET_DIR="$WORK/rust-target" \
        cargo run --offline --quiet); then
    echo "run-demo: rust: failed (build, differentiation or finite-difference check)" >&2
    failed+=("rust")
  fi
fi

echo
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "run-demo: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "run-demo: all $ran examples OK"
