/* modules.c -- the module map: which ELF object is loaded where.
 *
 * The trace stores raw addresses; the symbolizer needs, for each loaded
 * object, its path, load bias, address range and build-id.  Objects are
 * recorded at start-up, and again whenever an address shows up that no
 * known object covers and the loader's list has changed since (dlopen),
 * when a thread claims a chunk and the list has changed, after a pause in
 * a thread's events (emit.h), and at exit.  The program's dlopen and
 * dlclose are not wrapped: the loader's counters of objects added and
 * removed tell when to look.  A library unloaded and another loaded at
 * the same address between two looks are recorded gone, then loaded, at
 * the time of the look.  dl_iterate_phdr
 * runs without our lock held: user code may call it with an instrumented
 * callback, which would otherwise order the two locks both ways.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elfsym.h"
#include "internal.h"
#include "plt.h"

struct known {
	uintptr_t start, end;
	uint64_t path_hash;
	uint32_t generation; /* of the last scan that saw it */
	uint8_t later;       /* found after the first scan */
	_Atomic int gone;
};

#define MAX_KNOWN 65536 /* virtual room; pages are touched as used */
static struct known *known;
static _Atomic size_t n_known;
static uint32_t generation;
static uint64_t seen_adds = ~0ull, seen_subs = ~0ull;
/* Bumped by each scan that found an object loaded or unloaded: the pair
 * tables of every stream must then be started afresh (emit.h). */
_Atomic uint32_t ctrace__modules_epoch;
/* Bumped when an object is found gone: threads' cached hits are stale. */
static _Atomic uint32_t map_generation;
static __thread uintptr_t hit_start, hit_end
	__attribute__((tls_model("initial-exec")));
static __thread uint32_t hit_generation
	__attribute__((tls_model("initial-exec")));

/* ---------------------------------------------------------------------------
 * Collecting the loader's list
 * ------------------------------------------------------------------------ */

struct object {
	uint64_t bias, start, end;
	uint16_t path_len;
	uint8_t build_id_len;
	uint8_t build_id[64];
	char path[]; /* path_len bytes, no terminator */
};

struct collection {
	uint8_t *buf;
	size_t size, used;
	int overflow;
	int first;
	uint64_t adds, subs;
};

static size_t object_size(size_t path_len)
{
	return (sizeof(struct object) + path_len + 7) & ~(size_t)7;
}

size_t ctrace__build_id(const struct dl_phdr_info *info, uint8_t *id,
			size_t max)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		size_t len = ctrace__elf_build_id(
			(const void *)(info->dlpi_addr + ph->p_vaddr),
			ph->p_memsz, id, max);
		if (len != 0)
			return len;
	}
	return 0;
}

static int collect_one(struct dl_phdr_info *info, size_t size, void *data)
{
	struct collection *c = data;
	int first = c->first;
	c->first = 0;
	if (first && size >= offsetof(struct dl_phdr_info, dlpi_subs) +
				     sizeof info->dlpi_subs) {
		c->adds = info->dlpi_adds;
		c->subs = info->dlpi_subs;
	}
	if (c->buf == NULL)
		return 1; /* only the counters were wanted */

	/* The executable's path is read straight into the collection: no
	 * path buffer on the stack of the program's thread that runs this
	 * (see doc/security.md's bounds on the recorder's stack). */
	struct object *o = (struct object *)(c->buf + c->used);
	const char *path = info->dlpi_name;
	size_t len;
	if (first && (path == NULL || *path == '\0')) {
		if (c->used + object_size(4096) > c->size) {
			c->overflow = 1;
			return 1;
		}
		ssize_t n = readlink("/proc/self/exe", o->path, 4096);
		if (n <= 0 || n >= 4096)
			return 0;
		path = o->path;
		len = (size_t)n;
	} else if (path == NULL || strchr(path, '/') == NULL) {
		return 0; /* the vDSO: no file to read symbols from */
	} else {
		len = strlen(path);
	}

	uintptr_t lo = UINTPTR_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t s = info->dlpi_addr + ph->p_vaddr;
		if (s < lo)
			lo = s;
		if (s + ph->p_memsz > hi)
			hi = s + ph->p_memsz;
	}
	if (lo >= hi || len > 4096)
		return 0;

	size_t need = object_size(len);
	if (c->used + need > c->size) {
		c->overflow = 1;
		return 1;
	}
	o->bias = info->dlpi_addr;
	o->start = lo;
	o->end = hi;
	o->path_len = (uint16_t)len;
	o->build_id_len = (uint8_t)ctrace__build_id(info, o->build_id,
						    sizeof o->build_id);
	if (path != o->path)
		memcpy(o->path, path, len);
	c->used += need;
	return 0;
}

