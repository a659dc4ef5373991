/* naming.c -- the trace file's name, and creating it safely: which name
 * (<base>, <base>.<pid>, <base>.<pid>.<n>), the directories on the way
 * to it, a file that is there already.  file.c gives the file its space
 * and maps it; this file knows nothing of that.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "runid.h"

/* The name being chosen, and what to create it with (ctrace__naming_open). */
static char *out_path;
static size_t out_size;
static unsigned out_mode;
static struct ctrace__file_id *out_id;

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

/* ---------------------------------------------------------------------------
 * The run
 *
 * Every process of one run keeps its trace: a program that a shell runs
 * after another (`sh -c './a; ./b'`) must not replace the first one's
 * trace.bin.  ctrace record names the run in CTRACE_RUN, which its
 * program's descendants inherit; without it, a run is a process group
 * (what a shell makes of one command line, and its children inherit),
 * told apart from a later group of the same number by its leader's start
 * time.  Nothing is written to the environment: the program sees its own.
 * ------------------------------------------------------------------------ */

/* The run_* fields of our header. */
static struct ctrace_file_header self;

/* The start time (field 22 of /proc/PID/stat) of the process group
 * leader, if it is still there and still the leader; 0 if unknown.  Once,
 * at start-up: the buffer is static (no buffer on the program's stack). */
static uint64_t group_start(uint32_t pgid)
{
	static char buf[1024];
	char path[32] = "/proc/";
	u32_str(path + 6, pgid);
	size_t len = strlen(path);
	if (str_copy(path + len, sizeof path - len, "/stat", NULL, NULL) < 0)
		return 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* The name, in parentheses, may hold anything: fields start after
	 * the last ')'.  There, field 3 (state) comes first. */
	const char *p = strrchr(buf, ')');
	uint64_t group = 0, start = 0;
	int field = 3;
	if (p == NULL)
		return 0;
	for (p++; *p && field <= 22; field++) {
		while (*p == ' ')
			p++;
		uint64_t x = 0;
		while (*p >= '0' && *p <= '9')
			x = x * 10 + (uint64_t)(*p++ - '0');
		while (*p && *p != ' ')
			p++;
		if (field == 5)
			group = x;
		else if (field == 22)
			start = x;
	}
	if (field <= 22 || group != pgid)
		return 0;
	return start;
}

void ctrace__naming_set_run(const char *name)
{
	self.run_id = name != NULL ? ctrace__run_hash(name) : 0;
	self.run_pgid = (uint32_t)getpgrp();
	self.run_start = group_start(self.run_pgid);
}

void ctrace__naming_fill_run(struct ctrace_file_header *h)
{
	h->run_id = self.run_id;
	h->run_pgid = self.run_pgid;
	h->run_start = self.run_start;
}

/* ---------------------------------------------------------------------------
 * The directories on the way
 *
 * A directory that another user can change could hold, or get, a symbolic
 * link that sends the trace (written with the program's privileges) where
 * that user wants.  So every directory from the root to the trace's must
 * be the user's or root's and writable by nobody else, unless it is
 * sticky (/tmp), where the entries we go through must then be the user's
 * or root's.  A symbolic link on the way is followed only if the user or
 * root owns it or its directory is writable by nobody else, and the
 * directory it leads to must pass the same test.
 * ------------------------------------------------------------------------ */

#define ERR_UNSAFE_DIR 10001 /* -ERR_UNSAFE_DIR: see ctrace__naming_report */
#define ERR_NOT_OWNER 10002

static int owned_by_us(const struct stat *st)
{
	return st->st_uid == geteuid() || st->st_uid == 0;
}

/* Writable by someone else than its owner and the user's group. */
static int writable_by_others(const struct stat *st)
{
	return (st->st_mode & S_IWOTH) ||
	       ((st->st_mode & S_IWGRP) && st->st_gid != getegid());
}

/* 1 if nobody but the user and root can change what dir holds, 2 if
 * others can add entries but not replace ours (sticky), 0 otherwise. */
static int dir_trust(int dir)
{
	struct stat st;
	if (fstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || !owned_by_us(&st))
		return 0;
	if (!writable_by_others(&st))
		return 1;
	return (st.st_mode & S_ISVTX) ? 2 : 0;
}

/* Opens the directory of the absolute path `path` (O_PATH), checking each
 * one on the way; *leaf is set to the file name.  Returns the descriptor
 * or a negative error; *bad names the directory refused. */
