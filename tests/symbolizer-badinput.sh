#!/bin/sh
# symbolizer-badinput.sh -- the symbolizer on damaged and unusual traces
# written by tests/mktrace: it prints everything valid, names the problem
# and its offset on stderr, exits 1 (0 for the unusual but valid ones), and
# never crashes.

. "$(dirname "$0")/lib.sh"
test_init symbolizer-badinput

: "${MKTRACE:=$top_builddir/tests/mktrace}"
[ -x "$MKTRACE" ] || skip_script "$MKTRACE not built"

# A valid start used by most cases: a metadata chunk at offset 4096, then
# thread 1's first chunk at 8192, where main (0x1000) calls 0x2000; its
# records end at offset 8280.
PRELUDE='meta
thread 1 100 main
events 1 tid=100
enter 0x1000 0x1
enter 0x2000 0x1010
leave 0x2000 0x1010'

# mk NAME: trace NAME.bin from the script on stdin.
mk() {
	"$MKTRACE" "$1.bin" || fail "mktrace failed on $1"
}

# sym STATUS NAME [OPTIONS]: symbolize NAME.bin into NAME.out and NAME.err,
# expecting exit status STATUS.
sym() {
	want=$1
	name=$2
	shift 2
	"$CTRACE_SYMBOLIZE" --no-duration --thread-ids=serial "$@" \
		"$name.bin" >"$name.out" 2>"$name.err"
	status=$?
	cat "$name.err"
	[ $status -eq "$want" ] ||
		fail "$name: exit status $status, expected $want"
	if grep -q -e 'Sanitizer' -e 'runtime error' "$name.err"; then
		fail "$name: sanitizer report"
	fi
}

# has FILE TEXT: FILE contains the line part TEXT.
has() {
	grep -q -F -e "$2" "$1" || { cat "$1"; fail "$1 lacks: $2"; }
}

case_empty() {
	: >e.bin
	sym 1 e
	has e.err "ctrace-symbolize: e.bin: empty file, not a ctrace trace"
	[ ! -s e.out ] || fail "output for an empty file"
}

case_not_trace() {
	printf 'GIF89a, certainly not a trace\n' >n.bin
	sym 1 n
	has n.err "ctrace-symbolize: n.bin: not a ctrace trace"
}

case_short_header() {
	printf 'header\n' | mk h
	head -c 100 h.bin >s.bin
	sym 1 s
	has s.err "ctrace-symbolize: s.bin: truncated file header at offset 100"
}

case_newer_version() {
	printf 'header version=7.1\n' | mk v
	sym 1 v
	has v.err "trace version 7.1 is newer than this symbolizer (6.1)"
}

case_newer_minor() {
	{ echo 'header version=1.9'; echo "$PRELUDE"; } | mk m
	sym 0 m
	has m.out "|   0x2000();"
}

case_byte_order() {
	printf 'header byte_order=0x04030201\n' | mk b
	sym 1 b
	has b.err "other byte order"
}

case_bad_chunk_size() {
	printf 'header chunk_size=12345\n' | mk c
	sym 1 c
	has c.err "bad chunk size 12345"
}

case_header_only() {
	printf 'header\n' | mk h
	sym 0 h
	has h.out "# DURATION     TID     FUNCTION"
}

# The file ends inside a chunk: the complete records are shown.
case_truncated_chunk() {
	{ echo "$PRELUDE"; echo 'enter 0x3000 0x1020'; echo 'truncate -4000'; } |
		mk t
	sym 1 t
	has t.err "ctrace-symbolize: t.bin: truncated chunk at offset 8192"
	has t.out "0x2000();"
	has t.out "} /* 0x1000 (unfinished) */"
}

case_slot_undefined() {
	{ echo "$PRELUDE"; echo 'entry 77'; echo 'leave 0x1000 0x1'; } | mk u
	sym 1 u
	has u.err "pair slot 77 used before its definition at offset 8280"
	has u.out "0x2000();"
}

