#!/bin/sh
# libcall-values.sh -- the arguments and return values of library calls
# (--args, --retval): tests/progs/libvals.c calls strlen (a string longer
# than CTRACE_STRLEN too), strndup (a pointer that cannot be read),
# strcmp, malloc, memcpy, free, atoi, open, close, sqrt, pow, snprintf,
# cexpl, csqrtl, cpowl (the table's _Complex long double, returned in
# st0 and st1 on x86-64), llabs, div, strchrnul, fdim, scalbn, ldiv,
# lldiv, strtold, ldexpl, sqrtl, fmal, cabs, cexp and cexpf (in no
# prototype table: raw registers), and
# prints each call as the tree should show it, with the values it passed
# and got itself: the oracle.  The tree's lines of those calls, and the
# same built from the JSON, must be the program's; also when recorded by
# ctrace record.  Those cases hide the C library's debug information
# (--debug-dir names an empty directory): the types are the table's.  The
# dwarf cases show it, when installed (libc6-dbg, libc6-dbg:i386): the
# functions of no table are then typed by it (the program's `# typed: `
# lines), the others show the same values.  On x86-64 and i386
# (configs_m32: cdecl arguments on the stack, eax, edx and st(0) at the
# return).

. "$(dirname "$0")/lib.sh"
test_init libcall-values

# The rest of the suite runs with library calls off (lib.sh).
unset CTRACE_LIBCALL

NAMES='strlen|strndup|strcmp|malloc|memcpy|free|atoi|open|close|sqrt|pow|snprintf|cexpl|csqrtl|cpowl|llabs'
# The functions besides llabs the table does not list, whose values
# (doubles in xmm registers, structs returned in rax and rdx or in
# memory, long doubles on the stack and in st(0), complex numbers) only
# their DWARF shows.
UNLISTED='div|strchrnul|fdim|scalbn|ldiv|lldiv|strtold|ldexpl|sqrtl|fmal|cabs|cexp|cexpf'

# No debug file is found here: the libraries' debug information hidden.
HIDE="--debug-dir=$WORK/nodebug"
mkdir -p "$WORK/nodebug"

# The oracle without the lines of debug information (`# typed: `) and of
# div and strchrnul, whose raw registers hold more than the int the
# program passed.
untyped() {
	grep -v -e '^# typed: ' -e '^div(' -e '^strchrnul(' "$1"
}

# run_vals: the program recorded with every value; its stdout (the
# oracle) in trace.bin.out.
run_vals() {
	build_c libvals "$PROGS/libvals.c" -fno-builtin -lm
	CTRACE_ARGS=all CTRACE_RETVAL=all run_traced trace.bin \
		"$BIN/libvals" hello help -42 2 0.5 /dev/null
	[ -s trace.bin.out ] || fail "the program printed nothing"
}

# Of llabs, the first argument register (i386: stack word) alone is
# compared: the other five hold whatever the caller left there.
only_rdi() {
	sed -E 's/^(llabs\((rdi|\[esp\+4\])=[^,]*), [^)]*\)/\1)/'
}

# symbolize_hint OUTPUT ARGS...: as symbolize, but stderr must hold the
# one note for llabs, whose prototype is not known.
symbolize_hint() {
	sh_out=$1
	shift
	"$CTRACE_SYMBOLIZE" "$@" >"$sh_out" 2>"$sh_out.err" ||
		{ cat "$sh_out.err"; fail "ctrace-symbolize $* failed"; }
	for f in llabs div strchrnul fdim scalbn ldiv lldiv strtold ldexpl \
		sqrtl fmal cabs cexp cexpf; do
		if [ "$CUR_ARCH" = -m32 ]; then
			echo "ctrace-symbolize: no prototype known for the library function $f: its calls show their first stack words and eax, raw (for types, install the library's debug package, as libc6-dbg:i386 for the C library, or give its directory with --debug-dir)"
		else
			echo "ctrace-symbolize: no prototype known for the library function $f: its calls show their integer argument registers and rax, raw (for types, install the library's debug package, as libc6-dbg for the C library, or give its directory with --debug-dir)"
		fi
	done >"$sh_out.want-err"
	compare "$sh_out.want-err" "$sh_out.err"
}

case_tree() {
	use_config "$1"
	run_vals
	symbolize_hint tree "$HIDE" trace.bin
	tree_text tree | LC_ALL=C sed -n -E "s/^ *(($NAMES)\(.*);\$/\1/p" |
		only_rdi >got
	untyped trace.bin.out >want
	compare want got
}

