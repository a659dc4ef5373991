/* cmd_dump.c -- ctrace dump: every call, as JSON or in another format of
 * ctrace-symbolize, chosen by a flag named after it (--json, --chrome...):
 * the flags are the formats ctrace-symbolize --list-formats lists, and
 * --flame-graph, which is --folded (the input of flamegraph.pl).
 *
 * Exit status: ctrace-symbolize's; 127 when it cannot be run or does not
 * list its options and formats.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "launcher.h"
#include "symbolize.h"

#define DUMP_DEFAULT "json"

/* The launcher's own spellings of a format. */
static const struct {
	const char *flag, *format;
} dump_aliases[] = {
	{"flame-graph", "folded"},
};

/* The format the flag A (--NAME) chooses, or NULL if it is none. */
static const char *dump_format(const char *a)
{
	size_t count;
	const struct symbolize_format *f;

	if (strncmp(a, "--", 2) != 0 || a[2] == '\0')
		return NULL;
	f = symbolize_formats(&count);
	for (size_t i = 0; i < count; i++)
		if (!strcmp(a + 2, f[i].name))
			return f[i].name;
	for (size_t k = 0; k < sizeof dump_aliases / sizeof *dump_aliases; k++) {
		if (strcmp(a + 2, dump_aliases[k].flag))
			continue;
		for (size_t i = 0; i < count; i++)
			if (!strcmp(dump_aliases[k].format, f[i].name))
				return f[i].name;
	}
	return NULL;
}

static void dump_usage(void)
{
	size_t count;
	const struct symbolize_format *f = symbolize_formats(&count);

	printf("Usage: ctrace dump [--FORMAT] [SYMBOLIZER-OPTION]... "
	       "[TRACE]...\n"
	       "Print every call of TRACE (default trace.bin), in FORMAT "
	       "(default %s):\n\n",
	       DUMP_DEFAULT);
	for (size_t i = 0; i < count; i++)
		printf("  --%-18s %s\n", f[i].name, f[i].help);
	for (size_t k = 0; k < sizeof dump_aliases / sizeof *dump_aliases; k++)
		printf("  --%-18s the same as --%s\n", dump_aliases[k].flag,
		       dump_aliases[k].format);
	printf("\nThe other options are ctrace-symbolize's (see "
	       "ctrace-symbolize --help).\n");
}

int cmd_dump(int argc, char **argv)
{
	const char *format = DUMP_DEFAULT;
	char **rest = must_alloc((argc + 1) * sizeof *rest);
	int kept = 0, i;

	/* dump's flags go anywhere before "--", but not as the value of
	 * an option; the rest is for ctrace-symbolize. */
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		enum symbolize_word w = symbolize_word(argv, i);

		if (w == SYMBOLIZE_END)
			break;
		if (w == SYMBOLIZE_OPTION && dump_format(a) != NULL) {
			format = dump_format(a);
			continue;
		}
		if (w == SYMBOLIZE_OPTION &&
		    (!strcmp(a, "--help") || !strcmp(a, "-h"))) {
			dump_usage();
			return 0;
		}
		rest[kept++] = argv[i];
		if (w == SYMBOLIZE_OPTION_VALUE)
			rest[kept++] = argv[++i];
	}
	while (i < argc)
		rest[kept++] = argv[i++];
	rest[kept] = NULL;
	return symbolize_view(format, rest);
}
