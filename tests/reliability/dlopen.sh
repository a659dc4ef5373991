#!/bin/sh
# dlopen.sh -- instrumented libraries unloaded and loaded again: the same
# library at another address, and another library at the same address
# (same code, other names).  Every call resolves to its own library.

. "$(dirname "$0")/rel.sh"
test_init reliability-dlopen

# libraries CALLS_JSON: "function library" lines of the plugins' calls.
libraries() {
	"$CTRACE_SYMBOLIZE" -f json "$1" | "$PYTHON3" -c '
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

case_swap() {
	use_config "$1"
	need_python
	build_shlib libalpha.so -DNAME=alpha "$RPROGS/plugin.c"
	build_shlib libbeta.so -DNAME=beta "$RPROGS/plugin.c"
	build_c reload "$RPROGS/reload.c"
	run_traced trace.bin "$BIN/reload" swap "$BIN/libalpha.so" \
		"$BIN/libbeta.so"
	rel_tree reload-swap trace.bin
	libraries trace.bin >libs
	printf '%s\n' 'inner libalpha.so' 'alpha_entry libalpha.so' \
		'inner libbeta.so' 'beta_entry libbeta.so' >want
	compare want libs
	a=$(sed -n 1p trace.bin.out | cut -d' ' -f2)
	b=$(sed -n 2p trace.bin.out | cut -d' ' -f2)
	[ "$a" = "$b" ] || echo "note: loaded at $a and $b, not the same place"
}

for cfg in $(configs_pie); do
	run_case "twice-$cfg" case_twice "$cfg"
	run_case "swap-$cfg" case_swap "$cfg"
done

test_finish
