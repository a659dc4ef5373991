#!/bin/sh
# values.sh -- the value fuzzer on fixed seeds (tests/values/run.py): each
# seed's generated program built with gcc and clang at -O0 -O1 -O2 -O3
# -Os -Og, x86-64 and (with gcc-multilib) i386, recorded with --args
# --retval with a capture plan and without; every value shown must be the
# one the program printed at its call site.  One case per build: it fails
# on any wrong value, or when the share of values recovered falls below
# tests/values/floor.txt.  The coverage table goes to
# tests/values-coverage.md in the build tree (doc/values.md's table:
# tests/values/table.sh).

. "$(dirname "$0")/../lib.sh"
test_init values
[ -n "$PYTHON3" ] || skip_script "python3 not found"
: "${CTRACE_VALUES_SEEDS:=1,2,4}"
RUN=$top_srcdir/tests/values/run.py

# The cases are named after their build: gcc-O2-x86_64 for the fixed
# seeds, seed3-gcc-Os-x86_64 for one seed alone, the file name for a
# reduced program.  Under CASES, run.py is given the builds selected, and
# under the quick matrix (make check) those of QUICK_BUILDS; the coverage
# table is written only when every build ran (make check-full).
QUICK_BUILDS="gcc-O0-x86_64 gcc-O2-x86_64 clang-O2-x86_64 gcc-O2-i386 clang-O1-i386"

# list_case NAME: under make check-list, print the case's name (as
# run_case does) and return 0; else return 1.
list_case() {
	[ "${CTRACE_TEST_LIST:-}" = yes ] || return 1
	echo "# case $1"
}

if [ -n "${CASES:-}" ] || ! matrix_full; then
	set --
	while read -r name build; do
		case_selected "$name" || continue
		[ -n "${CASES:-}" ] || matrix_full ||
			case " $QUICK_BUILDS " in *" $name "*) ;; *) continue ;; esac
		list_case "$name" || set -- "$@" --build "$build"
	done <<EOF
