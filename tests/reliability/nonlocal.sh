#!/bin/sh
# nonlocal.sh -- calls left without their exit: siglongjmp out of a
# SIGSEGV handler on an alternate stack, a coroutine (swapcontext) that
# yields from nested calls, a call with a big frame after longjmp, and
# thousands of random longjmps, C++ throws and coroutine switches through
# frames of many sizes, and siglongjmp out of a timer signal's handler at
# random points, the recorder included, and out of a handler at every
# instruction of it (single-stepped).  make check runs it in two parts:
# nonlocal-1.sh the single-stepped cases (about two thirds of its time,
# the kernel's work at every step), nonlocal-2.sh the others.

. "$(dirname "$0")/rel.sh"
test_init reliability-nonlocal

case_tree() {
	use_config "$1"
	build_c nonlocal "$RPROGS/nonlocal.c"
	run_traced trace.bin "$BIN/nonlocal" "$2"
	rel_tree "$3" trace.bin ${4:-}
}

# Random walks of calls and longjmps, throws or coroutine switches: every
# call at the depth the program itself counted (a resumed coroutine's
# open calls are one line, not calls again), with and without argument
# and return value capture.
case_jumps() {
	use_config "$1"
	case $3 in
	throws) build_pair cxx throws "$RPROGS/throws.cc" ;;
	*) build_pair c "$3" "$RPROGS/$3.c" ;;
	esac
	for seed in 1 2 3 4 5; do
		CTRACE_ARGS=$2 CTRACE_RETVAL=$2 \
			run_traced trace.bin "$BIN/$3" "$seed" 3000
		symbolize_stable tree trace.bin
		call_depths tree >got
		compare trace.bin.out got
		# The counting hooks cannot follow depths through jumps (a
		# resumed coroutine's calls are in the JSON once).
		oracle_check --counts-only trace.bin "$BIN/$3" "$seed" 3000
	done
}

# siglongjmp out of a timer signal's handler that may have interrupted the
# recorder: the thread records on (main ends, every call of mark at depth
# 1), and every event the counting oracle saw in the same run is recorded
# or counted lost, exactly: per function, the calls and exits recorded are
# at most the oracle's, and all that is missing adds up to the events the
# trace counts lost, for no other reason than jumps and nested handlers.
# With capture ($2: args or retval), 2000 rounds a seed: a jump that came
# after the recorder moved its write position past an event but before it
# updated the stream's time or stack pointer (the compiler may order those
# stores either way) left the next event encoded against stale ones: "time
# goes back", or calls of mark too deep.
case_sigjumps() {
	use_config "$1"
	build_pair c sigjumps "$RPROGS/sigjumps.c"
	build_tee c sigjumps
	need_python
	sj_args= sj_retval= sj_rounds=300
	case $2 in
	args) sj_args=all sj_rounds=2000 ;;
	retval) sj_retval=all sj_rounds=2000 ;;
	esac
	# one seed in make check, three in make check-full
	for seed in $(in_matrix "1 2 3" 1); do
		rm -f trace.bin.counts trace.bin.counts.*
		CTRACE_ORACLE_OUT=trace.bin.counts CTRACE_ARGS=$sj_args \
			CTRACE_RETVAL=$sj_retval \
			run_traced trace.bin "$BIN/sigjumps.tee" "$seed" "$sj_rounds"
		read -r rounds jumps <trace.bin.out
		[ "$jumps" -gt 0 ] || fail "seed $seed: no jump happened"
		# shellcheck disable=SC2086
		"$CTRACE_SYMBOLIZE" $STABLE_OPTS trace.bin >tree 2>err ||
			{ cat err; fail "seed $seed: ctrace-symbolize failed"; }
		if grep -v -e 'jump out of a signal handler' \
			-e 'nested signal handlers' err | grep -q .; then
			cat err
			fail "seed $seed: lost for another reason, or bad trace"
		fi
		# (the tree has two million lines: call_depths reads the
		# lines that may be calls of mark only)
		LC_ALL=C grep -F ' mark(' tree >mark-lines
		call_depths mark-lines | grep ' mark$' >marks
		grep -v '^1 mark$' marks && fail "seed $seed: mark not at depth 1"
		n=$(wc -l <marks)
		[ "$n" -eq "$rounds" ] ||
			fail "seed $seed: $n calls of mark of $rounds"
		tac tree | LC_ALL=C grep -m 1 -v '^#' >last-line
		tree_text last-line | grep -qx '} \(= [^;]*; \)\{0,1\}/\* main \*/' ||
			fail "seed $seed: main did not end"
		"$CTRACE_SYMBOLIZE" -f json --demangle=none trace.bin \
			>trace.bin.json 2>/dev/null
		"$PYTHON3" -S "$top_srcdir/tests/oracle/compare.py" --lost \
			"$BIN/sigjumps.tee" "$BIN/sigjumps.tee" trace.bin.json \
			trace.bin.counts* >compared 2>&1 ||
			{ cat compared; fail "seed $seed: events lost uncounted"; }
		cat compared
	done
}

