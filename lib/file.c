/* file.c -- the trace file: growing it, mapping it, and handing out
 * chunks.  Its name and its safe creation are naming.c's.
 *
 * Chunks are written through MAP_SHARED mappings of a few MiB (segments,
 * below), so events are in the page cache as soon as they are stored:
 * they survive the process's death by any signal.  Chunks given back
 * leave the program's memory in batches (madvise, see retire): their pages
 * stay in the page cache, owned by the kernel, so the program's resident
 * memory holds only the chunks in use and at most a batch of others, and
 * its address space only the segments in use
 * (which keeps mlockall() and RLIMIT_AS working as without the
 * recorder).  Space is reserved with fallocate before it is handed out,
 * so a full disk shows up as a failed claim (counted as lost events), never
 * as SIGBUS; and only the user can write the file, so nobody else can
 * truncate it under the mapping.  Claims are rare (one per chunk) and take
 * a lock with signals blocked; the hot path never comes here.
 */
#define _GNU_SOURCE
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

/* Disk space is reserved ahead as the file grows (see reserve), and a
 * stream's first chunk one page at first (stream.c): a process that ends
 * by exec or _exit, which trims nothing, leaves a file about the size of
 * what it wrote. */
#if UINTPTR_MAX > 0xffffffffu
#define MAX_CHUNKS (1ull << 40) /* 4 PiB of 4 KiB chunks */
#else
#define MAX_CHUNKS (1ull << 24) /* 64 GiB of 4 KiB chunks */
#endif

static pthread_mutex_t grow_mutex = PTHREAD_MUTEX_INITIALIZER;
static int warned_no_space, warned_no_map;
/* After a failed growth, claims fail at once until this time (monotonic
 * ns): a full disk must not cost system calls on every event. */
static _Atomic uint64_t retry_grow_at;
_Atomic uint8_t ctrace__file_stalled;
#define RETRY_GROW_NS 100000000ull /* 100 ms */
/* The identity of the file behind ctrace__file.fd (naming.c). */
static struct ctrace__file_id file_id;
/* The run of the file reserved ahead by the last growth (see reserve). */
static uint64_t reserved_start, reserved_end;

/* Chunks are written through segments: windows of the file SEGMENT_MIN
 * (or a chunk, if larger) long, aligned in the file, mapped while a chunk
 * that starts in them is in use.  Each also maps the chunk that runs past
 * its end.  Large enough that the kernel maps a huge page-cache folio at
 * one fault (per chunk mappings cost 16 faults per 64 KiB chunk: 30% more
 * per event on a 6.18 kernel), small enough that the address space and
 * locked memory the recorder holds stay a few MiB.  The table, by segment
 * number (open addressing; key 0 free, 1 deleted), lets a forked child
 * unmap its parent's.  With grow_mutex held. */
#define SEGMENT_MIN (2u << 20)
struct segment {
	uint64_t key;       /* segment number + 2 */
	uint8_t *addr;
	uint64_t chunks, released;
};
static struct segment *segments;
/* Tests set it (tests/reliability/progs/regrow.c): every seg_reserve
 * moves the table, so that a pointer into it kept across one faults. */
CTRACE_HIDDEN int ctrace__file_regrow;
static size_t seg_mask, seg_live, seg_used; /* used: with deleted */
static uint64_t seg_bytes;

/* Written chunks leave the program's memory in batches: each madvise
 * flushes the TLB of every CPU the program runs on, so one call per run of
 * adjacent chunks instead of one per chunk (measured: a sixth less system
 * time with two threads writing).  At most RETIRE_BYTES (or one chunk, if larger) of
 * written chunks stay resident meanwhile.  With grow_mutex held. */
#define RETIRE_MAX 16
#define RETIRE_BYTES (1u << 20)
static uint64_t retiring[RETIRE_MAX];
static unsigned n_retiring;

/* Where the trace's descriptor is moved: out of the way of programs that
 * dup2() onto low numbers. */
#define FD_FLOOR 200

/* Set when the trace's descriptor cannot be moved above FD_FLOOR: the
 * limit on descriptors (RLIMIT_NOFILE, ulimit -n) is that low, so every
 * descriptor held is one the program cannot open.  Then it is held only
 * while the lock is (see put_fd): opened by name when needed.  The file
 * is then not locked against being replaced by another process that
 * writes a trace of the same name. */
