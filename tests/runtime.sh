#!/bin/sh
# runtime.sh -- the recorder in the running program: errno, the CTRACE and
# CTRACE_OUTPUT settings, fork() (in a signal handler too) and _Fork(),
# another traced program started while
# the first one traces, and signal handlers.

. "$(dirname "$0")/lib.sh"
test_init runtime

case_errno() {
	use_config "$1"
	build_c errno "$PROGS/errno.c"
	# library calls on: errno.c checks them too
	CTRACE_LIBCALL=on run_traced trace.bin "$BIN/errno"
	symbolize_stable tree trace.bin
	check_tree tree
	n=$(calls_of tree nothing)
	[ "$n" -eq 300000 ] || fail "$n calls of nothing, expected 300000"
	# the library calls errno.c checks were recorded
	n=$(calls_of tree close)
	[ "$n" -eq 100001 ] || fail "$n calls of close, expected 100001"
}

# CTRACE=off: the program runs as usual and writes nothing.
case_off() {
	use_config "$1"
	build_c fib "$PROGS/fib.c"
	mkdir run && cd run || exit 1
	CTRACE=off "$BIN/fib" 5 >out || fail "fib failed with CTRACE=off"
	grep -q '^fib(5) = 5$' out || fail "wrong output"
	rm out
	CTRACE=off CTRACE_OUTPUT=../off.bin "$BIN/fib" 5 >/dev/null ||
		fail "fib failed with CTRACE=off and CTRACE_OUTPUT"
	[ -e ../off.bin ] && fail "CTRACE=off wrote ../off.bin"
	files=$(ls -A)
	[ -z "$files" ] || fail "CTRACE=off left files: $files"
}

# Every switch takes on/off, 1/0, yes/no, true/false in any case; any
# other value gets one warning naming the variable and the words, and the
# default.
case_switches() {
	use_config "$1"
	build_c fib "$PROGS/fib.c"
	for v in OFF Off no FALSE 0; do
		CTRACE=$v CTRACE_OUTPUT=off.bin "$BIN/fib" 5 >out 2>err ||
			fail "fib failed with CTRACE=$v"
		[ -e off.bin ] && fail "CTRACE=$v wrote a trace"
		[ -s err ] && { cat err; fail "CTRACE=$v: messages"; }
	done
	CTRACE=bogus run_traced_warning trace.bin \
		'ctrace: CTRACE=bogus: expected on or off (1/0, yes/no, true/false, any case); recording' \
		"$BIN/fib" 5
	symbolize_stable tree trace.bin
	compare "$(expected fib5)" tree
	CTRACE=ON run_traced trace.bin "$BIN/fib" 5
	symbolize_stable tree trace.bin
	compare "$(expected fib5)" tree
	# CTRACE_START=Off: nothing recorded; a bad value starts on
	CTRACE_START=Off run_traced trace.bin "$BIN/fib" 5
	"$CTRACE_SYMBOLIZE" $STABLE_OPTS trace.bin >tree 2>/dev/null
	[ "$(wc -l <tree)" -eq 1 ] || fail "CTRACE_START=Off recorded calls"
	CTRACE_START=bogus run_traced_warning trace.bin \
		'ctrace: CTRACE_START=bogus: expected on or off (1/0, yes/no, true/false, any case); starting on' \
		"$BIN/fib" 5
	symbolize_stable tree trace.bin
	compare "$(expected fib5)" tree
	# CTRACE_QUIET silences the warning; CTRACE_QUIET=no does not
	CTRACE_QUIET=1 CTRACE=bogus run_traced trace.bin "$BIN/fib" 5
	CTRACE_QUIET=No CTRACE=bogus run_traced_warning trace.bin \
		'ctrace: CTRACE=bogus: expected on or off (1/0, yes/no, true/false, any case); recording' \
		"$BIN/fib" 5
	# 0 is a valid minimum duration
	CTRACE_MIN_DURATION=0 run_traced trace.bin "$BIN/fib" 5
	symbolize_stable tree trace.bin
	compare "$(expected fib5)" tree
}

