#!/bin/sh
# plan.sh -- the capture plans ctrace-symbolize --make-plan writes keep
# the grammar and limits of include/ctrace_plan.h, which the recorder
# reads them by: a line beyond a limit would be skipped by the recorder,
# so the writer must not write one.

. "$(dirname "$0")/../lib.sh"
test_init plan

# check_plan FILE: every line is one the recorder takes.
check_plan() {
	awk '
	function fail(why) { print FILENAME ":" NR ": " why ": " $0; bad = 1 }
	function within(v, lim) { return v >= -lim && v <= lim }
	NR == 1 { if ($0 != "ctrace-plan 1") fail("not a plan header"); next }
	$1 == "module" {
		if (NF < 2 || $2 !~ /^([0-9a-f][0-9a-f])+$/ ||
		    length($2) > 128)
			fail("bad build-id")
		next
	}
	$1 != "pc" { fail("unknown line"); next }
	{
		mem = 0; str = 0; cfa = 0
		for (i = 3; i <= NF; i++) {
			if ($i == "cfa") {
				cfa = 1
				if ($(i + 1) > 60 || !within($(i + 2), 1048576))
					fail("cfa beyond the limits")
				i += 2
			} else if ($i == "mem") {
				mem++
				if (!within($(i + 2), 65536) || $(i + 3) <= 0 ||
				    $(i + 3) > 4096)
					fail("mem beyond the limits")
				i += 3
			} else if ($i == "str") {
				str++
				if ($(i + 1) == "r") {
					if ($(i + 2) > 60)
						fail("str beyond the limits")
				} else if (!within($(i + 2), 65536)) {
					fail("str beyond the limits")
				}
				i += 2
			} else if ($i == "fde" || $i == "regs") {
				i++
			} else if ($i == "ret") {
				i += 2
			} else if ($i != "wide") {
				fail("unknown item " $i)
			}
		}
		if (!cfa) fail("no cfa")
		if (mem > 4 || str > 6) fail("too many items")
	}
	END { exit bad }' "$1"
}

case_limits() {
	use_config "$1"
	build_c prog "$top_srcdir/tests/args/bigframe.c"
	"$CTRACE_SYMBOLIZE" --make-plan -o prog.plan "$BIN/prog" ||
		fail "ctrace-symbolize --make-plan failed"
	grep -q '^pc ' prog.plan || fail "the plan has no call"
	check_plan prog.plan || fail "the plan breaks ctrace_plan.h"
	# The program's own call still gets its arguments' record.
	CTRACE_ARGS=all CTRACE_PLAN=prog.plan CTRACE_OUTPUT=trace.bin \
		"$BIN/prog" >out || fail "the program failed"
	symbolize_stable tree trace.bin
	grep -q 'big(' tree || fail "no call of big in the tree"
}

for cfg in $(configs_pie); do
	run_case "limits-$cfg" case_limits "$cfg"
done
test_finish
