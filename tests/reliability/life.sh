#!/bin/sh
# life.sh -- a program's life: many short threads, pthread_exit deep in a
# thread, threads still busy at exit(), exit/_exit/abort deep in calls,
# vfork+exec, posix_spawn, exec from a thread, daemon().  Each process
# leaves its own trace, with the exact tree.

. "$(dirname "$0")/rel.sh"
test_init reliability-life

case_threads() {
	use_config "$1"
	build_pair c life "$RPROGS/life.c"
	run_traced trace.bin "$BIN/life" threads 300
	symbolize_stable tree trace.bin
	check_tree tree >counts
	cat counts
	grep -q ' threads 301$' counts || fail "expected 301 threads"
	[ "$(calls_of tree worker)" -eq 300 ] || fail "expected 300 workers"
	[ "$(calls_of tree leaf)" -eq 301 ] || fail "expected 301 leaf calls"
	# Every worker thread's whole tree: worker() { leaf(); }
	n=$(tree_text tree | tr -d '\n' |
		grep -o 'worker() {  leaf();} /\* worker \*/' | wc -l)
	[ "$n" -eq 300 ] || fail "$n workers with the exact tree, expected 300"
	oracle_check trace.bin "$BIN/life" threads 300
}

case_thread_exit() {
	use_config "$1"
	build_pair c life "$RPROGS/life.c"
	run_traced trace.bin "$BIN/life" thread-exit
	rel_tree thread-exit trace.bin
}

# Threads in a loop when main calls exit(): every thread's tree is well
# formed and ends unfinished inside spin.
case_threads_at_exit() {
	use_config "$1"
	build_pair c life "$RPROGS/life.c"
	run_traced trace.bin "$BIN/life" threads-at-exit
	symbolize_stable tree trace.bin
	check_tree tree >counts
	grep -q ' threads 4$' counts || fail "expected 4 threads"
	for t in 2 3 4; do
		grep -q "^ *\[ *$t\] | } /\* spin (unfinished) \*/\$" tree ||
			fail "thread $t: spin is not unfinished"
	done
	grep -q '\[ *1\] | } /\* main (unfinished) \*/$' tree ||
		fail "main is not unfinished"
}

case_end() {
	use_config "$1"
	build_pair c life "$RPROGS/life.c"
	EXPECT_STATUS=$3 run_traced trace.bin "$BIN/life" "$2"
	rel_tree end-deep trace.bin
}

# A non-instrumented program run by vfork+exec or posix_spawn: the
# parent's trace is complete, and no other trace is written.
case_other_program() {
	use_config "$1"
	build_pair c life "$RPROGS/life.c"
	run_traced trace.bin "$BIN/life" "$2" /bin/true
	rel_tree "$2" trace.bin
	[ "$(ls trace.bin*)" = "trace.bin
trace.bin.err
trace.bin.out" ] || fail "unexpected files: $(ls)"
}

# exec from a thread: the old image's trace keeps its threads' calls, the
# new image (same pid) writes trace.bin.PID.
case_exec_thread() {
	use_config "$1"
	build_pair c life "$RPROGS/life.c"
	run_traced trace.bin "$BIN/life" exec-thread
	rel_tree exec-thread-parent trace.bin
	set -- trace.bin.[0-9]*
	[ $# -eq 1 ] && [ -f "$1" ] || fail "expected one trace.bin.PID: $*"
	rel_tree exec-thread-child "$1"
}

# daemon(): the daemon (a fork()ed child) writes trace.bin.PID.
case_daemon() {
	use_config "$1"
	build_pair c life "$RPROGS/life.c"
	run_traced trace.bin "$BIN/life" daemon "$PWD/daemon.pid"
	i=0
	while [ ! -s daemon.pid ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	pid=$(cat daemon.pid) || fail "the daemon did not run"
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	rel_tree daemon-parent trace.bin
	rel_tree daemon-child "trace.bin.$pid"
}

# A child that forks a grandchild, each from two calls deep: read together,
# each process's calls nest under the call that made it (its returns
# through the calls it inherited are its parent's and do not show); read
# alone, a child's trace finds its parent's next to it.
case_fork_chain() {
	use_config "$1"
	build_pair c life "$RPROGS/life.c"
	run_traced trace.bin "$BIN/life" fork-chain
	child=$(sed -n '2s/^fork //p' trace.bin.out)
	grandchild=$(sed -n '1s/^fork //p' trace.bin.out)
	[ -n "$child" ] && [ -n "$grandchild" ] || fail "no fork lines"
	mkdir traces
	mv trace.bin "trace.bin.$child" "trace.bin.$grandchild" traces/
	symbolize all --no-duration --thread-ids=serial traces
	stable_pids all
	sed -e "s|\[ *$child/|[CHILD/|" -e "s|\[ *$grandchild/|[GRANDCHILD/|" \
	    -e 's|\[ *[0-9]*/|[PARENT/|' -e 's|^\(# [^:]*\): pid .*|\1|' \
	    -e "s|\.$child\$|.CHILD|" -e "s|\.$grandchild\$|.GRANDCHILD|" \
	    all >all.s
	# the file lines come in name order, which depends on the pids
	{ sed -n 1p all.s; grep '^# traces' all.s | sort; sed '/^#/d' all.s; } \
		>all.n
	compare "$(rel_expected fork-chain)" all.n
	symbolize_stable alone "traces/trace.bin.$grandchild"
	compare "$(rel_expected fork-chain-alone)" alone
	# without its parent's trace, a child starts at depth 0
	rm "traces/trace.bin.$child"
	symbolize_stable orphan "traces/trace.bin.$grandchild"
	check_tree orphan >/dev/null
	grep -q '^           \[     1\] | } /\* main (entered before the trace) \*/$' \
		orphan || fail "main does not close as entered before the trace"
}

for cfg in $(configs_pie); do
	run_case "threads-$cfg" case_threads "$cfg"
	run_case "thread-exit-$cfg" case_thread_exit "$cfg"
	run_case "threads-at-exit-$cfg" case_threads_at_exit "$cfg"
	run_case "exit-$cfg" case_end "$cfg" exit 3
	run_case "_exit-$cfg" case_end "$cfg" _exit 3
	run_case "abort-$cfg" case_end "$cfg" abort 134
	run_case "vfork-exec-$cfg" case_other_program "$cfg" vfork-exec
	run_case "spawn-$cfg" case_other_program "$cfg" spawn
	run_case "exec-thread-$cfg" case_exec_thread "$cfg"
	run_case "daemon-$cfg" case_daemon "$cfg"
	run_case "fork-chain-$cfg" case_fork_chain "$cfg"
done

test_finish
