/* libcall-reload-plugin.c -- the plugin tests/progs/libcall-reload.c
 * loads again and again: one function calling the program's 8 functions
 * of long names (longnames.h) through its PLT. */
#include "longnames.h"

int plug_calls(int x)
{
	return LONG_NAME(fa_)(x) + LONG_NAME(fb_)(x) + LONG_NAME(fc_)(x) +
	       LONG_NAME(fd_)(x) + LONG_NAME(fe_)(x) + LONG_NAME(ff_)(x) +
	       LONG_NAME(fg_)(x) + LONG_NAME(fh_)(x);
}
