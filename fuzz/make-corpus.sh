#!/bin/sh
# make-corpus.sh -- writes the fuzz target's seed corpus: small real traces.
#
#	fuzz/make-corpus.sh BUILDDIR OUTDIR
#
# Builds a few of the test programs with BUILDDIR's recorder and records
# them with 4 KiB chunks (the smallest), so that each trace has several
# chunks, streams and record types in a few kilobytes: calls, threads, a
# signal stream, longjmp, exceptions, a fork()ed child, coroutines, lost
# events, markers, arguments and return values, pairs in wide slots, the
# recorder's pauses, registers of a capture plan, library calls' values.
# fuzz/corpus holds its
# output; rerun it after a format change.  The corpus keeps a few traces
# of older formats too (names ending in -v1, -v2, -v3, -v4, -v5.4, -v5.5),
# which readers still read.
set -eu

build=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
progs=$src/tests/progs
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

prog() {
	name=$1
	shift
	"$cc" -O0 -g -finstrument-functions -I"$src/include" -o "$name" "$@" \
		"$build/lib/libctrace.a" -pthread -ldl
}

record() {
	seed=$1
	shift
	rm -f trace.bin*
	env CTRACE_OUTPUT="$tmp/trace.bin" CTRACE_CHUNK_SIZE=4k \
		CTRACE_QUIET=1 "$@" >/dev/null 2>&1 || true
	for f in trace.bin*; do
		[ -f "$f" ] || continue
		suffix=${f#trace.bin}
		trim "$f" "$out/$seed${suffix:+-child}"
	done
}

# trim TRACE COPY: TRACE without the unused chunks of its preallocated
# tail (a trace not finalized keeps them), and at most 64 KiB of it.
trim() {
	size=$(wc -c <"$1")
	end=4096
	off=4096
	while [ "$off" -lt "$size" ] && [ "$off" -lt 65536 ]; do
		magic=$(od -An -tx4 -j "$off" -N4 "$1" | tr -d ' ')
		[ "$magic" = 4b484354 ] && end=$((off + 4096))
		off=$((off + 4096))
	done
	# The programs' paths name this machine's temporary directory: put a
	# neutral one of the same length in their place (records keep their
	# lengths), so the corpus says nothing about where it was made.
	neutral=$(printf '%s' "$tmp" | sed 's/./x/g; s/^x/\//')
	head -c "$end" "$1" | LC_ALL=C sed "s|$tmp|$neutral|g" >"$2"
}

prog fib "$progs/fib.c"
prog threads "$progs/threads.c"
prog signals "$progs/signals.c"
prog longjmp "$progs/longjmp.c"
prog fork "$progs/fork.c"
prog crash "$progs/crash.c"
prog coroutines "$src/tests/reliability/progs/coroutines.c"
prog pairs "$progs/pairs.c"
# gcc -O2 inlines sum() and dive() into themselves: NEW ENTRY records of
# one pair with different hook addresses.
prog selfrec "$progs/selfrec.c" -O2
# gcc -O2 inlines helper() into several hosts: NEW ENTRY records of
# inlined copies, whose call site and hook follow the previous NEW's.
prog hosts "$progs/hosts.c" -O2
# Callers whose callees are all first calls: PAUSE records (format 5.2).
prog firstcallee "$progs/firstcallee.c"
# Arguments kept in registers (-O2) that a capture plan names: inside
# their ENTRYs, after a NEW with CTRACE_NEW_KEY_ARGS (format 6;
# heapwalk-v5.5 has them as ARGS_REGS records, heapwalk-v5.4 as
# ARGS_SHORT), heap pointers relative to their last values (format 5.3).
prog heapwalk "$src/tests/args/heapwalk.c" -O2
"$build/ctrace-symbolize" --make-plan -o heapwalk.plan ./heapwalk
# Return values read at the exit hook (-O2, a plan's exit lines):
# RETVAL_SHORT, RETVAL_INT and RETVAL_WORD records (formats 5.4, 5.5;
# retread-v5.4 has them all as RETVAL_SHORT).
prog retread "$src/tests/args/retread.c" -O2
"$build/ctrace-symbolize" --make-plan -o retread.plan ./retread
# Library calls' values: ARGS of their registers and stack arguments, the
# compact RETVAL, and on x86-64 RETVAL_ST1 records (format 5.6) of cexpl,
# csqrtl and cpowl, which return a _Complex long double in st0 and st1.
prog libvals "$progs/libvals.c" -fno-builtin -lm
"${CXX:-c++}" -O0 -g -finstrument-functions -o exceptions \
	"$progs/exceptions.cc" "$build/lib/libctrace.a" -pthread -ldl

record fib ./fib 4
record fib-args env CTRACE_ARGS='*' CTRACE_RETVAL='*' ./fib 3
record threads ./threads
record signals ./signals
record longjmp ./longjmp
record exceptions ./exceptions
record fork ./fork
record abort ./crash abort
record segv ./crash segv
record coroutines ./coroutines 1 60
# More pairs than the narrow slots: NEW records and wide slots.
record pairs ./pairs 4 6
record selfrec ./selfrec sum 5
record selfrec-jump ./selfrec jump 5
record hosts ./hosts 40
record pause ./firstcallee
record heapwalk env CTRACE_ARGS=all CTRACE_PLAN=heapwalk.plan ./heapwalk
record retread env CTRACE_RETVAL=all CTRACE_PLAN=retread.plan ./retread
record libvals env CTRACE_LIBCALL=on CTRACE_ARGS=all CTRACE_RETVAL=all \
	CTRACE_FILTER=main,sqrt,pow,fmal,cexpl,csqrtl,cpowl \
	./libvals hello help -42 2 0.5 /dev/null
# A trace cut short at the end of a chunk: the last chunk is partial.
record fib-cut ./fib 6
head -c 12000 "$out/fib-cut" >"$out/fib-cut.tmp" && mv "$out/fib-cut.tmp" "$out/fib-cut"
ls -l "$out"
