#!/bin/sh
# launcher.sh -- the ctrace launcher: record runs the program with the
# recorder's variables set from the options, refuses what would record
# nothing, passes the exit status through and names the trace files;
# replay, report, graph and dump run ctrace-symbolize with the right format.

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/tests/lib.sh"
: "${CTRACE_LAUNCHER:=$top_builddir/ctrace}"
LAUNCHER_SRC=$top_srcdir/tests/launcher
test_init launcher

[ -x "$CTRACE_LAUNCHER" ] || skip_script "$CTRACE_LAUNCHER not built"

# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

# ctrace OUT ARGS...: run the launcher, stdout to OUT, stderr to OUT.err;
# its exit status is in $status.
ctrace() {
	ct_out=$1
	shift
	"$CTRACE_LAUNCHER" "$@" >"$ct_out" 2>"$ct_out.err" </dev/null
	status=$?
}

# expect_status N OUT: fail unless the last run exited with N.
expect_status() {
	if [ "$status" -ne "$1" ]; then
		cat "$2" "$2.err"
		fail "exit status $status, expected $1"
	fi
}

# expect_line FILE LINE: fail unless FILE has the line LINE.
expect_line() {
	grep -q -x -F -e "$2" "$1" || {
		cat "$1"
		fail "$1 lacks the line: $2"
	}
}

# expect_text FILE TEXT: fail unless FILE contains TEXT.
expect_text() {
	grep -q -F -e "$2" "$1" || {
		cat "$1"
		fail "$1 lacks: $2"
	}
}

# build_progs: the instrumented test program $BIN/prog, and $BIN/plain,
# the same without the recorder.
build_progs() {
	use_config cc-O0-pie
	build_c prog "$LAUNCHER_SRC/prog.c"
	[ -x "$BIN/plain" ] && return 0
	$CC -g -o "$BIN/plain.tmp" "$LAUNCHER_SRC/prog.c" ||
		fail "build of $BIN/plain failed"
	mv "$BIN/plain.tmp" "$BIN/plain"
}

# The real ctrace-symbolize, before a case puts a fake in CTRACE_SYMBOLIZE.
REAL_SYMBOLIZE=$CTRACE_SYMBOLIZE

# fake_symbolizer PATH MARK: a stand-in for ctrace-symbolize that prints
# MARK, then its arguments one a line, and exits with $FAKE_STATUS; the
# real one answers --list-options and --list-formats.
fake_symbolizer() {
	[ -x "$REAL_SYMBOLIZE" ] || skip "ctrace-symbolize not built"
	cat >"$1" <<EOF
#!/bin/sh
case "\$*" in --list-options | --list-formats) exec "$REAL_SYMBOLIZE" "\$1" ;; esac
echo "$2"
for a in "\$@"; do printf "%s\\n" "\$a"; done
exit \${FAKE_STATUS:-0}
EOF
	chmod +x "$1"
}

# table_commands: the commands of the launcher's table, one a line.
table_commands() {
	sed -n 's/^COMMAND(\([a-z_]*\),.*/\1/p' "$top_srcdir/tools/commands.def"
}

# expect_args OUT MARK ARG...: the fake symbolizer ran, with exactly ARGs.
expect_args() {
	ea_out=$1
	shift
	printf '%s\n' "$@" >"$ea_out.expected"
	compare "$ea_out.expected" "$ea_out"
}

# ---------------------------------------------------------------------------
# record
# ---------------------------------------------------------------------------

case_exit_status() {
	build_progs
	ctrace out record -- "$BIN/prog" exit 3
	expect_status 3 out
	[ -s trace.bin ] || fail "no trace.bin"
	expect_line out.err "ctrace: trace written to trace.bin"
	ctrace out record "$BIN/prog" exit 0
	expect_status 0 out
}

# The program's options are its own, with or without --.
case_program_options() {
	build_progs
	ctrace out record "$BIN/prog" args -o x -D 0 --help -- y
	expect_status 0 out
	printf '%s\n' -o x -D 0 --help -- y >expected
	compare expected out
}

