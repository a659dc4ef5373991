/* cmd_plan.c -- ctrace-symbolize --make-plan [-o FILE] PROGRAM...: the
 * capture plan the recorder's CTRACE_PLAN reads.  The command line and
 * the file are here; what goes in the plan is the values stage's
 * (values/plan.c), which reads the programs' DWARF.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "symbolizer.h"
#include "values/values.h"

int cmd_plan(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *output = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'h':
			printf("Usage: " PROGRAM_NAME " --make-plan [-o FILE] "
			       "PROGRAM...\n"
			       "Write the capture plan of PROGRAM (and of "
			       "shared objects given after it)\n"
			       "for the recorder's CTRACE_PLAN.\n");
			return 0;
		default:
			fputs("Try '" PROGRAM_NAME " --make-plan --help'.\n",
			      stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fputs(PROGRAM_NAME ": --make-plan: no program given\n", stderr);
		return 2;
	}
	/* never over one of the programs read, never a half-written plan */
	struct outfile of = {.fd = -1};
	FILE *out = stdout;
	if (output) {
		int fd = outfile_open(&of, output, argv + optind,
				      (size_t)(argc - optind));
		out = fd < 0 ? NULL : fdopen(fd, "w");
		if (!out) {
			outfile_close(&of, false);
			return 1;
		}
	}
	int status = 0;
	plan_header(out);
	for (int i = optind; i < argc; i++)
		if (plan_module(out, argv[i]) < 0)
			status = 1;
	bool written = fflush(out) == 0 && !ferror(out);
	if (output && fclose(out) != 0)
		written = false;
	if (!written) {
		fprintf(stderr, PROGRAM_NAME ": %s: %s\n",
			output ? output : "standard output", strerror(errno));
		status = 1;
	}
	if (output) {
		of.fd = -1; /* closed with the stream */
		if (outfile_close(&of, written) < 0)
			status = 1;
	}
	values_reset();
	return status;
}
