#!/usr/bin/env bash
# exec-test.sh SRC MODE OPT [TMPDIR]
#
# Build a C, C++ or Fortran execution test with Umbra and run it (C++ when SRC ends in .cpp:
# compiled and linked with $CXX, which links the C++ runtime; Fortran when it ends in .f90:
# compiled with $FLANG together with test/include/fdcheck.f90, linked with $FLANG, which links
# flang's runtime library).
#   MODE = driver : clang -O$OPT -g -c -emit-llvm -> $UMBRA_BIN -> clang link -> run
#   MODE = plugin : clang -O$OPT -g -fpass-plugin=$UMBRA_PLUGIN -> run
#   MODE = selftest : clang -O$OPT -DFD_SELFTEST (no Umbra; AD values ignored,
#                     checks the test's finite-difference plumbing only; C and C++ only)
#   For Fortran: driver = flang -O$OPT -g -c -emit-llvm -> $UMBRA_BIN -> flang link -> run;
#                plugin = flang -O$OPT -g -fpass-plugin=$UMBRA_PLUGIN -> run.
#   OPT  = 0..3
#   TMPDIR (optional, lit passes %t): directory for intermediate files
#                                     (created if needed); else mktemp -d.
# Environment:
#   UMBRA_BIN     driver binary   (default <repo>/target/release/umbra)
#   UMBRA_PLUGIN  pass plugin     (default <repo>/build/plugin/libUmbraPlugin.so)
#   UMBRA_CLANG_PLUGIN  clang plugin (default <repo>/build/plugin/libUmbraClang.so), for tests
#                 with an `// EXEC-CLANG-PLUGIN` line: their source attributes (enzyme_inactive,
#                 ...) need it. driver mode compiles with -fplugin=... -fplugin-arg-umbra-no-pass
#                 (the attributes only; Umbra differentiates afterwards), plugin mode with
#                 -fplugin=... beside -fpass-plugin=... (C and C++ only)
#   CLANG         C compiler      (default clang-22)
#   CXX           C++ compiler    (default clang++-22), for .cpp sources
#   FLANG         Fortran compiler (default flang-22), for .f90 sources and EXEC-FSRC files
#   EXTRA_CFLAGS  extra compile flags for the test source
#   EXTRA_LDFLAGS extra link flags (with EXTRA_CFLAGS=-fsanitize=address, the same flag here runs
#                 a test and its derived code under AddressSanitizer)
# A source line of the form `// EXEC-CFLAGS: <flags>` adds <flags> as well, and
# `// EXEC-LDFLAGS: <flags>` adds link flags (libraries such as -lopenblas) to every link.
# `// EXEC-FSRC: <file>` (a C test; <file> relative to the test's directory) compiles a Fortran
# source into the same module: the C and Fortran bitcode are linked (llvm-link) before Umbra
# (driver) or before clang -fpass-plugin (plugin), and the program is linked with $FLANG.
# Exits non-zero on any failure, naming the failing step on stderr.
set -euo pipefail

if [[ $# -lt 3 || $# -gt 4 ]]; then
  echo "usage: $0 SRC driver|plugin|selftest OPT [TMPDIR]" >&2
  exit 2
fi
SRC=$1
MODE=$2
OPT=$3

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)
UMBRA_BIN=${UMBRA_BIN:-$ROOT/target/release/umbra}
UMBRA_PLUGIN=${UMBRA_PLUGIN:-$ROOT/build/plugin/libUmbraPlugin.so}
CLANG=${CLANG:-clang-22}
FLANG=${FLANG:-flang-22}
LLVM_LINK=${LLVM_LINK:-/usr/lib/llvm-22/bin/llvm-link}
case "$SRC" in
  *.cpp) CLANG=${CXX:-clang++-22} ;;
esac

case "$OPT" in 0|1|2|3) ;; *) echo "exec-test: bad OPT '$OPT' (want 0..3)" >&2; exit 2 ;; esac
case "$MODE" in driver|plugin|selftest) ;; *) echo "exec-test: bad MODE '$MODE' (want driver|plugin|selftest)" >&2; exit 2 ;; esac
[[ -f "$SRC" ]] || { echo "exec-test: source '$SRC' not found" >&2; exit 2; }

