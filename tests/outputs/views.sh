#!/bin/sh
# views.sh -- the views that focus on one function: the graph format
# (ctrace graph FUNC), against hand-checked expected files
# (tests/outputs/expected/graph-*.txt) on filters.c, whose calls are
# known, and its times against the durations of the JSON output.

. "$(dirname "$0")/../lib.sh"
test_init outputs-views
tests_srcdir=$top_srcdir/tests # lib.sh took this script's directory
OUTPUTS=$top_srcdir/tests/outputs
: "${CTRACE_LAUNCHER:=$top_builddir/ctrace}"

# graph_of FUNC OPTION...: the stable graph of FUNC is expected/graph-FUNC.txt
graph_of() {
	go_func=$1
	shift
	symbolize "graph-$go_func" --no-duration --format=graph \
		--function="$go_func" "$@" trace.bin
	compare "$OUTPUTS/expected/graph-$go_func.txt" "graph-$go_func"
}

# The backtraces and callees of filters.c's functions; each line's time is
# the sum of its calls' durations.
case_graph() {
	use_config "$1"
	need_python
	build_c filters "$OUTPUTS/filters.c"
	run_traced trace.bin "$BIN/filters"
	graph_of inner
	graph_of leaf
	graph_of main
	# the launcher: FUNC first, or after the options; a trace is a file
	"$CTRACE_LAUNCHER" graph --no-duration inner trace.bin >launcher 2>&1 ||
		fail "ctrace graph inner trace.bin failed"
	compare "$OUTPUTS/expected/graph-inner.txt" launcher
	"$CTRACE_LAUNCHER" graph leaf --no-duration >launcher 2>&1 ||
		fail "ctrace graph leaf failed"
	compare "$OUTPUTS/expected/graph-leaf.txt" launcher
	"$CTRACE_LAUNCHER" graph trace.bin >dot 2>&1 ||
		fail "ctrace graph trace.bin failed"
	[ "$(sed -n 1p dot)" = "digraph calls {" ] || fail "ctrace graph: no dot"
	# times: a backtrace's and a callee's are the sum of the durations
	symbolize json.json --format=json trace.bin
	symbolize timed --format=graph --function=middle trace.bin
	"$PYTHON3" -S - json.json timed <<'PY' || fail "graph times are wrong"
import json, sys
calls = json.load(open(sys.argv[1]))["calls"]
def total(name, caller=None):
    return sum(c["duration"] for c in calls if c["function"] == name)
def fmt(ns):  # outbuf_format_duration
    if ns < 1000000:
        return "%3d.%03d us" % (ns // 1000, ns % 1000)
    r = (ns + 500) // 1000
    return "%3d.%03d ms" % (r // 1000, r % 1000)
lines = open(sys.argv[2]).read().splitlines()
want = [" backtrace #0: hit 2, time " + fmt(total("middle")),
        fmt(total("middle")) + " : (2) middle",
        fmt(total("inner")) + " :  +-(2) inner"]
for w in want:
    if w not in lines:
        sys.exit("missing line: %r" % w)
PY
	# a function never called: said on stderr, the sections empty
	"$CTRACE_SYMBOLIZE" --format=graph --function=nosuch trace.bin \
		>none 2>none.err || fail "--function=nosuch failed"
	grep -q -x "ctrace-symbolize: graph: no call of 'nosuch' in the trace" \
		none.err || fail "no warning for a function never called"
}

for cfg in $(configs); do
	run_case "graph-$cfg" case_graph "$cfg"
done

test_finish
