/* init.c -- the recorder's life: start-up on the first event, thread
 * registration and exit, fork, and process exit.
 *
 * There is no constructor that must run first: the first event of the
 * process (possibly in a constructor of the program that runs before ours)
 * starts the recorder, so constructors are traced.  The process's end is
 * marked by a destructor of the lowest priority, and the file stays mapped
 * after it, so destructors and atexit handlers that run later are traced
 * too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ctrace.h"
#include "internal.h"
#include "plt.h"
#include "retval.h"
#include "state.h"
#include "switch.h"

_Atomic int ctrace__global;
static struct ctrace__config config;
static pthread_key_t thread_key;
static _Atomic uint32_t next_thread = 1;
static __thread int starting __attribute__((tls_model("initial-exec")));
static uint64_t fork_saved_mask;
/* The parent's clock just before fork(): after all its calls so far and
 * before any it makes once fork() returns, so a reader can tell which of
 * them the child inherits open. */
static uint64_t fork_ticks;
/* The gate before fork(): the child's copy of its page is wiped. */
static uint8_t fork_gate;

uint32_t ctrace__gettid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

/* ---------------------------------------------------------------------------
 * Metadata
 * ------------------------------------------------------------------------ */

static void record_thread(const struct ctrace__stream *s)
{
	uint8_t rec[8 + 4 + 4 + 16];
	uint64_t now = ctrace__now();
	char name[17] = "";
	prctl(PR_GET_NAME, name, 0, 0, 0);
	size_t len = strnlen(name, 16);
	memcpy(rec, &now, 8);
	memcpy(rec + 8, &s->thread, 4);
	memcpy(rec + 12, &s->tid, 4);
	memcpy(rec + 16, name, len);

	uint64_t saved;
	ctrace__meta_lock(&saved);
	ctrace__meta_record(CTRACE_REC_THREAD, rec, 16 + len);
	ctrace__meta_unlock(&saved);
}

/* The executable's path and the command line, from /proc (argv is not
 * reachable from a library without the program's help). */
static void record_process(void)
{
	size_t size = 64u << 10;
	uint8_t *buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return;
	uint64_t now = ctrace__now();
	uint32_t pid = (uint32_t)getpid(), ppid = (uint32_t)getppid();
	memcpy(buf, &now, 8);
	memcpy(buf + 8, &pid, 4);
	memcpy(buf + 12, &ppid, 4);
	ssize_t n = readlink("/proc/self/exe", (char *)buf + 16, 4096);
	size_t process_len = 16 + (n > 0 ? (size_t)n : 0);

	size_t argv_len = 0;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		uint8_t *a = buf + 8192;
		size_t room = size - 8192 - 64; /* fits a chunk of 64k */
		ssize_t r;
		while (argv_len < room &&
		       (r = read(fd, a + argv_len, room - argv_len)) > 0)
			argv_len += (size_t)r;
		close(fd);
	}

	/* What fits a small chunk after the command line. */
	size_t settings_len = ctrace__config_settings((char *)buf + 4096 + 16,
						      2048);

	uint64_t saved;
	ctrace__meta_lock(&saved);
	ctrace__meta_record(CTRACE_REC_PROCESS, buf, process_len);
	if (argv_len > 0 &&
	    argv_len <= ctrace__file.chunk_size - sizeof(struct ctrace_chunk_header) - 16)
		ctrace__meta_record(CTRACE_REC_ARGV, buf + 8192, argv_len);
	if (settings_len > 0)
		ctrace__meta_record(CTRACE_REC_SETTINGS, buf + 4096 + 16,
				    settings_len);
	ctrace__meta_unlock(&saved);
	munmap(buf, size);
}

/* ---------------------------------------------------------------------------
 * Threads
 * ------------------------------------------------------------------------ */

static void register_thread(struct ctrace__thread *t)
{
	uint32_t serial = atomic_fetch_add(&next_thread, 1);
	ctrace__stream_init(&t->main, CTRACE_CHUNK_EVENTS, serial,
			    ctrace__gettid());
	/* The wide pair slots: 192 KiB a thread, out of its stack (thread
	 * stacks may be small) and given back when it ends.  Without them
	 * the trace is larger, never wrong. */
	if (t->main.wide == NULL) {
		void *m = mmap(NULL, CTRACE_PAIR_HOMES * sizeof *t->main.wide,
			       PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED)
			t->main.wide = m;
	}
	if (t->signal != NULL)
		ctrace__stream_init(t->signal, CTRACE_CHUNK_SIGNAL, serial,
				    t->main.tid);
	pthread_setspecific(thread_key, t);
	record_thread(&t->main);
}

