/* protos.h -- what to save at a library call, from the prototype table
 * (protos.c). */
#ifndef CTRACE_PROTOS_LIB_H
#define CTRACE_PROTOS_LIB_H

#include "capture.h"

/* The registers to save at calls of the function `name` (a GOT slot's
 * relocation symbol): its prototype's, or every argument register (and
 * no string) and on x86-64 the first stack words when the table does not
 * list it or it takes a _Complex long double; and at its return (x86-64)
 * rax and xmm0, or for a function the table does not list or that
 * returns a _Complex long double rdx, xmm1, st(0) (and st(1)) and the
 * memory rax points to in the stack too; i386: eax, edx and st(0) for
 * every function, and the memory eax points to in the stack for a
 * function the table does not list or that returns a _Complex long
 * double. */
CTRACE_HIDDEN void ctrace__protos_how(const char *name,
				      struct ctrace__libcall_how *how);

#endif /* CTRACE_PROTOS_LIB_H */
