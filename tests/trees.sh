#!/bin/sh
# trees.sh -- call trees of optimized code that gcc and clang inline,
# split or reshape, checked against the counting oracle (calls and depth
# sums per function) at every optimization level, and against the
# expected trees.  make check runs it in three parts, tests/trees-1.sh to
# tests/trees-3.sh, each on a third of the configurations.

. "$(dirname "$0")/lib.sh"
test_init trees

# The configurations: those of the other scripts and -O1, -O3, -Os; the
# quick matrix (make check) keeps one of each level that inlines or
# splits, PIE and not, both compilers.
configs_all_levels() {
	if [ -n "${CTRACE_TEST_CONFIGS:-}" ]; then
		echo "$CTRACE_TEST_CONFIGS"
		return
	fi
	for c in cc ${CLANG:+clang}; do
		for o in O0 O1 O2 O3 Os; do
			for p in pie nopie; do
				matrix_full || case $c-$o-$p in
				cc-O2-nopie | cc-O3-pie | cc-Os-nopie) ;;
				clang-O1-nopie | clang-O2-pie) ;;
				*) continue ;;
				esac
				echo "$c-$o-$p"
			done
		done
	done | configs_part
}

# gcc -O2 splits visit() into its test, inlined into the callers, and
# visit.part.0 (partial inlining): the exit hook of the inlined copies
# runs in visit.part.0 with another call site than their entry's.
case_partial() {
	use_config "$1"
	build_pair c partial "$PROGS/partial.c"
	if [ "$CUR_FAMILY$CUR_OPT" = gcc-O2 ]; then
		# the case this program is for must really be built
		objdump -d "$BIN/partial" |
			awk '/<visit\.part\.0>:/,/^$/' >part.s
		grep -q '__cyg_profile_func_exit' part.s ||
			fail "gcc -O2 did not split visit() with its exit hook in visit.part.0"
	fi
	run_traced trace.bin "$BIN/partial" 1
	symbolize_stable tree trace.bin
	compare "$EXPECTED/partial.tree" tree
	check_tree tree
	oracle_check trace.bin "$BIN/partial" 1
	run_traced trace50.bin "$BIN/partial" 50
	oracle_check trace50.bin "$BIN/partial" 50
}

# Return values with an instrumented function inlined (gcc, -O1 and up):
# the inlined copy's hooks run in a frame whose return address was
# replaced by the trampoline.  Every call at its depth, every value the
# one the program printed, no call site in the recorder.
case_retinline() {
	use_config "$1"
	build_pair c retinline "$PROGS/retinline.c"
	CTRACE_RETVAL=all run_traced trace.bin "$BIN/retinline" 5
	symbolize_stable tree trace.bin
	check_tree tree
	oracle_check trace.bin "$BIN/retinline" 5
	tree_text tree | sed -n -e 's/^ *mid() = \(.*\);$/mid \1/p' \
		-e 's/^ *top() = \(.*\);$/top \1/p' \
		-e 's/^ *} = \(.*\); \/\* \(mid\|top\) \*\/$/\2 \1/p' >values
	grep -e '^mid ' -e '^top ' trace.bin.out >printed
	# top returns after mid: the tree shows mid's value first, as printed
	compare printed values
	symbolize_stable srcline trace.bin --srcline
	if grep -F 'hooks.S' srcline; then
		fail "a call site in the recorder's trampoline"
	fi
}

# A helper inlined into hosts of different frame sizes, the hosts called
# through one indirect call site: the helper's copies share one (function,
# call site) pair whose frame is one host's.  Which host's the trace holds
# depends on where chunks and pair slot collisions fall, so on address
# randomisation: every run must give the oracle's calls and depths, and
# the same tree.  Small chunks move the chunk boundaries between runs.
# Every other run captures return values: the trampoline then replaces the
# return address the copies read, in frames up to 70,000 bytes.
case_hosts() {
	use_config "$1"
	build_pair c hosts "$PROGS/hosts.c"
	runs=4
	[ "$CUR_OPT" = -O2 ] && runs=$(in_matrix 20 8)
	i=0
	while [ "$i" -lt "$runs" ]; do
		retval=
		[ $((i % 2)) -eq 1 ] && retval=all
		CTRACE_RETVAL=$retval CTRACE_CHUNK_SIZE=$(( 4 << (i % 3) ))k \
			run_traced trace$i.bin "$BIN/hosts" 3000
		symbolize_stable tree$i trace$i.bin
		check_tree tree$i >/dev/null
		oracle_check trace$i.bin "$BIN/hosts" 3000
		[ "$i" -gt 1 ] && compare tree$((i % 2)) tree$i
		i=$((i + 1))
	done
}

