#!/bin/sh
# m32.sh -- the recorder on 32-bit x86 (gcc -m32), symbolized by the
# native symbolizer.

. "$(dirname "$0")/lib.sh"
test_init m32
[ "$HAVE_M32" = yes ] || skip_script "$CC -m32 does not build programs"
[ -f "$top_builddir/tests/m32/libctrace.a" ] ||
	skip_script "tests/m32/libctrace.a not built"

crash_case() {
	use_config "$1"
	build_c crash "$PROGS/crash.c"
	EXPECT_STATUS=134
	run_traced trace.bin "$BIN/crash" abort
	symbolize_stable tree trace.bin
	compare "$(expected crash)" tree
}

case_fib_count() {
	use_config "$1"
	build_c fib "$PROGS/fib.c"
	run_traced trace.bin "$BIN/fib" 20
	symbolize_stable tree trace.bin
	n=$(calls_of tree fib)
	[ "$n" -eq 21891 ] || fail "tree shows $n calls of fib, expected 21891"
}

case_errno() {
	use_config "$1"
	build_c errno "$PROGS/errno.c"
	run_traced trace.bin "$BIN/errno"
}

# After longjmp, a call with a bigger frame than the abandoned ones sits
# at its true depth: the frame sizes work on i386 too.
case_sibling() {
	use_config "$1"
	build_c nonlocal "$top_srcdir/tests/reliability/progs/nonlocal.c"
	run_traced trace.bin "$BIN/nonlocal" sibling
	symbolize_stable tree trace.bin
	compare "$top_srcdir/tests/reliability/expected/sibling.tree" tree
}

# Random longjmps and coroutine switches: every call at the depth the
# program counted.
case_jumps() {
	use_config "$1"
	build_c "$2" "$top_srcdir/tests/reliability/progs/$2.c"
	for seed in 1 2 3; do
		CTRACE_RETVAL=$3 run_traced trace.bin "$BIN/$2" "$seed" 3000
		symbolize_stable tree trace.bin
		call_depths tree >got
		compare trace.bin.out got
	done
}

for cfg in cc-O0-pie-m32 cc-O2-nopie-m32; do
	run_case "fib5-$cfg" tree_case "$cfg" fib5 fib 5
	run_case "fib20-count-$cfg" case_fib_count "$cfg"
	run_case "funcptr-$cfg" tree_case "$cfg" funcptr funcptr
	run_case "ctors-$cfg" tree_case "$cfg" ctors ctors
	run_case "threads-$cfg" tree_case "$cfg" threads threads
	run_case "crash-$cfg" crash_case "$cfg"
	run_case "errno-$cfg" case_errno "$cfg"
	run_case "sibling-$cfg" case_sibling "$cfg"
	run_case "jumps-$cfg" case_jumps "$cfg" jumps ""
	run_case "coroutines-$cfg" case_jumps "$cfg" coroutines all
done

test_finish