static int fd_transient;

/* Moves fd above FD_FLOOR if it can; returns the fd to use. */
static int move_high(int fd)
{
	int high = fcntl(fd, F_DUPFD_CLOEXEC, FD_FLOOR);
	fd_transient = high < 0;
	if (high < 0)
		return fd;
	close(fd);
	return high;
}

/* Gives back a descriptor held only for the operation (fd_transient);
 * with grow_mutex held, or before any thread can take it. */
static void put_fd(void)
{
	struct ctrace__file *f = &ctrace__file;
	if (fd_transient && f->fd >= 0) {
		close(f->fd);
		f->fd = -1;
	}
}

/* The trace's descriptor, checked to still be the trace: a program may
 * close every descriptor (daemons, closefrom) and open other files that
 * get its number.  Then the file is opened again by its name, if that is
 * still the same file.  With grow_mutex held.  Returns -1 when the trace
 * cannot be reached any more. */
static int trace_fd(void)
{
	struct ctrace__file *f = &ctrace__file;
	static struct stat st; /* not on the stack: the lock serializes */
	if (f->fd >= 0 && fstat(f->fd, &st) == 0 && st.st_dev == file_id.dev &&
	    st.st_ino == file_id.ino)
		return f->fd;
	f->fd = -1; /* not ours any more: never close it */
	int fd = open(f->path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_dev != file_id.dev ||
	    st.st_ino != file_id.ino) {
		close(fd);
		return -1;
	}
	f->fd = move_high(fd);
	return f->fd;
}

/* posix_fallocate past RLIMIT_FSIZE raises SIGXFSZ, which kills the
 * program: never ask for more than the limit. */
static int within_file_limit(uint64_t want)
{
	struct rlimit rl;
	return getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	       want <= (uint64_t)rl.rlim_cur;
}

static int map_header(uint32_t chunk_size)
{
	struct ctrace__file *f = &ctrace__file;
	f->fd = move_high(f->fd);
	if (!within_file_limit(CTRACE_HEADER_SIZE))
		return -CTRACE_ERR_FILE_LIMIT;
	int e = posix_fallocate(f->fd, 0, CTRACE_HEADER_SIZE);
	if (e != 0)
		return -e;
	f->size = CTRACE_HEADER_SIZE;
	reserved_start = reserved_end = 0;
	void *h = mmap(NULL, CTRACE_HEADER_SIZE, PROT_READ | PROT_WRITE,
		       MAP_SHARED, f->fd, 0);
	if (h == MAP_FAILED)
		return -errno;
	f->header = h;
	f->chunk_size = chunk_size;
	seg_bytes = chunk_size > SEGMENT_MIN ? chunk_size : SEGMENT_MIN;
	return 0;
}

/* The pids above the parent (its parent's parent and up), from
 * /proc/PID/stat, for a reader that has no trace of a process between
 * this one and a traced ancestor (a shell).  errno is the program's. */
