/* config.c -- the environment variables that configure the recorder.
 * The man page ctrace-env(7) (lib/ctrace-env.7) and doc/recording.md
 * list them all; keep them in step (tests/manpages.sh checks the man
 * page against the names here).  This file is the only reader of the
 * environment: in secure mode (a setuid, setgid or file-capability
 * program) it reads nothing and the recorder records nothing
 * (doc/security.md). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>
#include <sys/uio.h>
#include <unistd.h>

#include "duration.h"
#include "internal.h"
#include "signame.h"

CTRACE_HIDDEN void ctrace__clock_force(int tsc);

#define DEFAULT_CHUNK_SIZE (64u << 10)
static int quiet;

/* getenv, for every variable the recorder reads: nothing in secure mode
 * (AT_SECURE: the environment belongs to a less privileged user) and
 * nothing before the C library has set the environment up. */
static const char *env(const char *name)
{
	extern char **environ;
	if (environ == NULL || getauxval(AT_SECURE) != 0)
		return NULL;
	return getenv(name);
}

/* A switch: on/off, 1/0, yes/no, true/false, in any case.  Returns 1 or
 * 0, or `unset` when the variable is unset or empty.  Any other value
 * gets one warning naming the variable and the words it takes, and
 * `unset` too: a bad value means the default, documented per variable. */
static int parse_switch(const char *name, int unset, const char *fallback)
{
	static const char *const on[] = {"on", "1", "yes", "true"};
	static const char *const off[] = {"off", "0", "no", "false"};
	const char *v = env(name);

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
	const char *v = env("CTRACE_QUIET");

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
	const char *v = env(names[which]);
	return v != NULL && *v ? v : NULL;
}

