#!/bin/sh
# matrix.sh -- the resolver against fixtures built every way debug info
# comes: each compiler x C and C++ x -O0 and -O2 x the variants below, each
# a named case checked by resolve-test.  gcc.sh and clang.sh run it for
# one compiler each ($CC, $CLANG), so make -j check runs both at once.
#
#   g             -g (DWARF 5 with gcc 11+ and clang 14+)
#   dwarf4        -gdwarf-4
#   dwarf5        -gdwarf-5
#   gz            -gz=zlib: SHF_COMPRESSED debug sections
#   zdebug        objcopy --compress-debug-sections=zlib-gnu: .zdebug_*,
#                 with DWARF 4 (libbfd 2.40 looks for DWARF 5's range lists
#                 as .zdebug_rnglist, not .zdebug_rnglists)
#   debuglink     debug info in prog.debug next to prog (.gnu_debuglink)
#   debuglink-dir prog.debug in a debug directory given to the resolver
#   build-id      DIR/.build-id/xx/rest.debug in a debug directory
#   stripped      strip --strip-all: names from .dynsym (-rdynamic), else
#                 module+offset, no lines
#   stripped-dbg  strip --strip-all plus a debug file: all names and lines
#   nopie         -fno-pie -no-pie
#   m32           -m32: a 32-bit ELF (when HAVE_M32=yes)
#   shared        the fixture's functions in a shared library
#   search-dir    the recorded path is gone; found by --search-dir
#   missing       not found anywhere: module+offset and one warning
#   mismatch      a different build at the recorded path: one warning
#   mismatch-search  ... and the right build in a search dir: no warning
#   time          module choice by time (a decoy loaded over the fixture)
#   full, none    C++ names with parameters, and mangled
#
# Environment: COMPILERS (gcc and/or clang), CC, CLANG, HAVE_M32,
# top_srcdir, top_builddir; OBJCOPY, STRIP; VERBOSE=1 shows every check.  Works in
# tests/work/resolve-COMPILERS below the build tree, removed if all pass.
# Speaks TAP: "ok N - CASE", "not ok N - CASE" or "ok N - CASE # SKIP
# why" per case, then the plan; exits 1 if any case failed, 77 (skipped)
# if none could run.  CASES (shell globs) runs only the matching cases.

set -u

: "${COMPILERS:=gcc clang}"
: "${CC:=cc}"
: "${CLANG:=}"
: "${top_srcdir:=.}"
: "${top_builddir:=.}"
: "${OBJCOPY:=objcopy}"
: "${STRIP:=strip}"
: "${VERBOSE:=0}"
: "${HAVE_M32:=no}"

src=$top_srcdir/tests/resolve
# The sanitized build checks for leaks and memory errors too.
resolve_test=$top_builddir/tests/resolve/resolve-test-san
[ -x "$resolve_test" ] || resolve_test=$top_builddir/tests/resolve/resolve-test
echo "# checking with $resolve_test"
# libbfd 2.40 does not free the .debug_rnglists buffer of a DWARF 5
# object when it is closed; lsan.supp names that leak, which is not the
# resolver's.  libbfd has no frame pointers: only the slow unwinder sees
# the stack the suppression matches.
LSAN_OPTIONS="suppressions=$src/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
ASAN_OPTIONS="fast_unwind_on_malloc=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS ASAN_OPTIONS

work=$top_builddir/tests/work/resolve-$(echo "$COMPILERS" | tr ' ' -)
rm -rf "$work" && mkdir -p "$work" || exit 99
work=$(cd "$work" && pwd) || exit 99

n=0
failed=0
ran=

# result ok|skip|FAIL CASE [WHY]: one TAP result.  CASES (shell globs)
# runs only the cases whose name matches: see selected.
result() {
	n=$((n + 1))
	case $1 in
	ok) echo "ok $n - $2${3:+ ($3)}" ;;
	skip) echo "ok $n - $2 # SKIP ${3:-}" ;;
	*) echo "not ok $n - $2${3:+ ($3)}"; failed=$((failed + 1)) ;;
	esac
	return 0
}

