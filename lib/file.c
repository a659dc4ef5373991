/* file.c -- the trace file: choosing its name, creating it safely, growing
 * it, mapping it, and handing out chunks.
 *
 * The file is mapped MAP_SHARED in large segments, so events are in the
 * page cache as soon as they are stored: they survive the process's death
 * by any signal.  Space is reserved with fallocate before it is handed out,
 * so a full disk shows up as a failed claim (counted as lost events), never
 * as SIGBUS.  Claims are rare (one per chunk) and take a lock with signals
 * blocked; the hot path never comes here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

struct ctrace__file ctrace__file = {.fd = -1};

/* A segment maps a run of chunks.  It is unmapped once every chunk in it
 * has been released, so a long trace does not hold its whole length in the
 * address space (which matters on i386). */
struct segment {
	uint8_t *_Atomic addr;
	_Atomic uint32_t released;
};

#if UINTPTR_MAX > 0xffffffffu
#define SEGMENT_BYTES (1ull << 30)  /* 1 GiB */
#define MAX_SEGMENTS (1ull << 16)   /* 64 TiB of trace */
#else
#define SEGMENT_BYTES (16ull << 20) /* 16 MiB */
#define MAX_SEGMENTS (1ull << 12)   /* 64 GiB of trace */
#endif
#define GROW_MIN (1ull << 20)
#define GROW_MAX (64ull << 20)

static struct segment *segments; /* MAX_SEGMENTS entries, mmap'ed */
static uint64_t chunks_per_segment;
static pthread_mutex_t grow_mutex = PTHREAD_MUTEX_INITIALIZER;
static int warned_no_space;
/* After a failed growth, claims fail at once until this time (monotonic
 * ns): a full disk must not cost system calls on every event. */
static _Atomic uint64_t retry_grow_at;
#define RETRY_GROW_NS 100000000ull /* 100 ms */
static dev_t file_dev; /* identity of the file behind ctrace__file.fd */
static ino_t file_ino;

/* Where the trace's descriptor is moved: out of the way of programs that
 * dup2() onto low numbers. */
#define FD_FLOOR 200

/* ---------------------------------------------------------------------------
 * Choosing and opening the file
 * ------------------------------------------------------------------------ */

static int str_copy(char *dst, size_t size, const char *a, const char *b,
		    const char *c)
{
	size_t n = 0;
	for (const char *s[] = {a, b, c}, **it = s; it < s + 3; it++)
		for (const char *p = *it; p && *p; p++) {
			if (n + 1 >= size)
				return -ENAMETOOLONG;
			dst[n++] = *p;
		}
	dst[n] = '\0';
	return 0;
}