size_t ctrace__config_string_max(size_t dflt, size_t limit)
{
	const char *v = env("CTRACE_STRLEN");

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

/* A signal that reports a fault: the kernel sends it again when the
 * faulting instruction runs again, so a handler that only toggles
 * recording makes a crashing program loop forever. */
static int is_fault_signal(int n)
{
	return n == SIGSEGV || n == SIGBUS || n == SIGFPE || n == SIGILL ||
	       n == SIGTRAP || n == SIGSYS;
}

/* A signal that toggles recording: one the program can catch, and not a
 * fault's (-1, refused with its own message). */
static int parse_signal(const char *v)
{
	int n = ctrace__signal_number(v);
	if (n > 0 && is_fault_signal(n))
		return -1;
	return n > 0 && n != SIGKILL && n != SIGSTOP ? n : 0;
}

/* The kernel sets AT_SECURE when the program gained privileges at exec
 * (setuid, setgid, file capabilities) or an LSM asks for it: the
 * environment then belongs to a less privileged user. */
int ctrace__secure(void)
{
	return getauxval(AT_SECURE) != 0;
}


/* CTRACE_MODE: an octal mode between 0600 and 0644.  Nobody but the user
 * may write the trace: a file truncated under its mapping would kill the
 * program (SIGBUS). */
static unsigned parse_mode(const char *v)
{
	if (v == NULL || *v == '\0')
		return 0600;
	char *end;
	unsigned long m = strtoul(v, &end, 8);
	if (*end != '\0' || *v == '-' || (m & ~0644ul) || (m & 0600) != 0600) {
		ctrace__warn("CTRACE_MODE=", v,
			     ": expected an octal mode from 0600 to 0644 (the "
			     "trace must be writable by its owner only); "
			     "using 0600");
		return 0600;
	}
	return (unsigned)m;
}

/* Set once the C library is up (constructors run after its start-up). */
static int constructors_ran;

__attribute__((constructor(101))) static void note_constructors(void)
{
	constructors_ran = 1;
}

int ctrace__config_load(struct ctrace__config *c)
{
	extern char **environ;
	/* A setuid program: record nothing, say nothing (its stderr is not
	 * ours to write to), read nothing. */
	if (ctrace__secure()) {
		quiet = 1;
		c->quiet = 1;
		c->enabled = 0;
		return 0;
	}
	/* The loader runs IFUNC resolvers of the program before the C
	 * library has set up the environment: reading it now would ignore
	 * CTRACE=off and CTRACE_OUTPUT.  Until then environ is NULL; a
	 * program may make it NULL too (clearenv), but not before the
	 * constructors run. */
	if (environ == NULL && !constructors_ran)
		return -EAGAIN;
	load_quiet();
	c->quiet = quiet;
	c->enabled = parse_switch("CTRACE", 1, SWITCH_WORDS "recording");
	c->output = env("CTRACE_OUTPUT");
	if (c->output == NULL || *c->output == '\0')
		c->output = "trace.bin";
	c->chunk_size = parse_chunk_size(env("CTRACE_CHUNK_SIZE"));
	c->mode = parse_mode(env("CTRACE_MODE"));
	c->run = env("CTRACE_RUN");
	if (c->run != NULL && *c->run == '\0')
		c->run = NULL;

	c->start_off = !parse_switch("CTRACE_START", 1,
				     SWITCH_WORDS "starting on");
	const char *match = env("CTRACE_MATCH");
	c->match_regex = match != NULL && !strcmp(match, "regex");
	if (match != NULL && *match && !c->match_regex && strcmp(match, "glob"))
		ctrace__warn("CTRACE_MATCH=", match,
			     ": expected glob or regex; using glob");

	const char *v = env("CTRACE_DEPTH");
	if (v != NULL && *v) {
		char *end;
		unsigned long d = strtoul(v, &end, 10);
		if (*end != '\0' || d == 0 || d > UINT32_MAX)
			ctrace__warn("CTRACE_DEPTH=", v,
				     ": not a positive number; ignored");
		else
			c->max_depth = (uint32_t)d;
	}
	v = env("CTRACE_MIN_DURATION");
	if (v != NULL && *v && ctrace__parse_duration(v, &c->min_ns) < 0)
		ctrace__warn("CTRACE_MIN_DURATION=", v,
			     ": expected a time like 500ns, 5us, 1.5ms or 2s; "
			     "ignored");
	v = env("CTRACE_SIGNAL");
	if (v != NULL && *v && (c->toggle_signal = parse_signal(v)) <= 0) {
		ctrace__warn("CTRACE_SIGNAL=", v,
			     c->toggle_signal < 0
				     ? ": reports a fault (a crashing program "
				       "would loop on it); ignored"
				     : ": not a signal name or number; ignored");
		c->toggle_signal = 0;
	}
	c->tracepoints = env("CTRACE_TRACEPOINTS");
	v = env("CTRACE_LIBCALL");
	c->libcall = 1;
	if (v != NULL && !strcasecmp(v, "nest"))
		c->libcall = 2;
	else if (v != NULL && *v)
		c->libcall = parse_switch("CTRACE_LIBCALL", 1,
					  ": expected on, off or nest; "
					  "recording library calls");

	const char *clock = env("CTRACE_CLOCK");
	if (clock != NULL && !strcmp(clock, "monotonic"))
		ctrace__clock_force(0);
	else if (clock != NULL && !strcmp(clock, "tsc"))
		ctrace__clock_force(1);
	else if (clock != NULL && *clock != '\0')
		ctrace__warn("CTRACE_CLOCK=", clock,
			     ": expected tsc or monotonic; choosing");
	return 0;
}

/* Every variable the recorder reads, for the SETTINGS record. */
static const char *const variables[] = {
	"CTRACE",	     "CTRACE_OUTPUT",	    "CTRACE_CHUNK_SIZE",
	"CTRACE_MODE",	     "CTRACE_RUN",	    "CTRACE_START",
	"CTRACE_MATCH",	     "CTRACE_FILTER",	    "CTRACE_DEPTH",
	"CTRACE_MIN_DURATION", "CTRACE_ARGS",	    "CTRACE_RETVAL",
	"CTRACE_PLAN",	     "CTRACE_STRLEN",	    "CTRACE_SIGNAL",
	"CTRACE_TRACEPOINTS", "CTRACE_CLOCK",	    "CTRACE_QUIET",
};

size_t ctrace__config_settings(char *buf, size_t size)
{
	size_t n = 0;
	for (size_t i = 0; i < sizeof variables / sizeof *variables; i++) {
		const char *v = env(variables[i]);
		if (v == NULL)
			continue;
		size_t name = strlen(variables[i]), len = strlen(v);
		if (name + len + 2 > size - n)
			continue;
		memcpy(buf + n, variables[i], name);
		buf[n + name] = '=';
		memcpy(buf + n + name + 1, v, len + 1);
		n += name + len + 2;
	}
	return n;
}

/* writev(2) only: this may run in a signal handler or before stdio
 * works, and on a thread with little stack left (no buffer).  One call,
 * so that the line is not mixed with another thread's. */
void ctrace__warnv(const char *const *parts, int n)
{
	if (quiet)
		return;
	struct iovec v[8];
	int k = 0;
	v[k++] = (struct iovec){(void *)"ctrace: ", 8};
	for (int i = 0; i < n && k < 7; i++)
		if (parts[i] != NULL && *parts[i] != '\0')
			v[k++] = (struct iovec){(void *)parts[i],
						strlen(parts[i])};
	v[k++] = (struct iovec){(void *)"\n", 1};
	ssize_t w = writev(2, v, k);
	(void)w;
}

void ctrace__warn(const char *a, const char *b, const char *c)
{
	const char *parts[] = {a, b, c};
	ctrace__warnv(parts, 3);
}
