#!/usr/bin/env bash
# Differential testing of reverse mode on generated programs (scripts/gen-control-flow.py):
# every seed of both families is built with Umbra at -O0..-O3 (driver) and -O3 (plugin) and
# its gradient checked against finite differences (test/integration/exec-test.sh).
#
#   scripts/fuzz.sh [FIRST [LAST]]   seeds FIRST..LAST (default 1..50), two at a time
#
# Prints one line per failing seed, keeping its program and log under build/fuzz/, and exits
# non-zero if any failed. Needs the driver and the plugin (make plugin).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
first=${1:-1}
last=${2:-50}
out=$root/build/fuzz
mkdir -p "$out"

one() { # one FAMILY SEED
  local dir=$out/$1-$2 mode
  mkdir -p "$dir"
  python3 "$root/scripts/gen-control-flow.py" "$1" "$2" >"$dir/f.c"
  for mode in "driver 0" "driver 1" "driver 2" "driver 3" "plugin 3"; do
    # shellcheck disable=SC2086 # MODE OPT
    if ! bash "$root/test/integration/exec-test.sh" "$dir/f.c" $mode "$dir/tmp" >"$dir/log" 2>&1; then
      echo "fuzz: FAILED $1 seed $2 ($mode): see $dir"
      return 1
    fi
  done
  rm -rf "$dir"
}
export -f one
export root out

status=0
for family in loops exits; do
  seq "$first" "$last" | xargs -P 2 -I{} bash -c "one $family {}" || status=1
done
runs=$((2 * (last - first + 1)))
if [ $status = 0 ]; then
  echo "fuzz: $runs programs, all gradients match finite differences"
fi
exit $status
