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
