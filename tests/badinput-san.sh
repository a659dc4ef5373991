#!/bin/sh
# badinput-san.sh -- badinput.sh with the symbolizer built with
# AddressSanitizer and UBSan (tests/ctrace-symbolize-san).

. "$(dirname "$0")/lib.sh"

[ "$HAVE_SANITIZERS" = yes ] || skip_script "no sanitizers"
san=$top_builddir/tests/ctrace-symbolize-san
[ -x "$san" ] || skip_script "$san not built"

# A sanitizer report must not pass for the exit status 1 of damaged
# input.  LeakSanitizer does not work everywhere (under ptrace, in some
# containers): check it on the empty input first.
# libbfd's own leak is suppressed (tests/lsan.supp), which needs the
# slow unwinder to see past libbfd's frames.
ASAN_OPTIONS=detect_leaks=1:exitcode=86:abort_on_error=0:fast_unwind_on_malloc=0
LSAN_OPTIONS=suppressions=$tests_srcdir/lsan.supp:print_suppressions=0
UBSAN_OPTIONS=halt_on_error=1:exitcode=87:print_stacktrace=1
export ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS
if "$san" --version 2>&1 | grep -q 'LeakSanitizer has encountered a fatal'
then
	ASAN_OPTIONS=detect_leaks=0:exitcode=86:abort_on_error=0
fi

CTRACE_SYMBOLIZE=$san
CTRACE_TEST_NAME=badinput-san
# Fewer damaged copies, fewer leak checks: the sanitized symbolizer is
# slower.
FUZZ_OPTS='--scale 0.6 --leak-check-every 4'
export CTRACE_SYMBOLIZE CTRACE_TEST_NAME FUZZ_OPTS
exec ${CONFIG_SHELL:-/bin/sh} "$tests_srcdir/badinput.sh"
