/* resolve.c -- addresses to names and source lines (libbfd, libiberty).
 *
 * Where each answer comes from:
 *
 *   name       the ELF symbol at (function entry) or around (call site)
 *              the address, from .symtab -- or the separate debug file's
 *              .symtab, or .dynsym when both are gone; then the DWARF
 *              function; then "module+0xoffset"
 *   file:line  DWARF line tables through bfd_find_nearest_line, with
 *              bfd_find_inliner_info for the functions inlined there
 *
 * DWARF comes from the module itself or from a separate debug file found
 * by build-id or .gnu_debuglink (debuginfo.c).  libbfd reads DWARF 2 to 5,
 * compressed sections included.
 *
 * Answers are cached by address.  The module is chosen by address and
 * time, so the cache key is really (address, module); an entry also
 * remembers whether its address was covered by one module only, which
 * lets a hit skip choosing the module -- the common case, and then a hit
 * costs one hash probe and allocates nothing.  resolve_function_name
 * leaves the caching to its caller: the symbol table keeps one name per
 * function address and epoch, and an entry here would only duplicate it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "resolve/resolve.h"
#include "resolve/resolve_internal.h"
#include "util/pool.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The most inline levels reported for one address. */
#define MAX_FRAMES 64

/* ---------------------------------------------------------------------------
 * Data
 * ------------------------------------------------------------------------ */

enum module_state { MODULE_UNOPENED, MODULE_OPEN, MODULE_FAILED };

/* 80 bytes, in a pool: most addresses have one source frame, and the
 * outer ones of inlined code are in a pool of their own. */
struct entry {
	uint64_t addr; /* as passed in */
	const struct module *module;
	/* low 32 bits of r->generation when `unique` was computed; every
	 * entry's `unique` is cleared when they wrap (bump_generation) */
	uint32_t generation;
	bool call_site;
	bool unique; /* no other module covered addr at `generation` */
	struct resolve_info info;
};

struct resolver {
	enum resolve_demangle demangle;
	char **search_dirs;
	size_t n_search_dirs;
	char **debug_dirs;
	size_t n_debug_dirs;
	resolve_error_fn error;
	void *error_data;

	struct module **modules;
	size_t n_modules, cap_modules;
	/* The modules sorted by start and, for each position, the last
	 * earlier module that still covers its start (SIZE_MAX: none).  The
	 * modules covering an address are among the last module starting at
	 * or before it and that chain: as many as modules nest, not as many
	 * as there are.  Rebuilt when the modules change. */
	struct module **by_start;
	size_t *covered_by;
	uint64_t indexed_generation; /* generation by_start was built at */
	/* Modules not found on disk (reported: the first one). */
	size_t n_not_found;
	/* Bumped whenever the set of modules changes: cached "only one
	 * module covers this address" facts are then rechecked. */
	uint64_t generation;

	struct pool entries;
	struct id_table entry_ids;
	struct pool frames; /* the outer frames of inlined code */

	struct str_map names; /* raw symbol -> display name */
	struct str_map files; /* interned file names */
	struct str_map reported; /* messages already given to `error` */

	bool bfd_ready; /* debuginfo_init succeeded: call debuginfo_exit */
	unsigned bfd_messages;
	struct resolve_info oom_info; /* the answer when memory ran out */
};

/* ---------------------------------------------------------------------------
 * Messages
 * ------------------------------------------------------------------------ */

/* Each distinct message is reported once: a module declared several times
 * (loaded again, or in several traces) warns once, not per declaration. */