# A coroutine whose stack is a local array of main's runs inside the frame
# of an open call: its calls nest under the call that switched to it, and
# the switching call's return is a return, not one from before the trace.
case_costack() {
	use_config "$1"
	build_pair c costack "$PROGS/costack.c"
	run_traced trace.bin "$BIN/costack"
	symbolize_stable tree trace.bin
	compare "$EXPECTED/costack.tree" tree
	check_tree tree
}

# Recursion that gcc inlines into itself (gcc 12 at -O2 and -O3): the
# copies run in their host's frame and their entry hooks report its
# function, call site and stack pointer; only the hook calls' addresses
# differ.  Every call counted once and at its depth, also with return
# value and argument capture, for a self-recursive function and for two
# functions that call each other; a call made again from the same call
# site after a longjmp left the previous one is a new call, at the
# program's own depth (also with argument and return value capture: the
# frames the jump left still hold the return trampoline, below the frame
# of the function whose exit hook then runs).
case_selfrec() {
	use_config "$1"
	build_pair c selfrec "$PROGS/selfrec.c"
	if [ "$CUR_FAMILY" = gcc ] &&
		{ [ "$CUR_OPT" = -O2 ] || [ "$CUR_OPT" = -O3 ]; }; then
		# the case this program is for must really be built
		for f in sum dive; do
			n=$(objdump -d "$BIN/selfrec" | awk "/<$f>:/,/^\$/" |
				grep -c 'call.*<__cyg_profile_func_enter')
			[ "$n" -gt 1 ] ||
				fail "gcc $CUR_OPT did not inline $f() into itself"
		done
	fi
	for capture in none retval args both; do
		retval=
		args=
		case $capture in retval | both) retval=all ;; esac
		case $capture in args | both) args=all ;; esac
		for mode in sum mutual; do
			t=$mode-$capture.bin
			CTRACE_RETVAL=$retval CTRACE_ARGS=$args \
				run_traced "$t" "$BIN/selfrec" "$mode" 8
			oracle_check "$t" "$BIN/selfrec" "$mode" 8
		done
		# Small chunks: calls open across chunk boundaries, whose
		# exits define their pairs before the next entries do.
		t=small-$capture.bin
		CTRACE_CHUNK_SIZE=4k CTRACE_RETVAL=$retval CTRACE_ARGS=$args \
			run_traced "$t" "$BIN/selfrec" sum 150
		oracle_check "$t" "$BIN/selfrec" sum 150
		t=jump-$capture.bin
		CTRACE_RETVAL=$retval CTRACE_ARGS=$args \
			run_traced "$t" "$BIN/selfrec" jump 8
		oracle_check --counts-only "$t" "$BIN/selfrec" jump 8
		symbolize_stable "$t.tree" "$t"
		# (check_tree reads no argument values)
		[ -n "$args" ] || check_tree "$t.tree"
		call_depths "$t.tree" |
			awk '$2 == "dive" { n++; s += $1 }
			     END { printf "dive calls %d depth sum %d\n", n, s }' \
				>"$t.depths"
		grep '^dive calls ' "$t.out" >"$t.printed"
		compare "$t.printed" "$t.depths"
	done
	# More than 64 calls left by longjmp under jump's frame (gcc -O0:
	# 22 a round), all still holding the trampoline: jump's own return is
	# found under them, not taken for one from before the trace.
	CTRACE_RETVAL=all run_traced jump20.bin "$BIN/selfrec" jump 20
	symbolize_stable jump20.tree jump20.bin
	check_tree jump20.tree
	if grep -F 'entered before the trace' jump20.tree; then
		fail "jump 20: a return taken for one from before the trace"
	fi
	[ "$(calls_of jump20.tree jump)" -eq 1 ] ||
		fail "jump 20: not one call of jump"
	# A long longjmp loop: the calls it left pile up in the recorder's
	# list of patched frames, as long as their slots still hold the
	# trampoline (how many do depends on what later ran over that part
	# of the stack).  Every later call shows the value it printed, or ?
	# saying the list was full.
	CTRACE_RETVAL=all run_traced loop.bin "$BIN/selfrec" loop 4000
	symbolize_stable loop.tree loop.bin
	check_tree loop.tree
	tree_text loop.tree |
		sed -n 's/^ *twice() = \(.*\);$/twice \1/p' >loop.values
	grep '^twice ' loop.bin.out >loop.printed
	[ "$(wc -l <loop.values)" -eq "$(wc -l <loop.printed)" ] ||
		fail "loop: $(wc -l <loop.values) values of twice() shown for $(wc -l <loop.printed) calls"
	paste -d ' ' loop.printed loop.values |
		awk '$2 != $4 && $4 != "?" { print; bad = 1 } END { exit bad }' ||
		fail "loop: a value of twice() other than the one printed"
	symbolize loop.json -f json loop.bin
	jq -r '.calls[] | select(.function == "twice") | .retval.unavailable // empty' \
		loop.json | sort -u >loop.why
	if grep -v -F -x "not captured (the recorder's list of 16384 calls waiting to return was full)" loop.why; then
		fail "loop: another reason for a value of twice() not captured"
	fi
	# Calls nested deeper than that list holds (16,384 frames, at -O0
	# one a call): each value shown is right, the others are ? saying
	# the list was full (not that a copy of sum() was inlined into the
	# innermost frame it holds), and no other call says so (main, which
	# returns long after the list emptied).
	CTRACE_RETVAL=all CTRACE_ARGS=all run_traced full.bin \
		"$BIN/selfrec" deep 17000
	[ "$(cat full.bin.out)" = "sum(17000) = 144508500" ] ||
		fail "deep: wrong output"
	symbolize full.json -f json full.bin
	jq -r '.calls[] | select(.function == "sum") |
		"\(.args[0].value // "?") \(.retval.value // "?") \(.retval.unavailable // "")"' \
		full.json >full.values
	[ "$(wc -l <full.values)" -eq 17001 ] ||
		fail "deep: $(wc -l <full.values) calls of sum, not 17001"
	# (gcc -O2 and -O3 inline sum() into itself: a copy's value is in
	# the frame's, "not captured" in its own)
	inlined=
	[ "$CUR_OPT" = -O0 ] || inlined='or inlined into a call that returned later'
	awk -v inlined="$inlined" '
	     $1 != "?" && $2 != "?" && $2 != $1 * ($1 + 1) / 2 { print; bad = 1 }
	     $2 == "?" && $0 !~ /list of 16384 calls waiting to return was full/ &&
		(inlined == "" || index($0, inlined) == 0) { print; bad = 1 }
	     END { exit bad }' full.values ||
		fail "deep: a wrong value of sum(), or another reason for ?"
	[ "$(grep -o 'list of 16384 calls' full.json | wc -l)" -eq \
		"$(grep -c 'list of 16384 calls' full.values)" ] ||
		fail "deep: a call other than sum() said to be past the full list"
	if [ "$CUR_OPT" = -O0 ]; then
		n=$(grep -c 'list of 16384 calls' full.values)
		[ "$n" -gt 0 ] && [ "$n" -lt 1000 ] ||
			fail "deep: $n calls past the full list, expected 1 to 999"
	fi
	# Deeper than the window of open calls whose EXIT is a RETURN (256):
	# the EXITs past it name their pairs.  Then with the calls shorter
	# than CTRACE_MIN_DURATION taken back out at their exit, and their
	# place in the window with them, full or not: the tree keeps every
	# other call whole.
	run_traced deep.bin "$BIN/selfrec" sum 700
	oracle_check deep.bin "$BIN/selfrec" sum 700
	CTRACE_MIN_DURATION=300ns run_traced short.bin "$BIN/selfrec" sum 700
	symbolize_stable short.tree short.bin
	if grep -e 'entered before the trace' -e 'no exit recorded' short.tree
	then
		fail "calls taken back out: a broken tree"
	fi
	# Without CFI (no frames in the trace) the hook addresses alone.
	build_pair c selfrec-nocfi "$PROGS/selfrec.c" \
		-fno-asynchronous-unwind-tables -fno-unwind-tables
	for mode in sum mutual; do
		run_traced "nocfi-$mode.bin" "$BIN/selfrec-nocfi" "$mode" 8
		oracle_check "nocfi-$mode.bin" "$BIN/selfrec-nocfi" "$mode" 8
	done
}

