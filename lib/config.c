/* config.c -- the environment variables that configure the recorder.
 * README lists them all; keep the two in step. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "internal.h"

CTRACE_HIDDEN void ctrace__clock_force(int tsc);

#define DEFAULT_CHUNK_SIZE (64u << 10)
static int quiet;

/* A switch: on/off, 1/0, yes/no, true/false, in any case.  Returns 1 or
 * 0, or `unset` when the variable is unset or empty.  Any other value
 * gets one warning naming the variable and the words it takes, and
 * `unset` too: a bad value means the default, documented per variable. */
static int parse_switch(const char *name, int unset, const char *fallback)
{
	static const char *const on[] = {"on", "1", "yes", "true"};
	static const char *const off[] = {"off", "0", "no", "false"};
	const char *v = getenv(name);

	if (v == NULL || *v == '\0')
		return unset;
	for (size_t i = 0; i < sizeof on / sizeof on[0]; i++) {
		if (!strcasecmp(v, on[i]))
			return 1;
		if (!strcasecmp(v, off[i]))
			return 0;
	}
	char var[64];
	size_t n = strlen(name);
	if (n > sizeof var - 2)
		n = sizeof var - 2;
	memcpy(var, name, n);
	var[n] = '=';
	var[n + 1] = '\0';
	ctrace__warn(var, v, fallback);
	return unset;
}

/* CTRACE_QUIET: any value but an off word silences the recorder (set
 * means quiet).  Read again by every entry point that may warn first. */
static void load_quiet(void)
{
	const char *v = getenv("CTRACE_QUIET");

	quiet = v != NULL && strcasecmp(v, "off") && strcasecmp(v, "0") &&
		strcasecmp(v, "no") && strcasecmp(v, "false");
}

#define SWITCH_WORDS ": expected on or off (1/0, yes/no, true/false, any case); "

/* The pattern lists and the capture plan, read where they are used: capture
 * is set up by a constructor that may run before ctrace__config_load. */
const char *ctrace__config_list(int which)
{
	static const char *const names[] = {
		[CTRACE_LIST_FILTER] = "CTRACE_FILTER",
		[CTRACE_LIST_ARGS] = "CTRACE_ARGS",
		[CTRACE_LIST_RETVAL] = "CTRACE_RETVAL",
		[CTRACE_LIST_PLAN] = "CTRACE_PLAN",
	};
	if (which < 0 || (size_t)which >= sizeof names / sizeof names[0])
		return NULL;
	const char *v = getenv(names[which]);
	return v != NULL && *v ? v : NULL;
}

size_t ctrace__config_string_max(size_t dflt, size_t limit)
{
	const char *v = getenv("CTRACE_STRLEN");

	load_quiet();
	if (v == NULL || *v == '\0')
		return dflt;
	char *end;
	unsigned long n = strtoul(v, &end, 10);
	if (*v < '0' || *v > '9' || *end != '\0' || n > limit) {
		ctrace__warn("CTRACE_STRLEN=", v,
			     ": expected a number from 0 (no text) to 1024; "
			     "using 64");
		return dflt;
	}
	return n;
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

/* "5us", "2ms", "1s", "300" (ns), "0" (no minimum).  Returns -1 on a bad
 * value. */
static int parse_duration(const char *v, uint64_t *ns)
{
	char *end;
	double n = strtod(v, &end);
	double unit = !strcmp(end, "") || !strcmp(end, "ns") ? 1
		    : !strcmp(end, "us") ? 1e3
		    : !strcmp(end, "ms") ? 1e6
		    : !strcmp(end, "s") ? 1e9 : -1;
	if (end == v || unit < 0 || !(n >= 0) || n * unit > 1e18)
		return -1;
	*ns = (uint64_t)(n * unit + 0.5);
	return 0;
}

static int parse_signal(const char *v)
{
	static const struct {
		const char *name;
		int sig;
	} names[] = {
		{"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"HUP", SIGHUP},
		{"INT", SIGINT},   {"QUIT", SIGQUIT}, {"TERM", SIGTERM},
		{"PROF", SIGPROF}, {"WINCH", SIGWINCH}, {"URG", SIGURG},
	};
	if (!strncmp(v, "SIG", 3))
		v += 3;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(v, names[i].name))
			return names[i].sig;
	char *end;
	long n = strtol(v, &end, 10);
	if (*v != '\0' && *end == '\0' && n > 0 && n < NSIG && n != SIGKILL &&
	    n != SIGSTOP)
		return (int)n;
	return 0;
}

void ctrace__config_load(struct ctrace__config *c)
{
	load_quiet();
	c->quiet = quiet;
	c->enabled = parse_switch("CTRACE", 1, SWITCH_WORDS "recording");
	c->output = getenv("CTRACE_OUTPUT");
	if (c->output == NULL || *c->output == '\0')
		c->output = "trace.bin";
	c->chunk_size = parse_chunk_size(getenv("CTRACE_CHUNK_SIZE"));

	c->start_off = !parse_switch("CTRACE_START", 1,
				     SWITCH_WORDS "starting on");
	const char *match = getenv("CTRACE_MATCH");
	c->match_regex = match != NULL && !strcmp(match, "regex");
	if (match != NULL && *match && !c->match_regex && strcmp(match, "glob"))
		ctrace__warn("CTRACE_MATCH=", match,
			     ": expected glob or regex; using glob");

	const char *v = getenv("CTRACE_DEPTH");
	if (v != NULL && *v) {
		char *end;
		unsigned long d = strtoul(v, &end, 10);
		if (*end != '\0' || d == 0 || d > UINT32_MAX)
			ctrace__warn("CTRACE_DEPTH=", v,
				     ": not a positive number; ignored");
		else
			c->max_depth = (uint32_t)d;
	}
	v = getenv("CTRACE_MIN_DURATION");
	if (v != NULL && *v && parse_duration(v, &c->min_ns) < 0)
		ctrace__warn("CTRACE_MIN_DURATION=", v,
			     ": expected a time like 5us or 2ms; ignored");
	v = getenv("CTRACE_SIGNAL");
	if (v != NULL && *v && (c->toggle_signal = parse_signal(v)) == 0)
		ctrace__warn("CTRACE_SIGNAL=", v,
			     ": not a signal name or number; ignored");
	c->tracepoints = getenv("CTRACE_TRACEPOINTS");

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
