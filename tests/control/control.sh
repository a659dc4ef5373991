#!/bin/sh
# control.sh -- record-time control on a real program: CTRACE_FILTER
# (globs, regexes, first match wins), CTRACE_DEPTH, CTRACE_MIN_DURATION,
# recording switched off and on by the API (process and thread),
# CTRACE_START=off and CTRACE_SIGNAL, markers, tracepoints and the live
# callback; each an exact tree, in every compiler configuration.

. "$(dirname "$0")/../lib.sh"
test_init control

CONTROL_EXPECTED=$top_srcdir/tests/control/expected

# scenario CONFIG EXPECTED SCENARIO [VAR=VALUE...]: run control SCENARIO
# with the recorder variables given; its tree must be EXPECTED.tree.
scenario() {
	use_config "$1"
	want=$2
	what=$3
	shift 3
	build_c control "$top_srcdir/tests/control/control.c"
	for v in "$@"; do
		export "${v?}"
	done
	run_traced trace.bin "$BIN/control" "$what"
	symbolize_stable tree trace.bin
	compare "$CONTROL_EXPECTED/$want.tree" tree
	check_tree tree
}

case_marks() {
	scenario "$1" marks marks CTRACE_TRACEPOINTS=tp_rows
	printf 'enabled 1\ndisabled 2\n' >want.out
	compare want.out trace.bin.out
	# Markers reach the other outputs too.
	symbolize json.out -f json trace.bin
	n=$(grep -c '"kind": "mark"' json.out)
	[ "$n" -eq 3 ] || fail "JSON has $n markers, expected 3"
	symbolize chrome.out -f chrome trace.bin
	n=$(grep -c '"ph": "i"' chrome.out)
	[ "$n" -eq 6 ] || fail "chrome trace has $n instant events, expected 6"
}

case_callback() {
	scenario "$1" callback callback
	# 5 calls of work(1) with the callback on, at depths 0 to 2 (main
	# was entered before the callback was set); in_callback() untraced.
	echo 'entries=5 exits=5 depth=2 enabled=1' >want.out
	compare want.out trace.bin.out
}

# The API's own work is the recorder's: with library calls recorded, its
# calls into the C library (errno's address, a thread's registration:
# mmap, pthread_setspecific, prctl...) are not the program's, and a
# thread whose first call is the API's is registered once.  Each scenario
# that calls the API or raises the toggle signal (its handler is the
# recorder's), with library calls on.
case_api_libcalls() {
	use_config "$1"
	build_c control "$top_srcdir/tests/control/control.c"
	for what in onoff thread marks callback signal; do
		CTRACE_LIBCALL=on CTRACE_TRACEPOINTS=tp_rows \
			CTRACE_SIGNAL=USR2 \
			run_traced "$what.bin" "$BIN/control" "$what"
		symbolize_stable "$what.tree" "$what.bin"
		if grep -E '\| *(__errno_location|pthread_[gs]etspecific|mmap|munmap|prctl|syscall|strnlen|vsnprintf|clock_gettime|sched_yield|pthread_mutex_(un)?lock|memcpy)\(\)' \
			"$what.tree" >recorder.calls; then
			cat recorder.calls
			fail "$what: the recorder's own library calls recorded"
		fi
		check_tree "$what.tree"
	done
}

# ctrace_version() is the version of the header and of the package, and
# the recorder enables a tracepoint by the size it was compiled with: one
# too small never, one from a later (larger) header by its prefix.
case_abi() {
	use_config "$1"
	build_c control "$top_srcdir/tests/control/control.c"
	run_traced trace.bin "$BIN/control" abi
	version=$("$CTRACE_SYMBOLIZE" --version | sed -n '1s/.* //p')
	cat >want.out <<EOF
version $version header $version same
abi_small 0 enabled 0
abi_later 1 enabled 1
abi_* 1
EOF
	compare want.out trace.bin.out
}

# A filtered-out function must not reach the trace at all.
case_filter_bytes() {
	use_config "$1"
	build_c control "$top_srcdir/tests/control/control.c"
	CTRACE_FILTER='!*'
	export CTRACE_FILTER
	run_traced trace.bin "$BIN/control" work
	"$CTRACE_SYMBOLIZE" $STABLE_OPTS trace.bin >tree 2>tree.err ||
		fail "ctrace-symbolize exited with status $?"
	printf '# DURATION     TID     FUNCTION\n' >want.tree
	compare want.tree tree
	# no thread's stream at all, and the symbolizer says why it is empty
	echo 'ctrace-symbolize: trace.bin: no events: the file holds its' \
		'header and 1 chunk of metadata' >want.err
	compare want.err tree.err
}

for cfg in $(configs_pie); do
	run_case "work-$cfg" scenario "$cfg" work work
	run_case "filter-exclude-$cfg" scenario "$cfg" filter-exclude work \
		'CTRACE_FILTER=!helper_*'
	run_case "filter-include-$cfg" scenario "$cfg" filter-include work \
		CTRACE_FILTER=work,leaf
	run_case "filter-first-match-$cfg" scenario "$cfg" filter-first-match \
		work 'CTRACE_FILTER=helper_a,!helper_*,*'
	run_case "filter-regex-$cfg" scenario "$cfg" filter-exclude work \
		CTRACE_MATCH=regex 'CTRACE_FILTER=!^helper_(a|b)$'
	run_case "filter-all-out-$cfg" case_filter_bytes "$cfg"
	run_case "depth-$cfg" scenario "$cfg" depth work CTRACE_DEPTH=2
	run_case "duration-$cfg" scenario "$cfg" duration outer \
		CTRACE_MIN_DURATION=1ms
	run_case "onoff-$cfg" scenario "$cfg" onoff onoff
	run_case "start-off-$cfg" scenario "$cfg" start start CTRACE_START=off
	run_case "thread-$cfg" scenario "$cfg" thread thread
	run_case "signal-$cfg" scenario "$cfg" signal signal \
		CTRACE_SIGNAL=USR2
	# the launcher's spellings (common/signame.c): any case, SIG or not
	run_case "signal-lower-$cfg" scenario "$cfg" signal signal \
		CTRACE_SIGNAL=sigusr2
	run_case "marks-$cfg" case_marks "$cfg"
	run_case "callback-$cfg" case_callback "$cfg"
	run_case "abi-$cfg" case_abi "$cfg"
	run_case "api-libcalls-$cfg" case_api_libcalls "$cfg"
done
test_finish