static void fill_ancestors(struct ctrace_file_header *h)
{
	int saved = errno;
	uint32_t pid = h->ppid;

	memset(h->ancestors, 0, sizeof h->ancestors);
	for (int i = 0; i < CTRACE_ANCESTORS && pid > 1; i++) {
		char path[32] = "/proc/", digits[12], buf[512];
		size_t n = 0, len = 6;
		uint32_t v = pid, parent = 0;
		do
			digits[n++] = (char)('0' + v % 10);
		while ((v /= 10) != 0);
		while (n)
			path[len++] = digits[--n];
		memcpy(path + len, "/stat", 6);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			break;
		ssize_t r = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (r <= 0)
			break;
		buf[r] = '\0';
		/* "pid (comm) state ppid ...": comm may hold anything */
		char *p = strrchr(buf, ')');
		if (p == NULL || p[1] != ' ' || p[2] == '\0' || p[3] != ' ')
			break;
		for (p += 4; *p >= '0' && *p <= '9'; p++)
			parent = parent * 10 + (uint32_t)(*p - '0');
		if (parent == 0)
			break;
		h->ancestors[i] = parent;
		pid = parent;
	}
	errno = saved;
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
	fill_ancestors(h);
	h->flags = flags;
	h->start_realtime_ns =
		(uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
	ctrace__naming_fill_run(h);
	ctrace__clock_init(h);
	ctrace__barrier();
	memcpy(h->magic, CTRACE_FILE_MAGIC, 8);
}

static unsigned file_mode = 0600;

/* A new trace file for ctrace__file.base (naming.c), if the file size
 * limit leaves room for its header (posix_fallocate would raise
 * SIGXFSZ). */
static int open_trace(int base_first)
{
	struct ctrace__file *f = &ctrace__file;
	if (!within_file_limit(CTRACE_HEADER_SIZE)) {
		size_t n = strlen(f->base);
		memcpy(f->path, f->base, n + 1);
		return -CTRACE_ERR_FILE_LIMIT;
	}
	return ctrace__naming_open(f->base, base_first, file_mode, f->path,
				   sizeof f->path, &file_id);
}

int ctrace__file_open(const struct ctrace__config *c)
{
	struct ctrace__file *f = &ctrace__file;
	file_mode = c->mode;
	ctrace__naming_set_run(c->run);
	int err = ctrace__naming_absolute(f->base, sizeof f->base, c->output);
	if (err < 0) {
		ctrace__warn(c->output, ": ", strerror(-err));
		return err;
	}
	int fd = open_trace(1);
	if (fd < 0)
		return ctrace__naming_report(fd, f->path);
	f->fd = fd;
	err = map_header(c->chunk_size);
	if (err < 0) {
		close(f->fd);
		f->fd = -1;
		return ctrace__naming_report(err, f->path);
	}
	fill_header(0);
	put_fd();
	return 0;
}

/* ---------------------------------------------------------------------------
 * Forked children
 * ------------------------------------------------------------------------ */

static size_t mapping_bytes(uint64_t key);

int ctrace__file_reopen_child(uint32_t parent_pid, uint32_t parent_thread,
			      uint64_t fork_ticks)
{
	struct ctrace__file *f = &ctrace__file;
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
	grow_mutex = fresh;

	/* Everything mapped here is the parent's file: the chunks of all its
	 * threads, which this process does not have. */
	for (size_t i = 0; segments != NULL && i <= seg_mask; i++) {
		if (segments[i].key > 1 && segments[i].addr != NULL)
			munmap(segments[i].addr,
			       mapping_bytes(segments[i].key));
		segments[i].key = 0;
	}
	seg_used = seg_live = 0;
	n_retiring = 0;
	munmap(f->header, CTRACE_HEADER_SIZE);
	f->header = NULL;
	/* Also drops the parent's lock from our side.  Only if it is still
	 * the trace: the program may have reused the number. */
	struct stat st;
	if (f->fd >= 0 && fstat(f->fd, &st) == 0 && st.st_dev == file_id.dev &&
	    st.st_ino == file_id.ino)
		close(f->fd);
	f->fd = -1;

	int fd = open_trace(0);
	if (fd < 0)
		return ctrace__naming_report(fd, f->path);
	f->fd = fd;
	int err = map_header(f->chunk_size);
	if (err < 0) {
		close(f->fd);
		f->fd = -1;
		return ctrace__naming_report(err, f->path);
	}
	fill_header(CTRACE_FLAG_FORKED);
	f->header->parent_pid = parent_pid;
	f->header->parent_thread = parent_thread;
	f->header->parent_ticks = fork_ticks;
	put_fd();
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

/* The same, for the error e of a system call. */
static void warn_no_space_errno(int e)
{
	if (warned_no_space)
		return;
	warned_no_space = 1;
	const char *msg[] = {ctrace__file.path, ": cannot grow the trace (",
			     strerror(e), "); events that do not fit are "
					  "counted as lost"};
	ctrace__warnv(msg, 4);
}

/* Reserves bytes [off, off + len) of the file on disk; with grow_mutex
 * held.  Returns 0 or a negative errno, after saying why once. */
static int allocate(uint64_t off, uint64_t len, int quiet)
{
	struct ctrace__file *f = &ctrace__file;
	if (!within_file_limit(off + len)) {
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
	int e = posix_fallocate(fd, (off_t)off, (off_t)len);
	/* A reservation that failed part way may have grown the file (ext4
	 * extends it as it allocates): a finished file goes back to its
	 * length, or a reader would take its last chunk, ending early, for
	 * one cut short (final_size). */
	if (e != 0 && f->header != NULL && f->header->final_size != 0)
		(void)!ftruncate(fd, (off_t)f->size);
	if (e != 0 && quiet)
		return -e;
	if (e != 0) {
		warn_no_space_errno(e);
		atomic_store(&retry_grow_at,
			     ctrace__monotonic_ns() + RETRY_GROW_NS);
		return -e;
	}
	if (off + len > f->size)
		f->size = off + len;
	return 0;
}

/* Brings bytes [off, off + len) of the file, reserved and not yet
 * written, into the page cache by writing zeros there, before they are
 * mapped: a write fault on a page of a shared mapping that is not cached
 * first reads it (for a reserved, unwritten extent, zeroes it through
 * the read path), and the faults that follow this find their pages
 * cached.  Measured on jsoncpp's test driver (64 KiB chunks, ext4): 9%
 * less time per call, the kernel's part of writing the trace.  Advice
 * only: a short or failed write leaves the rest to the faults.  Never
 * past the file size limit (a write there raises SIGXFSZ, where a store
 * to the mapping does not).  With grow_mutex held, on the descriptor
 * trace_fd() checked, as fallocate is: a program that closed it meanwhile
 * would have to open its own file at that number, at or above FD_FLOOR,
 * which open() gives only with every lower number in use.  The zeros
 * are in .bss (never written: the zero page), not in the binary. */
static void warm(int fd, uint64_t off, uint64_t len)
{
	static uint8_t zeros[1u << 16];
	if (fd < 0 || !within_file_limit(off + len))
		return;
	while (len > 0) {
		size_t n = len < sizeof zeros ? (size_t)len : sizeof zeros;
		ssize_t w = pwrite(fd, zeros, n, (off_t)off);
		if (w <= 0)
			return;
		off += (uint64_t)w;
		len -= (uint64_t)w;
	}
}

/* Reserves [off, off + len) unless the run last reserved ahead holds it.
 * A whole chunk past that run reserves ahead: a quarter of the file, from
 * one chunk to 64 MiB, so that a long trace costs a system call every
 * few chunks; what is left unused is trimmed at exit (a process ending by
 * exec or _exit keeps it: at most a quarter).  Longer runs take fewer
 * page faults to write: on ext4 (Linux 6.18) bench/work.c's 82 MB trace
 * took 14,200 faults with a quarter, 17,700 with an eighth. */
static int reserve(uint64_t off, uint64_t len)
{
	struct ctrace__file *f = &ctrace__file;
	if (off >= reserved_start && off + len <= reserved_end) {
		/* A stream's first chunk, inside the run: give back the
		 * rest of it, which a short thread would never use. */
		int fd;
		if (len < f->chunk_size && off + f->chunk_size <= reserved_end &&
		    (fd = trace_fd()) >= 0)
			fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				  (off_t)(off + len),
				  (off_t)(f->chunk_size - len));
		return 0;
	}
	uint64_t want = len;
	if (len == f->chunk_size) {
		uint64_t step = f->size / 4;
		step = step > (64u << 20) ? (64u << 20) : step;
		step -= step % f->chunk_size;
		if (step > len && within_file_limit(off + step) &&
		    allocate(off, step, 1) == 0)
			want = step;
	}
	if (want == len) {
		int err = allocate(off, len, 0);
		if (err < 0)
			return err;
	}
	reserved_start = off;
	reserved_end = off + want;
	return 0;
}

/* Makes the file at least `end` bytes long without reserving the space
 * (a hole): a reader takes a chunk the file ends inside of for one cut
 * short, but the last one of a file final_size long.  With grow_mutex
 * held. */
static int cover(uint64_t end)
{
	struct ctrace__file *f = &ctrace__file;
	if (end <= f->size)
		return 0;
	if (!within_file_limit(end)) {
		warn_no_space("file size limit); events that do not fit "
			      "are counted as lost");
		return -EFBIG;
	}
	int fd = trace_fd();
	if (fd < 0 || ftruncate(fd, (off_t)end) < 0) {
		int e = fd < 0 ? EBADF : errno;
		warn_no_space_errno(e);
		return -e;
	}
	f->size = end;
	return 0;
}

/* Reports, once, that a chunk could not be mapped: one line. */
static void warn_no_map(int err)
{
	if (warned_no_map)
		return;
	warned_no_map = 1;
	ctrace__warn(ctrace__file.path, ": cannot map the trace (",
		     err == ENOMEM || err == EAGAIN
			     ? "out of address space or locked memory); "
			       "events that do not fit are counted as lost"
			     : "mmap failed); events that do not fit are "
			       "counted as lost");
}

static uint64_t chunk_offset(uint64_t i)
{
	return CTRACE_HEADER_SIZE + i * (uint64_t)ctrace__file.chunk_size;
}

/* The first chunk that starts at or after file offset `off`. */
static uint64_t first_chunk_from(uint64_t off)
{
	uint64_t cs = ctrace__file.chunk_size;
	return off <= CTRACE_HEADER_SIZE ? 0
					 : (off - CTRACE_HEADER_SIZE + cs - 1) / cs;
}

static struct segment *seg_slot(uint64_t key)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & seg_mask;
	while (segments[i].key != 0 && segments[i].key != key)
		i = (i + 1) & seg_mask;
	return &segments[i];
}

/* Makes room for `more` entries, moving the table if it must: called
 * first under the lock by every operation that may add entries, so that
 * none moves the table while a pointer into it is held (a pointer kept
 * across a move points into the unmapped old table).  Returns 0, or -1
 * when the table cannot grow. */
static int seg_reserve(size_t more)
{
	if (segments != NULL && 2 * (seg_used + more) <= seg_mask + 1 &&
	    !ctrace__file_regrow)
		return 0;
	size_t cap = 16;
	while (cap < 4 * (seg_live + more))
		cap *= 2;
	struct segment *t = mmap(NULL, cap * sizeof *t, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
		return -1;
	munlock(t, cap * sizeof *t); /* see map_chunk */
	struct segment *old = segments;
	size_t old_cap = old == NULL ? 0 : seg_mask + 1;
	segments = t;
	seg_mask = cap - 1;
	seg_used = seg_live;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].key > 1)
			*seg_slot(old[i].key) = old[i];
	if (old != NULL)
		munmap(old, old_cap * sizeof *old);
	return 0;
}