# An EXTENDED record claiming more bytes than its chunk holds.
case_length_past_end() {
	{ echo "$PRELUDE"; echo 'raw 8001ff7f'; } | mk l
	sym 1 l
	has l.err "record runs past the end of its chunk at offset 8280"
	has l.out "0x2000();"
}

# A LEB128 delta that never ends, up to the end of the chunk.
case_endless_uleb() {
	{
		echo "$PRELUDE"
		echo "raw 01$(printf 'ff%.0s' $(seq 1 3900))"
	} | mk x
	sym 1 x
	has x.err "record runs past the end of its chunk at offset 8280"
}

case_bad_define_slot() {
	{ echo "$PRELUDE"; echo 'define 0 0x1 0x2'; } | mk d
	sym 1 d
	has d.err "bad pair slot 0 at offset 8280"
}

case_short_extended() {
	{ echo "$PRELUDE"; echo 'ext 1 0102'; } | mk s
	sym 1 s
	has s.err "extended record of type 1 too short at offset 8280"
}

case_unknown_extended() {
	{ echo "$PRELUDE"; echo 'ext 99 0102030405'; echo 'leave 0x1000 0x1'; } |
		mk k
	sym 0 k
	has k.out "} /* 0x1000 */"
}

# A library call's arguments (format 6.1) cut short, with more registers
# than the reader holds, or followed by junk: not captured, and the
# records after them read.
case_args_lib() {
	{
		echo "$PRELUDE"
		echo 'enter 0x3000 0x1'
		echo 'ext 16 00'
		echo 'leave 0x3000 0x1'
		echo 'enter 0x3000 0x1'
		echo 'ext 16 00ff00'
		echo 'leave 0x3000 0x1'
		echo 'enter 0x3000 0x1'
		echo "ext 16 000100052a$(printf 'ff%.0s' $(seq 1 300))"
		echo 'leave 0x3000 0x1'
	} | mk al
	sym 0 al
	[ "$(grep -c -F '0x3000(?);' al.out)" -eq 3 ] ||
		{ cat al.out; fail "not three calls of 0x3000 without arguments"; }
}

case_duplicate_seq() {
	{ echo "$PRELUDE"; echo 'events 1 seq=0'; echo 'enter 0x4000 0x1'; } |
		mk p
	sym 1 p
	has p.err "duplicate chunk 0 of thread 1 (ignored) at offset 12288"
}

case_impossible_seq() {
	{ echo "$PRELUDE"; echo 'events 1 seq=99999999'; } | mk i
	sym 1 i
	has i.err "impossible chunk sequence number 99999999 at offset 12288"
	has i.out "0x2000();"
}

case_missing_chunk() {
	{ echo "$PRELUDE"; echo 'events 1 seq=2'; echo 'leave 0x1000 0x1'; } |
		mk g
	sym 1 g
	has g.err "chunk 1 of thread 1 is missing at offset 12288"
	has g.out "} /* 0x1000 */"
}

case_bad_chunk_kind() {
	{ echo "$PRELUDE"; echo 'events 2 kind=9'; } | mk k
	sym 1 k
	has k.err "unknown chunk kind 9 at offset 12288"
}

case_unstarted_chunk() {
	{ echo "$PRELUDE"; echo 'events 1 new'; echo 'enter 0x5000 0x1'; echo unstarted; } |
		mk u
	sym 0 u
	has u.out "} /* 0x1000 (unfinished) */"
}

case_huge_lost() {
	{ echo "$PRELUDE"; echo 'lost 18446744073709551615 1'; echo 'lost 5 3'; } |
		mk h
	sym 0 h
	has h.out "/* ctrace: 18446744073709551615 events lost (no space left on device) */"
	has h.err "18446744073709551615 events were lost (no space left on device, nested signal handlers)"
	sym 0 h -f json
	has h.out '"lost_events": 18446744073709551615}'
}

case_lost_header_only() {
	{ echo 'header lost_events=7'; echo "$PRELUDE"; echo 'lost 3 1'; } | mk h
	sym 0 h
	has h.err "ctrace-symbolize: h.bin: 7 events were lost (no space left on device)"
}

