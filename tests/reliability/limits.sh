#!/bin/sh
# limits.sh -- the program under the limits of its process: a tiny file
# size limit, a small address space, mlockall() as a normal user, a FIFO
# as the capture plan, an IFUNC resolver that runs before the environment
# exists, resident memory over a long run and many threads, the disk used
# by processes that end by exec or _exit, and the recorder's stack use.
# Each time the program runs as it would without ctrace.

. "$(dirname "$0")/rel.sh"
test_init reliability-limits

# leaf_calls TRACE: the calls of leaf in TRACE, from the report.
leaf_calls() {
	"$CTRACE_SYMBOLIZE" -f report "$1" 2>/dev/null |
		awk '$NF == "leaf" { print $(NF - 7) }'
}

# leaf_and_lost TRACE: "LEAF-CALLS LOST-EVENTS" of TRACE, from one report
# (the symbolizer reads ten million events once): leaf_calls, and the
# events the symbolizer says were lost (0: none).
leaf_and_lost() {
	"$CTRACE_SYMBOLIZE" -f report "$1" >"$1.report" 2>"$1.report-err"
	la_lost=$(sed -n 's/.*: \([0-9][0-9]*\) events* w[ae][sr]e* lost.*/\1/p' \
		"$1.report-err" | grep .) || la_lost=0
	echo "$(awk '$NF == "leaf" { print $(NF - 7) }' "$1.report")" "$la_lost"
}

# A file size limit below the header's 4 KiB: posix_fallocate would raise
# SIGXFSZ.  The program runs on, one line says why nothing is recorded.
case_fsize() {
	use_config "$1"
	build_c limits "$RPROGS/limits.c"
	(ulimit -f 2 && CTRACE_OUTPUT=trace.bin "$BIN/limits" calls 10 \
		>out 2>err)
	status=$?
	cat out err
	[ $status -eq 0 ] || fail "the program exited with $status"
	[ "$(cat out)" = "done 10" ] || fail "wrong output"
	[ "$(wc -l <err)" -eq 1 ] || fail "expected one line on stderr"
	grep -q '^ctrace: .*trace.bin: the file size limit (ulimit -f) is below the trace.s header; tracing disabled$' err ||
		fail "not the expected message"
	[ ! -e trace.bin ] || fail "an empty trace.bin was left behind"
}

# An address space limit far below the old 1 GiB mapping: every event is
# recorded.
case_vmem() {
	use_config "$1"
	build_c limits "$RPROGS/limits.c"
	(ulimit -v 200000 && CTRACE_OUTPUT=trace.bin "$BIN/limits" calls \
		1000000 >out 2>err)
	status=$?
	cat out err
	[ $status -eq 0 ] || fail "the program exited with $status"
	[ ! -s err ] || fail "the recorder printed warnings"
	read -r n lost <<EOF
$(leaf_and_lost trace.bin)
EOF
	echo "leaf calls $n, lost $lost"
	[ "$n" = 1000000 ] && [ "$lost" = 0 ] ||
		fail "expected 1000000 leaf calls and no lost event"
}

# mlockall(MCL_CURRENT | MCL_FUTURE) without CAP_IPC_LOCK succeeds when
# the locked memory limit covers the program: it must with the recorder.
case_mlock() {
	use_config "$1"
	build_c limits "$RPROGS/limits.c"
	CTRACE=off "$BIN/limits" mlock 10 >base 2>&1 ||
		skip "mlockall fails even without tracing: $(cat base)"
	# Long enough that the trace has moved far from its start (whose
	# window the metadata's chunk must not keep mapped).
	CTRACE_OUTPUT=trace.bin "$BIN/limits" mlock 5000000 >out 2>err
	status=$?
	cat out err
	[ $status -eq 0 ] || fail "the program exited with $status"
	[ "$(cat out)" = "mlockall ok" ] || fail "mlockall failed"
	read -r n lost <<EOF
$(leaf_and_lost trace.bin)
EOF
	echo "leaf calls $n, lost $lost"
	[ $((n * 2 + lost)) -ge 20000000 ] || fail "events vanished"
}

# After mlockall(MCL_CURRENT | MCL_FUTURE) under the default 8 MiB limit,
# the program can lock as much more memory as without the recorder: the
# recorder's mappings give their locked memory back (it took 4.5 MiB, and
# the program could map no 1 MiB piece more where untraced it mapped 5).
# After 2 million calls: the recorder gives it back once every few MiB of
# trace.
case_mlock_room() {
	use_config "$1"
	build_c limits "$RPROGS/limits.c"
	(ulimit -l 8192 && CTRACE=off "$BIN/limits" mlock-room 2000000 \
		>base 2>&1) || skip "mlockall fails even without tracing: $(cat base)"
	(ulimit -l 8192 && CTRACE_OUTPUT=trace.bin "$BIN/limits" mlock-room \
		2000000 >out 2>err)
	status=$?
	cat base out err
	[ $status -eq 0 ] || fail "the program exited with $status"
	base=$(sed -n 's/^room //p' base)
	room=$(sed -n 's/^room //p' out)
	[ "$base" -ge 1 ] || skip "no room to compare untraced"
	[ "$room" -ge "$base" ] ||
		fail "traced, the program mapped $room locked MiB, untraced $base"
}

