#!/bin/sh
# libcall.sh -- library calls (calls through the PLT and GOT into other
# modules): exact trees of programs calling libc with callbacks, threads,
# libm, an uninstrumented shared library, longjmp and a C++ throw through
# a library call, a library call right after another call (-O0); the same
# tree with -z now and full RELRO and with
# -fno-plt; with the gold, lld and mold linkers; canonical PLT entries
# (non-PIE programs); --nest-libcall and the
# switches that turn them off; a static
# program; and call counts against a counting oracle preloaded into the
# program.  On x86-64 and i386 (configs_m32).

. "$(dirname "$0")/lib.sh"
test_init libcall

# The rest of the suite runs with library calls off (lib.sh).
unset CTRACE_LIBCALL

# build_libcall NAME [FLAGS...]: tests/progs/libcall.c with libplain.so.
build_libcall() {
	bl_name=$1
	shift
	build_plain c libplain.so "$PROGS/libplain.c"
	build_c "$bl_name" "$PROGS/libcall.c" -L"$BIN" -lplain \
		-Wl,-rpath,"$BIN" -lm "$@"
}

# libcall_tree CONFIG MODE EXPECTED [PROGRAM]: the tree of PROGRAM
# (default libcall) run in MODE is expected/EXPECTED.tree.
libcall_tree() {
	use_config "$1"
	prog=${4:-libcall}
	build_libcall libcall
	[ "$prog" = libcall ] || build_libcall "$prog" $LIBCALL_FLAGS
	run_traced trace.bin "$BIN/$prog" "$2"
	symbolize_stable tree trace.bin
	compare "$(expected "$3")" tree
}

case_libc() { libcall_tree "$1" c libcall-libc; }
case_thread() { libcall_tree "$1" t libcall-thread; }
case_libm() { libcall_tree "$1" m libcall-libm; }
case_plain() { libcall_tree "$1" p libcall-plain; }
case_longjmp() { libcall_tree "$1" j libcall-longjmp; }

# Built -O0 whatever the configuration: a library call made right after
# another call, whose stack pointer (i386) lies above its caller's at the
# caller's entry hook, is nested in it.
case_after() {
	use_config "$1"
	build_c libcall-after "$PROGS/libcall-after.c" -O0
	run_traced trace.bin "$BIN/libcall-after"
	symbolize_stable tree trace.bin
	compare "$(expected libcall-after)" tree
}

# A library function ending in a jump to an instrumented function of the
# program (libtail.c, -O2 whatever the configuration): that function
# runs in the library call's frame, its return address the recorder's
# trampoline.  It nests in the library call (once shown as a call after
# the library call ended without an exit, and the library call's return
# as one from before the trace: 5,782 calls of jsoncpp's test driver,
# libstdc++'s basic_string constructor jumping to the program's
# _M_construct).  x86-64 only: no i386 machine at hand proved the case.
case_tail() {
	use_config "$1"
	build_tail_plain c libtail.so "$PROGS/libtail.c"
	build_c libcall-tail "$PROGS/libcall-tail.c" -L"$BIN" -ltail \
		-Wl,-rpath,"$BIN"
	run_traced trace.bin "$BIN/libcall-tail"
	symbolize_stable tree trace.bin
	compare "$(expected libcall-tail)" tree
}

# Full RELRO with every slot bound at start-up: the GOT is read-only, made
# writable for the redirection and read-only again (checked in the maps).
case_relro() {
	LIBCALL_FLAGS='-Wl,-z,now -Wl,-z,relro' \
		libcall_tree "$1" c libcall-libc libcall-now
	readelf -d "$BIN/libcall-now" | grep -q 'BIND_NOW\|FLAGS.*NOW' ||
		fail "libcall-now is not linked with -z now"
}

# -fno-plt: the calls go through GLOB_DAT slots.
case_noplt() {
	LIBCALL_FLAGS=-fno-plt libcall_tree "$1" c libcall-libc libcall-noplt
}

