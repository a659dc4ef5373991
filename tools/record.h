/* record.h -- ctrace record as ctrace live runs it (cmd_record.c). */
#ifndef CTRACE_TOOLS_RECORD_H
#define CTRACE_TOOLS_RECORD_H

/* Runs `ctrace record ARGV...' (argv[0] is the command's name); with
 * SESSION, records into that directory, refuses -o and -d, and names no
 * file.  Returns the program's exit status (128+N for signal N). */
int record_run(int argc, char **argv, const char *session);

#endif /* CTRACE_TOOLS_RECORD_H */
