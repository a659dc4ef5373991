#!/bin/sh
# misaligned.sh -- a program that calls an instrumented function on a
# misaligned stack (assembly, as hand-written code may) runs traced as it
# runs untraced, in every mode: the plain hooks, a library call made from
# that function, arguments and return values with and without a capture
# plan (the exit read and the return trampoline).  The trace shows each
# call with its library call nested and its return value as the program
# printed it.  On x86-64 and i386.

. "$(dirname "$0")/lib.sh"
test_init misaligned

# check_run TRACE MODE: TRACE's tree has the program's three calls of
# leaf, each with its strlen and, unless MODE is plain, the return value
# the program printed.
check_run() {
	symbolize tree --no-duration "$1"
	cat tree
	n=0
	while read -r word i r; do
		[ "$word" = leaf ] || continue
		n=$((n + 1))
		grep -q "^ *\[ *[0-9]*\] |   leaf(.*x=$i.*) {\$" tree ||
			[ "$2" = plain ] ||
			grep -q "^ *\[ *[0-9]*\] |   leaf(s=\"abcd\", x=?) {\$" tree ||
			fail "leaf's call with x=$i missing"
		[ "$2" = plain ] && continue
		grep -q "^ *\[ *[0-9]*\] |   } = $r; /\* leaf \*/\$" tree ||
			fail "leaf's return value $r missing"
	done <"$1.out"
	[ "$n" = 3 ] || fail "the program printed $n results, expected 3"
	[ "$(grep -c '^ *\[ *[0-9]*\] |   leaf(.*) {$' tree)" = 3 ] ||
		fail "expected 3 calls of leaf"
	[ "$(grep -c '^ *\[ *[0-9]*\] |     strlen(.*).*;$' tree)" = 3 ] ||
		fail "expected 3 calls of strlen nested in leaf"
}

case_modes() {
	use_config "$1"
	build_c misaligned "$PROGS/misaligned.c"
	"$BIN/misaligned" abcd 3 >plain.out || fail "the program failed untraced"
	CTRACE_LIBCALL=on run_traced plain.bin "$BIN/misaligned" abcd 3
	cmp -s plain.out plain.bin.out || fail "traced, the program's output differs"
	check_run plain.bin plain
	CTRACE_LIBCALL=on CTRACE_ARGS=all CTRACE_RETVAL=all \
		run_traced values.bin "$BIN/misaligned" abcd 3
	check_run values.bin values
	"$CTRACE_SYMBOLIZE" --make-plan -o prog.plan "$BIN/misaligned" ||
		fail "ctrace-symbolize --make-plan failed"
	CTRACE_PLAN=prog.plan CTRACE_LIBCALL=on CTRACE_ARGS=all \
		CTRACE_RETVAL=all run_traced plan.bin "$BIN/misaligned" abcd 3
	check_run plan.bin plan
}

# The filter (any: main left out) has the entry hook look its function
# up, and the plugin's is in no table yet.
case_dlopen() {
	use_config "$1"
	build_shlib misaligned-plugin.so "$PROGS/misaligned-plugin.c"
	build_c misaligned-dl "$PROGS/misaligned.c" -rdynamic
	"$BIN/misaligned-dl" abcd 3 "$BIN/misaligned-plugin.so" >plain.out ||
		fail "the program failed untraced"
	CTRACE_FILTER='!main' run_traced dl.bin "$BIN/misaligned-dl" abcd 3 \
		"$BIN/misaligned-plugin.so"
	cmp -s plain.out dl.bin.out || fail "traced, the program's output differs"
	symbolize tree --no-duration dl.bin
	cat tree
	[ "$(grep -c '^ *\[ *[0-9]*\] | *plugin_leaf();$' tree)" = 3 ] ||
		fail "expected 3 calls of plugin_leaf"
}

# main and a thread's start routine not instrumented: leaf's entry is
# the first event of the process and of the thread, on that stack.
case_first() {
	use_config "$1"
	build_c misaligned-first "$PROGS/misaligned.c" -DUNTRACED_MAIN
	CTRACE=off "$BIN/misaligned-first" abcd 3 >plain.out ||
		fail "the program failed untraced"
	for mode in plain values; do
		if [ $mode = plain ]; then
			run_traced first.bin "$BIN/misaligned-first" abcd 3
		else
			CTRACE_LIBCALL=on CTRACE_ARGS=all CTRACE_RETVAL=all \
				run_traced first.bin "$BIN/misaligned-first" abcd 3
		fi
		cmp -s plain.out first.bin.out ||
			fail "$mode: traced, the program's output differs"
		symbolize tree --no-duration first.bin
		cat tree
		[ "$(grep -c '^ *\[ *[0-9]*\] | leaf(' tree)" = 4 ] ||
			fail "$mode: expected 4 calls of leaf"
	done
}

for cfg in $(configs) $(configs_m32); do
	run_case "modes-$cfg" case_modes "$cfg"
	run_case "dlopen-$cfg" case_dlopen "$cfg"
	run_case "first-$cfg" case_first "$cfg"
done

test_finish
