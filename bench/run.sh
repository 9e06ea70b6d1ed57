#!/usr/bin/env bash
# The benchmark suite (see /work/shared/BENCHMARKS.md and bench/harness.c).
#
#   bench/run.sh check   build every benchmark at small sizes (-DSMALL) and check its gradients
#                        once, without timing; fails if any check fails (part of `make test`)
#   bench/run.sh full    build at full size, time the compile column, check and time every
#                        benchmark; writes bench/results/results.csv and failures.csv
#   BENCH_ONLY="name ..." restricts either to some benchmarks.
#
# Each benchmark becomes its own executable, build/<size>/bench-<name>: its C source through
# `clang-22 -O3 -march=native -emit-llvm` and `umbra -O3` (primal, hand gradient and umbra's
# derivatives share that one object, so they are compiled alike), its ADOL-C tape
# (adolc_tape.cpp) and the harness. When umbra fails on a benchmark, the benchmark is rebuilt
# without the failing request, and the harness reports umbra's error in place of that column.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
UMBRA=${UMBRA:-$root/target/release/umbra}
BENCHMARKS=(sum_1000 sum_sin_1000 sum_squares_1e6 kron_sum kron_view_sum naive_map_sin_cos_exp
  simple_mlp gp_lml large_single_block lognormal_model gmm lstm)
[ -z "${BENCH_ONLY:-}" ] || read -ra BENCHMARKS <<<"$BENCH_ONLY"
FLAGS=(-O3 -march=native -I "$here" -I "$root/runtime/include")

# build_one DIR NAME [-D...]: DIR/bench-NAME, and DIR/NAME.umbra-failed holding umbra's error
# when a request had to be left out.
build_one() {
  local dir=$1 name=$2
  shift 2
  local defs=("$@") out="$dir/$name"
  try_umbra() { # a compile error in the source is not umbra's: it ends the build
    clang-22 "${FLAGS[@]}" "${defs[@]}" "$@" -emit-llvm -c "$here/src/$name.c" -o "$out.bc" ||
      exit 1
    "$UMBRA" -O3 --tape-stats "$out.bc" -o "$out.o" 2>"$out.umbra.err"
  }
  rm -f "$out.o" "$out.umbra-failed"
  if ! try_umbra; then
    # The first error (on the module with both requests) is the one to report.
    local error
    error=$(head -n 1 "$out.umbra.err")
    [ -n "$error" ] || error="umbra exited with an error and no message"
    local left_out
    for left_out in NO_UMBRA_TANGENT NO_UMBRA_GRAD "NO_UMBRA_GRAD -DNO_UMBRA_TANGENT"; do
      # shellcheck disable=SC2086 # the last alternative is two flags
      if try_umbra $(printf -- '-D%s' "$left_out"); then break; fi
    done
    [ -f "$out.o" ] || { echo "run.sh: $name: umbra fails even without requests" >&2; return 1; }
    echo "$error" >"$out.umbra-failed"
    echo "run.sh: $name: $error (built with -D$left_out)" >&2
  fi
  clang++-22 "${FLAGS[@]}" "${defs[@]}" -DBENCH_HEADER="\"src/$name.h\"" \
    -c "$here/adolc_tape.cpp" -o "$out.adolc.o"
  # --wrap: the harness counts the heap the gradients use (bench/harness.c, memory_rows).
  clang++-22 "$dir/harness.o" "$out.o" "$out.adolc.o" -ladolc -lm \
    -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free -o "$dir/bench-$name"
}

# build_all DIR [-D...]: the harness, then every benchmark (two at a time).
build_all() {
  local dir=$1
  shift
  mkdir -p "$dir"
  clang-22 "${FLAGS[@]}" -c "$here/harness.c" -o "$dir/harness.o"
  printf '%s\n' "${BENCHMARKS[@]}" | xargs -P 2 -I{} "$0" build-one "$dir" {} "$@"
}

# umbra_failed_args DIR NAME: the harness's --umbra-failed argument, if any.
umbra_failed_args() {
  [ ! -f "$1/$2.umbra-failed" ] || printf '%s\0%s\0' --umbra-failed "$(cat "$1/$2.umbra-failed")"
}

check() {
  local dir=$here/build/small status=0 name
  build_all "$dir" -DSMALL
  for name in "${BENCHMARKS[@]}"; do
    local args=()
    mapfile -d '' args < <(umbra_failed_args "$dir" "$name")
    (cd "$dir" && "./bench-$name" --check "${args[@]}") || status=1
  done
  return $status
}

# median_time N CMD...: median wall time in seconds of N runs of CMD.
median_time() {
  local n=$1 i t0
  shift
  local times=()
  for ((i = 0; i < n; i++)); do
    t0=$EPOCHREALTIME
    "$@" >/dev/null 2>&1 || return 1
    times+=("$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')")
  done
  printf '%s\n' "${times[@]}" | sort -g | sed -n "$((n / 2 + 1))p"
}

full() {
  local dir=$here/build/full results=$here/results name
  build_all "$dir"
  # ADOL-C reads .adolcrc from the working directory: buffers big enough that the largest tapes
  # stay in memory instead of spilling to files.
  printf '"%s" "%s"\n' OBUFSIZE 33554432 LBUFSIZE 33554432 VBUFSIZE 33554432 \
    TBUFSIZE 33554432 >"$dir/.adolcrc"
  mkdir -p "$results"
  echo "benchmark,tool,mode,seconds_per_call,ratio_to_primal" >"$results/results.csv"
  echo "benchmark,tool,mode,reason" >"$results/failures.csv"
  for name in "${BENCHMARKS[@]}"; do
    echo "run.sh: $name" >&2
    local args=()
    mapfile -d '' args < <(umbra_failed_args "$dir" "$name")
    (cd "$dir" && "./bench-$name" --failures "$results/failures.csv" "${args[@]}") \
      >>"$results/results.csv" ||
      echo "$name,harness,all,\"exited with status $?\"" >>"$results/failures.csv"
    # The compile column: umbra on the benchmark's bitcode (both requests), clang on its source.
    local clang_s umbra_s
    clang-22 "${FLAGS[@]}" -emit-llvm -c "$here/src/$name.c" -o "$dir/$name.full.bc"
    clang_s=$(median_time 3 clang-22 -O2 -I "$here" -I "$root/runtime/include" -c \
      "$here/src/$name.c" -o "$dir/$name.clang.o")
    echo "$name,primal,compile,$clang_s,1" >>"$results/results.csv"
    if umbra_s=$(median_time 3 "$UMBRA" -O3 "$dir/$name.full.bc" -o "$dir/$name.umbra.o"); then
      awk -v n="$name" -v u="$umbra_s" -v c="$clang_s" \
        'BEGIN { printf "%s,umbra,compile,%s,%.4f\n", n, u, u / c }' >>"$results/results.csv"
    else
      echo "$name,umbra,compile,\"$(sed 's/"/""/g' "$dir/$name.umbra-failed")\"" \
        >>"$results/failures.csv"
    fi
  done
}

case ${1:-} in
check) check ;;
full) full ;;
build-one) # internal: build_all's parallel workers
  shift
  build_one "$@"
  ;;
*)
  echo "usage: $0 check|full" >&2
  exit 2
  ;;
esac
