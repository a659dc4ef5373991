#!/bin/sh
# badinput.sh -- the symbolizer given damaged or wrong input, missing
# binaries and bad options: it must answer with exit status 0, 1 or 2 and
# a message naming the file, never crash.  badinput-san.sh runs this
# script again with the symbolizer built with sanitizers.
#
# The cases fuzz and fuzz-threads (tests/fuzz-trace.py: thousands of
# damaged copies of real traces) are slow and run only with
# CTRACE_TEST_SLOW=yes, which make check-slow sets; make fuzz's libFuzzer
# target covers the same reader.

. "$(dirname "$0")/lib.sh"
test_init badinput

# sym_status OUT ARGS...: run the symbolizer, set $status, fail on a crash
# or a sanitizer report.
sym_status() {
	so_out=$1
	shift
	"$CTRACE_SYMBOLIZE" "$@" >"$so_out" 2>"$so_out.err"
	status=$?
	cat "$so_out.err"
	[ $status -lt 128 ] || fail "killed by signal $((status - 128))"
	if grep -q -e 'Sanitizer' -e 'runtime error:' "$so_out.err"; then
		fail "sanitizer report"
	fi
}

# expect_error OUT STATUS TEXT ARGS...: exit with STATUS and an error
# message on stderr containing TEXT.
expect_error() {
	ee_out=$1
	ee_want=$2
	ee_text=$3
	shift 3
	sym_status "$ee_out" "$@"
	[ $status -eq "$ee_want" ] ||
		fail "exit status $status, expected $ee_want"
	grep -q -F -e "$ee_text" "$ee_out.err" ||
		fail "no message with \"$ee_text\""
	grep -q '^ctrace-symbolize: ' "$ee_out.err" ||
		fail "message not prefixed with ctrace-symbolize:"
}

# A real trace to damage: fib, with two threads' worth of metadata.
make_trace() {
	use_config "$(configs | head -n 1)"
	build_c fib "$PROGS/fib.c"
	run_traced "$1" "$BIN/fib" 5
}

# The sanity cases: a normal trace symbolizes correctly with this
# symbolizer (the sanitized one too).
case_valid() {
	make_trace trace.bin
	symbolize_stable tree trace.bin
	compare "$(expected fib5)" tree
	symbolize out.json --format=json trace.bin
	if [ -n "$PYTHON3" ]; then
		"$PYTHON3" -S "$tests_srcdir/check-json.py" out.json --count fib=15 ||
			fail "bad JSON"
	fi
}

# Every format and view on the valid trace: nothing for the sanitizers
# to report (the sanitized symbolizer runs this too).
case_valid_formats() {
	make_trace trace.bin
	for args in "-f tree" "-f json" "-f report" "-f dot" "-f chrome" \
		"-f folded" "-f flamegraph" "-f perfetto" "-f stats" \
		"-f stats --per-thread" "-f graph" "-f graph --function=fib" \
		"-f graph --function=main" "-C fib" "-T fib@depth=1" \
		"--where n>1||retval==0" "--color=always -f report"; do
		# shellcheck disable=SC2086 # ARGS are words
		sym_status out $args trace.bin
		[ $status -eq 0 ] || fail "$args: exit status $status"
	done
}

case_valid_threads() {
	use_config "$(configs | head -n 1)"
	build_c threads "$PROGS/threads.c"
	run_traced trace.bin "$BIN/threads"
	symbolize_stable tree trace.bin --srcline
	check_tree tree
	symbolize_stable tree2 trace.bin
	compare "$(expected threads)" tree2
}

case_empty() {
	: >empty.bin
	expect_error out 1 empty.bin empty.bin
	[ -s out ] && fail "output for an empty file"
	return 0
}

case_missing_file() {
	sym_status out no-such-file.bin
	[ $status -eq 1 ] || [ $status -eq 2 ] ||
		fail "exit status $status for a missing file"
	grep -q -F no-such-file.bin out.err || fail "message does not name the file"
}

# No input can be read: nothing is written, in any format (not even an
# empty document such as `digraph calls {}'), and -o's file is left as it
# was.
case_missing_file_no_output() {
	for fmt in tree json report dot chrome folded flamegraph; do
		sym_status out -f "$fmt" no-such-file.bin
		[ $status -eq 1 ] || fail "-f $fmt: exit status $status"
		[ -s out ] && fail "-f $fmt: output for a missing file"
	done
	printf 'before\n' >kept.dot
	sym_status out -f dot -o kept.dot no-such-file.bin
	[ $status -eq 1 ] || fail "-o: exit status $status"
	[ "$(cat kept.dot)" = before ] || fail "-o: the file was replaced"
	return 0
}

case_directory() {
	mkdir dir.bin
	sym_status out dir.bin
	[ $status -eq 1 ] || [ $status -eq 2 ] ||
		fail "exit status $status for a directory"
	grep -q -F dir.bin out.err || fail "message does not name the file"
}

case_random() {
	head -c 20000 /dev/urandom >random.bin
	expect_error out 1 'random.bin: not a ctrace trace' random.bin
}