# run_traced_warning TRACE LINE PROGRAM ARGS...: as run_traced, but the
# recorder must print exactly LINE on stderr.
run_traced_warning() {
	rw_trace=$1
	rw_line=$2
	shift 2
	rm -f "$rw_trace"
	CTRACE_OUTPUT=$rw_trace "$@" >"$rw_trace.out" 2>"$rw_trace.err" ||
		fail "$* exited with status $?"
	printf '%s\n' "$rw_line" >"$rw_trace.err.expected"
	compare "$rw_trace.err.expected" "$rw_trace.err"
	[ -f "$rw_trace" ] || fail "$* wrote no trace $rw_trace"
}

# Without CTRACE_OUTPUT the trace is ./trace.bin.
case_default_output() {
	use_config "$1"
	build_c fib "$PROGS/fib.c"
	mkdir run && cd run || exit 1
	"$BIN/fib" 5 >out || fail "fib failed"
	[ -f trace.bin ] || fail "no trace.bin in the current directory"
	files=$(ls -A)
	[ "$(echo $files)" = "out trace.bin" ] || fail "unexpected files: $files"
	symbolize_stable tree trace.bin
	compare "$(expected fib5)" tree
}

# CTRACE_OUTPUT names the file, relative to the current directory.
case_output() {
	use_config "$1"
	build_c fib "$PROGS/fib.c"
	mkdir run run/sub && cd run || exit 1
	CTRACE_OUTPUT=sub/fib.trace "$BIN/fib" 5 >out || fail "fib failed"
	[ -f sub/fib.trace ] || fail "no sub/fib.trace"
	[ -e trace.bin ] && fail "trace.bin written despite CTRACE_OUTPUT"
	symbolize_stable tree sub/fib.trace
	compare "$(expected fib5)" tree
	# A later run (another CTRACE_RUN: this script's programs are all of
	# one process group) replaces the file of the first.
	CTRACE_RUN=later CTRACE_OUTPUT=sub/fib.trace "$BIN/fib" 3 >out ||
		fail "fib failed"
	symbolize_stable tree3 sub/fib.trace
	compare "$(expected fib3)" tree3
	files=$(ls -A sub)
	[ "$files" = fib.trace ] || fail "unexpected files in sub: $files"
}

# The file ends with the pages the program's last chunk used (a reader
# takes the last chunk cut short, and the file is no longer whole 64 KiB
# chunks): after 3000 calls, more than the chunk's first page.  Calls made
# after that, by a library's destructor that the loader runs once the
# recorder has finished the file, fit in those pages or extend the file
# again (20: either, as the cut falls; 20000: past the cut, SIGBUS if the
# recorder wrote there before, and into more chunks): all of them are in
# the trace, which decodes cleanly.
case_tail() {
	use_config "$1"
	build_shlib libafter.so "$PROGS/libafter.c"
	# the library's hooks resolve to the executable's: exported
	build_c afterexit "$PROGS/afterexit.c" -rdynamic -L"$BIN" -lafter \
		-Wl,-rpath,"$BIN"
	for late in 0 20 20000; do
		t=tail-$late.bin
		run_traced "$t" "$BIN/afterexit" 3000 "$late"
		symbolize_stable "$t.tree" "$t"
		check_tree "$t.tree"
		got=$(calls_of "$t.tree" step)
		[ "$got" -eq 3000 ] ||
			fail "$t: $got calls of step, expected 3000"
		got=$(calls_of "$t.tree" late_step)
		[ "$got" -eq "$late" ] ||
			fail "$t: $got calls of late_step, expected $late"
		size=$(wc -c <"$t")
		chunks=$(((size - 4096 + 65535) / 65536))
		case $late in
		0)
			[ $(((size - 4096) % 65536)) -ne 0 ] ||
				fail "$t: $size bytes: the last chunk not cut" ;;
		20000)
			[ "$chunks" -ge 3 ] ||
				fail "$t: $size bytes: the late calls took no chunk of their own" ;;
		esac
	done
}

# A trace that cannot be written must not break the program.
case_unwritable() {
	use_config "$1"
	build_c fib "$PROGS/fib.c"
	CTRACE_OUTPUT=no/such/dir/trace.bin "$BIN/fib" 5 >out 2>err
	status=$?
	cat err
	[ "$status" -eq 0 ] || fail "fib exited with $status"
	grep -q '^fib(5) = 5$' out || fail "wrong output"
}

