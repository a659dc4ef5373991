#!/bin/sh
# table.sh -- puts the value fuzzer's coverage table (written by
# tests/values/values.sh, i.e. make check, to tests/values-coverage.md in
# the build tree) into doc/values.md, in place of the table that follows the
# line `<!-- coverage table: tests/values-coverage.md -->'.
#
# usage: tests/values/table.sh [TABLE [DOC]]
table=${1:-tests/values-coverage.md}
readme=${2:-$(dirname "$0")/../../doc/values.md}
[ -s "$table" ] || { echo "table.sh: $table: no table (run make check)" >&2; exit 1; }
python3 - "$table" "$readme" <<'PY'
import sys
table, readme = sys.argv[1], sys.argv[2]
mark = "<!-- coverage table: tests/values-coverage.md -->"
lines = open(readme).read().split("\n")
i = lines.index(mark)
j = i + 1
while j < len(lines) and lines[j].startswith("|"):
    j += 1
rows = open(table).read().rstrip("\n").split("\n")
lines[i + 1:j] = rows
open(readme, "w").write("\n".join(lines))
PY
