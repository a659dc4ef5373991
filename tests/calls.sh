#!/bin/sh
# calls.sh -- call trees of single-threaded C programs: recursion, function
# pointers, static functions, constructors, destructors and atexit
# handlers, longjmp, an inlined library function, in every compiler
# configuration; then small chunks, both clocks, the default tree format
# and -o.

. "$(dirname "$0")/lib.sh"
test_init calls

# fib(20) makes 21891 calls of fib: every one must be in the tree.
case_fib_count() {
	use_config "$1"
	build_pair c fib "$PROGS/fib.c"
	run_traced trace.bin "$BIN/fib" 20
	grep -q '^fib(20) = 6765$' trace.bin.out || fail "wrong result"
	symbolize_stable tree trace.bin
	check_tree tree
	n=$(calls_of tree fib)
	[ "$n" -eq 21891 ] || fail "tree shows $n calls of fib, expected 21891"
	oracle_check trace.bin "$BIN/fib" 20
}

# longjmp leaves calls without their exit: the counting hooks cannot
# follow the depth there, so only the calls are compared with them.
case_longjmp() {
	ORACLE_OPT=--counts-only
	tree_case "$@"
}

# Small chunks: the pair slots start over every few hundred events.
case_small_chunks() {
	use_config "$1"
	build_c fib "$PROGS/fib.c"
	CTRACE_CHUNK_SIZE=4k
	export CTRACE_CHUNK_SIZE
	run_traced trace.bin "$BIN/fib" 20
	symbolize_stable tree trace.bin
	check_tree tree
	n=$(calls_of tree fib)
	[ "$n" -eq 21891 ] || fail "tree shows $n calls of fib, expected 21891"
	run_traced trace5.bin "$BIN/fib" 5
	symbolize_stable tree5 trace5.bin
	compare "$(expected fib5)" tree5
}

# 625 (function, call site) pairs in use at once, more than the narrow
# pair slots: the trace matches the oracle's counts and depths, and the
# wide slots keep it small (13 bytes per event when every pair beyond the
# 127 slots of format 1 needed a DEFINE).  Size, not time: deterministic.
case_many_pairs() {
	use_config "$1"
	build_pair c pairs "$PROGS/pairs.c"
	run_traced trace.bin "$BIN/pairs" 200
	grep -q '^calls 125001$' trace.bin.out || fail "wrong call count"
	oracle_check trace.bin "$BIN/pairs" 200
	bytes=$(wc -c <trace.bin)
	[ "$bytes" -le $((250002 * 5)) ] ||
		fail "$bytes bytes for 250002 events: over 5 bytes per event"
}

# Either clock gives the same tree, and well-formed durations.
# Short calls taken back out (CTRACE_MIN_DURATION) among many pairs: the
# even leaves of tests/progs/pairs.c return at once, the odd ones spin.
# Each short call's NEW is taken back out of the stream, and the recorder
# forgets what it changed in its pair table while the reader keeps its
# own; a later NEW into that slot moved the reader's forgotten pair over
# a pair the recorder still named by its wide slot, which the tree then
# showed under the forgotten pair's name (a leaf out of order in a
# round).  Several runs (two in make check, four in check-full): which
# pairs collide depends on timing.  (clang -O2 instruments the atoi it
# inlines into main: other names pass.)
case_short_pairs() {
	use_config "$1"
	build_pair c pairs "$PROGS/pairs.c"
	for run in $(in_matrix "1 2 3 4" "1 2"); do
		CTRACE_MIN_DURATION=300ns run_traced short.bin \
			"$BIN/pairs" 300 25 3000
		symbolize short.tree --no-duration short.bin
		awk -v want=300 '
		/\| / {
			line = $0; sub(/^.*\| /, "", line)
			match(line, /^ */); depth = RLENGTH / 2
			name = line; sub(/^ */, "", name); sub(/\(.*/, "", name)
			if (name ~ /^}/) next
			if (name ~ /^round/) { if (depth != 1) bad++; n[name]++; last = -1 }
			else if (name ~ /^leaf/) {
				i = substr(name, 5) + 0
				if (depth != 2 || i <= last) { bad++; print }
				last = i
			}
		}
		END {
			for (k in n) if (n[k] != want) bad++
			if (length(n) != 25) bad++
			exit bad != 0
		}' short.tree || fail "run $run: a leaf out of order, or a round missing"
	done
}

