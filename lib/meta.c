/* meta.c -- the process metadata stream: modules, threads, names and
 * settings, shared by all threads under one lock.
 *
 * Apart from stream.c so that the recorder's files depend one way: the
 * writers of metadata (modules.c, init.c, plt.c) call here, and stream.c,
 * whose chunk claims look at the loader's list (modules.c), never does. */
#include <pthread.h>

#include "internal.h"

static pthread_mutex_t meta_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct ctrace__stream meta = {.kind = CTRACE_CHUNK_META};

/* Signals are blocked while the lock is held, so a signal handler that
 * reaches a metadata write on this thread cannot deadlock on it. */
void ctrace__meta_lock(uint64_t *saved)
{
	*saved = ctrace__block_signals();
	pthread_mutex_lock(&meta_mutex);
}

void ctrace__meta_unlock(const uint64_t *saved)
{
	pthread_mutex_unlock(&meta_mutex);
	ctrace__restore_signals(*saved);
}

int ctrace__meta_record(uint8_t type, const void *payload, size_t len)
{
	return ctrace__stream_record(&meta, type, payload, len);
}

/* In a fork()ed child: the parent's chunk is not ours, and the lock may
 * have been taken by a thread that does not exist here. */
void ctrace__meta_reset(void)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
	meta_mutex = fresh;
	ctrace__stream_init(&meta, CTRACE_CHUNK_META, 0, 0);
}