case_entered_before() {
	printf 'events 1\nleave 0x1000 0x1\nleave 0x2000 0x2\nenter 0x3000 0x3\nleave 0x3000 0x3\n' |
		mk b
	sym 0 b
	has b.out "} /* 0x1000 (entered before the trace) */"
	has b.out "| 0x3000();"
}

case_longjmp_by_exit() {
	{ echo "$PRELUDE"; echo 'enter 0x3000 0x1020'; echo 'enter 0x4000 0x3010';
	  echo 'leave 0x1000 0x1'; } | mk j
	sym 0 j
	has j.out "    } /* 0x4000 (no exit recorded) */"
	has j.out "  } /* 0x3000 (no exit recorded) */"
	has j.out "| } /* 0x1000 */"
}

case_longjmp_by_sp() {
	printf '%s\n' 'events 1' 'enter 0x1000 0x1 sp=0x7fff0000' \
		'enter 0x2000 0x1010 sp=0x7ffefff0' \
		'enter 0x3000 0x2010 sp=0x7ffeffe0' \
		'enter 0x4000 0x1020 sp=0x7ffefff0' 'leave 0x4000 0x1020' \
		'leave 0x1000 0x1' | mk s
	sym 0 s
	has s.out "    } /* 0x3000 (no exit recorded) */"
	has s.out "  } /* 0x2000 (no exit recorded) */"
	has s.out "|   0x4000();"
}

# Format 3: the function 0x2000 entered twice from call site 0x1010 at
# one stack pointer, by NEW ENTRY records of slots 1 and 6 whose hook
# addresses (before the time delta) differ: a copy inlined into its
# host, nested; with the same hook, a call made again after a
# longjmp left the first.  Format 2.0 (no hook address) reads the same
# records without the hooks, and takes the second for a new call.
NEW_ENTER1='6f0080c000906000080a801c'
NEW_ENTER2_COPY='6fc80100906000c0000a00'
NEW_ENTER2_AGAIN='6fc80100906000080a00'
NEW_LEAVE2_1='860a810a'

case_self_copy() {
	printf '%s\n' 'header version=3.0' 'events 1' \
		"raw $NEW_ENTER1$NEW_ENTER2_COPY$NEW_LEAVE2_1" | mk c
	sym 0 c
	has c.out "| 0x2000() {"
	has c.out "|   0x2000();"
	has c.out "| } /* 0x2000 */"
}

case_self_again() {
	printf '%s\n' 'header version=3.0' 'events 1' \
		"raw $NEW_ENTER1$NEW_ENTER2_AGAIN$NEW_LEAVE2_1" | mk a
	sym 0 a
	has a.out "| } /* 0x2000 (no exit recorded) */"
	has a.out "| 0x2000();"
	has a.out "| } /* 0x2000 (entered before the trace) */"
}

case_new_v2() {
	printf '%s\n' 'header version=2.0' 'events 1' \
		"raw 6f0080c0009060000a801c6fc801009060000a00$NEW_LEAVE2_1" |
		mk o
	sym 0 o
	has o.out "| } /* 0x2000 (no exit recorded) */"
	has o.out "| 0x2000();"
}

# Format 4.0: a NEW ENTRY's frame comes before its call site, and one
# whose frame has the inlined bit gives its call site and hook from the
# previous NEW's (the host's): here both the same as the first NEW's,
# so a call made again (deltas 0), or a copy (hook 12 bytes on).  Read
# from the function, as format 3.0 did, the call site would differ and
# the second ENTRY would be a plain nested call in both.  The key names
# the narrow slot (CTRACE_NEW_KEY_*) of the home the reader computes:
# (0x2000, 0x1010) is home 1819, slots 98 and 82; the copy's sibling
# home, of (0x2000, 0x1010 ^ 0x2014), is 966, slot 52.
NEW4_ENTER1='6f0080c00000906008''0a801c'
NEW4_ENTER2_AGAIN='6f0100010000''0a00'
NEW4_LEAVE_AGAIN='d20ae20a'
NEW4_ENTER2_COPY='6f020001000c''0a00'
NEW4_LEAVE_COPY='b40ae20a'

