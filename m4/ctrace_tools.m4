# ctrace_tools.m4 -- optional programs the test suite uses when present.
#
# None of these is needed to build ctrace.  Tests that need a missing tool
# skip themselves (exit 77); the variables are empty when a tool is absent
# and the HAVE_* conditionals let fragments leave such tests out entirely.

# CTRACE_CHECK_M32
# ----------------
# Whether $CC builds and runs 32-bit x86 programs (gcc-multilib on Debian),
# for the i386 recorder tests.  Sets HAVE_M32 to yes or no.
AC_DEFUN([CTRACE_CHECK_M32], [
AC_CACHE_CHECK([whether $CC -m32 builds programs], [ctrace_cv_cc_m32], [
  ctrace_save_CFLAGS=$CFLAGS
  ctrace_save_LDFLAGS=$LDFLAGS
  CFLAGS="$CFLAGS -m32"
  LDFLAGS="$LDFLAGS -m32"
  AC_RUN_IFELSE([AC_LANG_PROGRAM([[
#include <pthread.h>
#include <stdio.h>
]], [[return sizeof (void *) != 4 || pthread_self () == 0;]])],
    [ctrace_cv_cc_m32=yes], [ctrace_cv_cc_m32=no], [ctrace_cv_cc_m32=no])
  CFLAGS=$ctrace_save_CFLAGS
  LDFLAGS=$ctrace_save_LDFLAGS
])
HAVE_M32=$ctrace_cv_cc_m32
AC_SUBST([HAVE_M32])
AM_CONDITIONAL([HAVE_M32], [test "x$HAVE_M32" = xyes])
])

# CTRACE_CHECK_TEST_TOOLS
# -----------------------
# clang (a second compiler for the recorder), python3 and jq (checking
# JSON output), uftrace (comparing call trees), dot (graphviz).
AC_DEFUN([CTRACE_CHECK_TEST_TOOLS], [
AC_CHECK_PROGS([CLANG], [clang])
AC_CHECK_PROGS([PYTHON3], [python3])
AC_CHECK_PROGS([JQ], [jq])
AC_CHECK_PROGS([UFTRACE], [uftrace])
AC_CHECK_PROGS([DOT], [dot])
AM_CONDITIONAL([HAVE_CLANG], [test -n "$CLANG"])
AM_CONDITIONAL([HAVE_PYTHON3], [test -n "$PYTHON3"])
AM_CONDITIONAL([HAVE_JQ], [test -n "$JQ"])
AM_CONDITIONAL([HAVE_UFTRACE], [test -n "$UFTRACE"])
AM_CONDITIONAL([HAVE_DOT], [test -n "$DOT"])
])