case_output_option() {
	build_progs
	mkdir sub
	ctrace out record -o sub/t.bin -- "$BIN/prog" exit 0
	expect_status 0 out
	[ -s sub/t.bin ] || fail "no sub/t.bin"
	[ -e trace.bin ] && fail "trace.bin written too"
	expect_line out.err "ctrace: trace written to sub/t.bin"
	ctrace out record --output="$(pwd)/abs.bin" "$BIN/prog"
	expect_line out.err "ctrace: trace written to $(pwd)/abs.bin"
}

# A fork()ed child's file is named too; files of earlier runs are not.
case_fork_files() {
	build_progs
	: >trace.bin.1
	ctrace out record -- "$BIN/prog" fork
	expect_status 0 out
	n=$(grep -c '^ctrace: trace written to ' out.err)
	[ "$n" -eq 2 ] || { cat out.err; fail "$n files named, expected 2"; }
	expect_line out.err "ctrace: trace written to trace.bin"
	child=$(sed -n 's/^ctrace: trace written to \(trace\.bin\.[0-9]*\)$/\1/p' \
		out.err)
	[ -s "$child" ] || fail "no child trace $child"
	grep -q 'trace\.bin\.1$' out.err && fail "trace.bin.1 named"
	:
}

case_environment_defaults() {
	build_progs
	CTRACE=off CTRACE_DEPTH=2 CTRACE_FILTER=x CTRACE_START=off \
	CTRACE_CLOCK=monotonic \
		ctrace out record -- "$BIN/prog" env
	expect_status 0 out
	cat >expected <<EOF
CTRACE unset
CTRACE_OUTPUT=trace.bin
CTRACE_FILTER unset
CTRACE_MATCH unset
CTRACE_DEPTH unset
CTRACE_MIN_DURATION unset
CTRACE_ARGS unset
CTRACE_RETVAL unset
CTRACE_SIGNAL unset
CTRACE_START unset
CTRACE_CLOCK=monotonic
EOF
	compare expected out
}

case_environment_options() {
	build_progs
	ctrace out record -o x.bin -F 'fi*' -N main -N 'a?' --filter=w \
		--notrace=z -D 4 -t 5us --args --retval=foo,bar \
		--signal=USR2 --no-start --match=glob -- "$BIN/prog" env
	expect_status 0 out
	cat >expected <<EOF
CTRACE unset
CTRACE_OUTPUT=x.bin
CTRACE_FILTER=fi*,!main,!a?,w,!z
CTRACE_MATCH=glob
CTRACE_DEPTH=4
CTRACE_MIN_DURATION=5us
CTRACE_ARGS=all
CTRACE_RETVAL=foo,bar
CTRACE_SIGNAL=12
CTRACE_START=off
CTRACE_CLOCK unset
EOF
	compare expected out

	ctrace out record --match=regex -F '^w(or)+k$' -t 1.5ms \
		--depth=1 --time-filter=2ms --args=a --args=b --retval=x \
		--retval --signal=sigusr1 "$BIN/prog" env
	expect_status 0 out
	expect_line out "CTRACE_MATCH=regex"
	expect_line out "CTRACE_FILTER=^w(or)+k\$"
	expect_line out "CTRACE_DEPTH=1"
	expect_line out "CTRACE_MIN_DURATION=2ms"
	expect_line out "CTRACE_ARGS=a,b"
	expect_line out "CTRACE_RETVAL=all"
	expect_line out "CTRACE_SIGNAL=10"
	expect_line out "CTRACE_START unset"

	# a comma inside <> is part of a C++ name
	ctrace out record -F 'ns::pick<int, char>' -N 'f(a,b)' "$BIN/prog" env
	expect_status 0 out
	expect_line out "CTRACE_FILTER=ns::pick<int, char>,!f(a,b)"

	for sig in 2:2 SIGINT:2 RTMIN:34 SIGRTMIN+2:36 RTMAX-1:63; do
		ctrace out record --signal="${sig%:*}" "$BIN/prog" env
		expect_status 0 out
		expect_line out "CTRACE_SIGNAL=${sig#*:}"
	done
}