/* The entry of segment n, or NULL; a new one if `add`, in the room
 * seg_reserve made (NULL when there is none): never moves the table. */
static struct segment *seg_find(uint64_t n, int add)
{
	uint64_t key = n + 2;
	if (segments != NULL) {
		size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 32) &
			   seg_mask;
		for (; segments[i].key != 0; i = (i + 1) & seg_mask)
			if (segments[i].key == key)
				return &segments[i];
	}
	if (!add || segments == NULL || 2 * (seg_used + 1) > seg_mask + 1)
		return NULL;
	struct segment *e = seg_slot(key);
	e->key = key;
	e->addr = NULL;
	e->chunks = first_chunk_from((n + 1) * seg_bytes) -
		    first_chunk_from(n * seg_bytes);
	e->released = 0;
	seg_used++;
	seg_live++;
	return e;
}

static void seg_remove(struct segment *e)
{
	e->key = 1; /* deleted: keeps later probes going */
	seg_live--;
}

/* Chunk i mapped on its own (the metadata's, which lives long and is
 * seldom written: it must not keep a 2 MiB window mapped), keyed apart. */
#define LONE (1ull << 62)

static size_t mapping_bytes(uint64_t key)
{
	return ((key - 2) & LONE) ? ctrace__file.chunk_size
				  : seg_bytes + ctrace__file.chunk_size;
}

