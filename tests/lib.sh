# lib.sh -- helpers shared by the test scripts (sourced, POSIX sh).
#
# A test script runs named cases:
#
#	. "$(dirname "$0")/lib.sh"
#	test_init calls
#	case_fib5() { use_config "$1"; build_c fib "$PROGS/fib.c"; ... }
#	for cfg in $(configs); do run_case "fib5-$cfg" case_fib5 "$cfg"; done
#	test_finish
#
# Each case runs in a subshell with its output captured; any helper that
# finds a problem prints it and exits the subshell with status 1 (77 to
# skip the case).  The script speaks TAP, which `make check' reads through
# automake's tap-driver.sh: run_case prints `ok N - NAME', `ok N - NAME
# # SKIP REASON' or `not ok N - NAME' followed by the captured output as
# `# ' comment lines (a diff, the symbolizer's messages), then a comment
# `# NAME took N s' (where the time of a script goes).  test_finish
# prints the plan `1..N' and a `# N passed, N failed' comment, and gives
# the script's exit status: 1 if any case failed, 77 if every case skipped.
#
# CASES (a space-separated list of shell globs) runs only the cases whose
# name matches one of them: make check TESTS=tests/calls.sh CASES='fib*'.
#
# The environment comes from `make check' (AM_TESTS_ENVIRONMENT); outside
# make the defaults below assume the current directory is the build tree.
# CTRACE_TEST_CONFIGS narrows the compiler configurations (see configs),
# e.g. make check CTRACE_TEST_CONFIGS=cc-O0-pie TESTS=tests/calls.sh.
# CTRACE_TEST_MATRIX is quick (make check: a few configurations that
# cover both compilers, -O0 and -O2, PIE and not) or full (make
# check-full, CI: every configuration; see matrix_full).
# CTRACE_TEST_LIST=yes (make check-list) prints each case's name as
# `# case NAME' instead of running it.

# ---------------------------------------------------------------------------
# Environment
# ---------------------------------------------------------------------------

tests_srcdir=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(dirname "$tests_srcdir")}"
: "${top_builddir:=$(pwd)}"
: "${CC:=cc}"
: "${CLANG=}"
: "${PYTHON3=$(command -v python3 || true)}"
: "${HAVE_M32:=no}"
: "${HAVE_SANITIZERS:=no}"
: "${CTRACE_SYMBOLIZE:=$top_builddir/ctrace-symbolize}"
: "${CTRACE_LIBDIR:=$top_builddir/lib}"
: "${CTRACE_INCDIR:=$top_srcdir/include}"
export top_srcdir top_builddir

# What a script asks of the system and is the same for every script of one
# `make check' (which python3 runs, whether a compiler is clang) is asked
# once and kept in the build cache (below), which make check empties first.
BUILD_CACHE=$top_builddir/tests/build-cache

# remember NAME KEY COMMAND...: set remembered to the first line COMMAND
# prints, kept in $BUILD_CACHE/NAME with KEY: a later call with the same
# NAME and KEY, from any script, reads it back without running COMMAND.
remember() {
	rm_file=$BUILD_CACHE/$1
	rm_key=$2
	shift 2
	if [ -f "$rm_file" ] && { read -r rm_k; read -r remembered; } <"$rm_file" &&
		[ "$rm_k" = "$rm_key" ]; then
		return 0
	fi
	remembered=$("$@" 2>/dev/null | sed -n 1p)
	mkdir -p "$BUILD_CACHE" 2>/dev/null &&
		printf '%s\n%s\n' "$rm_key" "$remembered" >"$rm_file.$$" &&
		mv -f "$rm_file.$$" "$rm_file"
	rm -f "$rm_file.$$"
}

# The scripts start python3 hundreds of times.  The python3 found on PATH
# may be a wrapper script (a version manager's shim) that costs more than
# the interpreter's own start (about 0.5 s of CPU for a shim of pyenv):
# run the interpreter itself, which the shim names once a make check.  The
# test helpers use the standard library only: run them with -S, without
# the site module, whose .pth hooks can cost several times the start
# itself.
if [ -n "$PYTHON3" ]; then
	remember python3 "$PYTHON3 $PATH" \
		"$PYTHON3" -S -c 'import sys; print(sys.executable)'
	[ -x "$remembered" ] && PYTHON3=$remembered
	export PYTHON3
fi

PROGS=$top_srcdir/tests/progs
EXPECTED=$top_srcdir/tests/expected

# The recorder's settings (CTRACE, CTRACE_OUTPUT, CTRACE_CHUNK_SIZE...)
# must come from each case, never from the caller's environment.
for v in $(env | sed -n 's/^\(CTRACE[A-Z0-9_]*\)=.*/\1/p'); do
	case $v in
	CTRACE_SYMBOLIZE | CTRACE_LIBDIR | CTRACE_INCDIR | CTRACE_TEST_*) ;;
	*) unset "$v" ;;
	esac