# usage_case NAME TEXT ARGS...: ctrace ARGS must exit 2 with TEXT in its
# first message, without running the program.
usage_case() {
	uc_name=$1
	uc_text=$2
	shift 2
	rm -f ready
	ctrace "$uc_name" "$@"
	expect_status 2 "$uc_name"
	head -n 1 "$uc_name.err" | grep -q -F -e "ctrace: " ||
		fail "$uc_name: no ctrace: message"
	expect_text "$uc_name.err" "$uc_text"
	[ -e ready ] && fail "$uc_name: the program ran"
	:
}

case_usage_errors() {
	build_progs
	p="$BIN/prog"
	usage_case depth0 "invalid depth '0'" record -D 0 -- "$p" wait
	usage_case depthx "invalid depth 'x'" record -D x -- "$p" wait
	usage_case depthneg "invalid depth '-1'" record --depth=-1 "$p" wait
	usage_case time-unit "missing unit" record -t 5 -- "$p" wait
	usage_case time-bad-unit "unknown unit" record -t 5xs -- "$p" wait
	usage_case time-word "invalid time 'abc'" record -t abc -- "$p" wait
	usage_case time-zero "invalid time '0us'" record -t 0us -- "$p" wait
	usage_case signal "invalid signal 'FOO'" record --signal=FOO "$p" wait
	usage_case signal-kill "cannot be caught" record --signal=KILL "$p" wait
	usage_case signal-range "invalid signal '99'" record --signal=99 "$p"
	usage_case no-program "no program given" record
	usage_case no-program2 "no program given" record -D 3 --
	usage_case comma-F "cannot contain a comma" record -F 'a,b' -- "$p" wait
	usage_case comma-after-F "cannot contain a comma" record -F 'a<b>,c' -- "$p" wait
	usage_case comma-N "cannot contain a comma" record -N 'a,b' -- "$p" wait
	usage_case bang "cannot start with '!'" record -F '!a' -- "$p" wait
	usage_case empty "empty pattern" record -F '' -- "$p" wait
	usage_case regex "invalid regular expression" \
		record --match=regex -F 'a(' -- "$p" wait
	usage_case match "invalid --match 'x'" record --match=x -- "$p" wait
	usage_case option "unrecognized option" record --bogus -- "$p" wait
	usage_case value "requires an argument" record "-D"
	usage_case command "unknown command 'frob'" frob
	usage_case no-command "no command given"
	usage_case empty-output "empty output file name" record -o '' "$p" wait
	usage_case dir-output "a directory" record -o sub/ "$p" wait
	usage_case dot-output "a directory" record --output=sub/.. "$p" wait
}

case_not_built_with_ctrace() {
	build_progs
	cp "$BIN/plain" plain
	ctrace out record -- ./plain wait
	expect_status 2 out
	expect_line out.err "ctrace: ./plain was not built with ctrace: compile with -finstrument-functions and link with -lctrace (pkg-config --cflags --libs ctrace)"
	[ "$(wc -l <out.err)" -eq 1 ] || { cat out.err; fail "extra lines"; }
	[ -e ready ] && fail "the program ran"
	# Stripped: the message says what --force is for, which runs it.
	cp "$BIN/plain" stripped
	strip stripped || skip "strip failed"
	ctrace out record -- ./stripped exit 0
	expect_status 2 out
	expect_text out.err "ctrace: ./stripped was not built with ctrace"
	expect_text out.err "ctrace: ./stripped has no symbol table"
	ctrace out record --force -- ./stripped exit 5
	expect_status 5 out
	expect_text out.err "ctrace: ./stripped wrote no trace to trace.bin"
}

case_stripped_forced() {
	build_progs
	cp "$BIN/prog" prog
	strip prog || skip "strip failed"
	ctrace out record -- ./prog exit 0
	expect_status 2 out
	ctrace out record --force -- ./prog exit 0
	expect_status 0 out
	[ -s trace.bin ] || fail "no trace.bin"
}

