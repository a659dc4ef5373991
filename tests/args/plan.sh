#!/bin/sh
# plan.sh -- the capture plans ctrace-symbolize --make-plan writes keep
# the grammar and limits of include/ctrace_plan.h, which the recorder
# reads them by: a line beyond a limit would be skipped by the recorder,
# so the writer must not write one.

. "$(dirname "$0")/../lib.sh"
test_init plan

# check_plan FILE: every line is one the recorder takes.
check_plan() {
	awk '
	function fail(why) { print FILENAME ":" NR ": " why ": " $0; bad = 1 }
	function within(v, lim) { return v >= -lim && v <= lim }
	NR == 1 { if ($0 != "ctrace-plan 1") fail("not a plan header"); next }
	$1 == "module" {
		if (NF < 2 || $2 !~ /^([0-9a-f][0-9a-f])+$/ ||
		    length($2) > 128)
			fail("bad build-id")
		next
	}
	$1 == "rx" { if (NF != 2 || $2 !~ /^[0-9a-f]+$/) fail("bad rx"); next }
	$1 == "exit" {
		# exit HEX fn HEX ret MASK LEN { op OP DSZ SSZ D S BASE ARG }
		if ($3 != "fn" || $5 != "ret" || (NF - 7) % 8 != 0 ||
		    (NF - 7) / 8 > 32)
			fail("bad exit line")
		if ($6 <= 0 || $6 > 127 || int($6 / 16) % 2 == 1)
			fail("exit ret beyond the limits")
		for (i = 8; i <= NF; i += 8) {
			if ($i != "op" || $(i + 1) < 1 || $(i + 1) > 31 ||
			    $(i + 4) < 0 || $(i + 4) > 31 ||
			    $(i + 5) < -2 || $(i + 5) > 31)
				fail("bad op")
			if ($(i + 5) == -1 &&
			    (($(i + 6) != 4 && $(i + 6) != 5) ||
			     !within($(i + 7), 65536)))
				fail("op memory beyond the frame")
		}
		next
	}
	$1 != "pc" { fail("unknown line"); next }
	{
		mem = 0; str = 0; cfa = 0
		for (i = 3; i <= NF; i++) {
			if ($i == "cfa") {
				cfa = 1
				if ($(i + 1) > 60 || !within($(i + 2), 1048576))
					fail("cfa beyond the limits")
				i += 2
			} else if ($i == "mem") {
				mem++
				if (!within($(i + 2), 65536) || $(i + 3) <= 0 ||
				    $(i + 3) > 4096)
					fail("mem beyond the limits")
				i += 3
			} else if ($i == "str") {
				str++
				if ($(i + 1) == "r") {
					if ($(i + 2) > 60)
						fail("str beyond the limits")
				} else if (!within($(i + 2), 65536)) {
					fail("str beyond the limits")
				}
				i += 2
			} else if ($i == "fde" || $i == "regs") {
				i++
			} else if ($i == "ret") {
				i += 2
			} else if ($i != "wide") {
				fail("unknown item " $i)
			}
		}
		if (!cfa) fail("no cfa")
		if (mem > 4 || str > 6) fail("too many items")
	}
	END { exit bad }' "$1"
}

case_limits() {
	use_config "$1"
	build_c prog "$top_srcdir/tests/args/bigframe.c"
	"$CTRACE_SYMBOLIZE" --make-plan -o prog.plan "$BIN/prog" ||
		fail "ctrace-symbolize --make-plan failed"
	grep -q '^pc ' prog.plan || fail "the plan has no call"
	check_plan prog.plan || fail "the plan breaks ctrace_plan.h"
	# The program's own call still gets its arguments' record.
	CTRACE_ARGS=all CTRACE_PLAN=prog.plan CTRACE_OUTPUT=trace.bin \
		"$BIN/prog" >out || fail "the program failed"
	symbolize_stable tree trace.bin
	grep -q 'big(' tree || fail "no call of big in the tree"
}