static void u32_str(char *buf, uint32_t v)
{
	char tmp[11];
	int n = 0;
	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	for (int i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
}

/* Opens `path` for writing a new trace.  Returns an fd, -EBUSY when the
 * name belongs to another trace that must be kept (see below), or another
 * negative errno (the caller reports it). */
static int open_candidate(const char *path)
{
	/* O_NONBLOCK: a FIFO or device planted at the path must not block
	 * the program; it is refused below. */
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC |
				    O_NONBLOCK, 0666);
	if (fd < 0)
		return errno == ELOOP ? -ELOOP : -errno;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	file_dev = st.st_dev;
	file_ino = st.st_ino;
	/* A live writer holds the lock for as long as it runs. */
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		return -EBUSY;
	}
	if (st.st_size > 0) {
		struct ctrace_file_header h;
		ssize_t n = pread(fd, &h, sizeof h, 0);
		if (n < (ssize_t)sizeof h.magic ||
		    memcmp(h.magic, CTRACE_FILE_MAGIC, 8) != 0) {
			close(fd);
			return -EEXIST;
		}
		/* Keep the trace of the program that exec'ed us (same pid,
		 * its lock went with exec) and of our parent. */
		if (n == (ssize_t)sizeof h &&
		    (h.pid == (uint32_t)getpid() ||
		     h.pid == (uint32_t)getppid())) {
			close(fd);
			return -EBUSY;
		}
	}
	if (ftruncate(fd, 0) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

/* Tries <base>, then <base>.<pid>, then <base>.<pid>.<n>. */
static int open_trace(const char *base, int base_first)
{
	char pid[12], num[12];
	u32_str(pid, (uint32_t)getpid());
	int fd = -EBUSY;
	if (base_first) {
		if (str_copy(ctrace__file.path, sizeof ctrace__file.path, base,
			     NULL, NULL) < 0)
			return -ENAMETOOLONG;
		fd = open_candidate(ctrace__file.path);
	}
	for (uint32_t n = 0; fd == -EBUSY && n < 1000; n++) {
		u32_str(num, n);
		if (str_copy(ctrace__file.path, sizeof ctrace__file.path, base,
			     ".", pid) < 0)
			return -ENAMETOOLONG;
		if (n > 0 &&
		    str_copy(ctrace__file.path + strlen(ctrace__file.path),
			     sizeof ctrace__file.path - strlen(ctrace__file.path),
			     ".", num, NULL) < 0)
			return -ENAMETOOLONG;
		fd = open_candidate(ctrace__file.path);
	}
	return fd;
}

static int report_open_error(int err)
{
	const char *why;
	switch (err) {
	case -ELOOP:
		why = ": is a symbolic link; not following it";
		break;
	case -EEXIST:
		why = ": exists and is not a ctrace trace; not overwriting it";
		break;
	case -EINVAL:
		why = ": not a regular file";
		break;
	default:
		why = NULL;
	}
	if (why != NULL)
		ctrace__warn(ctrace__file.path, why, "; tracing disabled");
	else
		ctrace__warn(ctrace__file.path, ": ", strerror(-err));
	return err;
}

/* Moves fd above FD_FLOOR if it can; returns the fd to use. */
static int move_high(int fd)
{
	int high = fcntl(fd, F_DUPFD_CLOEXEC, FD_FLOOR);
	if (high < 0)
		return fd;
	close(fd);
	return high;
}

/* The trace's descriptor, checked to still be the trace: a program may
 * close every descriptor (daemons, closefrom) and open other files that
 * get its number.  Then the file is opened again by its name, if that is
 * still the same file.  With grow_mutex held.  Returns -1 when the trace
 * cannot be reached any more. */
static int trace_fd(void)
{
	struct ctrace__file *f = &ctrace__file;
	struct stat st;
	if (f->fd >= 0 && fstat(f->fd, &st) == 0 && st.st_dev == file_dev &&
	    st.st_ino == file_ino)
		return f->fd;
	f->fd = -1; /* not ours any more: never close it */
	int fd = open(f->path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_dev != file_dev ||
	    st.st_ino != file_ino) {
		close(fd);
		return -1;
	}
	f->fd = move_high(fd);
	return f->fd;
}

static int map_header(uint32_t chunk_size)
{
	struct ctrace__file *f = &ctrace__file;
	f->fd = move_high(f->fd);
	int e = posix_fallocate(f->fd, 0, CTRACE_HEADER_SIZE);
	if (e != 0)
		return -e;
	f->size = CTRACE_HEADER_SIZE;
	void *h = mmap(NULL, CTRACE_HEADER_SIZE, PROT_READ | PROT_WRITE,
		       MAP_SHARED, f->fd, 0);
	if (h == MAP_FAILED)
		return -errno;
	if (segments == NULL) {
		void *t = mmap(NULL, MAX_SEGMENTS * sizeof(struct segment),
			       PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
			       0);
		if (t == MAP_FAILED) {
			munmap(h, CTRACE_HEADER_SIZE);
			return -errno;
		}
		segments = t;
	}
	f->header = h;
	f->chunk_size = chunk_size;
	chunks_per_segment = SEGMENT_BYTES / chunk_size;
	return 0;
}

static void fill_header(uint32_t flags)
{
	struct ctrace_file_header *h = ctrace__file.header;
	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	h->version_major = CTRACE_VERSION_MAJOR;
	h->version_minor = CTRACE_VERSION_MINOR;
	h->byte_order = CTRACE_BYTE_ORDER_MARK;
	h->machine = CTRACE_ARCH_MACHINE;
	h->pointer_size = sizeof(void *);
	h->header_size = CTRACE_HEADER_SIZE;
	h->chunk_size = ctrace__file.chunk_size;
	h->pid = (uint32_t)getpid();
	h->ppid = (uint32_t)getppid();
	h->flags = flags;
	h->start_realtime_ns =
		(uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
	ctrace__clock_init(h);
	ctrace__barrier();
	memcpy(h->magic, CTRACE_FILE_MAGIC, 8);
}

static int make_absolute(char *dst, size_t size, const char *path)
{
	if (path[0] == '/')
		return str_copy(dst, size, path, NULL, NULL);
	char cwd[4096];
	if (getcwd(cwd, sizeof cwd) == NULL)
		return -errno;
	return str_copy(dst, size, cwd, "/", path);
}

int ctrace__file_open(const struct ctrace__config *c)
{
	struct ctrace__file *f = &ctrace__file;
	int err = make_absolute(f->base, sizeof f->base, c->output);
	if (err < 0) {
		ctrace__warn(c->output, ": ", strerror(-err));
		return err;
	}
	int fd = open_trace(f->base, 1);
	if (fd < 0)
		return report_open_error(fd);
	f->fd = fd;
	err = map_header(c->chunk_size);
	if (err < 0) {
		close(f->fd);
		f->fd = -1;
		return report_open_error(err);
	}
	fill_header(0);
	return 0;
}

/* ---------------------------------------------------------------------------
 * Forked children
 * ------------------------------------------------------------------------ */

void ctrace__file_orphan_chunk(uint64_t index)
{
	struct segment *s = &segments[index / chunks_per_segment];
	uint8_t *a = atomic_exchange(&s->addr, NULL);
	if (a != NULL)
		mmap(a, SEGMENT_BYTES, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE,
		     -1, 0);
}

int ctrace__file_reopen_child(uint32_t parent_pid, uint32_t parent_thread,
			      uint64_t fork_ticks)
{
	struct ctrace__file *f = &ctrace__file;
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
	grow_mutex = fresh;

	/* Everything mapped here is the parent's file. */
	for (uint64_t i = 0; i < MAX_SEGMENTS; i++) {
		uint8_t *a = atomic_load(&segments[i].addr);
		if (a != NULL)
			munmap(a, SEGMENT_BYTES);
		if (a == NULL && segments[i].released == 0 &&
		    i * chunks_per_segment >= f->header->chunks_claimed)
			break;
		segments[i].addr = NULL;
		segments[i].released = 0;
	}
	munmap(f->header, CTRACE_HEADER_SIZE);
	f->header = NULL;
	/* Also drops the parent's lock from our side.  Only if it is still
	 * the trace: the program may have reused the number. */
	struct stat st;
	if (f->fd >= 0 && fstat(f->fd, &st) == 0 && st.st_dev == file_dev &&
	    st.st_ino == file_ino)
		close(f->fd);
	f->fd = -1;

	int fd = open_trace(f->base, 0);
	if (fd < 0)
		return report_open_error(fd);
	f->fd = fd;
	int err = map_header(f->chunk_size);
	if (err < 0) {
		close(f->fd);
		f->fd = -1;
		return report_open_error(err);
	}
	fill_header(CTRACE_FLAG_FORKED);
	f->header->parent_pid = parent_pid;
	f->header->parent_thread = parent_thread;
	f->header->parent_ticks = fork_ticks;
	return 0;
}

/* ---------------------------------------------------------------------------
 * Chunks
 * ------------------------------------------------------------------------ */

/* Reports, once, that the trace cannot grow: one line. */
static void warn_no_space(const char *why)
{
	if (warned_no_space)
		return;
	warned_no_space = 1;
	ctrace__warn(ctrace__file.path, ": cannot grow the trace (", why);
}

/* posix_fallocate past RLIMIT_FSIZE raises SIGXFSZ, which kills the
 * program: never ask for more than the limit. */
static int within_file_limit(uint64_t want)
{
	struct rlimit rl;
	return getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	       want <= (uint64_t)rl.rlim_cur;
}

/* With grow_mutex held. */
static int grow(uint64_t need)
{
	struct ctrace__file *f = &ctrace__file;
	if (!within_file_limit(need)) {
		warn_no_space("file size limit); events that do not fit "
			      "are counted as lost");
		return -EFBIG;
	}
	int fd = trace_fd();
	if (fd < 0) {
		warn_no_space("its descriptor was closed and the file is gone"
			      "); events that do not fit are counted as lost");
		return -EBADF;
	}
	uint64_t step = f->size / 4;
	step = step < GROW_MIN ? GROW_MIN : step > GROW_MAX ? GROW_MAX : step;
	uint64_t want = f->size + step;
	if (want < need)
		want = need;
	want = CTRACE_HEADER_SIZE +
	       (want - CTRACE_HEADER_SIZE + f->chunk_size - 1) /
		       f->chunk_size * f->chunk_size;
	if (!within_file_limit(want))
		want = need;
	int e = posix_fallocate(fd, (off_t)f->size, (off_t)(want - f->size));
	if (e != 0 && want > need) {
		want = need;
		e = posix_fallocate(fd, (off_t)f->size,
				    (off_t)(want - f->size));
	}
	if (e != 0) {
		char why[160];
		size_t n = 0;
		for (const char *p = strerror(e); *p && n < 80; p++)
			why[n++] = *p;
		const char *rest = "); events that do not fit are counted as "
				   "lost";
		for (const char *p = rest; *p; p++)
			why[n++] = *p;
		why[n] = '\0';
		warn_no_space(why);
		return -e;
	}
	f->size = want;
	return 0;
}

/* With grow_mutex held. */
static uint8_t *segment(uint64_t s)
{
	uint8_t *a = atomic_load(&segments[s].addr);
	if (a == NULL) {
		int fd = trace_fd();
		if (fd < 0)
			return NULL;
		void *m = mmap(NULL, SEGMENT_BYTES, PROT_READ | PROT_WRITE,
			       MAP_SHARED, fd,
			       (off_t)(CTRACE_HEADER_SIZE + s * SEGMENT_BYTES));
		if (m == MAP_FAILED)
			return NULL;
		a = m;
		atomic_store(&segments[s].addr, a);
	}
	return a;
}

uint8_t *ctrace__file_claim(uint64_t *index, uint8_t *reason)
{
	struct ctrace__file *f = &ctrace__file;
	if (f->header == NULL) {
		*reason = CTRACE_LOST_NO_SPACE;
		return NULL;
	}
	uint64_t retry = atomic_load_explicit(&retry_grow_at,
					      memory_order_relaxed);
	if (retry != 0 && ctrace__monotonic_ns() < retry &&
	    CTRACE_HEADER_SIZE + (f->header->chunks_claimed + 1) *
					 (uint64_t)f->chunk_size > f->size) {
		*reason = CTRACE_LOST_NO_SPACE;
		return NULL;
	}
	sigset_t all, saved;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	pthread_mutex_lock(&grow_mutex);

	uint8_t *chunk = NULL;
	uint64_t i = f->header->chunks_claimed;
	uint64_t end = CTRACE_HEADER_SIZE + (i + 1) * f->chunk_size;
	uint8_t *base;
	if (i / chunks_per_segment >= MAX_SEGMENTS)
		*reason = CTRACE_LOST_TOO_LARGE;
	else if (end > f->size && grow(end) < 0) {
		*reason = CTRACE_LOST_NO_SPACE;
		atomic_store(&retry_grow_at,
			     ctrace__monotonic_ns() + RETRY_GROW_NS);
	}
	else if ((base = segment(i / chunks_per_segment)) == NULL)
		*reason = CTRACE_LOST_NO_MEMORY;
	else {
		chunk = base + (i % chunks_per_segment) * f->chunk_size;
		*index = i;
		__atomic_store_n(&f->header->chunks_claimed, i + 1,
				 __ATOMIC_RELEASE);
		ctrace__clock_update(f->header);
	}

	pthread_mutex_unlock(&grow_mutex);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	return chunk;
}

void ctrace__file_release(uint64_t index)
{
	struct segment *s = &segments[index / chunks_per_segment];
	if (atomic_fetch_add(&s->released, 1) + 1 == chunks_per_segment) {
		uint8_t *a = atomic_exchange(&s->addr, NULL);
		if (a != NULL)
			munmap(a, SEGMENT_BYTES);
	}
}

void ctrace__file_finish(void)
{
	struct ctrace__file *f = &ctrace__file;
	if (f->header == NULL)
		return;
	sigset_t all, saved;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	pthread_mutex_lock(&grow_mutex);
	/* Claims take this lock too, so no chunk can be handed out past the
	 * new end; events after this point extend the file again. */
	uint64_t end = CTRACE_HEADER_SIZE +
		       f->header->chunks_claimed * (uint64_t)f->chunk_size;
	int fd = end < f->size ? trace_fd() : -1;
	if (fd >= 0 && ftruncate(fd, (off_t)end) == 0)
		f->size = end;
	ctrace__clock_update(f->header);
	__atomic_or_fetch(&f->header->flags, CTRACE_FLAG_FINALIZED,
			  __ATOMIC_RELEASE);
	pthread_mutex_unlock(&grow_mutex);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

void ctrace__file_sync(void)
{
	sigset_t all, saved;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	pthread_mutex_lock(&grow_mutex);
	if (ctrace__file.header != NULL)
		ctrace__clock_update(ctrace__file.header);
	pthread_mutex_unlock(&grow_mutex);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

/* fork() must not happen while another thread holds the lock. */
void ctrace__file_lock_for_fork(void)
{
	pthread_mutex_lock(&grow_mutex);
}

void ctrace__file_unlock_after_fork(void)
{
	pthread_mutex_unlock(&grow_mutex);
}
