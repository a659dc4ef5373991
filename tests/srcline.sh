#!/bin/sh
# srcline.sh -- call sites (--srcline).  The program marks each call with
# a comment /* CALL:tag */; the expected tree names the marked lines by
# tag and gets the numbers from the source, so editing the program cannot
# make the test pass by accident.

. "$(dirname "$0")/lib.sh"
test_init srcline

# expected_with_lines [NAME]: expected/NAME.tree (callsite by default) with
# @tag@ replaced by the line of the call marked CALL:tag in NAME.c or
# NAME.h.
expected_with_lines() {
	ew_name=${1:-callsite}
	script=
	for tag in $(sed -n 's/.*@\([a-z0-9-]*\)@.*/\1/p' "$EXPECTED/$ew_name.tree"); do
		src=$PROGS/$ew_name.c
		grep -q -F "/* CALL:$tag */" "$src" || src=$PROGS/$ew_name.h
		script="$script -e s/@$tag@/$(line_of "$src" "CALL:$tag")/"
	done
	# shellcheck disable=SC2086
	sed $script "$EXPECTED/$ew_name.tree"
}

case_srcline() {
	use_config "$1"
	build_c callsite "$PROGS/callsite.c"
	run_traced trace.bin "$BIN/callsite"
	symbolize_stable tree trace.bin --srcline
	check_tree tree
	expected_with_lines >expected
	# main is called from the C library, whose call site is not ours to
	# check.
	sed 's/^\(.*\] | main() {\) \/\*.*\*\/$/\1/' tree >tree.checked
	compare expected tree.checked
}

# Inlined copies: each named by the line of its inlined call, in the tree
# and in JSON.
case_inlined() {
	use_config "$1"
	build_c inlsite "$PROGS/inlsite.c"
	run_traced trace.bin "$BIN/inlsite"
	symbolize_stable tree trace.bin --srcline
	check_tree tree
	expected_with_lines inlsite >expected
	sed 's/^\(.*\] | main() {\) \/\*.*\*\/$/\1/' tree >tree.checked
	compare expected tree.checked
	symbolize json -f json trace.bin
	line=$(line_of "$PROGS/inlsite.c" CALL:gamma-beta)
	grep -q "\"function\": \"beta\".*\"call_site\": \"[^\"]*inlsite.c:$line\"" json ||
		{ grep beta json; fail "JSON: beta not called from line $line"; }
}

# The same with the DWARF in a separate debug file, found by its
# .gnu_debuglink next to the program or by its build-id in a search
# directory: the same call lines, and the values (alpha's x is argc).
case_inlined_debug() {
	use_config "$1"
	build_c inlsite "$PROGS/inlsite.c"
	objcopy --only-keep-debug "$BIN/inlsite" inlsite.debug ||
		fail "objcopy --only-keep-debug failed"
	case $2 in
	debuglink)
		objcopy --strip-debug --add-gnu-debuglink=inlsite.debug \
			"$BIN/inlsite" inlsite || fail "objcopy failed"
		set --
		;;
	buildid)
		id=$(readelf -n "$BIN/inlsite" |
			sed -n 's/^ *Build ID: *\([0-9a-f]*\)$/\1/p')
		[ -n "$id" ] || skip "no build-id"
		mkdir -p "dbg/.build-id/${id%"${id#??}"}"
		mv inlsite.debug "dbg/.build-id/${id%"${id#??}"}/${id#??}.debug"
		objcopy --strip-debug "$BIN/inlsite" inlsite ||
			fail "objcopy failed"
		set -- --search-dir=dbg
		;;
	esac
	CTRACE_ARGS=all run_traced trace.bin ./inlsite
	symbolize_stable tree trace.bin --srcline "$@"
	expected_with_lines inlsite >expected
	sed -e 's/^\(.*\] | *[a-z_]*\)([^)]*)/\1()/' \
		-e 's/^\(.*\] | main() {\) \/\*.*\*\/$/\1/' tree >tree.checked
	compare expected tree.checked
	grep -q -F '| main(' tree || fail "main not named"
	grep -q -F 'alpha(x=1) {' tree || fail "alpha's argument not shown"
}

# Separate debug files whose sections are compressed, as the C library's
# are: libdw (the values) and libbfd (the call lines) read one view of
# each, its sections inflated once (symbolizer/resolve/debugfile.c).  Two
# programs' traces in one run, each program's debug file open at once:
# the same tree and JSON as from the same files uncompressed, every
# program's DWARF its own file's.
case_compressed_debug() {
	use_config "$1"
	build_c inlsite "$PROGS/inlsite.c"
	build_c callsite "$PROGS/callsite.c"
	for p in inlsite callsite; do
		id=$(readelf -n "$BIN/$p" |
			sed -n 's/^ *Build ID: *\([0-9a-f]*\)$/\1/p')
		[ -n "$id" ] || skip "no build-id"
		d=.build-id/${id%"${id#??}"}
		mkdir -p "plain/$d" "z/$d"
		objcopy --only-keep-debug "$BIN/$p" "plain/$d/${id#??}.debug" ||
			fail "objcopy --only-keep-debug failed"
		objcopy --only-keep-debug --compress-debug-sections=zlib \
			"$BIN/$p" "z/$d/${id#??}.debug" ||
			skip "objcopy cannot compress debug sections"
		readelf -SW "z/$d/${id#??}.debug" 2>/dev/null |
			grep -q '\.debug_info .* C ' ||
			skip "objcopy left .debug_info uncompressed"
		objcopy --strip-debug "$BIN/$p" "$p" || fail "objcopy failed"
		CTRACE_ARGS=all CTRACE_RETVAL=all run_traced "$p.bin" "./$p"
	done
	for d in plain z; do
		symbolize "tree.$d" --srcline --search-dir=$d inlsite.bin \
			callsite.bin
		symbolize "json.$d" -f json --search-dir=$d inlsite.bin \
			callsite.bin
	done
	compare tree.plain tree.z
	compare json.plain json.z
	grep -q -F 'alpha(x=1) {' tree.z || fail "alpha's argument not shown"
	for p in inlsite callsite; do
		grep -q "\"call_site\": \"[^\"]*/$p.c:[0-9]" json.z ||
			fail "JSON: no call line in $p.c"
	done
}

for cfg in $(configs); do
	run_case "callsite-$cfg" case_srcline "$cfg"
	run_case "inlined-$cfg" case_inlined "$cfg"
	run_case "debuglink-$cfg" case_inlined_debug "$cfg" debuglink
	run_case "buildid-$cfg" case_inlined_debug "$cfg" buildid
	run_case "compressed-$cfg" case_compressed_debug "$cfg"
done

test_finish