# The recorder reads a plan's numbers as include/ctrace_plan.h writes
# them: hexadecimal or decimal digits, a sign before them.  A line with
# a number in another form, or one too large for 64 bits, is skipped,
# and its call captured as without a plan: the generic windows, hundreds
# of bytes a call where the plan's registers take a few (so the trace's
# size tells, whatever the timing).  walk()'s pc line is rewritten: with
# a plus sign (read), with 0x (skipped), with 20 digits (skipped), with
# its registers' mask signed (read), and the plan cut without its last
# newline (read).
case_numbers() {
	use_config "$1"
	case $1 in *-O0-* | *-m32*)
		skip "-O0 and i386: arguments on the stack, no registers to write" ;;
	esac
	build_c heapwalk "$top_srcdir/tests/args/heapwalk.c"
	"$CTRACE_SYMBOLIZE" --make-plan -o good.plan "$BIN/heapwalk" ||
		fail "ctrace-symbolize --make-plan failed"
	walk=$(nm "$BIN/heapwalk" | sed -n 's/^0*\([0-9a-f]*\) T walk$/\1/p')
	[ -n "$walk" ] || fail "no walk in the program"
	grep -q "^pc [0-9a-f]* fde $walk .* regs " good.plan ||
		skip "walk's plan line names no registers"
	size_of() { # PLAN: the trace's bytes
		rm -f t.bin*
		CTRACE_ARGS=all CTRACE_PLAN=$1 CTRACE_OUTPUT=t.bin \
			"$BIN/heapwalk" >/dev/null || fail "the program failed"
		wc -c <t.bin
	}
	: >none.plan
	chmod 600 none.plan
	good=$(size_of good.plan) none=$(size_of none.plan)
	[ "$none" -gt $((2 * good)) ] ||
		fail "no plan: $none bytes, with one $good: no difference to see"
	edit() { # NAME SED: good.plan with walk's pc line edited
		sed "/^pc [0-9a-f]* fde $walk /$2" good.plan >"$1.plan"
		chmod 600 "$1.plan"
	}
	edit plus 's/^pc /pc +/'
	edit hex0x 's/^pc /pc 0x/'
	edit huge 's/^pc \([0-9a-f]*\)/pc 0000\1\1\1\1\1/'
	edit signed 's/ regs / regs +/'
	head -c -1 good.plan >cut.plan
	chmod 600 cut.plan
	for form in plus signed cut; do
		n=$(size_of $form.plan)
		[ "$n" -le $((good + good / 4)) ] ||
			fail "$form: $n bytes against $good: the line was skipped"
	done
	for form in hex0x huge; do
		n=$(size_of $form.plan)
		[ "$n" -gt $((2 * good)) ] ||
			fail "$form: $n bytes against $good: the line was read"
	done
}