/* pthread key destructor: the thread is exiting through pthread_exit or
 * by returning from its start routine. */
static void thread_exit(void *arg)
{
	struct ctrace__thread *t = arg;
	if (t->state != CTRACE_T_IDLE ||
	    atomic_load(&ctrace__global) != CTRACE_G_ON)
		return;
	ctrace__state_self++;
	t->busy_sp = ctrace__sp();
	ctrace__barrier();
	/* Settled: no event to lose if a handler leaves this by a jump. */
	t->state = CTRACE_T_SETTLED;
	ctrace__barrier();
	uint64_t now = ctrace__now();
	ctrace__stream_record(&t->main, CTRACE_REC_THREAD_END, &now, 8);
	record_thread(&t->main); /* now with the name it was given */
	/* Events after this (other TLS destructors) claim a new chunk. */
	ctrace__stream_release(&t->main);
	if (t->signal != NULL)
		ctrace__stream_release(t->signal);
	ctrace__retval_thread_end();
	if (t->main.wide != NULL) {
		struct ctrace__pair *wide = t->main.wide;
		t->main.wide = NULL; /* the next chunk starts with it empty */
		t->main.wide_used = 0;
		munmap(wide, CTRACE_PAIR_HOMES * sizeof *wide);
	}
	ctrace__barrier();
	t->state = CTRACE_T_IDLE;
	ctrace__state_self--;
}

/* ---------------------------------------------------------------------------
 * fork
 * ------------------------------------------------------------------------ */

static void before_fork(void)
{
	ctrace__state_self++;
	ctrace__meta_lock(&fork_saved_mask);
	ctrace__file_lock_for_fork();
	fork_ticks = ctrace__now();
	fork_gate = atomic_load(&ctrace__gate);
}

static void after_fork_parent(void)
{
	ctrace__file_unlock_after_fork();
	ctrace__meta_unlock(&fork_saved_mask);
	ctrace__state_self--;
}

static void after_fork_child(void)
{
	struct ctrace__thread *t = &ctrace__state_tls;
	/* before_fork's ctrace__state_self stays up to the end: the
	 * recorder's own library calls here (pthread_sigmask, open, ...) go
	 * through the GOT slots of the module it is linked into, which may
	 * be redirected; a trampoline that recorded one would claim a chunk
	 * under the parent's lock, which this child holds copied, locked by
	 * no thread of its own, for ever. */
	uint32_t parent_pid = ctrace__file.header->pid;
	uint32_t parent_thread = t->main.thread;
	/* fork() in a signal handler that interrupted the recorder: the
	 * interrupted writer goes on once the handler returns, into the
	 * parent's chunk unless that memory becomes the child's own. */
	int writing = t->state == CTRACE_T_BUSY ||
		      t->state == CTRACE_T_SETTLED;

	atomic_store(&ctrace__gate, fork_gate);
	if (writing) {
		if (t->main.cur != NULL)
			ctrace__file_orphan_chunk(t->main.chunk);
		if (t->signal != NULL && t->signal->cur != NULL)
			ctrace__file_orphan_chunk(t->signal->chunk);
	}
	/* The chunks this thread holds are the parent's: forget them
	 * without writing anything. */
	t->main.cur = t->main.limit = t->main.chunk_end = NULL;
	if (t->signal != NULL)
		t->signal->cur = t->signal->limit = t->signal->chunk_end = NULL;
	ctrace__meta_reset();
	ctrace__modules_reset();
	ctrace__restore_signals(fork_saved_mask);

	if (ctrace__file_reopen_child(parent_pid, parent_thread,
				      fork_ticks) < 0) {
		atomic_store(&ctrace__global, CTRACE_G_OFF);
		t->state = CTRACE_T_OFF;
		ctrace__state_self--;
		return;
	}
	atomic_store(&next_thread, 1);
	record_process();
	ctrace__plt_describe();
	ctrace__modules_scan(ctrace__now());
	if (t->state == CTRACE_T_IDLE || writing)
		register_thread(t);
	if (writing) {
		/* What the writer still stores lands in the orphaned chunk;
		 * the next event claims one of the child's file. */
		t->main.chunk = CTRACE_NO_CHUNK;
		if (t->signal != NULL)
			t->signal->chunk = CTRACE_NO_CHUNK;
	}
	ctrace__state_self--;
}

void ctrace__fork_unseen(void)
{
	int on = CTRACE_G_ON;
	if (atomic_compare_exchange_strong(&ctrace__global, &on,
					   CTRACE_G_OFF))
		ctrace__warn("a child process made without fork handlers "
			     "(_Fork) is not traced", "", "");
}

