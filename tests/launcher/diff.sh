#!/bin/sh
# diff.sh -- ctrace diff A B on tests/launcher/diverge.c recorded with its
# arguments and return values: two runs with the same input agree
# (although a pointer argument differs); with another input the first
# divergence is the fourth step with its arguments, under main
# (expected/diff-*.txt); --ignore; the errors.

. "$(dirname "$0")/../lib.sh"
test_init launcher-diff
HERE=$top_srcdir/tests/launcher
: "${CTRACE_LAUNCHER:=$top_builddir/ctrace}"
[ -x "$CTRACE_LAUNCHER" ] || skip_script "$CTRACE_LAUNCHER not built"

# same_as EXPECTED OUT: at -O0 all of it; else the divergence, its stack
# and both lines (the line number and the summary depend on what the
# compiler inlined and which values it kept: clang -O2 inlines atoi,
# whose call shows; gcc -O2 leaves check's x unknown, the same in both)
same_as() {
	case $cfg in
	*-O0-*) compare "$1" "$2" ;;
	*)
		sed -e '1s/line [0-9]*/line N/' -e 4q "$1" >want
		sed -e '1s/line [0-9]*/line N/' -e 4q "$2" >got
		compare want got
		;;
	esac
}

# record NAME SEED
record() {
	CTRACE_ARGS=all CTRACE_RETVAL=all run_traced "$1.bin" "$BIN/diverge" "$2"
}

case_diverge() {
	use_config "$1"
	build_c diverge "$HERE/diverge.c"
	record d10 10
	record d10b 10
	record d11 11
	"$CTRACE_LAUNCHER" diff d10.bin d10b.bin >same 2>err
	[ $? -eq 0 ] || { cat same err; fail "equal runs differ"; }
	grep -q '^the runs agree' same || fail "equal runs: not said"
	"$CTRACE_LAUNCHER" diff d10.bin d11.bin >out 2>err
	[ $? -eq 1 ] || { cat out err; fail "different runs: status not 1"; }
	same_as "$HERE/expected/diff-10-11.txt" out
	"$CTRACE_LAUNCHER" diff --ignore check d10.bin d11.bin >out 2>err
	[ $? -eq 1 ] || { cat out err; fail "--ignore: status not 1"; }
	same_as "$HERE/expected/diff-ignore.txt" out
	# ignoring what differs leaves nothing
	"$CTRACE_LAUNCHER" diff --ignore=step d10.bin d11.bin >out 2>err
	[ $? -eq 0 ] || { cat out err; fail "--ignore=step: runs differ"; }
}

# Functions without a symbol are shown as module+offset, the same in
# every run: two runs calling different ones differ (their offsets were
# masked as pointer values, and the runs agreed).
case_offsets() {
	for f in 0x401000 0x402000; do
		printf '%s\n' 'meta' 'module /nonexistent/prog 0x400000 0x500000' \
			'events 1' "enter $f 0x401010" "leave $f 0x401010" |
			"$top_builddir/tests/mktrace" "$f.bin" ||
			fail "mktrace failed"
	done
	"$CTRACE_LAUNCHER" diff 0x401000.bin 0x402000.bin >out 2>err
	[ $? -eq 1 ] || { cat out err; fail "other functions: status not 1"; }
	grep -q 'A prog+0x401000()' out && grep -q 'B prog+0x402000()' out ||
		{ cat out; fail "other functions: not shown"; }
	"$CTRACE_LAUNCHER" diff 0x401000.bin 0x401000.bin >out 2>err
	[ $? -eq 0 ] || { cat out err; fail "the same run differs"; }
}

case_errors() {
	"$CTRACE_LAUNCHER" diff only.bin >out 2>err
	[ $? -eq 2 ] || fail "one trace: not refused"
	grep -q 'two traces' err || { cat err; fail "one trace: no reason"; }
	"$CTRACE_LAUNCHER" diff a.bin b.bin c.bin >out 2>err
	[ $? -eq 2 ] || fail "three traces: not refused"
	"$CTRACE_LAUNCHER" diff missing.bin missing.bin >out 2>err
	[ $? -eq 2 ] || fail "a missing trace: status not 2"
	grep -q 'missing.bin' err || { cat err; fail "a missing trace: not said"; }
	[ ! -s out ] || fail "a missing trace: output"
}

for cfg in $(configs_pie); do
	run_case "diverge-$cfg" case_diverge "$cfg"
done
run_case offsets case_offsets
run_case errors case_errors

test_finish
