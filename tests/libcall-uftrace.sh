#!/bin/sh
# libcall-uftrace.sh -- which library calls appear, and where, against
# uftrace: tests/progs/libcall-uftrace.c (libc with qsort's and bsearch's
# comparator calling strcmp, malloc, free, strlen, printf, exit running an
# atexit handler; libm's sqrt and pow; an uninstrumented shared library;
# pthread_create and pthread_join) is built with -finstrument-functions
# for ctrace and with -pg for uftrace by the same compiler at the same
# level, recorded by both, by default and with --nest-libcall, and the
# trees' shapes compared: per thread, every call's depth and name, in
# order.  Each mode's shape is also checked to hold the calls the program
# makes, so that two equally wrong trees do not pass.
#
# Normalised, and only this (each a difference of the tools, not of the
# calls the program makes):
# - Durations, thread ids, the end of a call (`}` lines): not compared.
#   Threads are numbered in the order of their first call in each tool,
#   and shown one after the other (uftrace's replay interleaves them by
#   time).
# - uftrace's events (`/* linux:sched-out */`, `/* linux:task-exit */`
#   and the like) are not calls: left out.
# - With --nest-libcall, uftrace leaves the calls of the system's base
#   libraries (libc, libpthread, libdl, libgcc_s and the loader: the
#   skip_libs of its libmcount/plthook.c) out; ctrace records them.  The
#   only such calls this program makes are libc's into the dynamic loader
#   (malloc calling `__tunable_get_val`, pthread_create calling
#   `_dl_allocate_tls`): ctrace's calls into ld-linux*.so are left out,
#   by their module (the tree's module column), with whatever ran under
#   them.
# uftrace's own start-up calls of -pg programs (`__monstartup`,
# `__cxa_atexit` of `_mcleanup`) and `mcount` never appear in its tree of
# main, so nothing is done about them.  Skipped without uftrace.
#
# i386 (configs_m32) needs a uftrace built for i386: uftrace preloads its
# own libmcount into the program, and an x86-64 build's cannot go into an
# i386 one (ld.so: object '.../libmcount-fast.so' from LD_PRELOAD cannot
# be preloaded (wrong ELF class: ELFCLASS64): ignored), after which
# uftrace record waits for ever, its program long gone (uftrace 0.13,
# Debian's amd64 package).  An i386 uftrace first in PATH (Debian's
# uftrace:i386 replaces the amd64 one), or the command in
# CTRACE_TEST_UFTRACE_M32 (taken as it is: a script may run one unpacked
# elsewhere with its --libmcount-path), runs them; otherwise they are
# skipped, saying so.

. "$(dirname "$0")/lib.sh"
test_init libcall-uftrace

# The rest of the suite runs with library calls off (lib.sh).
unset CTRACE_LIBCALL

UFTRACE=$(command -v uftrace 2>/dev/null) ||
	skip_script "uftrace is not installed"
UFTRACE_M32=${CTRACE_TEST_UFTRACE_M32:-$UFTRACE}

# elf_class FILE: 32 or 64 for an ELF file, else nothing.
elf_class() {
	case $(od -An -tx1 -N5 "$1" 2>/dev/null | tr -d ' ') in
	7f454c4601) echo 32 ;;
	7f454c4602) echo 64 ;;
	esac
}

# build_both: libplain.so, and the program built for ctrace (libcall-uf)
# and for uftrace (libcall-uf.pg).
build_both() {
	if [ ! -f "$BIN/libplain.so" ]; then
		# shellcheck disable=SC2086
		$CUR_CC $CUR_OPT $CUR_ARCH -fPIC -shared -o "$BIN/libplain.so" \
			"$PROGS/libplain.c" ||
			fail "build of libplain.so failed"
	fi
	build_c libcall-uf "$PROGS/libcall-uftrace.c" -L"$BIN" -lplain \
		-Wl,-rpath,"$BIN" -lm
	[ -x "$BIN/libcall-uf.pg" ] && return 0
	# shellcheck disable=SC2086
	$CUR_CC $CUR_OPT -g -pg $CUR_ARCH $CUR_PIE -o "$BIN/libcall-uf.pg" \
		"$PROGS/libcall-uftrace.c" -L"$BIN" -lplain \
		-Wl,-rpath,"$BIN" -lm -pthread >"$BIN/libcall-uf.pg.log" 2>&1 ||
		{ cat "$BIN/libcall-uf.pg.log"; fail "build with -pg failed"; }
}

