/* demangle-test.c -- the recorder's demangler (lib/demangle.c) against
 * libiberty, as the symbolizer uses it (strmap.c: cplus_demangle without
 * the parameter list, a clone's suffix put back).  Reads symbol names, one
 * a line; prints each name on which the two differ and a summary, and
 * exits 1 if any differed.  Names the recorder's demangler does not read
 * are counted: they match by mangled name only. */
#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t ctrace__demangle_state_size(void);
int ctrace__demangle_name(void *state, const char *mangled, char *out,
			  size_t size);

int main(void)
{
	void *state = malloc(ctrace__demangle_state_size());
	char line[8192], mine[1024];
	unsigned long total = 0, read = 0, differ = 0;

	if (!state)
		return 2;
	while (fgets(line, sizeof line, stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "_Z", 2) != 0)
			continue;
		total++;
		if (ctrace__demangle_name(state, line, mine, sizeof mine) < 0)
			continue;
		read++;
		char *ref = cplus_demangle(line, DMGL_ANSI);
		const char *dot = strchr(line, '.');
		char want[2048];
		snprintf(want, sizeof want, "%s%s", ref ? ref : "(none)",
			 ref && dot ? dot : "");
		if (strcmp(mine, want) != 0) {
			printf("differs: %s: %s, libiberty %s\n", line, mine,
			       want);
			differ++;
		}
		free(ref);
	}
	printf("%lu names, %lu read by the recorder (%.1f%%), %lu differ\n",
	       total, read, total ? 100.0 * (double)read / (double)total : 0,
	       differ);
	free(state);
	return differ ? 1 : 0;
}
