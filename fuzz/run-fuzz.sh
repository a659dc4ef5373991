#!/bin/sh
# run-fuzz.sh -- builds the symbolizer's fuzz targets and runs each.
#
#	fuzz/run-fuzz.sh SECONDS
#
# Run from the build tree (make fuzz does: FUZZ_SECONDS, default 300, for
# each target).  The environment gives the tools: CLANG, CC, top_srcdir,
# LIBS (the symbolizer's libraries but libbfd), BFD_LIBS.  Without clang or
# its libFuzzer runtime the run is skipped, with the reason, and the
# script exits 0.
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
: "${CLANG:=}"
: "${LIBS:=-ldw -lelf -liberty -lz}"

skip() {
	echo "fuzz: skipped: $*"
	exit 0
}

[ -n "$CLANG" ] || skip "clang not found (configure looks for it)"
mkdir -p fuzz/work/corpus || exit 1

# The symbolizer's sources but main.c (the target has its own entry),
# resolve.c, debuginfo.c, elfinfo.c (the stub resolver stands in for
# them) and plan.c (capture plans, not read from traces).
src=$top_srcdir/symbolizer
sources=
for f in reader meta stream symtab calls replay out_tree out_json aggregate \
	out_report out_dot out_chrome out_folded out_flamegraph filter inputs \
	json_header progress outbuf escape util pool strmap values dwinfo prologue \
	elfinfo; do
	sources="$sources $src/$f.c"
done

# build NAME SOURCES...: fuzz/NAME, or exit (skipped or failed).
build() {
	name=$1
	shift
	echo "fuzz: building fuzz/$name with $CLANG"
	# shellcheck disable=SC2086
	if ! $CLANG -g -O1 -std=gnu11 -DHAVE_CONFIG_H -I. \
		-I"$top_srcdir/include" -I"$src" \
		-fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -o "fuzz/$name" "$@" \
		$LIBS >fuzz/work/build.log 2>&1
	then
		if grep -q -e 'libclang_rt.fuzzer' -e 'fsanitize=fuzzer' \
			fuzz/work/build.log; then
			skip "$CLANG has no libFuzzer runtime" \
				"(Debian: libclang-rt-dev)"
		fi
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
build fuzz_trace "$top_srcdir/fuzz/fuzz_trace.c" \
	"$top_srcdir/fuzz/stub_resolve.c" $sources

# The binary target: the real resolver, libdw and the plan maker (with
# libbfd) on binaries built from the test programs, byte-flipped.
elf_sources=
for f in resolve debuginfo elfinfo pool strmap dwinfo prologue plan values util \
	outbuf escape outfile; do
	elf_sources="$elf_sources $src/$f.c"
done
LIBS="$LIBS $BFD_LIBS" build fuzz_elf "$top_srcdir/fuzz/fuzz_elf.c" \
	$elf_sources
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
