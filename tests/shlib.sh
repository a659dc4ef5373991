#!/bin/sh
# shlib.sh -- instrumented shared libraries: one linked at build time,
# one loaded with dlopen() (and unloaded before the program ends), also by
# a relative path.

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

# dlopen("./plugin.so"): the trace keeps the plugin's absolute path, so a
# trace read from another directory finds it; once the plugin moved, the
# message names --search-dir, which finds it.
case_dlopen_relative() {
	use_config "$1"
	build_shlib_programs
	mkdir run elsewhere moved
	cp "$BIN/plugin.so" run/plugin.so
	(cd run && run_traced trace.bin "$BIN/shlib-dlopen" ./plugin.so) ||
		exit 1
	mv run/trace.bin elsewhere/
	(cd elsewhere && symbolize_stable tree trace.bin) || exit 1
	compare "$(expected shlib-dlopen)" elsewhere/tree
	mv run/plugin.so moved/
	"$CTRACE_SYMBOLIZE" $STABLE_OPTS elsewhere/trace.bin >lost 2>lost.err
	grep -q "plugin.so: not found.*--search-dir" lost.err ||
		{ cat lost.err; fail "the message does not name --search-dir"; }
	symbolize_stable found --search-dir=moved elsewhere/trace.bin
	compare "$(expected shlib-dlopen)" found
}

for cfg in $(configs); do
	run_case "linked-$cfg" case_linked "$cfg"
	run_case "dlopen-$cfg" case_dlopen "$cfg"
done
for cfg in $(configs_pie); do
	run_case "dlopen-relative-$cfg" case_dlopen_relative "$cfg"
done

test_finish
