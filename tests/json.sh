#!/bin/sh
# json.sh -- the JSON output: every field well-formed, calls nesting by
# their times and depths, and the trees rebuilt from the JSON alone equal
# to the hand-written expected trees.

. "$(dirname "$0")/lib.sh"
test_init json
[ -n "$PYTHON3" ] || skip_script "python3 not found"

check_json() {
	"$PYTHON3" -S "$tests_srcdir/check-json.py" "$@" || fail "JSON check failed"
}

# json_case CONFIG NAME PROGRAM BUILD [ARGS...]: the JSON of PROGRAM's trace
# rebuilds into expected/NAME.tree.
json_case() {
	use_config "$1"
	name=$2
	prog=$3
	$4 "$prog" "$PROGS/$prog.$(
		[ "$4" = build_cxx ] && echo cc || echo c)"
	shift 4
	run_traced trace.bin "$BIN/$prog" "$@"
	symbolize out.json --format=json --thread-ids=serial trace.bin
	check_json out.json --tree tree --library "main=/$prog"
	compare "$(expected "$name")" tree
}

case_fib_count() {
	use_config "$1"
	build_c fib "$PROGS/fib.c"
	run_traced trace.bin "$BIN/fib" 20
	symbolize out.json -f json trace.bin
	check_json out.json --count fib=21891 --count main=1 --unfinished 0 \
		--library "fib=/fib"
}

case_threads() {
	use_config "$1"
	build_c threads-busy "$PROGS/threads-busy.c"
	run_traced trace.bin "$BIN/threads-busy" 5000
	symbolize out.json --format=json trace.bin
	# the threads' calls interleave: still listed as they return
	check_json out.json --count leaf=20000 --count spin=4 --count worker=3 \
		--merged-order
	# Kernel tids by default: four distinct ones, none of them a serial.
	"$PYTHON3" -S -c '
import json, sys
calls = json.load(open(sys.argv[1]))["calls"]
tids = set(c["thread_id"] for c in calls)
sys.exit(0 if len(tids) == 4 else "%d thread ids" % len(tids))' out.json ||
		fail "wrong thread ids"
}

case_crash() {
	use_config "$1"
	build_c crash "$PROGS/crash.c"
	EXPECT_STATUS=134
	run_traced trace.bin "$BIN/crash" thread-abort
	symbolize out.json --format=json --thread-ids=serial trace.bin
	check_json out.json --tree tree --unfinished 6
	compare "$(expected crash-threads)" tree
}

# The order the contract gives: calls of all threads as they return, then
# every unfinished call.
case_merged_order() {
	use_config "$1"
	build_c crash "$PROGS/crash.c"
	EXPECT_STATUS=134
	run_traced trace.bin "$BIN/crash" thread-abort
	symbolize out.json --format=json trace.bin
	check_json out.json --merged-order --unfinished 6
	build_c threads "$PROGS/threads.c"
	EXPECT_STATUS=0
	run_traced trace.bin "$BIN/threads"
	symbolize out.json --format=json trace.bin
	check_json out.json --merged-order --unfinished 0
}

# A call without callees is written when its entry is read, its exit
# read ahead, only where no other thread's event comes before that exit:
# here thread 101's 0x2000 returns while thread 100's 0x1000 runs, and
# thread 100's 0x3000 while thread 101's 0x5000 runs.  (Of real threads,
# how they interleave depends on the run.)
case_leaf_order() {
	printf '%s\n' 'events 1 tid=100' \
		'enter 0x1000 0x1 @1000' 'leave 0x1000 0x1 @1100' \
		'enter 0x3000 0x1 @1200' 'leave 0x3000 0x1 @1210' \
		'events 2 tid=101' \
		'enter 0x2000 0x1 @1020' 'leave 0x2000 0x1 @1050' \
		'enter 0x4000 0x1 @1150' 'enter 0x5000 0x2 @1160' \
		'leave 0x5000 0x2 @1215' 'leave 0x4000 0x1 @1300' |
		"$top_builddir/tests/mktrace" t.bin || fail "mktrace failed"
	symbolize out.json -f json t.bin
	check_json out.json --merged-order --unfinished 0
	sed -n 's/^{"function": "\([^"]*\)".*/\1/p' out.json >order
	printf '%s\n' 0x2000 0x1000 0x3000 0x5000 0x4000 >expected
	compare expected order
	# one thread after the other, each as its calls return
	symbolize out.json -f json --per-thread t.bin
	sed -n 's/^{"function": "\([^"]*\)".*/\1/p' out.json >order
	printf '%s\n' 0x1000 0x3000 0x2000 0x5000 0x4000 >expected
	compare expected order
}