# Bytes of an and and a cmp that a scan by bytes reads as a load of
# exit's GOT slot (which would leave it unredirected, its call unseen):
# x86-64 reads each function's instructions where the bytes show a load.
case_stray() {
	use_config "$1"
	[ "$CUR_ARCH" = -m32 ] && skip "x86-64 code"
	build_c libcall-stray "$PROGS/libcall-stray.c" -fno-plt
	run_traced trace.bin "$BIN/libcall-stray"
	symbolize_stable tree trace.bin
	compare "$(expected libcall-stray)" tree
}

# Each linker lays the PLT and the GOT out its own way (lld and mold put
# .got.plt elsewhere, mold's PLT entries differ from bfd's): the same tree
# with gold, lld and mold, lazy, and -fno-plt with -z now and full RELRO.
# A linker that is not installed is skipped, saying which.
linker_case() {
	use_config "$1"
	ld=$2
	ld_bin=ld.$ld
	[ "$ld" = mold ] && ld_bin=mold
	command -v "$ld_bin" >/dev/null 2>&1 || skip "$ld_bin not installed"
	echo 'int main(void) { return 0; }' >probe.c
	$CUR_CC -fuse-ld="$ld" probe.c -o probe >/dev/null 2>&1 ||
		skip "$CUR_CC cannot link with -fuse-ld=$ld"
	# lld and mold give a libc function that i386 non-PIC code calls
	# (R_386_PC32) its address in the program's PLT (canonical), so that
	# the libraries' own calls of it (printf's malloc) go through the
	# program's slot too: not recorded, they are not the program's.  Non-
	# PIE on i386 whatever the configuration.
	LIBCALL_FLAGS="-fuse-ld=$ld" \
		libcall_tree "$1" c libcall-libc "libcall-$ld"
	if [ "$CUR_ARCH" = -m32 ] && [ "$CUR_PIE" != '-fno-pie -no-pie' ]; then
		LIBCALL_FLAGS="-fuse-ld=$ld -fno-pie -no-pie" \
			libcall_tree "$1" c libcall-libc "libcall-$ld-nopie"
	fi
	# An instrumented library linked with -fno-plt: its calls through
	# GLOB_DAT slots, found in its code (mold's i386 code reaches them
	# from the start of .got, not from DT_PLTGOT: none was recorded).
	build_shlib "libcall-plugin-$ld.so" "$PROGS/libcall-plugin.c" \
		-fuse-ld="$ld" -fno-plt -Wl,-z,now -Wl,-z,relro
	build_c libcall-dlopen "$PROGS/libcall-dlopen.c" -rdynamic
	run_traced plugin.bin "$BIN/libcall-dlopen" \
		"$BIN/libcall-plugin-$ld.so"
	symbolize_stable plugin.tree plugin.bin
	compare "$(expected libcall-dlopen)" plugin.tree
	# The program itself, its -fno-plt calls found in code the recorder's
	# own shares (mold's small GOT offsets; arch/i386/gotreg.h).  Some
	# linkers resolve non-PIC i386 code's `call *f@GOT` (a GOT32X
	# relocation with no base register) as if it had one: mold 1.10
	# writes the slot's offset from the GOT where its address belongs,
	# and the program crashes without the recorder.  Not checked then
	# (the case's log says so).
	printf '#include <stdio.h>\nint main(void) { return puts("") < 0; }\n' \
		>noplt.c
	# shellcheck disable=SC2086
	if ! $CUR_CC $CUR_ARCH $CUR_PIE -fno-plt -fuse-ld="$ld" noplt.c \
		-o noplt >/dev/null 2>&1 || ! ./noplt >/dev/null 2>&1; then
		echo "$ld links -fno-plt $CUR_PIE $CUR_ARCH wrong: not checked"
		return 0
	fi
	LIBCALL_FLAGS="-fuse-ld=$ld -fno-plt -Wl,-z,now -Wl,-z,relro" \
		libcall_tree "$1" c libcall-libc "libcall-$ld-now"
}
case_gold() { linker_case "$1" gold; }
case_lld() { linker_case "$1" lld; }
case_mold() { linker_case "$1" mold; }

