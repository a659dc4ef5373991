#!/bin/sh
# reportdiff.sh -- ctrace report --diff OTHER: two sessions written by
# mktrace with known times (diff-a.script the baseline, diff-b.script the
# new one: 0x2000 called twice and slower, 0x4000 new, 0x3000 moved to a
# second thread) against hand-checked tables; a real program recorded
# twice; the errors.

. "$(dirname "$0")/../lib.sh"
test_init launcher-reportdiff
HERE=$top_srcdir/tests/launcher
: "${MKTRACE:=$top_builddir/tests/mktrace}"
: "${CTRACE_LAUNCHER:=$top_builddir/ctrace}"
[ -x "$CTRACE_LAUNCHER" ] || skip_script "$CTRACE_LAUNCHER not built"

sessions() {
	"$MKTRACE" a.bin "$HERE/diff-a.script" &&
		"$MKTRACE" b.bin "$HERE/diff-b.script" || fail "mktrace failed"
}

case_tables() {
	sessions
	"$CTRACE_LAUNCHER" report --diff a.bin b.bin >total 2>err ||
		{ cat err; fail "report --diff failed"; }
	compare "$HERE/expected/diff-total.txt" total
	# the option anywhere, its value after = or in the next argument
	"$CTRACE_LAUNCHER" report --sort name b.bin --diff=a.bin >name 2>err ||
		{ cat err; fail "report --diff --sort name failed"; }
	compare "$HERE/expected/diff-name.txt" name
	# per call: 0x2000 twice at 0.2 us against once at 0.1 us
	"$CTRACE_LAUNCHER" report --diff a.bin --avg-total --avg-self b.bin \
		>avg 2>err || { cat err; fail "report --diff --avg-* failed"; }
	compare "$HERE/expected/diff-avg.txt" avg
	# filters apply to both sessions
	"$CTRACE_LAUNCHER" report --diff a.bin -F 0x2000 b.bin >f 2>err ||
		{ cat err; fail "report --diff -F failed"; }
	[ "$(grep -c ' 0x[0-9]*$' f)" -eq 1 ] && grep -q '+1  0x2000$' f ||
		{ cat f; fail "-F 0x2000: not 0x2000 alone"; }
}

case_program() {
	use_config "$1"
	build_c prog "$HERE/prog.c"
	run_traced one.bin "$BIN/prog" exit 0
	run_traced two.bin "$BIN/prog" exit 0
	CTRACE_SYMBOLIZE=$CTRACE_SYMBOLIZE \
		"$CTRACE_LAUNCHER" report --diff one.bin two.bin >diff 2>err ||
		{ cat err; fail "report --diff failed"; }
	"$CTRACE_SYMBOLIZE" -f stats one.bin >stats || fail "-f stats failed"
	# every function, the same calls in both runs: change +0
	n=$(grep -vc '^#' stats)
	[ "$(tail -n +3 diff | wc -l)" -eq "$n" ] ||
		{ cat diff stats; fail "not the $n functions"; }
	[ "$(tail -n +3 diff | awk '$(NF-1) != "+0"' | wc -l)" -eq 0 ] ||
		{ cat diff; fail "calls changed between two equal runs"; }
}

case_errors() {
	sessions
	"$CTRACE_LAUNCHER" report --diff a.bin --sort avg b.bin >out 2>err
	[ $? -eq 2 ] || fail "--sort avg: not refused"
	grep -q "sorts by total, self, calls or name, not 'avg'" err ||
		{ cat err; fail "--sort avg: no reason"; }
	"$CTRACE_LAUNCHER" report b.bin --diff >out 2>err
	[ $? -eq 2 ] || fail "--diff without a trace: not refused"
	"$CTRACE_LAUNCHER" report --diff missing.bin b.bin >out 2>err
	[ $? -ne 0 ] || fail "a missing baseline: status 0"
	[ ! -s out ] || fail "a missing baseline: a table"
	grep -q 'missing.bin' err || fail "a missing baseline: not said"
	# what would make ctrace-symbolize write elsewhere or another table
	# (it printed an empty table, status 0, or could not read its own)
	for opt in "-o stats.txt" --output=stats.txt -f --format=tree \
		--per-thread --per; do
		# shellcheck disable=SC2086 # -o FILE is two words
		"$CTRACE_LAUNCHER" report --diff a.bin $opt b.bin >out 2>err
		[ $? -eq 2 ] || fail "--diff $opt: not refused"
		grep -q "is not supported with it" err ||
			{ cat err; fail "--diff $opt: no reason"; }
		[ ! -s out ] && [ ! -e stats.txt ] ||
			fail "--diff $opt: wrote something"
	done
}

run_case tables case_tables
run_case program case_program "$(configs_pie | head -n 1)"
run_case errors case_errors

test_finish