case_new_v4_again() {
	printf '%s\n' 'header version=4.0' 'events 1' \
		"raw $NEW4_ENTER1$NEW4_ENTER2_AGAIN$NEW4_LEAVE_AGAIN" | mk a4
	sym 0 a4
	has a4.out "| } /* 0x2000 (no exit recorded) */"
	has a4.out "| 0x2000();"
	has a4.out "| } /* 0x2000 (entered before the trace) */"
}

case_new_v4_copy() {
	printf '%s\n' 'header version=4.0' 'events 1' \
		"raw $NEW4_ENTER1$NEW4_ENTER2_COPY$NEW4_LEAVE_COPY" | mk c4
	sym 0 c4
	has c4.out "| 0x2000() {"
	has c4.out "|   0x2000();"
	has c4.out "| } /* 0x2000 */"
}

# A format 4.0 key beyond CTRACE_NEW_KEY_*, and an EXIT's sibling key.
case_new_v4_bad_key() {
	printf '%s\n' 'header version=4.0' 'events 1' \
		"raw ${NEW4_ENTER1}6f0400010000""0a00" | mk k4
	sym 1 k4
	has k4.err "bad pair key 4 at offset 4148"
	printf '%s\n' 'header version=4.0' 'events 1' \
		"raw ${NEW4_ENTER1}ef02001f0a" | mk x4
	sym 1 x4
	has x4.err "bad pair key 2 at offset 4148"
}

# A NEW ENTRY whose hook address never ends (after a frame of 0).
case_endless_hook() {
	{
		printf '%s\n' 'header version=3.0' 'events 1'
		echo "raw 6f0080c000906000$(printf 'ff%.0s' $(seq 1 4000))"
	} | mk h
	sym 1 h
	has h.err "record runs past the end of its chunk"
}

# Format 5.0: an EXIT of the innermost open call is a RETURN, its time
# delta in its tag (0x82 + delta) or after it (0xff); another EXIT names
# its pair after 0x81, the EXIT tag of narrow slot 1 (0x81) included.
V5_CALLS='header version=5.0
events 1
define 1 0x1000 0x1
define 2 0x2000 0x1010
entry 1 +10
entry 2 +10
raw 85
entry 2 +10
raw ff9001
raw 818105'

case_v5_returns() {
	echo "$V5_CALLS" | mk r5
	sym 0 r5
	has r5.out "| 0x1000() {"
	[ "$(grep -c -F '|   0x2000();' r5.out)" -eq 2 ] ||
		fail "not two calls of 0x2000"
	has r5.out "| } /* 0x1000 */"
	"$CTRACE_SYMBOLIZE" r5.bin >r5.times 2>&1 || fail "with durations"
	has r5.times "0.003 us"
	has r5.times "0.144 us"
	has r5.times "0.172 us"
}

# A RETURN with no call open, and one past the window of 256 open calls
# (CTRACE_RETURN_WINDOW) a reader keeps: damage.
case_v5_return_unopened() {
	printf '%s\n' 'header version=5.0' 'events 1' 'raw 82' | mk u5
	sym 1 u5
	has u5.err "return with no call open at offset 4136"
	{
		printf '%s\n' 'header version=5.0' 'events 1' 'define 1 0x1000 0x1'
		for i in $(seq 257); do echo 'entry 1 +1'; done
		for i in $(seq 257); do echo 'raw 83'; done
	} | mk w5
	sym 1 w5
	has w5.err "return with no call open at offset"
	[ "$(grep -c -F '0x1000();' w5.out)" -eq 1 ] ||
		fail "not one innermost call of the 256 returns"
}

# Format 5.0's table: an ENTRY's home hashes its function and its call
# site XOR its hook, (0x2000, 0x1010 ^ 0x2008) home 6822 (0x1aa6), first
# narrow slot 52 (0x34).  A NEW with key CTRACE_NEW_KEY_WIDE goes to the
# wide slot; a wide tag 0x40 + home's top bits leaves it there, 0x60 +
# the same moves it into its first narrow slot, emptying the wide slot:
# four calls, then a wide tag naming the empty slot.  Keys 2 (format 4's
# sibling bit) and 5 (wide and a narrow choice) are damage.
V5_WIDE='3f0480c00000906008''0a00'

