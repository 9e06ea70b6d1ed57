#!/usr/bin/env bash
# The application benchmarks (bench/apps/*.c, bench/apps/*.cpp; what they share: app.h).
#
#   bench/apps/run.sh check   build every app small (-DSMALL) and run it once: its gradient
#                             checks against finite differences; fails if any check fails
#   bench/apps/run.sh full    build at the default size, run each under /usr/bin/time, print
#                             app, primal ms, gradient ms, ratio, tape MB, peak RSS MB, the
#                             system-time share of the timed gradient calls' CPU time (steady
#                             state, from the app) and of the whole run's (sys / (user + sys))
#   APPS_ONLY="name ..."      restricts either to some apps (file names without extension).
#   UMBRA=/path/to/umbra      the driver (default: target/release/umbra of this checkout).
#
# An app is built as a user would: clang(++)-22 -O3 -march=native -ffast-math -emit-llvm, then
# `umbra -O3 --tape-stats`, then linked (with the libraries its `// APP-LDFLAGS:` line names);
# the executables go to build/apps/{small,full}/NAME. BLAS runs on one thread
# (OPENBLAS_NUM_THREADS=1), so that timings compare the gradient with the primal alone.
# An app with OpenMP pragmas is also built with -fopenmp (NAME-omp) and run with
# OMP_NUM_THREADS=1 and 2 (rows NAME-omp1, NAME-omp2): its checks must pass, and check mode
# also compares its gradient's projections with the serial build's (to OMP_TOLERANCE, default
# 1e-4 relative: float reductions add in another order).
# Each prints `app NAME primal_s P grad_s G ratio R tape_bytes T` on stdout and its checks on
# stderr, and exits non-zero when a check fails.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$(dirname "$here")")
UMBRA=${UMBRA:-$root/target/release/umbra}
mode=${1:-check}
case $mode in
check) size=small defs=(-DSMALL) ;;
full) size=full defs=() ;;
*)
  echo "usage: $0 check|full" >&2
  exit 2
  ;;
esac
[ -x "$UMBRA" ] || {
  echo "run.sh: no umbra driver at $UMBRA (build it, or set UMBRA)" >&2
  exit 1
}
if [ "$mode" = full ] && [ ! -x /usr/bin/time ]; then
  echo "run.sh: full needs /usr/bin/time (Debian package 'time'; scripts/setup.sh installs it)" >&2
  exit 1
fi

out=$root/build/apps/$size
mkdir -p "$out"
INCLUDES=(-I "$here" -I "$root/runtime/include")

sources=()
for src in "$here"/*.c "$here"/*.cpp; do
  [ -e "$src" ] || continue
  name=$(basename "${src%.*}")
  if [ -n "${APPS_ONLY:-}" ] && [[ " $APPS_ONLY " != *" $name "* ]]; then continue; fi
  sources+=("$src")
done
[ ${#sources[@]} -gt 0 ] || {
  echo "run.sh: no apps to run" >&2
  exit 1
}

# build SRC [SUFFIX FLAGS...]: $out/NAME$SUFFIX, built with FLAGS at every step, or a
# message on stderr and status 1.
build() {
  local src=$1 suffix=${2:-} name cc flags libs
  shift 2 || shift $#
  name=$(basename "${src%.*}")$suffix
  case $src in
  *.cpp) cc=clang++-22 flags=(-std=c++17) ;;
  *) cc=clang-22 flags=() ;;
  esac
  read -r -a libs < <(sed -n 's|^// APP-LDFLAGS:||p' "$src" | head -n 1) || true
  "$cc" -O3 -march=native -ffast-math "${flags[@]}" "$@" "${defs[@]}" "${INCLUDES[@]}" \
    -c -emit-llvm "$src" -o "$out/$name.bc" &&
    "$UMBRA" -O3 --tape-stats "$out/$name.bc" -o "$out/$name.o" &&
    "$cc" "$@" "$out/$name.o" "${libs[@]}" -lm -o "$out/$name"
}
export OPENBLAS_NUM_THREADS=1

# same_projections SERIAL_ERR OMP_ERR: the `ad` values of the two runs' checks agree.
same_projections() {
  paste <(grep '^ok ' "$1" | sed 's/.*: ad \([^ ]*\) .*/\1/') \
    <(grep '^ok ' "$2" | sed 's/.*: ad \([^ ]*\) .*/\1/') |
    awk -v tol="${OMP_TOLERANCE:-1e-4}" '
      { n++; d = $1 - $2; if (d < 0) d = -d; s = ($1 < 0 ? -$1 : $1) + 1e-30
        if (d > tol * s) { bad++; printf "  serial %s, OpenMP %s\n", $1, $2 } }
      END { exit (n == 0 || bad > 0) }'
}