# longjmp out of calls inlined into main (clang -O1 and up): the calls
# made after setjmp returns again run their hooks in main's frame, as
# the copies the jump left did, but outside them in the DWARF: those
# close before the new calls.
case_jmpinline() {
	ORACLE_OPT=--counts-only
	tree_case "$1" jmpinline jmpinline
}

# An inlined copy whose entry hook runs before the stack arguments of the
# call just made are popped (gcc -O2), its inlined callee's hooks after:
# one frame, the callee nested in the copy, no call more or less.
case_pendpop() {
	use_config "$1"
	build_pair c pendpop "$PROGS/pendpop.c"
	if [ "$CUR_FAMILY$CUR_OPT" = gcc-O2 ]; then
		# the case this program is for must really be built
		objdump -d --no-show-raw-insn "$BIN/pendpop" |
			awk '/<main>:/,/^$/' |
			grep -A1 'call.*<__cyg_profile_func_enter>' |
			grep -q '	pop ' ||
			fail "gcc -O2 did not pop after an entry hook"
	fi
	run_traced trace.bin "$BIN/pendpop"
	symbolize folded -f folded --weight=calls trace.bin
	printf '%s\n' 'main 1' 'main;lookup 4' 'main;release 4' \
		'main;release;hdr_of 3' >expected
	compare expected folded
	oracle_check trace.bin "$BIN/pendpop"
}