case_json() {
	use_config "$1"
	[ -n "$PYTHON3" ] || skip "python3 not found"
	run_vals
	symbolize_hint json -f json "$HIDE" trace.bin
	"$PYTHON3" - "$NAMES" json >got <<'PY' || fail "the JSON did not parse"
import json, re, sys
names = re.compile("^(%s)$" % sys.argv[1])
for line in open(sys.argv[2]):
    line = line.strip().rstrip(",")
    if not line.startswith("{\"function\""):
        continue
    e = json.loads(line)
    if e.get("kind") != "libcall" or not names.match(e["function"]):
        continue
    args = []
    for a in e.get("args") or []:
        args.append("..." if a["name"] == "..." else
                    "%s=%s" % (a["name"], a.get("value", "?")))
    text = "%s(%s)" % (e["function"], ", ".join(args))
    if "retval" in e:
        text += " = " + e["retval"].get("value", "?")
    print(text)
PY
	only_rdi <got >got.rdi
	untyped trace.bin.out >want
	compare want got.rdi
}

# The same through the launcher: ctrace record --args --retval (which
# also makes a capture plan for the program's own functions).
case_record() {
	use_config "$1"
	build_c libvals "$PROGS/libvals.c" -fno-builtin -lm
	rm -f trace.bin
	"$top_builddir/ctrace" record --args --retval -o trace.bin -- \
		"$BIN/libvals" hello help -42 2 0.5 /dev/null >out 2>err ||
		{ cat err; fail "ctrace record failed"; }
	[ -s out ] || fail "the program printed nothing"
	symbolize_hint tree "$HIDE" trace.bin
	tree_text tree | LC_ALL=C sed -n -E "s/^ *(($NAMES)\(.*);\$/\1/p" |
		only_rdi >got
	untyped out >want
	compare want got
}

# Patterns select library calls' values by name, as functions': strlen's
# arguments and return values, malloc's return value, nothing of strcmp.
case_pattern() {
	use_config "$1"
	build_c libvals "$PROGS/libvals.c" -fno-builtin -lm
	CTRACE_ARGS=strlen CTRACE_RETVAL='strlen,malloc' run_traced trace.bin \
		"$BIN/libvals" hello help -42 2 0.5 /dev/null
	symbolize tree "$HIDE" trace.bin
	tree_text tree | LC_ALL=C sed -n -E \
		's/^ *((strlen|strcmp|malloc)\(.*);$/\1/p' >got
	grep -E '^(strlen|strcmp|malloc)\(' trace.bin.out |
		sed -E 's/^strcmp\(.*/strcmp()/; s/^malloc\(.*\) = /malloc() = /' >want
	compare want got
}