case_text() {
	printf 'hello, world\n' >text.bin
	expect_error out 1 'text.bin: not a ctrace trace' text.bin
}

case_wrong_magic() {
	make_trace trace.bin
	printf 'X' | dd of=trace.bin bs=1 seek=1 conv=notrunc 2>/dev/null
	expect_error out 1 'trace.bin: not a ctrace trace' trace.bin
}

case_header_only() {
	make_trace trace.bin
	head -c 4096 trace.bin >header.bin
	expect_error out 1 'header.bin: cut short (it holds 0 of the 2 chunks the program wrote) at offset 4096' header.bin
	grep -q -F 'header.bin: no events: the file holds its header only' \
		out.err || fail "no word on what the file holds"
}

# A trace cut exactly where a chunk starts: every chunk present decodes,
# the cut is named with its offset, and the status is 1.
case_cut_at_chunk() {
	use_config "$(configs | head -n 1)"
	build_c fib "$PROGS/fib.c"
	CTRACE_CHUNK_SIZE=4k run_traced trace.bin "$BIN/fib" 18
	size=$(wc -c <trace.bin)
	chunks=$(((size - 4096) / 4096))
	[ "$chunks" -ge 4 ] || fail "only $chunks chunks in the trace"
	k=1
	while [ $k -lt "$chunks" ]; do
		head -c $((4096 + k * 4096)) trace.bin >cut.bin
		expect_error out 1 "cut.bin: cut short (it holds $k of the $chunks chunks the program wrote) at offset $((4096 + k * 4096))" cut.bin
		k=$((k + 1))
	done
	# the whole file: no message
	symbolize out trace.bin
}

# A damaged chunk whose successors continue its pair table (format 5):
# they are skipped, said once with the chunk that continues it, up to the
# thread's next chunk that starts afresh (one per MiB of a thread: every
# 256th 4 KiB chunk), whose events decode; the status is 1.
case_damaged_carried() {
	need_python
	use_config "$(configs | head -n 1)"
	build_c fib "$PROGS/fib.c"
	CTRACE_CHUNK_SIZE=4k run_traced trace.bin "$BIN/fib" 27
	"$PYTHON3" -S - trace.bin <<'EOF' || fail "could not damage the trace"
import struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
header_size, chunk_size = struct.unpack_from('<II', data, 20)
seqs = {}
for off in range(header_size, len(data), chunk_size):
    magic, kind, hsize, thread, tid, seq, base, flags = struct.unpack_from(
        '<IHHIIQQI', data, off)
    if magic == 0x4b484354 and kind == 1:
        seqs[seq] = (off, hsize, flags)
assert len(seqs) > 300, len(seqs)
assert seqs[6][2] == 1 and seqs[256][2] == 0 and seqs[257][2] == 1, \
    [(k, seqs[k][2]) for k in (0, 6, 255, 256, 257)]
off, hsize, _ = seqs[5]
data[off + hsize] = 0x81      # an EXIT tag, then no EXIT record
data[off + hsize + 1] = 0x01
open(sys.argv[1], 'wb').write(data)
EOF
	expect_error out 1 "thread 1: chunk 6 continues the pair table of chunk 5, which could not be decoded to its end: its events are skipped up to the thread's next chunk that starts afresh" \
		$STABLE_OPTS trace.bin
	[ "$(grep -c -F 'continues the pair table' out.err)" -eq 1 ] ||
		fail "the skipped chunks are not said once"
	grep -q -F 'bad exit tag 0x01' out.err || fail "the damage is not named"
	# the events of chunk 256 on: fib's calls, and main's exit
	n=$(grep -c 'fib' out)
	[ "$n" -gt 100000 ] || fail "only $n lines name fib"
	tail -n 1 out | grep -q -F '} /* main' || fail "main's exit is missing"
}

# A complete trace without events (recording never switched on) is no
# error, but the empty tree is explained.
case_no_events() {
	use_config "$(configs | head -n 1)"
	build_c fib "$PROGS/fib.c"
	CTRACE_START=off run_traced trace.bin "$BIN/fib" 5
	sym_status out trace.bin
	[ $status -eq 0 ] || fail "exit status $status, expected 0"
	grep -q -x 'ctrace-symbolize: trace.bin: no events: the file holds its header and 1 chunk of metadata' \
		out.err || fail "no word on what the file holds"
}

# The valid trace first, then a damaged one: the first is printed in full,
# and the status is 1.
case_valid_then_bad() {
	make_trace trace.bin
	: >empty.bin
	sym_status out $STABLE_OPTS trace.bin empty.bin
	[ $status -eq 1 ] || fail "exit status $status, expected 1"
	grep -q -F '| } /* main */' out || fail "the valid trace is not printed"
}

# need_slow: skip the case unless the slow cases were asked for.
need_slow() {
	[ "${CTRACE_TEST_SLOW:-}" = yes ] || skip "slow: make check-slow runs it"
}

