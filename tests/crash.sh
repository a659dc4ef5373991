#!/bin/sh
# crash.sh -- traces of programs that die: abort() and SIGSEGV (SIGKILL
# at random moments: tests/reliability/kill.sh).  Every completed event
# must be in the file, calls that never returned show as unfinished, and
# the symbolizer exits 0.

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

for cfg in $(configs_pie); do
	run_case "abort-$cfg" crash_case "$cfg" abort crash 6
	run_case "segv-$cfg" crash_case "$cfg" segv crash 11
	run_case "thread-abort-$cfg" crash_case "$cfg" thread-abort \
		crash-threads 6
done

test_finish