# Canonical PLT entries: a program built non-PIE that takes malloc's
# address (any linker), or calls functions from i386 non-PIC code (lld,
# mold).  The libraries' calls of malloc that jump through the program's
# entry are not the program's (printf's), and the address the program
# and a library see is the same (the program prints 1).
case_canon() {
	use_config "$1"
	build_plain c libplain.so "$PROGS/libplain.c"
	for ld in bfd lld mold; do
		ld_bin=ld.$ld
		[ "$ld" = mold ] && ld_bin=mold
		command -v "$ld_bin" >/dev/null 2>&1 || continue
		build_c "libcall-canon-$ld" "$PROGS/libcall-canon.c" \
			-L"$BIN" -lplain -Wl,-rpath,"$BIN" -fno-pie -no-pie \
			-fuse-ld="$ld"
		readelf --dyn-syms -W "$BIN/libcall-canon-$ld" |
			awk '$7 == "UND" && $8 ~ /^malloc/ && $2 !~ /^0+$/' |
			grep -q . ||
			fail "libcall-canon-$ld has no canonical PLT entry for malloc"
		run_traced "$ld.bin" "$BIN/libcall-canon-$ld"
		echo 1 >want
		compare want "$ld.bin.out"
		symbolize_stable "$ld.tree" "$ld.bin"
		compare "$(expected libcall-canon)" "$ld.tree"
	done
	# An instrumented -fno-plt library's GLOB_DAT slot of printf holds
	# the program's canonical entry (i386 non-PIC code calls printf, with
	# lld or mold): its calls are printf's, of libc, recorded once.
	build_shlib libcall-plugin-noplt.so "$PROGS/libcall-plugin.c" -fno-plt
	for ld in lld mold; do
		ld_bin=ld.$ld
		[ "$ld" = mold ] && ld_bin=mold
		command -v "$ld_bin" >/dev/null 2>&1 || continue
		build_c "libcall-dlopen-$ld" "$PROGS/libcall-dlopen.c" \
			-rdynamic -fno-pie -no-pie -fuse-ld="$ld"
		run_traced "dl-$ld.bin" "$BIN/libcall-dlopen-$ld" \
			"$BIN/libcall-plugin-noplt.so"
		symbolize_stable "dl-$ld.tree" "dl-$ld.bin"
		compare "$(expected libcall-dlopen)" "dl-$ld.tree"
		symbolize "dl-$ld.json" -f json "dl-$ld.bin"
		grep '"function": "printf", "kind": "libcall"' "dl-$ld.json" |
			grep -v '"library": "[^"]*/libc\.so\.6"' &&
			fail "a printf call not of libc.so.6 (dl-$ld.json)"
	done
	return 0
}

# An exception thrown by a callback through an uninstrumented C++
# library's frame, caught by the caller; operator new and delete.
case_cxx() {
	use_config "$1"
	build_plain cxx libplainxx.so "$PROGS/libplainxx.cc"
	build_cxx libcallxx "$PROGS/libcallxx.cc" -L"$BIN" -lplainxx \
		-Wl,-rpath,"$BIN"
	run_traced trace.bin "$BIN/libcallxx"
	symbolize_stable tree trace.bin
	compare "$(expected libcallxx)" tree
	# Filters match a C++ library call by the name shown, or mangled.
	tree_text "$(expected libcallxx)" |
		sed '/^  operator \(new\|delete\)();$/d' >nonew.want
	CTRACE_FILTER='!operator new,!_Zdl*' run_traced nonew.bin \
		"$BIN/libcallxx"
	symbolize_stable nonew.tree nonew.bin
	tree_text nonew.tree >nonew
	compare nonew.want nonew
}

# --nest-libcall: the uninstrumented library's own call shows under it.
case_nest() {
	use_config "$1"
	build_libcall libcall
	CTRACE_LIBCALL=nest run_traced trace.bin "$BIN/libcall" p
	symbolize_stable tree trace.bin
	tree_text tree | sed -n '/^  plain_sum() {$/,/^  } \/\* plain_sum \*\/$/p' \
		>plain
	printf '%s\n' '  plain_sum() {' '    strlen();' \
		'  } /* plain_sum */' >want
	compare want plain
}

