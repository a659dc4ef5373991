/* config.c -- the environment variables that configure the recorder.
 * README lists them all; keep the two in step. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

CTRACE_HIDDEN void ctrace__clock_force(int tsc);

#define DEFAULT_CHUNK_SIZE (64u << 10)
static int quiet;

static int is_off(const char *v)
{
	return v != NULL && (!strcmp(v, "off") || !strcmp(v, "0") ||
			     !strcmp(v, "no") || !strcmp(v, "false"));
}

/* Chunks are the unit a thread claims: small ones waste less space in
 * short-lived threads, large ones take the claim lock less often. */
static uint32_t parse_chunk_size(const char *v)
{
	if (v == NULL || *v == '\0')
		return DEFAULT_CHUNK_SIZE;
	char *end;
	unsigned long long n = strtoull(v, &end, 10);
	if (*end == 'k' || *end == 'K')
		n <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		n <<= 20, end++;
	if (*end != '\0' || n < 4096 || n > (64u << 20) || (n & (n - 1))) {
		ctrace__warn("CTRACE_CHUNK_SIZE=", v,
			     ": not a power of two from 4k to 64M; using 64k");
		return DEFAULT_CHUNK_SIZE;
	}
	return (uint32_t)n;
}

void ctrace__config_load(struct ctrace__config *c)
{
	quiet = getenv("CTRACE_QUIET") != NULL && !is_off(getenv("CTRACE_QUIET"));
	c->quiet = quiet;
	c->enabled = !is_off(getenv("CTRACE"));
	c->output = getenv("CTRACE_OUTPUT");
	if (c->output == NULL || *c->output == '\0')
		c->output = "trace.bin";
	c->chunk_size = parse_chunk_size(getenv("CTRACE_CHUNK_SIZE"));

	const char *clock = getenv("CTRACE_CLOCK");
	if (clock != NULL && !strcmp(clock, "monotonic"))
		ctrace__clock_force(0);
	else if (clock != NULL && !strcmp(clock, "tsc"))
		ctrace__clock_force(1);
	else if (clock != NULL && *clock != '\0')
		ctrace__warn("CTRACE_CLOCK=", clock,
			     ": expected tsc or monotonic; choosing");
}

/* write(2) only: this may run in a signal handler or before stdio works. */
void ctrace__warn(const char *a, const char *b, const char *c)
{
	if (quiet)
		return;
	char buf[1024];
	size_t n = 0;
	for (const char *s[] = {"ctrace: ", a, b, c}, **it = s; it < s + 4; it++)
		for (const char *p = *it; p && *p && n < sizeof buf - 1; p++)
			buf[n++] = *p;
	buf[n++] = '\n';
	ssize_t w = write(2, buf, n);
	(void)w;
}
