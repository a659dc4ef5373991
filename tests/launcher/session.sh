#!/bin/sh
# session.sh -- every process of a run keeps its trace, and a session is
# read whole: programs a shell runs one after another (with and without
# ctrace record), an exec'd child's trace announced, the views reading the
# whole run when given no trace; ctrace info, ctrace live.

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

	# In a pipeline, the two run at once: either may take trace.bin.
	mkdir pipe && cd pipe || exit 1
	sh -c "'$BIN/fib' 3 | '$BIN/fib' 5 >/dev/null" ||
		fail "the pipeline failed"
	n=$(traces | wc -l)
	[ "$n" -eq 2 ] || { traces; fail "pipeline: $n traces, expected 2"; }
	for f in $(traces); do
		symbolize_stable "$f.tree" "$f"
	done
	cat "$(expected fib3)" "$(expected fib5)" | sort >expected
	cat ./*.tree | sort >trees
	compare expected trees
}

# The same under ctrace record: both files named, both read by replay.
case_shell_record() {
	use_config "$1"
	build_c fib "$PROGS/fib.c"
	# A shell runs without --force: the programs it starts record.
	ctrace out record -- \
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
	# A shell that starts no traced program: run, and said so.
	ctrace none record -o none.bin -- sh -c 'exit 3'
	expect_status 3 none
	expect_text none.err "wrote no trace to none.bin"
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

# info_value FILE NAME: the value of NAME's line in ctrace info's text.
info_value() {
	sed -n "s/^$2 *: //p" "$1"
}

# expect_info FILE NAME VALUE: NAME's value in ctrace info's text.
expect_info() {
	ei_value=$(info_value "$1" "$2")
	[ "$ei_value" = "$3" ] ||
		{ cat "$1"; fail "info: $2 is '$ei_value', expected '$3'"; }
}

# ctrace info against /usr/bin/time -v of the same run: the exit status
# and the signal exactly; the rest is what the trace holds (the tree's
# calls, the recorder's variables).  No time is compared.
case_info() {
	use_config "$1"
	[ -x /usr/bin/time ] || skip "no /usr/bin/time"
	build_c prog "$LAUNCHER_SRC/prog.c"
	/usr/bin/time -v -o time.txt "$CTRACE_LAUNCHER" record -d s -F main \
		-F work -- "$BIN/prog" exit 3 >out 2>out.err
	time_status=$(sed -n 's/^[[:space:]]*Exit status: //p' time.txt)
	[ "$time_status" = 3 ] || { cat time.txt; fail "time: exit $time_status"; }
	ctrace info info s
	expect_status 0 info
	expect_info info "exit status" "$time_status"
	expect_info info signal -
	expect_info info trace s/trace.bin
	expect_info info program "$BIN/prog"
	expect_info info "command line" "$BIN/prog exit 3"
	expect_info info threads 1
	# main and work: 2 calls, 4 events
	expect_info info events 4
	expect_info info "lost events" 0
	expect_info info "usage from" wait4
	expect_info info "trace size" "$(stat -c %s s/trace.bin) bytes"
	settings=$(info_value info "recorder settings" | tr ' ' '\n' | sort |
		grep -v '^CTRACE_RUN=' | tr '\n' ' ')
	[ "$settings" = "CTRACE_FILTER=main,work CTRACE_OUTPUT=s/trace.bin " ] ||
		fail "settings: $settings"
	for k in elapsed "user cpu" "system cpu"; do
		info_value info "$k" | grep -q -x '[0-9]*\.[0-9]\{6\} s' ||
			{ cat info; fail "info: $k is not a time"; }
	done
	info_value info "max rss" | grep -q -x '[1-9][0-9]* KiB' ||
		{ cat info; fail "info: no max rss"; }
	pid=$(info_value info pid)
	"$CTRACE_SYMBOLIZE" --format=json s/trace.bin >calls.json ||
		fail "json failed"
	grep -q "\"pid\": $pid," calls.json || fail "pid $pid not the trace's"

	# killed by a signal: time sees the launcher's 128+N
	/usr/bin/time -v -o time.txt "$CTRACE_LAUNCHER" record -d k -- \
		"$BIN/prog" kill >out 2>out.err
	time_status=$(sed -n 's/^[[:space:]]*Exit status: //p' time.txt)
	ctrace info info k
	expect_info info "exit status" -
	expect_info info signal "$((time_status - 128)) ($(kill -l "$((time_status - 128))" | sed 's/TERM/Terminated/'))"
	ctrace json info --json k
	expect_status 0 json
	need_python
	"$PYTHON3" -c '
import json, sys
p = json.load(open(sys.argv[1]))["processes"]
assert len(p) == 1 and p[0]["signal"] == int(sys.argv[2]), p
assert p[0]["exit_status"] is None and p[0]["events"] == 7, p
' json "$((time_status - 128))" || { cat json; fail "info --json"; }

	# a shell, untraced, started by record: its status in the run's
	# first trace, under the shell's pid (the programs' parent)
	/usr/bin/time -v -o time.txt "$CTRACE_LAUNCHER" record -d sh --force \
		-- sh -c "'$BIN/prog' exit 0; '$BIN/prog' exit 1; exit 6" \
		>out 2>out.err
	time_status=$(sed -n 's/^[[:space:]]*Exit status: //p' time.txt)
	[ "$time_status" = 6 ] || { cat time.txt; fail "time: exit $time_status"; }
	ctrace info info sh
	shell=$(info_value info ppid | sort -u)
	expect_info info "run's program" \
		"pid $shell (no trace): exit status $time_status"

	# without the launcher: what the recorder knew at exit
	CTRACE_OUTPUT=alone.bin "$BIN/prog" exit 3
	ctrace info info alone.bin
	expect_info info "usage from" getrusage
	expect_info info "exit status" "? (known for the process ctrace record started)"
}

# ctrace record -d DIR: the session in one directory, an earlier one's
# traces replaced; the directory copied elsewhere reads the same.
case_directory() {
	use_config "$1"
	build_c fib "$PROGS/fib.c"
	build_c prog "$LAUNCHER_SRC/prog.c"
	ctrace out record -d s/1 -- "$BIN/prog" exec "$BIN/fib" 3
	expect_status 0 out
	[ "$(ls s/1 | wc -l)" -eq 3 ] || { ls s/1; fail "not 3 traces in s/1"; }
	ctrace out record -d s/1 -- "$BIN/fib" 5
	[ "$(ls s/1)" = trace.bin ] || { ls s/1; fail "old traces left"; }
	ctrace tree replay $STABLE_OPTS s/1
	compare "$(expected fib5)" tree
	ctrace out record -d s/2 -- "$BIN/prog" exec "$BIN/fib" 3
	mkdir -p elsewhere/s
	cp -r s/2 elsewhere/s/2
	ctrace tree1 replay $STABLE_OPTS s/2
	(cd elsewhere && "$CTRACE_LAUNCHER" replay $STABLE_OPTS s/2) \
		>tree2 2>tree2.err || { cat tree2.err; fail "copy unread"; }
	compare tree1 tree2
}

# tree_column FILE: the tree's function column only (no durations, tids).
tree_column() {
	grep -e '^#' -e '|' "$1" | sed 's/^[^|]*| //; s/^# DURATION.*/#/'
}