done
# Library calls are recorded by default; the expected trees of the other
# tests are the program's own functions.  tests/libcall.sh turns them on.
CTRACE_LIBCALL=off
export CTRACE_LIBCALL

# Options that make the tree independent of timing and of kernel tids.
STABLE_OPTS='--no-duration --thread-ids=serial --per-thread'

# A crashing test program must not leave a core file behind.
ulimit -c 0 2>/dev/null || true

# ---------------------------------------------------------------------------
# Running cases
# ---------------------------------------------------------------------------

test_passed=0
test_failed=0
test_skipped=0
test_count=0

# test_init NAME: start a script; its scratch directory is $WORK.  A name
# set in CTRACE_TEST_NAME wins, so that a wrapper can rerun a script
# without sharing its scratch directory.
test_init() {
	test_name=${CTRACE_TEST_NAME:-$1}
	WORK=$top_builddir/tests/work/$test_name
	# Listing the cases (make check-list) leaves a running check's
	# scratch directory alone.
	if [ "${CTRACE_TEST_LIST:-}" = yes ]; then
		WORK=$(mktemp -d "${TMPDIR:-/tmp}/ctrace-list.XXXXXX") || exit 99
		return 0
	fi
	rm -rf "$WORK"
	mkdir -p "$WORK" || exit 99
	test_start=$(date +%s)
}

# case_selected NAME: true when CASES is empty or one of its globs
# matches NAME.
case_selected() {
	[ -n "${CASES:-}" ] || return 0
	# The globs are patterns, not file names: no expansion.
	case $- in *f*) cs_had_f=1 ;; *) cs_had_f=0 ;; esac
	set -f
	cs_found=1
	for cs_glob in $CASES; do
		# shellcheck disable=SC2254
		case $1 in $cs_glob) cs_found=0 ;; esac
	done
	[ $cs_had_f = 1 ] || set +f
	return $cs_found
}

# run_case NAME FUNCTION ARGS...: run FUNCTION ARGS in a subshell, in its
# own directory $WORK/NAME, and report it as one TAP result.  A case that
# CASES does not select does not run and is not counted.
run_case() {
	rc_name=$1
	shift
	case_selected "$rc_name" || return 0
	if [ "${CTRACE_TEST_LIST:-}" = yes ]; then
		echo "# case $rc_name"
		return 0
	fi
	rc_dir=$WORK/$rc_name
	[ ! -e "$rc_dir" ] || rm -rf "$rc_dir"
	mkdir -p "$rc_dir"
	# (bash counts the seconds itself: no date to run for every case)
	# shellcheck disable=SC3028
	rc_start=${BASH_VERSION:+$SECONDS}
	[ -n "$rc_start" ] || rc_start=$(date +%s)
	# (the CPU time of the case: the children's times before and after)
	times >"$rc_dir.cpu"
	(cd "$rc_dir" && "$@") >"$rc_dir.log" 2>&1 </dev/null
	rc_status=$?
	times >>"$rc_dir.cpu"
	# shellcheck disable=SC3028
	rc_end=${BASH_VERSION:+$SECONDS}
	[ -n "$rc_end" ] || rc_end=$(date +%s)
	rc_seconds=$((rc_end - rc_start))
	test_count=$((test_count + 1))
	case $rc_status in
	0)
		echo "ok $test_count - $rc_name"
		test_passed=$((test_passed + 1))
		;;
	77)
		echo "ok $test_count - $rc_name # SKIP $(tail -n 1 "$rc_dir.log")"
		test_skipped=$((test_skipped + 1))
		;;
	*)
		echo "not ok $test_count - $rc_name"
		sed -n -e '1,200s/^/# /p' "$rc_dir.log"
		test_failed=$((test_failed + 1))
		;;
	esac
	# where a script's time goes, for splitting it or making it cheaper
	# (`times': the shell's own, then its children's user and system
	# times, as 1m2.345s)
	rc_cpu=$(awk '{ for (i = 1; i <= 2; i++) {
			split($i, t, "m"); c[NR] += t[1] * 60 + t[2] } }
		END { printf "%.1f", c[4] - c[2] }' "$rc_dir.cpu")
	echo "# $rc_name took $rc_seconds s, CPU $rc_cpu s"
}