/* ---------------------------------------------------------------------------
 * Recording
 * ------------------------------------------------------------------------ */

/* dl_iterate_phdr with signals blocked: it holds the loader's lock, which
 * a signal handler that jumps out (siglongjmp) would leave taken for
 * good, and the program's next dlopen would wait on it forever.  A caller
 * that has them blocked already (`blocked`) saves the two system calls. */
static void iterate_loader(struct collection *c, int blocked)
{
	/* the kernel's 8-byte mask, not two sigset_t of 128 bytes on the
	 * program's stack (this runs on its threads) */
	uint64_t saved = 0;
	if (!blocked)
		saved = ctrace__block_signals();
	dl_iterate_phdr(collect_one, c);
	if (!blocked)
		ctrace__restore_signals(saved);
}

static uint64_t hash_path(const char *p, size_t n)
{
	uint64_t h = 14695981039346656037ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)p[i]) * 1099511628211ull;
	return h;
}

static void put_u64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* With the metadata lock held: the live entry for o, or NULL. */
static struct known *find_known(const struct object *o, uint64_t h)
{
	size_t n = atomic_load(&n_known);
	for (size_t i = 0; i < n; i++) {
		struct known *k = &known[i];
		if (!atomic_load(&k->gone) && k->start == o->start &&
		    k->end == o->end && k->path_hash == h)
			return k;
	}
	return NULL;
}

/* The path of the file mapped at addr, as the kernel names it (absolute,
 * whatever name the program gave dlopen): from /proc/self/maps, into dst
 * (size bytes, no terminator).  Returns its length, or 0.  With the
 * metadata lock held (the buffer is static). */
static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Reads a hexadecimal number at *p, moving *p past it. */
static uintptr_t hex_number(char **p)
{
	uintptr_t v = 0;
	for (int d; (d = hex_digit(**p)) >= 0; (*p)++)
		v = v * 16 + (uintptr_t)d;
	return v;
}

static size_t mapped_path(uintptr_t addr, uint8_t *dst, size_t size)
{
	static char buf[8192];
	size_t have = 0, found = 0;
	int saved_errno = errno;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		errno = saved_errno;
		return 0;
	}
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof buf - 1 - have);
		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = '\0';
		char *line = buf, *nl;
		while ((nl = strchr(line, '\n')) != NULL) {
			*nl = '\0';
			char *p = line;
			uintptr_t lo = hex_number(&p);
			if (*p == '-')
				p++;
			uintptr_t hi = hex_number(&p);
			if (addr >= lo && addr < hi) {
				/* perms offset dev inode, then the path */
				char *path = strchr(p, '/');
				size_t len = path ? strlen(path) : 0;
				if (len > 0 && len <= size) {
					memcpy(dst, path, len);
					found = len;
				}
				close(fd);
				errno = saved_errno;
				return found;
			}
			line = nl + 1;
		}
		/* keep the partial line; a line longer than the buffer is
		 * dropped */
		have = (size_t)(buf + have - line);
		if (have >= sizeof buf - 1)
			have = 0;
		memmove(buf, line, have);
	}
	close(fd);
	errno = saved_errno;
	return 0;
}

