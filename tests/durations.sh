#!/bin/sh
# durations.sh -- a call's duration is the program's own time: the
# recorder's slow path for a call's first event (a new function or a new
# call site: the pair defined, its frame size read from the CFI, its
# module checked, a chunk claimed, with values the CFI read for the
# capture) is never part of it, nor of its caller's.
#
# The design, for a test that neither timing nor load can make fail: the
# programs make each of the recorder's slow paths for a new pair or a new
# capture rule DELAY ns longer (100 us, busy: tests/progs/testdelay.h,
# lib/clock.c), and a first call must not be DELAY / 2 longer than the
# later ones.  Without the delay, a first call is 45 to 185 ns longer
# here (bench/firstcall measures it); with a slow path left in the
# call's time, it is at least DELAY longer, in every run.  The program's
# own time, printed, shows the delays ran.
# - tests/progs/firstcall.c calls 128 functions with one fixed body, each
#   first from one call site (the recorder meets a new function), then 8
#   more times from there, then 9 times from a second call site (the first
#   of those a new call site of a known function).  For each function:
#   its first call's duration minus the median of its later calls from
#   the same site; the median of that over the 128 functions must be
#   under DELAY / 2.  A preemption lengthens one call; it would have to
#   land in the first call of more than half the functions, and last 50
#   us each, to move the median.
# - gcc and clang, -O0 and -O2, without and with argument and return
#   value capture (without a plan: the CFI is read at run time).
# The delay is in the slow paths for a new pair (lib/emit.h, pair_miss:
# the frame size from the CFI, the module check) and for a new capture
# rule (lib/capture.c); a chunk claim's time is taken out by the same
# pause, but no delay shows it here.

. "$(dirname "$0")/lib.sh"
test_init durations

DELAY=100000

# first_minus_later JSON FUNCTIONS CALLS AWK-REGEX: the median over the
# functions the sed expression selects of (first call) - (median of the
# later ones), ns (tests/first-minus-later.awk).
first_minus_later() {
	sed -n "$4"' s/.*"function": "\([^"]*\)".*"timestamp": \([0-9]*\), "duration": \([0-9]*\).*/\1 \2 \3/p' "$1" |
		sort -k1,1 -k2,2n |
		awk -v functions="$2" -v calls="$3" \
			-f "$top_srcdir/tests/first-minus-later.awk"
}

# run_mode MODE PROGRAM: PROGRAM traced into trace.bin with the delay (its
# output in trace.bin.out), with its arguments and return values when
# MODE is "values" (without a plan: the CFI is read at run time).
run_mode() {
	if [ "$1" = values ]; then
		CTRACE_ARGS=all CTRACE_RETVAL=all CTRACE_PLAN= \
			run_traced trace.bin "$2" delay "$DELAY"
	else
		run_traced trace.bin "$2" delay "$DELAY"
	fi
}

# delays_ran N: the program's printed time holds at least N delays.
delays_ran() {
	elapsed=$(sed -n 's/^elapsed //p' trace.bin.out)
	[ -n "$elapsed" ] || { cat trace.bin.out; fail "no elapsed time printed"; }
	[ "$elapsed" -ge $(($1 * DELAY)) ] ||
		fail "the calls took $elapsed ns: fewer than $1 slow paths delayed"
}

# below_half NS WHAT: fails unless NS, a median of first calls minus
# later ones, is under DELAY / 2.
below_half() {
	[ "$1" -lt $((DELAY / 2)) ] ||
		fail "$2 is $1 ns longer than its later calls (a median): the recorder's slow path is in it"
}

case_first() {
	use_config "$1"
	build_c firstcall "$PROGS/firstcall.c"
	# the lines of the two call sites, in site_one and site_two
	one=$(grep -n 'sink += fns\[k\](r);' "$PROGS/firstcall.c" |
		sed -n '1s/:.*//p')
	two=$(grep -n 'sink += fns\[k\](r);' "$PROGS/firstcall.c" |
		sed -n '2s/:.*//p')
	run_mode "$2" "$BIN/firstcall"
	# 128 new functions and 128 new call sites
	delays_ran 256
	symbolize json -f json trace.bin
	grep -q '"function": "f127"' json ||
		fail "no call of f127 in the trace"
	new_fn=$(first_minus_later json 128 0 "/firstcall.c:$one\"/") ||
		{ echo "$new_fn"; fail "bad trace"; }
	new_site=$(first_minus_later json 128 0 "/firstcall.c:$two\"/") ||
		{ echo "$new_site"; fail "bad trace"; }
	echo "median first call minus later calls: new function" \
		"$new_fn ns, new call site $new_site ns; delay $DELAY ns"
	below_half "$new_fn" "a function's first call"
	below_half "$new_site" "a first call from a new call site"
	if [ "$2" = values ]; then
		grep -q '"function": "f100".*"retval": {"type": "int", "value"' json ||
			fail "no return value captured"
	fi
}