case_not_a_program() {
	build_progs
	printf '#!/bin/sh\nexec "%s" exit 4\n' "$BIN/prog" >script
	chmod +x script
	ctrace out record -- ./script
	expect_status 2 out
	expect_text out.err "ctrace: ./script is a script"
	ctrace out record --force -- ./script
	expect_status 4 out
	expect_line out.err "ctrace: trace written to trace.bin"
	echo 'exit 6' >noshebang
	chmod +x noshebang
	ctrace out record -- ./noshebang
	expect_status 2 out
	expect_line out.err "ctrace: ./noshebang is not an ELF executable"
	ctrace out record --force -- ./noshebang
	expect_status 6 out
	$CC -c -o obj.o "$LAUNCHER_SRC/prog.c" || fail "cc -c failed"
	chmod +x obj.o
	ctrace out record -- ./obj.o
	expect_status 2 out
	expect_line out.err "ctrace: ./obj.o is not an executable program"
}

case_missing_program() {
	ctrace out record -- ./nope
	expect_status 2 out
	expect_line out.err "ctrace: ./nope: No such file or directory"
	ctrace out record -- ctrace-no-such-command
	expect_status 2 out
	expect_line out.err "ctrace: ctrace-no-such-command: command not found"
	mkdir dir
	ctrace out record -- ./dir
	expect_status 2 out
	expect_line out.err "ctrace: ./dir: Is a directory"
	: >noexec
	ctrace out record -- ./noexec
	expect_status 2 out
	expect_line out.err "ctrace: ./noexec: Permission denied"
}

case_path_search() {
	build_progs
	PATH=$BIN:$PATH ctrace out record -- prog exit 0
	expect_status 0 out
	[ -s trace.bin ] || fail "no trace.bin"
	PATH=$BIN:$PATH ctrace out record -- plain exit 0
	expect_status 2 out
	expect_text out.err "ctrace: $BIN/plain was not built with ctrace"
}

# A damaged symbol table or section header table must not crash ctrace:
# it runs the program, refuses it, or reports how the program died.
case_damaged_elf() {
	build_progs
	size=$(wc -c <"$BIN/prog")
	# poke FILE OFFSET BYTES...: overwrite bytes (octal escapes).
	poke() {
		printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
	}
	i=0
	for damage in \
		'shoff 40 \377\377\377\377\377\377\377\177' \
		'shoff 40 \000\000\000\000\000\000\000\000' \
		'shentsize 58 \001\000' \
		'shentsize 58 \377\377' \
		'shnum 60 \377\377' \
		'shnum 60 \000\000' \
		'class 4 \001' \
		'data 5 \002' \
		'cut 0 64' \
		'cut 0 20' \
		'cut 0 half' \
		'cut 0 -100' \
		'cut 0 -2000' \
		'tail 0 -1000' \
		'tail 0 -3000' \
		'tail 0 -6000'; do
		set -- $damage
		i=$((i + 1))
		f=bad$i
		cp "$BIN/prog" "$f"
		case $1 in
		cut)
			case $3 in
			half) n=$((size / 2)) ;;
			-*) n=$((size + $3)) ;;
			*) n=$3 ;;
			esac
			head -c "$n" "$BIN/prog" >"$f"
			;;
		tail)
			# Garbage over the end of the file, where the
			# section headers and symbol tables are.
			head -c 4096 /dev/urandom |
				dd of="$f" bs=1 seek=$((size + $3)) \
					conv=notrunc 2>/dev/null
			;;
		*)
			poke "$f" "$2" "$3"
			;;
		esac
		chmod +x "$f"
		ctrace "$f.out" record -- "./$f" exit 0
		grep -q '^ctrace: ' "$f.out.err" || {
			cat "$f.out.err"
			fail "$f ($damage): status $status, no message"
		}
		case $status in
		0 | 2 | 127) ;;
		*)
			grep -q 'terminated by signal' "$f.out.err" ||
				fail "$f ($damage): status $status"
			;;
		esac
	done
}

