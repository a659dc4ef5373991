#!/bin/sh
# dlopen.sh -- instrumented libraries unloaded and loaded again: the same
# library at another address, and another library at the same address
# (same code, other names).  Every call resolves to its own library.  A
# library's own dlopen finds its plugin as it would without the recorder.

. "$(dirname "$0")/rel.sh"
test_init reliability-dlopen

# libraries CALLS_JSON: "function library" lines of the plugins' calls.
libraries() {
	"$CTRACE_SYMBOLIZE" -f json "$1" | "$PYTHON3" -S -c '
import json, os, sys
for c in json.load(sys.stdin)["calls"]:
    if c["function"] in ("inner", "alpha_entry", "beta_entry"):
        print(c["function"], os.path.basename(c["library"] or "?"))'
}

case_twice() {
	use_config "$1"
	need_python
	build_shlib libalpha.so -DNAME=alpha "$RPROGS/plugin.c"
	build_c reload "$RPROGS/reload.c"
	run_traced trace.bin "$BIN/reload" twice "$BIN/libalpha.so"
	a=$(sed -n 1p trace.bin.out | cut -d' ' -f2)
	b=$(sed -n 2p trace.bin.out | cut -d' ' -f2)
	[ "$a" != "$b" ] || fail "loaded twice at the same address $a"
	rel_tree reload-twice trace.bin
	libraries trace.bin >libs
	printf 'inner libalpha.so\nalpha_entry libalpha.so\n' >want
	cat want want >want2
	compare want2 libs
}

# run_two MODE: builds libalpha, libbeta and reload, runs `reload MODE`
# on the two libraries into trace.bin, and sets a and b to the addresses
# of their entry functions.
run_two() {
	build_shlib libalpha.so -DNAME=alpha "$RPROGS/plugin.c"
	build_shlib libbeta.so -DNAME=beta "$RPROGS/plugin.c"
	build_c reload "$RPROGS/reload.c"
	run_traced trace.bin "$BIN/reload" "$1" "$BIN/libalpha.so" \
		"$BIN/libbeta.so"
	a=$(sed -n 1p trace.bin.out | cut -d' ' -f2)
	b=$(sed -n 2p trace.bin.out | cut -d' ' -f2)
}

# Every call of trace.bin's plugins comes from its own library.
check_two_libraries() {
	libraries trace.bin >libs
	printf '%s\n' 'inner libalpha.so' 'alpha_entry libalpha.so' \
		'inner libbeta.so' 'beta_entry libbeta.so' >want
	compare want libs
}

case_swap() {
	use_config "$1"
	need_python
	run_two swap
	rel_tree reload-swap trace.bin
	check_two_libraries
	[ "$a" = "$b" ] || echo "note: loaded at $a and $b, not the same place"
}

# The second library is loaded right after the first is unloaded, with no
# event in between: the recorder notices both at one look, and the first
# library's removal must not be taken for the second's.
case_direct() {
	use_config "$1"
	need_python
	run_two direct
	[ "$a" = "$b" ] ||
		skip "loaded at $a and $b: no address reused to test"
	check_two_libraries
}

# Each library is loaded, called and unloaded inside one call, so the
# last event before each library's call is older than its load: every
# name (tree, JSON, report) must still come from the library loaded at
# the time of the call.
case_inplace() {
	use_config "$1"
	need_python
	run_two inplace
	[ "$a" = "$b" ] ||
		skip "loaded at $a and $b: no address reused to test"
	rel_tree reload-inplace trace.bin
	check_two_libraries
	symbolize report -f report trace.bin
	for f in alpha_entry beta_entry; do
		n=$(awk -v f=$f '$NF == f { print $(NF-7) }' report)
		[ "$n" = 1 ] || { cat report; fail "report: $f called '$n' times"; }
	done
}

# A shared library loads its plugin by bare name through its own RUNPATH
# ($ORIGIN/plugins): the loader must see the library as the caller, with
# and without recording.
case_runpath() {
	use_config "$1"
	need_python
	mkdir -p "$BIN/plugins"
	build_shlib plugins/libgamma.so -DNAME=gamma "$RPROGS/plugin.c"
	# shellcheck disable=SC2016
	build_shlib libhost.so "$RPROGS/host.c" \
		-Wl,--enable-new-dtags,-rpath,'$ORIGIN/plugins'
	build_c runpath "$RPROGS/runpath.c" -L"$BIN" -lhost \
		-Wl,--enable-new-dtags,-rpath,"$BIN"
	CTRACE=off "$BIN/runpath" >off.out 2>off.err ||
		{ cat off.out off.err; fail "runpath failed with CTRACE=off"; }
	run_traced trace.bin "$BIN/runpath"
	[ "$(cat trace.bin.out)" = 42 ] || fail "wrong output: $(cat trace.bin.out)"
	"$CTRACE_SYMBOLIZE" -f json trace.bin | "$PYTHON3" -S -c '
import json, os, sys
for c in json.load(sys.stdin)["calls"]:
    if c["function"] in ("host_run", "inner", "gamma_entry"):
        print(c["function"], os.path.basename(c["library"] or "?"))' >libs
	printf '%s\n' 'inner libgamma.so' 'gamma_entry libgamma.so' \
		'host_run libhost.so' >want
	compare want libs
}

for cfg in $(configs_pie); do
	run_case "inplace-$cfg" case_inplace "$cfg"
	run_case "runpath-$cfg" case_runpath "$cfg"
	run_case "twice-$cfg" case_twice "$cfg"
	run_case "swap-$cfg" case_swap "$cfg"
	run_case "direct-$cfg" case_direct "$cfg"
done

test_finish