# Call sites.
case_sites() {
	use_config "$1"
	build_c callsite "$PROGS/callsite.c"
	run_traced trace.bin "$BIN/callsite"
	symbolize out.json --format=json trace.bin
	c=$PROGS/callsite.c
	check_json out.json \
		--site "outer=callsite.c:$(line_of "$c" CALL:main-outer)" \
		--site "inner=callsite.c:$(line_of "$c" CALL:main-inner)" \
		--site "inner=callsite.c:$(line_of "$c" CALL:outer-inner-1)" \
		--site "inner=callsite.c:$(line_of "$c" CALL:outer-inner-2)" \
		--site "inner=callsite.c:$(line_of "$c" CALL:pointer)" \
		--site "inner=callsite.h:$(line_of "$PROGS/callsite.h" \
			CALL:header-inner)" \
		--site "by_pointer=callsite.c:$(line_of "$c" CALL:main-pointer)"
}

# Libraries and call sites of calls in shared libraries.
case_shlib() {
	use_config "$1"
	build_shlib libdemo.so "$PROGS/libdemo.c"
	build_shlib plugin.so "$PROGS/plugin.c"
	build_c shlib-dlopen "$PROGS/shlib.c" -rdynamic -L"$BIN" -ldemo \
		-Wl,-rpath,"$BIN"
	run_traced trace.bin "$BIN/shlib-dlopen" "$BIN/plugin.so"
	symbolize out.json --format=json --thread-ids=serial trace.bin
	check_json out.json --tree tree \
		--site "lib_square=libdemo.c:$(line_of "$PROGS/libdemo.c" \
			CALL:lib-square)" \
		--site "exe_twice=libdemo.c:$(line_of "$PROGS/libdemo.c" \
			CALL:callback)" \
		--site "plugin_helper=plugin.c:$(line_of "$PROGS/plugin.c" \
			CALL:plugin-helper)" \
		--site "plugin_run=shlib.c:$(line_of "$PROGS/shlib.c" \
			CALL:plugin-run)" \
		--library main=/shlib-dlopen --library exe_twice=/shlib-dlopen \
		--library demo_compute=/libdemo.so \
		--library lib_square=/libdemo.so \
		--library plugin_run=/plugin.so \
		--library plugin_helper=/plugin.so
	compare "$(expected shlib-dlopen)" tree
}

# The types of parameters, as C writes them: "char * const" for a
# constant pointer, not "const char *".
case_typenames() {
	use_config "$1"
	build_c typenames "$PROGS/typenames.c"
	CTRACE_ARGS=all run_traced trace.bin "$BIN/typenames"
	symbolize out.json -f json trace.bin
	jq -r '.calls[] | select(.function == "f") | .args[] |
		"\(.name) \(.type)"' out.json >types
	printf '%s\n' 's const char * const' 'p const int * const' \
		'q char * const' 'v volatile int * volatile' >expected
	compare expected types
}

for cfg in $(configs_pie); do
	run_case "typenames-$cfg" case_typenames "$cfg"
	run_case "fib5-$cfg" json_case "$cfg" fib5 fib build_c 5
	run_case "funcptr-$cfg" json_case "$cfg" funcptr funcptr build_c
	run_case "ctors-$cfg" json_case "$cfg" ctors ctors build_c
	run_case "threads-$cfg" json_case "$cfg" threads threads build_c
	run_case "cxx-$cfg" json_case "$cfg" cxx cxx build_cxx
	run_case "longjmp-$cfg" json_case "$cfg" longjmp longjmp build_c
	run_case "sites-$cfg" case_sites "$cfg"
done
for cfg in $(configs_pie | grep O2); do
	run_case "fib20-count-$cfg" case_fib_count "$cfg"
	run_case "busy-$cfg" case_threads "$cfg"
	run_case "crash-$cfg" case_crash "$cfg"
	run_case "shlib-$cfg" case_shlib "$cfg"
	run_case "merged-order-$cfg" case_merged_order "$cfg"
done
run_case leaf-order case_leaf_order

test_finish