# A program cut short (still being linked, say) is called damaged.
case_truncated() {
	build_progs
	size=$(wc -c <"$BIN/prog")
	head -c $((size - 100)) "$BIN/prog" >short
	chmod +x short
	ctrace out record -- ./short wait
	expect_status 2 out
	expect_text out.err "ctrace: ./short is damaged"
	[ -e ready ] && fail "the program ran"
	:
}

# ELF32: the reader finds the symbol, or not, in a 32-bit program.
case_elf32() {
	[ "$HAVE_M32" = yes ] || skip "$CC -m32 does not work"
	$CC -m32 -o plain32 "$LAUNCHER_SRC/prog.c" || fail "cc -m32 failed"
	ctrace out record -- ./plain32 exit 0
	expect_status 2 out
	expect_text out.err "ctrace: ./plain32 was not built with ctrace"
	printf 'const char *ctrace_trace_path(void) { return 0; }\n' >mark.c
	$CC -m32 -o marked32 "$LAUNCHER_SRC/prog.c" mark.c ||
		fail "cc -m32 failed"
	ctrace out record -- ./marked32 exit 7
	expect_status 7 out
	strip marked32
	ctrace out record -- ./marked32 exit 0
	expect_status 2 out
	expect_text out.err "has no symbol table"
}

case_signals() {
	build_progs
	# Death by a signal: 128+N, and the trace is still named.
	ctrace out record -- "$BIN/prog" kill
	expect_status 143 out
	expect_text out.err "ctrace: $BIN/prog terminated by signal 15"
	# SIGTERM sent to ctrace reaches the program.
	"$CTRACE_LAUNCHER" record -- "$BIN/prog" wait >out 2>out.err &
	pid=$!
	n=0
	while [ ! -e ready ] && [ $n -lt 500 ]; do
		sleep 0.01
		n=$((n + 1))
	done
	[ -e ready ] || { kill $pid; fail "the program did not start"; }
	kill -TERM $pid
	wait $pid
	status=$?
	expect_status 143 out
	expect_text out.err "terminated by signal 15"
	# SIGINT (the terminal's ^C) is for the program, not for ctrace.
	rm -f ready
	"$CTRACE_LAUNCHER" record -- "$BIN/prog" wait >out 2>out.err &
	pid=$!
	n=0
	while [ ! -e ready ] && [ $n -lt 500 ]; do
		sleep 0.01
		n=$((n + 1))
	done
	kill -INT $pid
	sleep 0.1
	touch go
	wait $pid
	status=$?
	expect_status 0 out
}

case_help() {
	ctrace out --help
	expect_status 0 out
	expect_text out "Usage: ctrace record"
	ctrace out record --help
	expect_status 0 out
	expect_text out "--time-filter=TIME"
	ctrace out --version
	expect_status 0 out
	grep -q '^ctrace [0-9]' out || fail "no version"
}

# Every command of the table (tools/commands.def) is in ctrace --help,
# with its usage line, has its own --help, and is named when a command is
# unknown.
case_help_commands() {
	table_commands >commands
	for c in record replay report graph dump; do
		grep -q -x -F "$c" commands ||
			fail "$c is not in tools/commands.def"
	done
	ctrace out --help
	expect_status 0 out
	while read -r c; do
		grep -q -e "^  $c  *[a-z(]" out ||
			{ cat out; fail "ctrace --help lacks the command $c"; }
		grep -q -e "^\(Usage:\|      \) ctrace $c " out ||
			{ cat out; fail "ctrace --help lacks the usage of $c"; }
		ctrace "help-$c" "$c" --help
		expect_status 0 "help-$c"
		[ -s "help-$c" ] || fail "ctrace $c --help printed nothing"
	done <commands
	names=$(paste -s -d , commands |
		sed 's/,/, /g; s/, \([^,]*\)$/ or \1/')
	usage_case command "unknown command 'frob' ($names)" frob
	usage_case empty-command "unknown command '' ($names)" ''
	usage_case option "unknown option '--frob'" --frob
	usage_case no-command "no command given ($names)"
}

# ---------------------------------------------------------------------------
# replay, report, graph, dump
# ---------------------------------------------------------------------------

