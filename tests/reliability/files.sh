#!/bin/sh
# files.sh -- the trace file under stress: a full disk, a file size limit,
# a program that closes every descriptor and reuses the numbers, a symlink
# or another file planted at the output path, the umask.  The program
# always runs on unharmed.

. "$(dirname "$0")/rel.sh"
test_init reliability-files

# leaf_calls TRACE: the calls of leaf in TRACE, from the report (the
# Calls column: every time column before it is a number and a unit).
leaf_calls() {
	"$CTRACE_SYMBOLIZE" -f report "$1" 2>/dev/null |
		awk '$NF == "leaf" { print $(NF - 7) }'
}

# ENOSPC on a 1 MiB tmpfs (needs mount), else a file size limit
# (RLIMIT_FSIZE; posix_fallocate past it would raise SIGXFSZ): the program
# ends normally, one line says why events are lost, and the trace counts
# them.
case_full() {
	use_config "$1"
	build_c life "$RPROGS/life.c"
	mkdir mnt
	if [ "$2" = tmpfs ]; then
		mount -t tmpfs -o size=1m ctrace-test "$PWD/mnt" 2>/dev/null ||
			skip "cannot mount a tmpfs (not root?)"
		CTRACE_OUTPUT=mnt/trace.bin "$BIN/life" closefrom 2000000 \
			/dev/null >out 2>err
		status=$?
		cp mnt/trace.bin trace.bin
		umount "$PWD/mnt"
		reason='No space left on device'
	else
		(ulimit -f 1024 && CTRACE_OUTPUT=trace.bin "$BIN/life" \
			closefrom 2000000 /dev/null >out 2>err)
		status=$?
		reason='file size limit'
	fi
	cat err
	[ $status -eq 0 ] || fail "the program exited with $status"
	[ "$(wc -l <err)" -eq 1 ] || fail "expected one line on stderr"
	grep -q "^ctrace: .*trace.bin: cannot grow the trace ($reason); events that do not fit are counted as lost\$" err ||
		fail "not the expected message"
	"$CTRACE_SYMBOLIZE" -f report trace.bin >report 2>report.err
	[ $? -eq 0 ] || { cat report.err; fail "symbolizer failed"; }
	cat report.err
	lost=$(sed -n 's/.* \([0-9][0-9]*\) events were lost.*/\1/p' report.err)
	kept=$(leaf_calls trace.bin)
	echo "kept $kept, lost $lost"
	[ -n "$lost" ] && [ "$lost" -gt 0 ] || fail "no lost events counted"
	# 2000000 leaf calls, 2 events each, plus a few: all accounted for.
	[ $((kept * 2 + lost)) -ge 4000000 ] ||
		fail "kept $kept calls and lost $lost events: some vanished"
}

# The program closes every descriptor and opens a file of its own on the
# numbers; the trace keeps growing (opened again by name), the program's
# file is untouched.
case_closefrom() {
	use_config "$1"
	build_c life "$RPROGS/life.c"
	echo precious >victim
	run_traced trace.bin "$BIN/life" closefrom 1500000 "$PWD/victim"
	[ "$(cat victim)" = precious ] || fail "victim was written to"
	n=$(leaf_calls trace.bin)
	[ "$n" = 1500001 ] || fail "$n leaf calls in the trace, expected 1500001"
}

# A symlink planted at the output path is not followed; a file that is not
# a trace is not overwritten; the file is created 0600 (tests/security.sh
# has the rest).
case_planted() {
	use_config "$1"
	build_c fib "$PROGS/fib.c"
	echo precious >victim
	ln -s victim trace.bin
	CTRACE_OUTPUT=trace.bin "$BIN/fib" 3 >out 2>err ||
		fail "fib failed with a symlink planted"
	cat err
	grep -q 'trace.bin: is a symbolic link; not following it' err ||
		fail "no message about the symlink"
	[ "$(cat victim)" = precious ] || fail "the symlink was followed"
	rm trace.bin
	echo 'not a trace' >trace.bin
	CTRACE_OUTPUT=trace.bin "$BIN/fib" 3 >out 2>err ||
		fail "fib failed with a file planted"
	cat err
	[ "$(cat trace.bin)" = 'not a trace' ] || fail "the file was overwritten"
	grep -q 'not a ctrace trace; not overwriting it' err ||
		fail "no message about the planted file"
	rm trace.bin
	(umask 022 && CTRACE_OUTPUT=trace.bin "$BIN/fib" 3 >out) ||
		fail "fib failed"
	mode=$(stat -c %a trace.bin)
	[ "$mode" = 600 ] || fail "trace.bin has mode $mode, expected 600"
}

cfg=$(configs_pie | grep O2 | head -n 1)
run_case "enospc-$cfg" case_full "$cfg" tmpfs
run_case "fsize-$cfg" case_full "$cfg" rlimit
run_case "closefrom-$cfg" case_closefrom "$cfg"
for cfg in $(configs_pie | grep O0); do
	run_case "planted-$cfg" case_planted "$cfg"
done

test_finish
