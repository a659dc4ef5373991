#!/bin/sh
# durations.sh -- a call's duration is the program's own time: the
# recorder's slow path for a call's first event (a new function or a new
# call site: the pair defined, its frame size read from the CFI, its
# module checked, a chunk claimed, with values the CFI read for the
# capture) is never part of it.
#
# The design, for a test that neither timing nor load can make fail:
# - tests/progs/firstcall.c calls 128 functions with one fixed body, each
#   first from one call site (the recorder meets a new function), then 8
#   more times from there, then 9 times from a second call site (the first
#   of those a new call site of a known function).  Its code is read as
#   data before, so that a first call finds it in the caches as later
#   ones do, and has no branch, which a first call would find new to
#   the branch predictors: what differs between a first call and the
#   others is the recorder's work alone (with hooks that only read the
#   TSC, 1 to 4 ns).
# - For each function: its first call's duration minus the median of its
#   later calls from the same site; then the median of that difference
#   over the 128 functions must be under 100 ns (before the fix: 1 to 7
#   us).  A preemption or an interrupt lengthens one call; it would have
#   to land in the first call of more than half the functions, each a
#   few tens of ns long, to move the median: load (make -j2 beside it)
#   does not.  The later calls' median is taken per function, so a
#   slower CPU or a slower clock shifts both sides alike.  The best of
#   five runs counts (case_first says why): a fault of the recorder's
#   shows in every run.
# - gcc and clang, -O0 and -O2, without and with argument and return
#   value capture (without a plan: the CFI is read at run time).

. "$(dirname "$0")/lib.sh"
test_init durations

# first_minus_later JSON SITE_LINE: the median over functions of (first
# call from the call site at SITE_LINE) - (median of the later ones), ns.
first_minus_later() {
	grep "\"call_site\": \"[^\"]*firstcall.c:$2\"" "$1" |
		sed -n 's/.*"function": "\(f[0-9]*\)".*"timestamp": \([0-9]*\), "duration": \([0-9]*\).*/\1 \2 \3/p' |
		sort -k1,1 -k2,2n |
		awk '
		function median(a, n,    i, j, t) {
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
					t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
				}
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		function flush() {
			if (fn == "")
				return
			if (n < 5) {
				print "too few calls of " fn ": " n
				bad = 1
			}
			delete later
			for (i = 2; i <= n; i++)
				later[i - 1] = d[i]
			diff[++nf] = d[1] - median(later, n - 1)
		}
		$1 != fn { flush(); fn = $1; n = 0 }
		{ d[++n] = $3 }
		END {
			flush()
			if (nf != 128 || bad) {
				print "expected 128 functions, found " nf
				exit 1
			}
			print int(median(diff, nf))
		}'
}

# run_mode MODE PROGRAM: PROGRAM traced into trace.bin, with its
# arguments and return values when MODE is "values" (without a plan: the
# CFI is read at run time).
run_mode() {
	if [ "$1" = values ]; then
		CTRACE_ARGS=all CTRACE_RETVAL=all CTRACE_PLAN= \
			run_traced trace.bin "$2"
	else
		run_traced trace.bin "$2"
	fi
}

case_first() {
	use_config "$1"
	build_c firstcall "$PROGS/firstcall.c"
	# the lines of the two call sites, in site_one and site_two
	one=$(grep -n 'sink += fns\[k\](r);' "$PROGS/firstcall.c" |
		sed -n '1s/:.*//p')
	two=$(grep -n 'sink += fns\[k\](r);' "$PROGS/firstcall.c" |
		sed -n '2s/:.*//p')
	# The goal's bound, 100 ns, with values too (250 before: 135 to 170
	# ns with gcc, of which 35 to 60 were the functions' loop, new to
	# the branch predictors at a first call; and the stores of the
	# values' slow path, which the pause now waits for: emit.h,
	# pause_put).  The best of five runs: on a virtual machine whose
	# clock reads take 10 ns, with values and no plan, 9 runs in 30 put
	# the median of the functions' first calls 105 to 185 ns above their
	# later ones (the others 45 to 97), with this recorder and the one
	# before alike (whose fault this test was made for cost 1 to 7 us,
	# in every run); three such runs in a row failed a CI run.
	bound=100
	for attempt in 1 2 3 4 5; do
		run_mode "$2" "$BIN/firstcall"
		symbolize json -f json trace.bin
		grep -q '"function": "f127"' json ||
			fail "no call of f127 in the trace"
		new_fn=$(first_minus_later json "$one") ||
			{ echo "$new_fn"; fail "bad trace"; }
		new_site=$(first_minus_later json "$two") ||
			{ echo "$new_site"; fail "bad trace"; }
		echo "median first call minus later calls: new function" \
			"$new_fn ns, new call site $new_site ns"
		[ "$new_fn" -lt "$bound" ] && [ "$new_site" -lt "$bound" ] &&
			break
	done
	[ "$new_fn" -lt "$bound" ] ||
		fail "a function's first call is $new_fn ns longer than its later calls (median of 128), bound $bound"
	[ "$new_site" -lt "$bound" ] ||
		fail "a first call from a new call site is $new_site ns longer than the later ones (median of 128), bound $bound"
	if [ "$2" = values ]; then
		grep -q '"function": "f100".*"retval": {"type": "int", "value"' json ||
			fail "no return value captured"
	fi
}

# caller_first_minus_later JSON: the median over the callers c00 to c77
# of (a caller's first duration) - (the median of its later ones), ns.
caller_first_minus_later() {
	sed -n 's/.*"function": "\(c[0-7][0-7]\)".*"timestamp": \([0-9]*\), "duration": \([0-9]*\).*/\1 \2 \3/p' "$1" |
		sort -k1,1 -k2,2n |
		awk '
		function median(a, n,    i, j, t) {
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
					t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
				}
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		function flush() {
			if (fn == "")
				return
			if (n != 9) {
				print "expected 9 calls of " fn ", found " n
				bad = 1
			}
			delete later
			for (i = 2; i <= n; i++)
				later[i - 1] = d[i]
			diff[++nf] = d[1] - median(later, n - 1)
		}
		$1 != fn { flush(); fn = $1; n = 0 }
		{ d[++n] = $3 }
		END {
			flush()
			if (nf != 64 || bad) {
				print "expected 64 callers, found " nf
				exit 1
			}
			print int(median(diff, nf))
		}'
}

# The recorder's slow paths for a call's callees are not the caller's
# time either: tests/progs/firstcallee.c calls 64 callers 9 times each in
# turn, each caller calling 8 functions of its own, all first called in
# the caller's first call (8 new pairs: a function's first call costs the
# recorder 0.5 to 1 us, and 175 to 370 ns of it fell in the caller's
# time).  The median over the callers of (first duration) minus (median
# of the later ones) must be under 100 ns per callee, 800 ns: 1.4 to 3.0
# us before the recorder's pauses were taken out, 0.18 to 0.57 us since
# (what is left: a first call runs its own code and the hooks' in caches
# the recorder's slow path used, which the first-* cases above bound per
# callee).  The same robustness as above: the median over 64 callers,
# each against its own later calls.
case_callees() {
	use_config "$1"
	build_c firstcallee "$PROGS/firstcallee.c"
	run_mode "$2" "$BIN/firstcallee"
	symbolize json -f json trace.bin
	d=$(caller_first_minus_later json) || { echo "$d"; fail "bad trace"; }
	echo "median first call minus later calls of a caller of 8 new" \
		"functions: $d ns"
	[ "$d" -lt 800 ] ||
		fail "a caller's first call, whose 8 callees are first calls, is $d ns longer than its later calls (median of 64), bound 800"
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
