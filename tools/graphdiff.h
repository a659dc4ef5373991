/* graphdiff.h -- ctrace graph FUNC --diff OTHER (graphdiff.c). */
#ifndef CTRACE_TOOLS_GRAPHDIFF_H
#define CTRACE_TOOLS_GRAPHDIFF_H

/* other: the baseline's trace; args: ctrace-symbolize's arguments for the
 * new session, --function=FUNC first, without --diff.  Returns the exit
 * status. */
int graphdiff_run(const char *other, char **args);

#endif