failed=()
rows=()
# Each app, then each app with OpenMP pragmas again as NAME-omp1 and NAME-omp2.
runs=()
for src in "${sources[@]}"; do
  runs+=("$src::")
  if grep -q '^#pragma omp' "$src"; then runs+=("$src:-omp:1" "$src:-omp:2"); fi
done
for run in "${runs[@]}"; do
  IFS=: read -r src suffix threads <<<"$run"
  if [ -n "$suffix" ]; then
    export OMP_NUM_THREADS=$threads
  else
    unset OMP_NUM_THREADS
  fi
  serial=$(basename "${src%.*}")
  exe=$serial$suffix # the executable
  name=$exe$threads  # the run (its outputs, its row)
  if [ "$threads" != 2 ]; then
    flags=()
    [ -z "$suffix" ] || flags=(-fopenmp)
    if ! build "$src" "$suffix" "${flags[@]}"; then
      echo "run.sh: $exe: build failed" >&2
      failed+=("$exe (build)")
      continue
    fi
  fi
  [ -x "$out/$exe" ] || continue
  if [ "$mode" = check ]; then
    if "$out/$exe" >"$out/$name.out" 2>"$out/$name.err"; then
      if [ -n "$suffix" ] && ! same_projections "$out/$serial.err" "$out/$name.err" >&2; then
        echo "FAIL $name: its gradient differs from the serial build's" >&2
        failed+=("$name")
        continue
      fi
      echo "ok   $name ($(grep -c '^ok ' "$out/$name.err") checks)"
    else
      echo "FAIL $name:" >&2
      grep -v '^ok ' "$out/$name.err" >&2 || true
      failed+=("$name")
    fi
    continue
  fi
  status=0
  /usr/bin/time -o "$out/$name.time" -f '%e %U %S %M' "$out/$exe" >"$out/$name.out" \
    2>"$out/$name.err" || status=$?
  if [ $status -ne 0 ]; then
    echo "FAIL $name (exit $status):" >&2
    grep -v '^ok ' "$out/$name.err" >&2 || true
    failed+=("$name")
  fi
  line=$(grep '^app ' "$out/$name.out" | tail -n 1 || true)
  [ -n "$line" ] || {
    failed+=("$name (no report)")
    continue
  }
  read -r _ user sys rss_kb < <(tail -n 1 "$out/$name.time")
  rows+=("$(awk -v l="$line" -v nm="$name" -v u="$user" -v s="$sys" -v m="$rss_kb" 'BEGIN {
    n = split(l, f, " ")
    for (i = 1; i < n; i += 2) v[f[i]] = f[i + 1]
    share = (u + s > 0) ? 100 * s / (u + s) : 0
    printf "%-12s %10.2f %10.2f %7.2f %9.1f %9.1f %8.1f%% %7.0f%%\n", nm, 1e3 * v["primal_s"],
      1e3 * v["grad_s"], v["ratio"], v["tape_bytes"] / 1e6, m * 1024 / 1e6,
      100 * v["grad_sys"], share }')")
done

if [ "$mode" = full ] && [ ${#rows[@]} -gt 0 ]; then
  printf "%-12s %10s %10s %7s %9s %9s %9s %8s\n" app "primal ms" "grad ms" ratio "tape MB" \
    "RSS MB" "grad sys" "run sys"
  printf "%s\n" "${rows[@]}"
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "run.sh: failed: ${failed[*]}" >&2
  exit 1
fi
