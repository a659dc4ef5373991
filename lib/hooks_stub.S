/* hooks_stub.S -- the entry stub and return trampoline of the target. */
#if defined(__x86_64__)
#include "arch/x86_64/hooks.S"
#elif defined(__i386__)
#include "arch/i386/hooks.S"
#else
#error "ctrace: unsupported architecture (x86-64 and i386 only)"
#endif