case_symbolizer_arguments() {
	fake_symbolizer fake FAKE
	CTRACE_SYMBOLIZE=$(pwd)/fake
	export CTRACE_SYMBOLIZE
	ctrace out replay
	expect_status 0 out
	expect_args out FAKE --format=tree trace.bin
	ctrace out replay --no-duration -o tree.txt t.bin u.bin
	expect_args out FAKE --format=tree --no-duration -o tree.txt t.bin u.bin
	ctrace out replay -o tree.txt --search-dir dir -fjson
	expect_args out FAKE --format=tree -o tree.txt --search-dir dir -fjson \
		trace.bin
	ctrace out replay --output=x -- -t.bin
	expect_args out FAKE --format=tree --output=x -- -t.bin
	ctrace out report --srcline
	expect_args out FAKE --format=report --srcline trace.bin
	ctrace out graph x.bin
	expect_args out FAKE --format=dot x.bin
	# a first operand that is no file and no *.bin is a function
	ctrace out graph main
	expect_args out FAKE --format=graph --function=main trace.bin
	ctrace out graph -D 2 'ns::f(int)' x.bin
	expect_args out FAKE --format=graph '--function=ns::f(int)' -D 2 x.bin
	mkdir -p dir
	ctrace out graph -- dir
	expect_args out FAKE --format=dot -- dir
	ctrace out dump
	expect_args out FAKE --format=json trace.bin
	ctrace out dump --chrome x.bin
	expect_args out FAKE --format=chrome x.bin
	ctrace out dump x.bin --flame-graph
	expect_args out FAKE --format=folded x.bin
	ctrace out dump --chrome --json -- --chrome
	expect_args out FAKE --format=json -- --chrome
	FAKE_STATUS=1 ctrace out replay
	expect_status 1 out
	# A value in the next argument is not a trace: ctrace-symbolize's
	# --list-options says which options take one.
	ctrace out replay --max-depth 3
	expect_status 0 out
	expect_args out FAKE --format=tree --max-depth 3 trace.bin
	ctrace out report --sort name --srcline --tid 1 -D2 -F main
	expect_args out FAKE --format=report --sort name --srcline --tid 1 \
		-D2 -F main trace.bin
	# abbreviated, as getopt_long() takes it
	ctrace out replay --max-d 3 --thread-i serial
	expect_args out FAKE --format=tree --max-d 3 --thread-i serial \
		trace.bin
	ctrace out graph --max-depth 3 x.bin
	expect_args out FAKE --format=dot --max-depth 3 x.bin
	# dump's flags are not the value of an option
	ctrace out dump -o --chrome --search-dir --folded x.bin
	expect_args out FAKE --format=json -o --chrome --search-dir --folded \
		x.bin
}

# dump's format flags are the formats ctrace-symbolize lists.
case_dump_formats() {
	fake_symbolizer fake FAKE
	"$REAL_SYMBOLIZE" --list-formats >list ||
		fail "ctrace-symbolize --list-formats failed"
	cut -f 1 list >formats
	for f in tree json chrome folded; do
		grep -q -x -F "$f" formats || fail "ctrace-symbolize lacks $f"
	done
	CTRACE_SYMBOLIZE=$(pwd)/fake
	export CTRACE_SYMBOLIZE
	while read -r f; do
		ctrace out dump "--$f" --max-depth 2
		expect_status 0 out
		expect_args out FAKE "--format=$f" --max-depth 2 trace.bin
	done <formats
	ctrace out dump --help
	expect_status 0 out
	while read -r f; do
		grep -q -e "^  --$f " out || { cat out; fail "dump --help lacks --$f"; }
	done <formats
}

