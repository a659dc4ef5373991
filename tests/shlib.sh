#!/bin/sh
# shlib.sh -- instrumented shared libraries: one linked at build time,
# one loaded with dlopen() (and unloaded before the program ends).

. "$(dirname "$0")/lib.sh"
test_init shlib

# The executable finds libdemo.so next to itself.
build_shlib_programs() {
	build_shlib libdemo.so "$PROGS/libdemo.c"
	build_shlib plugin.so "$PROGS/plugin.c"
	build_c shlib-linked "$PROGS/shlib.c" -L"$BIN" -ldemo \
		-Wl,-rpath,"$BIN"
	# The plugin's hooks resolve to the executable's: export them.
	build_c shlib-dlopen "$PROGS/shlib.c" -rdynamic -L"$BIN" -ldemo \
		-Wl,-rpath,"$BIN"
}

case_linked() {
	use_config "$1"
	build_shlib_programs
	run_traced trace.bin "$BIN/shlib-linked"
	symbolize_stable tree trace.bin
	compare "$(expected shlib-linked)" tree
	check_tree tree
}

case_dlopen() {
	use_config "$1"
	build_shlib_programs
	run_traced trace.bin "$BIN/shlib-dlopen" "$BIN/plugin.so"
	symbolize_stable tree trace.bin
	compare "$(expected shlib-dlopen)" tree
	check_tree tree
}

for cfg in $(configs); do
	run_case "linked-$cfg" case_linked "$cfg"
	run_case "dlopen-$cfg" case_dlopen "$cfg"
done

test_finish