# A fork()ed child inherits its thread's wide pair slots, full of the
# parent's pairs, which the child's file never defined: the child's
# recorder named them by their wide slots ("wide pair slot used before its
# definition", the rest of the child's trace skipped).  Its trace decodes
# and holds every round of its own run.
case_fork_pairs() {
	use_config "$1"
	build_pair c pairs "$PROGS/pairs.c"
	run_traced fork.bin "$BIN/pairs" 100 25 0 fork
	grep -q '^child calls 62500$' fork.bin.out || fail "child's calls"
	set -- fork.bin.[0-9]*
	[ $# -eq 1 ] && [ -f "$1" ] || fail "not one child trace: $*"
	symbolize child.tree --no-duration "$1"
	for k in 0 12 24; do
		n=$(grep -c "| *round$k() {" child.tree)
		[ "$n" -eq 100 ] || fail "the child's trace shows round$k $n times"
	done
}

case_clock() {
	use_config "$1"
	build_c fib "$PROGS/fib.c"
	CTRACE_CLOCK=$2
	export CTRACE_CLOCK
	run_traced trace.bin "$BIN/fib" 5
	[ -s trace.bin.err ] && { cat trace.bin.err; fail "warnings"; }
	symbolize_stable tree trace.bin
	compare "$(expected fib5)" tree
	symbolize timed --thread-ids=serial trace.bin
	check_tree timed 1
}

# Default options: kernel tids, durations, threads interleaved.
case_default_format() {
	use_config "$1"
	build_c fib "$PROGS/fib.c"
	run_traced trace.bin sh -c 'echo $$ >trace.bin.pid; exec "$@"' sh \
		"$BIN/fib" 5
	symbolize tree trace.bin
	check_tree tree 1
	# Without the columns the tree is the same as the stable one.
	tree_text tree >tree.text
	tree_text "$EXPECTED/fib5.tree" >expected.text
	compare expected.text tree.text
	# Every line shows the program's own tid (its pid: one thread).
	pid=$(sed -n 's/^ *\([0-9]*\)$/\1/p' trace.bin.pid)
	n=$(grep -c -v -e '^#' -e "^.\{10\} \[ *$pid\] | " tree)
	[ "$n" -eq 0 ] || fail "$n lines with another thread id than $pid"
}

# -o writes the same output to a file.
case_output_option() {
	use_config "$1"
	build_c fib "$PROGS/fib.c"
	run_traced trace.bin "$BIN/fib" 5
	symbolize stdout $STABLE_OPTS -o tree.out trace.bin
	[ -s stdout ] && fail "-o FILE also wrote to stdout"
	compare "$(expected fib5)" tree.out
}

# clang -O2 instruments glibc's inline atoi (expected/inline.clang-O2.tree).
# Its address is atoi's PLT entry, which may be named atoi@plt.
case_inline() {
	use_config "$1"
	build_pair c inline "$PROGS/inline.c"
	run_traced trace.bin "$BIN/inline" 21
	symbolize_stable tree trace.bin
	sed 's/atoi@plt/atoi/' tree >tree.plt
	compare "$(expected inline)" tree.plt
	check_tree tree
	oracle_check trace.bin "$BIN/inline" 21
}

for cfg in $(configs); do
	run_case "fib5-$cfg" tree_case "$cfg" fib5 fib 5
	run_case "fib3-$cfg" tree_case "$cfg" fib3 fib 3
	run_case "fib20-count-$cfg" case_fib_count "$cfg"
	run_case "funcptr-$cfg" tree_case "$cfg" funcptr funcptr
	run_case "ctors-$cfg" tree_case "$cfg" ctors ctors
	run_case "longjmp-$cfg" case_longjmp "$cfg" longjmp longjmp
	run_case "inline-$cfg" case_inline "$cfg"
	run_case "many-pairs-$cfg" case_many_pairs "$cfg"
	run_case "short-pairs-$cfg" case_short_pairs "$cfg"
	run_case "fork-pairs-$cfg" case_fork_pairs "$cfg"
done
cfg=$(configs | head -n 1)
run_case "default-format-$cfg" case_default_format "$cfg"
run_case "output-option-$cfg" case_output_option "$cfg"
run_case "small-chunks-$cfg" case_small_chunks "$cfg"
run_case "clock-monotonic-$cfg" case_clock "$cfg" monotonic
if grep -q '^flags.* constant_tsc' /proc/cpuinfo 2>/dev/null; then
	run_case "clock-tsc-$cfg" case_clock "$cfg" tsc
fi

test_finish