if [[ $# -eq 4 ]]; then
  WORK=$4
  # lit's %t may be left over as a plain file from another kind of test.
  if [[ -e "$WORK" && ! -d "$WORK" ]]; then rm -f "$WORK"; fi
  mkdir -p "$WORK"
else
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/umbra-exec.XXXXXX")
  trap 'rm -rf "$WORK"' EXIT
fi

# Per-test flags from `// EXEC-CFLAGS:` lines.
SRC_CFLAGS=$(sed -n 's|^[[:space:]]*//[[:space:]]*EXEC-CFLAGS:||p' "$SRC" | tr '\n' ' ')
# shellcheck disable=SC2206
CFLAGS=(-O"$OPT" -g -I "$ROOT/test/include" -I "$ROOT/runtime/include" ${SRC_CFLAGS} ${EXTRA_CFLAGS:-})
if grep -q '^[[:space:]]*//[[:space:]]*EXEC-CLANG-PLUGIN' "$SRC"; then
  UMBRA_CLANG_PLUGIN=${UMBRA_CLANG_PLUGIN:-$ROOT/build/plugin/libUmbraClang.so}
  [[ -f "$UMBRA_CLANG_PLUGIN" ]] || { echo "exec-test: FAILED at step 'setup': UMBRA_CLANG_PLUGIN '$UMBRA_CLANG_PLUGIN' not found" >&2; exit 1; }
  CFLAGS+=(-fplugin="$UMBRA_CLANG_PLUGIN")
  [[ $MODE != driver ]] || CFLAGS+=(-fplugin-arg-umbra-no-pass)
fi
SRC_LDFLAGS=$(sed -n 's|^[[:space:]]*//[[:space:]]*EXEC-LDFLAGS:||p' "$SRC" | tr '\n' ' ')
# shellcheck disable=SC2206
LDFLAGS=(${SRC_LDFLAGS} ${EXTRA_LDFLAGS:-} -lm)

BASE=$WORK/$(basename "${SRC%.*}")-$MODE-O$OPT
EXE=$BASE.exe

step() { # step NAME CMD... : run CMD, report NAME on failure
  local name=$1; shift
  if ! "$@"; then
    echo "exec-test: FAILED at step '$name' ($SRC, mode=$MODE, -O$OPT)" >&2
    echo "  command: $*" >&2
    exit 1
  fi
}

rm -f "$BASE.bc" "$BASE.o" "$EXE"
# Fortran sources: the test itself (.f90), or the C test's companion (`// EXEC-FSRC:`).
FSRC=$(sed -n 's|^[[:space:]]*//[[:space:]]*EXEC-FSRC:[[:space:]]*||p' "$SRC" | head -n 1)
if [[ $SRC == *.f90 || -n $FSRC ]]; then
  [[ $MODE != selftest ]] || { echo "exec-test: selftest is for C and C++ tests only" >&2; exit 2; }
  FFLAGS=(-O"$OPT" -g)
  MODDIR=$BASE.mod
  mkdir -p "$MODDIR"
  if [[ $MODE == driver ]]; then
    [[ -x "$UMBRA_BIN" ]] || { echo "exec-test: FAILED at step 'setup': UMBRA_BIN '$UMBRA_BIN' not found or not executable" >&2; exit 1; }
  else
    [[ -f "$UMBRA_PLUGIN" ]] || { echo "exec-test: FAILED at step 'setup': UMBRA_PLUGIN '$UMBRA_PLUGIN' not found" >&2; exit 1; }
  fi
  if [[ $SRC == *.f90 ]]; then
    # The checker is compiled without Umbra; the test `use`s its module.
    step "compile fdcheck.f90" "$FLANG" "${FFLAGS[@]}" -J "$MODDIR" -c "$ROOT/test/include/fdcheck.f90" -o "$BASE.fdcheck.o"
    if [[ $MODE == driver ]]; then
      step "compile to bitcode" "$FLANG" "${FFLAGS[@]}" -I "$MODDIR" -J "$MODDIR" -c -emit-llvm "$SRC" -o "$BASE.bc"
      step "umbra" "$UMBRA_BIN" "$BASE.bc" -o "$BASE.o"
    else
      step "compile with plugin" "$FLANG" "${FFLAGS[@]}" -I "$MODDIR" -J "$MODDIR" -fpass-plugin="$UMBRA_PLUGIN" -c "$SRC" -o "$BASE.o"
    fi
    step "link" "$FLANG" "$BASE.o" "$BASE.fdcheck.o" "${LDFLAGS[@]}" -o "$EXE"
  else
    FPATH=$(dirname "$SRC")/$FSRC
    step "compile C to bitcode" "$CLANG" "${CFLAGS[@]}" -c -emit-llvm "$SRC" -o "$BASE.c.bc"
    step "compile Fortran to bitcode" "$FLANG" "${FFLAGS[@]}" -J "$MODDIR" -c -emit-llvm "$FPATH" -o "$BASE.f.bc"
    step "llvm-link" "$LLVM_LINK" "$BASE.c.bc" "$BASE.f.bc" -o "$BASE.bc"
    if [[ $MODE == driver ]]; then
      step "umbra" "$UMBRA_BIN" "$BASE.bc" -o "$BASE.o"
    else
      step "compile with plugin" "$CLANG" -O"$OPT" -fpass-plugin="$UMBRA_PLUGIN" -c "$BASE.bc" -o "$BASE.o"
    fi
    step "link" "$FLANG" "$BASE.o" "${LDFLAGS[@]}" -o "$EXE"
  fi
elif [[ $MODE == driver ]]; then
  [[ -x "$UMBRA_BIN" ]] || { echo "exec-test: FAILED at step 'setup': UMBRA_BIN '$UMBRA_BIN' not found or not executable" >&2; exit 1; }
  step "compile to bitcode" "$CLANG" "${CFLAGS[@]}" -c -emit-llvm "$SRC" -o "$BASE.bc"
  step "umbra" "$UMBRA_BIN" "$BASE.bc" -o "$BASE.o"
  step "link" "$CLANG" "$BASE.o" "${LDFLAGS[@]}" -o "$EXE"
elif [[ $MODE == selftest ]]; then
  step "compile (selftest)" "$CLANG" "${CFLAGS[@]}" -DFD_SELFTEST "$SRC" "${LDFLAGS[@]}" -o "$EXE"
else
  [[ -f "$UMBRA_PLUGIN" ]] || { echo "exec-test: FAILED at step 'setup': UMBRA_PLUGIN '$UMBRA_PLUGIN' not found" >&2; exit 1; }
  step "compile with plugin" "$CLANG" "${CFLAGS[@]}" -fpass-plugin="$UMBRA_PLUGIN" "$SRC" "${LDFLAGS[@]}" -o "$EXE"
fi

if command -v timeout >/dev/null 2>&1; then
  step "run" timeout 60 "$EXE"
else
  step "run" "$EXE"
fi
