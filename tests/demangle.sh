#!/bin/sh
# demangle.sh -- record-time patterns on C++ names match what the
# symbolizer's -F matches.
#
#   names     the recorder's demangler (lib/demangle.c) against libiberty,
#             as the symbolizer uses it, on every symbol of libstdc++ and
#             of the C++ test programs: where it reads a name, it must read
#             it exactly as libiberty does (coverage is printed)
#   patterns  CTRACE_FILTER=PATTERN records exactly the functions that
#             ctrace-symbolize -H PATTERN hides in a full trace, for
#             operators, lambdas, templates with ", ", static functions
#   nomatch   a pattern that matches no function gets one warning

. "$(dirname "$0")/lib.sh"
test_init demangle
DEMANGLE_TEST=$top_builddir/tests/demangle-test
[ -x "$DEMANGLE_TEST" ] || skip_script "$DEMANGLE_TEST not built"

# names FILE...: every function symbol of the ELF files.
names() {
	for f in "$@"; do
		nm --defined-only "$f" 2>/dev/null
		nm -D --defined-only "$f" 2>/dev/null
	done | awk '{ print $NF }' | sed 's/@.*//' | sort -u
}

case_names() {
	use_config "$1"
	build_cxx cxxnames "$PROGS/cxxnames.cc"
	build_cxx cxx "$PROGS/cxx.cc"
	build_cxx exceptions "$PROGS/exceptions.cc"
	libstdcxx=$(${CUR_CXX%% *} -print-file-name=libstdc++.so)
	libstdcxx=$(readlink -f "$libstdcxx")
	[ -f "$libstdcxx" ] || libstdcxx=
	names "$BIN/cxxnames" "$BIN/cxx" "$BIN/exceptions" $libstdcxx >names
	n=$(grep -c '^_Z' names)
	[ "$n" -gt 20 ] || fail "only $n C++ names to compare"
	"$DEMANGLE_TEST" <names >result || { cat result; fail "names differ"; }
	cat result
}

# recorded TRACE [OPTIONS]: the functions of the trace, one a line,
# sorted (none for a trace without events).
recorded() {
	"$CTRACE_SYMBOLIZE" -f report "$@" >"$1.report" 2>"$1.report.err" ||
		{ cat "$1.report.err" >&2; fail "ctrace-symbolize $* failed" >&2; }
	grep -v ': no events: ' "$1.report.err" >&2 &&
		fail "ctrace-symbolize $*: messages" >&2
	# six columns (five times with their units, and the calls) then the
	# name, which may hold spaces
	sed -n '3,$p' "$1.report" | sed -E 's/^ *([^ ]+ +){11}//' | sort
}

case_patterns() {
	use_config "$1"
	build_cxx cxxnames "$PROGS/cxxnames.cc"
	run_traced all.bin "$BIN/cxxnames"
	recorded all.bin >all.names
	# gcc names a lambda {lambda(int)#1}, clang $_0
	lambda='main::{lambda(int)#1}::operator()' lambda_pat='*lambda*'
	if [ "$CUR_FAMILY" = clang ]; then
		lambda='main::$_0::operator()' lambda_pat='*$_0*'
	fi
	grep -q -x -F "$lambda" all.names ||
		{ cat all.names; fail "the lambda is not in the trace"; }
	for pat in 'ns::Vec::operator+' '*operator*' 'main::*' "$lambda_pat" \
		'ns::pick<int, char>' 'ns::pick<long, std::pair<int, int>*>' \
		'ns::pick<*, *>' 'counter' 'ns::Vec::Vec' \
		'(anonymous namespace)::hidden' 'ns::*'; do
		CTRACE_FILTER=$pat run_traced rec.bin "$BIN/cxxnames"
		recorded rec.bin >rec.names
		recorded all.bin -H "$pat" >kept.names
		comm -23 all.names kept.names >want.names
		[ -s want.names ] || fail "-H '$pat' hides nothing"
		if ! cmp -s want.names rec.names; then
			diff -u want.names rec.names
			fail "CTRACE_FILTER='$pat' records other functions than -F matches"
		fi
	done
	# two patterns, one with a comma inside <>
	CTRACE_FILTER='counter,ns::pick<int, char>' run_traced rec.bin "$BIN/cxxnames"
	recorded rec.bin >rec.names
	printf '%s\n' counter 'ns::pick<int, char>' | sort >want.names
	compare want.names rec.names
}

case_nomatch() {
	use_config "$1"
	build_cxx cxxnames "$PROGS/cxxnames.cc"
	CTRACE_FILTER='counter,no_such_function' CTRACE_OUTPUT=t.bin \
		"$BIN/cxxnames" >out 2>err || fail "the program failed"
	echo 'ctrace: CTRACE_FILTER: no function loaded so far matches no_such_function' \
		>want.err
	compare want.err err
	CTRACE_QUIET=1 CTRACE_FILTER=no_such_function CTRACE_OUTPUT=t.bin \
		"$BIN/cxxnames" >out 2>err || fail "the program failed"
	[ ! -s err ] || { cat err; fail "CTRACE_QUIET: messages"; }
}

for cfg in $(configs_pie); do
	run_case "names-$cfg" case_names "$cfg"
	run_case "patterns-$cfg" case_patterns "$cfg"
done
run_case nomatch case_nomatch cc-O0-pie

test_finish
