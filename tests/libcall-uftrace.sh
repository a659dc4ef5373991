#!/bin/sh
# libcall-uftrace.sh -- which library calls appear, and where, against
# uftrace.  Three programs, each built with -finstrument-functions for
# ctrace and with -pg for uftrace by the same compiler at the same level,
# recorded by both, by default and with --nest-libcall, and the trees'
# shapes compared: per thread, every call's depth and name, in order:
# - c: tests/progs/libcall-uftrace.c: libc with qsort's and bsearch's
#   comparator calling strcmp, malloc, free, strlen, printf, exit running
#   an atexit handler; libm's sqrt and pow; an uninstrumented shared
#   library; pthread_create and pthread_join; a comparator that longjmps
#   out of qsort to a setjmp in main; a plugin (tests/progs/
#   libcall-plugin.c, instrumented for ctrace, -pg for uftrace) loaded
#   with dlopen, its function called through dlsym's pointer, dlclose.
# - now: the same linked with -z now and full RELRO, PIE in every
#   configuration (every GOT slot bound at start-up, the GOT read-only).
# - cxx: tests/progs/libcall-uftrace.cc: operator new and delete;
#   std::set_new_handler, and operator new calling the new handler when
#   malloc fails, the handler throwing through operator new's frame;
#   qsort's comparator throwing through qsort's frames; both caught in
#   the program.  With --nest-libcall, also that a library's tail calls
#   through its PLT (operator delete(void*, size_t) jumping to operator
#   delete(void*), which jumps to free) nest as they return.
# Each mode's shape is also checked to hold the calls the program makes,
# so that two equally wrong trees do not pass.
#
# Normalised, and only this (each a difference of the tools, not of the
# calls the program makes):
# - Durations, thread ids, the end of a call (`}` lines): not compared.
#   Threads are numbered in the order of their first call in each tool,
#   and shown one after the other (uftrace's replay interleaves them by
#   time).
# - uftrace's events (`/* linux:sched-out */`, `/* linux:task-exit */`
#   and the like) are not calls: left out.
# - Calls ctrace never redirects (doc/recording.md: they find their
#   caller, or return twice, by their return address): setjmp,
#   _setjmp, sigsetjmp, __sigsetjmp, dlsym, dlvsym and __tls_get_addr,
#   which uftrace records, are left out of uftrace's shape, the calls
#   under them one level up.  (dlopen and dlmopen ctrace redirects in
#   the program, which alone calls them here: both tools show them.)
# - Calls uftrace never records (the skip_syms of its libmcount/plthook.c,
#   whose slots it leaves alone for its exception handling): __cxa_throw,
#   __cxa_rethrow, __cxa_begin_catch, __cxa_end_catch, __cxa_finalize and
#   _Unwind_Resume are left out of ctrace's shape, the calls under them
#   one level up (uftrace records those at the level of the caller).
# - uftrace hooks the PLTs of the modules loaded at start only: a library
#   loaded with dlopen shows its own (-pg) functions, but none of its
#   library calls, by default or with --nest-libcall (plug_len's strlen
#   and printf: the program prints what the plugin's printf wrote, and a
#   gdb breakpoint on strlen inside plug_len is hit).  ctrace records them
#   (checked in its tree); in the shape they are left out, by the module
#   of the caller (the plugin's, in the tree's module column).
# - With --nest-libcall, uftrace leaves the calls of the system's base
#   libraries (libc, libpthread, libdl, libgcc_s and the loader: the
#   skip_libs of its libmcount/plthook.c) out; ctrace records them.  The
#   only such calls the C program makes are libc's into the dynamic
#   loader (malloc calling `__tunable_get_val`, pthread_create calling
#   `_dl_allocate_tls`): ctrace's calls into ld-linux*.so are left out,
#   by their module (the tree's module column), with whatever ran under
#   them.
# - The C++ program with --nest-libcall: the unwinder runs in libgcc_s,
#   whose calls (`_Unwind_Find_FDE`, `_dl_find_object`, `strlen`,
#   `pthread_once`) uftrace leaves out (skip_libs, above), but which
#   ctrace's tree cannot tell from the calls of libstdc++'s personality
#   routine under the same `_Unwind_RaiseException` (the tree names a
#   call's target's module, not its caller's).  So the calls under qsort
#   and under operator new, the library calls the callbacks throw out
#   of, are left out of both shapes (ctrace's full shape is checked for
#   the callbacks and their calls before the throw).  And uftrace shows
#   none of the calls of `__cxa_begin_catch`, the first library call
#   after the unwinding, though it calls `__cxa_get_globals` (a gdb
#   breakpoint on it inside `__cxa_begin_catch` is hit): ctrace's is
#   left out with its calls.
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

