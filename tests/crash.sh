#!/bin/sh
# crash.sh -- traces of programs that die: abort(), SIGSEGV, and SIGKILL
# at random moments.  Every completed event must be in the file, calls
# that never returned show as unfinished, and the symbolizer exits 0.

. "$(dirname "$0")/lib.sh"
test_init crash

# crash_case CONFIG HOW EXPECTED SIGNAL
crash_case() {
	use_config "$1"
	build_c crash "$PROGS/crash.c"
	EXPECT_STATUS=$((128 + $4))
	run_traced trace.bin "$BIN/crash" "$2"
	symbolize_stable tree trace.bin
	compare "$(expected "$3")" tree
	check_tree tree
}

# Kill a program in the middle of its calls, many times over: each trace
# decodes without error into a well-formed tree that ends inside main.
case_kill() {
	use_config "$1"
	build_c crash "$PROGS/crash.c"
	i=1
	while [ $i -le "$3" ]; do
		delay=$(random_between 10 150)
		rm -f "trace.$i"
		CTRACE_OUTPUT=trace.$i "$BIN/crash" "$2" &
		pid=$!
		sleep "$(awk -v ms="$delay" 'BEGIN { printf "%.3f", ms / 1000 }')"
		kill -KILL $pid
		wait $pid 2>/dev/null
		[ -f "trace.$i" ] || fail "run $i: no trace after ${delay} ms"
		"$CTRACE_SYMBOLIZE" $STABLE_OPTS "trace.$i" >"tree.$i" \
			2>"tree.$i.err"
		status=$?
		if [ $status -ne 0 ]; then
			cat "tree.$i.err"
			fail "run $i (killed after ${delay} ms): exit status $status"
		fi
		counts=$(check_tree "tree.$i") || { echo "$counts"; exit 1; }
		echo "run $i (killed after ${delay} ms): $counts"
		grep -q -F '| } /* main (unfinished) */' "tree.$i" ||
			fail "run $i: main is not unfinished"
		case $counts in
		*' unfinished 0 '*) fail "run $i: nothing unfinished" ;;
		esac
		rm -f "trace.$i" "tree.$i"
		i=$((i + 1))
	done
}

for cfg in $(configs_pie); do
	run_case "abort-$cfg" crash_case "$cfg" abort crash 6
	run_case "segv-$cfg" crash_case "$cfg" segv crash 11
	run_case "thread-abort-$cfg" crash_case "$cfg" thread-abort \
		crash-threads 6
done
# An optimized build where the configurations have one, else the first.
cfg=$(configs_pie | grep O2 | head -n 1)
cfg=${cfg:-$(configs | head -n 1)}
run_case "kill-$cfg" case_kill "$cfg" loop 20
run_case "kill-threads-$cfg" case_kill "$cfg" loop-threads 10

test_finish
