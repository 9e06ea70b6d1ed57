#!/usr/bin/env bash
# The application benchmarks (bench/apps/*.c, bench/apps/*.cpp; what they share: app.h).
#
#   bench/apps/run.sh check   build every app small (-DSMALL) and run it once: its gradient
#                             checks against finite differences; fails if any check fails
#   bench/apps/run.sh full    build at the default size, run each under /usr/bin/time, print
#                             app, primal ms, gradient ms, ratio, tape MB, peak RSS MB and the
#                             system-time share of the run's CPU time (sys / (user + sys))
#   APPS_ONLY="name ..."      restricts either to some apps (file names without extension).
#   UMBRA=/path/to/umbra      the driver (default: target/release/umbra of this checkout).
#
# An app is built as a user would: clang(++)-22 -O3 -march=native -ffast-math -emit-llvm, then
# `umbra -O3 --tape-stats`, then linked; the executables go to build/apps/{small,full}/NAME.
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

# build SRC: $out/NAME, or a message on stderr and status 1.
build() {
  local src=$1 name cc flags
  name=$(basename "${src%.*}")
  case $src in
  *.cpp) cc=clang++-22 flags=(-std=c++17) ;;
  *) cc=clang-22 flags=() ;;
  esac
  "$cc" -O3 -march=native -ffast-math "${flags[@]}" "${defs[@]}" "${INCLUDES[@]}" \
    -c -emit-llvm "$src" -o "$out/$name.bc" &&
    "$UMBRA" -O3 --tape-stats "$out/$name.bc" -o "$out/$name.o" &&
    "$cc" "$out/$name.o" -lm -o "$out/$name"
}

failed=()
rows=()
for src in "${sources[@]}"; do
  name=$(basename "${src%.*}")
  if ! build "$src"; then
    echo "run.sh: $name: build failed" >&2
    failed+=("$name (build)")
    continue
  fi
  if [ "$mode" = check ]; then
    if "$out/$name" >"$out/$name.out" 2>"$out/$name.err"; then
      echo "ok   $name ($(grep -c '^ok ' "$out/$name.err") checks)"
    else
      echo "FAIL $name:" >&2
      grep -v '^ok ' "$out/$name.err" >&2 || true
      failed+=("$name")
    fi
    continue
  fi
  status=0
  /usr/bin/time -o "$out/$name.time" -f '%e %U %S %M' "$out/$name" >"$out/$name.out" \
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
  rows+=("$(awk -v l="$line" -v u="$user" -v s="$sys" -v m="$rss_kb" 'BEGIN {
    n = split(l, f, " ")
    for (i = 1; i < n; i += 2) v[f[i]] = f[i + 1]
    share = (u + s > 0) ? 100 * s / (u + s) : 0
    printf "%-10s %10.2f %10.2f %7.2f %9.1f %9.1f %7.0f%%\n", v["app"], 1e3 * v["primal_s"],
      1e3 * v["grad_s"], v["ratio"], v["tape_bytes"] / 1e6, m * 1024 / 1e6, share }')")
done

if [ "$mode" = full ] && [ ${#rows[@]} -gt 0 ]; then
  printf "%-10s %10s %10s %7s %9s %9s %8s\n" app "primal ms" "grad ms" ratio "tape MB" \
    "RSS MB" "sys"
  printf "%s\n" "${rows[@]}"
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "run.sh: failed: ${failed[*]}" >&2
  exit 1
fi
