#!/bin/sh
# matrix.sh -- arguments and return values (CTRACE_ARGS=all,
# CTRACE_RETVAL=all) of tests/args/matrix.c and matrix_cxx.cc, built with
# gcc and clang at -O0 to -O3, for x86-64 and (with gcc-multilib) i386,
# recorded with a capture plan (ctrace-symbolize --make-plan) and without.
# Every value shown must be the one passed or returned (check.py); values
# that cannot be recovered are counted, not failed.  The counts are
# written as a Markdown table to tests/args-coverage.md in the build tree.
# String arguments (strings.c) must all be shown exactly, cut at
# CTRACE_STRLEN, bad pointers marked.  Then the hazards of the return
# trampoline with capture on: longjmp, C++ exceptions and signal handlers
# must run exactly as without capture.

. "$(dirname "$0")/../lib.sh"
test_init args
[ -n "$PYTHON3" ] || skip_script "python3 not found"
ARGS_SRC=$top_srcdir/tests/args
TABLE=$top_builddir/tests/args-coverage.md
ROWS=$WORK/rows
NOPLAN=$WORK/rows-no-plan
: >"$ROWS"
: >"$NOPLAN"

# build CC OPT ARCH OUT SRC: an instrumented program with debug info.
build() {
	b_lib=$CTRACE_LIBDIR/libctrace.a
	[ "$3" = i386 ] && b_lib=$top_builddir/tests/m32/libctrace.a
	b_m=
	[ "$3" = i386 ] && b_m=-m32
	"$1" $b_m -g "-O$2" -finstrument-functions -I"$CTRACE_INCDIR" -o "$4" \
		"$5" "$b_lib" -lpthread -ldl || fail "$1 -O$2 $3: build failed"
}

# record_with_plan: ./prog's capture plan made, and ./prog recorded with
# both values by it: expected (what it printed) and trace.json.
record_with_plan() {
	"$CTRACE_SYMBOLIZE" --make-plan -o prog.plan prog ||
		fail "ctrace-symbolize --make-plan failed"
	CTRACE_ARGS=all CTRACE_RETVAL=all CTRACE_PLAN=prog.plan \
		CTRACE_OUTPUT=trace.bin ./prog >expected ||
		fail "the program failed"
	"$CTRACE_SYMBOLIZE" -f json trace.bin >trace.json ||
		fail "ctrace-symbolize failed"
}

case_matrix() {
	cc=$1 opt=$2 arch=$3 src=$4
	cxx=$cc
	case $src in
	*.cc) cxx=$([ "$cc" = gcc ] && echo g++ || echo clang++) ;;
	esac
	command -v "$cxx" >/dev/null 2>&1 || skip "$cxx not found"
	build "$cxx" "$opt" "$arch" prog "$ARGS_SRC/$src"
	record_with_plan
	"$PYTHON3" -S "$ARGS_SRC/check.py" expected trace.json \
		"$cc -O$opt $arch ${src%%.*}" >>"$ROWS" || fail "wrong values"
	# Without a plan: the generic stack windows.
	CTRACE_ARGS=all CTRACE_RETVAL=all CTRACE_OUTPUT=trace0.bin ./prog \
		>expected0 || fail "the program failed without a plan"
	"$CTRACE_SYMBOLIZE" -f json trace0.bin >trace0.json ||
		fail "ctrace-symbolize failed"
	"$PYTHON3" -S "$ARGS_SRC/check.py" --no-plan expected0 trace0.json \
		"$cc -O$opt $arch ${src%%.*}" >>"$NOPLAN" ||
		fail "wrong values without a plan"
}

# Strings, exactly: the plan is found next to the program.
case_strings() {
	cc=$1 opt=$2 arch=$3
	build "$cc" "$opt" "$arch" prog "$ARGS_SRC/strings.c"
	"$CTRACE_SYMBOLIZE" --make-plan -o prog.ctrace-plan prog ||
		fail "ctrace-symbolize --make-plan failed"
	for n in 64 8 0; do
		CTRACE_ARGS=all CTRACE_STRLEN=$n CTRACE_OUTPUT=s$n.bin \
			./prog $n >expected$n || fail "the program failed"
		"$CTRACE_SYMBOLIZE" -f json s$n.bin >s$n.json ||
			fail "ctrace-symbolize failed"
		"$PYTHON3" -S "$ARGS_SRC/check.py" --strict expected$n s$n.json \
			"strings $n" >/dev/null || fail "CTRACE_STRLEN=$n"
	done
}

