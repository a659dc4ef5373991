/* signame.h -- signal names, for CTRACE_SIGNAL and `ctrace record
 * --signal`.
 *
 *   SIGNAL = ["SIG"] NAME | NUMBER | ["SIG"] "RTMIN" ["+" K]
 *          | ["SIG"] "RTMAX" ["-" K]
 *
 * NAME is one of the standard names (HUP INT QUIT ILL TRAP ABRT BUS FPE
 * KILL USR1 SEGV USR2 PIPE ALRM TERM CHLD CONT STOP TSTP TTIN TTOU URG XCPU
 * XFSZ VTALRM PROF WINCH IO PWR SYS), in any case; NUMBER is decimal, from
 * 1 to SIGRTMAX; RTMIN+K and RTMAX-K stay within the real-time signals.
 */
#ifndef CTRACE_COMMON_SIGNAME_H
#define CTRACE_COMMON_SIGNAME_H

#include "common.h"

/* The signal s names, or -1.  KILL and STOP are signals too: a caller
 * that must catch the signal refuses them itself. */
CTRACE_COMMON_API int ctrace__signal_number(const char *s);

#endif /* CTRACE_COMMON_SIGNAME_H */