# Off: CTRACE_LIBCALL=off, and ctrace record --no-libcall (which wins over
# the environment).
case_off() {
	use_config "$1"
	build_libcall libcall
	CTRACE_LIBCALL=off run_traced trace.bin "$BIN/libcall" m
	symbolize_stable tree trace.bin
	tree_text tree >text
	printf '%s\n' 'main();' >want
	compare want text
	CTRACE_LIBCALL=on "$top_builddir/ctrace" record -o trace2.bin \
		--no-libcall -- "$BIN/libcall" m >out 2>err ||
		{ cat err; fail "ctrace record --no-libcall failed"; }
	symbolize_stable tree2 trace2.bin
	tree_text tree2 >text2
	compare want text2
}

# The views: JSON's kind and library, Chrome's category, the report's
# rows per module.
case_views() {
	use_config "$1"
	build_libcall libcall
	run_traced trace.bin "$BIN/libcall" p
	symbolize json -f json trace.bin
	grep -q '"function": "plain_sum", "kind": "libcall", "library": "[^"]*/libplain.so"' json ||
		fail "no libcall plain_sum with its library in the JSON"
	grep -q '"function": "main", "library"' json ||
		fail "main is not a plain function in the JSON"
	symbolize chrome -f chrome trace.bin
	grep -q '"name": "plain_sum", "cat": "libcall"' chrome ||
		fail "no libcall category in the Chrome output"
	symbolize report -f report --by-module --sort=name trace.bin
	sed 's/.*  //' report | sed -n '3,$p' >modules
	printf '%s\n' libc.so.6 libcall libplain.so >want
	compare want modules
}

# dlopen: the library's slots are redirected before its first call
# returns; dlopen and dlsym themselves are not redirected (they find their
# caller by its return address).
case_dlopen() {
	use_config "$1"
	build_shlib libcall-plugin.so "$PROGS/libcall-plugin.c"
	# The plugin's hooks resolve to the executable's: export them.
	build_c libcall-dlopen "$PROGS/libcall-dlopen.c" -rdynamic
	run_traced trace.bin "$BIN/libcall-dlopen" "$BIN/libcall-plugin.so"
	symbolize_stable tree trace.bin
	compare "$(expected libcall-dlopen)" tree
}

# A plugin loaded and unloaded 2,500 times, each time at the address it
# had before (no event of it new to the recorder) and faster than the
# pause after which the loader's list is looked at: the program's dlopen
# is recorded, and the modules looked at as it returns, so each load's
# slots are redirected (11 of the 2,500 loads' calls were recorded
# before).  Its 8 slots' names are 899 bytes long: 18 MB of names in
# all, more than the recorder keeps (16 MiB), which each load finds
# kept from the one before (else 2,330 loads' are recorded, and the
# recorder warns).  Every library call is in the JSON, named in full.
case_reload() {
	use_config "$1"
	build_shlib libcall-reload-plugin.so "$PROGS/libcall-reload-plugin.c"
	build_c libcall-reload "$PROGS/libcall-reload.c" -rdynamic
	run_traced trace.bin "$BIN/libcall-reload" \
		"$BIN/libcall-reload-plugin.so" 2500
	symbolize json -f json trace.bin
	# each library call's function: its first 3 bytes and its length
	sed -n 's/^{"function": "\([^"]*\)", "kind": "libcall".*/\1/p' json |
		awk '{ n[substr($0, 1, 3) " " length($0)]++ }
		END { for (k in n) print k, n[k] }' | LC_ALL=C sort >got
	{
		echo 'dlc 7 2500'
		echo 'dlo 6 2500'
		for f in fa_ fb_ fc_ fd_ fe_ ff_ fg_ fh_; do
			echo "$f 899 2500"
		done
		echo 'pri 6 1'
		echo 'str 6 1'
	} >want
	compare want got
}