# Without CTRACE_SYMBOLIZE: next to ctrace first, then in PATH.
case_symbolizer_lookup() {
	unset CTRACE_SYMBOLIZE
	mkdir next alone path
	cp "$CTRACE_LAUNCHER" next/ctrace
	cp "$CTRACE_LAUNCHER" alone/ctrace
	fake_symbolizer next/ctrace-symbolize NEXT
	fake_symbolizer path/ctrace-symbolize PATH
	PATH=$(pwd)/path:$PATH next/ctrace replay >out 2>out.err
	expect_line out NEXT
	PATH=$(pwd)/path:$PATH alone/ctrace replay >out 2>out.err
	expect_line out PATH
	PATH=$(pwd)/nowhere alone/ctrace replay >out 2>out.err
	status=$?
	expect_status 127 out
	expect_text out.err "ctrace: cannot run ctrace-symbolize"
	# Its options are asked of the same one.
	PATH=$(pwd)/path:$PATH next/ctrace replay --max-depth 3 >out 2>out.err
	expect_line out NEXT
	expect_line out trace.bin
	PATH=$(pwd)/nowhere alone/ctrace replay --max-depth 3 >out 2>out.err
	status=$?
	expect_status 127 out
	expect_text out.err "ctrace: cannot run ctrace-symbolize"
	# One that does not list its options is not guessed at.
	printf '#!/bin/sh\necho "unrecognized option" >&2\nexit 2\n' >old
	chmod +x old
	CTRACE_SYMBOLIZE=$(pwd)/old ctrace out replay -D 3
	expect_status 127 out
	expect_text out.err "ctrace: $(pwd)/old --list-options failed"
	printf '#!/bin/sh\necho "--max-depth=N"\n' >odd
	chmod +x odd
	CTRACE_SYMBOLIZE=$(pwd)/odd ctrace out dump --chrome x.bin
	expect_status 127 out
	expect_text out.err "ctrace: $(pwd)/odd --list-options: line 1 is not"
	CTRACE_SYMBOLIZE=$(pwd)/odd ctrace out dump --chrome
	expect_status 127 out
	expect_text out.err "ctrace: $(pwd)/odd --list-formats: line 1 is not"
}

# The real symbolizer: replay prints the tree of a recorded trace.
case_replay() {
	[ -x "$CTRACE_SYMBOLIZE" ] || skip "ctrace-symbolize not built"
	build_progs
	ctrace out record -- "$BIN/prog" exit 0
	expect_status 0 out
	ctrace tree replay
	expect_status 0 tree
	head -n 1 tree | grep -q '^# DURATION' || fail "no # DURATION header"
	expect_text tree "main() {"
	expect_text tree "leaf();"
	ctrace tree2 replay $STABLE_OPTS trace.bin
	expect_status 0 tree2
	symbolize tree3 $STABLE_OPTS trace.bin
	compare tree3 tree2
	ctrace json dump
	expect_status 0 json
	expect_text json '"calls"'
}