# Three hundred hosts, each with two levels of its own functions inlined
# (always_inline: at -O0 too), every copy's hooks in the trace: the
# symbolizer's cache of the copies holding a hook's call grows while one
# lookup still reads an entry of it (the entry of the hook's own copies
# was read from the freed table, and the symbolizer crashed on
# jsoncpp's trace now and then).  The sanitized symbolizer, when built,
# reports such a read; the calls against the oracle either way.
case_manyinline() {
	use_config "$1"
	awk 'BEGIN {
		print "volatile int sink;"
		for (i = 0; i < 300; i++) {
			printf "static inline __attribute__((always_inline)) void b%d(int x) { sink += x * %d; }\n", i, i + 1
			printf "static inline __attribute__((always_inline)) void a%d(int x) { b%d(x); b%d(x + 1); }\n", i, i, i
			printf "__attribute__((noinline)) void h%d(int x) { a%d(x); a%d(x + 2); }\n", i, i, i
		}
		print "int main(void) {"
		for (r = 0; r < 2; r++)
			for (i = 0; i < 300; i++)
				printf "\th%d(%d);\n", i, i
		print "\treturn sink == 0;\n}"
	}' >"$BIN/manyinline.c"
	build_pair c manyinline "$BIN/manyinline.c"
	run_traced trace.bin "$BIN/manyinline"
	san=$top_builddir/tests/ctrace-symbolize-san
	if [ "$HAVE_SANITIZERS" = yes ] && [ -x "$san" ]; then
		ASAN_OPTIONS=detect_leaks=0:exitcode=86 \
			"$san" -f report -o report trace.bin 2>report.err ||
			{ sed -n '1,20p' report.err; fail "the sanitized symbolizer failed"; }
	fi
	oracle_check trace.bin "$BIN/manyinline"
}

