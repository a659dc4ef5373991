# ctrace_libs.m4 -- checks for the libraries the symbolizer links with.
#
# Each required check looks for the header and then links a call into the
# library, because Debian splits headers (-dev packages) from the shared
# objects and either half can be missing.  A failure names the Debian
# package to install rather than leaving the user to guess from config.log.

# CTRACE_CHECK_BFD
# ----------------
# libbfd reads ELF symbol tables and DWARF line tables.  bfd.h refuses to
# compile unless the including program defines PACKAGE first (config.h does
# that for the real sources; confdefs.h does it here).  Sets BFD_LIBS.
AC_DEFUN([CTRACE_CHECK_BFD], [
AC_CACHE_CHECK([for bfd.h], [ctrace_cv_header_bfd_h], [
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[
#ifndef PACKAGE
# define PACKAGE "ctrace"
#endif
#include <bfd.h>
]], [[bfd *abfd = 0; (void) abfd;]])],
    [ctrace_cv_header_bfd_h=yes], [ctrace_cv_header_bfd_h=no])
])
AS_IF([test "x$ctrace_cv_header_bfd_h" != xyes],
  [AC_MSG_ERROR([bfd.h not found: install binutils-dev (apt-get install binutils-dev)])])
AC_CACHE_CHECK([for libbfd], [ctrace_cv_lib_bfd], [
  ctrace_save_LIBS=$LIBS
  ctrace_cv_lib_bfd=no
  # Debian ships a shared libbfd; other systems may only have the static
  # archive, which needs libiberty, libsframe and zlib after it.
  for ctrace_libs in "-lbfd" "-lbfd -liberty -lz" "-lbfd -lsframe -liberty -lz"; do
    LIBS="$ctrace_libs $ctrace_save_LIBS"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[
#ifndef PACKAGE
# define PACKAGE "ctrace"
#endif
#include <bfd.h>
]], [[bfd_init ();]])],
      [ctrace_cv_lib_bfd=$ctrace_libs; break])
  done
  LIBS=$ctrace_save_LIBS
])
AS_IF([test "x$ctrace_cv_lib_bfd" = xno],
  [AC_MSG_ERROR([libbfd cannot be linked: install binutils-dev (apt-get install binutils-dev)])])
BFD_LIBS=$ctrace_cv_lib_bfd
AC_SUBST([BFD_LIBS])
])

# CTRACE_CHECK_LIBIBERTY
# ----------------------
# libiberty's demangler (cplus_demangle) turns C++ symbols into names.
# Sets IBERTY_LIBS.
AC_DEFUN([CTRACE_CHECK_LIBIBERTY], [
AC_CHECK_HEADER([libiberty/demangle.h], [],
  [AC_MSG_ERROR([libiberty/demangle.h not found: install libiberty-dev (apt-get install libiberty-dev)])])
AC_CACHE_CHECK([for libiberty], [ctrace_cv_lib_iberty], [
  ctrace_save_LIBS=$LIBS
  LIBS="-liberty $LIBS"
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[
#include <stdlib.h>
#include <libiberty/demangle.h>
]], [[free (cplus_demangle ("_Z1fv", DMGL_PARAMS | DMGL_ANSI));]])],
    [ctrace_cv_lib_iberty=yes], [ctrace_cv_lib_iberty=no])
  LIBS=$ctrace_save_LIBS
])
AS_IF([test "x$ctrace_cv_lib_iberty" != xyes],
  [AC_MSG_ERROR([libiberty cannot be linked: install libiberty-dev (apt-get install libiberty-dev)])])
IBERTY_LIBS=-liberty
AC_SUBST([IBERTY_LIBS])
])

# CTRACE_CHECK_ZLIB
# -----------------
# zlib decompresses compressed debug sections and compresses the tui's
# sidecar.  Sets ZLIB_LIBS.
AC_DEFUN([CTRACE_CHECK_ZLIB], [
AC_CHECK_HEADER([zlib.h], [],
  [AC_MSG_ERROR([zlib.h not found: install zlib1g-dev (apt-get install zlib1g-dev)])])
AC_CACHE_CHECK([for zlib], [ctrace_cv_lib_z], [
  ctrace_save_LIBS=$LIBS
  LIBS="-lz $LIBS"
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <zlib.h>]],
      [[z_stream s = {0}; return inflateInit (&s);]])],
    [ctrace_cv_lib_z=yes], [ctrace_cv_lib_z=no])
  LIBS=$ctrace_save_LIBS
])
AS_IF([test "x$ctrace_cv_lib_z" != xyes],
  [AC_MSG_ERROR([zlib cannot be linked: install zlib1g-dev (apt-get install zlib1g-dev)])])
ZLIB_LIBS=-lz
AC_SUBST([ZLIB_LIBS])
])

# CTRACE_CHECK_LIBDW
# ------------------
# elfutils' libdw: the symbolizer reads arguments, return values and their
# types, call sites and CFI from DWARF with it.  Required.  Sets DW_LIBS.
AC_DEFUN([CTRACE_CHECK_LIBDW], [
AC_CHECK_HEADER([elfutils/libdw.h], [],
  [AC_MSG_ERROR([elfutils/libdw.h not found: install libdw-dev (apt-get install libdw-dev)])])
AC_CACHE_CHECK([for libdw], [ctrace_cv_lib_dw], [
  ctrace_save_LIBS=$LIBS
  LIBS="-ldw -lelf $LIBS"
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <elfutils/libdw.h>]],
      [[return dwarf_begin (-1, DWARF_C_READ) != 0;]])],
    [ctrace_cv_lib_dw=yes], [ctrace_cv_lib_dw=no])
  LIBS=$ctrace_save_LIBS
])
AS_IF([test "x$ctrace_cv_lib_dw" != xyes],
  [AC_MSG_ERROR([libdw cannot be linked: install libdw-dev (apt-get install libdw-dev)])])
DW_LIBS="-ldw -lelf"
AC_SUBST([DW_LIBS])
])

# CTRACE_CHECK_NCURSES
# --------------------
# ncurses draws `ctrace tui' (ctrace-symbolize --tui): the wide-character
# library when there is one, else the plain one.  Required.  Sets
# CURSES_LIBS.
AC_DEFUN([CTRACE_CHECK_NCURSES], [
AC_CHECK_HEADER([curses.h], [],
  [AC_MSG_ERROR([curses.h not found: install libncurses-dev (apt-get install libncurses-dev)])])
AC_CACHE_CHECK([for the ncurses library], [ctrace_cv_lib_curses], [
  ctrace_cv_lib_curses=no
  for ctrace_libs in "-lncursesw" "-lncursesw -ltinfow" "-lncurses" \
      "-lncurses -ltinfo"; do
    ctrace_save_LIBS=$LIBS
    LIBS="$ctrace_libs $LIBS"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <curses.h>]],
        [[initscr (); keypad (stdscr, TRUE); endwin (); return 0;]])],
      [ctrace_cv_lib_curses=$ctrace_libs])
    LIBS=$ctrace_save_LIBS
    test "x$ctrace_cv_lib_curses" != xno && break
  done
])
AS_IF([test "x$ctrace_cv_lib_curses" = xno],
  [AC_MSG_ERROR([ncurses cannot be linked: install libncurses-dev (apt-get install libncurses-dev)])])
CURSES_LIBS=$ctrace_cv_lib_curses
AC_SUBST([CURSES_LIBS])
])
