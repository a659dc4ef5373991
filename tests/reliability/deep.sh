#!/bin/sh
# deep.sh -- recursion 1,000,000 calls deep: recorded without a depth
# limit, symbolized in bounded time and memory (the symbolizer's stacks
# grow as needed).

. "$(dirname "$0")/rel.sh"
test_init reliability-deep

case_deep() {
	use_config "$1"
	build_c life "$RPROGS/life.c"
	run_traced trace.bin "$BIN/life" deep 1000000
	[ "$(cat trace.bin.out)" = 1000000 ] || fail "wrong result"
	# 30 s of CPU and 1 GiB are far more than needed (0.2 s, 60 MB).
	(ulimit -t 30 && ulimit -v 1048576 &&
		"$CTRACE_SYMBOLIZE" -f report trace.bin >report 2>err)
	status=$?
	cat err
	[ $status -eq 0 ] || fail "symbolizer exited with $status"
	n=$(awk '$NF == "recurse" { print $(NF - 7) }' report)
	[ "$n" = 1000001 ] || fail "$n calls of recurse, expected 1000001"
	# The tree's deepest line: 1000003 levels in (main, deep, the thread
	# function, then recurse), checked without printing 2 TB of indent.
	(ulimit -t 60 && ulimit -v 1048576 &&
		"$CTRACE_SYMBOLIZE" -f json trace.bin >json 2>err)
	status=$?
	[ $status -eq 0 ] || { cat err; fail "json: exit status $status"; }
	# (a million calls: grep in the C locale and no sort)
	max=$(LC_ALL=C grep -o '"depth": [0-9]*' json |
		awk '$2 > max { max = $2 } END { print max }')
	[ "$max" = 1000001 ] || fail "deepest call at $max, expected 1000001"
	rm -f json
}

# An optimized build where the configurations have one, else the first.
cfg=$(configs_pie | grep O2 | head -n 1)
cfg=${cfg:-$(configs | head -n 1)}
run_case "deep-$cfg" case_deep "$cfg"

test_finish
