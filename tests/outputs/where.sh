#!/bin/sh
# where.sh -- --where EXPR on tests/outputs/where.c, recorded with its
# arguments, return values and strings (a capture plan): the trees of
# hand-checked expressions (tests/outputs/expected/where-*.tree), the same
# calls in the other views, and bad expressions refused with the column.

. "$(dirname "$0")/../lib.sh"
test_init outputs-where
OUTPUTS=$top_srcdir/tests/outputs

# where NAME EXPR: the stable tree of the calls EXPR keeps is
# expected/where-NAME.tree
where() {
	symbolize_stable "where-$1" --where "$2" trace.bin
	compare "$OUTPUTS/expected/where-$1.tree" "where-$1"
}

case_trees() {
	use_config "$1"
	build_c where "$OUTPUTS/where.c"
	"$CTRACE_SYMBOLIZE" --make-plan -o where.plan "$BIN/where" ||
		fail "--make-plan failed"
	CTRACE_ARGS=all CTRACE_RETVAL=all CTRACE_PLAN=where.plan \
		run_traced trace.bin "$BIN/where"
	# a failed open, with the calls that led to it
	where open 'open_file.retval < 0'
	where len 'parse.len > 4096'
	# strings; a match deep down brings its callers, not its callees
	where or 'who == "barbaz" || depth.n == 0'
	# the function's name, any function's return value
	where and 'name == "greet" && retval > 3'
	# no len (main, load) is not len <= 4096
	where not '!(len <= 4096) && (parse.retval == -1)'
	where retval 'depth.retval >= 8'
	# every view: the same three calls as JSON, in the report
	symbolize calls.json -f json --where 'open_file.retval < 0' trace.bin
	"$PYTHON3" -S -c 'import json, sys
calls = json.load(open(sys.argv[1]))["calls"]
got = sorted((c["function"], c["depth"]) for c in calls)
assert got == [("load", 1), ("main", 0), ("open_file", 2)], got' calls.json ||
		fail "JSON: not the calls of the tree"
	symbolize report -f report --where 'open_file.retval < 0' trace.bin
	[ "$(grep -c -E ' (main|load|open_file)$' report)" -eq 3 ] &&
		[ "$(grep -c -E ' (parse|greet|depth)$' report)" -eq 0 ] ||
		{ cat report; fail "report: not the calls of the tree"; }
	# several --where: all of them hold
	symbolize_stable both --where 'parse.len > 4096' \
		--where 'buf == "/"' trace.bin
	grep -q 'parse(buf="/", len=8192) = -1;' both &&
		! grep -q 'nonexistent' both || { cat both; fail "not both"; }
}

# only the start of a string recorded ("barb"...): equal to no literal
# that goes on from it, ordered where they differ
case_cut() {
	use_config "$1"
	build_c where "$OUTPUTS/where.c"
	"$CTRACE_SYMBOLIZE" --make-plan -o where.plan "$BIN/where" ||
		fail "--make-plan failed"
	CTRACE_ARGS=all CTRACE_RETVAL=all CTRACE_PLAN=where.plan \
		CTRACE_STRLEN=4 run_traced cut.bin "$BIN/where"
	symbolize cut --no-duration --where 'who == "barbaz"' cut.bin
	! grep -q 'greet' cut || { cat cut; fail "a cut string equal"; }
	symbolize cut --no-duration --where 'who == "barb"' cut.bin
	! grep -q 'greet' cut || { cat cut; fail "a cut string equal"; }
	symbolize cut --no-duration --where 'who > "bar"' cut.bin
	grep -q 'greet(who="barb"...)' cut && grep -q 'greet(who="bott"...)' cut ||
		{ cat cut; fail "a cut string: not ordered"; }
}

# bad EXPR MESSAGE: refused with exit status 2 and this message
bad() {
	"$CTRACE_SYMBOLIZE" --where "$1" trace.bin >out 2>err
	status=$?
	[ "$status" -eq 2 ] || fail "--where '$1': exit status $status"
	first=$(head -n 1 err)
	[ "$first" = "ctrace-symbolize: bad --where expression '$1': $2" ] ||
		fail "--where '$1': $first"
	[ ! -s out ] || fail "--where '$1': wrote output"
}

case_errors() {
	printf '%s\n' 'events 1' 'enter 0x1000 0x1' 'leave 0x1000 0x1' |
		"$top_builddir/tests/mktrace" trace.bin || fail "mktrace failed"
	bad 'f.n = 3' 'at column 5, expected a comparison (== != < <= > >=)'
	bad '(n == 1' "at column 8, expected ')'"
	bad 'n == "x' "at column 8, expected the string's closing quote"
	bad 'n ==' 'at column 5, expected a number or a "string"'
	bad '== 3' 'at column 1, expected a function or argument name'
	bad 'n == 3 &&' 'at column 10, expected a function or argument name'
	bad 'n == 3 x' 'at column 8, expected &&, || or the end'
	bad 'n == 12abc' 'at column 8, expected a number'
	bad '' 'at column 1, expected a function or argument name'
	# integers past 64 bits are refused, not saturated
	bad 'n == 99999999999999999999' \
		'at column 6, expected a number that fits in 64 bits'
	bad 'n == -0x10000000000000000' \
		'at column 6, expected a number that fits in 64 bits'
	# nesting is bounded (the parser recurses a level per '(' and '!'),
	# refused with a message, not a stack overflow
	deep=$("$PYTHON3" -S -c 'print("(" * 65000 + "n == 1" + ")" * 65000)')
	bad "$deep" "at column 257, expected at most 256 nested '(' and '!'"
	deep=$("$PYTHON3" -S -c 'print("!" * 130000 + "n == 1")')
	bad "$deep" "at column 257, expected at most 256 nested '(' and '!'"
	deep=$("$PYTHON3" -S -c 'print("(" * 256 + "n == 1" + ")" * 256)')
	"$CTRACE_SYMBOLIZE" --where "$deep" trace.bin >out 2>err ||
		fail "256 nested '(': exit status $?"
	# a chain of 21,000 && (a tree as deep on one side) is matched and
	# freed in a loop: fine on a 1 MiB stack
	long=$("$PYTHON3" -S -c 'print("&&".join(["n!=1"] * 21000))')
	(ulimit -s 1024 && "$CTRACE_SYMBOLIZE" --where "$long" trace.bin \
		>out 2>err) || fail "21,000 && on a 1 MiB stack: exit status $?"
}

for cfg in $(configs_pie); do
	run_case "trees-$cfg" case_trees "$cfg"
	run_case "cut-$cfg" case_cut "$cfg"
done
run_case errors case_errors

test_finish