# use_uftrace_m32: under an i386 configuration, UFTRACE is the i386
# uftrace, or the case is skipped saying why.
use_uftrace_m32() {
	[ "$CUR_ARCH" = -m32 ] || return 0
	[ -n "${CTRACE_TEST_UFTRACE_M32:-}" ] ||
		[ "$(elf_class "$UFTRACE_M32")" = 32 ] ||
		skip "uftrace ($UFTRACE_M32) is not an i386 build: its libmcount cannot be preloaded into an i386 program (ld.so: wrong ELF class: ELFCLASS64: ignored) and uftrace record never returns; set CTRACE_TEST_UFTRACE_M32 to an i386 uftrace"
	UFTRACE=$UFTRACE_M32
}

# build_both PROG: the program PROG (c, now or cxx) built for ctrace
# ($BIN/uf-PROG) and for uftrace ($BIN/uf-PROG.pg), with what it loads:
# libplain.so, and the plugin for each (libcall-plugin.so instrumented,
# libcall-plugin.pg.so built with -pg).
build_both() {
	build_plain c libplain.so "$PROGS/libplain.c"
	case $1 in
	c | now)
		bb_src=$PROGS/libcall-uftrace.c bb_cc=$CUR_CC
		bb_libs="-L$BIN -lplain -Wl,-rpath,$BIN -lm"
		build_shlib libcall-plugin.so "$PROGS/libcall-plugin.c"
		if [ ! -f "$BIN/libcall-plugin.pg.so" ]; then
			# shellcheck disable=SC2086
			$CUR_CC $CUR_OPT -g -pg $CUR_ARCH -fPIC -shared \
				-o "$BIN/libcall-plugin.pg.so" \
				"$PROGS/libcall-plugin.c" ||
				fail "build of libcall-plugin.pg.so failed"
		fi
		;;
	cxx)
		command -v "${CUR_CXX%% *}" >/dev/null 2>&1 ||
			skip "no C++ compiler (${CUR_CXX%% *})"
		bb_src=$PROGS/libcall-uftrace.cc bb_cc=$CUR_CXX bb_libs=
		;;
	esac
	# -z now and full RELRO, position-independent whatever the
	# configuration says.
	[ "$1" = now ] &&
		CUR_PIE='-fpie -pie -Wl,-z,now -Wl,-z,relro'
	if [ "$1" = cxx ]; then
		build_cxx uf-cxx "$bb_src"
	else
		# The plugin's hooks resolve to the executable's: export them.
		# shellcheck disable=SC2086
		build_c "uf-$1" "$bb_src" $bb_libs -rdynamic
	fi
	[ -x "$BIN/uf-$1.pg" ] && return 0
	# shellcheck disable=SC2086
	$bb_cc $CUR_OPT -g -pg $CUR_ARCH $CUR_PIE -o "$BIN/uf-$1.pg" \
		"$bb_src" $bb_libs -pthread -ldl >"$BIN/uf-$1.pg.log" 2>&1 ||
		{ cat "$BIN/uf-$1.pg.log"; fail "build with -pg failed"; }
}

# The shapes' common part (awk): a call at DEPTH named NAME of thread TID
# whose name is in drop[] is left out, and the calls under it move up one
# level.  Returns the depth to print, or -1 to leave the call out.
AWK_DROP='
function dropped(tid, depth, name) {
	while (nd[tid] > 0 && dd[tid, nd[tid]] >= depth)
		nd[tid]--
	if (name in drop) {
		dd[tid, ++nd[tid]] = depth
		return -1
	}
	return depth - nd[tid]
}'