# Lines the recorder cannot read cost no room: the tables are sized by
# the lines taken.  A plan of a million `pc` lines that are nothing but
# the word made the program peak at 135 MB when the first pass counted
# lines without reading them; its peak memory stays under 64 MB.
case_junk() {
	use_config "$1"
	[ -n "$PYTHON3" ] || skip "no python3 to read the peak memory"
	build_c heapwalk "$top_srcdir/tests/args/heapwalk.c"
	"$CTRACE_SYMBOLIZE" --make-plan -o good.plan "$BIN/heapwalk" ||
		fail "ctrace-symbolize --make-plan failed"
	{ sed -n 1,2p good.plan; yes pc | head -1000000; } >junk.plan
	chmod 600 junk.plan
	kib=$(CTRACE_ARGS=all CTRACE_PLAN=junk.plan CTRACE_OUTPUT=t.bin \
		"$PYTHON3" -c '
import resource, subprocess, sys
r = subprocess.run([sys.argv[1]], stdout=subprocess.DEVNULL)
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
' "$BIN/heapwalk") || fail "cannot run the program"
	set -- $kib
	[ "$1" = 0 ] || fail "the program failed: exit $1"
	[ "$2" -lt 65536 ] ||
		fail "a plan of junk lines took $2 KiB at start-up"
}

# Pointers into the heap, each call's one element on from the last: the
# recorder writes them relative to the registers' values in the chunk's
# previous record (format 5.3), its bases starting afresh in every chunk
# (4 KiB ones here, dozens of them).  Every value shown is the one the
# program passed, which it prints; with CTRACE_MIN_DURATION the calls
# taken back leave the bases the reader never saw unused.
case_heap() {
	use_config "$1"
	build_c heapwalk "$top_srcdir/tests/args/heapwalk.c"
	"$CTRACE_SYMBOLIZE" --make-plan -o prog.plan "$BIN/heapwalk" ||
		fail "ctrace-symbolize --make-plan failed"
	for min in 0 1us; do
		rm -f trace.bin*
		CTRACE_ARGS=all CTRACE_PLAN=prog.plan CTRACE_OUTPUT=trace.bin \
			CTRACE_CHUNK_SIZE=4k CTRACE_MIN_DURATION=$min \
			"$BIN/heapwalk" >expected || fail "the program failed"
		symbolize tree --no-duration trace.bin
		sed -n 's/.*| *\(walk(.*\|back(.*\);$/\1/p' tree >shown
		if [ "$min" = 0 ]; then
			cmp -s expected shown || {
				diff expected shown | sed -n '1,10p'
				fail "the arguments shown are not those passed"
			}
		elif [ -s shown ]; then
			grep -v -x -F -f expected shown >wrong &&
				{ sed -n '1,10p' wrong; fail "wrong arguments"; }
		fi
	done
	# With registers in the plan (optimized code): a few bytes a call,
	# not the 7 a heap pointer takes written whole, nor the pc (the
	# ENTRY's hook), nor (format 6) a record header: inside the ENTRY.
	case $1 in *-O0-* | *-m32*) return 0 ;; esac
	need_python
	rm -f trace.bin*
	CTRACE_ARGS=all CTRACE_PLAN=prog.plan CTRACE_OUTPUT=trace.bin \
		CTRACE_CHUNK_SIZE=4k "$BIN/heapwalk" >/dev/null ||
		fail "the program failed"
	"$PYTHON3" "$top_srcdir/bench/records" trace.bin >records ||
		fail "bench/records failed"
	awk '$1 " " $2 == "ARGS inline" && $3 > 3000 { found = 1
		if ($6 > 9) { print "ARGS inline: " $6 " bytes a call"; exit 1 } }
	     END { if (!found) { print "no inline ARGS"; exit 1 } }' \
		records || fail "the arguments take too many bytes"
}

# Return values read at the exit hook (x86-64): every value shown is the
# one the program printed, and a function the plan's `rx` names never
# had its return address replaced by the trampoline (the program counts
# its calls that had); the same plan without its `exit` and `rx` lines
# does replace them, so the count can tell.
case_retread() {
	use_config "$1"
	case $1 in *-m32) skip "i386: return values go through the trampoline" ;; esac
	build_c retread "$top_srcdir/tests/args/retread.c"
	"$CTRACE_SYMBOLIZE" --make-plan -o prog.plan "$BIN/retread" ||
		fail "ctrace-symbolize --make-plan failed"
	check_plan prog.plan || fail "the plan breaks ctrace_plan.h"
	grep -q '^rx ' prog.plan || fail "no function read at its exits"
	grep -v '^exit \|^rx ' prog.plan >old.plan
	# An `exit` line without operations (a damaged plan) is refused, and
	# then no `rx`: the values come through the trampoline (its
	# operations once ran past the list, and the program crashed).
	awk '/^exit / && !done { sub(/ op .*/, ""); done = 1 } { print }' \
		prog.plan >damaged.plan
	# The functions read at their exits, by name.
	nm "$BIN/retread" | awk 'NR == FNR { if ($1 == "rx") rx[$2] = 1; next }
		{ a = $1; sub(/^0+/, "", a); if (a in rx) print $3 }' \
		prog.plan - | sort >read
	[ -s read ] || fail "no rx function found by its address"
	for plan in prog.plan old.plan damaged.plan; do
		rm -f trace.bin*
		CTRACE_LIBCALL=off CTRACE_RETVAL=all CTRACE_PLAN=$plan \
			CTRACE_OUTPUT=trace.bin "$BIN/retread" >expected \
			2>patched || fail "the program failed"
		symbolize tree --no-duration trace.bin
		sed -n 's/^.*| *\([a-z]*\)(.*) = \(.*\);$/\1 = \2/p
			s/^.*| *} = \(.*\); \/\* \([a-z]*\) \*\//\2 = \1/p' \
			tree | grep -v '^noise \|^main ' >shown
		cmp -s expected shown || {
			diff expected shown | sed -n '1,10p'
			fail "$plan: the values shown are not those returned"
		}
		awk 'NR == FNR { read[$1] = 1; next }
			($1 in read) && $2 > 0 { n++ } END { print n + 0 }' \
			read patched >count
		if [ "$plan" = prog.plan ]; then
			[ "$(cat count)" = 0 ] ||
				{ cat patched; fail "a function read at its exits was patched"; }
		else
			[ "$(cat count)" -gt 0 ] ||
				fail "without exit lines nothing was patched: the check is blind"
		fi
	done
}