# shape_ctrace TREE: the shape of a tree printed with --fields=tid,module:
# "THREAD DEPTH NAME" for each call; calls into the loader left out.
shape_ctrace() {
	awk '
	/^#/ { next }
	{
		i = index($0, " | ")
		if (i == 0)
			next
		head = substr($0, 1, i - 1)
		text = substr($0, i + 3)
		match(head, /\[ *[0-9]+\]/)
		tid = substr(head, RSTART + 1, RLENGTH - 2) + 0
		mod = substr(head, RSTART + RLENGTH)
		sub(/^ +/, "", mod)
		sub(/ +$/, "", mod)
		match(text, /^ */)
		depth = RLENGTH / 2
		name = substr(text, RLENGTH + 1)
		if (name !~ /^[A-Za-z_][^(]*\(\)( \{|;)$/)
			next
		sub(/\(.*/, "", name)
		if (tid in skip && depth > skip[tid])
			next
		delete skip[tid]
		if (mod ~ /^ld-linux/) {
			skip[tid] = depth
			next
		}
		if (!(tid in serial))
			serial[tid] = ++threads
		print serial[tid], depth, name
	}' "$1" | sort -s -n -k1,1
}

# shape_uftrace REPLAY: the same of `uftrace replay -f tid`.
shape_uftrace() {
	awk '
	{
		i = index($0, " | ")
		if (i == 0 || $0 !~ /^ *\[ *[0-9]+\]/)
			next
		head = substr($0, 1, i - 1)
		text = substr($0, i + 3)
		match(head, /[0-9]+/)
		tid = substr(head, RSTART, RLENGTH) + 0
		match(text, /^ */)
		depth = RLENGTH / 2
		name = substr(text, RLENGTH + 1)
		if (name !~ /^[A-Za-z_][^(]*\(\)( \{|;)$/)
			next
		sub(/\(.*/, "", name)
		if (!(tid in serial))
			serial[tid] = ++threads
		print serial[tid], depth, name
	}' "$1" | sort -s -n -k1,1
}

# compare_mode CONFIG MODE: MODE is default or nest.
compare_mode() {
	use_config "$1"
	if [ "$CUR_ARCH" = -m32 ]; then
		[ -n "${CTRACE_TEST_UFTRACE_M32:-}" ] ||
			[ "$(elf_class "$UFTRACE_M32")" = 32 ] ||
			skip "uftrace ($UFTRACE_M32) is not an i386 build: its libmcount cannot be preloaded into an i386 program (ld.so: wrong ELF class: ELFCLASS64: ignored) and uftrace record never returns; set CTRACE_TEST_UFTRACE_M32 to an i386 uftrace"
		UFTRACE=$UFTRACE_M32
	fi
	build_both
	if [ "$2" = nest ]; then
		ct_mode=nest uf_opt=--nest-libcall
	else
		ct_mode=on uf_opt=
	fi
	CTRACE_LIBCALL=$ct_mode run_traced trace.bin "$BIN/libcall-uf" fig
	symbolize_stable tree --fields=tid,module trace.bin
	shape_ctrace tree >ctrace.shape
	# shellcheck disable=SC2086
	"$UFTRACE" record $uf_opt -d uftrace.data "$BIN/libcall-uf.pg" fig \
		>uftrace.out 2>uftrace.err ||
		{ cat uftrace.err; fail "uftrace record failed"; }
	"$UFTRACE" replay --no-pager -d uftrace.data -f tid >replay.txt \
		2>replay.err || { cat replay.err; fail "uftrace replay failed"; }
	shape_uftrace replay.txt >uftrace.shape
	compare uftrace.shape ctrace.shape
	# The calls the program makes, in both: the comparator and its
	# strcmp under qsort and bsearch, bye and its printf under exit, the
	# thread's strlen, plain_sum's strlen with --nest-libcall only.
	for want in '1 1 qsort' '1 2 by_name' '1 3 strcmp' '1 1 bsearch' \
		'1 1 malloc' '1 1 free' '1 1 pthread_create' \
		'1 1 pthread_join' '1 1 exit' '1 2 bye' '1 3 printf' \
		'1 2 pow' '1 1 plain_sum' '2 0 worker' '2 1 strlen'; do
		grep -qx "$want" ctrace.shape ||
			fail "no call \"$want\" (thread, depth, name) in the shape"
	done
	if [ "$2" = nest ]; then
		grep -A1 -x '1 1 plain_sum' ctrace.shape | grep -qx '1 2 strlen' ||
			fail "--nest-libcall: no strlen under plain_sum"
	else
		grep -A1 -x '1 1 plain_sum' ctrace.shape | grep -qx '1 2 strlen' &&
			fail "a library's own call recorded without --nest-libcall"
	fi
	return 0
}

# An instrumented library linked at build time (tests/progs/shlib.c with
# libdemo.so, without its plugin): its functions called through the
# program's slots nest in those library calls, in uftrace's tree (the
# library built with -pg) as in ctrace's.  A plugin loaded with dlopen is
# left to tests/libcall.sh: uftrace does not hook its slots.
compare_instlib() {
	use_config "$1"
	if [ "$CUR_ARCH" = -m32 ]; then
		[ -n "${CTRACE_TEST_UFTRACE_M32:-}" ] ||
			[ "$(elf_class "$UFTRACE_M32")" = 32 ] ||
			skip "uftrace ($UFTRACE_M32) is not an i386 build (see compare_mode)"
		UFTRACE=$UFTRACE_M32
	fi
	build_shlib libdemo.so "$PROGS/libdemo.c"
	build_c shlib-linked "$PROGS/shlib.c" -rdynamic -L"$BIN" -ldemo \
		-Wl,-rpath,"$BIN"
	mkdir -p "$BIN/pg"
	if [ ! -x "$BIN/pg/shlib-linked" ]; then
		# shellcheck disable=SC2086
		{ $CUR_CC $CUR_OPT -g -pg $CUR_ARCH -fPIC -shared \
			-o "$BIN/pg/libdemo.so" "$PROGS/libdemo.c" &&
			$CUR_CC $CUR_OPT -g -pg $CUR_ARCH $CUR_PIE \
				-o "$BIN/pg/shlib-linked" "$PROGS/shlib.c" \
				-L"$BIN/pg" -ldemo -Wl,-rpath,"$BIN/pg" -ldl; } \
			>"$BIN/pg/build.log" 2>&1 ||
			{ cat "$BIN/pg/build.log"; fail "build with -pg failed"; }
	fi
	run_traced trace.bin "$BIN/shlib-linked"
	symbolize_stable tree --fields=tid,module trace.bin
	shape_ctrace tree >ctrace.shape
	"$UFTRACE" record -d uftrace.data "$BIN/pg/shlib-linked" \
		>uftrace.out 2>uftrace.err ||
		{ cat uftrace.err; fail "uftrace record failed"; }
	"$UFTRACE" replay --no-pager -d uftrace.data -f tid >replay.txt \
		2>replay.err || { cat replay.err; fail "uftrace replay failed"; }
	shape_uftrace replay.txt >uftrace.shape
	compare uftrace.shape ctrace.shape
	for want in '1 1 demo_compute' '1 2 demo_compute' '1 3 lib_square' \
		'1 1 demo_callback' '1 2 demo_callback' '1 3 exe_twice'; do
		grep -qx "$want" ctrace.shape ||
			fail "no call \"$want\" (thread, depth, name) in the shape"
	done
}

for cfg in $(configs) $(configs_m32); do
	for m in default nest; do
		run_case "$m-$cfg" compare_mode "$cfg" "$m"
	done
	run_case "instlib-$cfg" compare_instlib "$cfg"
done

test_finish
