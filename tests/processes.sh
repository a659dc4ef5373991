#!/bin/sh
# processes.sh -- a run's processes read together: each child's calls show
# under the call of its parent that made it (fork, fork+exec, vfork+exec,
# posix_spawn, system, popen), after a note naming it, and the parent's
# lines are never interrupted by the child's returns through the calls it
# inherited.  Exact trees, with the pids named by order of appearance.

. "$(dirname "$0")/lib.sh"
test_init processes

# nest_tree OUT TRACES...: the tree of the traces, pids replaced by P1,
# P2... in the order they first show, without the lines naming the files
# (their order depends on the pids).  A fork()ed child that execs at once
# made no call: its trace holds no event, which may be said.
nest_tree() {
	nt_out=$1
	shift
	"$CTRACE_SYMBOLIZE" --no-duration --thread-ids=serial "$@" \
		>"$nt_out.raw" 2>"$nt_out.err" ||
		{ cat "$nt_out.err"; fail "ctrace-symbolize $* failed"; }
	if grep -v ': no events: the file holds its header' "$nt_out.err" |
		grep -q .; then
		cat "$nt_out.err"
		fail "ctrace-symbolize $* complained"
	fi
	check_tree "$nt_out.raw" >/dev/null
	LC_ALL=C awk '
		/^# / { if (NR == 1) print; next }
		{
			out = ""
			while (match($0, /\[ *[0-9]+\/|process [0-9]+/)) {
				s = substr($0, RSTART, RLENGTH)
				pid = s
				gsub(/[^0-9]/, "", pid)
				if (!(pid in name))
					name[pid] = "P" (++n)
				sub(/[0-9]+/, name[pid], s)
				sub(/^\[ */, "[", s)
				out = out substr($0, 1, RSTART - 1) s
				$0 = substr($0, RSTART + RLENGTH)
			}
			print out $0
		}' "$nt_out.raw" >"$nt_out"
}

# nest_case NAME MODE ARGS...: `nest MODE ARGS...' gives the tree
# expected/nest-NAME.tree (after use_config).
nest_case() {
	nc_name=$1
	shift
	build_c nest "$PROGS/nest.c"
	run_traced "$PWD/trace.bin" "$BIN/nest" "$@"
	nest_tree tree trace.bin trace.bin.[0-9]*
	compare "$(expected "nest-$nc_name")" tree
}

case_fork() { use_config "$1"; nest_case fork fork; }
case_fork_exec() {
	use_config "$1"
	nest_case fork-exec fork-exec "$BIN/nest" work
}
case_vfork_exec() {
	use_config "$1"
	nest_case vfork-exec vfork-exec "$BIN/nest" work
}
case_spawn() { use_config "$1"; nest_case spawn spawn "$BIN/nest" work; }
case_system() { use_config "$1"; nest_case system system "$BIN/nest work"; }
case_popen() { use_config "$1"; nest_case popen popen "$BIN/nest work"; }
# Three processes, each with a second thread
case_tree() { use_config "$1"; nest_case tree tree 3; }
# The same three processes (ending by exit(), for the oracle's
# destructor): the calls per function in all of them, read together, are
# those the counting oracle linked into the same objects counted in each
# process (its files .PID for the forked ones).  Depths
# are not compared: a child's are shown under the call that made it.
case_oracle() {
	use_config "$1"
	need_python
	build_pair c nest-pair "$PROGS/nest.c"
	run_traced "$PWD/trace.bin" "$BIN/nest-pair" tree-exit 3
	rm -f counts counts.*
	CTRACE_ORACLE_OUT=$PWD/counts "$BIN/nest-pair.oracle" tree-exit 3 \
		>oracle.out 2>&1 ||
		{ cat oracle.out; fail "nest-pair.oracle failed"; }
	n=$(ls trace.bin trace.bin.[0-9]* | wc -l)
	[ "$n" -eq 3 ] || fail "$n traces, expected 3"
	[ "$(ls counts counts.* | wc -l)" -eq 3 ] ||
		{ ls; fail "the oracle wrote $(ls counts* | wc -l) files"; }
	symbolize all.json -f json --demangle=none trace.bin trace.bin.[0-9]*
	"$PYTHON3" -S "$top_srcdir/tests/oracle/compare.py" --counts-only \
		"$BIN/nest-pair" "$BIN/nest-pair.oracle" all.json counts \
		counts.* >compare.out 2>&1 ||
		{ cat compare.out; fail "calls differ from the oracle"; }
	cat compare.out
}
# The child dies by SIGKILL inside its calls
case_killed() { use_config "$1"; nest_case killed killed; }

# A program not built with ctrace (env) in the middle of a chain: the
# forked child execs env, which execs a traced program, which spawns one.
case_chain() {
	use_config "$1"
	need_python
	nest_case chain fork-exec /usr/bin/env "$BIN/nest" spawn "$BIN/nest" \
		work
	# JSON: how each process started; Chrome: an arrow to each child
	# (none to the exec'd image: it goes on in its process's track)
	"$CTRACE_SYMBOLIZE" -f json trace.bin trace.bin.[0-9]* >json 2>/dev/null ||
		fail "no JSON"
	"$PYTHON3" -S - json <<'PY' || fail "bad started_by"
import json, sys
procs = json.load(open(sys.argv[1]))["header"]["processes"]
by = {p["trace"]: p["started_by"] for p in procs}
pid = {p["trace"]: p["pid"] for p in procs}
assert by.pop("trace.bin") is None, by
hows = sorted((b["how"], b["pid"] == pid[b["trace"]]) for b in by.values())
assert hows == [("child", True), ("exec", True), ("fork", True)], by
PY
	"$CTRACE_SYMBOLIZE" -f chrome trace.bin trace.bin.[0-9]* >chrome.json \
		2>/dev/null || fail "no Chrome output"
	"$PYTHON3" -S "$top_srcdir/tests/outputs/check.py" chrome chrome.json \
		>/dev/null || fail "bad Chrome trace"
	[ "$(grep -c '^{"ph": "s", ' chrome.json)" = 2 ] ||
		fail "expected 2 flow arrows"
}

# The child outlives its parent: its calls still show under the call that
# made it.
case_orphan() {
	use_config "$1"
	build_c nest "$PROGS/nest.c"
	run_traced "$PWD/trace.bin" "$BIN/nest" orphan "$PWD/done"
	# Wait (two minutes at most: a guard against a hang) for the orphan's
	# end: its file, then its trace's lock, which the recorder holds until
	# the trace is finished.
	i=0
	while [ ! -f done ] && [ $i -lt 2400 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ -f done ] || fail "the orphan did not finish"
	for t in trace.bin.[0-9]*; do
		flock -w 120 "$t" true || fail "$t still written after 2 minutes"
	done
	nest_tree tree trace.bin trace.bin.[0-9]*
	compare "$(expected nest-orphan)" tree
}

# --pid and --tid select processes and threads in the tree of three
# processes; --per-process gives the report one table per process.
case_select() {
	use_config "$1"
	build_c nest "$PROGS/nest.c"
	run_traced "$PWD/trace.bin" "$BIN/nest" tree 3
	nest_tree all trace.bin trace.bin.[0-9]*
	# the pids in the order they show: parent, child, grandchild
	set -- $(LC_ALL=C sed -n 's/^ *\[ *\([0-9]*\)\/.*/\1/p' all.raw |
		awk '!seen[$0]++')
	[ $# -eq 3 ] || fail "expected 3 processes, got $*"
	nest_tree child --pid="$2" trace.bin trace.bin.[0-9]*
	compare "$(expected nest-select-pid)" child
	nest_tree threads --pid="$2,$3" --tid=2 trace.bin trace.bin.[0-9]*
	compare "$(expected nest-select-tid)" threads
	"$CTRACE_SYMBOLIZE" --pid=1 trace.bin >none 2>none.err
	grep -q '^ctrace-symbolize: --pid: no process 1 in the traces$' \
		none.err || { cat none.err; fail "no warning for --pid=1"; }
	symbolize report --format=report --per-process trace.bin \
		trace.bin.[0-9]*
	[ "$(grep '^# process ' report | cut -d' ' -f3)" = "$1
$2
$3" ] || { cat report; fail "not a table per process, in order"; }
	# each process's own calls: level and thread_call once, leaf once;
	# main only in the first (the others inherited it)
	for fn in level thread_call leaf; do
		n=$(grep -c " 1 .* $fn\$" report)
		[ "$n" = 3 ] || { cat report; fail "$fn: $n rows of 1 call"; }
	done
	[ "$(grep -c ' main$' report)" = 1 ] || fail "main not once"
}

# --fields: the columns asked for, in order; elapsed counts from the start
# of the traces, so a child's lines fall between the spawning call's
# entry and exit; the timestamps within the run's wall clock.
case_fields() {
	use_config "$1"
	build_c nest "$PROGS/nest.c"
	before=$(date +%s)
	run_traced "$PWD/trace.bin" "$BIN/nest" fork-exec "$BIN/nest" work
	after=$(date +%s)
	"$CTRACE_SYMBOLIZE" --fields=tid,elapsed,timestamp,addr,module \
		--thread-ids=serial trace.bin trace.bin.[0-9]* >tree 2>tree.err ||
		fail "ctrace-symbolize --fields failed"
	[ "$(sed -n 1p tree)" = \
"#    TID    ELAPSED            TIMESTAMP            ADDRESS MODULE             FUNCTION" ] ||
		fail "header: $(sed -n 1p tree)"
	sed '/^#/d' tree | LC_ALL=C awk -v before="$before" -v after="$after" '
		function ns(v, u) { return u == "us" ? v * 1e3 : u == "ms" ? v * 1e6 : v * 1e9 }
		{
			# [P/T] ELAPSED UNIT TIMESTAMP [ADDR MODULE] | TEXT; a
			# pid shorter than the column is padded: "[ 368/1]"
			sub(/^\[ +/, "[")
			if ($1 !~ /^\[[0-9]+\/[0-9]+\]$/) { print "tid: " $0; bad = 1 }
			t = ns($2, $3)
			if ($4 + 0 < before || $4 + 0 > after + 1) {
				print "timestamp: " $0; bad = 1
			}
			text = substr($0, index($0, " | ") + 3)
			if (text ~ /^ *\/\*/) next
			if ($5 !~ /^0x[0-9a-f]+$/ || $6 != "nest") {
				print "addr, module: " $0; bad = 1
			}
			name = text; sub(/^ */, "", name); sub(/[(;} ].*/, "", name)
			if (text ~ /do_fork_exec\(\) \{$/) start = t
			if (text ~ /\/\* do_fork_exec \*\/$/) end = t
			if ($1 !~ /^\[[0-9]+\/1\]$/) next
			if (index(text, "main() {") && ++mains == 2) child = t
			if (name != "" && (name SUBSEP $1) in addr && addr[name, $1] != $5) {
				print "two addresses of " name ": " $0; bad = 1
			}
			if (name != "") addr[name, $1] = $5
		}
		END {
			if (!(start <= child && child <= end)) {
				print "child at " child " not within " start "~" end
				bad = 1
			}
			exit bad
		}' || { cat tree; fail "wrong columns"; }
	# the default columns, asked for, give the default tree
	symbolize default trace.bin
	symbolize asked --fields=duration,tid trace.bin
	compare default asked
	if "$CTRACE_SYMBOLIZE" --fields=tid,tid trace.bin >bad 2>bad.err; then
		fail "--fields=tid,tid accepted"
	fi
	grep -q "^ctrace-symbolize: bad --fields 'tid,tid'" bad.err ||
		{ cat bad.err; fail "no message for --fields=tid,tid"; }
}

for cfg in $(configs_pie); do
	for c in fork fork-exec vfork-exec spawn system popen tree oracle \
		killed chain orphan select fields; do
		run_case "$c-$cfg" "case_$(echo "$c" | tr - _)" "$cfg"
	done
done

test_finish
