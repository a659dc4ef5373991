/* reportdiff.h -- ctrace report --diff (reportdiff.c). */
#ifndef CTRACE_TOOLS_REPORTDIFF_H
#define CTRACE_TOOLS_REPORTDIFF_H

/* argv: report's arguments, with --diff OTHER among them.  Returns the
 * exit status. */
int reportdiff_run(char **argv);

#endif /* CTRACE_TOOLS_REPORTDIFF_H */