/* ---------------------------------------------------------------------------
 * Start-up and exit
 * ------------------------------------------------------------------------ */

/* Events of IFUNC resolvers, which run before the environment exists: not
 * recorded, counted in the first thread's stream once recording starts. */
static _Atomic uint64_t early_events;

static int start_process(void)
{
	int err = ctrace__config_load(&config);
	if (err < 0)
		return err;
	if (!config.enabled)
		return -ECANCELED;
	err = ctrace__file_open(&config);
	if (err < 0)
		return err;
	if (pthread_key_create(&thread_key, thread_exit) != 0)
		return -EAGAIN;
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
#ifdef MADV_WIPEONFORK
	/* Without it (before Linux 4.14), a child made by _Fork writes into
	 * the parent's chunks. */
	madvise(&ctrace__state_gate, sizeof ctrace__state_gate, MADV_WIPEONFORK);
#endif
	atomic_fetch_or(&ctrace__gate, CTRACE_GATE_LIVE);
	record_process();
	ctrace__modules_scan(ctrace__now());
	ctrace__switch_init(&config);
	ctrace__plt_start(config.libcall);
	return 0;
}

/* The work of ctrace__thread_start: its library calls are the
 * recorder's own (ctrace__state_self, set around it below). */
static void thread_start(struct ctrace__thread *t)
{
	int g = atomic_load(&ctrace__global);
	if (g == CTRACE_G_UNINIT) {
		int expected = CTRACE_G_UNINIT;
		if (atomic_compare_exchange_strong(&ctrace__global, &expected,
						   CTRACE_G_STARTING)) {
			starting = 1;
			int err = start_process();
			g = err == 0 ? CTRACE_G_ON : CTRACE_G_OFF;
			starting = 0;
			if (err == -EAGAIN) {
				/* Too early: try again at the next event. */
				atomic_fetch_add(&early_events, 1);
				atomic_store(&ctrace__global, CTRACE_G_UNINIT);
				return;
			}
			atomic_store(&ctrace__global, g);
		}
	}
	while ((g = atomic_load(&ctrace__global)) == CTRACE_G_STARTING) {
		if (starting)
			return; /* our own start-up called back: stay NEW */
		sched_yield();
	}
	if (g != CTRACE_G_ON) {
		t->state = CTRACE_T_OFF;
		return;
	}
	register_thread(t);
	t->state = CTRACE_T_IDLE;
	uint64_t early = atomic_exchange(&early_events, 0);
	if (early != 0) {
		char n[24];
		int i = (int)sizeof n - 1;
		n[i] = '\0';
		for (uint64_t v = early; i == (int)sizeof n - 1 || v; v /= 10)
			n[--i] = (char)('0' + v % 10);
		ctrace__warn("", n + i,
			     " events of IFUNC resolvers, which run before "
			     "the environment is set up, were not recorded");
		uint64_t now = ctrace__now();
		for (uint64_t k = 0; k < early; k++)
			ctrace__stream_lost(&t->main, now,
					    CTRACE_LOST_EARLY);
	}
}

void ctrace__thread_start(struct ctrace__thread *t)
{
	ctrace__state_self++;
	ctrace__barrier(); /* a `const` call (errno's address) stays after */
	thread_start(t);
	ctrace__barrier();
	ctrace__state_self--;
}

__attribute__((destructor(101))) static void finish_process(void)
{
	if (atomic_load(&ctrace__global) != CTRACE_G_ON)
		return;
	struct ctrace__thread *t = &ctrace__state_tls;
	int idle = t->state == CTRACE_T_IDLE;
	/* for good: what runs after this is not the program's */
	ctrace__state_self++;
	if (idle)
		record_thread(&t->main);
	ctrace__modules_scan(ctrace__now());
	/* A thread not idle here (exit from a signal handler that
	 * interrupted the recorder) may be writing its chunk: left whole. */
	ctrace__stream_finish(idle ? &t->main : NULL);
}

/* ---------------------------------------------------------------------------
 * Public API
 * ------------------------------------------------------------------------ */

unsigned ctrace_version(void)
{
	return CTRACE_VERSION;
}

const char *ctrace_trace_path(void)
{
	if (atomic_load(&ctrace__global) != CTRACE_G_ON)
		return NULL;
	return ctrace__file.path;
}

int ctrace_flush(void)
{
	if (atomic_load(&ctrace__global) != CTRACE_G_ON)
		return -ENODEV;
	int saved_errno = ctrace__api_begin();
	ctrace__modules_scan(ctrace__now());
	ctrace__file_sync();
	ctrace__api_end(saved_errno);
	return 0;
}