# The options of a run's processes pass through: --per-process, --pid,
# --fields.
case_processes() {
	[ -x "$CTRACE_SYMBOLIZE" ] || skip "ctrace-symbolize not built"
	build_progs
	ctrace out record -- "$BIN/prog" fork
	expect_status 0 out
	child=$(sed -n 's/^ctrace: trace written to \(trace\.bin\.[0-9]*\)$/\1/p' \
		out.err)
	pid=${child#trace.bin.}
	ctrace report report --per-process trace.bin "$child"
	expect_status 0 report
	[ "$(grep -c '^# process [0-9]' report)" = 2 ] ||
		{ cat report; fail "not a table per process"; }
	ctrace tree replay --pid="$pid" --fields=tid trace.bin "$child"
	expect_status 0 tree
	head -n 1 tree | grep -q '^#    TID   FUNCTION$' || fail "no TID header"
	sed '/^#/d' tree >lines
	[ -s lines ] || fail "no line of process $pid"
	grep -v "^\[$pid/" lines && fail "lines of another process"
	:
}

# The real symbolizer: an option's value in the next argument is the
# same as after "=" (ctrace replay --max-depth 3 read 3 as a trace).
case_option_values() {
	[ -x "$CTRACE_SYMBOLIZE" ] || skip "ctrace-symbolize not built"
	build_progs
	ctrace out record -- "$BIN/prog" exit 0
	expect_status 0 out
	ctrace attached replay $STABLE_OPTS --max-depth=1
	expect_status 0 attached
	ctrace apart replay $STABLE_OPTS --max-depth 1
	expect_status 0 apart
	compare attached apart
	symbolize direct $STABLE_OPTS --max-depth=1 trace.bin
	compare direct apart
	ctrace deep replay $STABLE_OPTS
	expect_status 0 deep
	cmp -s deep apart && fail "--max-depth 1 changed nothing"
	ctrace abbrev replay $STABLE_OPTS --max-d 1
	expect_status 0 abbrev
	compare attached abbrev
	ctrace attached report --sort=calls --max-depth=1
	expect_status 0 attached
	ctrace apart report --sort calls --max-depth 1
	expect_status 0 apart
	compare attached apart
	ctrace attached dump --folded --weight=calls --max-depth=1
	expect_status 0 attached
	ctrace apart dump --weight calls --max-depth 1 --folded
	expect_status 0 apart
	compare attached apart
	expect_line apart "main;[deeper] 3"
}

# --args on a program built without -g: values are `?`, and the
# symbolizer says once why and what to do; with -g it says nothing.
case_args_without_debug_info() {
	[ -x "$CTRACE_SYMBOLIZE" ] || skip "ctrace-symbolize not built"
	build_progs
	$CC -O0 -finstrument-functions -I"$CTRACE_INCDIR" -o nodebug \
		"$LAUNCHER_SRC/prog.c" "$CTRACE_LIBDIR/libctrace.a" -pthread \
		-ldl || fail "build of nodebug failed"
	ctrace out record --args --retval -- ./nodebug exit 0
	expect_status 0 out
	ctrace tree replay
	expect_status 0 tree
	expect_text tree "leaf(?) = ?;"
	n=$(grep -c 'no debug information' tree.err)
	[ "$n" -eq 1 ] || { cat tree.err; fail "$n hints, expected 1"; }
	expect_text tree.err "nodebug: no debug information for "
	expect_text tree.err "show as ?; compile with -g"
	ctrace out record --args --retval -- "$BIN/prog" exit 0
	expect_status 0 out
	ctrace tree replay
	expect_status 0 tree
	[ ! -s tree.err ] || { cat tree.err; fail "messages with -g"; }
}

# report, graph and the other dumps, once ctrace-symbolize has them.
case_other_formats() {
	[ -x "$CTRACE_SYMBOLIZE" ] || skip "ctrace-symbolize not built"
	build_progs
	ctrace out record -- "$BIN/prog" exit 0
	missing=
	for cmd in report graph "dump --chrome" "dump --flame-graph"; do
		# shellcheck disable=SC2086
		ctrace fmt $cmd
		if [ "$status" -eq 2 ] && grep -q 'unknown format' fmt.err; then
			missing="$missing, $cmd"
			continue
		fi
		expect_status 0 fmt
		[ -s fmt ] || fail "ctrace $cmd printed nothing"
	done
	[ -z "$missing" ] ||
		skip "ctrace-symbolize lacks the formats of ${missing#, }"
}

run_case exit-status case_exit_status
run_case program-options case_program_options
run_case output-option case_output_option
run_case fork-files case_fork_files
run_case environment-defaults case_environment_defaults
run_case environment-options case_environment_options
run_case usage-errors case_usage_errors
run_case not-built-with-ctrace case_not_built_with_ctrace
run_case stripped-forced case_stripped_forced
run_case not-a-program case_not_a_program
run_case missing-program case_missing_program
run_case path-search case_path_search
run_case damaged-elf case_damaged_elf
run_case truncated case_truncated
run_case elf32 case_elf32
run_case signals case_signals
run_case help case_help
run_case help-commands case_help_commands
run_case symbolizer-arguments case_symbolizer_arguments
run_case dump-formats case_dump_formats
run_case symbolizer-lookup case_symbolizer_lookup
run_case replay case_replay
run_case processes case_processes
run_case option-values case_option_values
run_case args-without-debug-info case_args_without_debug_info
run_case other-formats case_other_formats
test_finish
