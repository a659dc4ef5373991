#!/bin/sh
# firstmain.sh -- main's arguments and return value when main is the
# program's first instrumented call (the recorder starts on that call's
# hook), checked against the values the program prints.

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
	grep -q "| main(argc=$argc, argv=0x[0-9a-f]*) {" tree ||
		fail "main's arguments missing (argc $argc)"
	grep -q "| } = $ret; /\* main \*/" tree ||
		fail "main's return value $ret missing"
}

for cfg in $(configs); do
	run_case "main-$cfg" case_main "$cfg"
done

test_finish
