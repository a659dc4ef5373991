/* common.h -- what the pure helpers of common/ share.
 *
 * common/ holds the helpers that the recorder (lib/), the symbolizer
 * (symbolizer/) and the launcher (tools/) all need: each program compiles
 * these files into itself.  They use libc only, allocate nothing and read
 * no environment variable (lib/config.c alone does), so that the recorder
 * may use them.  Their symbols are hidden: linked into a traced program,
 * they are not the program's to see or to clash with.
 */
#ifndef CTRACE_COMMON_H
#define CTRACE_COMMON_H

#define CTRACE_COMMON_API __attribute__((visibility("hidden")))

#endif /* CTRACE_COMMON_H */
