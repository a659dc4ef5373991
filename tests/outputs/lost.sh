#!/bin/sh
# lost.sh -- every view says where events were lost: the tree in place
# and after the threads for those no thread's data places, the report's
# footer, the call graph's note, Chrome's instant events, a frame of the
# folded stacks and the flame graph.  A written trace (tests/mktrace) with
# exact expected views, and a real program that outgrows its file size
# limit, whose views must add up to the trace's count.

. "$(dirname "$0")/../lib.sh"
test_init outputs-lost
CHECK=$top_srcdir/tests/outputs/check.py
: "${MKTRACE:=$top_builddir/tests/mktrace}"

# Main (0x1000) calls 0x2000 and 0x3000, in which events are lost; some
# are lost in main and outside any call, and the header counts 23 more
# that no LOST record places (lost after the thread's data ends).
SCRIPT='header lost_events=40
meta
thread 1 100 main
events 1 tid=100
enter 0x1000 0x1
enter 0x2000 0x1010
lost 5 1
leave 0x2000 0x1010
enter 0x3000 0x1020
lost 7 4
leave 0x3000 0x1020
lost 3 1
leave 0x1000 0x1
lost 2 1
thread_end'

# view NAME ARGS...: the view into NAME; stderr must only count the loss.
view() {
	vw_out=$1
	shift
	"$CTRACE_SYMBOLIZE" --no-duration --thread-ids=serial "$@" lost.bin \
		>"$vw_out" 2>"$vw_out.err" || { cat "$vw_out.err"; fail "$*"; }
	echo "ctrace-symbolize: lost.bin: 40 events were lost (no space left on device, the trace reached its size limit)" |
		cmp -s - "$vw_out.err" || { cat "$vw_out.err"; fail "$*: stderr"; }
}

# same EXPECTED_TEXT FILE
same() {
	printf '%s\n' "$1" >"$2.expected"
	diff -u "$2.expected" "$2" || fail "$2 differs from the expected view"
}

case_written() {
	[ -x "$MKTRACE" ] || skip "$MKTRACE not built"
	printf '%s\n' "$SCRIPT" | "$MKTRACE" lost.bin || fail "mktrace failed"
	view tree
	same '# DURATION     TID     FUNCTION
           [     1] | 0x1000() {
           [     1] |   0x2000() {
           [     1] |     /* ctrace: 5 events lost (no space left on device) */
           [     1] |   } /* 0x2000 */
           [     1] |   0x3000() {
           [     1] |     /* ctrace: 7 events lost (the trace reached its size limit) */
           [     1] |   } /* 0x3000 */
           [     1] |   /* ctrace: 3 events lost (no space left on device) */
           [     1] | } /* 0x1000 */
           [     1] | /* ctrace: 2 events lost (no space left on device) */
# ctrace: 23 events lost after the data of their threads ends' tree
	awk -f "$top_srcdir/tests/tree-check.awk" tree || fail "tree malformed"
	view report -f report
	same '  Total time   Self time       Calls     Average         Min         Max  Function
  ==========  ==========  ==========  ==========  ==========  ==========  ========
    0.050 us    0.030 us           1    0.050 us    0.050 us    0.050 us  0x1000
    0.010 us    0.010 us           1    0.010 us    0.010 us    0.010 us  0x2000
    0.010 us    0.010 us           1    0.010 us    0.010 us    0.010 us  0x3000

# ctrace: 40 events lost (no space left on device, the trace reached its size limit):
#   in 0x3000: 7
#   in 0x2000: 5
#   in 0x1000: 3
#   outside any call: 2
#   after the data of their threads ends: 23' report
	view folded -f folded --weight=calls
	same '0x1000 1
0x1000;0x2000 1
0x1000;0x2000;[ctrace: events lost] 5
0x1000;0x3000 1
0x1000;0x3000;[ctrace: events lost] 7
0x1000;[ctrace: events lost] 3
[ctrace: events lost] 25' folded
	view graph.dot -f dot
	sed -n '/^  lost /,$p' graph.dot >graph.lost
	same '  lost [shape=note, style=filled, fillcolor="#dddddd", label="ctrace: 40 events lost (no space left on device, the trace reached its size limit):\l  in 0x3000: 7\l  in 0x2000: 5\l  in 0x1000: 3\l  outside any call: 2\l  after the data of their threads ends: 23\l"];
  n2 -> lost [style=dashed, label="5"];
  n3 -> lost [style=dashed, label="7"];
  n1 -> lost [style=dashed, label="3"];
}' graph.lost
	if [ -n "${DOT:-}" ]; then
		"$DOT" -Tsvg graph.dot >graph.svg || fail "dot cannot read it"
	fi
	view chrome.json -f chrome
	grep '"ph": "i"' chrome.json >chrome.lost
	same '{"ph": "i", "pid": 4242, "tid": 1, "ts": 0.020, "s": "t", "name": "ctrace: 5 events lost (no space left on device)"},
{"ph": "i", "pid": 4242, "tid": 1, "ts": 0.040, "s": "t", "name": "ctrace: 7 events lost (the trace reached its size limit)"},
{"ph": "i", "pid": 4242, "tid": 1, "ts": 0.050, "s": "t", "name": "ctrace: 3 events lost (no space left on device)"},
{"ph": "i", "pid": 4242, "tid": 1, "ts": 0.060, "s": "t", "name": "ctrace: 2 events lost (no space left on device)"},
{"ph": "i", "pid": 4242, "tid": 1, "ts": 0.060, "s": "p", "name": "ctrace: 23 events lost after the data of their threads ends"}' chrome.lost
	if [ -n "${PYTHON3:-}" ]; then
		"$PYTHON3" -S "$CHECK" chrome chrome.json || fail "chrome"
		view flame.svg -f flamegraph --weight=calls
		"$PYTHON3" -S "$CHECK" flamegraph flame.svg folded ||
			fail "the flame graph's boxes are not the folded stacks"
	fi
}

