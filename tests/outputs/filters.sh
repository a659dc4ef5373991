#!/bin/sh
# filters.sh -- -F, -N, -H, -C, -T, -D, -t, --match, --tid and --time-range against
# hand-written trees (tests/outputs/expected), the same filters in the
# other formats, and the filters' usage errors.

. "$(dirname "$0")/../lib.sh"
test_init outputs-filters
tests_srcdir=$top_srcdir/tests # lib.sh took this script's directory
OUTPUTS=$top_srcdir/tests/outputs

# filtered NAME OPTION...: the stable tree with OPTIONs is expected/NAME.
filtered() {
	fl_name=$1
	shift
	symbolize_stable "$fl_name" "$@" trace.bin
	compare "$OUTPUTS/expected/$fl_name.tree" "$fl_name"
}

# -t keeps the calls that lasted TIME or longer.  filters.c's calls last
# microseconds but slow's 3 ms; on a loaded machine one of them can be
# preempted past 1 ms, and the run is then not the one the expected
# output describes.  The trace's own durations say so (exit 0): the -t
# comparisons are then left out of that run, with a note.
preempted_past_1ms() {
	"$CTRACE_SYMBOLIZE" -f json trace.bin 2>/dev/null | "$PYTHON3" -S -c '
import json, sys
calls = json.load(sys.stdin)["calls"]
sys.exit(0 if any(c["function"] not in ("main", "slow") and
		  c.get("duration", 0) >= 1000000 for c in calls) else 1)
'
}

case_trees() {
	use_config "$1"
	build_c filters "$OUTPUTS/filters.c"
	run_traced trace.bin "$BIN/filters"
	filtered all
	filtered F-inner -F inner
	filtered N-inner -N inner
	filtered H-middle -H middle
	filtered D-2 -D 2
	filtered D-3-H-inner -D 3 -H inner
	if preempted_past_1ms; then
		echo "# t-1ms: a call was preempted past 1 ms; not compared"
	else
		filtered t-1ms -t 1ms
	fi
	filtered F-middle-N-leaf -F middle -N leaf
	filtered F-regex --match=regex -F '^(noisy|slow)$'
	filtered F-glob-D-1 -F 'mid*' -D 1
	# -C: the paths to the function and below it, no unrelated sibling
	filtered C-inner -C inner
	filtered C-noisy --caller-filter=noisy
	filtered C-leaf-N-slow-H-middle -C leaf -N slow -H middle
	# -T triggers: depth=N counts the function as its first level;
	# trace_off hides what is entered after it, trace_on shows it again
	# (and with one, a thread starts off); filter is -F
	filtered T-middle-depth-2 -T 'middle@depth=2'
	filtered T-noisy-off -T 'noisy@trace_off'
	filtered T-inner-off-slow-on -T 'inner@trace_off' -T 'slow@trace_on'
	filtered T-noisy-on-depth-1 -T 'noisy@trace_on,depth=1'
	symbolize_stable T-filter -T 'inner@filter' trace.bin
	compare "$OUTPUTS/expected/F-inner.tree" T-filter
	symbolize_stable C-none -C nosuch trace.bin
	[ "$(wc -l <C-none)" -eq 1 ] || fail "-C nosuch shows calls"
	# -N wins over -F; a regex matches anywhere in the name
	symbolize_stable none -F inner -N inner trace.bin
	[ "$(wc -l <none)" -eq 1 ] || fail "-F inner -N inner shows calls"
	symbolize_stable regex --match=regex -F nne trace.bin
	compare "$OUTPUTS/expected/F-inner.tree" regex
	# threads: the only thread is 1 (serial) or the program's pid
	symbolize_stable tid1 --tid=1 trace.bin
	compare "$OUTPUTS/expected/all.tree" tid1
	# a serial selects its thread whichever ids are shown
	symbolize tid1k --no-duration --per-thread --tid=1 trace.bin
	tree_text tid1k >tid1k.text
	tree_text "$OUTPUTS/expected/all.tree" >all.text
	compare all.text tid1k.text
	# an id that names no thread shows nothing, and says so
	"$CTRACE_SYMBOLIZE" $STABLE_OPTS --tid=2 trace.bin >tid2 2>tid2.err ||
		fail "--tid=2 exited with status $?"
	[ "$(wc -l <tid2)" -eq 1 ] || fail "--tid=2 shows calls"
	grep -q -x 'ctrace-symbolize: --tid: no thread or process 2 in the trace' \
		tid2.err || { cat tid2.err; fail "--tid=2: no warning"; }
	# the whole run is in the range; nothing starts after an hour
	symbolize_stable range --time-range=0~3600s trace.bin
	compare "$OUTPUTS/expected/all.tree" range
	symbolize_stable late --time-range=3600s~ trace.bin
	[ "$(wc -l <late)" -eq 1 ] || fail "--time-range=3600s~ shows calls"
}

