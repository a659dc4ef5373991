#!/bin/sh
# run-fuzz.sh -- builds the symbolizer's fuzz targets and runs each.
#
#	fuzz/run-fuzz.sh SECONDS
#
# Run from the build tree (make fuzz does: FUZZ_SECONDS, default 300, for
# each target).  The environment gives the tools: CLANG, CC, top_srcdir,
# SYMBOLIZE_SOURCES (the sources of libsymbolize.a, relative to
# top_srcdir, as symbolizer/Makefile.inc lists them), LIBS (the
# symbolizer's libraries).  Without clang or its libFuzzer runtime the run
# is skipped, with the reason, and the script exits 0.
#
# The sources are built with the fuzzer's flags into
# fuzz/work/libsymbolize.a, which each target links: the linker takes
# from it only what the target needs.  fuzz_trace gives the resolver none
# of the trace's modules, so that it opens no path a fuzzed trace names.
#
# fuzz_trace starts from the seed corpus fuzz/corpus (real traces) plus
# what earlier runs found (fuzz/work/corpus in the build tree); fuzz_elf
# from test programs built here (fuzz/work/elf-seeds) plus what earlier
# runs found (fuzz/work/elf-corpus).  An input that crashes a target,
# hangs it or makes it allocate without bound is written to fuzz/work/ as
# TARGET-crash-*, -timeout-*, -oom-* or -leak-*; the script then exits 1.
# Fix the bug, then keep the input as a regression test: a trace in
# tests/reliability/crashers/ (tests/reliability/crashers.sh replays every
# file there), a binary in tests/reliability/crashers/elf/ (replayed by
# tests/hostile.sh).
set -u

seconds=${1:-300}
: "${top_srcdir:?}"
: "${SYMBOLIZE_SOURCES:?}"
: "${CLANG:=}"
: "${LIBS:=-lbfd -ldw -lelf -liberty -lz}"

skip() {
	echo "fuzz: skipped: $*"
	exit 0
}

[ -n "$CLANG" ] || skip "clang not found (configure looks for it)"
mkdir -p fuzz/work/corpus || exit 1

src=$top_srcdir/symbolizer
FUZZ_CFLAGS="-g -O1 -std=gnu11 -DHAVE_CONFIG_H -I. -I$top_srcdir/include -I$top_srcdir/common -I$src
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all"

# no_fuzzer_runtime: skip the run when the build log says that clang has
# no libFuzzer runtime.
no_fuzzer_runtime() {
	if grep -q -e 'libclang_rt.fuzzer' -e 'fsanitize=fuzzer' \
		fuzz/work/build.log; then
		skip "$CLANG has no libFuzzer runtime" \
			"(Debian: libclang-rt-dev)"
	fi
}

# libsymbolize.a's sources with the fuzzer's flags (-fsanitize=fuzzer
# builds objects without a main: libFuzzer's comes at the link).
echo "fuzz: building fuzz/work/libsymbolize.a with $CLANG"
rm -rf fuzz/work/obj fuzz/work/libsymbolize.a
mkdir -p fuzz/work/obj || exit 1
: >fuzz/work/build.log
for f in $SYMBOLIZE_SOURCES; do
	case $f in *.c) ;; *) continue ;; esac
	o=fuzz/work/obj/$(basename "$f" .c).o
	# shellcheck disable=SC2086
	$CLANG $FUZZ_CFLAGS -c -o "$o" "$top_srcdir/$f" \
		>>fuzz/work/build.log 2>&1 || {
		no_fuzzer_runtime
		cat fuzz/work/build.log
		echo "fuzz: $f does not build"
		exit 1
	}
done
ar cr fuzz/work/libsymbolize.a fuzz/work/obj/*.o || exit 1

# build NAME SOURCES...: fuzz/NAME, or exit (skipped or failed).
build() {
	name=$1
	shift
	echo "fuzz: building fuzz/$name with $CLANG"
	# shellcheck disable=SC2086
	if ! $CLANG $FUZZ_CFLAGS -o "fuzz/$name" "$@" \
		fuzz/work/libsymbolize.a $LIBS >fuzz/work/build.log 2>&1
	then
		no_fuzzer_runtime
		cat fuzz/work/build.log
		echo "fuzz: fuzz/$name does not build"
		exit 1
	fi
}

# run NAME CORPUS...: NAME for $seconds s, from its corpus directories
# (the first one gets what it finds).
failed=0
run() {
	name=$1
	shift
	echo "fuzz: running fuzz/$name for $seconds s"
	# -close_fd_mask=2: the symbolizer's messages about damaged input
	# would drown libFuzzer's own output (its reports still show).
	ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 \
	LSAN_OPTIONS=suppressions=$top_srcdir/fuzz/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1 \
		"./fuzz/$name" -max_total_time="$seconds" -max_len=70000 \
		-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
		-close_fd_mask=2 -print_final_stats=1 \
		-artifact_prefix="fuzz/work/$name-" "$@" \
		>"fuzz/work/$name.log" 2>&1
	status=$?
	grep '^stat::' "fuzz/work/$name.log"
	if [ $status -ne 0 ]; then
		grep -v '^#' "fuzz/work/$name.log" | tail -n 60
		echo "fuzz: fuzz/$name FAILED; the input is in fuzz/work/:"
		ls fuzz/work/ | grep -e "^$name-"
		failed=1
	fi
}

# The trace target: every format and filter on the seed traces.
build fuzz_trace "$top_srcdir/fuzz/fuzz_trace.c"

# The binary target: the real resolver, libdw and the plan maker (with
# libbfd) on binaries built from the test programs, byte-flipped.
build fuzz_elf "$top_srcdir/fuzz/fuzz_elf.c"
mkdir -p fuzz/work/elf-corpus fuzz/work/elf-seeds
for prog in fib inline; do
	${CC:-cc} -g -O0 -o "fuzz/work/elf-seeds/$prog-O0" \
		"$top_srcdir/tests/progs/$prog.c" 2>/dev/null
	$CLANG -g -O2 -o "fuzz/work/elf-seeds/$prog-clang-O2" \
		"$top_srcdir/tests/progs/$prog.c" 2>/dev/null
done

run fuzz_trace fuzz/work/corpus "$top_srcdir/fuzz/corpus"
run fuzz_elf fuzz/work/elf-corpus fuzz/work/elf-seeds
if [ $failed -ne 0 ]; then
	echo "fuzz: fix the bug, then keep the input as a regression test"
	exit 1
fi
echo "fuzz: no problem found"
