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

for cfg in cc-O0-pie-m32 cc-O2-nopie-m32; do
	run_case "fib5-$cfg" tree_case "$cfg" fib5 fib 5
	run_case "fib20-count-$cfg" case_fib_count "$cfg"
	run_case "funcptr-$cfg" tree_case "$cfg" funcptr funcptr
	run_case "ctors-$cfg" tree_case "$cfg" ctors ctors
	run_case "threads-$cfg" tree_case "$cfg" threads threads
	run_case "crash-$cfg" crash_case "$cfg"
	run_case "errno-$cfg" case_errno "$cfg"
done

test_finish