static int open_directory(const char *path, const char **leaf, char *bad,
			  size_t bad_size)
{
	const char *end = strrchr(path, '/');
	int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	int trust = dir_trust(dir);
	const char *p = path;
	while (trust != 0) {
		while (*p == '/')
			p++;
		if (p > end)
			break;
		const char *q = strchr(p, '/');
		char name[256];
		if ((size_t)(q - p) >= sizeof name) {
			close(dir);
			return -ENAMETOOLONG;
		}
		memcpy(name, p, (size_t)(q - p));
		name[q - p] = '\0';
		p = q;
		struct stat st;
		if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			int e = errno;
			close(dir);
			return -e;
		}
		int flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
		if (!S_ISLNK(st.st_mode))
			flags |= O_NOFOLLOW;
		else if (trust == 2 && !owned_by_us(&st))
			trust = 0;
		int next = trust ? openat(dir, name, flags) : -1;
		int e = errno;
		close(dir);
		if (trust && next < 0)
			return -e;
		dir = next;
		if (trust)
			trust = dir_trust(dir);
	}
	if (trust == 0) {
		size_t n = (size_t)(p - path);
		if (n == 0)
			n = 1;
		if (n >= bad_size)
			n = bad_size - 1;
		memcpy(bad, path, n);
		bad[n] = '\0';
		if (dir >= 0)
			close(dir);
		return -ERR_UNSAFE_DIR;
	}
	*leaf = end + 1;
	return dir;
}

/* ---------------------------------------------------------------------------
 * The file
 * ------------------------------------------------------------------------ */

/* Creates `name` in dir, new, with the trace's mode, and locks it.  The
 * file gets its name locked: another process of the run starting at the
 * same moment must never find it unlocked, take it for a finished trace
 * of an earlier run and replace it.  So it is made unnamed (O_TMPFILE),
 * locked, then linked under the name, which fails if the name is taken;
 * where the file system has no O_TMPFILE (or /proc is missing), it is
 * created under the name and locked at once. */
static int create_file(int dir, const char *name)
{
	int fd = openat(dir, ".", O_RDWR | O_TMPFILE | O_CLOEXEC, out_mode);
	if (fd >= 0) {
		struct stat st;
		char proc[32] = "/proc/self/fd/";
		u32_str(proc + 14, (uint32_t)fd);
		if (fstat(fd, &st) < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
			close(fd);
			return -EBUSY;
		}
		if (linkat(AT_FDCWD, proc, dir, name, AT_SYMLINK_FOLLOW) == 0) {
			out_id->dev = st.st_dev;
			out_id->ino = st.st_ino;
			return fd;
		}
		int e = errno;
		close(fd);
		if (e != ENOENT)
			return e == EEXIST ? -EBUSY : -e;
	}
	fd = openat(dir, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
				       O_CLOEXEC | O_NONBLOCK,
		    out_mode);
	if (fd < 0)
		return errno == EEXIST ? -EBUSY : -errno;
	struct stat st;
	if (fstat(fd, &st) < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		return -EBUSY;
	}
	out_id->dev = st.st_dev;
	out_id->ino = st.st_ino;
	return fd;
}

/* Opens `name` in dir for writing a new trace.  Returns an fd, -EBUSY when
 * the name belongs to another trace that must be kept (see below), or
 * another negative error (the caller reports it).  An old trace is
 * replaced by a new file, never truncated: whoever still reads it keeps
 * it, and the new one has our owner and mode. */
static int open_candidate(int dir, const char *name)
{
	struct stat st;
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? create_file(dir, name) : -errno;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (st.st_uid != geteuid())
		return -ERR_NOT_OWNER;
	/* O_NONBLOCK: should a FIFO have replaced it meanwhile. */
	int old = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
					    O_NONBLOCK);
	if (old < 0)
		return errno == ENOENT ? -EBUSY : -errno;
	struct stat ost;
	if (fstat(old, &ost) < 0 || ost.st_dev != st.st_dev ||
	    ost.st_ino != st.st_ino) {
		close(old);
		return -EBUSY;
	}
	/* A live writer holds the lock for as long as it runs. */
	if (flock(old, LOCK_EX | LOCK_NB) < 0) {
		close(old);
		return -EBUSY;
	}
	if (st.st_size > 0) {
		struct ctrace_file_header h;
		ssize_t n = pread(old, &h, sizeof h, 0);
		if (n < (ssize_t)sizeof h.magic ||
		    memcmp(h.magic, CTRACE_FILE_MAGIC, 8) != 0) {
			close(old);
			return -EEXIST;
		}
		/* Keep the trace of the program that exec'ed us (same pid,
		 * its lock went with exec), of our parent, and of every
		 * process of our run. */
		if (n == (ssize_t)sizeof h &&
		    (h.pid == (uint32_t)getpid() ||
		     h.pid == (uint32_t)getppid() || ctrace__run_same(&h, &self))) {
			close(old);
			return -EBUSY;
		}
	}
	/* Another process may have replaced it since we looked (and holds
	 * the new file's lock only once it has created it): unlink only
	 * the file we checked. */
	struct stat now;
	if (fstatat(dir, name, &now, AT_SYMLINK_NOFOLLOW) < 0 ||
	    now.st_dev != ost.st_dev || now.st_ino != ost.st_ino) {
		close(old);
		return -EBUSY;
	}
	int fd = unlinkat(dir, name, 0) == 0 ? create_file(dir, name)
					     : -errno;
	close(old);
	return fd;
}

