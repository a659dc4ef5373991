#!/bin/sh
# merge.sh -- a program that forks leaves one trace per process; given
# both files, or their directory, ctrace-symbolize shows both processes on
# one timeline, each named.

. "$(dirname "$0")/../lib.sh"
test_init outputs-merge
tests_srcdir=$top_srcdir/tests # lib.sh took this script's directory
OUTPUTS=$top_srcdir/tests/outputs

case_fork() {
	use_config "$1"
	need_python
	build_c fork "$PROGS/fork.c"
	mkdir traces
	run_traced traces/trace.bin "$BIN/fork"
	child=$(cat traces/trace.bin.out)
	parent=$(grep -o 'pid [0-9]*' traces/trace.bin.err || true)
	[ -f "traces/trace.bin.$child" ] || fail "no trace of the child"
	mv traces/trace.bin.out traces/trace.bin.err .

	# interleaved: one line per process up front, then PID/TID columns
	symbolize tree --no-duration traces/trace.bin "traces/trace.bin.$child"
	n=$(grep -c '^# traces/trace\.bin.*: pid [0-9]*' tree)
	[ "$n" -eq 2 ] || fail "$n process lines, expected 2"
	# nested under the two calls the child inherited from its parent
	grep -q "^ *\\[$child/$child\\] |     child_work() {\$" tree ||
		fail "no child_work() in process $child, two levels deep"
	grep -q '/[0-9]*\] | main() {$' tree || fail "no main()"
	# the child's calls come in the parent's start_child, which made
	# it, before parent_work
	order=$(grep -n -e 'start_child() {' -e 'child_work() {' \
		-e 'parent_work() {' tree | cut -d: -f1 | tr '\n' ' ')
	set -- $order
	[ "$#" -eq 3 ] && [ "$1" -lt "$2" ] && [ "$2" -lt "$3" ] ||
		fail "not nested in start_child: lines $order"

	# a directory stands for its traces; other files are left alone
	echo 'not a trace' >traces/notes.txt
	symbolize dir --no-duration traces
	compare tree dir

	symbolize chrome.json --format=chrome traces
	"$PYTHON3" -S "$OUTPUTS/check.py" chrome chrome.json ||
		fail "bad Chrome trace"
	n=$(grep -c '"name": "process_name"' chrome.json)
	[ "$n" -eq 2 ] || fail "$n process names, expected 2"
	# one flow arrow, from the parent's thread to the child's
	grep -q "^{\"ph\": \"s\", \"pid\": [0-9]*, .*\"id\": $child}" chrome.json ||
		fail "no flow arrow from the parent"
	grep -q "^{\"ph\": \"f\", \"pid\": $child, \"tid\": $child, .*\"id\": $child}" \
		chrome.json || fail "no flow arrow to the child"
	symbolize json.json --format=json traces
	"$PYTHON3" -S "$OUTPUTS/check.py" json json.json || fail "bad JSON"
	"$PYTHON3" -S - json.json "$child" <<'PY' || fail "bad JSON header"
import json, sys
doc = json.load(open(sys.argv[1]))
procs = doc["header"]["processes"]
assert len(procs) == 2, procs
child = [p for p in procs if p["pid"] == int(sys.argv[2])]
assert child and child[0]["forked_from"]["pid"] == procs[0]["pid"], procs
by = child[0]["started_by"]
assert by["pid"] == procs[0]["pid"] and by["how"] == "fork", by
assert procs[0]["started_by"] is None, procs
assert {c["thread_id"] for c in doc["calls"]}
PY
	symbolize report --format=report --per-thread traces
	n=$(grep -c '^# thread [0-9]*/[0-9]*' report)
	[ "$n" -eq 2 ] || fail "$n thread tables, expected 2"
}

for cfg in $(configs_pie); do
	run_case "fork-$cfg" case_fork "$cfg"
done

test_finish