# The recorder's slow paths for a call's callees are not the caller's
# time either: tests/progs/firstcallee.c calls 64 callers 9 times each in
# turn, each caller calling 8 functions of its own, all first called in
# the caller's first call (8 new pairs, 8 delays).  The median over the
# callers of (first duration) minus (median of the later ones) must be
# under DELAY / 2.
case_callees() {
	use_config "$1"
	build_c firstcallee "$PROGS/firstcallee.c"
	run_mode "$2" "$BIN/firstcallee"
	delays_ran 512
	symbolize json -f json trace.bin
	d=$(first_minus_later json 64 9 '/"function": "c[0-7][0-7]"/') ||
		{ echo "$d"; fail "bad trace"; }
	echo "median first call minus later calls of a caller of 8 new" \
		"functions: $d ns; delay $DELAY ns"
	below_half "$d" "a caller's first call, whose 8 callees are first calls,"
}

# The replay takes PAUSE records out of a thread's later times, exactly:
# a synthetic trace (CLOCK_MONOTONIC ticks, ns) of a call A with a callee
# B whose ENTRY is followed by a pause of 1000 ns and that returns 1500
# ns later, then a callee C of 40 ns followed by a pause of 200 ns, then A
# returns 300 ns later: B 500 ns, C 40 ns, A 10 + 1500 + 5 + 40 + 300 -
# 1200 = 655 ns.  A second thread's call D of 1000 ns holds a signal
# handler's call E (its signal stream) followed by a pause of 300 ns: D
# 700 ns, E 50 ns.  In the tree, JSON, the report and the replay's -t.
case_pause_replay() {
	printf '%s\n' 'events 1 tid=100' 'enter 0x1000 0x1 @1000' \
		'enter 0x2000 0x1010 +10' 'ext 10 e807' \
		'leave 0x2000 0x1010 +1500' 'enter 0x3000 0x1020 +5' \
		'leave 0x3000 0x1020 +40' 'ext 10 c801' 'leave 0x1000 0x1 +300' \
		'events 2 tid=101' 'enter 0x4000 0x1 @3000' \
		'signal 2 tid=101' 'enter 0x5000 0x1 @3100' \
		'leave 0x5000 0x1 +50' 'ext 10 ac02' \
		'events 2 tid=101' 'leave 0x4000 0x1 @4000' |
		"$top_builddir/tests/mktrace" p.bin || fail "mktrace failed"
	symbolize json -f json p.bin
	sed -n 's/.*"function": "\([^"]*\)".*"duration": \([0-9]*\).*/\1 \2/p' json |
		sort >got
	printf '%s\n' '0x1000 655' '0x2000 500' '0x3000 40' '0x4000 700' \
		'0x5000 50' >want
	diff want got || fail "JSON: durations without the pauses expected"
	symbolize tree p.bin
	grep -q '^  0.655 us \[   100\] | } /\* 0x1000 \*/$' tree &&
		grep -q '^  0.500 us \[   100\] |   0x2000();$' tree &&
		grep -q '^  0.700 us \[   101\] | } /\* 0x4000 \*/$' tree ||
		{ cat tree; fail "tree: durations without the pauses expected"; }
	symbolize report -f report p.bin
	grep -q '^    0.655 us    0.115 us  *1 .* 0x1000$' report ||
		{ cat report; fail "report: 0x1000's total and self time"; }
	symbolize short -t 600ns p.bin
	! grep -q 0x2000 short && grep -q '0.655 us.*0x1000();' short ||
		{ cat short; fail "-t 600ns: 0x2000 (500 ns) shown"; }
}
run_case pause-replay case_pause_replay

for cfg in $(configs); do
	run_case "first-$cfg" case_first "$cfg" plain
	run_case "first-values-$cfg" case_first "$cfg" values
	run_case "callees-$cfg" case_callees "$cfg" plain
	run_case "callees-values-$cfg" case_callees "$cfg" values
done

test_finish