# A program's output and status with capture on must be those without.
case_hazard() {
	cc=$1 src=$2
	shift 2
	cxx=$cc
	case $src in
	*.cc) cxx=$([ "$cc" = gcc ] && echo g++ || echo clang++) ;;
	esac
	command -v "$cxx" >/dev/null 2>&1 || skip "$cxx not found"
	build "$cxx" 2 x86_64 prog "$PROGS/$src"
	CTRACE=off ./prog "$@" >plain 2>&1
	plain_status=$?
	"$CTRACE_SYMBOLIZE" --make-plan -o prog.plan prog ||
		fail "ctrace-symbolize --make-plan failed"
	CTRACE_ARGS=all CTRACE_RETVAL=all CTRACE_PLAN=prog.plan \
		CTRACE_OUTPUT=trace.bin ./prog "$@" >captured 2>&1
	[ $? -eq $plain_status ] || fail "exit status differs with capture on"
	# signals.c prints how often its timer fired: not comparable
	[ "$src" = signals.c ] || cmp -s plain captured ||
		fail "output differs with capture on"
	"$CTRACE_SYMBOLIZE" trace.bin >tree || fail "ctrace-symbolize failed"
}

# all_shown_with_plan LABEL: every value ./prog printed is shown, and
# right, with its capture plan.
all_shown_with_plan() {
	record_with_plan
	"$PYTHON3" -S "$ARGS_SRC/check.py" --strict expected trace.json \
		"$1" >/dev/null || fail "a value not shown, or wrong"
}

compilers=gcc
[ -n "$CLANG" ] && compilers="gcc clang"
archs=x86_64
[ "$HAVE_M32" = yes ] && [ -f "$top_builddir/tests/m32/libctrace.a" ] &&
	archs="x86_64 i386"
for arch in $archs; do
	for cc in $compilers; do
		for opt in $(in_matrix "0 1 2 3" "0 2"); do
			run_case "$cc-O$opt-$arch" case_matrix $cc $opt $arch \
				matrix.c
			[ $arch = x86_64 ] && run_case "$cc-O$opt-$arch-cxx" \
				case_matrix $cc $opt $arch matrix_cxx.cc
			run_case "$cc-O$opt-$arch-modified" case_matrix $cc \
				$opt $arch modified.c
			run_case "$cc-O$opt-$arch-strings" case_strings $cc \
				$opt $arch
		done
	done
done
# Every value of spills.c shown at -O0, where the arguments sit in their
# spill slots at the hook (clang), with a plan and without.
case_spills() {
	cc=$1
	build "$cc" 0 x86_64 prog "$ARGS_SRC/spills.c"
	all_shown_with_plan "$cc spills"
	CTRACE_ARGS=all CTRACE_RETVAL=all CTRACE_OUTPUT=trace0.bin ./prog \
		>expected0 || fail "the program failed without a plan"
	"$CTRACE_SYMBOLIZE" -f json trace0.bin >trace0.json ||
		fail "ctrace-symbolize failed"
	"$PYTHON3" -S "$ARGS_SRC/check.py" --strict --no-plan expected0 \
		trace0.json "$cc spills" >/dev/null ||
		fail "a value not shown, or wrong, without a plan"
}

# Stack-passed arguments of calls whose entries lie 40 to 140 words apart
# and more, up and down (stackdelta.c): every value shown and right, so
# the reader's stack pointer is the program's whatever length the
# recorder wrote each stack delta in.
case_stack_deltas() {
	cc=$1 opt=$2 arch=$3
	build "$cc" "$opt" "$arch" prog "$ARGS_SRC/stackdelta.c"
	all_shown_with_plan "$cc stackdelta"
}

for arch in $archs; do
	for cc in $compilers; do
		for opt in 0 2; do
			run_case "stack-deltas-$cc-O$opt-$arch" \
				case_stack_deltas $cc $opt $arch
		done
	done
done

for cc in $compilers; do
	run_case "spills-$cc" case_spills $cc
	run_case "longjmp-$cc" case_hazard $cc longjmp.c
	run_case "exceptions-$cc" case_hazard $cc exceptions.cc
	run_case "signals-$cc" case_hazard $cc signals.c
done

# The coverage table: one row per build, C and C++ together.
"$PYTHON3" -S - "$ROWS" "$NOPLAN" >"$TABLE" <<'PY'
import sys

def read(path):
    rows = {}
    for line in open(path):
        words = line.split()
        key = " ".join(words[:3])
        counts = dict(w.split("=") for w in words[4:])
        r = rows.setdefault(key, [0, 0, 0])
        for i, k in enumerate(("recovered", "unavailable", "wrong")):
            r[i] += int(counts[k])
    return rows

plan, bare = read(sys.argv[1]), read(sys.argv[2])
print("| build | recovered | unavailable | wrong "
      "| recovered without plan | wrong without plan |")
print("|---|---:|---:|---:|---:|---:|")
for key, (ok, un, wr) in plan.items():
    b = bare.get(key, [0, 0, 0])
    print("| %s | %d | %d | %d | %d | %d |" % (key, ok, un, wr, b[0], b[2]))
PY
cat "$TABLE"
test_finish