# A handler at every instruction of the recorder (sigstep.c: the trap
# flag steps each round's calls), which calls an instrumented function, or
# at one instruction a round jumps out, of it or of a handler nested in
# it while that one writes the signal stream: every event the counting
# oracle saw in the same run is recorded or counted lost, exactly.  A
# handler between a hook's first two stores left its stack pointer for
# the hook, and the next one took the live recorder for one left by a
# jump (traces damaged, SIGBUS); one during a recovery recovered again
# or made the hook drop its event.  $2: args, retval or none; or plan:
# arguments with a capture plan, whose registers (format 6) go inside
# their ENTRY's group before its tag is stored, the stream's bases of
# the registers moved meanwhile; or planretval: both values with the
# plan, the return values read at the exit hook (its stub's own lookup
# of the plan's exit table, the operations, the RETVAL record).
case_sigstep() {
	use_config "$1"
	case $(uname -m) in
	x86_64) ;;
	*) skip "the trap flag is stepped on x86-64 only" ;;
	esac
	build_pair c sigstep "$RPROGS/sigstep.c"
	build_tee c sigstep
	need_python
	ss_args= ss_retval=
	case $2 in
	args) ss_args=all ;;
	plan | planretval)
		ss_args=all
		[ "$2" = planretval ] && ss_retval=all
		# made from the very binary run: its entries match its hooks
		CTRACE_PLAN=$BIN/sigstep.tee.plan
		export CTRACE_PLAN
		[ -f "$CTRACE_PLAN" ] ||
			"$CTRACE_SYMBOLIZE" --make-plan -o "$CTRACE_PLAN" \
				"$BIN/sigstep.tee" || fail "--make-plan failed"
		;;
	retval) ss_retval=all ;;
	esac
	rm -f trace.bin.counts trace.bin.counts.*
	CTRACE_ORACLE_OUT=trace.bin.counts CTRACE_ARGS=$ss_args \
		CTRACE_RETVAL=$ss_retval \
		run_traced trace.bin "$BIN/sigstep.tee" 800 400
	read -r rounds traps jumps <trace.bin.out
	[ "$traps" -gt "$rounds" ] && [ "$jumps" -gt 0 ] ||
		fail "$traps traps, $jumps jumps: nothing was stepped"
	if [ "$2" = planretval ]; then
		# leaf returns x + 1, read at its exit hook; every call shows it
		"$CTRACE_SYMBOLIZE" --no-duration trace.bin 2>/dev/null |
			LC_ALL=C grep -o 'leaf(x=[0-9]*) = [0-9-]*' |
			awk '{ n++; split($1, a, "="); x = a[2] + 0
				if ($3 != x + 1) { print; bad = 1 } }
				END { if (n < 100) { print n " leaf calls"; bad = 1 }
					exit bad }' ||
			fail "return values shown wrong"
	fi
	if [ "$2" = plan ]; then
		"$PYTHON3" "$top_srcdir/bench/records" trace.bin >records ||
			fail "bench/records failed"
		grep -q '^ARGS inline ' records ||
			{ cat records; fail "no registers inside an ENTRY"; }
		# and read right: leaf(x) is given its target's x, and the
		# rounds of mark come in order
		"$CTRACE_SYMBOLIZE" --no-duration trace.bin 2>/dev/null |
			LC_ALL=C grep -o -e '\(target\|leaf\)(x=[0-9]*' \
				-e 'mark(round=[0-9]*' |
			awk -F= '/^target/ { x = $2 }
				/^leaf/ && $2 != x { print "leaf(x=" $2 \
					") in target(x=" x ")"; bad = 1 }
				/^mark/ && $2 + 0 < m { print "mark(round=" \
					$2 ") after " m; bad = 1 }
				/^mark/ { m = $2 + 1; n++ }
				END { if (n < 100) { print n " marks"; bad = 1 }
					exit bad }' ||
			fail "arguments shown wrong"
	fi
	"$CTRACE_SYMBOLIZE" -f json --demangle=none trace.bin \
		>trace.bin.json 2>err ||
		{ cat err; fail "ctrace-symbolize failed"; }
	if grep -v -e 'jump out of a signal handler' \
		-e 'nested signal handlers' err | grep -q .; then
		cat err
		fail "lost for another reason, or bad trace"
	fi
	"$PYTHON3" -S "$top_srcdir/tests/oracle/compare.py" --lost \
		"$BIN/sigstep.tee" "$BIN/sigstep.tee" trace.bin.json \
		trace.bin.counts* >compared 2>&1 ||
		{ cat compared; fail "events lost uncounted"; }
	cat compared
}

