#!/bin/sh
# inlined.sh -- arguments of inlined copies (tests/args/inlined.c), gcc and
# clang at -O1 to -O3, with a capture plan.  The entry hook of an inlined
# copy runs in its host's code; its arguments are the inlined subroutine's
# formal parameters at that PC.  Every value shown must be the one the
# program printed (check.py), and no call of the inlined helpers may be
# shown without arguments (args null, "no debug information": the program
# has full debug information).  inlined_cxx.cc: a C++ inline method
# inlined in two compilation units, linked in both orders.  lambda.cc: a
# lambda's operator() kept out of line, whose definition gcc nests in the
# function holding the lambda: every value shown, and no hint about
# missing debug information.

. "$(dirname "$0")/../lib.sh"
test_init args-inlined
[ -n "$PYTHON3" ] || skip_script "python3 not found"
ARGS_SRC=$top_srcdir/tests/args

# check_values BUILD: ./prog, with a capture plan, shows every argument the
# program printed for itself.
check_values() {
	"$CTRACE_SYMBOLIZE" --make-plan -o prog.plan prog ||
		fail "ctrace-symbolize --make-plan failed"
	CTRACE_ARGS=all CTRACE_PLAN=prog.plan CTRACE_OUTPUT=trace.bin \
		./prog >expected || fail "the program failed"
	"$CTRACE_SYMBOLIZE" -f json trace.bin >trace.json ||
		fail "ctrace-symbolize failed"
	"$PYTHON3" -S "$ARGS_SRC/check.py" expected trace.json "$1" ||
		fail "wrong values"
}

case_inlined() {
	cc=$1 opt=$2
	"$cc" -g "-O$opt" -finstrument-functions -I"$CTRACE_INCDIR" -o prog \
		"$ARGS_SRC/inlined.c" "$CTRACE_LIBDIR/libctrace.a" -lpthread \
		-ldl || fail "$cc -O$opt: build failed"
	check_values "$cc -O$opt"
	no_bare_helpers 16 scale mix halve
}

# no_bare_helpers N FUNCTION...: trace.json has N calls of the functions,
# each with its arguments.
no_bare_helpers() {
	"$PYTHON3" -S - trace.json "$@" <<'PY' || fail "inlined copies without arguments"
import json, sys
doc = json.load(open(sys.argv[1]))
want, helpers = int(sys.argv[2]), sys.argv[3:]
calls = [c for c in doc["calls"] if c["function"] in helpers]
bare = [c for c in calls if c.get("args") is None]
for c in bare[:5]:
    print("%s: args %s" % (c["function"], c.get("args_unavailable")))
if len(calls) != want:
    print("%d calls of %s, want %d" % (len(calls), ", ".join(helpers), want))
    sys.exit(1)
sys.exit(1 if bare else 0)
PY
}

case_inlined_cxx() {
	cxx=$1
	shift
	command -v "$cxx" >/dev/null 2>&1 || skip "$cxx not found"
	"$cxx" -g -O2 -finstrument-functions -I"$CTRACE_INCDIR" -o prog \
		"$@" "$CTRACE_LIBDIR/libctrace.a" -lpthread -ldl ||
		fail "$cxx: build failed"
	check_values "$cxx"
	no_bare_helpers 6 Acc::add
}

# case_lambda CXX: every argument and return value of the lambda is shown
# (--strict), and the symbolizer says nothing on stderr (its hint "no debug
# information" would be false: the program has it all).
case_lambda() {
	cxx=$1
	command -v "$cxx" >/dev/null 2>&1 || skip "$cxx not found"
	"$cxx" -g -O2 -finstrument-functions -I"$CTRACE_INCDIR" -o prog \
		"$ARGS_SRC/lambda.cc" "$CTRACE_LIBDIR/libctrace.a" -lpthread \
		-ldl || fail "$cxx: build failed"
	"$CTRACE_SYMBOLIZE" --make-plan -o prog.plan prog ||
		fail "ctrace-symbolize --make-plan failed"
	CTRACE_ARGS=all CTRACE_RETVAL=all CTRACE_PLAN=prog.plan \
		CTRACE_OUTPUT=trace.bin ./prog >expected 2>/dev/null ||
		fail "the program failed"
	"$CTRACE_SYMBOLIZE" -f json trace.bin >trace.json 2>symbolize.err ||
		fail "ctrace-symbolize failed"
	if [ -s symbolize.err ]; then
		cat symbolize.err
		fail "ctrace-symbolize printed a hint"
	fi
	"$PYTHON3" "$ARGS_SRC/check.py" --strict expected trace.json "$cxx" ||
		fail "values wrong or not recovered"
}

compilers=gcc
[ -n "$CLANG" ] && compilers="gcc clang"
for cc in $compilers; do
	for opt in $(in_matrix "1 2 3" 2); do
		run_case "$cc-O$opt" case_inlined $cc $opt
	done
	cxx=$([ "$cc" = gcc ] && echo g++ || echo clang++)
	run_case "$cxx-units" case_inlined_cxx $cxx \
		"$ARGS_SRC/inlined_cxx.cc" "$ARGS_SRC/inlined_cxx2.cc"
	run_case "$cxx-units-swapped" case_inlined_cxx $cxx \
		"$ARGS_SRC/inlined_cxx2.cc" "$ARGS_SRC/inlined_cxx.cc"
	run_case "$cxx-lambda" case_lambda $cxx
done
test_finish
