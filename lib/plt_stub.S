/* plt_stub.S -- the library call trampolines of the target (plt.c is
 * their C side). */
#if defined(__x86_64__)
#include "arch/x86_64/plt.S"
#elif defined(__i386__)
#include "arch/i386/plt.S"
#else
#error "ctrace: unsupported architecture (x86-64 and i386 only)"
#endif
