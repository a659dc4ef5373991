#!/bin/sh
# pingpong.sh -- two coroutines (swapcontext), each SIZE calls deep, that
# switch to each other SIZE times: the tree and the Chrome output grow
# with the events, not with the events times the depth (a switch is one
# line or instant event, not a line or an E and a B per call left or
# reopened), and the report, the JSON and the Chrome output count each
# call once, as the program counted them.  Sizes only, no timing: the
# tree and the Chrome output of SIZE 400 are at most 2.5 times those of
# SIZE 200 (quadratic ones were 4 times),
# and at most 1400 bytes an event (each event a line or two, lines no
# longer than --max-depth's indentation allows).
# The replay's work too (pingpong-work), counted (CTRACE_REPLAY_WORK: the
# calls it pushed, closed, reopened or looked at, and those the
# summarizing formats moved one by one at a switch), not timed: at most a
# few calls touched an event (at most 8), whatever the depth and the
# switches, in every format (each told a switch in one call; the
# summarizing ones park a stack's calls by pointer); a switch used to copy
# and walk every call of the stack it left or went back to.  Doubling the
# depth and the switches at most 2.5 times the work (quadratic: 4 times).
# The same behind the filters (pingpong-filters), each kind.

. "$(dirname "$0")/rel.sh"
test_init reliability-pingpong

# calls_in_report REPORT NAME: the calls column of NAME's row.
calls_in_report() {
	awk -v name="$2" '$NF == name { print $(NF - 7) }' "$1"
}

case_pingpong() {
	use_config "$1"
	build_c pingpong "$RPROGS/pingpong.c"
	for size in 200 400; do
		run_traced "trace$size.bin" "$BIN/pingpong" "$size" "$size"
		printf 'descend %s\nping %s\n' $((2 * size)) $((2 * size)) >want
		compare want "trace$size.bin.out"
		symbolize_stable "tree$size" "trace$size.bin"
		symbolize "report$size" -f report "trace$size.bin"
		for fn in descend ping; do
			n=$(calls_in_report "report$size" $fn)
			[ "$n" = $((2 * size)) ] ||
				fail "report of $size: $n calls of $fn, the program made $((2 * size))"
		done
		symbolize "json$size" -f json "trace$size.bin"
		n=$(grep -c '"function": "descend"' "json$size")
		[ "$n" = $((2 * size)) ] ||
			fail "json of $size: $n calls of descend, the program made $((2 * size))"
		# the Chrome output begins each call once and ends what it
		# begins: a switch is an instant event, not an E and a B per
		# call left and reopened
		symbolize "chrome$size" -f chrome "trace$size.bin"
		n=$(grep -c '"ph": "B".*"name": "descend"' "chrome$size")
		[ "$n" = $((2 * size)) ] ||
			fail "chrome of $size: $n B events of descend, the program made $((2 * size)) calls"
		[ "$(grep -c '"ph": "B"' "chrome$size")" = \
		  "$(grep -c '"ph": "E"' "chrome$size")" ] ||
			fail "chrome of $size: B and E events do not pair"
		cbytes=$(wc -c <"chrome$size")
		eval "chrome$size=\$cbytes"
		# the program's events: an entry and an exit a call, main's too
		events=$((2 * (4 * size + 1)))
		bytes=$(wc -c <"tree$size")
		[ "$bytes" -le $((1400 * events)) ] ||
			fail "tree of $size: $bytes bytes for $events events"
		eval "bytes$size=\$bytes"
	done
	# shellcheck disable=SC2154
	[ $((bytes400 * 2)) -le $((bytes200 * 5)) ] ||
		fail "tree of 400: $bytes400 bytes, of 200: $bytes200 (not linear)"
	# shellcheck disable=SC2154
	[ $((chrome400 * 2)) -le $((chrome200 * 5)) ] ||
		fail "chrome of 400: $chrome400 bytes, of 200: $chrome200 (not linear)"
	# a small one too, every line checked
	run_traced small.bin "$BIN/pingpong" 20 5
	symbolize_stable small.tree small.bin
	check_tree small.tree >/dev/null
	grep -q '/\* ctrace: back to the stack of ping, 21 calls resumed \*/' \
		small.tree || fail "no resumption shown in small.tree"
	# and through a filter that holds entries back: a resumed call that
	# returns at once is no new call
	symbolize_stable hidden.tree -H descend small.bin
	check_tree hidden.tree >/dev/null
	grep -q '/\* ctrace: back to the stack of ping, 1 call resumed \*/' \
		hidden.tree || fail "no resumption shown in hidden.tree"
}

