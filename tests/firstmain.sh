#!/bin/sh
# firstmain.sh -- values the recorder used to miss, checked against the
# values the program prints: main's arguments and return value when main
# is the program's first instrumented call (the recorder starts on that
# call's hook); the return values of a function that catches an exception
# and of its callers (their return addresses were put back for the
# unwinder, and stayed so).

. "$(dirname "$0")/lib.sh"
test_init firstmain

case_main() {
	use_config "$1"
	build_c firstmain "$PROGS/firstmain.c"
	EXPECT_STATUS=3
	CTRACE_ARGS=all CTRACE_RETVAL=all run_traced trace.bin \
		"$BIN/firstmain" a b
	argc=$(sed -n 's/^argc //p' trace.bin.out)
	ret=$(sed -n 's/^main returns //p' trace.bin.out)
	symbolize tree trace.bin
	cat tree
	# clang -O0 stores the parameters after the hook: `?' there is the
	# symbolizer's (the registers were captured, as the JSON says)
	grep -q "| main(argc=$argc, argv=0x[0-9a-f]*) {" tree ||
		{ [ "$CUR_FAMILY$CUR_OPT" = clang-O0 ] &&
			grep -q "| main(argc=?, argv=?) {" tree; } ||
		fail "main's arguments missing (argc $argc)"
	grep -q "| } = $ret; /\* main \*/" tree ||
		fail "main's return value $ret missing"
}

case_catcher() {
	use_config "$1"
	build_cxx catcher "$PROGS/catcher.cc"
	CTRACE_RETVAL=all run_traced trace.bin "$BIN/catcher"
	c=$(sed -n 's/^catcher //p' trace.bin.out)
	o=$(sed -n 's/^outer //p' trace.bin.out)
	symbolize tree trace.bin
	cat tree
	grep -q "} = $c; /\* catcher \*/" tree ||
		fail "catcher's return value $c missing"
	grep -q "} = $o; /\* outer \*/" tree ||
		fail "outer's return value $o missing"
	grep -q "| } = 0; /\* main \*/" tree ||
		fail "main's return value 0 missing"
	if grep -q "thrower.*= [-0-9]" tree; then
		fail "thrower shows a return value"
	fi
}

for cfg in $(configs); do
	run_case "main-$cfg" case_main "$cfg"
	run_case "catcher-$cfg" case_catcher "$cfg"
done

test_finish