case_v5_wide() {
	printf '%s
' 'header version=5.0' 'events 1' \
		"raw ${V5_WIDE}82""5aa60a0082""7aa60a0082""340a0082""5aa60a00" |
		mk w
	sym 1 w
	[ "$(grep -c -F '| 0x2000();' w.out)" -eq 4 ] ||
		fail "not four calls of 0x2000"
	has w.err "wide pair slot 6822 used before its definition"
	for key in 02 05; do
		printf '%s\n' 'header version=5.0' 'events 1' \
			"raw 3f${key}80c00000906008""0a00" | mk k$key
		sym 1 k$key
		has k$key.err "bad pair key $((key))"
	done
}

# Format 6: an ENTRY of a pair whose NEW key has CTRACE_NEW_KEY_ARGS (8)
# is followed by its registers, an ARGS_REGS payload without a header
# (count byte 1, DWARF register 3 = 42; then two registers): three calls
# read whole, their RETURNs where they are, their arguments captured
# (`?`: no DWARF to show them by).  A payload that runs past its chunk
# is damage;
# so is key 8 on an EXIT's NEW, or in a format 5 trace (where the
# registers would not be read).
V6_ARGS_NEW='3f0880c00000906008''0a00''01032a'

case_v6_inline_args() {
	printf '%s\n' 'header version=6.0' 'events 1' \
		"raw ${V6_ARGS_NEW}82""340a00""01032a""82" \
		"raw 340a00""020305052a""82" | mk i6
	sym 0 i6
	[ "$(grep -c -F '| 0x2000(?);' i6.out)" -eq 3 ] ||
		fail "not three calls of 0x2000"
	{
		printf '%s\n' 'header version=6.0' 'events 1'
		echo "raw 3f0880c00000906008""0a00""0103$(printf 'ff%.0s' \
			$(seq 1 4000))"
	} | mk p6
	sym 1 p6
	has p6.err "record runs past the end of its chunk"
	printf '%s\n' 'header version=6.0' 'events 1' \
		"raw ${V6_ARGS_NEW}81bf0880c000906000" | mk x6
	sym 1 x6
	has x6.err "bad pair key 8"
	printf '%s\n' 'header version=5.0' 'events 1' \
		"raw 3f0880c00000906008""0a00" | mk k5
	sym 1 k5
	has k5.err "bad pair key 8"
}

# The recorder ends a finished file's last chunk early, at a page
# boundary, and gives the file's length then (final_size): such a file is
# whole.  Cut there without that length, or with another, it is damaged.
case_v5_ended_early() {
	for final in 8192 0 12288; do
		{ printf '%s\n' \
			"header version=5.0 chunk_size=8192 final_size=$final"
		  echo "$V5_CALLS" | sed 1d; echo 'truncate 8192'; } | mk e$final
		if [ "$final" = 8192 ]; then
			sym 0 e$final
		else
			sym 1 e$final
			has e$final.err "truncated chunk at offset 4096"
		fi
		[ "$(grep -c -F '|   0x2000();' e$final.out)" -eq 2 ] ||
			fail "final_size $final: not two calls of 0x2000"
	done
}

