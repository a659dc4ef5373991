#!/bin/sh
# perfetto.sh -- the Perfetto format (-f perfetto, ctrace dump --perfetto),
# decoded by protoc with the published schema's field numbers
# (perfetto.proto) and read as Perfetto reads it (perfetto_check.py):
#
#   demo, args    every slice is a call of the JSON output of the same
#                 trace (function, thread, start, duration, depth,
#                 arguments, return value), every source location the
#                 line where its function is defined; the arguments and
#                 return values of examples/args.c exactly
#   launcher      ctrace dump --perfetto writes the same bytes
#   bounded       a synthetic trace of 3 million events is written under
#                 a 30 MB address space, smaller than the output (39 MB),
#                 at under 16 bytes an event

. "$(dirname "$0")/../lib.sh"
test_init outputs-perfetto
OUTPUTS=$top_srcdir/tests/outputs
CHECK=$OUTPUTS/perfetto_check.py
EXAMPLES=$top_srcdir/examples
: "${MKTRACE:=$top_builddir/tests/mktrace}"

need_protoc() {
	need_python
	command -v protoc >/dev/null 2>&1 ||
		skip "protoc not found (Debian: protobuf-compiler)"
}

# perfetto_vs_json TRACE SOURCE: both formats of TRACE, checked
perfetto_vs_json() {
	symbolize out.pftrace --format=perfetto "$1"
	symbolize out.json --format=json "$1"
	"$PYTHON3" -S "$CHECK" "$OUTPUTS" out.pftrace out.json "$2" \
		>check.out 2>&1 || { cat check.out; fail "Perfetto disagrees with JSON"; }
	cat check.out
}

case_demo() {
	use_config "$1"
	need_protoc
	build_c demo "$EXAMPLES/demo.c"
	run_traced trace.bin "$BIN/demo"
	perfetto_vs_json trace.bin "$EXAMPLES/demo.c"
	# two threads, each a sequence; main's calls and the worker's fib
	grep -q ' 2 threads, ' check.out || fail "not two threads"
}

case_args() {
	use_config "$1"
	need_protoc
	build_c args "$EXAMPLES/args.c"
	CTRACE_ARGS=all CTRACE_RETVAL=all run_traced trace.bin "$BIN/args"
	perfetto_vs_json trace.bin "$EXAMPLES/args.c"
	case $1 in
	*-O0-*)
		# sorted: C leaves the order of main's calls (they are
		# printf's arguments) to the compiler
		"$PYTHON3" -S "$CHECK" --list "$OUTPUTS" out.pftrace out.json |
			sed 's/0x[0-9a-f]*/POINTER/' | sort >listing ||
			fail "cannot list the slices"
		sort "$OUTPUTS/expected/args.perfetto" >expected
		diff -u expected listing ||
			fail "arguments and return values differ"
		;;
	esac
}

case_launcher() {
	use_config "$1"
	[ -x "$top_builddir/ctrace" ] || skip "no launcher"
	build_c args "$EXAMPLES/args.c"
	run_traced trace.bin "$BIN/args"
	symbolize direct --format=perfetto trace.bin
	CTRACE_SYMBOLIZE="$CTRACE_SYMBOLIZE" \
		"$top_builddir/ctrace" dump --perfetto -o dumped trace.bin ||
		fail "ctrace dump --perfetto failed"
	cmp direct dumped || fail "ctrace dump --perfetto wrote other bytes"
}

case_bounded() {
	need_protoc
	"$MKTRACE" --synthetic=3000000 big.bin || fail "mktrace failed"
	(ulimit -v 30000; exec "$CTRACE_SYMBOLIZE" -f perfetto big.bin) \
		>big.pftrace 2>err || { cat err; fail "not written in 30 MB"; }
	size=$(wc -c <big.pftrace)
	events=$(protoc --decode_raw <big.pftrace | grep -c '^  11 {')
	[ "$events" -eq 3000000 ] || fail "$events events, expected 3000000"
	echo "$size bytes, $events events"
	[ "$size" -lt $((16 * events)) ] || fail "over 16 bytes an event"
}

for cfg in $(configs_pie); do
	run_case "demo-$cfg" case_demo "$cfg"
	run_case "args-$cfg" case_args "$cfg"
done
run_case launcher case_launcher "$(configs_pie | head -n 1)"
run_case bounded case_bounded

test_finish