# shape_ctrace TREE [PLUGIN [PRUNE]]: the shape of a tree printed with
# --fields=tid,module: "THREAD DEPTH NAME" for each call; calls into the
# loader, the calls of module PLUGIN (loaded with dlopen) and the calls
# named in PRUNE (blank-separated) left out with whatever ran under them,
# and the calls uftrace never records.
shape_ctrace() {
	awk -v plug="$2" -v prune="${3:-}" "$AWK_DROP"'
	BEGIN {
		split(prune, l, " ")
		for (k in l)
			pruned[l[k]] = 1
		split("__cxa_throw __cxa_rethrow __cxa_begin_catch " \
		      "__cxa_end_catch __cxa_finalize _Unwind_Resume", l, " ")
		for (k in l)
			drop[l[k]] = 1
	}
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
		caller = depth > 0 ? cmod[tid, depth - 1] : ""
		cmod[tid, depth] = mod
		if (mod ~ /^ld-linux/ ||
		    (plug != "" && caller == plug && mod != plug) ||
		    name in pruned) {
			skip[tid] = depth
			next
		}
		if ((depth = dropped(tid, depth, name)) < 0)
			next
		if (!(tid in serial))
			serial[tid] = ++threads
		print serial[tid], depth, name
	}' "$1" | sort -s -n -k1,1
}

# shape_uftrace REPLAY: the same of `uftrace replay -f tid`, less the calls
# ctrace never records.
shape_uftrace() {
	awk "$AWK_DROP"'
	BEGIN {
		split("setjmp _setjmp __sigsetjmp sigsetjmp dlsym dlvsym " \
		      "__tls_get_addr", l, " ")
		for (k in l)
			drop[l[k]] = 1
	}
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
		if ((depth = dropped(tid, depth, name)) < 0)
			next
		if (!(tid in serial))
			serial[tid] = ++threads
		print serial[tid], depth, name
	}' "$1" | sort -s -n -k1,1
}

# cut_under SHAPE NAME...: SHAPE less the calls made under the calls
# named NAME (those kept).
cut_under() {
	cu_shape=$1
	shift
	printf '%s\n' "$@" | awk '
	FILENAME == "-" {
		cut[$0] = 1
		next
	}
	{
		name = $0
		sub(/^[0-9]+ [0-9]+ /, "", name)
		if ($1 in under && $2 > under[$1])
			next
		delete under[$1]
		if (name in cut)
			under[$1] = $2
		print
	}' - "$cu_shape"
}

# want_calls SHAPE CALL...: fail unless each CALL ("THREAD DEPTH NAME")
# is in SHAPE.
want_calls() {
	wc_shape=$1
	shift
	for want in "$@"; do
		grep -qx "$want" "$wc_shape" ||
			fail "no call \"$want\" (thread, depth, name) in $wc_shape"
	done
}

