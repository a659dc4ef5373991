#!/bin/sh
# formats.sh -- every output format, checked by what reads it, and all of
# them agreeing on a program with known call counts: fib(20) calls fib
# 21891 times.
#
#   json, chrome   parsed by Python's json; Chrome events nest per thread
#   dot            rendered by Graphviz (dot -Tsvg) when it is installed
#   folded, flamegraph   the SVG's boxes have the folded stacks' weights
#   report         calls and totals against the tree's lines and durations

. "$(dirname "$0")/../lib.sh"
test_init outputs-formats
tests_srcdir=$top_srcdir/tests # lib.sh took this script's directory
OUTPUTS=$top_srcdir/tests/outputs
CHECK=$OUTPUTS/check.py

# calls_in FORMAT FILE NAME...: the calls of each NAME, on one line
calls_in() {
	"$PYTHON3" -S "$CHECK" calls "$@" || fail "cannot count calls in $2"
}

case_fib_counts() {
	use_config "$1"
	need_python
	build_c fib "$PROGS/fib.c"
	run_traced trace.bin "$BIN/fib" 20
	symbolize tree trace.bin
	n=$(calls_of tree fib)
	[ "$n" -eq 21891 ] || fail "tree: $n calls of fib, expected 21891"
	symbolize json.json --format=json trace.bin
	symbolize chrome.json --format=chrome trace.bin
	symbolize report --format=report trace.bin
	symbolize graph.dot --format=dot trace.bin
	symbolize calls.folded --format=folded --weight=calls trace.bin
	symbolize calls.svg --format=flamegraph --weight=calls trace.bin
	for f in json:json.json chrome:chrome.json report:report dot:graph.dot \
		folded:calls.folded flamegraph:calls.svg; do
		n=$(calls_in "${f%%:*}" "${f#*:}" fib main)
		[ "${n% *}" = 21891 ] ||
			fail "${f%%:*}: ${n% *} calls of fib, expected 21891"
		[ "${n#* }" = 1 ] ||
			fail "${f%%:*}: ${n#* } calls of main, expected 1"
	done
	# ctrace graph's output is what Graphviz reads
	if [ -n "${DOT:-}" ]; then
		"$DOT" -Tsvg graph.dot >graph.svg || fail "dot -Tsvg failed"
		"$PYTHON3" -S -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' \
			graph.svg || fail "Graphviz wrote no SVG"
	fi
}

case_structure() {
	use_config "$1"
	need_python
	build_c fib "$PROGS/fib.c"
	run_traced trace.bin "$BIN/fib" 12
	symbolize chrome.json --format=chrome trace.bin
	"$PYTHON3" -S "$CHECK" chrome chrome.json || fail "bad Chrome trace"
	symbolize json.json --format=json trace.bin
	"$PYTHON3" -S "$CHECK" json json.json || fail "bad JSON document"
	symbolize time.folded --format=folded trace.bin
	symbolize time.svg --format=flamegraph trace.bin
	"$PYTHON3" -S "$CHECK" flamegraph time.svg time.folded ||
		fail "the flame graph disagrees with the folded stacks"
	symbolize calls.folded --format=folded --weight=calls trace.bin
	symbolize calls.svg --format=flamegraph --weight=calls trace.bin
	"$PYTHON3" -S "$CHECK" flamegraph calls.svg calls.folded ||
		fail "the flame graph disagrees with the folded stacks"
	# fib(12): the paths main;fib;fib;... down to 12 deep, each with the
	# calls fib(k) makes at that depth
	grep -q -x 'main;fib 1' calls.folded || fail "no main;fib 1"
	n=$(grep -c '^main;fib' calls.folded)
	[ "$n" -eq 12 ] || fail "$n fib paths, expected 12"
	# a time-weighted stack's weight is its self time in ns
	symbolize report --format=report --per-thread trace.bin
	symbolize tree --per-thread trace.bin
	"$PYTHON3" -S "$CHECK" report-vs-tree report tree ||
		fail "the report disagrees with the tree"
	# an edge's time counts a recursion once, as the report's total does
	symbolize graph.dot --format=dot trace.bin
	"$PYTHON3" -S "$CHECK" dot-vs-tree graph.dot tree ||
		fail "the graph disagrees with the tree"
}

# Sort keys and the report's columns.
case_report_sort() {
	use_config "$1"
	need_python
	build_c filters "$OUTPUTS/filters.c"
	run_traced trace.bin "$BIN/filters"
	symbolize calls --format=report --sort=calls trace.bin
	first=$(sed -n 3p calls | awk '{print $NF}')
	[ "$first" = leaf ] || fail "sort=calls: $first first, expected leaf"
	symbolize names --format=report --sort=name trace.bin
	order=$(sed -n '3,$p' names | awk '{print $NF}' | tr '\n' ' ')
	[ "$order" = "inner leaf main middle noisy slow " ] ||
		fail "sort=name: $order"
	symbolize total --format=report trace.bin
	first=$(sed -n 3p total | awk '{print $NF}')
	[ "$first" = main ] || fail "sort=total: $first first, expected main"
	symbolize tree trace.bin
	"$PYTHON3" -S "$CHECK" report-vs-tree total tree ||
		fail "the report disagrees with the tree"
}

for cfg in $(configs); do
	run_case "fib-counts-$cfg" case_fib_counts "$cfg"
done
for cfg in $(configs_pie); do
	run_case "structure-$cfg" case_structure "$cfg"
	run_case "report-sort-$cfg" case_report_sort "$cfg"
done

test_finish