# ctrace live: the tree (or report) of a temporary session, removed
# unless --keep; the program's exit status.
case_live() {
	use_config "$1"
	build_c fib "$PROGS/fib.c"
	build_c prog "$LAUNCHER_SRC/prog.c"
	mkdir tmp
	TMPDIR=$PWD/tmp ctrace live live -- "$BIN/fib" 5
	expect_status 0 live
	tree_column live >live.tree
	tree_column "$(expected fib5)" >expected.tree
	compare expected.tree live.tree
	[ -z "$(ls tmp)" ] || { ls -R tmp; fail "session left in tmp"; }
	[ -s live.err ] && { cat live.err; fail "live printed on stderr"; }

	TMPDIR=$PWD/tmp ctrace live live --keep --report -F main -F work \
		"$BIN/prog" exit 4
	expect_status 4 live
	kept=$(sed -n 's/^ctrace: session kept in //p' live.err)
	[ -d "$kept" ] || { cat live.err; fail "no session kept"; }
	[ "$(ls "$kept")" = trace.bin ] || { ls "$kept"; fail "kept: $(ls "$kept")"; }
	awk 'NR > 2 { print $5, $NF }' live >calls
	printf '%s\n' "1 main" "1 work" >expected
	compare expected calls
	ctrace info info "$kept"
	expect_info info "exit status" 4

	TMPDIR=$PWD/tmp ctrace live live -o x.bin "$BIN/prog"
	expect_status 2 live
	grep -q 'no -o or -d' live.err || { cat live.err; fail "-o taken"; }
}

for cfg in $(configs_pie); do
	run_case "shell-$cfg" case_shell "$cfg"
	run_case "shell-record-$cfg" case_shell_record "$cfg"
	run_case "exec-named-$cfg" case_exec_named "$cfg"
	run_case "info-$cfg" case_info "$cfg"
	run_case "directory-$cfg" case_directory "$cfg"
	run_case "live-$cfg" case_live "$cfg"
done

test_finish
