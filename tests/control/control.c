/* control.c -- record-time control: filters, depth, duration threshold,
 * switching recording off and on (process, thread, signal), markers,
 * tracepoints and the live callback.  argv[1] picks the scenario; the
 * environment (set by control.sh) picks the recorder's settings. */
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ctrace.h"

#define NI __attribute__((noinline))

NI int leaf(int x) { return x + 1; }
NI int helper_a(int x) { return leaf(x); }
NI int helper_b(int x) { return leaf(x) * 2; }
NI int work(int x) { return helper_a(x) + helper_b(x); }

NI void fast(void) { __asm__ volatile("" ::: "memory"); }
NI void slow(void) { usleep(3000); }
NI void outer(void) { fast(); slow(); fast(); }

/* Entered while recording is on, switches it off: its exit is still
 * recorded, the call inside is not. */
NI void switch_off(void)
{
	ctrace_disable();
	leaf(0);
}

NI int rows(int n)
{
	ctrace_mark("parsed %d rows", n);
	CTRACE_TRACEPOINT(tp_rows, "rows=%d", n);
	CTRACE_TRACEPOINT(tp_other, "other=%d", n);
	return n;
}

/* ---- the interface's versions ------------------------------------------ */

/* Tracepoints as another version of the header would compile them: one
 * too small for this recorder (never enabled), one from a later version
 * with a field added at the end (enabled: the recorder reads its prefix). */
static struct ctrace_tracepoint abi_small = {
	offsetof(struct ctrace_tracepoint, line), 0, "abi_small", __FILE__, 1};
static struct {
	struct ctrace_tracepoint tp;
	long added;
} abi_later = {{sizeof abi_later, 0, "abi_later", __FILE__, 2}, 7};
static struct ctrace_tracepoint *const abi_refs[]
	__attribute__((section("ctrace_tracepoints"), used)) = {
		&abi_small, &abi_later.tp};

NI void abi(void)
{
	unsigned v = ctrace_version();
	printf("version %u.%u.%u header %s %s\n", v >> 16, (v >> 8) & 0xff,
	       v & 0xff, CTRACE_VERSION_STRING,
	       v == CTRACE_VERSION ? "same" : "differs");
	int n = ctrace_tracepoint_enable("abi_small");
	printf("abi_small %d enabled %d\n", n, abi_small.enabled);
	n = ctrace_tracepoint_enable("abi_later");
	printf("abi_later %d enabled %d\n", n, abi_later.tp.enabled);
	printf("abi_* %d\n", ctrace_tracepoint_disable("abi_*"));
	(void)abi_refs;
}

/* ---- callback ---------------------------------------------------------- */

static int entries, exits, max_depth;

NI int in_callback(void) { return 1; } /* instrumented, never recorded */

static void count(const struct ctrace_event *ev, void *data)
{
	(void)data;
	if (ev->kind == CTRACE_EVENT_ENTRY)
		entries++;
	else if (ev->kind == CTRACE_EVENT_EXIT)
		exits++;
	if ((int)ev->depth > max_depth)
		max_depth = (int)ev->depth;
	in_callback();
}

/* ---- threads ----------------------------------------------------------- */

static void *quiet_thread(void *arg)
{
	(void)arg;
	ctrace_thread_disable();
	work(1);
	ctrace_thread_enable();
	work(2);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : "work";

	if (!strcmp(s, "work")) {
		work(1);
	} else if (!strcmp(s, "outer")) {
		outer();
	} else if (!strcmp(s, "onoff")) {
		work(1);
		switch_off();
		work(2);
		ctrace_enable();
		work(3);
	} else if (!strcmp(s, "start")) {
		work(1); /* CTRACE_START=off: not recorded */
		ctrace_enable();
		work(2);
	} else if (!strcmp(s, "thread")) {
		pthread_t t;
		pthread_create(&t, NULL, quiet_thread, NULL);
		pthread_join(t, NULL);
		leaf(9);
	} else if (!strcmp(s, "signal")) {
		work(1);
		raise(SIGUSR2); /* CTRACE_SIGNAL=USR2: off */
		work(2);
		raise(SIGUSR2); /* on again */
		work(3);
	} else if (!strcmp(s, "marks")) {
		rows(3);
		printf("enabled %d\n", ctrace_tracepoint_enable("tp_oth*"));
		rows(4);
		printf("disabled %d\n", ctrace_tracepoint_disable("tp_*"));
		rows(5);
	} else if (!strcmp(s, "abi")) {
		abi();
	} else if (!strcmp(s, "callback")) {
		ctrace_set_callback(count, NULL);
		work(1);
		ctrace_set_callback(NULL, NULL);
		work(2);
		printf("entries=%d exits=%d depth=%d enabled=%d\n", entries,
		       exits, max_depth, ctrace_is_enabled());
	} else {
		fprintf(stderr, "unknown scenario %s\n", s);
		return 2;
	}
	return 0;
}