# tap_results STATUS NAME: read lines `ok NAME...', `FAIL NAME...' and
# `skip NAME: REASON' (the results of a program that reports its own
# cases, such as tests/values/run.py, which exited with STATUS) on stdin
# and print them as TAP results numbered after the cases run so far;
# other lines become `# ' comments.  A STATUS other than 0 or 77 with no
# failed result is one failed result NAME.  Counts the results for
# test_finish.
tap_results() {
	tr_status=$1
	tr_name=$2
	tr_out=$WORK/tap_results.$$
	awk -v n="$test_count" -v out="$tr_out" '
	/^ok / { n++; p++; sub(/^ok /, ""); print "ok " n " - " $0; next }
	/^FAIL / { n++; f++; sub(/^FAIL /, ""); print "not ok " n " - " $0; next }
	/^skip / {
		n++; s++; sub(/^skip /, "")
		name = $0; reason = $0
		sub(/:.*/, "", name); sub(/^[^:]*: */, "", reason)
		print "ok " n " - " name " # SKIP " reason
		next
	}
	{ print "# " $0 }
	END { print n, p + 0, f + 0, s + 0 > out }'
	read -r test_count tr_p tr_f tr_s <"$tr_out"
	rm -f "$tr_out"
	test_passed=$((test_passed + tr_p))
	test_failed=$((test_failed + tr_f))
	test_skipped=$((test_skipped + tr_s))
	case $tr_status in
	0 | 77) ;;
	*)
		if [ "$tr_f" -eq 0 ]; then
			test_count=$((test_count + 1))
			test_failed=$((test_failed + 1))
			echo "not ok $test_count - $tr_name (exit status $tr_status)"
		fi
		;;
	esac
}

# test_finish: the plan, a summary comment and the exit status.  A script
# that passed removes its scratch directory; a failed one keeps it for
# inspection.
test_finish() {
	# the script's time and CPU time (its own and its children's), which
	# make check-times lists (`times' in this shell: in a pipeline it
	# would count a subshell's)
	times >"$WORK/times"
	awk -v s=$(($(date +%s) - ${test_start:-0})) '
		{ for (i = 1; i <= 2; i++) {
			split($i, t, "m"); c += t[1] * 60 + t[2] } }
		END { printf "# script took %d s, CPU %.1f s\n", s, c }' \
		"$WORK/times"
	if [ "$test_count" -eq 0 ]; then
		echo "1..0 # SKIP no case${CASES:+ matches CASES='$CASES'}"
	else
		echo "1..$test_count"
	fi
	if [ "$test_skipped" -gt 0 ]; then
		echo "# $test_passed passed, $test_failed failed, $test_skipped skipped"
	else
		echo "# $test_passed passed, $test_failed failed"
	fi
	if [ "$test_failed" -gt 0 ]; then
		echo "# scratch files kept in $WORK"
		exit 1
	fi
	rm -rf "$WORK"
	rmdir "$top_builddir/tests/work" 2>/dev/null
	if [ "$test_passed" -eq 0 ]; then
		exit 77
	fi
	exit 0
}

# fail MESSAGE...: end the current case as failed.
fail() {
	echo "$*"
	exit 1
}

# skip REASON...: end the current case as skipped.
skip() {
	echo "$*"
	exit 77
}

# skip_script REASON: the whole script's prerequisite is missing.
skip_script() {
	echo "1..0 # SKIP $*"
	exit 77
}

need_python() {
	[ -n "$PYTHON3" ] || skip "python3 not found"
}

# ---------------------------------------------------------------------------
# Compiler configurations
# ---------------------------------------------------------------------------

# configs: the configurations every program is built in: compiler (cc is
# $CC, clang is $CLANG when found), optimization, PIE or not.  Setting
# CTRACE_TEST_CONFIGS narrows the list (e.g. "cc-O0-pie").
configs() {
	configs_all | configs_part
}

# matrix_full: true under the full matrix (CTRACE_TEST_MATRIX=full, make
# check-full), false under the quick one (make check).
matrix_full() {
	case ${CTRACE_TEST_MATRIX:-quick} in
	full) return 0 ;;
	quick | ci) return 1 ;;
	*)
		echo "CTRACE_TEST_MATRIX=$CTRACE_TEST_MATRIX: expected quick, ci or full" >&2
		exit 99
		;;
	esac
}

# in_matrix FULL QUICK: the words FULL under the full matrix, else QUICK
# (for a script's own loops: optimization levels, builds).
in_matrix() {
	if matrix_full; then echo "$1"; else echo "$2"; fi
}

# configs_all: as configs, whatever CTRACE_TEST_PART says.  The quick
# matrix: gcc -O2 PIE and clang -O0 non-PIE; the ci one adds gcc -O0
# non-PIE and clang -O2 PIE (each compiler at each level, PIE and not).
configs_all() {
	if [ -n "${CTRACE_TEST_CONFIGS:-}" ]; then
		echo "$CTRACE_TEST_CONFIGS"
		return
	fi
	for c in cc ${CLANG:+clang}; do
		for o in O0 O2; do
			for p in pie nopie; do
				case ${CTRACE_TEST_MATRIX:-quick}/$c-$o-$p in
				full/*) ;;
				*/cc-O2-pie | */clang-O0-nopie) ;;
				ci/cc-O0-nopie | ci/clang-O2-pie) ;;
				*) continue ;;
				esac
				echo "$c-$o-$p"
			done
		done
	done
}

