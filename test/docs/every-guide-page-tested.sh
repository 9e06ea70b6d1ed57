#!/usr/bin/env bash
# every-guide-page-tested.sh GUIDE_DIR TEST_DIR - each page of GUIDE_DIR (but README.md) has a
# test TEST_DIR/guide-<page>.test that runs it; prints each page without one and fails.
set -euo pipefail
missing=0
for page in "$1"/*.md; do
  name=$(basename "$page" .md)
  [[ $name == README ]] && continue
  test_file=$2/guide-$name.test
  if ! grep -q "docs/guide/$name.md" "$test_file" 2>/dev/null; then
    echo "docs/guide/$name.md has no test $test_file that runs it"
    missing=1
  fi
done
exit $missing