# Instrumented code called through a slot: the trampoline jumps to the
# function with the caller's stack, so that its frame is the library
# call's; it nests in the library call, as uftrace shows it, not taken
# for a call made after a longjmp out of it.  libdemo.so linked at build
# time (one of its functions calls back into the program), and the slots
# of a plugin loaded with dlopen, into libdemo.so and back into the
# program.  The same nesting in the JSON (each call's depth), the
# report's counts and the Chrome output.
case_instlib() {
	use_config "$1"
	build_shlib libdemo.so "$PROGS/libdemo.c"
	build_shlib libcall-instplug.so "$PROGS/libcall-instplug.c" \
		-L"$BIN" -ldemo -Wl,-rpath,"$BIN"
	build_c libcall-inst "$PROGS/libcall-inst.c" -rdynamic -L"$BIN" \
		-ldemo -Wl,-rpath,"$BIN"
	run_traced trace.bin "$BIN/libcall-inst" "$BIN/libcall-instplug.so"
	symbolize_stable tree trace.bin
	compare "$(expected libcall-inst)" tree
	# "DEPTH NAME[ libcall]" of each call, in the order the JSON closes
	# them (innermost first)
	symbolize json -f json trace.bin
	sed -n -e 's/^{"function": "\([^"]*\)", "kind": "libcall"/{"function": "\1 libcall"/' \
		-e 's/^{"function": "\([^"]*\)".*"depth": \([0-9]*\)}.*/\2 \1/p' \
		json >depths
	printf '%s\n' '3 lib_square' '2 demo_compute' \
		'1 demo_compute libcall' '3 exe_twice' '2 demo_callback' \
		'1 demo_callback libcall' '1 dlopen libcall' '4 lib_square' \
		'3 demo_compute' \
		'2 demo_compute libcall' '3 inst_exe_add' \
		'2 inst_exe_add libcall' '1 instplug_run' '1 dlclose libcall' \
		'1 printf libcall' '0 main' >want
	compare want depths
	# The function a library call went to returns to the recorder's
	# trampoline, its hooks' call site: shown at the library call's
	# (it showed plt.S), in the tree with --srcline and in JSON.
	symbolize srcline --srcline --no-duration trace.bin
	if grep -q 'plt\.S' srcline json; then
		fail "a call site in the recorder's trampoline"
	fi
	sed -n 's/.*demo_compute() { \(.*\)$/\1/p' srcline >sites
	awk 'NR % 2 == 1 { a = $0 } NR % 2 == 0 && $0 != a { bad = 1 }
		END { exit bad || NR != 4 }' sites ||
		fail "demo_compute's call sites: $(tr '\n' ' ' <sites)"
	# the report's counts: the library call and the function each once
	symbolize stats -f stats trace.bin
	sed -n '2,$p' stats | cut -f1,2 | LC_ALL=C sort >counts
	printf '%s\t%s\n' demo_callback 2 demo_compute 4 dlclose 1 \
		dlopen 1 exe_twice 1 inst_exe_add 2 instplug_run 1 \
		lib_square 2 main 1 printf 1 >want
	compare want counts
	# Chrome: the function's begin and end inside the library call's
	symbolize chrome -f chrome trace.bin
	sed -n -e 's/", "cat": "libcall"/ libcall"/' \
		-e 's/^{"ph": "\([BEX]\)".*"name": "\([^"]*\)".*/\1 \2/p' \
		chrome >events
	printf '%s\n' 'B main' 'B demo_compute libcall' 'B demo_compute' \
		'X lib_square' 'E demo_compute' 'E demo_compute libcall' \
		'B demo_callback libcall' 'B demo_callback' 'X exe_twice' \
		'E demo_callback' 'E demo_callback libcall' \
		'X dlopen libcall' 'B instplug_run' \
		'B demo_compute libcall' 'B demo_compute' 'X lib_square' \
		'E demo_compute' 'E demo_compute libcall' \
		'B inst_exe_add libcall' 'X inst_exe_add' \
		'E inst_exe_add libcall' 'E instplug_run' 'X dlclose libcall' \
		'X printf libcall' 'E main' >want
	compare want events
}