# configs_m32: the i386 configurations a script adds to configs (library
# calls), none when CTRACE_TEST_CONFIGS names the list (which may name
# -m32 ones) or when 32-bit programs cannot be built (tests/m32.sh says
# why).  Each compiler once, as configs_all: gcc -O2 PIE under the quick
# matrix, clang -O0 non-PIE too under CI's, all of them under the full.
configs_m32() {
	[ -z "${CTRACE_TEST_CONFIGS:-}" ] || return 0
	[ "$HAVE_M32" = yes ] &&
		[ -f "$top_builddir/tests/m32/libctrace.a" ] || return 0
	for c in cc ${CLANG:+clang}; do
		for o in O0 O2; do
			for p in pie nopie; do
				case ${CTRACE_TEST_MATRIX:-quick}/$c-$o-$p in
				full/*) ;;
				*/cc-O2-pie) ;;
				ci/clang-O0-nopie) ;;
				*) continue ;;
				esac
				echo "$c-$o-$p-m32"
			done
		done
	done | configs_part
}

# configs_part: the configurations on stdin (one a line) that belong to
# part K of N when CTRACE_TEST_PART=K/N (the Kth, then every Nth after
# it), all of them when it is unset.  A long script split into parts, each
# a wrapper that sets CTRACE_TEST_PART and its own CTRACE_TEST_NAME (e.g.
# tests/trees-2.sh), runs in parallel under make -j; each configuration's
# binaries are built in one part only.
configs_part() {
	case ${CTRACE_TEST_PART:-} in
	'') cat ;;
	*/*)
		awk -v k="${CTRACE_TEST_PART%/*}" -v n="${CTRACE_TEST_PART#*/}" \
			'(NR - 1) % n == k - 1'
		;;
	*) fail "CTRACE_TEST_PART=$CTRACE_TEST_PART is not K/N" ;;
	esac
}

# configs_pie: as configs, PIE only (for programs where non-PIE adds
# nothing: shared libraries are position-independent anyway).
configs_pie() {
	configs_all | grep -e '-pie$' | configs_part
}

# use_config CONFIG: select the compiler and flags for build_c/build_cxx.
use_config() {
	cfg=$1
	case $cfg in
	cc-*)
		CUR_CC=$CC
		CUR_CXX=${CXX:-g++}
		;;
	clang-*)
		[ -n "$CLANG" ] || skip "clang not found"
		CUR_CC=$CLANG
		CUR_CXX="$CLANG --driver-mode=g++"
		;;
	*)
		fail "unknown configuration $cfg"
		;;
	esac
	case $cfg in
	*-O0-*) CUR_OPT=-O0 ;;
	*-O1-*) CUR_OPT=-O1 ;;
	*-O2-*) CUR_OPT=-O2 ;;
	*-O3-*) CUR_OPT=-O3 ;;
	*-Os-*) CUR_OPT=-Os ;;
	*) fail "unknown configuration $cfg" ;;
	esac
	case $cfg in
	*-nopie|*-nopie-m32) CUR_PIE='-fno-pie -no-pie' ;;
	*) CUR_PIE='-fpie -pie' ;;
	esac
	# A -m32 configuration links the 32-bit recorder tests/m32 builds.
	CUR_LIBDIR=$CTRACE_LIBDIR
	CUR_ARCH=
	case $cfg in
	*-m32)
		[ "$HAVE_M32" = yes ] || skip "$CC -m32 does not work"
		CUR_LIBDIR=$top_builddir/tests/m32
		CUR_ARCH=-m32
		;;
	esac
	# Which expected file applies when compilers legitimately differ
	# (clang --version costs 0.15 s of CPU: asked once a make check).
	remember "family-${cfg%%-*}" "$CUR_CC" compiler_family "$CUR_CC"
	CUR_FAMILY=$remembered
	# Binaries are shared by the cases of a script with the same config.
	BIN=$WORK/bin-$cfg
	mkdir -p "$BIN"
}

# compiler_family CC: clang or gcc, as CC says it is.
compiler_family() {
	if $1 --version 2>/dev/null | grep -qi clang; then
		echo clang
	else
		echo gcc
	fi
}

# The build cache.  Several scripts build the same program from the same
# sources with the same flags (fib.c, by six of them): the first keeps a
# copy in $BUILD_CACHE, under a key made of the kind of build, the
# compiler, the flags and the content of every file the build reads from
# the source tree or the recorder's build, and the others copy it.  A
# build that reads a file of a scratch directory (a library a case built,
# a generated source) is not shared.  `make check' empties the cache
# before the scripts run (tests/Makefile.inc): it never outlives the
# compilers and system headers its programs were built with.
# (BUILD_CACHE is set above.)  tests/oracle/compare.py keeps there the
# symbols it read of each program, by content, for the other scripts'
# copies.
CTRACE_TEST_SYMBOLS=$BUILD_CACHE/symbols
export CTRACE_TEST_SYMBOLS

