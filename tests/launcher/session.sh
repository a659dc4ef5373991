#!/bin/sh
# session.sh -- every process of a run keeps its trace, and a session is
# read whole: programs a shell runs one after another (with and without
# ctrace record), an exec'd child's trace announced, the views reading the
# whole run when given no trace.

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/lib.sh"
: "${CTRACE_LAUNCHER:=$top_builddir/ctrace}"
LAUNCHER_SRC=$top_srcdir/tests/launcher
test_init session

[ -x "$CTRACE_LAUNCHER" ] || skip_script "$CTRACE_LAUNCHER not built"

# ctrace OUT ARGS...: run the launcher, stdout to OUT, stderr to OUT.err;
# its exit status is in $status.
ctrace() {
	ct_out=$1
	shift
	"$CTRACE_LAUNCHER" "$@" >"$ct_out" 2>"$ct_out.err" </dev/null
	status=$?
}

expect_status() {
	if [ "$status" -ne "$1" ]; then
		cat "$2" "$2.err"
		fail "exit status $status, expected $1"
	fi
}

# traces: the trace files in the current directory, one a line.
traces() {
	ls | grep -E '^trace\.bin(\.[0-9]+){0,2}$'
}

# normalize FILE: the tree of several processes with their pids and
# programs' directories taken out.
normalize() {
	sed -e 's/^\(# [^ ]*\): pid [0-9]* (.*\/\([^/]*\))$/\1: pid P (\2)/' \
		-e 's/^\(# [a-z./]*\.bin\)\.[0-9][0-9]*/\1.PID/' "$1"
}

# two_fibs FILE1 FILE2: the expected tree of fib 3 in FILE1 then fib 5
# in FILE2, processes one after another (--per-thread).
two_fibs() {
	head -n 1 "$(expected fib3)"
	echo "# $1: pid P (fib)"
	sed 1d "$(expected fib3)"
	echo "# $2: pid P (fib)"
	sed 1d "$(expected fib5)"
}

# A shell runs two traced programs one after the other, without the
# launcher: the second does not replace the first one's trace.bin.
case_shell() {
	use_config "$1"
	build_c fib "$PROGS/fib.c"
	sh -c "'$BIN/fib' 3 >/dev/null; '$BIN/fib' 5 >/dev/null" ||
		fail "the shell failed"
	n=$(traces | wc -l)
	[ "$n" -eq 2 ] || { traces; fail "$n traces, expected 2"; }
	second=$(traces | grep -v -x trace.bin)
	symbolize_stable tree3 trace.bin
	compare "$(expected fib3)" tree3
	symbolize_stable tree5 "$second"
	compare "$(expected fib5)" tree5
	# A view given no trace reads both.
	ctrace out replay $STABLE_OPTS
	expect_status 0 out
	two_fibs trace.bin trace.bin.PID >expected
	normalize out >tree
	compare expected tree
}

# The same under ctrace record: both files named, both read by replay.
case_shell_record() {
	use_config "$1"
	build_c fib "$PROGS/fib.c"
	ctrace out record --force -- \
		sh -c "'$BIN/fib' 3 >/dev/null; '$BIN/fib' 5 >/dev/null"
	expect_status 0 out
	n=$(grep -c '^ctrace: trace written to ' out.err)
	[ "$n" -eq 2 ] || { cat out.err; fail "$n files named, expected 2"; }
	grep -q -x 'ctrace: trace written to trace.bin' out.err ||
		{ cat out.err; fail "trace.bin not named"; }
	ctrace tree replay $STABLE_OPTS
	expect_status 0 tree
	two_fibs trace.bin trace.bin.PID >expected
	normalize tree >tree.n
	compare expected tree.n
	# A later recording replaces trace.bin, and its view has only it.
	ctrace out record -- "$BIN/fib" 3
	expect_status 0 out
	ctrace tree replay $STABLE_OPTS
	compare "$(expected fib3)" tree
}

# A forked child that execs another traced program: three traces, all
# named (the exec'd one is OUTPUT.PID.1), in the output's directory.
case_exec_named() {
	use_config "$1"
	build_c fib "$PROGS/fib.c"
	build_c prog "$LAUNCHER_SRC/prog.c"
	mkdir out
	ctrace log record -o out/t.bin -- "$BIN/prog" exec "$BIN/fib" 3
	expect_status 0 log
	sed -n 's/^ctrace: trace written to //p' log.err |
		sed 's/\.[0-9][0-9]*/.PID/' >named
	printf '%s\n' out/t.bin out/t.bin.PID out/t.bin.PID.1 >expected
	compare expected named
	for f in $(sed -n 's/^ctrace: trace written to //p' log.err); do
		[ -s "$f" ] || fail "$f named but not written"
	done
	exec_trace=$(sed -n 's/^ctrace: trace written to \(.*\.[0-9]*\.1\)$/\1/p' log.err)
	symbolize_stable tree "$exec_trace"
	compare "$(expected fib3)" tree
}

for cfg in $(configs_pie); do
	run_case "shell-$cfg" case_shell "$cfg"
	run_case "shell-record-$cfg" case_shell_record "$cfg"
	run_case "exec-named-$cfg" case_exec_named "$cfg"
done

test_finish