# compare_mode CONFIG PROG MODE: PROG is c, now (the C program linked
# with -z now and full RELRO, PIE) or cxx; MODE is default or nest.
compare_mode() {
	use_config "$1"
	use_uftrace_m32
	build_both "$2"
	if [ "$3" = nest ]; then
		ct_mode=nest uf_opt=--nest-libcall
	else
		ct_mode=on uf_opt=
	fi
	cm_ct_args='' cm_uf_args=''
	if [ "$2" != cxx ]; then
		cm_ct_args="fig $BIN/libcall-plugin.so"
		cm_uf_args="fig $BIN/libcall-plugin.pg.so"
	fi
	# shellcheck disable=SC2086
	CTRACE_LIBCALL=$ct_mode run_traced trace.bin "$BIN/uf-$2" $cm_ct_args
	symbolize_stable tree --fields=tid,module trace.bin
	cm_prune=
	[ "$2$3" = cxxnest ] && cm_prune=__cxa_begin_catch
	shape_ctrace tree libcall-plugin.so "$cm_prune" >ctrace.shape
	# shellcheck disable=SC2086
	"$UFTRACE" record $uf_opt -d uftrace.data "$BIN/uf-$2.pg" \
		$cm_uf_args >uftrace.out 2>uftrace.err ||
		{ cat uftrace.err; fail "uftrace record failed"; }
	"$UFTRACE" replay --no-pager -d uftrace.data -f tid >replay.txt \
		2>replay.err || { cat replay.err; fail "uftrace replay failed"; }
	shape_uftrace replay.txt >uftrace.shape
	cp ctrace.shape ctrace.full
	if [ "$2$3" = cxxnest ]; then
		# The unwinder's calls, under the library calls the
		# callbacks throw out of: see the header.
		for f in uftrace ctrace; do
			cut_under "$f.shape" qsort 'operator new' >"$f.cut"
			mv "$f.cut" "$f.shape"
		done
	fi
	compare uftrace.shape ctrace.shape
	# The calls the program makes, in both (so that two equally wrong
	# trees do not pass).
	if [ "$2" = cxx ]; then
		# operator new and delete; the comparator's throw out of
		# qsort and the new handler's out of operator new, each
		# followed by main's printf (the catch is in a callee).
		want_calls ctrace.full '1 1 operator new' \
			'1 1 operator delete' '1 2 qsort' '1 3 by_name' \
			'1 4 strcmp' '1 4 __cxa_allocate_exception' \
			'1 2 std::set_new_handler' '1 2 operator new' \
			'1 3 no_memory' '1 4 std::set_new_handler'
		if [ "$3" = default ]; then
			[ "$(grep -A1 -x '1 4 __cxa_allocate_exception' \
				ctrace.full | grep -cx '1 1 printf')" = 2 ] ||
				fail "not two throws each followed by printf in main"
			return 0
		fi
		# A library's tail calls through its PLT, nested as they
		# return: operator delete(void*, size_t) (gcc's call) jumps
		# to operator delete(void*) (clang's), which jumps to free.
		grep -A2 -x '1 1 operator delete' ctrace.full | tr '\n' , |
			grep -Eq '^1 1 operator delete,(1 2 operator delete,1 3 free|1 2 free),' ||
			fail "--nest-libcall: operator delete's tail calls not nested"
		return 0
	fi
	# The comparator and its strcmp under qsort and bsearch; bail's
	# strcmp and longjmp, then puts in main; bye and its printf under
	# exit; the thread's strlen; the plugin's function; plain_sum's
	# strlen with --nest-libcall only.
	want_calls ctrace.shape '1 1 qsort' '1 2 by_name' '1 3 strcmp' \
		'1 1 bsearch' '1 1 malloc' '1 1 free' '1 1 pthread_create' \
		'1 1 pthread_join' '1 1 exit' '1 2 bye' '1 3 printf' \
		'1 2 pow' '1 1 plain_sum' '2 0 worker' '2 1 strlen' \
		'1 2 bail' '1 3 longjmp' '1 1 plug_len' '1 1 dlclose'
	grep -A1 -x '1 3 longjmp' ctrace.shape | grep -qx '1 1 puts' ||
		fail "no puts in main after the longjmp"
	if [ "$3" = nest ]; then
		grep -A1 -x '1 1 plain_sum' ctrace.shape | grep -qx '1 2 strlen' ||
			fail "--nest-libcall: no strlen under plain_sum"
	else
		grep -A1 -x '1 1 plain_sum' ctrace.shape | grep -qx '1 2 strlen' &&
			fail "a library's own call recorded without --nest-libcall"
	fi
	# The plugin's calls, left out above, are in ctrace's tree.
	grep -A1 'plug_len() {$' tree | grep -q ' strlen();$' ||
		fail "no strlen under plug_len in ctrace's tree"
	if [ "$2" = now ]; then
		readelf -d "$BIN/uf-now" | grep -q 'FLAGS.*NOW' &&
			readelf -d "$BIN/uf-now.pg" | grep -q 'FLAGS.*NOW' &&
			readelf -lW "$BIN/uf-now" | grep -q GNU_RELRO &&
			readelf -h "$BIN/uf-now" | grep -q 'DYN ' ||
			fail "uf-now is not a -z now full RELRO PIE"
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
	use_uftrace_m32
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
	for p in c now cxx; do
		for m in default nest; do
			run_case "$p-$m-$cfg" compare_mode "$cfg" "$p" "$m"
		done
	done
	run_case "instlib-$cfg" compare_instlib "$cfg"
done

test_finish
