#!/bin/sh
# threads.sh -- per-thread trees of a program with worker threads, and a
# busy program whose threads trace at the same time.

. "$(dirname "$0")/lib.sh"
test_init threads

case_threads() {
	use_config "$1"
	build_pair c threads "$PROGS/threads.c"
	run_traced trace.bin "$BIN/threads"
	symbolize_stable tree trace.bin
	compare "$(expected threads)" tree
	check_tree tree
	oracle_check trace.bin "$BIN/threads"
}

# Four threads making 20000 calls each at the same time: every call of
# every thread is in the trace, whatever the interleaving (and with small
# chunks, claimed by the threads in turn every few hundred events).
case_busy() {
	use_config "$1"
	build_pair c threads-busy "$PROGS/threads-busy.c"
	[ -n "${2:-}" ] && { CTRACE_CHUNK_SIZE=$2; export CTRACE_CHUNK_SIZE; }
	run_traced trace.bin "$BIN/threads-busy" 20000
	symbolize_stable tree trace.bin
	check_tree tree >counts
	cat counts
	grep -q ' threads 4$' counts || fail "expected 4 threads"
	n=$(calls_of tree leaf)
	[ "$n" -eq 80000 ] || fail "tree shows $n calls of leaf, expected 80000"
	n=$(calls_of tree worker)
	[ "$n" -eq 3 ] || fail "tree shows $n calls of worker, expected 3"
	n=$(calls_of tree spin)
	[ "$n" -eq 4 ] || fail "tree shows $n calls of spin, expected 4"
	# Each thread's tree: one outer call holding one spin and its leaves.
	for t in 1 2 3 4; do
		n=$(grep -c "^ *\[ *$t\] |     leaf();\$" tree)
		[ "$n" -eq 20000 ] || fail "thread $t: $n leaf calls at depth 2"
	done
	# Interleaved by time, the same tree must still nest per thread.
	symbolize merged --no-duration --thread-ids=serial trace.bin
	check_tree merged
	oracle_check trace.bin "$BIN/threads-busy" 20000
}

# A worker polling a one-item mailbox: how many calls it and main make
# depends on how the threads interleave, so the trace is checked against
# the oracle's counts of the same run, not of another.
case_mailbox() {
	use_config "$1"
	build_pair c mailbox "$PROGS/mailbox.c"
	build_tee c mailbox
	same_run_check trace.bin "$BIN/mailbox" 1000
	[ "$(cat trace.bin.out)" = 1499500 ] || fail "wrong output"
	symbolize_stable tree trace.bin
	check_tree tree
}

# 200 threads alive at once with 16 MiB chunks (3.2 GB of chunks, most of
# them never written): the symbolizer's memory follows the threads, not the
# chunk size, so that every view fits in 400 MB of address space (it needed
# a whole chunk per thread before, and ran out of memory).
case_many_big_chunks() {
	use_config "$1"
	build_pair c threads-many "$PROGS/threads-many.c"
	CTRACE_CHUNK_SIZE=16M
	export CTRACE_CHUNK_SIZE
	run_traced trace.bin "$BIN/threads-many" 200
	unset CTRACE_CHUNK_SIZE
	[ "$(cat trace.bin.out)" = 22000 ] || fail "wrong output"
	for f in tree report json chrome folded dot; do
		(ulimit -v 400000 &&
			exec "$CTRACE_SYMBOLIZE" -f $f --no-duration trace.bin \
				>out.$f 2>out.$f.err) ||
			{ cat out.$f.err; fail "-f $f failed in 400 MB"; }
		[ -s out.$f.err ] && { cat out.$f.err; fail "-f $f: messages"; }
	done
	n=$(calls_of out.tree leaf)
	[ "$n" -eq 2000 ] || fail "tree shows $n calls of leaf, expected 2000"
	grep -Eq '[^0-9.]2000 .* mid$' out.report ||
		{ cat out.report; fail "report: not 2000 calls of mid"; }
	oracle_check trace.bin "$BIN/threads-many" 200
}

for cfg in $(configs); do
	run_case "threads-$cfg" case_threads "$cfg"
done
for cfg in $(configs | grep -e '-pie$'); do
	run_case "mailbox-$cfg" case_mailbox "$cfg"
done
for cfg in $(configs | grep -e '-O2-pie$'); do
	run_case "busy-$cfg" case_busy "$cfg"
	run_case "busy-4k-chunks-$cfg" case_busy "$cfg" 4k
	run_case "many-big-chunks-$cfg" case_many_big_chunks "$cfg"
done

test_finish