# The debug file of the library at $1, by its build-id, as the resolver
# finds it; none: empty.
debug_file() {
	df_id=$(LC_ALL=C readelf -n "$1" 2>/dev/null |
		sed -n 's/^ *Build ID: *//p')
	df_rest=${df_id#??}
	[ -n "$df_id" ] &&
		ls "/usr/lib/debug/.build-id/${df_id%"$df_rest"}/$df_rest.debug" 2>/dev/null
}

# Without the names of parameters, which are the library's: `f(1, "a")`.
no_names() {
	LC_ALL=C sed -E 's/([(]|, )[A-Za-z_][A-Za-z_0-9]*=/\1/g'
}

# With the C library's debug information (libc6-dbg): llabs and the
# $UNLISTED functions, which no table lists, typed by it (no note on
# stderr), the struct div returns in rax whole, strchrnul by its IFUNC
# resolver's type, the doubles of fdim and scalbn from xmm0 and xmm1,
# the structs ldiv and lldiv return from rax and rdx, the long doubles
# of strtold, ldexpl, sqrtl and fmal from the stack and st(0), fmal's
# third `?` (past the stack saved), the complex numbers of cabs, cexp
# and cexpf from xmm registers; the other calls with the same values as
# by the table (cexpl's, csqrtl's and cpowl's complex long double from
# the stack, their return from st0 and st1).  i386 (libc6-dbg:i386):
# every argument from the stack words, the structs and the complex
# double and long double cexp, cexpl, csqrtl and cpowl return from the
# caller's memory eax points to, cexpf's complex float from eax and edx,
# and strchrnul untyped (assembly there: no DWARF).
# symbolize_dwarf OUTPUT ARGS...: as symbolize; on i386 stderr must hold
# the one note for strchrnul, which the DWARF does not type.
symbolize_dwarf() {
	sd_out=$1
	shift
	if [ "$CUR_ARCH" != -m32 ]; then
		symbolize "$sd_out" "$@"
		return
	fi
	"$CTRACE_SYMBOLIZE" "$@" >"$sd_out" 2>"$sd_out.err" ||
		{ cat "$sd_out.err"; fail "ctrace-symbolize $* failed"; }
	echo "ctrace-symbolize: no prototype known for the library function strchrnul: its calls show their first stack words and eax, raw (the library's debug information does not type it: assembly, or not C)" >"$sd_out.want-err"
	compare "$sd_out.want-err" "$sd_out.err"
}

case_dwarf() {
	use_config "$1"
	dbg=libc6-dbg
	[ "$CUR_ARCH" = -m32 ] && dbg=libc6-dbg:i386
	build_c libvals "$PROGS/libvals.c" -fno-builtin -lm
	libs=$(LC_ALL=C ldd "$BIN/libvals" |
		sed -n -E 's/^.*lib(c|m)\.so\.6 => ([^ ]*) .*$/\2/p')
	[ "$(echo "$libs" | wc -w)" -eq 2 ] ||
		skip "ldd does not list libc.so.6 and libm.so.6"
	for lib in $libs; do
		[ -n "$(debug_file "$lib")" ] ||
			skip "no debug information for $lib (install $dbg)"
	done
	CTRACE_ARGS=all CTRACE_RETVAL=all run_traced trace.bin \
		"$BIN/libvals" hello help -42 2 0.5 /dev/null
	symbolize_dwarf tree trace.bin
	drop='^$'
	[ "$CUR_ARCH" = -m32 ] && drop='^strchrnul\('
	tree_text tree |
		LC_ALL=C sed -n -E "s/^ *(($NAMES|$UNLISTED)\(.*);\$/\1/p" |
		grep -v -E "$drop" | no_names >got
	grep -v -E "^(llabs|$UNLISTED)\(" trace.bin.out |
		sed 's/^# typed: //' | no_names >want
	compare want got
	# the type is the library's
	symbolize_dwarf json -f json trace.bin
	grep -q '"function": "llabs".*"type": "long long int", "value": "-42000000294"' json ||
		fail "llabs's argument is not typed long long int"
	# fmal's third argument lies past the stack words saved
	grep -q '"function": "fmal".*"name": "z", "type": "long double", "unavailable": "not captured (past the ' json ||
		fail "fmal's third argument does not say why it is not shown"
}

# x86-64: the RETVAL_ST1 records of cexpl, csqrtl and cpowl (format 5.6)
# made a type no reader knows, as a 5.5 reader sees them: skipped, the
# calls' values not captured (no value shown), their arguments and the
# other calls' values as before.
case_skip() {
	use_config "$1"
	[ "$CUR_ARCH" = -m32 ] && skip "i386 returns them in memory"
	[ -n "$PYTHON3" ] || skip "python3 not found"
	run_vals
	"$PYTHON3" "$top_srcdir/bench/records" --hide 15 trace.bin >records ||
		fail "bench/records failed"
	grep -q '^EXTENDED 31 *3 ' records ||
		fail "not three RETVAL_ST1 records: $(grep EXTENDED records)"
	symbolize_hint tree "$HIDE" trace.bin
	tree_text tree | LC_ALL=C sed -n -E "s/^ *(($NAMES)\(.*);\$/\1/p" |
		only_rdi >got
	untyped trace.bin.out |
		sed -E 's/^((cexpl|csqrtl|cpowl)\(.*\)) = .*/\1/' >want
	compare want got
}

# A thread's first event is a library call's (its function is not
# instrumented): recorded, with its values, in that thread.
case_first() {
	use_config "$1"
	build_c libcall-first "$PROGS/libcall-first.c"
	CTRACE_ARGS=all CTRACE_RETVAL=all run_traced trace.bin \
		"$BIN/libcall-first"
	[ "$(cat trace.bin.out)" = "6 7" ] || fail "the program printed \
$(cat trace.bin.out)"
	symbolize tree --no-duration --thread-ids=serial trace.bin
	grep -q '^ *\[ *2\] | strlen(s="abcdef") = 6;$' tree ||
		{ cat tree; fail "the thread's first library call is missing"; }
	grep -q '^ *\[ *2\] | count(n=6) = 7;$' tree ||
		{ cat tree; fail "the thread's count(6) is missing"; }
}

for cfg in $(configs) $(configs_m32); do
	for c in tree json record pattern dwarf skip first; do
		run_case "$c-$cfg" "case_$c" "$cfg"
	done
done

test_finish