# cache_key KIND ARGS...: set cache_dir to the cache entry of a build of
# KIND from ARGS in the current configuration (empty: not shared).
cache_key() {
	cache_dir=
	ck_kind=$1
	shift
	# (build_pair links the counting oracle too)
	ck_files="$CUR_LIBDIR/libctrace.a $CTRACE_INCDIR/*.h
		$top_srcdir/tests/oracle/counthook.c"
	for ck_arg in "$@"; do
		case $ck_arg in
		*"$WORK"*) return 0 ;;
		-I/*) ck_files="$ck_files ${ck_arg#-I}/*.h" ;;
		-*) ;;
		/*) ck_files="$ck_files $ck_arg ${ck_arg%/*}/*.h" ;;
		*) return 0 ;;
		esac
	done
	# shellcheck disable=SC2086
	ck_sum=$({ echo "$ck_kind|$*|$CUR_CC|$CUR_CXX|$CUR_OPT|$CUR_ARCH|$CUR_PIE"
		cat $ck_files; } 2>/dev/null | md5sum)
	cache_dir=$BUILD_CACHE/${ck_sum%% *}
}

# cache_fetch OUT SUFFIX...: copy the cache entry cache_key chose to OUT
# and OUT followed by each SUFFIX; false when it holds none.
cache_fetch() {
	[ -n "$cache_dir" ] && [ -d "$cache_dir" ] || return 1
	cf_out=$1
	shift
	for cf_suffix in '' "$@"; do
		cp "$cache_dir/out$cf_suffix" "$cf_out$cf_suffix.tmp" || return 1
	done
	for cf_suffix in "$@" ''; do
		mv "$cf_out$cf_suffix.tmp" "$cf_out$cf_suffix"
	done
}

# cache_store OUT SUFFIX...: keep OUT and OUT followed by each SUFFIX in
# the cache entry cache_key chose.
cache_store() {
	[ -n "$cache_dir" ] && [ ! -d "$cache_dir" ] || return 0
	cs_tmp=$cache_dir.$$
	mkdir -p "$cs_tmp" || return 0
	cs_out=$1
	shift
	cs_copied=yes
	for cs_suffix in '' "$@"; do
		cp "$cs_out$cs_suffix" "$cs_tmp/out$cs_suffix" ||
			{ cs_copied=no; break; }
	done
	# (another script may have stored the same entry meanwhile: mv -T
	# does not put this one inside it)
	[ $cs_copied = yes ] && mv -T "$cs_tmp" "$cache_dir" 2>/dev/null
	rm -rf "$cs_tmp"
}

# build_c NAME ARGS...: compile and link an instrumented C program
# $BIN/NAME from ARGS (sources and flags) with the recorder.  Does nothing
# when an earlier case already built it.
build_c() {
	bc_out=$BIN/$1
	shift
	[ -x "$bc_out" ] && return 0
	cache_key c "$@"
	cache_fetch "$bc_out" && return 0
	# shellcheck disable=SC2086
	$CUR_CC $CUR_OPT -g -finstrument-functions $CUR_ARCH $CUR_PIE \
		-I"$CTRACE_INCDIR" -o "$bc_out.tmp" "$@" \
		"$CUR_LIBDIR/libctrace.a" -pthread -ldl \
		>"$bc_out.cc-log" 2>&1 ||
		{ cat "$bc_out.cc-log"; fail "build of $bc_out failed"; }
	mv "$bc_out.tmp" "$bc_out"
	cache_store "$bc_out"
}

# build_cxx NAME ARGS...: the same for C++.
build_cxx() {
	bc_out=$BIN/$1
	shift
	[ -x "$bc_out" ] && return 0
	command -v "${CUR_CXX%% *}" >/dev/null 2>&1 ||
		skip "no C++ compiler (${CUR_CXX%% *})"
	cache_key cxx "$@"
	cache_fetch "$bc_out" && return 0
	# shellcheck disable=SC2086
	$CUR_CXX $CUR_OPT -g -finstrument-functions $CUR_ARCH $CUR_PIE \
		-I"$CTRACE_INCDIR" -o "$bc_out.tmp" "$@" \
		"$CUR_LIBDIR/libctrace.a" -pthread -ldl \
		>"$bc_out.cc-log" 2>&1 ||
		{ cat "$bc_out.cc-log"; fail "build of $bc_out failed"; }
	mv "$bc_out.tmp" "$bc_out"
	cache_store "$bc_out"
}

# build_pair c|cxx NAME ARGS...: compile ARGS once into one relocatable
# object $BIN/NAME.o and link it twice: $BIN/NAME with the recorder, and
# $BIN/NAME.oracle with the counting oracle (tests/oracle/counthook.c, not
# instrumented), so that both run the very same instrumented code
# (build_tee links a third).  ARGS are sources and compiler flags (no
# libraries).  Does nothing when already built.
build_pair() {
	bp_lang=$1
	bp_out=$BIN/$2
	shift 2
	[ -x "$bp_out" ] && [ -x "$bp_out.oracle" ] && return 0
	if [ "$bp_lang" = cxx ]; then
		command -v "${CUR_CXX%% *}" >/dev/null 2>&1 ||
			skip "no C++ compiler (${CUR_CXX%% *})"
		bp_cc=$CUR_CXX
	else
		bp_cc=$CUR_CC
	fi
	cache_key "pair-$bp_lang" "$@"
	cache_fetch "$bp_out" .o .oracle && return 0
	# The oracle's hooks are the same for every program of $BIN.
	# shellcheck disable=SC2086
	{ $bp_cc $CUR_OPT -g -finstrument-functions $CUR_ARCH \
		${CUR_PIE%% *} -I"$CTRACE_INCDIR" -nostdlib -r \
		-o "$bp_out.o" "$@" &&
	  { [ -f "$BIN/counthook.o" ] ||
	    $CUR_CC -O2 -g $CUR_ARCH ${CUR_PIE%% *} -c \
		-o "$BIN/counthook.o" "$top_srcdir/tests/oracle/counthook.c"; } &&
	  $bp_cc $CUR_ARCH $CUR_PIE -o "$bp_out.tmp" "$bp_out.o" \
		"$CUR_LIBDIR/libctrace.a" -pthread -ldl &&
	  $bp_cc $CUR_ARCH $CUR_PIE -o "$bp_out.oracle" "$bp_out.o" \
		"$BIN/counthook.o" -pthread -ldl; } >"$bp_out.cc-log" 2>&1 ||
		{ cat "$bp_out.cc-log"; fail "build of $bp_out failed"; }
	mv "$bp_out.tmp" "$bp_out"
	cache_store "$bp_out" .o .oracle
}

# build_tee c|cxx NAME: link $BIN/NAME.tee from the object that
# build_pair made (call it first) with both the oracle and the recorder,
# the oracle counting each call before the recorder records it
# (tests/oracle/tee.S).  Does nothing when already built.
build_tee() {
	bt_out=$BIN/$2
	[ -x "$bt_out.tee" ] && return 0
	[ -f "$bt_out.o" ] || fail "build_tee $2 before build_pair $2"
	bt_cc=$CUR_CC
	[ "$1" = cxx ] && bt_cc=$CUR_CXX
	# shellcheck disable=SC2086
	{ $CUR_CC -O2 -g $CUR_ARCH ${CUR_PIE%% *} -DCOUNTHOOK_TEE -c \
		-o "$BIN/counthook-tee.o" "$top_srcdir/tests/oracle/counthook.c" &&
	  $CUR_CC $CUR_ARCH -c -o "$BIN/tee.o" "$top_srcdir/tests/oracle/tee.S" &&
	  objcopy --redefine-sym __cyg_profile_func_enter=tee_next_enter \
		--redefine-sym __cyg_profile_func_exit=tee_next_exit \
		"$CUR_LIBDIR/libctrace.a" "$BIN/libctrace-tee.a" &&
	  $bt_cc $CUR_ARCH $CUR_PIE -o "$bt_out.tee.tmp" "$bt_out.o" \
		"$BIN/tee.o" "$BIN/counthook-tee.o" "$BIN/libctrace-tee.a" \
		-pthread -ldl; } >"$bt_out.tee.cc-log" 2>&1 ||
		{ cat "$bt_out.tee.cc-log"; fail "build of $bt_out.tee failed"; }
	mv "$bt_out.tee.tmp" "$bt_out.tee"
}

# build_shlib NAME SOURCE...: an instrumented shared library $BIN/NAME.
build_shlib() {
	bs_out=$BIN/$1
	shift
	[ -f "$bs_out" ] && return 0
	cache_key shlib "$@"
	cache_fetch "$bs_out" && return 0
	# shellcheck disable=SC2086
	$CUR_CC $CUR_OPT -g -finstrument-functions $CUR_ARCH -fPIC -shared \
		-o "$bs_out.tmp" "$@" >"$bs_out.cc-log" 2>&1 ||
		{ cat "$bs_out.cc-log"; fail "build of $bs_out failed"; }
	mv "$bs_out.tmp" "$bs_out"
	cache_store "$bs_out"
}

# build_plain c|cxx NAME SOURCE [FLAGS...]: an uninstrumented shared
# library $BIN/NAME (FLAGS after the configuration's).
build_plain() {
	bp_cc=$CUR_CC
	if [ "$1" = cxx ]; then
		command -v "${CUR_CXX%% *}" >/dev/null 2>&1 ||
			skip "no C++ compiler (${CUR_CXX%% *})"
		bp_cc=$CUR_CXX
	fi
	bp_lib=$BIN/$2
	shift 2
	[ -f "$bp_lib" ] && return 0
	# shellcheck disable=SC2086
	$bp_cc $CUR_OPT $CUR_ARCH -fPIC -shared -o "$bp_lib.tmp" "$@" \
		>"$bp_lib.cc-log" 2>&1 ||
		{ cat "$bp_lib.cc-log"; fail "build of $bp_lib failed"; }
	mv "$bp_lib.tmp" "$bp_lib"
}

# build_tail_plain c|cxx NAME SOURCE: build_plain at -O2 of a library
# whose tail_apply ends in a jump to the program's tail_target (a tail call
# through its PLT), checked in its code.
build_tail_plain() {
	build_plain "$1" "$2" "$3" -O2
	objdump -d "$BIN/$2" | awk '/<tail_apply>:/,/^$/' >tail.s
	grep -q 'jmp.*tail_target' tail.s ||
		fail "$2's tail_apply does not jump to tail_target"
}

# ---------------------------------------------------------------------------
# Running programs and the symbolizer
# ---------------------------------------------------------------------------

# run_traced TRACE PROGRAM ARGS...: run PROGRAM with its trace written to
# TRACE; its stdout goes to TRACE.out, its stderr to TRACE.err.  Fails
# unless it exits with status $EXPECT_STATUS (default 0), or when the
# recorder warned about anything.
run_traced() {
	rt_trace=$1
	shift
	rm -f "$rt_trace"
	CTRACE_OUTPUT=$rt_trace "$@" >"$rt_trace.out" 2>"$rt_trace.err"
	rt_status=$?
	if [ "$rt_status" -ne "${EXPECT_STATUS:-0}" ]; then
		cat "$rt_trace.out" "$rt_trace.err"
		fail "$* exited with status $rt_status, expected ${EXPECT_STATUS:-0}"
	fi
	if grep -q '^ctrace:' "$rt_trace.err"; then
		cat "$rt_trace.err"
		fail "the recorder printed warnings"
	fi
	[ -f "$rt_trace" ] || fail "$* wrote no trace $rt_trace"
}

# oracle_check [--counts-only] TRACE PROGRAM ARGS...: run PROGRAM.oracle
# (see build_pair) with ARGS and require TRACE, written by PROGRAM with the
# same ARGS, to show the same calls per function and the same sum of their
# depths (--counts-only: the calls only, for programs that longjmp, throw
# or switch stacks, whose depths the counting hooks cannot follow).
oracle_check() {
	oc_opt=
	[ "$1" = --counts-only ] && { oc_opt=$1; shift; }
	oc_trace=$1
	oc_prog=$2
	shift 2
	need_python
	rm -f "$oc_trace.counts" "$oc_trace.counts".*
	CTRACE_ORACLE_OUT=$oc_trace.counts "$oc_prog.oracle" "$@" \
		>"$oc_trace.oracle-stdout" 2>&1 ||
		{ cat "$oc_trace.oracle-stdout"; fail "$oc_prog.oracle failed"; }
	compare_counts "$oc_opt" "$oc_trace" "$oc_prog" "$oc_prog.oracle"
}

# compare_counts OPT TRACE PROGRAM ORACLE_PROGRAM: TRACE (of PROGRAM)
# against the counts TRACE.counts* that ORACLE_PROGRAM wrote (OPT:
# --counts-only or empty).
compare_counts() {
	symbolize "$2.json" -f json --demangle=none "$2"
	# shellcheck disable=SC2086
	"$PYTHON3" -S "$top_srcdir/tests/oracle/compare.py" $1 "$3" "$4" \
		"$2.json" "$2.counts"* >"$2.compare" 2>&1 ||
		{ cat "$2.compare"; fail "$2: calls differ from the oracle"; }
	cat "$2.compare"
}

# same_run_check [--counts-only] TRACE PROGRAM ARGS...: run PROGRAM.tee (see
# build_tee) with ARGS, its trace written to TRACE, and require the trace
# to show the calls per function (and the sum of their depths, unless
# --counts-only) that the oracle counted in that same run.  For programs
# whose calls depend on timing, which another run would not make alike.
same_run_check() {
	sr_opt=
	[ "$1" = --counts-only ] && { sr_opt=$1; shift; }
	sr_trace=$1
	sr_prog=$2
	shift 2
	need_python
	[ -x "$sr_prog.tee" ] || fail "no $sr_prog.tee: build_tee first"
	rm -f "$sr_trace.counts" "$sr_trace.counts".*
	CTRACE_ORACLE_OUT=$sr_trace.counts
	export CTRACE_ORACLE_OUT
	run_traced "$sr_trace" "$sr_prog.tee" "$@"
	unset CTRACE_ORACLE_OUT
	compare_counts "$sr_opt" "$sr_trace" "$sr_prog.tee" "$sr_prog.tee"
}

# symbolize OUTPUT ARGS...: run the symbolizer with ARGS, stdout to OUTPUT,
# stderr to OUTPUT.err.  Fails unless it exits with 0 and prints nothing on
# stderr.
symbolize() {
	sy_out=$1
	shift
	"$CTRACE_SYMBOLIZE" "$@" >"$sy_out" 2>"$sy_out.err"
	sy_status=$?
	if [ "$sy_status" -ne 0 ] || [ -s "$sy_out.err" ]; then
		sed -n '1,40p' "$sy_out.err"
		fail "ctrace-symbolize $* exited with status $sy_status"
	fi
}

# symbolize_stable OUTPUT TRACE [ARGS...]: the tree with stable options.
symbolize_stable() {
	ss_out=$1
	shift
	# shellcheck disable=SC2086
	symbolize "$ss_out" $STABLE_OPTS "$@"
	stable_pids "$ss_out"
}

# stable_pids FILE: the pids of the notes that start a child process's
# calls in a tree (`/* ctrace: process 42 (prog), forked by process 41 */')
# read PID, so that the tree compares with an expected one.
stable_pids() {
	LC_ALL=C sed -e '/\/\* ctrace: process [0-9]/{' \
	    -e 's/ctrace: process [0-9]*/ctrace: process PID/' \
	    -e 's/ by process [0-9]*/ by process PID/' -e '}' "$1" >"$1.pids" &&
		mv "$1.pids" "$1"
}