# Under ulimit -n 8 the program opens as many files as without the
# recorder (it opened one fewer: the trace's descriptor, which cannot be
# moved above the limit, is then held only while the trace grows), and
# the events after that are recorded.
case_nofile() {
	use_config "$1"
	build_c limits "$RPROGS/limits.c"
	# (redirected outside the subshell: dash saves a redirected fd at
	# 10 or above, which a limit of 8 refuses)
	(ulimit -n 8 && CTRACE=off exec "$BIN/limits" files 100000) >base 2>&1 ||
		fail "untraced run failed: $(cat base)"
	(ulimit -n 8 && CTRACE_OUTPUT=trace.bin exec "$BIN/limits" files \
		100000) >out 2>err
	status=$?
	cat base out err
	[ $status -eq 0 ] || fail "the program exited with $status"
	[ ! -s err ] || fail "the recorder printed warnings"
	[ "$(cat out)" = "$(cat base)" ] || fail "not as many files as untraced"
	[ "$(leaf_calls trace.bin)" = 200000 ] || fail "expected 200000 leaf calls"
}

# A FIFO given as the capture plan: refused at once, never opened for a
# blocking read.
case_fifo_plan() {
	use_config "$1"
	build_c limits "$RPROGS/limits.c"
	mkfifo plan.fifo
	CTRACE_ARGS=all CTRACE_PLAN=plan.fifo CTRACE_OUTPUT=trace.bin \
		timeout 20 "$BIN/limits" calls 10 >out 2>err
	status=$?
	cat out err
	[ $status -ne 124 ] || fail "the program blocked on the FIFO"
	[ $status -eq 0 ] || fail "the program exited with $status"
	[ "$(cat out)" = "done 10" ] || fail "wrong output"
	grep -q '^ctrace: CTRACE_PLAN=plan.fifo: not a regular file; capturing without a plan$' err ||
		fail "no message about the FIFO"
	[ "$(leaf_calls trace.bin)" = 10 ] || fail "expected 10 leaf calls"
}

# An instrumented IFUNC resolver runs before the C library has set up the
# environment: CTRACE=off and CTRACE_OUTPUT still hold, and its events
# are counted as lost.
case_ifunc() {
	use_config "$1"
	build_c ifunc "$RPROGS/ifunc.c"
	CTRACE=off "$BIN/ifunc" >out 2>err || fail "ifunc failed"
	cat out err
	[ "$(cat out)" = "ifunc 42" ] || fail "wrong output"
	[ ! -s err ] || fail "messages with CTRACE=off"
	[ ! -e trace.bin ] || fail "CTRACE=off wrote trace.bin"
	CTRACE_OUTPUT=mine.bin "$BIN/ifunc" >out 2>err || fail "ifunc failed"
	cat out err
	[ ! -e trace.bin ] || fail "CTRACE_OUTPUT was ignored"
	[ -f mine.bin ] || fail "no trace at CTRACE_OUTPUT"
	grep -q '^ctrace: [0-9]* events of IFUNC resolvers, which run before the environment is set up, were not recorded$' err ||
		fail "no message about the resolver's events"
	"$CTRACE_SYMBOLIZE" -f report mine.bin >report 2>report.err
	cat report.err
	grep -q 'events were lost (IFUNC resolvers ran before the environment was set up)' report.err ||
		fail "the lost events are not counted in the trace"
	grep -q ' main$' report || fail "main not recorded"
}

# Resident memory stays bounded by the chunks in use: a long run and many
# short threads, compared with the same run untraced (VmHWM); and the
# short threads take little disk.
case_rss() {
	use_config "$1"
	build_c limits "$RPROGS/limits.c"
	CTRACE=off "$BIN/limits" rss 5000000 2000 >base || fail "untraced run failed"
	run_traced trace.bin "$BIN/limits" rss 5000000 2000
	base=$(sed -n 's/^rss //p' base)
	traced=$(sed -n 's/^rss //p' trace.bin.out)
	size=$(($(stat -c %s trace.bin) / 1024))
	echo "peak RSS untraced $base KiB, traced $traced KiB, trace $size KiB"
	[ "$size" -gt 16384 ] || fail "the trace is too small to tell"
	[ $((traced - base)) -lt 4096 ] ||
		fail "tracing added $((traced - base)) KiB of resident memory"
	# On disk: the events (about 25 MB) and a page or so per short
	# thread, not a whole chunk per thread (2000 x 64 KiB).
	disk=$(du -k trace.bin | cut -f1)
	echo "trace on disk: $disk KiB"
	[ "$disk" -lt 65536 ] || fail "the trace takes $disk KiB on disk"
}