# in_part K: the cases of part K/2 run (CTRACE_TEST_PART, set by
# nonlocal-K.sh; every case without it).  The parts split the cases, not
# the configurations (configs_part): each part builds its own programs.
nonlocal_part=${CTRACE_TEST_PART:-}
CTRACE_TEST_PART=
in_part() {
	[ -z "$nonlocal_part" ] || [ "$nonlocal_part" = "$1/2" ]
}

for cfg in $(configs_pie); do
	if in_part 1; then
		run_case "sigstep-$cfg" case_sigstep "$cfg" none
		case $cfg in
		*-O2-*)
			run_case "sigstep-capture-args-$cfg" case_sigstep \
				"$cfg" args
			run_case "sigstep-capture-plan-$cfg" case_sigstep \
				"$cfg" plan
			run_case "sigstep-capture-planretval-$cfg" case_sigstep \
				"$cfg" planretval
			run_case "sigstep-capture-retval-$cfg" case_sigstep \
				"$cfg" retval
			;;
		esac
	fi
	in_part 2 || continue
	run_case "sigjumps-$cfg" case_sigjumps "$cfg" ""
	# (the recorder's own code is the same whatever the program's
	# optimisation: 2000 rounds at -O2 only)
	case $cfg in
	*-O2-*)
		run_case "sigjumps-capture-retval-$cfg" case_sigjumps "$cfg" retval
		run_case "sigjumps-capture-args-$cfg" case_sigjumps "$cfg" args
		;;
	esac
	run_case "segv-altstack-$cfg" case_tree "$cfg" segv segv-altstack
	run_case "coroutine-$cfg" case_tree "$cfg" coroutine coroutine
	# after longjmp, a call with a bigger frame than the abandoned ones:
	# at its true depth, from the frame sizes in the DEFINE records
	run_case "sibling-$cfg" case_tree "$cfg" sibling sibling
	run_case "jumps-$cfg" case_jumps "$cfg" "" jumps
	run_case "jumps-capture-$cfg" case_jumps "$cfg" all jumps
	run_case "throws-$cfg" case_jumps "$cfg" "" throws
	run_case "throws-capture-$cfg" case_jumps "$cfg" all throws
	run_case "coroutines-$cfg" case_jumps "$cfg" "" coroutines
	run_case "coroutines-capture-$cfg" case_jumps "$cfg" all coroutines
done

test_finish