# tree_case CONFIG NAME PROGRAM [ARGS...]: PROGRAM's tree must be
# expected/NAME.tree, and its calls the counting oracle's (only their
# number when ORACLE_OPT=--counts-only).
tree_case() {
	use_config "$1"
	name=$2
	prog=$3
	shift 3
	build_pair c "$prog" "$PROGS/$prog.c"
	run_traced trace.bin "$BIN/$prog" "$@"
	symbolize_stable tree trace.bin
	compare "$(expected "$name")" tree
	check_tree tree
	# shellcheck disable=SC2086
	oracle_check ${ORACLE_OPT:-} trace.bin "$BIN/$prog" "$@"
}

# expected NAME: the expected file tests/expected/NAME.tree, or its
# variant for the current compiler family and optimization level
# (NAME.clang-O2.tree) or compiler family (NAME.clang.tree) when there is
# one.
expected() {
	if [ -f "$EXPECTED/$1.$CUR_FAMILY$CUR_OPT.tree" ]; then
		echo "$EXPECTED/$1.$CUR_FAMILY$CUR_OPT.tree"
	elif [ -f "$EXPECTED/$1.$CUR_FAMILY.tree" ]; then
		echo "$EXPECTED/$1.$CUR_FAMILY.tree"
	else
		echo "$EXPECTED/$1.tree"
	fi
}