# exit() trims the file to its chunks while a thread still records: the
# chunks that thread claims afterwards are reserved anew, never written
# past the end of the file (SIGBUS).
case_exit_busy() {
	use_config "$1"
	build_c limits "$RPROGS/limits.c"
	for i in 1 2 3; do
		run_traced trace.bin "$BIN/limits" exit-busy 3000000
		"$CTRACE_SYMBOLIZE" -f report trace.bin >report 2>report.err ||
			{ cat report.err; fail "the trace does not decode"; }
	done
}

# A process that ends by exec or _exit trims nothing: its file is only
# as large on disk as what it wrote.  And there is no limit on the
# numbered names a process that execs itself takes.
case_exec_disk() {
	use_config "$1"
	build_c limits "$RPROGS/limits.c"
	run_traced trace.bin "$BIN/limits" exec 5
	ls -ls trace.bin*
	[ "$(ls trace.bin* | grep -c -v '\.\(out\|err\)$')" -eq 6 ] ||
		fail "expected 6 traces"
	for f in $(ls trace.bin* | grep -v '\.\(out\|err\)$'); do
		kib=$(du -k "$f" | cut -f1)
		[ "$kib" -le 24 ] || fail "$f uses $kib KiB of disk"
		[ "$(leaf_calls "$f")" = 100 ] || fail "$f: expected 100 leaf calls"
	done
}

case_exec_names() {
	use_config "$1"
	build_c limits "$RPROGS/limits.c"
	CTRACE_CHUNK_SIZE=4k CTRACE_OUTPUT=trace.bin "$BIN/limits" exec 1005 \
		>out 2>err
	status=$?
	head -n 3 err
	[ $status -eq 0 ] || fail "the program exited with $status"
	[ ! -s err ] || fail "the recorder printed warnings"
	n=$(ls | grep -c '^trace\.bin')
	[ "$n" -eq 1006 ] || fail "$n traces, expected 1006"
}

# The recorder's own stack use: the deepest of a thread's first event
# (which claims chunks and registers the thread) and a function's first
# call in a chunk (which reads its CFI), in the default mode, with a
# filter, a depth limit and argument capture.  doc/security.md states the bounds.  LD_BIND_NOW: the loader's lazy
# binding of a C library function called for the first time on the
# thread is the loader's, whoever calls it.
# stack-dlopen: the same after a dlopen that the thread's next call finds
# (the scan of the loader's list and, with a filter, of the new object's
# symbols: they once kept 4 KiB path buffers on the stack).
case_stack() {
	use_config "$1"
	build_c limits "$RPROGS/limits.c"
	export LD_BIND_NOW=1
	how=${2:-stack}
	CTRACE=off "$BIN/limits" "$how" 100 >base ||
		fail "untraced run failed"
	base=$(sed -n 's/^stack //p' base)
	modes='plain:768 filter:896 depth:896 args:960'
	# After a dlopen, a filter's table is rebuilt from the new object's
	# symbols on the thread that noticed it (dl_iterate_phdr, the ELF
	# symbols, the demangler; with a capture list too): doc/security.md
	# states the bounds.
	[ "$how" = stack ] || modes='plain:768 filter:1344 depth:896 args:1472'
	for mode in $modes; do
		bound=${mode#*:}
		mode=${mode%:*}
		unset CTRACE_FILTER CTRACE_DEPTH CTRACE_ARGS
		case $mode in
		filter) export CTRACE_FILTER='!leaf' ;;
		depth) export CTRACE_DEPTH=2 ;;
		args) export CTRACE_ARGS=all ;;
		esac
		run_traced trace.bin "$BIN/limits" "$how" 100
		traced=$(sed -n 's/^stack //p' trace.bin.out)
		echo "$mode: stack used untraced $base bytes, traced $traced bytes"
		[ $((traced - base)) -le $bound ] ||
			fail "$mode: the recorder used $((traced - base)) bytes of stack, more than $bound"
	done
}

for cfg in $(configs_pie); do
	run_case "fsize-$cfg" case_fsize "$cfg"
	run_case "vmem-$cfg" case_vmem "$cfg"
	run_case "mlock-$cfg" case_mlock "$cfg"
	run_case "mlock-room-$cfg" case_mlock_room "$cfg"
	run_case "nofile-$cfg" case_nofile "$cfg"
	run_case "fifo-plan-$cfg" case_fifo_plan "$cfg"
	run_case "stack-$cfg" case_stack "$cfg"
	run_case "stack-dlopen-$cfg" case_stack "$cfg" stack-dlopen
done
for cfg in $(configs); do
	run_case "ifunc-$cfg" case_ifunc "$cfg"
done
cfg=$(configs_pie | grep O2 | head -n 1)
[ -n "$cfg" ] || cfg=$(configs | head -n 1)
run_case "rss-$cfg" case_rss "$cfg"
run_case "exit-busy-$cfg" case_exit_busy "$cfg"
run_case "exec-disk-$cfg" case_exec_disk "$cfg"
run_case "exec-names-$cfg" case_exec_names "$cfg"

test_finish