case_fuzz() {
	need_slow
	need_python
	make_trace trace.bin
	mkdir fuzz
	"$PYTHON3" -S "$tests_srcdir/fuzz-trace.py" ${FUZZ_OPTS:-} \
		"$CTRACE_SYMBOLIZE" trace.bin fuzz || fail "fuzzing found crashes"
}

case_fuzz_threads() {
	need_slow
	need_python
	use_config "$(configs | head -n 1)"
	build_c threads-busy "$PROGS/threads-busy.c"
	run_traced trace.bin "$BIN/threads-busy" 300
	mkdir fuzz
	"$PYTHON3" -S "$tests_srcdir/fuzz-trace.py" --flips 60 --max-cuts 200 \
		--chunk-fraction 0.15 ${FUZZ_OPTS:-} \
		"$CTRACE_SYMBOLIZE" trace.bin fuzz ||
		fail "fuzzing found crashes"
}

# The binary is gone: a warning, and names made of module and offset.
case_missing_binary() {
	use_config "$(configs | head -n 1)"
	build_c fib "$PROGS/fib.c"
	cp "$BIN/fib" ./fib-copy
	run_traced trace.bin ./fib-copy 3
	rm fib-copy
	sym_status tree $STABLE_OPTS trace.bin
	[ $status -eq 0 ] || fail "exit status $status, expected 0"
	grep -q '^ctrace-symbolize: .*fib-copy' tree.err ||
		fail "no warning naming the missing binary"
	check_tree tree
	grep -q '| fib-copy+0x[0-9a-f]*() {$' tree ||
		fail "no fib-copy+0xOFFSET names in the tree"
	n=$(grep -c '| *fib-copy+0x[0-9a-f]*\(() {\|();\)$' tree)
	[ "$n" -eq 6 ] || fail "$n module+offset calls, expected 6 (main, 5 fib)"
	sym_status out.json --format=json trace.bin
	[ $status -eq 0 ] || fail "JSON: exit status $status, expected 0"
}

# --search-dir finds a binary that moved.
case_search_dir() {
	use_config "$(configs | head -n 1)"
	build_c fib "$PROGS/fib.c"
	mkdir gone moved
	cp "$BIN/fib" gone/fib
	run_traced trace.bin gone/fib 5
	mv gone/fib moved/fib
	sym_status tree $STABLE_OPTS --search-dir=moved trace.bin
	[ $status -eq 0 ] || fail "exit status $status"
	compare "$(expected fib5)" tree
}

# The binary was rebuilt since the trace was taken: a warning.
case_rebuilt_binary() {
	use_config "$(configs | head -n 1)"
	build_c fib "$PROGS/fib.c"
	cp "$BIN/fib" ./fib
	run_traced trace.bin ./fib 3
	# Another program (another build-id) under the same name.
	cp "$BIN/fib" fib.orig
	build_c funcptr "$PROGS/funcptr.c"
	cp "$BIN/funcptr" ./fib
	sym_status tree $STABLE_OPTS trace.bin
	[ $status -le 1 ] || fail "exit status $status"
	grep -q '^ctrace-symbolize: .*fib' tree.err ||
		fail "no warning about the rebuilt binary"
}

case_usage() {
	make_trace trace.bin
	sym_status out
	[ $status -eq 2 ] || fail "no arguments: exit status $status, expected 2"
	sym_status out --no-such-option trace.bin
	[ $status -eq 2 ] || fail "unknown option: exit status $status"
	sym_status out --format=xml trace.bin
	[ $status -eq 2 ] || fail "--format=xml: exit status $status"
	sym_status out --thread-ids=foo trace.bin
	[ $status -eq 2 ] || fail "--thread-ids=foo: exit status $status"
	sym_status out --demangle=foo trace.bin
	[ $status -eq 2 ] || fail "--demangle=foo: exit status $status"
	sym_status out --help
	[ $status -eq 0 ] || fail "--help: exit status $status"
	grep -q -e '--srcline' out || fail "--help does not list --srcline"
	sym_status out --version
	[ $status -eq 0 ] || fail "--version: exit status $status"
	[ -s out ] || fail "--version printed nothing"
	sym_status out -o no/such/dir/out trace.bin
	[ $status -ge 1 ] && [ $status -le 2 ] ||
		fail "-o into a missing directory: exit status $status"
}

run_case valid case_valid
run_case valid-formats case_valid_formats
run_case valid-threads case_valid_threads
run_case empty case_empty
run_case missing-file case_missing_file
run_case missing-file-no-output case_missing_file_no_output
run_case directory case_directory
run_case random-bytes case_random
run_case text case_text
run_case wrong-magic case_wrong_magic
run_case header-only case_header_only
run_case cut-at-chunk case_cut_at_chunk
run_case no-events case_no_events
run_case damaged-carried case_damaged_carried
run_case valid-then-bad case_valid_then_bad
run_case missing-binary case_missing_binary
run_case search-dir case_search_dir
run_case rebuilt-binary case_rebuilt_binary
run_case usage case_usage
run_case fuzz case_fuzz
run_case fuzz-threads case_fuzz_threads

test_finish