# A chunk with CTRACE_CHUNK_CONTINUES keeps its stream's pair table and
# open calls; without it the slot is undefined; after a missing chunk it
# is skipped, said once, up to the next chunk that starts afresh.
case_v5_continues() {
	printf '%s\n' 'header version=5.0' 'events 1' \
		'define 1 0x1000 0x1' 'entry 1' 'events 1 new flags=1' \
		'entry 1' 'raw 82' 'raw 82' | mk c5
	sym 0 c5
	has c5.out "|   0x1000();"
	has c5.out "| } /* 0x1000 */"
	printf '%s\n' 'header version=5.0' 'events 1' \
		'define 1 0x1000 0x1' 'entry 1' 'events 1 new' \
		'entry 1' 'raw 82' 'raw 82' | mk f5
	sym 1 f5
	has f5.err "pair slot 1 used before its definition at offset 8232"
	printf '%s\n' 'header version=5.0' 'meta' 'events 1' \
		'define 1 0x1000 0x1' 'entry 1' 'events 1 seq=2 flags=1' \
		'entry 1' 'events 1 seq=3 flags=1' 'entry 1' \
		'events 1 seq=4' 'define 2 0x2000 0x2' 'entry 2' 'raw 82' | mk m5
	sym 1 m5
	has m5.err "chunk 1 of thread 1 is missing"
	has m5.err "thread 1: chunk 2 continues the pair table of chunk 1, which could not be decoded to its end: its events are skipped up to the thread's next chunk that starts afresh at offset 12288"
	[ "$(grep -c -F 'continues the pair table' m5.err)" -eq 1 ] ||
		fail "the skipped chunks are not said once"
	has m5.out "0x2000();"
}

case_signal_stream() {
	printf '%s\n' 'events 1' 'enter 0x1000 0x1 @1100' 'leave 0x1000 0x1 @1300' \
		'signal 1' 'enter 0x9000 0x9 @1200' 'leave 0x9000 0x9 @1210' | mk g
	sym 0 g
	has g.out "|   0x9000();"
}

case_no_file() {
	sym 1 does-not-exist
	has does-not-exist.err "ctrace-symbolize: does-not-exist.bin: cannot open"
}

case_usage() {
	"$CTRACE_SYMBOLIZE" --format=xml x.bin >u.out 2>u.err
	[ $? -eq 2 ] || fail "bad --format: not exit status 2"
	"$CTRACE_SYMBOLIZE" >u.out 2>u.err
	[ $? -eq 2 ] || fail "no TRACE: not exit status 2"
}

# Long options under valgrind: getopt_long's array lives on the stack,
# and a field left uninitialized (its flag) made getopt_long store through
# stack garbage (a crash that comes and goes with the environment;
# valgrind sees it every time).
case_long_options() {
	command -v valgrind >/dev/null 2>&1 || skip "valgrind not found"
	printf '%s\n' 'events 1' 'enter 0x1000 0x1' 'leave 0x1000 0x1' | mk lo
	# (one run parses them all: getopt_long reads each one's entry)
	valgrind -q --error-exitcode=99 "$CTRACE_SYMBOLIZE" \
		--function=0x1000 --format=graph --where=n==1 --max-depth=3 \
		--srcline --per-thread --sort=name lo.bin >lo.out 2>lo.err
	[ $? -ne 99 ] || { cat lo.err; fail "valgrind error"; }
}

# Lost counts near 2^64 (a crafted trace): the flame graph's sums
# saturate, no box is above 100%
case_huge_lost_flame() {
	printf '%s\n' 'events 1' 'enter 0x1000 0x1' \
		'lost 18446744073709551615 1' 'enter 0x2000 0x2' \
		'lost 18446744073709551615 1' 'leave 0x2000 0x2' \
		'leave 0x1000 0x1' | mk hlf
	sym 0 hlf -f flamegraph
	grep -o '[0-9.]*%)' hlf.out | tr -d '%)' |
		awk '$1 > 100 { bad = 1 } END { exit bad }' ||
		{ grep -o '([^)]*%)' hlf.out; fail "a share above 100%"; }
}

for c in empty not_trace short_header newer_version newer_minor byte_order \
	bad_chunk_size header_only truncated_chunk slot_undefined \
	length_past_end endless_uleb bad_define_slot short_extended \
	unknown_extended duplicate_seq impossible_seq missing_chunk \
	bad_chunk_kind unstarted_chunk huge_lost lost_header_only args_lib \
	entered_before longjmp_by_exit longjmp_by_sp self_copy self_again \
	new_v2 new_v4_again new_v4_copy new_v4_bad_key endless_hook \
	v5_returns v5_return_unopened v5_wide v5_ended_early v5_continues \
	v6_inline_args \
	signal_stream no_file usage long_options huge_lost_flame; do
	run_case "$c" "case_$c"
done
test_finish