# walk's registers, inside its ENTRYs (format 6), then slen's ARGS_SHORT
# (it reads a string too), their pointers one after the other: slen's
# may be written relative to the value walk's left in the same register,
# which the reader must have taken from walk's ENTRY, or it would show
# slen's string read from a wrong address.  (Format 5.5 never wrote an
# ARGS_SHORT so, for a 5.4 reader skipped ARGS_REGS; none reads 6.0.)
case_regskip() {
	use_config "$1"
	case $1 in
	*-O0-*) skip "-O0: arguments on the stack, no registers to write" ;;
	*-m32*) skip "i386: arguments on the stack, no registers to write" ;;
	esac
	need_python
	build_c regskip "$top_srcdir/tests/args/regskip.c"
	"$CTRACE_SYMBOLIZE" --make-plan -o prog.plan "$BIN/regskip" ||
		fail "ctrace-symbolize --make-plan failed"
	rm -f trace.bin*
	CTRACE_ARGS=all CTRACE_PLAN=prog.plan CTRACE_OUTPUT=trace.bin \
		CTRACE_CHUNK_SIZE=4k CTRACE_LIBCALL=off "$BIN/regskip" ||
		fail "the program failed"
	"$PYTHON3" "$top_srcdir/bench/records" trace.bin >records ||
		fail "bench/records failed"
	grep -q '^ARGS inline ' records || fail "walk's registers not inline"
	grep -q '^EXTENDED ARGS_SHORT ' records || fail "no ARGS_SHORT for slen"
	symbolize tree --no-duration trace.bin
	[ "$(grep -c 'walk(p=0x' tree)" = 20 ] ||
		{ sed -n '1,5p' tree; fail "walk's pointer not shown"; }
	[ "$(grep -c 'slen(s="xxxx' tree)" = 20 ] ||
		{ grep 'slen(' tree | sed -n '1,5p'; fail "slen's pointer wrong"; }
}

# Entry values found at call sites that read no memory of the caller's
# frame: the plan copies none of it for them (it copied the 128 bytes
# above the CFA for any entry value, 144 and 152 bytes for f and g with
# their own frames), and the values are right.  Other calls through
# pointers in the program (the recorder's) may read 8 or 16 bytes.
case_callerframe() {
	use_config "$1"
	[ "$CUR_FAMILY" = gcc ] && [ "$CUR_OPT" != -O0 ] ||
		skip "gcc -O1 and up describe the parameters as entry values"
	build_c callerframe "$top_srcdir/tests/args/callerframe.c"
	"$CTRACE_SYMBOLIZE" --make-plan -o callerframe.plan \
		"$BIN/callerframe" || fail "ctrace-symbolize --make-plan failed"
	chmod 600 callerframe.plan
	for fn in f g; do
		at=$(nm "$BIN/callerframe" |
			sed -n "s/^0*\([0-9a-f]*\) T $fn\$/\1/p")
		bytes=$(sed -n "s/^pc [0-9a-f]* fde $at //p" callerframe.plan |
			awk '{ for (i = 1; i < NF; i++) if ($i == "mem")
				n += $(i + 3) } END { print n + 0 }')
		[ "$bytes" -le 48 ] ||
			fail "$fn: $bytes bytes of stack in the plan"
	done
	CTRACE_ARGS=all CTRACE_PLAN=callerframe.plan \
		run_traced trace.bin "$BIN/callerframe"
	symbolize_stable tree trace.bin
	tree_text tree | grep -c -e '^  f(x=5);$' -e '^  f(x=7);$' \
		-e '^  g(x=3, y=4);$' >found
	echo 3 >want
	compare want found
}

for cfg in $(configs_pie); do
	run_case "callerframe-$cfg" case_callerframe "$cfg"
	run_case "limits-$cfg" case_limits "$cfg"
done
for name in retread heap numbers junk regskip; do
	for cfg in $(configs); do
		run_case "$name-$cfg" "case_$name" "$cfg"
	done
done
test_finish