# Events lost in a call whose "lost" frame is the call path that fills
# the folded stacks' table of paths: main and 254 callees make 256 paths
# with the root, and the loss's is the one that grows the table.  The
# sanitized symbolizer reports a use of the table freed by that growth.
case_grown() {
	[ -x "$MKTRACE" ] || skip "$MKTRACE not built"
	san=$top_builddir/tests/ctrace-symbolize-san
	[ "$HAVE_SANITIZERS" = yes ] && [ -x "$san" ] ||
		skip "no sanitized symbolizer"
	{
		printf '%s\n' 'meta' 'thread 1 100 main' 'events 1 tid=100' \
			'enter 0x1000 0x1'
		i=1
		while [ $i -le 254 ]; do
			printf 'enter %d 0x1010\nleave %d 0x1010\n' \
				$((0x100000 + i * 16)) $((0x100000 + i * 16))
			i=$((i + 1))
		done
		printf '%s\n' 'lost 5 1' 'leave 0x1000 0x1' 'thread_end'
	} | "$MKTRACE" grown.bin || fail "mktrace failed"
	for f in folded flamegraph; do
		ASAN_OPTIONS=detect_leaks=0:exitcode=86 \
			"$san" -f $f --weight=calls -o grown.$f grown.bin \
			2>grown.$f.err || {
			sed -n '1,20p' grown.$f.err
			fail "-f $f: the sanitized symbolizer failed"
		}
	done
	grep -qx '0x1000;\[ctrace: events lost\] 5' grown.folded ||
		fail "the folded stacks lack the 5 events lost in main"
}

# sum_lost FILE SED_SCRIPT: the sum of the numbers the script prints.
sum_lost() {
	sed -n "$2" "$1" | awk '{ s += $1 } END { print s + 0 }'
}

# fib(25) writes about 1.5 MB of events into a file limited to 100 KiB: the
# trace stops growing, and most events are lost where no thread's data
# places them.  Each view must account for all of them.
case_real() {
	use_config "$1"
	build_c fib "$PROGS/fib.c"
	rm -f trace.bin
	(ulimit -f 200 && CTRACE_OUTPUT=trace.bin exec "$BIN/fib" 25) \
		>out 2>err
	status=$?
	cat out err
	[ $status -eq 0 ] || fail "fib exited with $status"
	[ "$(cat out)" = "fib(25) = 75025" ] || fail "wrong output"
	"$CTRACE_SYMBOLIZE" -f json trace.bin >json 2>/dev/null
	n=$(sed -n 's/^ "lost_events": \([0-9]*\)}$/\1/p' json)
	[ -n "$n" ] && [ "$n" -gt 1000 ] || fail "no losses to show ($n)"
	"$CTRACE_SYMBOLIZE" trace.bin >tree 2>/dev/null
	t=$(sum_lost tree 's/.*\/\* ctrace: \([0-9]*\) events lost (.*) \*\/$/\1/p; s/^# ctrace: \([0-9]*\) events lost after the data of their threads ends$/\1/p')
	[ "$t" = "$n" ] || fail "the tree shows $t lost events, the trace $n"
	"$CTRACE_SYMBOLIZE" -f report trace.bin >report 2>/dev/null
	grep -qx "# ctrace: $n events lost.*" report ||
		fail "the report's footer lacks $n lost events"
	"$CTRACE_SYMBOLIZE" -f folded trace.bin >folded 2>/dev/null
	t=$(sum_lost folded 's/^\(.*;\)\{0,1\}\[ctrace: events lost\] \([0-9]*\)$/\2/p')
	[ "$t" = "$n" ] || fail "the folded stacks show $t lost events, not $n"
	"$CTRACE_SYMBOLIZE" -f chrome trace.bin >chrome.json 2>/dev/null
	t=$(sum_lost chrome.json 's/.*"ph": "i".*"name": "ctrace: \([0-9]*\) events lost.*/\1/p')
	[ "$t" = "$n" ] || fail "Chrome shows $t lost events, not $n"
	"$CTRACE_SYMBOLIZE" -f dot trace.bin >graph.dot 2>/dev/null
	grep -q "label=\"ctrace: $n events lost" graph.dot ||
		fail "the call graph lacks $n lost events"
}

run_case written case_written
run_case grown case_grown
for cfg in $(configs | grep -e '-O2-pie$'); do
	run_case "real-$cfg" case_real "$cfg"
done
test_finish