/* One more chunk of segment n is done; the segment is unmapped when all
 * that start in it are.  With grow_mutex held, and room for an entry
 * reserved unless segment n has one. */
static void segment_done(uint64_t n)
{
	struct segment *e = seg_find(n, 1);
	if (e == NULL || ++e->released < e->chunks)
		return;
	if (e->addr != NULL)
		munmap(e->addr, mapping_bytes(e->key));
	seg_remove(e);
}

/* The address of chunk i, mapping its segment (or, if `lone`, the chunk
 * alone) if need be; with grow_mutex held.  NULL if it cannot. */
static uint8_t *map_chunk(uint64_t i, int lone)
{
	uint64_t off = chunk_offset(i), n = off / seg_bytes;
	/* Its entry, and for a lone chunk its segment's (segment_done). */
	struct segment *e = seg_reserve(2) < 0 ? NULL
					       : seg_find(lone ? LONE | i : n, 1);
	if (e == NULL) {
		warn_no_map(ENOMEM);
		return NULL;
	}
	if (e->addr == NULL) {
		int fd = trace_fd();
		uint64_t at = lone ? off : n * seg_bytes;
		void *m = fd < 0 ? MAP_FAILED
				 : mmap(NULL, mapping_bytes(e->key),
					PROT_READ | PROT_WRITE, MAP_SHARED, fd,
					(off_t)at);
		if (m == MAP_FAILED) {
			if (fd >= 0)
				warn_no_map(errno);
			seg_remove(e);
			return NULL;
		}
		/* After mlockall(MCL_FUTURE) every new mapping is locked and
		 * counts against RLIMIT_MEMLOCK: the program's budget, which
		 * the recorder's windows must not take.  (The mapping is
		 * refused when it would not fit in what is left: then events
		 * are counted lost.)  A no-op otherwise. */
		munlock(m, mapping_bytes(e->key));
		e->addr = m;
	}
	if (lone) {
		e->chunks = 1;
		segment_done(n); /* its segment never maps it */
		return e->addr;
	}
	return e->addr + (off - n * seg_bytes);
}

