/* plt_stub.S -- the library call trampolines of the target (plt.c is
 * their C side); none on i386 yet, where plt.c redirects nothing. */
#if defined(__x86_64__)
#include "arch/x86_64/plt.S"
#elif defined(__i386__)
	.section .note.GNU-stack,"",@progbits
#else
#error "ctrace: unsupported architecture (x86-64 and i386 only)"
#endif