# fork(): the child writes trace.bin.CHILDPID; neither file is clobbered.
case_fork() {
	use_config "$1"
	build_c fork "$PROGS/fork.c"
	run_traced trace.bin "$BIN/fork"
	child=$(cat trace.bin.out)
	[ -f "trace.bin.$child" ] || { ls; fail "no trace.bin.$child"; }
	symbolize_stable parent trace.bin
	compare "$(expected fork-parent)" parent
	symbolize_stable child "trace.bin.$child"
	compare "$(expected fork-child)" child
	files=$(ls trace.bin* | grep -v -e '\.out$' -e '\.err$' | tr '\n' ' ')
	[ "$files" = "trace.bin trace.bin.$child " ] ||
		fail "unexpected trace files: $files"
}

# fork() in a signal handler that interrupted the recorder: every child
# lives, and writes its own trace, whole, with its one call.
case_fork_handler() {
	use_config "$1"
	build_c forks "$PROGS/forks.c"
	run_traced trace.bin "$BIN/forks" handler 20
	[ "$(cat trace.bin.out)" = "20 20" ] ||
		fail "children that did not exit 0: $(cat trace.bin.out)"
	symbolize_stable parent trace.bin
	n=0
	for f in trace.bin.*; do
		case $f in *.out|*.err) continue ;; esac
		symbolize_stable child "$f"
		[ "$(calls_of child child_work)" = 1 ] ||
			fail "$f: child_work not called once"
		n=$((n + 1))
	done
	[ "$n" = 20 ] || fail "$n child traces, expected 20"
}

# _Fork() runs no fork handler: its children record nothing (one line
# says so), and the parent's trace stays whole.
case_fork_bare() {
	use_config "$1"
	build_c forks "$PROGS/forks.c"
	CTRACE_OUTPUT=trace.bin "$BIN/forks" bare 5 >out 2>err ||
		fail "forks bare failed"
	[ "$(cat out)" = "5 5" ] || fail "children failed: $(cat out)"
	[ "$(grep -c '^ctrace: a child process made without fork handlers' err)" = 5 ] ||
		{ cat err; fail "expected one line per child"; }
	ls trace.bin.* >/dev/null 2>&1 && fail "a _Fork child wrote a trace"
	symbolize_stable parent trace.bin
	[ "$(calls_of parent after)" = 1000 ] || fail "calls of after lost"
}

# Both traces at once: a header line for each, both trees complete, the
# child's calls nested under the call that made it (fork() in start_child),
# after a note naming it; its returns through the parent's calls are the
# parent's and do not show.
case_fork_both() {
	use_config "$1"
	build_c fork "$PROGS/fork.c"
	run_traced trace.bin "$BIN/fork"
	child=$(cat trace.bin.out)
	symbolize both --no-duration --thread-ids=serial trace.bin \
		"trace.bin.$child"
	stable_pids both
	check_tree both
	grep -q "^# trace\\.bin: pid [0-9]" both || fail "no header for trace.bin"
	grep -q "^# trace\\.bin\\.$child: pid $child" both ||
		fail "no header for trace.bin.$child"
	sed -e "s|^\\(# trace\\.bin\\)\\.$child: pid .*|\\1.CHILD|" \
	    -e 's|^\(# trace\.bin\): pid .*|\1|' \
	    -e "s|\\[ *$child/|[CHILD/|" -e 's|\[ *[0-9]*/|[PARENT/|' both >both.n
	compare "$(expected fork-both)" both.n
}

# A traced program run by a traced program with the same CTRACE_OUTPUT
# writes trace.bin.PID, since the parent is still writing trace.bin.
case_spawn() {
	use_config "$1"
	build_c spawn "$PROGS/spawn.c"
	build_c fib "$PROGS/fib.c"
	run_traced trace.bin "$BIN/spawn" "$BIN/fib" 3
	child=$(grep -x '[0-9][0-9]*' trace.bin.out)
	grep -q '^fib(3) = 2$' trace.bin.out || fail "fib did not run"
	[ -f "trace.bin.$child" ] || { ls; fail "no trace.bin.$child"; }
	symbolize_stable parent trace.bin
	compare "$(expected spawn)" parent
	symbolize_stable child "trace.bin.$child"
	compare "$(expected fib3)" child
}