# selected CASE: true when CASES is empty or one of its globs matches.
selected() {
	[ -n "${CASES:-}" ] || return 0
	set -f
	for glob in $CASES; do
		# shellcheck disable=SC2254
		case $1 in $glob) set +f; return 0 ;; esac
	done
	set +f
	return 1
}

# compile CC LANG OUT FLAGS... -- builds the fixture program.
compile() {
	cc=$1 lang=$2 out=$3
	shift 3
	if [ "$lang" = c ]; then
		$cc -std=gnu11 -I"$src" "$@" "$src/fixture.c" -o "$out"
	else
		$cc -x c++ -fno-exceptions -fno-rtti -I"$src" "$@" \
			"$src/fixture-cxx.cc" -x none -o "$out" -lstdc++
	fi
}

# compile_shared OUT CC LANG OPT FLAGS... -- compile CC LANG OUT OPT FLAGS,
# the same build as earlier cases' when one made it: most variants build
# the fixture -g -rdynamic, then post-process or look up their own copy.
compile_shared() {
	cs_out=$1 cs_cc=$2 cs_lang=$3
	shift 3
	cs_base=$work/builds/$(echo "$cs_cc $cs_lang $*" | cksum | tr ' ' -)
	if [ ! -e "$cs_base" ] && [ ! -e "$cs_base.failed" ]; then
		mkdir -p "$work/builds" &&
			compile "$cs_cc" "$cs_lang" "$cs_base.tmp" "$@" &&
			mv "$cs_base.tmp" "$cs_base" ||
			{ touch "$cs_base.failed"; return 1; }
	fi
	[ -e "$cs_base" ] && cp "$cs_base" "$cs_out"
}

# split_debug PROG DEBUG -- moves PROG's debug info to DEBUG.
split_debug() {
	$OBJCOPY --only-keep-debug "$1" "$2" &&
		$OBJCOPY --strip-debug "$1"
}