/* Sets out_path to <base>.<pid>, or <base>.<pid>.<n> when n > 0;
 * returns a pointer to the file name in it. */
static const char *numbered(const char *base, uint64_t n)
{
	char *path = out_path;
	size_t size = out_size;
	char pid[12], num[24];
	u32_str(pid, (uint32_t)getpid());
	if (str_copy(path, size, base, ".", pid) < 0)
		return NULL;
	if (n > 0) {
		int i = (int)sizeof num - 1;
		num[i] = '\0';
		for (; n; n /= 10)
			num[--i] = (char)('0' + n % 10);
		size_t len = strlen(path);
		if (str_copy(path + len, size - len, ".", num + i, NULL) < 0)
			return NULL;
	}
	return strrchr(path, '/') + 1;
}

static int name_taken(int dir, const char *base, uint64_t n)
{
	struct stat st;
	const char *name = numbered(base, n);
	return name != NULL && fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Tries <base>, then <base>.<pid>, then <base>.<pid>.<n>, with no limit:
 * a process that execs itself a million times takes the millionth name
 * after a logarithmic search for the first free one. */
int ctrace__naming_open(const char *base, int base_first, unsigned mode,
			char *path, size_t size, struct ctrace__file_id *id)
{
	char bad[4096];
	const char *leaf = NULL;
	out_path = path;
	out_size = size;
	out_mode = mode;
	out_id = id;
	int dir = open_directory(base, &leaf, bad, sizeof bad);
	if (dir < 0) {
		if (dir == -ERR_UNSAFE_DIR)
			str_copy(out_path, out_size,
				 bad, NULL, NULL);
		else
			str_copy(out_path, out_size,
				 base, NULL, NULL);
		return dir;
	}
	int fd = -EBUSY;
	if (base_first) {
		if (str_copy(out_path, out_size, base,
			     NULL, NULL) < 0)
			fd = -ENAMETOOLONG;
		else
			fd = open_candidate(dir, leaf);
	}
	uint64_t n = 0;
	while (fd == -EBUSY) {
		/* Past a run of taken names: gallop, then bisect, to the
		 * end of the run. */
		if (n >= 8 && name_taken(dir, base, n)) {
			uint64_t lo = n, step = 8;
			while (name_taken(dir, base, lo + step) && step < (1ull << 40))
				lo += step, step *= 2;
			uint64_t hi = lo + step;
			while (hi - lo > 1) {
				uint64_t mid = lo + (hi - lo) / 2;
				if (name_taken(dir, base, mid))
					lo = mid;
				else
					hi = mid;
			}
			n = hi;
		}
		const char *name = numbered(base, n);
		fd = name == NULL ? -ENAMETOOLONG : open_candidate(dir, name);
		n++;
	}
	close(dir);
	return fd;
}

int ctrace__naming_report(int err, const char *path)
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
	case -ERR_NOT_OWNER:
		why = ": belongs to another user; not reusing it";
		break;
	case -ERR_UNSAFE_DIR:
		why = ": a directory another user can change (or a symbolic "
		      "link in it); not writing below it";
		break;
	case -CTRACE_ERR_FILE_LIMIT:
		why = ": the file size limit (ulimit -f) is below the trace's "
		      "header";
		break;
	default:
		why = NULL;
	}
	if (why != NULL)
		ctrace__warn(path, why, "; tracing disabled");
	else
		ctrace__warn(path, ": ", strerror(-err));
	return err;
}


int ctrace__naming_absolute(char *dst, size_t size, const char *path)
{
	if (path[0] == '/')
		return str_copy(dst, size, path, NULL, NULL);
	char cwd[4096];
	if (getcwd(cwd, sizeof cwd) == NULL)
		return -errno;
	return str_copy(dst, size, cwd, "/", path);
}

