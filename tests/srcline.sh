#!/bin/sh
# srcline.sh -- call sites (--srcline).  The program marks each call with
# a comment /* CALL:tag */; the expected tree names the marked lines by
# tag and gets the numbers from the source, so editing the program cannot
# make the test pass by accident.

. "$(dirname "$0")/lib.sh"
test_init srcline

# expected_with_lines: expected/callsite.tree with @tag@ replaced by the
# line of the call marked CALL:tag.
expected_with_lines() {
	script=
	for tag in $(sed -n 's/.*@\([a-z0-9-]*\)@.*/\1/p' "$EXPECTED/callsite.tree"); do
		src=$PROGS/callsite.c
		grep -q -F "/* CALL:$tag */" "$src" || src=$PROGS/callsite.h
		script="$script -e s/@$tag@/$(line_of "$src" "CALL:$tag")/"
	done
	# shellcheck disable=SC2086
	sed $script "$EXPECTED/callsite.tree"
}

case_srcline() {
	use_config "$1"
	build_c callsite "$PROGS/callsite.c"
	run_traced trace.bin "$BIN/callsite"
	symbolize_stable tree trace.bin --srcline
	check_tree tree
	expected_with_lines >expected
	# main is called from the C library, whose call site is not ours to
	# check.
	sed 's/^\(.*\] | main() {\) \/\*.*\*\/$/\1/' tree >tree.checked
	compare expected tree.checked
}

for cfg in $(configs); do
	run_case "callsite-$cfg" case_srcline "$cfg"
done

test_finish