static void retire_flush(void)
{
	uint64_t cs = ctrace__file.chunk_size;
	for (unsigned k = 1; k < n_retiring; k++)
		for (unsigned j = k; j > 0 && retiring[j - 1] > retiring[j];
		     j--) {
			uint64_t x = retiring[j];
			retiring[j] = retiring[j - 1];
			retiring[j - 1] = x;
		}
	for (unsigned k = 0, j; k < n_retiring; k = j) {
		uint64_t off = chunk_offset(retiring[k]), n = off / seg_bytes;
		for (j = k + 1; j < n_retiring &&
				retiring[j] == retiring[j - 1] + 1 &&
				chunk_offset(retiring[j]) / seg_bytes == n;
		     j++)
			;
		/* Not if the segment was unmapped meanwhile (all its chunks
		 * done) or given up in a forked child. */
		struct segment *e = seg_find(n, 0);
		if (e != NULL && e->addr != NULL)
			madvise(e->addr + (off - n * seg_bytes), (j - k) * cs,
				MADV_DONTNEED);
	}
	n_retiring = 0;
}

static void retire(uint64_t i)
{
	uint32_t cs = ctrace__file.chunk_size;
	unsigned batch = cs >= RETIRE_BYTES ? 1 : RETIRE_BYTES / cs;
	retiring[n_retiring++] = i;
	if (n_retiring >= batch || n_retiring == RETIRE_MAX)
		retire_flush();
}

/* A stream is done with chunk i: its pages leave the program's memory
 * (the kernel keeps them in the page cache: nothing is lost) with the
 * next batch, and its segment is unmapped once every chunk that starts in
 * it is done.  With grow_mutex held. */
static void unmap_chunk(uint64_t i)
{
	struct ctrace__file *f = &ctrace__file;
	uint64_t off = chunk_offset(i), n = off / seg_bytes;
	struct segment *e = seg_find(LONE | i, 0);
	if (e != NULL) {
		munmap(e->addr, f->chunk_size);
		seg_remove(e);
		return;
	}
	e = seg_find(n, 0);
	if (e == NULL || e->addr == NULL)
		return;
	if (e->released + 1 < e->chunks)
		retire(i);
	segment_done(n);
}

/* In a child forked while this thread was writing chunk `index` (fork()
 * in a signal handler that interrupted the recorder): the writer goes on
 * when the handler returns, so the mapping that holds the chunk becomes
 * the child's own memory (same addresses, no file behind them), and the
 * child's file never sees those stores.  Before ctrace__file_reopen_child,
 * which unmaps only what is still the parent's file. */
