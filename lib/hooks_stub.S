/* hooks_stub.S -- the entry stub of the target (the return trampoline is
 * in retval_stub.S). */
#if defined(__x86_64__)
#include "arch/x86_64/hooks.S"
#elif defined(__i386__)
#include "arch/i386/hooks.S"
#else
#error "ctrace: unsupported architecture (x86-64 and i386 only)"
#endif