/* With the metadata lock held.  Returns 1 if the object is new. */
static int record_object(const struct object *o, uint64_t now)
{
	uint64_t h = hash_path(o->path, o->path_len);
	struct known *k = find_known(o, h);
	if (k != NULL) {
		k->generation = generation;
		return 0;
	}
	size_t n = atomic_load(&n_known);
	if (n == MAX_KNOWN)
		return 0;

	/* Static, under the lock: not 4 KiB of the program's stack. */
	static uint8_t rec[8 * 4 + 1 + 64 + 4096];
	size_t len = 0;
	put_u64(rec + len, now), len += 8;
	put_u64(rec + len, o->bias), len += 8;
	put_u64(rec + len, o->start), len += 8;
	put_u64(rec + len, o->end), len += 8;
	rec[len++] = o->build_id_len;
	memcpy(rec + len, o->build_id, o->build_id_len), len += o->build_id_len;
	/* A relative name (dlopen("./plugin.so")) means the directory the
	 * program was in then: the kernel knows the file's absolute path. */
	size_t abs = o->path_len > 0 && o->path[0] != '/'
			     ? mapped_path(o->start, rec + len, 4096)
			     : 0;
	if (abs == 0)
		memcpy(rec + len, o->path, o->path_len), abs = o->path_len;
	len += abs;
	ctrace__meta_record(CTRACE_REC_MODULE, rec, len);

	known[n].start = o->start;
	known[n].end = o->end;
	known[n].path_hash = h;
	known[n].generation = generation;
	known[n].later = generation > 1;
	atomic_store(&known[n].gone, 0);
	atomic_store_explicit(&n_known, n + 1, memory_order_release);
	return 1;
}

/* See ctrace__file_unlock: the table's room, reserved once. */
void ctrace__modules_unlock(void)
{
	if (known != NULL)
		munlock(known, MAX_KNOWN * sizeof *known);
}

