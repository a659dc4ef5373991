#!/bin/sh
# cxx.sh -- C++ names: namespaces, class templates, constructors and
# destructors, operator(), virtual calls, the anonymous namespace, calls
# left by exceptions, and the --demangle choices.

. "$(dirname "$0")/lib.sh"
test_init cxx

case_cxx() {
	use_config "$1"
	build_pair cxx cxx "$PROGS/cxx.cc"
	run_traced trace.bin "$BIN/cxx"
	symbolize_stable tree trace.bin
	compare "$(expected cxx)" tree
	check_tree tree
	oracle_check trace.bin "$BIN/cxx"
}

# Calls left by exceptions: gcc's hooks see them return, clang's do not
# (expected/exceptions.clang.tree), so with clang the counting hooks
# cannot follow the depth: the calls only are compared.
case_exceptions() {
	use_config "$1"
	build_pair cxx exceptions "$PROGS/exceptions.cc"
	run_traced trace.bin "$BIN/exceptions"
	symbolize_stable tree trace.bin
	compare "$(expected exceptions)" tree
	check_tree tree
	oc_depth=
	[ "$CUR_FAMILY" = clang ] && oc_depth=--counts-only
	oracle_check $oc_depth trace.bin "$BIN/exceptions"
}

# --demangle=full keeps the parameters (the line may then leave out the
# tree's own "()"), --demangle=none shows the symbol.
case_demangle() {
	use_config "$1"
	build_pair cxx cxx "$PROGS/cxx.cc"
	run_traced trace.bin "$BIN/cxx"
	symbolize_stable full trace.bin --demangle=full
	grep -q -F -e ' ns::Stack<int>::push(int)();' \
		-e ' ns::Stack<int>::push(int);' full ||
		fail "--demangle=full: no ns::Stack<int>::push(int)"
	grep -q -F -e ' ns::Adder::operator()(int) const();' \
		-e ' ns::Adder::operator()(int) const;' full ||
		fail "--demangle=full: no ns::Adder::operator()(int) const"
	grep -q -F -e ' ns::Square::Square(int) {' \
		-e ' ns::Square::Square(int)() {' full ||
		fail "--demangle=full: no ns::Square::Square(int)"
	symbolize_stable none trace.bin --demangle=none
	grep -q -F ' _ZN2ns5StackIiE4pushEi();' none ||
		fail "--demangle=none: no _ZN2ns5StackIiE4pushEi"
	grep -q -F '| main() {' none || fail "--demangle=none: no main"
	check_tree full
	check_tree none
}

# Members of an extern template inlined in the program, whose hooks name
# the library's copies (xcopy.hh): each copy is shown at its line in the
# program, in the other copy or in host, nested as it ran.  The copies'
# call sites were looked up by the function's DWARF in the module of the
# address the hooks gave, the library's, and not found (jsoncpp's test
# driver: 132,000 calls of basic_string's members shown without one).
case_xcopy() {
	use_config "$1"
	[ "$CUR_OPT" = -O0 ] && skip "nothing is inlined at -O0"
	build_plain cxx libxcopy.so "$PROGS/xcopy-lib.cc"
	build_cxx xcopy "$PROGS/xcopy.cc" -L"$BIN" -lxcopy -Wl,-rpath,"$BIN"
	run_traced trace.bin "$BIN/xcopy"
	symbolize_stable tree trace.bin --srcline
	check_tree tree
	tree_text tree | LC_ALL=C sed -n \
		's/^ *\(Box<int>::[a-z]*\)().*\/\* \([^ ]*\) \*\/$/\1 \2/p' |
		sort | uniq -c | awk '{ print $1, $2, $3 }' | sort >sites
	printf '%s\n' '6 Box<int>::inner xcopy.cc:11' \
		'6 Box<int>::twice xcopy.hh:15' | sort >expected
	compare expected sites
}

# An exception out of a function a library function jumped to (gcc,
# which calls the exit hook as the exception leaves it, showed a stray
# `} /* tail_target (entered before the trace) */` and left the call
# open): the tree closes it where the exception left, and its library
# call with it.  clang calls no exit hook there (the call shows no exit,
# and nothing to close it by): gcc only.
case_tailthrow() {
	use_config "$1"
	[ "$CUR_FAMILY" != clang ] || skip "clang calls no exit hook as an exception leaves"
	build_tail_plain cxx libtailthrow.so "$PROGS/tailthrow-lib.cc"
	build_cxx tailthrow "$PROGS/tailthrow.cc" -L"$BIN" -ltailthrow \
		-Wl,-rpath,"$BIN"
	CTRACE_LIBCALL=on run_traced trace.bin "$BIN/tailthrow"
	symbolize_stable tree trace.bin
	check_tree tree
	! grep -q 'entered before the trace' tree ||
		{ cat tree; fail "an exit taken for a call entered before the trace"; }
	# each of the three calls of tail_target closed by its exit
	n=$(grep -c '} /\* tail_target \*/$' tree)
	[ "$n" = 3 ] ||
		{ cat tree; fail "tail_target closed by its exit $n times, expected 3"; }
}

for cfg in $(configs_pie); do
	run_case "tailthrow-$cfg" case_tailthrow "$cfg"
	run_case "xcopy-$cfg" case_xcopy "$cfg"
	run_case "cxx-$cfg" case_cxx "$cfg"
	run_case "exceptions-$cfg" case_exceptions "$cfg"
done
for cfg in $(configs_pie | grep O0); do
	run_case "cxx-demangle-$cfg" case_demangle "$cfg"
done

test_finish
