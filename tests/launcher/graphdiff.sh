#!/bin/sh
# graphdiff.sh -- ctrace graph FUNC --diff OTHER: two sessions written by
# mktrace with known times (graph-a.script the baseline: 0x2000 reached
# through 0x5000 and straight from 0x1000; graph-b.script: through 0x5000
# twice and slower, through 0x6000 instead of straight, 0x4000 no longer
# called) against a hand-checked graph; a real program given two inputs
# (graphprog.c: a new path to work() and a new callee), its calls checked
# with the times left out; the errors.

. "$(dirname "$0")/../lib.sh"
test_init launcher-graphdiff
HERE=$top_srcdir/tests/launcher
: "${MKTRACE:=$top_builddir/tests/mktrace}"
: "${CTRACE_LAUNCHER:=$top_builddir/ctrace}"
[ -x "$CTRACE_LAUNCHER" ] || skip_script "$CTRACE_LAUNCHER not built"

sessions() {
	"$MKTRACE" a.bin "$HERE/graph-a.script" &&
		"$MKTRACE" b.bin "$HERE/graph-b.script" || fail "mktrace failed"
}

case_sessions() {
	sessions
	"$CTRACE_LAUNCHER" graph 0x2000 --diff a.bin b.bin >out 2>err ||
		{ cat err; fail "graph --diff failed"; }
	compare "$HERE/expected/graphdiff.txt" out
	# the option anywhere, its value after =; trace.bin by default
	cp b.bin trace.bin
	"$CTRACE_LAUNCHER" graph --diff=a.bin 0x2000 >out2 2>err ||
		{ cat err; fail "graph --diff= failed"; }
	compare "$HERE/expected/graphdiff.txt" out2
}

# The graph without its times: the backtraces one a line, sorted (their
# order is by the change of time), the tree's lines from the change in %
# on, numbers as "%".
untimed() {
	awk '/^ backtrace/ { sub(/, time .*/, ""); sub(/#[0-9]*/, "#"); bt = $0; next }
	     bt != "" && /^   \[/ { bt = bt " " $2; next }
	     bt != "" { print bt; bt = ""; next }
	     /^=====* FUNCTION/ { tree = 1 }
	     tree && / : / { sub(/^.* us +/, ""); sub(/^[-+0-9.inf]*%/, "%") }
	     { print }' "$1" >untimed
	grep '^ backtrace' untimed | LC_ALL=C sort
	grep -v '^ backtrace' untimed
}

case_program() {
	use_config "$1"
	build_c graphprog "$HERE/graphprog.c"
	run_traced two.bin "$BIN/graphprog" 2
	run_traced five.bin "$BIN/graphprog" 5
	"$CTRACE_LAUNCHER" graph work --diff two.bin five.bin >out 2>err ||
		{ cat err; fail "graph --diff failed"; }
	untimed out >got
	cat >want <<'EOT'
 backtrace #: hit 0 -> 1 (+1) main other work
 backtrace #: hit 1 -> 1 (+0) main work
# Function Call Graph for 'work' (base -> new)
=============== BACKTRACE ===============
========== FUNCTION CALL GRAPH ==========
#   TOTAL base           new        change        %   (CALLS) FUNCTION
% : (1 -> 2) work
% :  +-(2 -> 7) leaf
new :  +-(0 -> 1) helper
new :    (0 -> 1) leaf
EOT
	compare want got
}

case_errors() {
	sessions
	"$CTRACE_LAUNCHER" graph --diff a.bin b.bin >out 2>err
	[ $? -eq 2 ] || fail "no function: not refused"
	grep -q 'graph --diff needs a function' err ||
		{ cat err; fail "no function: no reason"; }
	"$CTRACE_LAUNCHER" graph 0x2000 b.bin --diff >out 2>err
	[ $? -eq 2 ] || fail "--diff without a trace: not refused"
	"$CTRACE_LAUNCHER" graph 0x2000 --diff missing.bin b.bin >out 2>err
	[ $? -ne 0 ] || fail "a missing baseline: status 0"
	[ ! -s out ] || fail "a missing baseline: a graph"
	grep -q 'missing.bin' err || fail "a missing baseline: not said"
}

run_case sessions case_sessions
for cfg in $(configs_pie); do
	run_case "program-$cfg" case_program "$cfg"
done
run_case errors case_errors

test_finish
