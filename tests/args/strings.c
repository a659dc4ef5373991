/* strings.c -- string arguments with a capture plan, for
 * tests/args/matrix.sh: text in the program's data, on the heap, on the
 * stack; NULL, bad pointers, a string that ends just before an unmapped
 * page, long strings (cut at CTRACE_STRLEN), characters to escape.
 *
 * Prints its expectations like matrix.c; `strings N` expects strings cut
 * at N bytes (CTRACE_STRLEN=N).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "expect.h"

#define TESTED __attribute__((noinline, used))

static volatile size_t sink;

TESTED size_t s_data(const char *s) { return sink += strlen(s); }
TESTED size_t s_heap(char *s) { return sink += strlen(s); }
TESTED size_t s_stack(const char *s) { return sink += strlen(s); }
TESTED size_t s_null(const char *s) { return sink += s == NULL; }
TESTED size_t s_bad(const char *s) { return sink += (size_t)s; }
TESTED size_t s_edge(const char *s) { return sink += strlen(s); }
TESTED size_t s_long(const char *s) { return sink += strlen(s); }
TESTED size_t s_escape(const char *s) { return sink += strlen(s); }
TESTED size_t s_empty(const char *s) { return sink += strlen(s); }
TESTED size_t s_bytes(const unsigned char *u, const signed char *c)
{
	return sink += u[0] + (size_t)c[0];
}
TESTED size_t s_mixed(const char *a, int n, const char *b)
{
	return sink += strlen(a) + (size_t)n + strlen(b);
}
/* Several strings of one call, which the recorder reads from the kernel
 * in one system call: the pointers alone are used. */
TESTED size_t s_pair(const char *a, const char *b)
{
	return sink += (size_t)a + (size_t)b;
}
TESTED size_t s_three(const char *a, const char *b, const char *c)
{
	return sink += (size_t)a + (size_t)b + (size_t)c;
}

/* The text as the symbolizer shows it: at most max bytes were saved; none
 * with max 0 (CTRACE_STRLEN=0), and then the address shows. */
static void shown(char *out, const char *s, size_t max)
{
	if (max == 0) {
		sprintf(out, "%p", (const void *)s);
		return;
	}
	size_t n = strlen(s);
	int cut = n + 1 > max;
	if (cut)
		n = max;
	*out++ = '"';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\n')
			out += sprintf(out, "\\n");
		else if (c == '\t')
			out += sprintf(out, "\\t");
		else if (c == '\\' || c == '"')
			out += sprintf(out, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			out += sprintf(out, "\\x%02x", c);
		else
			*out++ = (char)c;
	}
	*out++ = '"';
	if (cut)
		out += sprintf(out, "...");
	*out = '\0';
}

int main(int argc, char **argv)
{
	size_t max = argc > 1 ? (size_t)atoi(argv[1]) : 64;
	char want[1024];
	long page = sysconf(_SC_PAGESIZE);

	shown(want, "hello", max);
	s_data("hello");
	expect("s_data", "s=%s", want);

	char *heap = strdup("on the heap");
	s_heap(heap);
	shown(want, heap, max);
	expect("s_heap", "s=%s", want);

	char local[32];
	snprintf(local, sizeof local, "on the %s", "stack");
	s_stack(local);
	shown(want, local, max);
	expect("s_stack", "s=%s", want);

	s_null(NULL);
	expect("s_null", "s=NULL");

	s_bad((const char *)16);
	expect("s_bad", max ? "s=0x10 <unreadable>" : "s=0x10");

	/* A string that ends at the last byte before an unreadable page,
	 * and a pointer into that page. */
	char *two = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (two == MAP_FAILED)
		return 1;
	mprotect(two + page, page, PROT_NONE);
	char *edge = two + page - 5;
	memcpy(edge, "edge", 5);
	s_edge(edge);
	shown(want, edge, max);
	expect("s_edge", "s=%s", want);
	s_bad(two + page + 8);
	expect("s_bad", max ? "s=%p <unreadable>" : "s=%p",
	       (void *)(two + page + 8));

	char longer[200];
	memset(longer, 'x', sizeof longer - 1);
	longer[sizeof longer - 1] = '\0';
	memcpy(longer, "start", 5);
	s_long(longer);
	shown(want, longer, max);
	expect("s_long", "s=%s", want);

	const char *esc = "tab\there \"quoted\" back\\slash caf\xc3\xa9\n";
	s_escape(esc);
	shown(want, esc, max);
	expect("s_escape", "s=%s", want);

	const char *empty = "";
	s_empty(empty);
	shown(want, empty, max);
	expect("s_empty", "s=%s", max ? "\"\"" : want);

	unsigned char u[] = {0xff, 'u', 0};
	signed char c[] = {'s', 'c', 0};
	s_bytes(u, c);
	char want2[64];
	shown(want, (const char *)u, max);
	shown(want2, (const char *)c, max);
	expect("s_bytes", "u=%s\tc=%s", want, want2);

	s_mixed("first", 7, "second");
	shown(want, "first", max);
	shown(want2, "second", max);
	expect("s_mixed", "a=%s\tn=7\tb=%s", want, want2);

	/* Pairs: overlapping text; an unreadable pointer first (the
	 * kernel reads nothing more); a string that ends before an
	 * unreadable page, first and second (the kernel stops in it); one
	 * on the stack; long text cut; three with the bad one between. */
	char *tail = heap + 3;
	s_pair(heap, tail);
	shown(want, heap, max);
	shown(want2, tail, max);
	expect("s_pair", "a=%s\tb=%s", want, want2);

	char bad[64];
	sprintf(bad, max ? "%p <unreadable>" : "%p", (void *)16);
	s_pair((const char *)16, "data");
	shown(want2, "data", max);
	expect("s_pair", "a=%s\tb=%s", bad, want2);

	s_pair(edge, heap);
	shown(want, edge, max);
	shown(want2, heap, max);
	expect("s_pair", "a=%s\tb=%s", want, want2);

	s_pair(heap, edge);
	shown(want, heap, max);
	shown(want2, edge, max);
	expect("s_pair", "a=%s\tb=%s", want, want2);

	s_pair(local, heap);
	shown(want, local, max);
	shown(want2, heap, max);
	expect("s_pair", "a=%s\tb=%s", want, want2);

	char want3[1024];
	char *big = malloc(300);
	if (big == NULL)
		return 1;
	memset(big, 'y', 299);
	big[299] = '\0';
	s_pair(big, esc);
	shown(want, big, max);
	shown(want2, esc, max);
	expect("s_pair", "a=%s\tb=%s", want, want2);

	s_three(local, tail, "data");
	shown(want, local, max);
	shown(want2, tail, max);
	shown(want3, "data", max);
	expect("s_three", "a=%s\tb=%s\tc=%s", want, want2, want3);

	char *unmapped = two + page + 8;
	sprintf(bad, max ? "%p <unreadable>" : "%p", (void *)unmapped);
	s_three(heap, unmapped, "data");
	shown(want, heap, max);
	shown(want3, "data", max);
	expect("s_three", "a=%s\tb=%s\tc=%s", want, bad, want3);
	return 0;
}