# compare EXPECTED ACTUAL: fail with a unified diff when they differ.
compare() {
	if ! diff -u "$1" "$2" >"$2.diff" 2>&1; then
		cat "$2.diff"
		fail "$2 differs from $1"
	fi
}

# check_tree TREE [DURATIONS]: fail unless TREE is a well-formed call tree
# (every entry closed, names matching, depths consistent); DURATIONS=1
# also checks the duration column.  Prints the counts it found.
check_tree() {
	awk -v durations="${2:-0}" -f "$top_srcdir/tests/tree-check.awk" "$1" ||
		fail "$1 is not a well-formed call tree"
}

# The duration and thread columns of a tree line, as a sed pattern.  The
# helpers below read trees of a million lines: they run sed and grep in
# the C locale, several times faster than in a UTF-8 one, and byte for
# byte whatever bytes the names hold.
TREE_COLUMNS='^.\{10\} \[ *[0-9/]*\] | '

# tree_text TREE: the function column of TREE, indentation kept.
tree_text() {
	LC_ALL=C sed -e '/^#/d' -e "s/$TREE_COLUMNS//" "$1"
}

# call_depths TREE: "DEPTH NAME" for each call (entry or leaf line) of
# TREE, in order.
call_depths() {
	tree_text "$1" | awk '!/^ *}/ && !/^ *\/\*/ {
		n = match($0, /[^ ]/)
		name = substr($0, n)
		sub(/\(.*$/, "", name)
		print (n - 1) / 2, name
	}'
}

# calls_of TREE NAME: number of calls of NAME in TREE (entry and leaf
# lines, at any depth).
calls_of() {
	# grep -F keeps the lines that may be such calls, fast
	LC_ALL=C grep -F -e "$2() {" -e "$2();" "$1" |
		LC_ALL=C sed -e '/^#/d' -e "s/$TREE_COLUMNS//" -e 's/^ *//' |
		LC_ALL=C grep -c -F -x -e "$2() {" -e "$2();"
}

# random_between LOW HIGH: a pseudo-random integer in [LOW, HIGH].
random_between() {
	od -An -N2 -tu2 /dev/urandom |
		awk -v lo="$1" -v hi="$2" '{ print lo + $1 % (hi - lo + 1) }'
}

# line_of FILE MARKER: the line number of the line of FILE that holds the
# comment /* MARKER */.
line_of() {
	lo_line=$(grep -n -F "/* $2 */" "$1" | cut -d: -f1)
	[ -n "$lo_line" ] || fail "marker $2 not found in $1"
	echo "$lo_line"
}
