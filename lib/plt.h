/* plt.h -- library calls through the PLT (plt.c). */
#ifndef CTRACE_PLT_H
#define CTRACE_PLT_H

#include "internal.h"

/* CTRACE_LIBCALL: off, on (the instrumented modules' calls), nest (every
 * module's calls, those libraries make to each other too). */
enum { CTRACE_PLT_OFF, CTRACE_PLT_ON, CTRACE_PLT_NEST };

/* At start-up, once the modules are recorded: redirects the slots of the
 * modules loaded so far. */
CTRACE_HIDDEN void ctrace__plt_start(int how);
/* The loader's list grew: redirects the slots of the new modules. */
CTRACE_HIDDEN void ctrace__plt_scan(void);

#endif /* CTRACE_PLT_H */
