#!/bin/sh
# kill.sh -- SIGKILL at random moments, many times: every trace decodes
# without error, and holds every call that returned before the kill.  The
# program counts leaf()'s returns in a shared file after each one, so the
# count read after the kill is a lower bound of the calls in the trace,
# and one more may have returned before it was counted.  Each kill comes
# a random 5 to 120 ms after the first call was counted; the trace decodes
# into a well-formed tree that ends inside main.  (tests/crash.sh killed at
# a random time from the start, which a loaded machine could make come
# before the first call: its cases are these.)

. "$(dirname "$0")/rel.sh"
test_init reliability-kill

# counted: the count of leaf() returns the program wrote in ./count (0
# before it wrote one).
counted() {
	if [ -s count ]; then
		od -An -t d8 -N8 count | tr -d ' '
	else
		echo 0
	fi
}

case_kill() {
	use_config "$1"
	build_c life "$RPROGS/life.c"
	i=1
	while [ $i -le "$2" ]; do
		delay=$(random_between 5 120)
		rm -f trace count
		CTRACE_OUTPUT=trace CTRACE_CHUNK_SIZE=$3 "$BIN/life" \
			"${4:-count}" "$PWD/count" &
		pid=$!
		# The random moment counts from the first return of leaf(),
		# not from the start: on a loaded machine a time alone can
		# fire before the first instrumented call, when no trace
		# exists yet.
		waited=0
		while [ "$(counted)" -eq 0 ]; do
			kill -0 $pid 2>/dev/null ||
				fail "run $i: life count ended before its first call"
			waited=$((waited + 1))
			[ $waited -le 3000 ] ||
				fail "run $i: no call counted after 30 s"
			sleep 0.01
		done
		sleep "$(awk -v ms="$delay" 'BEGIN { printf "%.3f", ms / 1000 }')"
		kill -KILL $pid
		wait $pid 2>/dev/null
		[ -f trace ] || fail "run $i: no trace after ${delay} ms"
		counted=$(counted)
		"$CTRACE_SYMBOLIZE" -f report trace >report 2>report.err
		status=$?
		if [ $status -ne 0 ] || [ -s report.err ]; then
			cat report.err
			fail "run $i (killed after ${delay} ms): exit status $status"
		fi
		# a well-formed tree that ends inside main
		symbolize_stable tree trace
		counts=$(check_tree tree) || { echo "$counts"; exit 1; }
		grep -q -F '| } /* main (unfinished) */' tree ||
			fail "run $i: main is not unfinished"
		n=$(awk '$NF == "leaf" { print $(NF - 7) }' report)
		# the report also counts a leaf entered and not returned
		echo "run $i (${delay} ms): counted $counted, trace ${n:-0}"
		[ "${n:-0}" -ge "$counted" ] ||
			fail "run $i: $counted calls returned, the trace has ${n:-0}"
		# (the other threads' calls are not counted)
		[ "${4:-count}" != count ] || [ "${n:-0}" -le $((counted + 2)) ] ||
			fail "run $i: more calls in the trace than made"
		i=$((i + 1))
	done
}

cfg=$(configs_pie | grep O2 | head -n 1)
# make check-full kills more often than make check (each kill's trace
# takes seconds to decode).
run_case "kill-$cfg" case_kill "$cfg" "$(in_matrix 20 4)" 64k
run_case "kill-4k-chunks-$cfg" case_kill "$cfg" "$(in_matrix 10 2)" 4k
run_case "kill-threads-$cfg" case_kill "$cfg" "$(in_matrix 10 2)" 64k \
	count-threads

test_finish