void resolve_report(struct resolver *r, int errnum, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	uint64_t h;

	if (r->error == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	h = strmap_hash(msg);
	if (strmap_find(&r->reported, msg, h) != NULL)
		return;
	(void)strmap_add(&r->reported, msg, NULL, h); /* else said again */
	r->error(r->error_data, msg, errnum);
}

void resolve_report_bfd(struct resolver *r, const char *msg)
{
	enum { MAX_BFD_MESSAGES = 20 };

	if (r->bfd_messages == MAX_BFD_MESSAGES)
		resolve_report(r, 0, "libbfd: further messages not shown");
	if (r->bfd_messages++ < MAX_BFD_MESSAGES)
		resolve_report(r, 0, "libbfd: %s", msg);
}

/* ---------------------------------------------------------------------------
 * Names
 * ------------------------------------------------------------------------ */

static const char *display_name(struct resolver *r, const char *raw)
{
	return strmap_display(&r->names, r->demangle, raw);
}

const char *resolve_display_name(struct resolver *r, const char *raw)
{
	return display_name(r, raw);
}

static const char *intern_file(struct resolver *r, const char *file)
{
	return strmap_intern(&r->files, file);
}

/* "module+0xoffset" or "0xaddress"; interned like the others. */
static const char *fallback_name(struct resolver *r, const struct module *m,
				 uint64_t value)
{
	char buf[512];

	if (m != NULL)
		snprintf(buf, sizeof buf, "%s+0x%" PRIx64, m->label, value);
	else
		snprintf(buf, sizeof buf, "0x%" PRIx64, value);
	return intern_file(r, buf);
}

/* ---------------------------------------------------------------------------
 * Modules
 * ------------------------------------------------------------------------ */

/* The set of modules changed: cached "one module only" facts are rechecked.
 * Entries keep 32 bits of the generation; when those wrap, an entry's old
 * value could come back, so every fact is dropped instead. */
static void bump_generation(struct resolver *r)
{
	if ((uint32_t)++r->generation != 0)
		return;
	for (size_t id = 0; id < r->entries.n; id++)
		((struct entry *)pool_at(&r->entries, (uint32_t)id))->unique =
			false;
}

int resolve_add_module(struct resolver *r, const char *path, uint64_t bias,
		       uint64_t start, uint64_t end, const uint8_t *build_id,
		       size_t build_id_len, uint64_t ticks)
{
	struct module *m;
	const char *slash;

	if (r->n_modules == r->cap_modules) {
		size_t cap = r->cap_modules ? 2 * r->cap_modules : 16;
		struct module **grown =
			realloc(r->modules, cap * sizeof *r->modules);
		if (grown == NULL)
			return -ENOMEM;
		r->modules = grown;
		r->cap_modules = cap;
	}
	m = calloc(1, sizeof *m);
	if (m == NULL)
		return -ENOMEM;
	m->path = strdup(path);
	if (m->path == NULL) {
		free(m);
		return -ENOMEM;
	}
	slash = strrchr(m->path, '/');
	m->label = slash != NULL && slash[1] != '\0' ? slash + 1 : m->path;
	m->bias = bias;
	m->start = start;
	m->end = end;
	if (build_id != NULL && build_id_len <= sizeof m->build_id) {
		memcpy(m->build_id, build_id, build_id_len);
		m->build_id_len = build_id_len;
	}
	m->loaded = ticks;
	m->unloaded = UINT64_MAX;
	m->serial = r->n_modules;
	r->modules[r->n_modules++] = m;
	bump_generation(r);
	return 0;
}

void resolve_remove_module(struct resolver *r, uint64_t start,
			   uint64_t ticks)
{
	/* The newest load at that address that is still loaded, one loaded
	 * before `ticks` first: a record of a load at the same time is of the
	 * object that took the gone one's place. */
	for (int same_time = 0; same_time < 2; same_time++)
		for (size_t i = r->n_modules; i > 0; i--) {
			struct module *m = r->modules[i - 1];
			if (m->start == start && m->unloaded == UINT64_MAX &&
			    (m->loaded < ticks ||
			     (same_time && m->loaded == ticks))) {
				m->unloaded = ticks;
				bump_generation(r);
				return;
			}
		}
}

static int start_cmp(const void *a, const void *b)
{
	const struct module *x = *(struct module *const *)a;
	const struct module *y = *(struct module *const *)b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->serial < y->serial ? -1 : x->serial > y->serial;
}

static void index_modules(struct resolver *r)
{
	size_t *open, n_open = 0;

	if (r->by_start != NULL && r->indexed_generation == r->generation)
		return;
	free(r->by_start);
	free(r->covered_by);
	r->by_start = malloc(r->n_modules * sizeof *r->by_start + 1);
	r->covered_by = malloc(r->n_modules * sizeof *r->covered_by + 1);
	open = malloc(r->n_modules * sizeof *open + 1);
	if (r->by_start == NULL || r->covered_by == NULL || open == NULL) {
		free(r->by_start);
		free(r->covered_by);
		free(open);
		r->by_start = NULL;
		r->covered_by = NULL;
		return;
	}
	if (r->n_modules)
		memcpy(r->by_start, r->modules,
		       r->n_modules * sizeof *r->by_start);
	if (r->n_modules)
		qsort(r->by_start, r->n_modules, sizeof *r->by_start,
		      start_cmp);
	/* `open`: earlier modules that may still cover a later start, in
	 * order; one that ends at or before a start ends before every later
	 * one too, and leaves for good */
	for (size_t i = 0; i < r->n_modules; i++) {
		uint64_t start = r->by_start[i]->start;
		while (n_open && r->by_start[open[n_open - 1]]->end <= start)
			n_open--;
		r->covered_by[i] = n_open ? open[n_open - 1] : SIZE_MAX;
		open[n_open++] = i;
	}
	free(open);
	r->indexed_generation = r->generation;
}

/* The choice among the modules covering an address (see pick_module). */
struct pick {
	uint64_t addr, ticks;
	struct module *best, *any;
	int best_score;
	unsigned covering;
};

/* Declared later wins a tie: the order of the trace's records. */
static bool later(const struct module *a, const struct module *b)
{
	return a->serial > b->serial;
}

static void consider(struct pick *k, struct module *m)
{
	int score;

	if (k->addr < m->start || k->addr >= m->end)
		return;
	k->covering++;
	if (m->loaded > k->ticks) {
		if (k->any == NULL || m->loaded < k->any->loaded ||
		    (m->loaded == k->any->loaded && later(k->any, m)))
			k->any = m;
		return;
	}
	score = m->unloaded > k->ticks ? 1 : 0;
	if (score > k->best_score ||
	    (score == k->best_score &&
	     (m->loaded > k->best->loaded ||
	      (m->loaded == k->best->loaded && later(m, k->best))))) {
		k->best = m;
		k->best_score = score;
	}
}

/* The module an event at `ticks` saw at `addr`: the newest one loaded at
 * or before then (one still loaded preferred over one unloaded since),
 * else the earliest one covering addr at all.  *covering counts the
 * modules that cover addr at any time. */
static struct module *pick_module(struct resolver *r, uint64_t addr,
				  uint64_t ticks, unsigned *covering)
{
	struct pick k = {.addr = addr, .ticks = ticks, .best_score = -1};
	size_t lo = 0, n = r->n_modules;

	index_modules(r);
	if (r->by_start == NULL) {
		/* out of memory for the index: look at them all */
		for (size_t i = 0; i < r->n_modules; i++)
			consider(&k, r->modules[i]);
	} else {
		/* the last module starting at or before addr */
		while (lo < n) {
			size_t mid = lo + (n - lo) / 2;
			if (r->by_start[mid]->start <= addr)
				lo = mid + 1;
			else
				n = mid;
		}
		/* an earlier module covering addr covers that one's start
		 * too, and is on the chain of covered_by */
		for (size_t i = lo ? lo - 1 : SIZE_MAX; i != SIZE_MAX;
		     i = r->covered_by[i])
			consider(&k, r->by_start[i]);
	}
	*covering = k.covering;
	return k.best != NULL ? k.best : k.any;
}

/* Finds the file of a module: the recorded path, else the search dirs by
 * base name.  A file whose build-id matches the trace's wins over one
 * that merely exists.  Warns once (this runs once per module). */
static char *find_module_file(struct resolver *r, struct module *m)
{
	char *fallback = NULL;

	for (size_t i = 0; i <= r->n_search_dirs; i++) {
		uint8_t id[ELFINFO_BUILD_ID_MAX];
		struct stat st;
		char *cand;
		int len;

		if (i == 0)
			cand = strdup(m->path);
		else
			cand = debuginfo_path_join(r->search_dirs[i - 1],
						   m->label);
		if (cand == NULL)
			break;
		if (stat(cand, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(cand);
			continue;
		}
		if (m->build_id_len == 0) {
			free(fallback);
			return cand;
		}
		len = elfinfo_build_id(cand, id);
		if (len > 0 && (size_t)len == m->build_id_len &&
		    memcmp(id, m->build_id, (size_t)len) == 0) {
			free(fallback);
			return cand;
		}
		if (fallback == NULL)
			fallback = cand;
		else
			free(cand);
	}
	if (fallback != NULL)
		resolve_report(r, 0,
			       "%s: build-id differs from the trace; names "
			       "may be wrong",
			       fallback);
	else if (r->n_not_found++ == 0)
		resolve_report(r, ENOENT,
			       "%s: not found; names shown as module+offset "
			       "(--search-dir=DIR looks for it in DIR, if "
			       "it moved)",
			       m->path);
	return fallback;
}

/* Opens a module the first time one of its addresses is looked up. */
static void module_open(struct resolver *r, struct module *m)
{
	int err;

	m->state = MODULE_FAILED;
	m->file = find_module_file(r, m);
	if (m->file == NULL)
		return;
	err = elfinfo_functions(m->file, &m->funcs);
	if (err < 0 && err != -ENOENT) {
		resolve_report(r, err == -ENOEXEC ? 0 : -err,
			       "%s: %s; names shown as module+offset",
			       m->file,
			       err == -ENOEXEC ? "not an ELF file of this "
						 "machine"
					       : "cannot read");
		return;
	}
	m->state = MODULE_OPEN;
	debuginfo_open(r, m);
	/* A stripped module may have its full symbol table in the separate
	 * debug file. */
	if ((m->funcs.n == 0 || m->funcs.from_dynsym) && m->debug_file) {
		struct elf_functions full;
		if (elfinfo_functions(m->debug_file, &full) == 0 &&
		    !full.from_dynsym && full.n > 0) {
			elfinfo_functions_free(&m->funcs);
			m->funcs = full;
		} else {
			elfinfo_functions_free(&full);
		}
	}
	debuginfo_add_plt(m);
}

static void module_free(struct module *m)
{
	debuginfo_close(m);
	elfinfo_functions_free(&m->funcs);
	free(m->file);
	free(m->path);
	free(m);
}

/* ---------------------------------------------------------------------------
 * Lookups
 * ------------------------------------------------------------------------ */

static size_t entry_hash(uint64_t addr, bool call_site)
{
	uint64_t h = (addr ^ (uint64_t)call_site) * 0x9e3779b97f4a7c15u;
	/* mixed down: addresses a fixed stride apart used to fill only a
	 * seventh of the buckets of the bits taken */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdu;
	h ^= h >> 33;
	return (size_t)h;
}

static size_t entry_id_hash(const void *r, uint32_t id)
{
	const struct entry *e =
		pool_at(&((const struct resolver *)r)->entries, id);
	return entry_hash(e->addr, e->call_site);
}

/* Resolves addr for the first time in module m (NULL: none covers it),
 * into e (zeroed); name_only: e->info.name and the module, no source
 * frames.  Returns 0 or -ENOMEM. */
static int fill_entry(struct resolver *r, struct entry *e, struct module *m,
		      uint64_t addr, bool call_site, bool name_only)
{
	struct debug_frame frames[MAX_FRAMES];
	const struct elf_function *sym = NULL;
	size_t n = 0;
	struct resolve_frame *outer[MAX_FRAMES];
	uint32_t id;
	/* A return address is the instruction after the call, which may
	 * already belong to the next line or even the next function. */
	uint64_t probe = call_site ? addr - 1 : addr;

	if (m != NULL && m->state == MODULE_UNOPENED)
		module_open(r, m);
	if (m != NULL && m->state == MODULE_OPEN) {
		uint64_t pc = probe - m->bias;
		n = debuginfo_lookup(r, m, pc, frames, MAX_FRAMES);
		if (!call_site)
			sym = elfinfo_lookup(&m->funcs, pc, true);
		if (sym == NULL)
			sym = elfinfo_lookup(&m->funcs, pc, false);
	}

	/* the frames around an inlined call, freed by resolve_free */
	for (size_t i = 1; i < n && !name_only; i++) {
		outer[i - 1] = pool_add(&r->frames, &id);
		if (outer[i - 1] == NULL)
			return -ENOMEM;
	}
	e->addr = addr;
	e->module = m;
	e->call_site = call_site;
	e->info.module = m != NULL ? m->path : NULL;
	e->info.module_offset = m != NULL ? addr - m->bias : addr;
	e->info.symbol = sym != NULL ? sym->name : NULL;
	if (sym != NULL)
		e->info.name = display_name(r, sym->name);
	else if (n > 0 && frames[n - 1].function != NULL)
		e->info.name = display_name(r, frames[n - 1].function);
	if (e->info.name == NULL)
		e->info.name = fallback_name(r, m, e->info.module_offset);
	if (e->info.name == NULL)
		return -ENOMEM;
	if (name_only)
		return 0;

	if (n == 0 && sym != NULL)
		e->info.src.function = e->info.name;
	for (size_t i = 0; i < n; i++) {
		struct resolve_frame *f = i == 0 ? &e->info.src
						 : outer[i - 1];
		if (frames[i].function != NULL)
			f->function = display_name(r, frames[i].function);
		if (frames[i].file != NULL)
			f->file = intern_file(r, frames[i].file);
		f->line = frames[i].line;
		if (i > 0)
			(i == 1 ? &e->info.src : outer[i - 2])->next = f;
	}
	return 0;
}

static const struct resolve_info *resolve(struct resolver *r, uint64_t addr,
					  bool call_site, uint64_t ticks)
{
	size_t h = entry_hash(addr, call_site), i;
	struct entry *e = NULL;
	struct module *m;
	unsigned covering;
	uint32_t id;

	if (pool_ids_reserve(&r->entry_ids, r->entries.n, entry_id_hash,
			     r) < 0)
		return &r->oom_info;
	for (i = h & r->entry_ids.mask; r->entry_ids.slots[i];
	     i = (i + 1) & r->entry_ids.mask) {
		e = pool_at(&r->entries, r->entry_ids.slots[i] - 1);
		if (e->addr == addr && e->call_site == call_site &&
		    e->unique && e->generation == (uint32_t)r->generation)
			return &e->info;
	}

	m = pick_module(r, call_site ? addr - 1 : addr, ticks, &covering);
	for (i = h & r->entry_ids.mask; r->entry_ids.slots[i];
	     i = (i + 1) & r->entry_ids.mask) {
		e = pool_at(&r->entries, r->entry_ids.slots[i] - 1);
		if (e->addr == addr && e->call_site == call_site &&
		    e->module == m)
			break;
	}
	if (!r->entry_ids.slots[i]) {
		struct entry fresh = {0};
		if (fill_entry(r, &fresh, m, addr, call_site, false) < 0)
			return &r->oom_info;
		e = pool_add(&r->entries, &id);
		if (e == NULL)
			return &r->oom_info;
		*e = fresh;
		r->entry_ids.slots[i] = id + 1;
	}
	e->generation = (uint32_t)r->generation;
	e->unique = covering <= 1;
	return &e->info;
}

const struct resolve_info *resolve_function(struct resolver *r, uint64_t addr,
					    uint64_t ticks)
{
	return resolve(r, addr, false, ticks);
}

const struct resolve_info *resolve_call_site(struct resolver *r, uint64_t ret,
					     uint64_t ticks)
{
	return resolve(r, ret, true, ticks);
}

const char *resolve_function_name(struct resolver *r, uint64_t addr,
				  uint64_t ticks)
{
	struct entry fresh = {0};
	unsigned covering;
	struct module *m = pick_module(r, addr, ticks, &covering);

	if (fill_entry(r, &fresh, m, addr, false, true) < 0)
		return r->oom_info.name;
	return fresh.info.name;
}

const char *resolve_function_module(struct resolver *r, uint64_t addr,
				    uint64_t ticks)
{
	unsigned covering;
	struct module *m = pick_module(r, addr, ticks, &covering);

	return m != NULL ? m->path : NULL;
}

const char *resolve_function_debug_file(struct resolver *r, uint64_t addr,
					uint64_t ticks)
{
	unsigned covering;
	struct module *m = pick_module(r, addr, ticks, &covering);

	if (m != NULL && m->state == MODULE_UNOPENED)
		module_open(r, m);
	return m != NULL && m->state == MODULE_OPEN ? m->debug_file : NULL;
}

/* ---------------------------------------------------------------------------
 * Life cycle
 * ------------------------------------------------------------------------ */

static char **copy_dirs(const char *const *dirs, size_t n, bool *ok)
{
	char **copy;

	*ok = true;
	if (n == 0 || dirs == NULL)
		return NULL;
	copy = calloc(n, sizeof *copy);
	if (copy == NULL) {
		*ok = false;
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		copy[i] = strdup(dirs[i]);
		if (copy[i] == NULL)
			*ok = false;
	}
	return copy;
}

static void free_dirs(char **dirs, size_t n)
{
	for (size_t i = 0; dirs != NULL && i < n; i++)
		free(dirs[i]);
	free(dirs);
}

struct resolver *resolve_new(const struct resolve_options *opts,
			     resolve_error_fn error, void *data)
{
	struct resolver *r = calloc(1, sizeof *r);
	bool ok1, ok2;

	if (r == NULL)
		return NULL;
	r->error = error;
	r->error_data = data;
	r->oom_info.name = "??";
	pool_init(&r->entries, sizeof(struct entry));
	pool_init(&r->frames, sizeof(struct resolve_frame));
	if (opts != NULL) {
		r->demangle = opts->demangle;
		r->search_dirs = copy_dirs(opts->search_dirs,
					   opts->n_search_dirs, &ok1);
		r->n_search_dirs = r->search_dirs ? opts->n_search_dirs : 0;
		r->debug_dirs = copy_dirs(opts->debug_dirs, opts->n_debug_dirs,
					  &ok2);
		r->n_debug_dirs = r->debug_dirs ? opts->n_debug_dirs : 0;
		if (!ok1 || !ok2) {
			resolve_free(r);
			return NULL;
		}
	}
	if (debuginfo_init(r) < 0) {
		resolve_free(r);
		return NULL;
	}
	r->bfd_ready = true;
	return r;
}

void resolve_free(struct resolver *r)
{
	if (r == NULL)
		return;
	/* one message for each kind of problem, with its count */
	if (r->n_not_found > 1)
		resolve_report(r, 0,
			       "%zu more modules not found; their names shown "
			       "as module+offset",
			       r->n_not_found - 1);
	pool_free(&r->entries);
	pool_free(&r->frames);
	pool_ids_free(&r->entry_ids);
	for (size_t i = 0; i < r->n_modules; i++)
		module_free(r->modules[i]);
	free(r->modules);
	free(r->by_start);
	free(r->covered_by);
	strmap_free(&r->names);
	strmap_free(&r->files);
	strmap_free(&r->reported);
	free_dirs(r->search_dirs, r->n_search_dirs);
	free_dirs(r->debug_dirs, r->n_debug_dirs);
	if (r->bfd_ready)
		debuginfo_exit(r);
	free(r);
}

/* Accessors for the other files of the resolver. */
const char *const *resolve_search_dirs(const struct resolver *r, size_t *n)
{
	*n = r->n_search_dirs;
	return (const char *const *)r->search_dirs;
}

const char *const *resolve_debug_dirs(const struct resolver *r, size_t *n)
{
	*n = r->n_debug_dirs;
	return (const char *const *)r->debug_dirs;
}