build_id_path() { # PROG DIR -- DIR/.build-id/xx/rest.debug for PROG
	id=$(LC_ALL=C readelf -n "$1" 2>/dev/null |
		sed -n 's/^ *Build ID: *\([0-9a-f]*\).*/\1/p' | head -n 1)
	[ -n "$id" ] || return 1
	rest=${id#??}
	echo "$2/.build-id/${id%"$rest"}/$rest.debug"
}

# one_case NAME CC LANG OPT VARIANT
one_case() {
	name=$1 cc=$2 lang=$3 opt=$4 variant=$5
	selected "$name" || return 0
	dir=$work/$name
	prog=$dir/prog
	mkdir -p "$dir" || return
	log=$dir/log
	args=
	run=$prog
	debug="-g"
	case $variant in
	dwarf4 | zdebug) debug="-gdwarf-4" ;;
	dwarf5) debug="-gdwarf-5" ;;
	gz) debug="-g -gz=zlib" ;;
	nopie) debug="-g -fno-pie -no-pie" ;;
	m32)
		[ "$HAVE_M32" = yes ] || {
			result skip "$name" "no -m32 toolchain"
			return
		}
		debug="-g -m32" ;;
	esac

	# Build.
	if [ "$variant" = shared ]; then
		# shellcheck disable=SC2086
		compile "$cc" "$lang" "$dir/libfixture.so" $opt -g -fPIC \
			-shared -DFIXTURE_SHARED >"$log" 2>&1 &&
			$cc -std=gnu11 "$src/fixture-main.c" -o "$prog" \
				-L"$dir" -lfixture -Wl,-rpath,"$dir" >>"$log" 2>&1
	else
		# shellcheck disable=SC2086
		compile_shared "$prog" "$cc" "$lang" $opt $debug -rdynamic \
			>"$log" 2>&1
	fi || {
		result skip "$name" "does not build"
		return
	}

	# Post-process and choose the checks.
	case $variant in
	zdebug)
		$OBJCOPY --compress-debug-sections=zlib-gnu "$prog" ;;
	debuglink)
		split_debug "$prog" "$dir/prog.debug" &&
			$OBJCOPY --add-gnu-debuglink="$dir/prog.debug" "$prog" ;;
	debuglink-dir)
		mkdir -p "$dir/debug" &&
			split_debug "$prog" "$dir/debug/prog.debug" &&
			(cd "$dir/debug" &&
				$OBJCOPY --add-gnu-debuglink=prog.debug "$prog") &&
			args="--debug-dir=$dir/debug" ;;
	build-id)
		path=$(build_id_path "$prog" "$dir/debug") &&
			mkdir -p "${path%/*}" &&
			split_debug "$prog" "$path" &&
			args="--debug-dir=$dir/debug" ;;
	stripped)
		$STRIP --strip-all "$prog" && args=--stripped ;;
	stripped-dbg)
		$OBJCOPY --only-keep-debug "$prog" "$dir/prog.debug" &&
			$STRIP --strip-all "$prog" &&
			$OBJCOPY --add-gnu-debuglink="$dir/prog.debug" "$prog" ;;
	search-dir)
		args="--path=$dir/gone/prog --search-dir=$dir" ;;
	missing)
		args="--path=$dir/gone/prog --missing --expect-warning=not found" ;;
	mismatch | mismatch-search)
		mkdir -p "$dir/other" &&
			# shellcheck disable=SC2086
			compile_shared "$dir/other/prog" "$cc" "$lang" $opt -g \
				-rdynamic -DFIXTURE_OTHER >>"$log" 2>&1 &&
			if [ "$variant" = mismatch ]; then
				args="--path=$dir/other/prog --warnings-only"
				args="$args --expect-warning=build-id differs"
			else
				args="--path=$dir/other/prog --search-dir=$dir"
			fi ;;
	time)
		args=--time ;;
	full | none)
		args=--demangle=$variant ;;
	esac >>"$log" 2>&1 || {
		result FAIL "$name" "post-processing failed, see log"
		sed 's/^/# /' "$log"
		return
	}

	# Run the fixture, then check the resolver against it.
	"$run" >"$dir/expect" 2>>"$log" || {
		result FAIL "$name" "the fixture did not run"
		sed 's/^/# /' "$log"
		return
	}
	# The spaces in some arguments matter: pass them one by one.
	set -- --name="$name"
	case $args in
	*--expect-warning=*)
		warning=${args#*--expect-warning=}
		set -- "$@" "--expect-warning=$warning"
		args=${args%%--expect-warning=*} ;;
	esac
	# shellcheck disable=SC2086
	ran=yes
	if "$resolve_test" "$@" $args "$dir/expect" >"$dir/out" 2>&1; then
		result ok "$name"
		[ "$VERBOSE" = 1 ] && sed 's/^/# /' "$dir/out"
	else
		result FAIL "$name"
		grep -v '^ok' "$dir/out" | sed 's/^/# /'
	fi
	return 0
}

variants="g dwarf4 dwarf5 gz zdebug debuglink debuglink-dir build-id stripped
stripped-dbg nopie m32 shared search-dir missing mismatch mismatch-search time"

for compiler in $COMPILERS; do
	if [ "$compiler" = gcc ]; then
		cc=$CC
	else
		cc=$CLANG
		[ -n "$cc" ] || {
			result skip clang "CLANG is not set"
			continue
		}
	fi
	for lang in c c++; do
		for opt in -O0 -O2; do
			for variant in $variants; do
				one_case "$compiler$opt-$lang-$variant" "$cc" \
					"$lang" "$opt" "$variant"
			done
			if [ "$lang" = c++ ]; then
				for variant in full none; do
					one_case "$compiler$opt-$lang-$variant" \
						"$cc" "$lang" "$opt" "$variant"
				done
			fi
		done
	done
done

if [ "$n" -eq 0 ]; then
	echo "1..0 # SKIP no case${CASES:+ matches CASES='$CASES'}"
else
	echo "1..$n"
fi
echo "# $n cases, $failed failed"
if [ "$failed" != 0 ]; then
	echo "# kept $work"
	exit 1
fi
rm -rf "$work"
[ -n "$ran" ] || exit 77
exit 0