# The filters apply to every format.
case_formats() {
	use_config "$1"
	need_python
	build_c filters "$OUTPUTS/filters.c"
	run_traced trace.bin "$BIN/filters"
	symbolize folded --format=folded --weight=calls -F inner trace.bin
	printf 'inner 2\ninner;leaf 4\n' >folded.expected
	compare folded.expected folded
	symbolize folded-h --format=folded --weight=calls -H middle -N noisy \
		-N slow trace.bin
	printf 'main 1\nmain;inner 2\nmain;inner;leaf 4\nmain;leaf 2\n' \
		>folded-h.expected
	compare folded-h.expected folded-h
	symbolize folded-c --format=folded --weight=calls -C 'no*' trace.bin
	printf 'main 1\nmain;noisy 1\nmain;noisy;leaf 1\n' >folded-c.expected
	compare folded-c.expected folded-c
	symbolize json-c.json --format=json -C noisy trace.bin
	n=$("$PYTHON3" -S "$OUTPUTS/check.py" calls json json-c.json main noisy leaf middle)
	[ "$n" = "1 1 1 0" ] || fail "json -C noisy: calls of main noisy leaf middle: $n"
	symbolize report --format=report -t 1ms trace.bin
	names=$(sed -n '3,$p' report | awk '{print $NF}' | sort | tr '\n' ' ')
	[ "$names" = "main slow " ] || preempted_past_1ms ||
		fail "report -t 1ms shows $names"
	symbolize chrome.json --format=chrome -D 1 trace.bin
	"$PYTHON3" -S "$OUTPUTS/check.py" chrome chrome.json || fail "bad Chrome trace"
	n=$("$PYTHON3" -S "$OUTPUTS/check.py" calls chrome chrome.json main)
	[ "$n" -eq 1 ] || fail "chrome -D 1: $n calls of main"
	n=$("$PYTHON3" -S "$OUTPUTS/check.py" calls chrome chrome.json middle)
	[ "$n" -eq 0 ] || fail "chrome -D 1: $n calls of middle"
	symbolize json.json --format=json -F slow trace.bin
	n=$("$PYTHON3" -S -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["calls"]))' json.json)
	[ "$n" -eq 2 ] || fail "json -F slow: $n calls, expected 2"
}

# usage_error OPTION...: exit status 2 and a message.
usage_error() {
	"$CTRACE_SYMBOLIZE" "$@" trace.bin >out 2>err
	st=$?
	[ "$st" -eq 2 ] || fail "$* exited with $st, expected 2"
	grep -q '^ctrace-symbolize: ' err || fail "$*: no message"
}

case_usage() {
	: >trace.bin
	usage_error -t 5
	usage_error -t 5parsecs
	usage_error -D x
	usage_error --match=fuzzy
	usage_error --match=regex -F '('
	usage_error --tid=abc
	usage_error --time-range=5ms
	usage_error --time-range=5ms~1ms
	usage_error --sort=size
	usage_error --weight=bytes
	usage_error --format=svg
	usage_error -T inner
	usage_error -T inner@
	usage_error -T @trace_on
	usage_error -T inner@depth=0
	usage_error -T inner@depth=x
	usage_error -T inner@color=red,bogus
}

for cfg in $(configs); do
	run_case "trees-$cfg" case_trees "$cfg"
done
for cfg in $(configs_pie); do
	run_case "formats-$cfg" case_formats "$cfg"
done
run_case usage case_usage

test_finish
