#!/bin/sh
# attacks.sh -- programs that press on the recorder where it is weakest:
# the table of the trace's mapped windows growing under threads created
# and joined one at a time, signal handlers that jump out of the recorder
# while it gives a chunk back, bad pointers captured as strings, locked
# memory, a trace that cannot grow, fault signals asked for as the flush
# signal.  Each time the program runs as it would without ctrace.

. "$(dirname "$0")/rel.sh"
test_init reliability-attacks

# leaf_calls TRACE: the calls of leaf in TRACE, from the report.
leaf_calls() {
	"$CTRACE_SYMBOLIZE" -f report "$1" 2>/dev/null |
		awk '$NF == "leaf" { print $(NF - 7) }'
}

# Threads created and joined one at a time: the table of mapped windows
# grows and moves while chunks are claimed.  With the recorder's switch
# that moves it at every addition, every addition is a growth point, at
# chunk sizes where a window holds one chunk (each metadata chunk adds
# its window's entry), a few and many; and once without the switch, as
# the program was found (4,000 threads).
case_regrow() {
	use_config "$1"
	build_c regrow "$RPROGS/regrow.c"
	# (the symbolizer's memory grows as threads x chunk size: few
	# threads with large chunks)
	for run in 4k:300 64k:300 2M:30 8M:10; do
		cs=${run%:*} n=${run#*:}
		CTRACE_CHUNK_SIZE=$cs run_traced trace.bin "$BIN/regrow" $n 50 move
		[ "$(cat trace.bin.out)" = "done $n" ] ||
			fail "chunk size $cs: $(cat trace.bin.out)"
		calls=$(leaf_calls trace.bin)
		echo "chunk size $cs, $n threads: $calls leaf calls"
		[ "$calls" = $((n * 50)) ] ||
			fail "chunk size $cs: expected $((n * 50)) leaf calls"
	done
	run_traced trace.bin "$BIN/regrow" 4000 10
	[ "$(cat trace.bin.out)" = "done 4000" ] || fail "$(cat trace.bin.out)"
}

# A signal at every place where the recorder unblocks signals, whose
# handler calls an instrumented function and jumps out (sigrelease.c):
# among them the end of the recovery after the previous round's jump,
# which gives the stream's chunk back.  The recovery that follows must
# find no chunk, never one no longer mapped (SIGSEGV).  Every call the
# program counts is in the trace.
case_sigrelease() {
	use_config "$1"
	build_c sigrelease "$RPROGS/sigrelease.c"
	for cs in 4k 64k; do
		CTRACE_CHUNK_SIZE=$cs run_traced trace.bin "$BIN/sigrelease" 2000 100
		cat trace.bin.out
		read -r rounds signals jumps calls <trace.bin.out
		# (a round whose calls fit in the chunk blocks nothing)
		[ "$signals" = "$jumps" ] && [ "$signals" -ge 1000 ] ||
			fail "chunk size $cs: expected a jump per signal, 1000 or more"
		n=$(leaf_calls trace.bin)
		echo "chunk size $cs: $n leaf calls recorded, $calls made"
		[ "$n" = "$calls" ] || fail "chunk size $cs: calls missing"
	done
}

# A string argument the program made PROT_NONE (read-only data, where
# the recorder used to read literals directly), with a capture plan: the
# program runs on, the value is shown unreadable, then its text.
case_badptr() {
	use_config "$1"
	build_c badptr "$RPROGS/badptr.c"
	"$CTRACE_SYMBOLIZE" --make-plan -o "$BIN/badptr.ctrace-plan" \
		"$BIN/badptr" || fail "--make-plan failed"
	CTRACE_ARGS=all run_traced trace.bin "$BIN/badptr"
	[ "$(cat trace.bin.out)" = ok ] || fail "wrong output"
	"$CTRACE_SYMBOLIZE" --no-duration trace.bin >tree 2>err ||
		{ cat err; fail "ctrace-symbolize failed"; }
	cat tree
	grep -q 'takes(s=0x[0-9a-f]* <unreadable>);' tree ||
		fail "the unreadable string is not shown so"
	grep -q 'takes(s="hello");' tree || fail "the string is not shown"
}

# Once the trace cannot grow (the file size limit, the address space
# limit), a lost event costs no system call: the recorder tries again at
# a stream's first lost event and every 1,024th after it (and not before
# 100 ms), where it made three system calls per lost event.  strace
# counts them, the shell's start included: fewer than one per 20 lost
# events.
case_stalled() {
	use_config "$1"
	command -v strace >/dev/null 2>&1 || skip "strace not found"
	build_c limits "$RPROGS/limits.c"
	for limit in "-f 64" "-v 6000"; do
		rm -f trace.bin
		CTRACE_OUTPUT=trace.bin strace -f -c -o calls sh -c \
			"ulimit $limit && exec '$BIN/limits' calls 50000" \
			>out 2>err
		status=$?
		cat out err
		[ $status -eq 0 ] || fail "ulimit $limit: exited with $status"
		[ "$(cat out)" = "done 50000" ] || fail "ulimit $limit: wrong output"
		n=$(awk '$NF == "total" { print $(NF - 2) }' calls)
		"$CTRACE_SYMBOLIZE" -f report trace.bin >report 2>report.err
		lost=$(sed -n 's/.*: \([0-9][0-9]*\) events* w[ae][sr]e* lost.*/\1/p' \
			report.err | head -n 1)
		echo "ulimit $limit: $n system calls, ${lost:-0} events lost"
		[ "${lost:-0}" -ge 50000 ] || fail "ulimit $limit: too few lost to tell"
		[ $((n * 20)) -lt "$lost" ] ||
			fail "ulimit $limit: $n system calls for $lost lost events"
	done
}

# CTRACE_SIGNAL naming a signal that reports a fault: a crashing program
# used to loop forever in the toggle's handler, its trace growing.  It is
# refused with one line, and the program dies of its fault.  (timeout
# only bounds the run that loops.)
case_fault_signal() {
	use_config "$1"
	build_c crash "$PROGS/crash.c"
	for sig in SEGV BUS FPE ILL TRAP SYS 11; do
		CTRACE_SIGNAL=$sig CTRACE_OUTPUT=trace.bin timeout 20 \
			"$BIN/crash" segv >out 2>err
		status=$?
		cat err
		[ $status -eq 139 ] || fail "$sig: exited with $status, not SIGSEGV"
		grep -q "^ctrace: CTRACE_SIGNAL=$sig: reports a fault (a crashing program would loop on it); ignored\$" err ||
			fail "$sig: no message"
	done
	"$top_builddir/ctrace" record --signal=SEGV -o trace.bin -- \
		"$BIN/crash" segv >out 2>err
	status=$?
	cat err
	[ $status -ne 0 ] && [ $status -ne 139 ] || fail "--signal=SEGV accepted"
	grep -q "invalid signal 'SEGV': it reports a fault" err ||
		fail "--signal=SEGV: no message"
}

# CTRACE_MATCH=regex with patterns whose compilation never ends (glibc
# copies a repeated group once per repetition) or too many of them (each
# is tried on every function): refused at once with one line, the
# program runs.  A costly pattern within the bounds still works.
# (timeout only bounds the start-up that hangs.)
case_regex_bounds() {
	use_config "$1"
	build_c limits "$RPROGS/limits.c"
	many=$(awk 'BEGIN { for (i = 0; i < 5000; i++) printf "%sf%d", i ? "," : "", i }')
	for f in '((((((((((a*)*)*)*)*)*)*)*)*)*){1,100}{1,100}x:a repetition count above 32' \
		'((((((((((a*)*)*)*)*)*)*)*)*)*){1,32}{1,32}x:a repetition count applied to a repetition count' \
		'(((a*){1,16})+){1,16}:a repetition count applied to a repetition count' \
		"$many:more than 256 patterns"; do
		pattern=${f%:*} msg=${f##*:}
		CTRACE_MATCH=regex CTRACE_FILTER=$pattern CTRACE_OUTPUT=trace.bin \
			timeout 60 "$BIN/limits" calls 10 >out 2>err
		status=$?
		head -c 300 err
		[ $status -eq 0 ] || fail "$msg: exited with $status"
		[ "$(cat out)" = "done 10" ] || fail "$msg: wrong output"
		grep -q "^ctrace: CTRACE_FILTER: $msg" err || fail "$msg: no message"
	done
	CTRACE_MATCH=regex CTRACE_FILTER='!^((((((((l*)*)*)*)*)*)*)*e){1,32}af$' \
		run_traced trace.bin "$BIN/limits" calls 10
	[ -z "$(leaf_calls trace.bin)" ] || fail "the filter did not apply"
}

# _Fork() in a signal handler that came while the recorder was busy (the
# signal comes where the recorder unblocks signals, as in sigrelease):
# each child, which records nothing, prints the one line that says so
# (only those whose handler found the recorder idle used to).
case_fork_notice() {
	use_config "$1"
	build_c sigrelease "$RPROGS/sigrelease.c"
	CTRACE_CHUNK_SIZE=4k CTRACE_OUTPUT=trace.bin \
		"$BIN/sigrelease" 1000 100 fork >out 2>err
	status=$?
	cat out
	head -n 3 err
	[ $status -eq 0 ] || fail "the program exited with $status"
	read -r rounds signals children <out
	[ "$children" -ge 50 ] || fail "only $children children"
	n=$(grep -c '^ctrace: a child process made without fork handlers (_Fork) is not traced$' err)
	echo "$children children, $n notices"
	[ "$n" = "$children" ] || fail "$n notices for $children children"
	[ "$(grep -c -v '^ctrace: a child process made without fork handlers' err)" = 0 ] ||
		fail "other messages"
}

for cfg in $(configs_pie); do
	run_case "regrow-$cfg" case_regrow "$cfg"
	run_case "sigrelease-$cfg" case_sigrelease "$cfg"
	run_case "badptr-$cfg" case_badptr "$cfg"
	run_case "stalled-$cfg" case_stalled "$cfg"
	run_case "fault-signal-$cfg" case_fault_signal "$cfg"
	run_case "regex-bounds-$cfg" case_regex_bounds "$cfg"
	run_case "fork-notice-$cfg" case_fork_notice "$cfg"
done

test_finish
