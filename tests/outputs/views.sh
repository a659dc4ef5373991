#!/bin/sh
# views.sh -- the views that focus on one function: the graph format
# (ctrace graph FUNC), against hand-checked expected files
# (tests/outputs/expected/graph-*.txt) on filters.c, whose calls are
# known, and its times against the durations of the JSON output; the
# terminal colours (--color, -T FUNC@color=COLOR), escapes checked exactly.

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
	# a file that is no trace is a function: a program is often named so
	cp trace.bin copy
	cp "$BIN/filters" inner
	"$CTRACE_LAUNCHER" graph --no-duration inner copy >launcher 2>&1 ||
		fail "ctrace graph inner copy failed"
	compare "$OUTPUTS/expected/graph-inner.txt" launcher
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

# --color: the escapes exactly; -T FUNC@color=COLOR colours the name.
case_color() {
	use_config "$1"
	build_c filters "$OUTPUTS/filters.c"
	run_traced trace.bin "$BIN/filters"
	# shellcheck disable=SC2086
	symbolize colored $STABLE_OPTS --color=always -T 'noisy@color=red' \
		-T 'le*@color=green,depth=1' trace.bin
	compare "$OUTPUTS/expected/color-triggers.tree" colored
	# never, and auto into a file: no escape, the same tree as without
	for mode in never auto; do
		# shellcheck disable=SC2086
		symbolize plain-$mode $STABLE_OPTS --color=$mode \
			-T 'noisy@color=red' trace.bin
		compare "$OUTPUTS/expected/all.tree" plain-$mode
	done
	# slow() lasts 3 ms or more: its unit in yellow; a duration in us
	# is never coloured
	esc=$(printf '\033')
	symbolize timed --color=always --thread-ids=serial trace.bin
	grep -q -E "^ *[0-9]+\.[0-9]{3} ${esc}\[33mms${esc}\[0m \[     1\] \|   } /\* slow \*/\$" \
		timed || { cat -v timed; fail "slow's duration not in yellow"; }
	! grep -q "${esc}\[[0-9]*mus" timed || fail "a duration in us coloured"
	symbolize graph --color=always --format=graph --function=slow trace.bin
	grep -q -E "^ *[0-9]+\.[0-9]{3} ${esc}\[33mms${esc}\[0m : \(1\) slow\$" \
		graph || { cat -v graph; fail "graph: slow's time not in yellow"; }
	# auto on a terminal (script(1) gives one), unless TERM is dumb
	if command -v script >/dev/null 2>&1; then
		TERM=xterm script -qec "'$CTRACE_SYMBOLIZE' -T slow@color=red trace.bin" \
			/dev/null >tty </dev/null 2>&1 || fail "script failed"
		grep -q "${esc}\[91mslow${esc}\[0m() {" tty ||
			{ cat -v tty; fail "auto: no colour on a terminal"; }
		TERM=dumb script -qec "'$CTRACE_SYMBOLIZE' -T slow@color=red trace.bin" \
			/dev/null >dumb </dev/null 2>&1 || fail "script failed"
		! grep -q "${esc}\[" dumb || fail "auto: colours with TERM=dumb"
	fi
	"$CTRACE_SYMBOLIZE" --color=sometimes trace.bin >bad 2>&1 &&
		fail "--color=sometimes accepted"
	grep -q "unknown colour mode 'sometimes'" bad || fail "no message"
}

for cfg in $(configs); do
	run_case "graph-$cfg" case_graph "$cfg"
	run_case "color-$cfg" case_color "$cfg"
done

test_finish
