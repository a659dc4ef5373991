/* progress.c -- "ctrace-symbolize: 42% (67 of 160 MB)" on stderr.
 *
 * Only when stderr is a terminal (and --no-progress was not given) and the
 * work has taken more than a second: short runs and redirected output stay
 * quiet.  thread.c counts events down from PROGRESS_EVERY and calls
 * progress_tick() at zero, so the clock is read every million events or
 * so.  The share done is that of the chunks read, which is close enough.
 */
#include <stdio.h>
#include <time.h>

#include "replay/replay.h"

#define PROGRESS_EVERY (1u << 20)

uint32_t progress_countdown = UINT32_MAX;

static struct {
	bool enabled, shown;
	struct trace **traces;
	size_t n_traces;
	const struct thread *threads;
	size_t n_threads;
	uint64_t total_bytes;
	double start, last;
} pg;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void progress_start(bool enabled, struct trace **traces, size_t n_traces,
		    const struct thread *threads, size_t n_threads)
{
	pg.enabled = enabled;
	pg.shown = false;
	pg.traces = traces;
	pg.n_traces = n_traces;
	pg.threads = threads;
	pg.n_threads = n_threads;
	pg.total_bytes = 0;
	for (size_t i = 0; i < n_traces; i++)
		pg.total_bytes += traces[i]->n_chunks *
				  (uint64_t)traces[i]->hdr.chunk_size;
	pg.start = pg.last = enabled ? now() : 0;
	progress_countdown = enabled ? PROGRESS_EVERY : UINT32_MAX;
}

static uint64_t bytes_done(void)
{
	uint64_t done = 0;

	for (size_t i = 0; i < pg.n_threads; i++) {
		const struct thread *th = &pg.threads[i];
		if (!th->info)
			continue; /* not started yet (--per-thread) */
		if (th->main.next_chunk)
			done += (uint64_t)(th->main.next_chunk -
					   th->info->events.first) *
				th->trace->hdr.chunk_size;
		if (th->sig.next_chunk)
			done += (uint64_t)(th->sig.next_chunk -
					   th->info->signal.first) *
				th->trace->hdr.chunk_size;
	}
	return done;
}

void progress_tick(void)
{
	uint64_t done;
	double t;

	progress_countdown = pg.enabled ? PROGRESS_EVERY : UINT32_MAX;
	if (!pg.enabled)
		return;
	t = now();
	if (t - pg.start < 1.0 || t - pg.last < 0.25)
		return;
	pg.last = t;
	pg.shown = true;
	done = bytes_done();
	fprintf(stderr, "\r" PROGRAM_NAME ": %3.0f%% (%llu of %llu MB)",
		pg.total_bytes ? 100.0 * (double)done / (double)pg.total_bytes
			       : 0.0,
		(unsigned long long)(done >> 20),
		(unsigned long long)(pg.total_bytes >> 20));
	fflush(stderr);
}

void progress_end(void)
{
	if (pg.shown)
		fputs("\r\033[K", stderr); /* clear the line */
	pg.shown = false;
	pg.enabled = false;
	progress_countdown = UINT32_MAX;
}