# replay_work FORMAT TRACE [OPTION...]: the calls the replay touched.
replay_work() {
	rw_f=$1 rw_t=$2
	shift 2
	CTRACE_REPLAY_WORK=1 "$CTRACE_SYMBOLIZE" -f "$rw_f" "$@" "$rw_t" \
		>/dev/null 2>work.err ||
		{ cat work.err; fail "ctrace-symbolize -f $rw_f $* $rw_t failed"; }
	sed -n 's/^ctrace-symbolize: replay work: \([0-9]*\) calls touched$/\1/p' \
		work.err
}

case_work() {
	use_config "$1"
	build_c pingpong "$RPROGS/pingpong.c"
	# every format checked, the failures told together
	bad=
	for f in tree json chrome report stats dot folded flamegraph graph \
	    graph-stats perfetto info; do
		for dn in 50x50 400x50 800x50 50x400 200x200 400x400; do
			d=${dn%x*} n=${dn#*x}
			[ -f "trace$dn.bin" ] ||
				run_traced "trace$dn.bin" "$BIN/pingpong" "$d" "$n"
			w=$(replay_work "$f" "trace$dn.bin")
			[ -n "$w" ] || fail "-f $f: no replay work counted"
			# an entry and an exit a call, main's too
			events=$((2 * (2 * d + 2 * n + 1)))
			[ "$w" -le $((8 * events)) ] ||
				bad="$bad
-f $f, depth $d, $n switches: $w calls touched for $events events"
			eval "w$dn=\$w"
		done
		# doubling the depth at 50 switches adds what the deeper
		# calls' events add, not twice the work
		# shellcheck disable=SC2154
		[ $((w800x50 - w400x50)) -le $((8 * 2 * 2 * 400)) ] ||
			bad="$bad
-f $f: $w400x50 calls touched at depth 400, $w800x50 at 800"
		# shellcheck disable=SC2154
		[ $((w400x400 * 2)) -le $((w200x200 * 5)) ] ||
			bad="$bad
-f $f: $w200x200 calls touched at 200x200, $w400x400 at 400x400 (not linear)"
	done
	[ -z "$bad" ] || fail "the work of a switch grows with the depth:$bad"
}

# The same behind each kind of filter (the filter parks a stack's calls
# with their verdicts): a filter that hides nothing, one that hides the
# coroutines' calls, some, their callees, all but some, by depth, by the
# time or the thread, and -T's actions, some of which change the
# verdicts of the calls after them; every format.  And those whose
# verdicts wait for a callee or the return (-C, -t, --where: a stack's
# calls held back, parked with what the output was given of them), with
# a format of each kind (a line, an instant event, counts, the events):
# a filter that shows some calls of the coroutines at each switch, one
# that shows none, one with -C's callers.  A switch used to close and
# reopen every call of both stacks in the filter, so the work grew as
# the switches times the depth.
case_filters() {
	use_config "$1"
	build_c pingpong "$RPROGS/pingpong.c"
	bad=
	for dn in 400x50 800x50 200x200 400x400; do
		d=${dn%x*} n=${dn#*x}
		run_traced "trace$dn.bin" "$BIN/pingpong" "$d" "$n"
	done
	all="tree json chrome report stats dot folded flamegraph graph \
graph-stats perfetto info"
	for filter in "-N nosuch" "-N descend" "-F descend" "-H ping" \
	    "-F main -H descend" "-D 100" "-T descend@depth=5" \
	    "-T ping@color=red" "-T descend@filter" "-T ping@trace_off" \
	    "-T descend@trace_on" "-T ping@trace_on -T descend@trace_off" \
	    "--time-range=~100s" "--time-range=100s~" \
	    "--thread-ids=serial --tid=1" \
	    "-t 1us" "-C descend" "-C ping -t 1us" \
	    '--where=name=="descend"' '--where=name=="nosuch"' \
	    '-C main --where=!(name=="ping")'; do
		case $filter in
		-t\ *|-C\ *|*--where=*) formats="tree report perfetto info" ;;
		*) formats=$all ;;
		esac
		# shellcheck disable=SC2086
		for f in $formats; do
			for dn in 400x50 800x50 200x200 400x400; do
				d=${dn%x*} n=${dn#*x}
				w=$(replay_work "$f" "trace$dn.bin" $filter)
				[ -n "$w" ] ||
					fail "-f $f $filter: no replay work counted"
				events=$((2 * (2 * d + 2 * n + 1)))
				[ "$w" -le $((8 * events)) ] ||
					bad="$bad
-f $f $filter, depth $d, $n switches: $w calls touched for $events events"
				eval "w$dn=\$w"
			done
			# shellcheck disable=SC2154
			[ $((w800x50 - w400x50)) -le $((8 * 2 * 2 * 400)) ] ||
				bad="$bad
-f $f $filter: $w400x50 calls touched at depth 400, $w800x50 at 800"
			# shellcheck disable=SC2154
			[ $((w400x400 * 2)) -le $((w200x200 * 5)) ] ||
				bad="$bad
-f $f $filter: $w200x200 calls touched at 200x200, $w400x400 at 400x400 (not linear)"
		done
	done
	[ -z "$bad" ] || fail "the work of a switch behind a filter grows with the depth:$bad"
	# and what the filter shows is the program's calls, once each
	symbolize report.txt -f report -F descend trace200x200.bin
	n=$(calls_in_report report.txt descend)
	[ "$n" = 400 ] ||
		fail "-F descend: $n calls of descend in the report, the program made 400"
	symbolize chrome.json -f chrome -N nosuch trace200x200.bin
	n=$(grep -c '"ph": "B".*"name": "descend"' chrome.json)
	[ "$n" = 400 ] ||
		fail "-N nosuch: $n B events of descend, the program made 400 calls"
	# behind -C too, each reopened call held back with its stack
	symbolize report.txt -f report -C descend trace200x200.bin
	n=$(calls_in_report report.txt descend)
	[ "$n" = 400 ] ||
		fail "-C descend: $n calls of descend in the report, the program made 400"
}

# The Perfetto output read as Perfetto reads it (perfetto_check.py): each
# call one slice, as the JSON lists it once; a switch is an instant
# event, not an end and a begin per call left and reopened; behind a
# filter too.
case_perfetto() {
	use_config "$1"
	[ -n "$PYTHON3" ] || skip "python3 not found"
	command -v protoc >/dev/null 2>&1 ||
		skip "protoc not found (Debian: protobuf-compiler)"
	build_c pingpong "$RPROGS/pingpong.c"
	run_traced trace.bin "$BIN/pingpong" 30 8
	symbolize out.pftrace -f perfetto trace.bin
	symbolize out.json -f json trace.bin
	"$PYTHON3" -S "$top_srcdir/tests/outputs/perfetto_check.py" \
		"$top_srcdir/tests/outputs" out.pftrace out.json >check.out 2>&1 ||
		{ cat check.out; fail "Perfetto disagrees with JSON"; }
	cat check.out
	# behind a filter too, which tells the switches as they are
	symbolize outf.pftrace -f perfetto -F descend trace.bin
	symbolize outf.json -f json -F descend trace.bin
	"$PYTHON3" -S "$top_srcdir/tests/outputs/perfetto_check.py" \
		"$top_srcdir/tests/outputs" outf.pftrace outf.json \
		>check.out 2>&1 ||
		{ cat check.out; fail "-F descend: Perfetto disagrees with JSON"; }
	cat check.out
}

for cfg in $(configs_pie); do
	run_case "pingpong-$cfg" case_pingpong "$cfg"
	run_case "pingpong-work-$cfg" case_work "$cfg"
	run_case "pingpong-filters-$cfg" case_filters "$cfg"
	run_case "pingpong-perfetto-$cfg" case_perfetto "$cfg"
done

test_finish
