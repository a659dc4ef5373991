#!/bin/sh
# diff.sh -- ctrace diff A B on tests/launcher/diverge.c recorded with its
# arguments and return values: two runs with the same input agree
# (although a pointer argument differs); with another input the first
# divergence is the fourth step with its arguments, under main, and the
# following one the fifth (expected/diff-*.txt); --ignore; calls.c made
# to call what its argument spells: calls left out, added and with other
# arguments, each divergence found where it is, and the number of calls
# that differ that of a longest common subsequence computed apart
# (diff-calls.txt; more than 1000 differing calls: the summary); the
# errors.

. "$(dirname "$0")/../lib.sh"
test_init launcher-diff
HERE=$top_srcdir/tests/launcher
: "${CTRACE_LAUNCHER:=$top_builddir/ctrace}"
[ -x "$CTRACE_LAUNCHER" ] || skip_script "$CTRACE_LAUNCHER not built"

# same_as EXPECTED OUT: main's line as "main" (its arguments are "?" as
# clang -O0 shows them); at -O0 all of it; else the divergence, its stack
# and the first call of A (the line number and what follows depend on
# what the compiler inlined and which values it kept: clang -O2 inlines
# atoi, whose call shows; gcc -O2 leaves check's x unknown, the same in
# both)
same_as() {
	case $cfg in
	*-O0-*)
		sed 's/^    main(.*) {$/    main/' "$1" >want
		sed 's/^    main(.*) {$/    main/' "$2" >got
		;;
	*)
		sed -e '1s/line [0-9]*/line N/' -e 's/^    main(.*) {$/    main/' \
			-e 3q "$1" >want
		sed -e '1s/line [0-9]*/line N/' -e 's/^    main(.*) {$/    main/' \
			-e 3q "$2" >got
		;;
	esac
	compare want got
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

# record_calls NAME LETTERS
record_calls() {
	CTRACE_ARGS=all run_traced "$1.bin" "$BIN/calls" "$2"
}

# The divergences with main's line as "main" (its arguments as -O2 shows
# them may differ).
calls_diff() {
	"$CTRACE_LAUNCHER" diff "$1.bin" "$2.bin" >out 2>err
	[ $? -eq "$3" ] || { cat out err; fail "diff $1 $2: status not $3"; }
	sed 's/^    main(.*) {$/    main/' out
}

case_calls() {
	use_config "$1"
	build_c calls "$HERE/calls.c"
	record_calls r1 abcdeabcde
	record_calls r2 bcdfeaBcdeg
	record_calls r3 abcdeabcde
	{
		calls_diff r1 r2 1
		calls_diff r2 r1 1
		calls_diff r1 r3 0
	} >got
	compare "$HERE/expected/diff-calls.txt" got
	# longer runs: the count is that of a longest common subsequence
	record_calls l1 "$(awk 'BEGIN { for (i = 0; i < 300; i++) printf "abcAd" }')"
	record_calls l2 "$(awk 'BEGIN { for (i = 0; i < 300; i++) printf (i % 7 ? "abcAd" : "bcaAde") }')"
	"$CTRACE_LAUNCHER" diff l1.bin l2.bin >out 2>err
	[ $? -eq 1 ] || { cat out err; fail "l1 l2: status not 1"; }
	need_python
	"$PYTHON3" -S - out <<'EOF' || fail "not a longest common subsequence"
import re, sys
a = 'abcAd' * 300
b = ''.join('abcAd' if i % 7 else 'bcaAde' for i in range(300))
prev = list(range(len(b) + 1))
# the edit distance with insertions and deletions only
for i in range(1, len(a) + 1):
    cur = [i] + [0] * len(b)
    for j in range(1, len(b) + 1):
        cur[j] = prev[j - 1] if a[i - 1] == b[j - 1] else \
            1 + min(prev[j], cur[j - 1])
    prev = cur
lcs = (len(a) + len(b) - prev[-1]) // 2
out = open(sys.argv[1]).read()
m = re.search(r'(\d+) divergences?: (\d+) calls? only in A, (\d+) only in B', out)
assert m, out[-300:]
assert (int(m.group(2)), int(m.group(3))) == (len(a) - lcs, len(b) - lcs), \
    (m.groups(), len(a) - lcs, len(b) - lcs)
more = re.search(r'\.\.\. and (\d+) more divergences', out)
shown = out.count(': divergence ') + 1
assert shown == min(int(m.group(1)), 50), (shown, m.group(1))
assert shown + (int(more.group(1)) if more else 0) == int(m.group(1)), \
    m.group(1)
EOF
	# more than 1000 differing calls: not aligned, summarized
	record_calls m1 "$(awk 'BEGIN { for (i = 0; i < 1200; i++) printf "a" }')"
	record_calls m2 "$(awk 'BEGIN { for (i = 0; i < 1200; i++) printf "b" }')"
	calls_diff m1 m2 1 >got
	compare "$HERE/expected/diff-many.txt" got
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
for cfg in $(configs_pie); do
	run_case "calls-$cfg" case_calls "$cfg"
done

run_case offsets case_offsets
run_case errors case_errors

test_finish