# A signal handler making traced calls, often while the recorder is busy:
# every call of the handler shows, and the tree nests.
# Slow system calls (here under strace) must not make the recorder look at
# the loader's list at every event: a look that takes longer than the
# pause that triggers it used to trigger the next one (two signal mask
# changes per event; now a few hundred in all).
case_slow_looks() {
	use_config "$1"
	command -v strace >/dev/null || skip "strace not installed"
	build_c fib "$PROGS/fib.c"
	CTRACE_OUTPUT=trace.bin strace -f -c -o counts \
		-e trace=rt_sigprocmask "$BIN/fib" 20 >out 2>strace.err ||
		skip "strace cannot trace here: $(head -n 1 strace.err)"
	grep -q '^fib(20) = 6765$' out || fail "wrong output"
	n=$(awk '$NF == "rt_sigprocmask" { print $4 }' counts)
	[ -n "$n" ] || { cat counts; fail "no rt_sigprocmask count"; }
	# fib(20) makes 21,891 calls: 43,782 events.
	[ "$n" -lt 4000 ] ||
		fail "$n signal mask changes for 43,782 events"
	# A chunk costs two signal mask changes (a claim, with the look at
	# the loader's list inside it), however long the claim takes: the
	# first event after it looks again only after a real pause (each
	# claim used to cost eight or nine under strace).  A real pause (a
	# preemption on a loaded machine, strace's own stops) makes the next
	# event look too, with two more: those are counted from the trace
	# itself, so that load moves both sides alike.  4 KiB chunks keep the
	# trace, and its JSON, small.
	rm -f trace.bin
	CTRACE_CHUNK_SIZE=4k CTRACE_OUTPUT=trace.bin strace -f -c -o counts \
		-e trace=rt_sigprocmask "$BIN/fib" 20 >out 2>strace.err ||
		fail "strace: $(head -n 1 strace.err)"
	grep -q '^fib(20) = 6765$' out || fail "wrong output (4k chunks)"
	n=$(awk '$NF == "rt_sigprocmask" { print $4 }' counts)
	chunks=$(( $(wc -c <trace.bin) / 4096 ))
	[ "$chunks" -ge 15 ] || fail "only $chunks chunks"
	"$CTRACE_SYMBOLIZE" -f json -o trace.json trace.bin ||
		fail "symbolizing failed"
	# The recorder looks after 2^15 ticks without an event: 6 us or more
	# at any clock rate up to 5.4 GHz (more pauses counted only loosens
	# the bound).
	need_python
	pauses=$("$PYTHON3" -S -c '
import json, sys
calls = json.load(open(sys.argv[1]))["calls"]
t = sorted(x for c in calls
	   for x in (c["timestamp"], c["timestamp"] + c.get("duration", 0)))
print(sum(1 for a, b in zip(t, t[1:]) if b - a >= 6000))
' trace.json) || fail "cannot read trace.json"
	[ "$n" -le $((3 * chunks + 2 * pauses + 40)) ] ||
		fail "$n signal mask changes for $chunks chunks and $pauses pauses"
}

case_signals() {
	use_config "$1"
	build_c signals "$PROGS/signals.c"
	run_traced trace.bin "$BIN/signals"
	ticks=$(cat trace.bin.out)
	symbolize_stable tree trace.bin
	check_tree tree >counts
	cat counts
	grep -q ' lost-lines 0 ' counts || fail "events were lost"
	n=$(calls_of tree on_tick)
	[ "$n" -eq "$ticks" ] ||
		fail "tree shows $n calls of on_tick, the program counted $ticks"
	n=$(calls_of tree handler)
	[ "$n" -eq "$ticks" ] ||
		fail "tree shows $n calls of handler, the program counted $ticks"
}

for cfg in $(configs); do
	run_case "errno-$cfg" case_errno "$cfg"
done
for cfg in $(configs_pie | grep O0); do
	run_case "off-$cfg" case_off "$cfg"
	run_case "switches-$cfg" case_switches "$cfg"
	run_case "default-output-$cfg" case_default_output "$cfg"
	run_case "output-$cfg" case_output "$cfg"
	run_case "unwritable-$cfg" case_unwritable "$cfg"
	run_case "tail-$cfg" case_tail "$cfg"
done
for cfg in $(configs_pie); do
	run_case "fork-$cfg" case_fork "$cfg"
	run_case "fork-both-$cfg" case_fork_both "$cfg"
	run_case "fork-handler-$cfg" case_fork_handler "$cfg"
	run_case "fork-bare-$cfg" case_fork_bare "$cfg"
	run_case "spawn-$cfg" case_spawn "$cfg"
	run_case "signals-$cfg" case_signals "$cfg"
	run_case "slow-looks-$cfg" case_slow_looks "$cfg"
done

test_finish