void ctrace__file_orphan_chunk(uint64_t index)
{
	uint64_t off = chunk_offset(index);
	struct segment *e = seg_find(LONE | index, 0);
	if (e == NULL)
		e = seg_find(off / seg_bytes, 0);
	if (e == NULL || e->addr == NULL)
		return;
	mmap(e->addr, mapping_bytes(e->key), PROT_READ | PROT_WRITE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
	e->addr = NULL;
}

uint8_t *ctrace__file_claim(int64_t old, int lone, uint64_t *index,
			    uint32_t *len, uint8_t *reason)
{
	struct ctrace__file *f = &ctrace__file;
	uint64_t retry = atomic_load_explicit(&retry_grow_at,
					      memory_order_relaxed);
	if (f->header == NULL ||
	    (retry != 0 && ctrace__monotonic_ns() < retry)) {
		if (old >= 0)
			ctrace__file_release((uint64_t)old);
		*reason = CTRACE_LOST_NO_SPACE;
		return NULL;
	}
	pthread_mutex_lock(&grow_mutex);
	if (old >= 0)
		unmap_chunk((uint64_t)old);

	uint8_t *chunk = NULL;
	uint64_t i = f->header->chunks_claimed;
	uint64_t off = CTRACE_HEADER_SIZE + i * (uint64_t)f->chunk_size;
	if (*len > f->chunk_size)
		*len = f->chunk_size;
	if (i >= MAX_CHUNKS / (f->chunk_size >> 12))
		*reason = CTRACE_LOST_TOO_LARGE;
	else if (reserve(off, *len) < 0 ||
		 (*len < f->chunk_size && cover(off + f->chunk_size) < 0))
		*reason = CTRACE_LOST_NO_SPACE;
	else {
		warm(trace_fd(), off, *len);
		chunk = map_chunk(i, lone);
		if (chunk == NULL) {
			*reason = CTRACE_LOST_NO_MEMORY;
		} else {
			*index = i;
			__atomic_store_n(&f->header->chunks_claimed, i + 1,
					 __ATOMIC_RELEASE);
			ctrace__clock_update(f->header);
		}
	}

	/* Whatever made it fail (no space, the file size limit, no address
	 * space or locked memory), the next claims wait: a lost event must
	 * cost a counter, not system calls. */
	if (chunk == NULL) {
		atomic_store(&retry_grow_at,
			     ctrace__monotonic_ns() + RETRY_GROW_NS);
		atomic_store_explicit(&ctrace__file_stalled, *reason,
				      memory_order_relaxed);
	} else if (atomic_load_explicit(&ctrace__file_stalled,
					memory_order_relaxed)) {
		atomic_store_explicit(&ctrace__file_stalled, 0,
				      memory_order_relaxed);
	}
	put_fd();
	pthread_mutex_unlock(&grow_mutex);
	return chunk;
}

int ctrace__file_extend(uint64_t index, uint32_t from)
{
	struct ctrace__file *f = &ctrace__file;
	uint64_t retry = atomic_load_explicit(&retry_grow_at,
					      memory_order_relaxed);
	if (retry != 0 && ctrace__monotonic_ns() < retry)
		return -ENOSPC;
	uint64_t saved = ctrace__block_signals();
	pthread_mutex_lock(&grow_mutex);
	/* Never from the run reserved ahead: the rest of a first chunk was
	 * given back (reserve). */
	uint64_t off = CTRACE_HEADER_SIZE + index * f->chunk_size + from;
	int err = allocate(off, f->chunk_size - from, 0);
	if (err == 0)
		warm(trace_fd(), off, f->chunk_size - from);
	put_fd();
	pthread_mutex_unlock(&grow_mutex);
	ctrace__restore_signals(saved);
	return err;
}

/* After the program's mlockall(MCL_CURRENT), the recorder's mappings of
 * that moment are locked and count against RLIMIT_MEMLOCK, the program's
 * budget: the header, the table and the windows mapped give theirs back
 * (windows mapped later do at once, see map_chunk).  A no-op when
 * nothing is locked.  With signals blocked. */
void ctrace__file_unlock(void)
{
	pthread_mutex_lock(&grow_mutex);
	if (ctrace__file.header != NULL)
		munlock(ctrace__file.header, CTRACE_HEADER_SIZE);
	if (segments != NULL)
		munlock(segments, (seg_mask + 1) * sizeof *segments);
	for (size_t i = 0; segments != NULL && i <= seg_mask; i++)
		if (segments[i].key > 1 && segments[i].addr != NULL)
			munlock(segments[i].addr,
				mapping_bytes(segments[i].key));
	pthread_mutex_unlock(&grow_mutex);
}

/* The chunk's events stay in the page cache: unmapping a shared file
 * mapping loses nothing, it only stops counting the pages as ours. */
void ctrace__file_release(uint64_t index)
{
	uint64_t saved = ctrace__block_signals();
	pthread_mutex_lock(&grow_mutex);
	unmap_chunk(index);
	pthread_mutex_unlock(&grow_mutex);
	ctrace__restore_signals(saved);
}

/* What the process used, as it ends (ctrace info shows it): the
 * launcher's wait4, when it started the process, replaces it later with
 * the values from the very end.  With grow_mutex held. */
static void record_usage(struct ctrace_file_header *h)
{
	/* Static, under grow_mutex: not on the exiting thread's stack. */
	static struct rusage ru;
	static struct timespec rt;
	int saved_errno = errno;
	if (getrusage(RUSAGE_SELF, &ru) == 0 &&
	    clock_gettime(CLOCK_REALTIME, &rt) == 0 &&
	    !(h->exit_flags & CTRACE_EXIT_WAITED)) {
		h->end_realtime_ns = (uint64_t)rt.tv_sec * 1000000000u +
				     (uint64_t)rt.tv_nsec;
		h->user_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000u +
			     (uint64_t)ru.ru_utime.tv_usec * 1000u;
		h->system_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000u +
			       (uint64_t)ru.ru_stime.tv_usec * 1000u;
		h->max_rss_kb = (uint64_t)ru.ru_maxrss;
		h->voluntary_switches = (uint64_t)ru.ru_nvcsw;
		h->involuntary_switches = (uint64_t)ru.ru_nivcsw;
		h->exit_flags |= CTRACE_EXIT_USAGE;
	}
	errno = saved_errno;
}

uint32_t ctrace__file_finish(uint64_t last, uint32_t used)
{
	struct ctrace__file *f = &ctrace__file;
	uint32_t kept = 0;
	if (f->header == NULL)
		return 0;
	uint64_t saved = ctrace__block_signals();
	pthread_mutex_lock(&grow_mutex);
	/* Claims take this lock too, so no chunk can be handed out past the
	 * new end; events after this point extend the file again. */
	uint64_t claimed = f->header->chunks_claimed;
	uint64_t end = CTRACE_HEADER_SIZE + claimed * (uint64_t)f->chunk_size;
	/* The last chunk is the caller's: the file ends with the pages it
	 * used (a reader takes the last chunk cut short). */
	if (claimed != 0 && last == claimed - 1) {
		uint32_t page = (used + 4095u) & ~4095u;
		if (page != 0 && page < f->chunk_size) {
			kept = page;
			end -= f->chunk_size - page;
		}
	}
	int fd = end < f->size ? trace_fd() : -1;
	if (fd >= 0 && ftruncate(fd, (off_t)end) == 0) {
		f->size = end;
		f->header->final_size = kept != 0 ? end : 0;
		/* What was reserved ahead is gone with it: a chunk claimed
		 * later (threads still running, destructors) reserves anew,
		 * never writes past the end of the file (SIGBUS). */
		if (reserved_end > end)
			reserved_end = end;
		if (reserved_start > reserved_end)
			reserved_start = reserved_end;
	} else {
		kept = 0;
	}
	ctrace__clock_update(f->header);
	record_usage(f->header);
	__atomic_or_fetch(&f->header->flags, CTRACE_FLAG_FINALIZED,
			  __ATOMIC_RELEASE);
	put_fd();
	pthread_mutex_unlock(&grow_mutex);
	ctrace__restore_signals(saved);
	return kept;
}

void ctrace__file_sync(void)
{
	uint64_t saved = ctrace__block_signals();
	pthread_mutex_lock(&grow_mutex);
	if (ctrace__file.header != NULL)
		ctrace__clock_update(ctrace__file.header);
	pthread_mutex_unlock(&grow_mutex);
	ctrace__restore_signals(saved);
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
