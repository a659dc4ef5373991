#!/bin/sh
# libcall-values.sh -- the arguments and return values of library calls
# (--args, --retval): tests/progs/libvals.c calls strlen (a string longer
# than CTRACE_STRLEN too), strndup (a pointer that cannot be read),
# strcmp, malloc, memcpy, free, atoi, open, close, sqrt, pow, snprintf
# and llabs (no prototype known: raw registers), and prints each call as
# the tree should show it, with the values it passed and got itself: the
# oracle.  The tree's lines of those calls, and the same built from the
# JSON, must be the program's; also when recorded by ctrace record.  On
# x86-64 and i386 (configs_m32: cdecl arguments on the stack, eax, edx
# and st(0) at the return).

. "$(dirname "$0")/lib.sh"
test_init libcall-values

# The rest of the suite runs with library calls off (lib.sh).
unset CTRACE_LIBCALL

NAMES='strlen|strndup|strcmp|malloc|memcpy|free|atoi|open|close|sqrt|pow|snprintf|llabs'

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
	if [ "$CUR_ARCH" = -m32 ]; then
		echo 'ctrace-symbolize: no prototype known for the library function llabs: its calls show their first stack words and eax, raw'
	else
		echo 'ctrace-symbolize: no prototype known for the library function llabs: its calls show their integer argument registers and rax, raw'
	fi >"$sh_out.want-err"
	compare "$sh_out.want-err" "$sh_out.err"
}

case_tree() {
	use_config "$1"
	run_vals
	symbolize_hint tree trace.bin
	tree_text tree | LC_ALL=C sed -n -E "s/^ *(($NAMES)\(.*);\$/\1/p" |
		only_rdi >got
	compare trace.bin.out got
}

case_json() {
	use_config "$1"
	[ -n "$PYTHON3" ] || skip "python3 not found"
	run_vals
	symbolize_hint json -f json trace.bin
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
	compare trace.bin.out got.rdi
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
	symbolize_hint tree trace.bin
	tree_text tree | LC_ALL=C sed -n -E "s/^ *(($NAMES)\(.*);\$/\1/p" |
		only_rdi >got
	compare out got
}

# Patterns select library calls' values by name, as functions': strlen's
# arguments and return values, malloc's return value, nothing of strcmp.
case_pattern() {
	use_config "$1"
	build_c libvals "$PROGS/libvals.c" -fno-builtin -lm
	CTRACE_ARGS=strlen CTRACE_RETVAL='strlen,malloc' run_traced trace.bin \
		"$BIN/libvals" hello help -42 2 0.5 /dev/null
	symbolize tree trace.bin
	tree_text tree | LC_ALL=C sed -n -E \
		's/^ *((strlen|strcmp|malloc)\(.*);$/\1/p' >got
	grep -E '^(strlen|strcmp|malloc)\(' trace.bin.out |
		sed -E 's/^strcmp\(.*/strcmp()/; s/^malloc\(.*\) = /malloc() = /' >want
	compare want got
}

for cfg in $(configs) $(configs_m32); do
	for c in tree json record pattern; do
		run_case "$c-$cfg" "case_$c" "$cfg"
	done
done

test_finish
