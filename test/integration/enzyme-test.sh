#!/usr/bin/env bash
# enzyme-test.sh SRC MODE TMPDIR CFLAGS...
#
# Builds one of Enzyme's integration tests (../shared/enzyme-integration, see its README: run
# from there, never copied into this repository) unchanged, as an Enzyme user would with
# Umbra, and runs it with OMP_NUM_THREADS=1 and 2 (the tests abort on a wrong derivative).
#   MODE = driver : clang CFLAGS -c -emit-llvm -> $UMBRA_BIN -> clang link
#   MODE = plugin : clang CFLAGS -fpass-plugin=$UMBRA_PLUGIN; with -disable-llvm-passes in
#                   CFLAGS (Enzyme's "O0TBAA"), which leaves plugins out too, opt runs the
#                   plugin's pass on the bitcode instead
# CFLAGS are the front-end flags of the test's RUN line (the Enzyme-only stages dropped).
# Links with -fopenmp and -lm. Exits non-zero on any failure, naming the failing step.
# CLANG defaults to clang++-22 for a .cpp test (its RUN lines' %clang++), clang-22 otherwise.
# UMBRA_DRIVER_FLAGS, when set, holds options of the driver (shell words, e.g.
# "--truncate-all=64to32"); the plugin reads its own from UMBRA_OPTIONS.
# ENZYME_FILECHECK, when set, holds the arguments of FileCheck where the RUN line pipes the
# program's output there (e.g. "SRC --check-prefix=X"): the output of each run is checked.
set -euo pipefail
if [[ $# -lt 3 ]]; then
  echo "usage: $0 SRC driver|plugin TMPDIR CFLAGS..." >&2
  exit 2
fi
SRC=$1 MODE=$2 WORK=$3
shift 3
CFLAGS=("$@")
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)
UMBRA_BIN=${UMBRA_BIN:-$ROOT/target/release/umbra}
UMBRA_PLUGIN=${UMBRA_PLUGIN:-$ROOT/build/plugin/libUmbraPlugin.so}
case "$SRC" in
  *.cpp) CLANG=${CLANG:-clang++-22} ;;
  *) CLANG=${CLANG:-clang-22} ;;
esac
FILECHECK=${FILECHECK:-/usr/lib/llvm-22/bin/FileCheck}
OPT=${OPT:-/usr/lib/llvm-22/bin/opt}
if [[ -e "$WORK" && ! -d "$WORK" ]]; then rm -f "$WORK"; fi
mkdir -p "$WORK"
BASE=$WORK/$(basename "${SRC%.*}")-$MODE
EXE=$BASE.exe
rm -f "$BASE.bc" "$BASE.o" "$EXE"

step() {
  local name=$1; shift
  if ! "$@"; then
    echo "enzyme-test: FAILED at step '$name' ($SRC, mode=$MODE, ${CFLAGS[*]})" >&2
    echo "  command: $*" >&2
    exit 1
  fi
}

case "$MODE" in
  driver)
    step "compile to bitcode" "$CLANG" "${CFLAGS[@]}" -c -emit-llvm "$SRC" -o "$BASE.bc"
    eval "DRIVER_FLAGS=(${UMBRA_DRIVER_FLAGS:-})"
    step "umbra" "$UMBRA_BIN" "$BASE.bc" ${DRIVER_FLAGS[@]+"${DRIVER_FLAGS[@]}"} -o "$BASE.o"
    step "link" "$CLANG" -fopenmp "$BASE.o" -lm -o "$EXE"
    ;;
  plugin)
    if [[ " ${CFLAGS[*]} " == *" -disable-llvm-passes "* ]]; then
      step "compile to bitcode" "$CLANG" "${CFLAGS[@]}" -c -emit-llvm "$SRC" -o "$BASE.bc"
      step "opt with plugin" "$OPT" -load-pass-plugin="$UMBRA_PLUGIN" -passes=umbra "$BASE.bc" -o "$BASE.d.bc"
      step "link" "$CLANG" -fopenmp "$BASE.d.bc" -lm -o "$EXE"
    else
      step "compile with plugin" "$CLANG" "${CFLAGS[@]}" -fpass-plugin="$UMBRA_PLUGIN" "$SRC" -lm -o "$EXE"
    fi
    ;;
  *)
    echo "enzyme-test: bad MODE '$MODE' (want driver|plugin)" >&2
    exit 2
    ;;
esac
for threads in 1 2; do
  # The program's own stdout is what a RUN line pipes to FileCheck; stderr is only shown.
  rc=0
  OMP_NUM_THREADS=$threads timeout 60 "$EXE" >"$BASE.out" 2>"$BASE.err" || rc=$?
  if [[ $rc -ne 0 ]]; then
    cat "$BASE.err" "$BASE.out" >&2
    if [[ $rc -eq 124 ]]; then
      echo "enzyme-test: the program ran for more than 60 s" >&2
    elif [[ $rc -gt 128 ]]; then
      echo "enzyme-test: the program died of signal $((rc - 128))" >&2
    else
      echo "enzyme-test: the program exited with status $rc" >&2
    fi
    echo "enzyme-test: FAILED at step 'run with OMP_NUM_THREADS=$threads' ($SRC, mode=$MODE, ${CFLAGS[*]})" >&2
    exit 1
  fi
  if [[ -n "${ENZYME_FILECHECK:-}" ]]; then
    eval "FC_ARGS=($ENZYME_FILECHECK)"
    if ! "$FILECHECK" "${FC_ARGS[@]}" <"$BASE.out" 2>"$BASE.fc" ; then
      cat "$BASE.fc" >&2
      echo "enzyme-test: FAILED at step 'FileCheck with OMP_NUM_THREADS=$threads' ($SRC, mode=$MODE, ${CFLAGS[*]})" >&2
      exit 1
    fi
  fi
done