# Functions inlined into a host of one compilation unit whose out-of-line
# copy, the one the hooks of every copy name, is another unit's: C99
# inline functions with their external definitions elsewhere (C), and the
# members of a class whose out-of-line copies the linker kept from the
# first unit (C++).  Each unit describes the functions with DIEs of its
# own.  The copies nest as they ran (the symbolizer matched a copy to
# the function named by DIE alone, so a copy inlined in a copy was taken
# for a call after the outer one left: 27,388 calls of jsoncpp's test
# driver shown out of place), and each copy's call site is its line in
# the host.
case_crosscu() {
	use_config "$2"
	if [ "$1" = c ]; then
		build_pair c crosscu "$PROGS/crosscu-a.c" "$PROGS/crosscu-b.c"
		prog=$BIN/crosscu
		outer=crosscu_outer inner=crosscu_inner host=crosscu-b.c
		inner_line=15
	else
		build_pair cxx crosscuxx "$PROGS/crosscu-a.cc" \
			"$PROGS/crosscu-b.cc"
		prog=$BIN/crosscuxx
		outer=Acc::twice inner=Acc::add host=crosscu-b.cc
		inner_line=17
	fi
	run_traced trace.bin "$prog"
	symbolize_stable tree trace.bin
	check_tree tree
	oracle_check trace.bin "$prog"
	# main, host, two outer copies and four inner ones per host, as
	# nested as they ran
	call_depths tree | sed 's/(.*//' | sort | uniq -c |
		awk '{ print $1, $2, $3 }' >depths
	printf '%s\n' "1 0 main" "3 1 host" "6 2 $outer" "12 3 $inner" |
		sort >expected
	grep -v -e ' Acc::Acc$' depths | sort >got
	compare expected got
	# the outer copies' call sites are in the host's file, the inner
	# ones' on their lines (gcc -Os names the unit with the external
	# definitions for the header's lines, as addr2line shows)
	symbolize_stable srcline trace.bin --srcline
	tree_text srcline | LC_ALL=C sed -n \
		-e "s/^ *\($outer\)().*\/\* \([^:]*\):[0-9]* \*\/\$/\1 \2/p" \
		-e "s/^ *\($inner\)().*\/\* [^:]*:\([0-9]*\) \*\/\$/\1 \2/p" |
		sort | uniq -c | awk '{ print $1, $2, $3 }' >sites
	printf '%s\n' "6 $outer $host" "6 $inner $inner_line" \
		"6 $inner $((inner_line + 1))" | sort >expected
	compare expected sites
}

# External C functions whose names differ in a constructor variant's
# digit (tests/progs/namedigit.c): one function's copy is not another's.
case_namedigit() {
	use_config "$1"
	build_pair c namedigit "$PROGS/namedigit.c"
	run_traced trace.bin "$BIN/namedigit"
	symbolize_stable tree trace.bin
	check_tree tree
	call_depths tree >depths
	printf '%s\n' '0 main' '1 MX_ADC1_Init' '1 MX_ADC4_Init' \
		'1 MX_ADC4_Init' >expected
	compare expected depths
}

for cfg in $(configs_all_levels); do
	run_case "namedigit-$cfg" case_namedigit "$cfg"
	run_case "crosscu-$cfg" case_crosscu c "$cfg"
	run_case "crosscuxx-$cfg" case_crosscu cxx "$cfg"
	run_case "manyinline-$cfg" case_manyinline "$cfg"
	run_case "pendpop-$cfg" case_pendpop "$cfg"
	run_case "jmpinline-$cfg" case_jmpinline "$cfg"
	run_case "costack-$cfg" case_costack "$cfg"
	run_case "hosts-$cfg" case_hosts "$cfg"
	run_case "partial-$cfg" case_partial "$cfg"
	run_case "retinline-$cfg" case_retinline "$cfg"
	run_case "selfrec-$cfg" case_selfrec "$cfg"
done

test_finish
