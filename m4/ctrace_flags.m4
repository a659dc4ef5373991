# ctrace_flags.m4 -- compiler flags: language level, warnings, sanitizers.
#
# Flags go into substituted variables (STD_CFLAGS, WARN_CFLAGS,
# SANITIZE_CFLAGS, SANITIZE_LDFLAGS) rather than CFLAGS, so configure's own
# test programs never see -Werror and the user's CFLAGS stay theirs.

# CTRACE_STD_C11
# --------------
# The sources are C11 with GNU extensions.  Sets STD_CFLAGS.
AC_DEFUN([CTRACE_STD_C11], [
AC_CACHE_CHECK([whether $CC accepts -std=gnu11], [ctrace_cv_cc_gnu11], [
  ctrace_save_CFLAGS=$CFLAGS
  CFLAGS="$CFLAGS -std=gnu11"
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[
#include <stdalign.h>
#include <stdatomic.h>
_Static_assert (sizeof (char) == 1, "C11");
static _Atomic int counter;
]], [[atomic_fetch_add (&counter, 1); return (int) alignof (long) == 0;]])],
    [ctrace_cv_cc_gnu11=yes], [ctrace_cv_cc_gnu11=no])
  CFLAGS=$ctrace_save_CFLAGS
])
AS_IF([test "x$ctrace_cv_cc_gnu11" != xyes],
  [AC_MSG_ERROR([$CC does not compile C11 with -std=gnu11: install a newer gcc (apt-get install build-essential)])])
STD_CFLAGS=-std=gnu11
AC_SUBST([STD_CFLAGS])
])

# CTRACE_WARNINGS
# ---------------
# -Wall -Wextra always; --enable-werror turns them into errors (CI does).
# Sets WARN_CFLAGS.
AC_DEFUN([CTRACE_WARNINGS], [
AC_ARG_ENABLE([werror],
  [AS_HELP_STRING([--enable-werror], [treat compiler warnings as errors])],
  [], [enable_werror=no])
WARN_CFLAGS="-Wall -Wextra"
AS_IF([test "x$enable_werror" = xyes], [WARN_CFLAGS="$WARN_CFLAGS -Werror"])
AC_SUBST([WARN_CFLAGS])
])

# CTRACE_CHECK_SANITIZERS
# -----------------------
# Whether programs build and run with AddressSanitizer and UBSan.  Running
# matters too: some containers forbid what the ASan runtime needs at start.
# Sets SANITIZE_CFLAGS, SANITIZE_LDFLAGS and the conditional HAVE_SANITIZERS.
AC_DEFUN([CTRACE_CHECK_SANITIZERS], [
AC_CACHE_CHECK([whether $CC supports -fsanitize=address,undefined],
  [ctrace_cv_cc_sanitizers], [
  ctrace_save_CFLAGS=$CFLAGS
  ctrace_save_LDFLAGS=$LDFLAGS
  CFLAGS="$CFLAGS -fsanitize=address,undefined"
  LDFLAGS="$LDFLAGS -fsanitize=address,undefined"
  AC_RUN_IFELSE([AC_LANG_PROGRAM([[#include <stdlib.h>]],
      [[char *p = malloc (4); p[0] = 1; free (p);]])],
    [ctrace_cv_cc_sanitizers=yes], [ctrace_cv_cc_sanitizers=no],
    [AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])],
      [ctrace_cv_cc_sanitizers=yes], [ctrace_cv_cc_sanitizers=no])])
  CFLAGS=$ctrace_save_CFLAGS
  LDFLAGS=$ctrace_save_LDFLAGS
])
AS_IF([test "x$ctrace_cv_cc_sanitizers" = xyes], [
  SANITIZE_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
  SANITIZE_LDFLAGS="-fsanitize=address,undefined"
  HAVE_SANITIZERS=yes
], [
  SANITIZE_CFLAGS=
  SANITIZE_LDFLAGS=
  HAVE_SANITIZERS=no
])
AC_SUBST([SANITIZE_CFLAGS])
AC_SUBST([SANITIZE_LDFLAGS])
AC_SUBST([HAVE_SANITIZERS])
AM_CONDITIONAL([HAVE_SANITIZERS], [test "x$HAVE_SANITIZERS" = xyes])
])

# CTRACE_RECORDER_PLT: how the recorder calls libc (RECORDER_PLT_CFLAGS).
# On x86-64 through GOT slots (-fno-plt), which plt.c tells apart from
# the program's by the code around them.  On i386 a GOT slot is named by
# a disp32 from any register, as stack slots are from ebp: the recorder
# calls through the PLT, so that the functions it shares with the
# program stay JUMP_SLOTs (with -fno-plt they would all become GLOB_DAT
# slots, and a stack offset equal to one's keep it from being seen).
AC_DEFUN([CTRACE_RECORDER_PLT], [
  AC_MSG_CHECKING([how the recorder calls libc])
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[
#ifndef __i386__
#error not i386
#endif
]])], [RECORDER_PLT_CFLAGS=-fplt], [RECORDER_PLT_CFLAGS=-fno-plt])
  AC_MSG_RESULT([$RECORDER_PLT_CFLAGS])
  AC_SUBST([RECORDER_PLT_CFLAGS])
])