# A static program has no GOT to redirect: its tree says so in one line.
# fork() with library calls on and small chunks: the recorder's own calls
# into libc in the child (pthread_sigmask, ...) go through the module's
# redirected GOT slots; recorded, one claimed a chunk under the parent's
# lock, copied locked into the child, which hung for ever.  `timeout' is
# a guard against that hang, not a time limit.
case_fork() {
	use_config "$1"
	build_c fork "$PROGS/fork.c"
	CTRACE_CHUNK_SIZE=4k run_traced trace.bin timeout 120 "$BIN/fork"
	child=$(cat trace.bin.out)
	[ -f "trace.bin.$child" ] || { ls; fail "no trace of the child $child"; }
	symbolize_stable tree "trace.bin.$child"
	tree_text tree | grep -c '^ *leaf();' >leaves
	echo 2 >want
	compare want leaves
	# the slot bound before the fork is named in the child's trace
	# (it showed as an address, or as the function before it)
	tree_text tree | grep -c '^ *fflush();' >named
	echo 1 >want
	compare want named
}

case_static() {
	use_config "$1"
	[ -f "$BIN/libcall-static" ] ||
		# shellcheck disable=SC2086
		$CUR_CC $CUR_OPT -g -finstrument-functions $CUR_ARCH -static \
			-I"$CTRACE_INCDIR" -o "$BIN/libcall-static" \
			"$PROGS/libcall.c" "$PROGS/libplain.c" \
			"$CUR_LIBDIR/libctrace.a" -pthread -lm \
			>"$BIN/libcall-static.cc-log" 2>&1 ||
		skip "no static C library to link with"
	run_traced trace.bin "$BIN/libcall-static" m
	symbolize_stable tree trace.bin
	sed -n 2p tree >line
	echo '# ctrace: library calls cannot be seen: the program is linked statically' >want
	compare want line
	tree_text tree >text
	echo 'main();' >want
	compare want text
}

# want_tree FILE: FILE holds the tree given on standard input, its lines
# as tree_text leaves them.
want_tree() {
	cat >"$1"
}

