/* retval_stub.S -- the return trampoline of the target (retval.c is its
 * C side). */
#if defined(__x86_64__)
#include "arch/x86_64/retval.S"
#elif defined(__i386__)
#include "arch/i386/retval.S"
#else
#error "ctrace: unsupported architecture (x86-64 and i386 only)"
#endif