void ctrace__modules_scan(uint64_t now)
{
	if (known == NULL) {
		void *m = mmap(NULL, MAX_KNOWN * sizeof *known,
			       PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
			       0);
		if (m == MAP_FAILED)
			return;
		known = m;
	}

	struct collection c = {.size = 256u << 10};
	for (;;) {
		void *m = mmap(NULL, c.size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return;
		c.buf = m;
		c.used = 0;
		c.overflow = 0;
		c.first = 1;
		iterate_loader(&c, 0);
		if (!c.overflow)
			break;
		munmap(c.buf, c.size);
		c.size *= 4;
	}

	uint64_t saved;
	ctrace__meta_lock(&saved);
	generation++;
	int added = 0, removed = 0;
	/* Objects still there first, then the ones gone, then the new ones:
	 * a library unloaded and another loaded at its address since the
	 * last scan are then recorded in the order they happened. */
	for (size_t off = 0; off < c.used;) {
		const struct object *o = (const struct object *)(c.buf + off);
		struct known *k = find_known(o, hash_path(o->path, o->path_len));
		if (k != NULL)
			k->generation = generation;
		off += object_size(o->path_len);
	}
	size_t n = atomic_load(&n_known);
	for (size_t i = 0; i < n; i++) {
		struct known *k = &known[i];
		if (atomic_load(&k->gone) || k->generation == generation)
			continue;
		atomic_store(&k->gone, 1);
		atomic_fetch_add(&map_generation, 1);
		removed = 1;
		uint8_t rec[16];
		put_u64(rec, now);
		put_u64(rec + 8, k->start);
		ctrace__meta_record(CTRACE_REC_MODULE_GONE, rec, sizeof rec);
	}
	for (size_t off = 0; off < c.used;) {
		const struct object *o = (const struct object *)(c.buf + off);
		added |= record_object(o, now);
		off += object_size(o->path_len);
	}
	seen_adds = c.adds;
	seen_subs = c.subs;
	if (added || removed)
		atomic_fetch_add(&ctrace__modules_epoch, 1);
	ctrace__meta_unlock(&saved);
	munmap(c.buf, c.size);
	/* A new object's functions need their filter flags (a no-op without
	 * filters), and its slots redirecting.  The first scan runs before
	 * the filters are read, and before the slots are looked at.  The
	 * slots are looked at whenever the loader's list changed, an object
	 * added or not: one unloaded and loaded again at its address between
	 * two scans is the same object here, with a new GOT (plt.c notices
	 * it by its first slot). */
	if (generation > 1) {
		if (added)
			ctrace__filter_rescan();
		ctrace__plt_scan();
	}
}

void ctrace__modules_check(uintptr_t addr, uint64_t now)
{
	uint32_t gen = atomic_load_explicit(&map_generation,
					    memory_order_relaxed);
	if (addr - hit_start < hit_end - hit_start && gen == hit_generation)
		return;
	hit_generation = gen;
	size_t n = atomic_load_explicit(&n_known, memory_order_acquire);
	for (size_t i = 0; i < n; i++) {
		const struct known *k = &known[i];
		if (addr >= k->start && addr < k->end &&
		    !atomic_load_explicit(&k->gone, memory_order_relaxed)) {
			hit_start = k->start;
			hit_end = k->end;
			return;
		}
	}
	/* Not in any module we know: rescan only if the loader's list has
	 * changed, or code outside every object (JIT) would rescan on each
	 * new pair. */
	struct collection c = {.first = 1};
	iterate_loader(&c, 0);
	if (c.adds != seen_adds || c.subs != seen_subs)
		ctrace__modules_scan(now);
}

int ctrace__modules_find(uintptr_t addr, uintptr_t *lo, uintptr_t *len)
{
	size_t n = atomic_load_explicit(&n_known, memory_order_acquire);
	for (size_t i = 0; i < n; i++) {
		const struct known *k = &known[i];
		if (addr >= k->start && addr < k->end &&
		    !atomic_load_explicit(&k->gone, memory_order_relaxed)) {
			*lo = k->start;
			*len = k->end - k->start;
			return 1 + k->later;
		}
	}
	return 0;
}

/* fn's flags, its object (found: 2 if loaded since start) the thread's
 * known one for the table now published. */
static uint8_t known_flags(struct ctrace__thread *t, uintptr_t fn, int found)
{
	t->known_later = found == 2;
	t->known_table = atomic_load_explicit(&ctrace__flags_table,
					      memory_order_acquire);
	return ctrace__function_flags(fn);
}

/* ctrace__entry_flags() for a function the table does not list, outside
 * the object the thread found known last, or in an object loaded since
 * start that was last looked for longer ago than a reload takes.  Lean
 * (the range goes straight into the thread), and the scan a tail call's:
 * a thread that notices a dlopen rescans on its program's stack
 * (doc/security.md's bounds).  `known`: fn lies in a known object, which
 * may be gone (dlclose) with another at its address: the loader's list
 * is looked at; else fn's object is new, or none. */
static __attribute__((noinline)) uint8_t
flags_miss_scan(struct ctrace__thread *t, uintptr_t fn, int known)
{
	/* Loaded since the last scan: scanned now, and the table rebuilt
	 * with its functions. */
	uint64_t now = ctrace__now();
	if (known)
		ctrace__modules_refresh(now, 0);
	else
		ctrace__modules_check(fn, now);
	int found = ctrace__modules_find(fn, &t->known_lo, &t->known_len);
	if (!found) {
		/* In no object (generated code): checked once. */
		t->known_lo = fn;
		t->known_len = 1;
	}
	t->known_checked = now;
	return known_flags(t, fn, found);
}

uint8_t ctrace__modules_flags_miss(struct ctrace__thread *t, uintptr_t fn)
{
	int found = ctrace__modules_find(fn, &t->known_lo, &t->known_len);
	if (!found || (found == 2 && ctrace__now() - t->known_checked >=
						CTRACE_GAP_TICKS))
		return flags_miss_scan(t, fn, found);
	return known_flags(t, fn, found);
}

/* A thread claims a chunk, or an event follows a pause: catches a dlopen
 * or dlclose made since the last look. */
void ctrace__modules_refresh(uint64_t now, int signals_blocked)
{
	if (known == NULL)
		return;
	struct collection c = {.first = 1};
	iterate_loader(&c, signals_blocked);
	if (c.adds != seen_adds || c.subs != seen_subs)
		ctrace__modules_scan(now);
}

/* In a fork()ed child: the new file has recorded nothing yet. */
void ctrace__modules_reset(void)
{
	atomic_store(&n_known, 0);
	seen_adds = seen_subs = ~0ull;
	hit_start = hit_end = 0;
	atomic_fetch_add(&map_generation, 1);
}