# filtered_tree NAME WANT [PROGRAM ARGS...]: the tree of PROGRAM (default
# libcall c) recorded with the filters in the environment is the file
# WANT.
filtered_tree() {
	ft_name=$1 ft_want=$2
	shift 2
	[ $# -gt 0 ] || set -- "$BIN/libcall" c
	run_traced "$ft_name.bin" "$@"
	symbolize_stable "$ft_name.tree" "$ft_name.bin"
	tree_text "$ft_name.tree" >"$ft_name"
	compare "$ft_want" "$ft_name"
}

# Record-time filters (CTRACE_FILTER, ctrace record -F/-N, regular
# expressions, with a depth limit, in a library loaded by dlopen) keep or
# leave out a library call by its symbol as a function by its name: the
# whole tree is expected/libcall-libc.tree.
case_filter() {
	use_config "$1"
	build_libcall libcall
	tree_text "$(expected libcall-libc)" | sed '/^  malloc();$/d' \
		>nomalloc.want
	CTRACE_FILTER='!malloc' filtered_tree nomalloc nomalloc.want
	# ctrace record -F main -N malloc -F '*': CTRACE_FILTER main,!malloc,*
	rm -f rec.bin
	"$top_builddir/ctrace" record -o rec.bin -F main -N malloc -F '*' \
		-- "$BIN/libcall" c >rec.out 2>rec.err ||
		{ cat rec.err; fail "ctrace record -F main -N malloc failed"; }
	symbolize_stable rec.tree rec.bin
	tree_text rec.tree >rec
	compare nomalloc.want rec
	# Includes: only what they name, library calls too; a callee of a
	# call left out shows one level up.
	want_tree some.want <<'EOF'
main() {
  strlen();
  qsort() {
    by_name() {
      strcmp();
    } /* by_name */
  } /* qsort */
  by_name() {
    strcmp();
  } /* by_name */
} /* main (unfinished) */
EOF
	CTRACE_FILTER='main,qsort,by_name,str*' filtered_tree some some.want
	echo 'qsort();' >qsort.want
	CTRACE_FILTER=qsort filtered_tree qsort qsort.want
	want_tree regex.want <<'EOF'
main() {
  qsort() {
    by_name();
  } /* qsort */
  bsearch() {
    by_name();
  } /* bsearch */
} /* main (unfinished) */
EOF
	CTRACE_MATCH=regex CTRACE_FILTER='^(main|by_name|q.*)$,^bs' \
		filtered_tree regex regex.want
	# The filters' table with a depth limit: the policy's path.
	want_tree depth.want <<'EOF'
main() {
  malloc();
  free();
  qsort();
  bsearch();
  __cxa_atexit();
  exit() {
  } /* exit (unfinished) */
} /* main (unfinished) */
EOF
	CTRACE_FILTER='!str*,!printf' CTRACE_DEPTH=2 filtered_tree depth \
		depth.want
	# A library loaded by dlopen: its slots are judged when it is seen.
	build_shlib libcall-plugin.so "$PROGS/libcall-plugin.c"
	build_c libcall-dlopen "$PROGS/libcall-dlopen.c" -rdynamic
	tree_text "$(expected libcall-dlopen)" | sed '/strlen\|dlclose/d' \
		>plugin.want
	CTRACE_FILTER='!strlen,!dlclose' filtered_tree plugin plugin.want \
		"$BIN/libcall-dlopen" "$BIN/libcall-plugin.so"
}

# The symbolizer's filters treat a library call as a function, by its
# name: subtrees (-F, -N, -C, -T), the call alone (-H), depth (-D).
case_offline() {
	use_config "$1"
	build_libcall libcall
	run_traced trace.bin "$BIN/libcall" c
	tree_text "$(expected libcall-libc)" >all
	want_tree F.want <<'EOF'
qsort() {
  by_name() {
    strcmp();
  } /* by_name */
} /* qsort */
EOF
	sed '/qsort() {/,/} \/\* qsort/d' all >N.want
	# -H: qsort's by_name one level up.
	want_tree H.want <<'EOF'
main() {
  malloc();
  strlen();
  printf();
  free();
  by_name() {
    strcmp();
  } /* by_name */
  bsearch() {
    by_name() {
      strcmp();
    } /* by_name */
  } /* bsearch */
  printf();
  __cxa_atexit();
  exit() {
    bye() {
      printf();
    } /* bye */
  } /* exit (unfinished) */
} /* main (unfinished) */
EOF
	want_tree C.want <<'EOF'
main() {
  qsort() {
    by_name() {
      strcmp();
    } /* by_name */
  } /* qsort */
  bsearch() {
    by_name() {
      strcmp();
    } /* by_name */
  } /* bsearch */
} /* main (unfinished) */
EOF
	sed -e '/qsort() {/,/} \/\* qsort/{/qsort() {/!d;}' \
		-e 's/^  qsort() {$/  qsort();/' all >T.want
	sed -e '/^    /d' -e '/^  } \/\* [qb]s/d' \
		-e 's/^\(  [qb]s[a-z]*()\) {$/\1;/' all >D.want
	for f in F:qsort N:qsort H:qsort C:strcmp T:qsort@depth=1 D:2; do
		symbolize_stable "${f%%:*}.tree" "-${f%%:*}" "${f#*:}" trace.bin
		tree_text "${f%%:*}.tree" >"${f%%:*}"
		compare "${f%%:*}.want" "${f%%:*}"
	done
}

# A signal handler that makes library calls, interrupting the program's
# own (every 50 us, with return values on): the handler's calls come while
# the recorder pushes the program's pending return, which they overwrote
# (the program aborted: "the real return address is lost").  The program
# finishes; every call of inst is in the trace, and every strlen of the
# program's own (a handler's that interrupted the recorder itself goes
# unrecorded: doc/recording.md).  A timer makes the window likely, not
# certain: the test cannot fail where the recorder is right.
case_signal() {
	use_config "$1"
	build_c libcall-signal "$PROGS/libcall-signal.c"
	CTRACE_RETVAL=all run_traced trace.bin "$BIN/libcall-signal" 300000
	main=$(sed -n 's/^main \([0-9]*\) handler \([0-9]*\)$/\1/p' trace.bin.out)
	handler=$(sed -n 's/^main \([0-9]*\) handler \([0-9]*\)$/\2/p' trace.bin.out)
	[ -n "$main" ] || fail "the program printed no counts"
	symbolize stats -f stats trace.bin
	inst=$(awk -F '\t' '$1 == "inst" { print $2 }' stats)
	strlen=$(awk -F '\t' '$1 == "strlen" { print $2 }' stats)
	[ "$inst" = $((main + handler)) ] ||
		{ cat stats; fail "inst: $inst calls, expected $((main + handler))"; }
	[ "${strlen:-0}" -ge "$main" ] && [ "$strlen" -le "$inst" ] ||
		{ cat stats; fail "strlen: $strlen calls, expected $main to $inst"; }
}

# 20,000 jumps out of a signal handler, each raised from a library call
# (raise) at one of 8 depths, then 100 calls of getppid: every library
# call the program made is in the trace or counted lost.  The jumps leave
# the raises' patched frames in the recorder's list of calls waiting to
# return, whose slots may still hold the trampoline (the list fills up:
# calls after it are lost, and said to be; before, they went unrecorded,
# unsaid), and siglongjmp is never patched (it never returns: each left
# one more such entry).
case_jump() {
	use_config "$1"
	build_c libcall-jump "$PROGS/libcall-jump.c"
	run_traced trace.bin "$BIN/libcall-jump" 20000 100
	grep -qx 'jumps 20000' trace.bin.out && grep -qx 'calls 100' trace.bin.out ||
		{ cat trace.bin.out; fail "the program did not jump 20000 times"; }
	"$CTRACE_SYMBOLIZE" -f stats trace.bin >stats 2>err ||
		{ cat err; fail "ctrace-symbolize -f stats failed"; }
	lost=$(sed -n 's/^ctrace-symbolize: trace.bin: \([0-9]*\) events\{0,1\} w[a-z]* lost (library calls while the recorder.s list of calls waiting to return was full)$/\1/p' err)
	[ -n "$lost" ] || lost=0
	[ -s err ] && [ "$lost" = 0 ] && { cat err; fail "events lost for another reason"; }
	# the program's library calls: strtol 2, signal, raise and
	# siglongjmp 20,000 each, getppid 101, printf 3
	recorded=$(awk -F '\t' '$1 ~ /^(strtol|signal|raise|siglongjmp|getppid|printf)$/ { n += $2 } END { print n + 0 }' stats)
	[ $((recorded + lost)) = $((2 + 1 + 20000 + 20000 + 101 + 3)) ] ||
		{ cat stats err; fail "$recorded library calls recorded and $lost lost, of 40107"; }
	# siglongjmp never waits to return: all recorded
	awk -F '\t' '$1 == "siglongjmp" { print $2 }' stats | grep -qx 20000 ||
		{ cat stats; fail "siglongjmp not recorded 20000 times"; }
}

# The calls of malloc, free and strlen the program makes, counted by an
# interposing library in a run without recording, are the tree's.
case_counts() {
	use_config "$1"
	build_libcall libcall
	if [ ! -f "$BIN/libcall-count.so" ]; then
		# shellcheck disable=SC2086
		$CUR_CC -O2 $CUR_ARCH -fPIC -shared \
			-o "$BIN/libcall-count.so" "$PROGS/libcall-count.c" ||
			fail "build of libcall-count.so failed"
	fi
	CTRACE=off LD_PRELOAD=$BIN/libcall-count.so \
		LIBCALL_COUNT_OUT=$PWD/oracle "$BIN/libcall" n 1000 >/dev/null ||
		fail "the oracle's run failed"
	run_traced trace.bin "$BIN/libcall" n 1000
	symbolize_stable tree trace.bin
	tree_text tree | sed -n 's/^ *\(malloc\|free\|strlen\)();$/\1/p' |
		sort | uniq -c | awk '{ print $2, $1 }' >counted
	compare oracle counted
}

for cfg in $(configs); do
	run_case "tail-$cfg" case_tail "$cfg"
done
for cfg in $(configs) $(configs_m32); do
	for c in libc thread libm plain longjmp after relro noplt gold lld mold \
		canon cxx nest off dlopen instlib views static counts filter \
		offline fork signal jump reload stray; do
		run_case "$c-$cfg" "case_$c" "$cfg"
	done
done

test_finish
