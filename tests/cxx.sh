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

for cfg in $(configs_pie); do
	run_case "cxx-$cfg" case_cxx "$cfg"
	run_case "exceptions-$cfg" case_exceptions "$cfg"
done
for cfg in $(configs_pie | grep O0); do
	run_case "cxx-demangle-$cfg" case_demangle "$cfg"
done

test_finish