$("$PYTHON3" -S "$RUN" --list-builds)
EOF
	[ $# -gt 0 ] && set -- "$@" --seeds "$CTRACE_VALUES_SEEDS"
elif [ "${CTRACE_TEST_LIST:-}" = yes ]; then
	"$PYTHON3" -S "$RUN" --list-builds | while read -r name build; do
		list_case "$name"
	done
	set --
else
	set -- --seeds "$CTRACE_VALUES_SEEDS" \
		--table "$top_builddir/tests/values-coverage.md"
fi
# run.py prints a line per build (ok, FAIL or skip): tap_results makes
# them TAP results.
if [ $# -gt 0 ]; then
	"$PYTHON3" -S "$RUN" "$@" --jobs 2 --work "$WORK" \
		--floor "$top_srcdir/tests/values/floor.txt" >"$WORK/run.out" 2>&1
	tap_results $? "seeds $CTRACE_VALUES_SEEDS" <"$WORK/run.out"
fi
# Programs of other seeds that showed wrong values before a fix, on the
# build that showed them (gcc -Os: a struct in a register its DWARF names
# after the prologue changed it, also with an `inc' in that prologue;
# clang -O1: a C++ reference given by its caller's call site relative to
# an rsp that moves around the call).
for pair in "seed3-gcc-Os-x86_64 3 gcc -Os x86_64" \
	"seed256682100-gcc-Os-x86_64 256682100 gcc -Os x86_64" \
	"seed39041921-clang-O1-x86_64 39041921 clang -O1 x86_64"; do
	# shellcheck disable=SC2086
	set -- $pair
	name=$1
	seed=$2
	shift 2
	case_selected "$name" || continue
	list_case "$name" && continue
	"$PYTHON3" -S "$RUN" --seeds "$seed" --build "$*" --name "$name" \
		--jobs 1 --work "$WORK" >"$WORK/run.out" 2>&1
	tap_results $? "$name" <"$WORK/run.out"
done
# The programs reduce.py made of earlier findings, each on the build that
# showed it: a struct passed in memory the function never reads (clang
# -O2), a removed parameter of a constprop clone read as the entry value
# of a register the clone receives another in (gcc -O3), a struct's
# register shifted before the hook (gcc -O2, C++), a parameter described
# by the statement after the hook that changes it (clang -O2 i386), or
# by the constant a loop moved above the hook leaves (clang -O1 i386), a
# constprop.isra clone's removed parameter given as the entry value of a
# register that holds a field of another (gcc -O3), an __int128 passed in
# memory said to be in the last argument register, a call-site value
# naming a register the caller overwrote before the call (clang -O1), a
# long long said to be in a register pair whose high register the entry
# hook's argument set-up overwrote (gcc -Og i386), or a struct said to be
# in a pair whose second register the prologue made a copy of the first
# (gcc -O2 i386), a
# constprop clone's removed parameter said to be, a few instructions after
# the entry, in the register that brings the clone another (gcc -O3), or
# in the register the clone copied that one into (gcc -O3, C++), or an
# inlined copy's parameter said to be in a stack slot that holds a
# variable of the function it was inlined into (gcc -O3, C++), or a
# struct passed in memory said to be in the register its prologue loaded
# it into and then sign-extended from its first field (gcc -Os; gcc -O2,
# C++, with x87 moves of a long double in that prologue), or an inlined
# copy's parameter said to have the constant another call of the same
# function passed (gcc -O3), or the constant gcc's variable tracking
# took an x87 register for after a compare popped it, given to an
# inlined copy by a variable that was in a stack slot before (gcc -O3
# i386), or a constprop.isra clone's removed
# parameter said to be in the register that brings the clone another,
# after a prologue splitting a struct of two floats with shufps (gcc
# -O3, C++), or an inlined copy's parameter said to be in the register
# a statement of the copy's body placed before the hook decremented
# (gcc -O2), or an inlined copy's long long said to be in a register
# pair whose high register the copy's own code before its entry set to
# the hook's argument (gcc -Os i386), or whose high register the code
# before the copy's entry made a copy of the low one, pushed as a
# printf argument and popped back (gcc -O2 i386), or gave a new value
# after passing the high half to a call (gcc -Os i386), or a
# parameter the compiled code never reads said to be, from the entry on,
# the constant a loop after the hook leaves it (clang -O2), or said to
# be in the register a statement of the body placed before the hook
# had just or-ed a constant into (clang -O1 i386), or a short made of a
# signed char given by its caller's call-site value as the byte loaded,
# which the caller had sign-extended (clang -O1, C++), or by the stack
# slot the caller loaded it from and then stored another value in
# before the call (clang -O2), or a constprop clone's parameter it never
# reads said to be in a slot of its own frame that no instruction writes
# (gcc -O3 i386), or a struct said to be in r9 after an __int128 that
# found one argument register left, which clang splits between r9 and
# the stack (clang -O1), or an __int128 said to be in a register pair
# whose second register is a callee-saved one the prologue never wrote,
# which holds the caller's value (gcc -O1), or an inlined copy's
# parameter said to be in the slot of one half of an __int128 of the
# function it was inlined into, whose block ended before the call but
# whose location list still names that slot (gcc -O3), or the constant
# gcc's variable tracking took an x87 conversion for after a compare
# popped the bound it was checked against, given to an inlined copy by
# a variable said to have it from its binding on (gcc -O1 i386), or an
# inlined copy's parameter given as its constant the one a path the copy
# was duplicated on passes, on the other path too (gcc -O2), or an
# inlined copy's long long said to be in a frame slot of which the code
# before the copy stored only the low word, the one its body reads (gcc
# -O2 i386).  Also a
# float clang -Og i386 prints at x87 double precision and passes
# rounded to float (check.py compares it as a float), and a struct passed
# in memory read relative to clang's i386 frame base, esp, which the code
# after the hook's call moves back only in part (clang -O1 i386: `add $4'
# then a push for the next call, or `add $8' then the exit hook's).
for f in "$top_srcdir"/tests/args/values-*.c "$top_srcdir"/tests/args/values-*.cc; do
	[ -f "$f" ] || continue
	case_selected "${f##*/}" || continue
	list_case "${f##*/}" && continue
	"$PYTHON3" -S "$RUN" --work "$WORK" --source "$f" >"$WORK/run.out" 2>&1
	tap_results $? "${f##*/}" <"$WORK/run.out"
done
# A program with undefined behaviour is no oracle: run.py must say so (a
# generator defect) and compare none of its values.
if case_selected undefined.c && ! list_case undefined.c; then
	"$PYTHON3" -S "$RUN" --work "$WORK" \
		--source "$top_srcdir/tests/values/undefined.c" >"$WORK/run.out" 2>&1
	if grep -q "not an oracle: .*runtime error" "$WORK/run.out"; then
		echo "ok undefined.c"
	else
		echo "FAIL undefined.c: not reported as undefined"
		cat "$WORK/run.out"
	fi >"$WORK/undefined.out"
	tap_results 0 undefined.c <"$WORK/undefined.out"
fi
test_finish
