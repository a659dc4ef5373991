#!/bin/sh
# valuecache.sh -- values decoded once per (function, call site) and read
# from each call's bytes after (symbolizer/values/recipe.c, memo.c), and
# views that show no values stepping over them (doc/performance.md).
#
# The oracle is the symbolizer itself with CTRACE_VALUE_CACHE=0, which
# decodes every call in full and writes every value one by one (no
# recipe's pieces, no memo's kept output): the tree, JSON and Chrome
# output of traces
# recorded with --args --retval, with a capture plan and without, must be
# the same bytes either way, and the recipes must have served calls (the
# counts CTRACE_VALUE_CACHE=stats prints).  A view without values (report,
# folded, graph, stats, dot, flame graph) must not read them: the folded
# stacks counted by calls of a trace with values are those of a trace
# without, and a program without debug information draws no warning about
# its values there.

. "$(dirname "$0")/lib.sh"
test_init valuecache

# decode_both TRACE FORMAT: FORMAT of TRACE with the cache (stats kept in
# FORMAT.stats) and without it: the same bytes.
decode_both() {
	CTRACE_VALUE_CACHE=stats "$CTRACE_SYMBOLIZE" $STABLE_OPTS -f "$2" \
		-o "$2.cached" "$1" 2>"$2.stats" ||
		{ cat "$2.stats"; fail "$2 with the cache failed"; }
	CTRACE_VALUE_CACHE=0 "$CTRACE_SYMBOLIZE" $STABLE_OPTS -f "$2" \
		-o "$2.full" "$1" 2>"$2.err" ||
		{ cat "$2.err"; fail "$2 without the cache failed"; }
	[ -s "$2.full" ] || fail "$2: empty output"
	cmp "$2.full" "$2.cached" ||
		{ diff "$2.full" "$2.cached" | sed -n 1,40p
		  fail "$1: $2 by recipe differs from $2 decoded call by call"; }
	grep -q 'value cache: arguments of [0-9]* calls by recipe' "$2.stats" ||
		{ cat "$2.stats"; fail "no counts of the value cache"; }
}

# recipes FORMAT: the calls whose arguments came by recipe.
recipes() {
	sed -n 's/.*arguments of \([0-9]*\) calls by recipe.*/\1/p' "$1.stats"
}

case_same() {
	use_config "$1"
	build_c valrepeat "$PROGS/valrepeat.c"
	"$CTRACE_SYMBOLIZE" --make-plan -o valrepeat.plan "$BIN/valrepeat" ||
		fail "--make-plan failed"
	for plan in valrepeat.plan ''; do
		CTRACE_ARGS=all CTRACE_RETVAL=all CTRACE_PLAN=$plan \
			run_traced trace.bin "$BIN/valrepeat" 40
		for f in tree json chrome; do
			decode_both trace.bin $f
		done
		grep -q 'add(a=39, b=-273)' tree.full ||
			fail "add's arguments not shown (plan '$plan')"
		# the widest numbers, a variadic tail, a character JSON
		# escapes: a recipe's pieces around its texts
		grep -q 'edge(u=18446744073709551615, s=0, .*\.\.\.) = -1;' \
			tree.full || fail "edge's arguments not shown"
		grep -qF "\"value\": \"'\\\"'\"" json.full ||
			fail "quote's character not shown"
		# Optimized code keeps its arguments in registers: the
		# recipes serve nearly every call of the loop.
		if [ "$CUR_OPT" != -O0 ] && [ "$(uname -m)" = x86_64 ]; then
			[ "$(recipes tree)" -gt 100 ] ||
				{ cat tree.stats; fail "no call by recipe"; }
		fi
	done
}

case_views() {
	use_config "$1"
	build_c valrepeat "$PROGS/valrepeat.c"
	objcopy --strip-debug "$BIN/valrepeat" valrepeat ||
		fail "objcopy --strip-debug failed"
	CTRACE_ARGS=all CTRACE_RETVAL=all CTRACE_PLAN= \
		run_traced values.bin ./valrepeat 30
	run_traced plain.bin ./valrepeat 30
	for f in report folded graph stats dot flamegraph graph-stats; do
		symbolize "$f.values" -f $f values.bin
		symbolize "$f.plain" -f $f plain.bin
	done
	symbolize folded.values -f folded --weight=calls values.bin
	symbolize folded.plain -f folded --weight=calls plain.bin
	grep -q 'main;add' folded.plain || fail "no add in the folded stacks"
	cmp folded.plain folded.values ||
		fail "the folded stacks of a trace with values differ"
	# --where reads values in every view: the warning comes back
	"$CTRACE_SYMBOLIZE" -f report --where 'add.retval > 0' \
		values.bin >where.out 2>where.err
	grep -q 'no debug information' where.err ||
		{ cat where.err; fail "--where did not read the values"; }
}

# The views with values free what they decoded: the sanitized symbolizer
# with LeakSanitizer (libbfd's own leak suppressed, tests/lsan.supp, which
# needs the slow unwinder) on a trace with arguments and return values,
# whose return values' types are found once per function and named at
# every call.
case_leaks() {
	use_config "$1"
	san=$top_builddir/tests/ctrace-symbolize-san
	[ "$HAVE_SANITIZERS" = yes ] && [ -x "$san" ] ||
		skip "no sanitized symbolizer"
	ASAN_OPTIONS=detect_leaks=1:exitcode=86:fast_unwind_on_malloc=0
	LSAN_OPTIONS=suppressions=$tests_srcdir/lsan.supp:print_suppressions=0
	export ASAN_OPTIONS LSAN_OPTIONS
	"$san" --version 2>&1 | grep -q 'LeakSanitizer has encountered' &&
		skip "LeakSanitizer does not work here"
	build_c valrepeat "$PROGS/valrepeat.c"
	CTRACE_ARGS=all CTRACE_RETVAL=all CTRACE_PLAN= \
		run_traced trace.bin "$BIN/valrepeat" 10
	for f in tree json chrome perfetto; do
		"$san" -f $f -o $f trace.bin 2>$f.err || {
			sed -n '1,30p' $f.err
			fail "-f $f: the sanitized symbolizer failed"
		}
	done
}

for cfg in $(configs); do
	run_case "same-$cfg" case_same "$cfg"
	run_case "views-$cfg" case_views "$cfg"
	run_case "leaks-$cfg" case_leaks "$cfg"
done

test_finish
