#!/usr/bin/env bash
# Regenerates the rule reference in docs/reference/rules.md (between the BEGIN RULES / END RULES
# markers) from `umbra rules --markdown`. driver/tests/rules_reference.rs fails when the two differ.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
UMBRA=${UMBRA_BIN:-$ROOT/target/release/umbra}
TABLE=$(mktemp)
trap 'rm -f "$TABLE"' EXIT
"$UMBRA" rules --markdown > "$TABLE"
python3 - "$ROOT/docs/reference/rules.md" "$TABLE" <<'PY'
import re, sys
page, table = sys.argv[1], open(sys.argv[2]).read()
text = open(page).read()
begin = text.index("<!-- BEGIN RULES")
begin = text.index("\n", begin) + 1
end = text.index("<!-- END RULES -->")
open(page, "w").write(text[:begin] + table + text[end:])
PY
