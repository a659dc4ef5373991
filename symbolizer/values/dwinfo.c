/* dwinfo.c -- modules' DWARF (elfutils libdw): the files opened once,
 * their code read, the function and scope at a PC (one index per module),
 * the call site of an inlined copy, and the inlined copies that hold a PC.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "values/dwinfo.h"
#include "resolve/debugfile.h"
#include "resolve/elfinfo.h"
#include "resolve/resolve.h"
#include "trace/trace.h"
#include "values/values.h"

/* ---------------------------------------------------------------------------
 * Modules
 * ------------------------------------------------------------------------ */

static struct dw_module *modules;

struct dw_module *dw_module(const char *path)
{
	for (struct dw_module *m = modules; m; m = m->next)
		if (!strcmp(m->path, path))
			return m->elf ? m : NULL;
	struct dw_module *m = must_calloc(1, sizeof *m);
	m->path = must_strndup(path, strlen(path));
	m->fd = -1;
	m->debug_fd = -1;
	m->next = modules;
	modules = m;

	elf_version(EV_CURRENT);
	/* a regular file only: a trace may name a FIFO or a device */
	m->fd = elfinfo_open_regular(path);
	if (m->fd < 0)
		return NULL;
	m->elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
	if (!m->elf || elf_kind(m->elf) != ELF_K_ELF) {
		if (m->elf)
			elf_end(m->elf);
		m->elf = NULL;
		return NULL;
	}
	m->dw = dwarf_begin_elf(m->elf, DWARF_C_READ, NULL);
	/* libdw opens a .gnu_debugaltlink's file itself, and would wait
	 * forever on a FIFO: without a regular file there, no DWARF (the
	 * resolver says why). */
	const char *alt_name;
	const void *alt_id;
	ssize_t alt_id_len = m->dw != NULL ? dwelf_dwarf_gnu_debugaltlink(
						     m->dw, &alt_name, &alt_id)
					   : 0;
	char *bad = NULL;
	if (alt_id_len > 0 &&
	    elfinfo_altlink_check(path, alt_name, alt_id, (size_t)alt_id_len,
				  &bad) < 0) {
		dwarf_end(m->dw);
		m->dw = NULL;
	}
	free(bad);
	m->cfi = dwarf_getcfi_elf(m->elf);
	return m;
}

struct dw_module *dw_module_at(struct trace *t, const struct resolve_info *ri,
			       uint64_t addr, uint64_t ticks)
{
	struct dw_module *m;
	const char *debug;

	if (!ri->module || !(m = dw_module(ri->module)))
		return NULL;
	if (m->dw || m->debug_tried)
		return m;
	m->debug_tried = true;
	debug = resolve_function_debug_file(t->resolver, addr, ticks);
	if (!debug)
		return m;
	/* its compressed sections inflated once, for libbfd too */
	m->debug_shared = debugfile_open(debug);
	if (m->debug_shared)
		m->debug_elf = debugfile_elf(m->debug_shared);
	else if ((m->debug_fd = elfinfo_open_regular(debug)) >= 0)
		m->debug_elf = elf_begin(m->debug_fd, ELF_C_READ_MMAP, NULL);
	if (m->debug_elf && elf_kind(m->debug_elf) == ELF_K_ELF)
		m->dw = dwarf_begin_elf(m->debug_elf, DWARF_C_READ, NULL);
	return m;
}

static void origins_free(void);

void dw_modules_free(void)
{
	origins_free();
	while (modules) {
		struct dw_module *m = modules;
		modules = m->next;
		if (m->cfi)
			dwarf_cfi_end(m->cfi);
		if (m->dw)
			dwarf_end(m->dw);
		if (m->elf)
			elf_end(m->elf);
		if (m->fd >= 0)
			close(m->fd);
		if (m->debug_shared)
			debugfile_close(m->debug_shared);
		else if (m->debug_elf)
			elf_end(m->debug_elf);
		if (m->debug_fd >= 0)
			close(m->debug_fd);
		free(m->fn_ranges);
		free(m->fn_max_hi);
		free(m->path);
		free(m);
	}
}

/* Reads [rel, rel + n) from the one PROGBITS section holding it whose
 * flags masked by `mask' are `want'. */
static bool read_section(struct dw_module *m, uint64_t rel, uint8_t *out,
			 size_t n, uint64_t mask, uint64_t want)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(m->elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    (sh.sh_flags & mask) != want || rel < sh.sh_addr ||
		    rel + n > sh.sh_addr + sh.sh_size)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || rel - sh.sh_addr + n > d->d_size)
			return false;
		memcpy(out, (const uint8_t *)d->d_buf + (rel - sh.sh_addr), n);
		return true;
	}
	return false;
}

bool dw_read_code(struct dw_module *m, uint64_t rel, uint8_t *out, size_t n)
{
	return read_section(m, rel, out, n, SHF_EXECINSTR, SHF_EXECINSTR);
}

bool dw_read_rodata(struct dw_module *m, uint64_t rel, uint8_t *out, size_t n)
{
	return read_section(m, rel, out, n,
			    SHF_ALLOC | SHF_WRITE | SHF_EXECINSTR, SHF_ALLOC);
}

bool dw_got_address(struct dw_module *m, uint64_t *out)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(m->elf, &shstrndx) != 0)
		return false;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(m->elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		if (gelf_getshdr(scn, &sh) &&
		    (name = elf_strptr(m->elf, shstrndx, sh.sh_name)) &&
		    strcmp(name, ".got.plt") == 0) {
			*out = sh.sh_addr;
			return true;
		}
	}
	return false;
}

/* ---------------------------------------------------------------------------
 * Scopes
 * ------------------------------------------------------------------------ */

void dw_root(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Die cur = *die;
	for (int i = 0; i < 8; i++) {
		Dwarf_Attribute a;
		Dwarf_Die next;
		if ((dwarf_attr(&cur, DW_AT_abstract_origin, &a) ||
		     dwarf_attr(&cur, DW_AT_specification, &a)) &&
		    dwarf_formref_die(&a, &next)) {
			cur = next;
			continue;
		}
		break;
	}
	*out = cur;
}

const char *dw_origin_key(Dwarf_Die *root)
{
	Dwarf_Attribute a;
	const char *s;
	bool external = false;
	Dwarf_Die cu;

	/* A static function's name, even mangled (clang's _ZL6helperi),
	 * may be another unit's function's too. */
	if (!dwarf_attr(root, DW_AT_external, &a) ||
	    dwarf_formflag(&a, &external) != 0 || !external)
		return NULL;
	if ((dwarf_attr(root, DW_AT_linkage_name, &a) ||
	     dwarf_attr(root, DW_AT_MIPS_linkage_name, &a)) &&
	    (s = dwarf_formstring(&a)) != NULL)
		return s;
	if (!dwarf_diecu(root, &cu, NULL, NULL))
		return NULL;
	switch (dwarf_srclang(&cu)) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_C99:
	case DW_LANG_C11:
		break;
	default:
		return NULL;
	}
	return dwarf_diename(root);
}

bool dw_same_key(const char *a, const char *b)
{
	size_t i = 0;

	while (a[i] != '\0' && a[i] == b[i])
		i++;
	if (a[i] == b[i])
		return true;
	/* only in a mangled C++ name (C's MX_ADC1_Init is not
	 * MX_ADC4_Init) */
	if (i < 3 || a[0] != '_' || a[1] != 'Z' || a[i] == '\0' ||
	    b[i] == '\0' || strcmp(a + i + 1, b + i + 1) != 0)
		return false;
	/* at a constructor's or destructor's place: after its class's
	 * name (not a length's digit), before the end of the nested name
	 * or its template arguments (_ZN3FooC1Ev, not _ZN2C14fooEv) */
	if ((a[i + 1] != 'E' && a[i + 1] != 'I') ||
	    (a[i - 2] >= '0' && a[i - 2] <= '9'))
		return false;
	char lo = a[i] < b[i] ? a[i] : b[i], hi = a[i] < b[i] ? b[i] : a[i];
	return hi == '4' && ((a[i - 1] == 'C' && lo >= '1' && lo <= '3') ||
			     (a[i - 1] == 'D' && lo >= '0' && lo <= '2'));
}

/* Whether root (dw_root's) is the function whose root is the DIE at off,
 * of dw_origin_key key.  A copy inlined in one object may be named by the
 * address of another's copy of the function: a C++ template that the
 * program instantiates and libstdc++ exports, whose address the program
 * takes through its GOT, which the loader binds to libstdc++'s.  Then
 * off is none ((Dwarf_Off)-1) and key that copy's symbol, its linkage
 * name. */
static bool is_origin(Dwarf_Die *root, Dwarf_Off off, const char *key)
{
	const char *k;

	if (dwarf_dieoffset(root) == off)
		return true;
	return key != NULL && (k = dw_origin_key(root)) != NULL &&
	       dw_same_key(k, key);
}

bool dw_is_clang(Dwarf_Die *die)
{
	Dwarf_Die cu;
	Dwarf_Attribute a;
	const char *p;
	if (!dwarf_diecu(die, &cu, NULL, NULL) ||
	    !dwarf_attr(&cu, DW_AT_producer, &a) || !(p = dwarf_formstring(&a)))
		return false;
	return strstr(p, "clang") != NULL;
}

/* The function index: every subprogram with code, by its code ranges.
 * libdw's dwarf_getscopes walks a CU from its root at
 * each lookup, which made the plan quadratic in the size of a large CU; the
 * index is made in one pass over the whole DWARF, and a lookup is a binary
 * search followed by a walk down one function's own scopes. */

struct fn_index_build {
	struct dw_fn_range *r;
	size_t n, cap;
};

static void index_add(struct fn_index_build *b, uint64_t lo, uint64_t hi,
		      Dwarf_Off die)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 256;
		b->r = must_realloc(b->r, b->cap, sizeof *b->r);
	}
	b->r[b->n++] = (struct dw_fn_range){lo, hi, die};
}

/* Collects the subprograms among the children of die, looking into
 * namespaces and classes (where clang puts some definitions), and into
 * functions and their blocks for the classes declared there: gcc gives a
 * lambda's operator() (or a local class's method) that it never inlines
 * one DIE, its definition, a child of the closure type inside the
 * function that holds the lambda, and its code lies outside that
 * function's ranges, where scope_path does not look. */
static void index_children(struct fn_index_build *b, Dwarf_Die *die,
			   int depth)
{
	Dwarf_Die child;
	if (depth > 64 || dwarf_child(die, &child) != 0)
		return;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram: {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t it = 0;
			while ((it = dwarf_ranges(&child, it, &base, &lo,
						  &hi)) > 0)
				if (lo < hi)
					index_add(b, lo, hi,
						  dwarf_dieoffset(&child));
			index_children(b, &child, depth + 1);
			break;
		}
		case DW_TAG_lexical_block:
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			index_children(b, &child, depth + 1);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

static int cmp_fn_range(const void *a, const void *b)
{
	const struct dw_fn_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void index_functions(struct dw_module *m)
{
	struct fn_index_build b = {0};
	Dwarf_Off off = 0, next;
	size_t hsize;
	m->fn_index_done = true;
	while (dwarf_nextcu(m->dw, off, &next, &hsize, NULL, NULL, NULL) ==
	       0) {
		Dwarf_Die cu;
		if (dwarf_offdie(m->dw, off + hsize, &cu))
			index_children(&b, &cu, 0);
		off = next;
	}
	if (b.n)
		qsort(b.r, b.n, sizeof *b.r, cmp_fn_range);
	m->fn_ranges = b.r;
	m->n_fn_ranges = b.n;
	m->fn_max_hi = must_malloc((b.n ? b.n : 1) * sizeof *m->fn_max_hi);
	for (size_t i = 0; i < b.n; i++)
		m->fn_max_hi[i] = i && m->fn_max_hi[i - 1] > b.r[i].hi
					  ? m->fn_max_hi[i - 1]
					  : b.r[i].hi;
}

/* The outermost subprogram whose code holds rel_pc. */
static bool outer_function_at(struct dw_module *m, uint64_t rel_pc,
			      Dwarf_Die *out)
{
	if (!m->dw)
		return false;
	if (!m->fn_index_done)
		index_functions(m);
	/* The last range starting at or before rel_pc, then back over the
	 * earlier ones that may still reach it. */
	size_t lo = 0, hi = m->n_fn_ranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->fn_ranges[mid].lo <= rel_pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && m->fn_max_hi[i] > rel_pc;)
		if (rel_pc < m->fn_ranges[i].hi)
			return dwarf_offdie(m->dw, m->fn_ranges[i].die, out) !=
			       NULL;
	return false;
}

/* Whether the function starts at addr: its entry PC, or for a function
 * split hot and cold (C++ with exceptions) the start of one of its parts. */
static bool starts_at(Dwarf_Die *fn, uint64_t addr)
{
	Dwarf_Addr entry, base, lo, hi;
	ptrdiff_t it = 0;
	if (dwarf_entrypc(fn, &entry) == 0)
		return entry == addr;
	while ((it = dwarf_ranges(fn, it, &base, &lo, &hi)) > 0)
		if (lo == addr)
			return true;
	return false;
}

/* Walks from the outermost function holding rel_pc down its lexical
 * blocks, inlined copies and nested functions that hold it.  *scope: the
 * innermost subprogram or inlined subroutine, *subprogram: the innermost
 * subprogram (the concrete function whose frame it is); if entry is not
 * NULL, the innermost subprogram starting at rel_pc instead.  -1 if no
 * function holds rel_pc (or, with entry, starts there). */
static int scope_path(struct dw_module *m, uint64_t rel_pc, Dwarf_Die *scope,
		      Dwarf_Die *subprogram, Dwarf_Die *entry)
{
	Dwarf_Die cur, child;
	bool have_entry = false;
	if (!outer_function_at(m, rel_pc, &cur))
		return -1;
	for (int depth = 0;; depth++) {
		int tag = dwarf_tag(&cur);
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
			*scope = cur;
		if (tag == DW_TAG_subprogram) {
			*subprogram = cur;
			if (entry && starts_at(&cur, rel_pc)) {
				*entry = cur;
				have_entry = true;
			}
		}
		if (depth > 256 || dwarf_child(&cur, &child) != 0)
			break;
		bool deeper = false;
		do {
			tag = dwarf_tag(&child);
			if ((tag == DW_TAG_lexical_block ||
			     tag == DW_TAG_inlined_subroutine ||
			     tag == DW_TAG_subprogram ||
			     tag == DW_TAG_try_block ||
			     tag == DW_TAG_catch_block) &&
			    dwarf_haspc(&child, rel_pc) == 1) {
				cur = child;
				deeper = true;
				break;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
		if (!deeper)
			break;
	}
	return entry && !have_entry ? -1 : 0;
}

int dw_scope_at(struct dw_module *m, uint64_t rel_pc, Dwarf_Die *scope,
		Dwarf_Die *subprogram)
{
	return scope_path(m, rel_pc, scope, subprogram, NULL);
}

int dw_function_at(struct dw_module *m, uint64_t rel_addr, Dwarf_Die *out)
{
	Dwarf_Die scope, sub;
	return scope_path(m, rel_addr, &scope, &sub, out);
}

/* ---------------------------------------------------------------------------
 * Call sites of inlined copies
 * ------------------------------------------------------------------------ */

struct inlined_search {
	Dwarf_Off origin; /* the callee's abstract DIE */
	const char *key;  /* its origin_key */
	Dwarf_Files *files;
	const char *file;
	unsigned line;
	size_t found;
	bool differ;
};

/* Every inlined_subroutine below die (inlined into inlined copies too)
 * whose origin is the callee. */
static void find_inlined(Dwarf_Die *die, struct inlined_search *s, int depth)
{
	Dwarf_Die c;

	if (depth > 64 || dwarf_child(die, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);
		if (tag == DW_TAG_inlined_subroutine) {
			Dwarf_Die root;
			Dwarf_Attribute a;
			Dwarf_Word fi = 0, ln = 0;
			dw_root(&c, &root);
			if (is_origin(&root, s->origin, s->key)) {
				const char *f = NULL;
				if (dwarf_attr(&c, DW_AT_call_file, &a))
					dwarf_formudata(&a, &fi);
				if (dwarf_attr(&c, DW_AT_call_line, &a))
					dwarf_formudata(&a, &ln);
				if (s->files)
					f = dwarf_filesrc(s->files, fi, NULL,
							  NULL);
				if (s->found++ == 0) {
					s->file = f;
					s->line = (unsigned)ln;
				} else if (s->line != ln || !f || !s->file ||
					   strcmp(f, s->file)) {
					s->differ = true;
				}
			}
		}
		if (tag == DW_TAG_inlined_subroutine ||
		    tag == DW_TAG_lexical_block)
			find_inlined(&c, s, depth + 1);
	} while (dwarf_siblingof(&c, &c) == 0);
}

static int inline_chain(struct dw_module *m, uint64_t rel_pc, Dwarf_Die *out,
			int max);
#define CHAIN_MAX 64

/* The call site of the copy of the function whose abstract DIE is origin
 * that holds rel_pc (its entry hook's call): the innermost such. */
static bool call_site_at(struct dw_module *m, uint64_t rel_pc,
			 Dwarf_Off origin, const char *key, const char **file,
			 unsigned *line)
{
	Dwarf_Die chain[CHAIN_MAX], root, cu;
	Dwarf_Attribute a;
	Dwarf_Word fi = 0, ln = 0;
	Dwarf_Files *files;
	size_t n_files;
	int n = inline_chain(m, rel_pc, chain, CHAIN_MAX);

	while (n-- > 0) {
		dw_root(&chain[n], &root);
		if (!is_origin(&root, origin, key))
			continue;
		if (!dwarf_attr(&chain[n], DW_AT_call_file, &a) ||
		    dwarf_formudata(&a, &fi) ||
		    !dwarf_attr(&chain[n], DW_AT_call_line, &a) ||
		    dwarf_formudata(&a, &ln) || ln == 0 ||
		    !dwarf_diecu(&chain[n], &cu, NULL, NULL) ||
		    dwarf_getsrcfiles(&cu, &files, &n_files) != 0 ||
		    !(*file = dwarf_filesrc(files, fi, NULL, NULL)))
			return false;
		*line = (unsigned)ln;
		return true;
	}
	return false;
}

bool dw_inlined_call_site(struct trace *t, uint64_t host, uint64_t callee,
			  uint64_t hook, uint64_t ticks, const char **file,
			  unsigned *line)
{
	const struct resolve_info *hi = resolve_function(t->resolver, host,
							 ticks);
	const struct resolve_info *ci = resolve_function(t->resolver, callee,
							 ticks);
	struct dw_module *m;
	Dwarf_Die host_die, callee_die, root, cu;
	struct inlined_search s = {0};
	size_t n_files;

	if (!hi->module || !ci->module ||
	    !(m = dw_module_at(t, hi, host, ticks)) || !m->dw ||
	    dw_function_at(m, hi->module_offset, &host_die) < 0)
		return false;
	if (strcmp(hi->module, ci->module) != 0) {
		/* Another object's copy of the callee: by its symbol. */
		if (ci->symbol == NULL)
			return false;
		s.origin = (Dwarf_Off)-1;
		s.key = ci->symbol;
	} else if (dw_function_at(m, ci->module_offset, &callee_die) < 0) {
		return false;
	} else {
		dw_root(&callee_die, &root);
		s.origin = dwarf_dieoffset(&root);
		s.key = dw_origin_key(&root);
	}
	/* The hook's call is in the copy that ran: its own call site, even
	 * when the callee is inlined into host at several lines. */
	uint64_t bias = host - hi->module_offset;
	const char *hook_module = hook > bias ? resolve_function_module(
						       t->resolver, hook - 1,
						       ticks)
					      : NULL;
	if (hook_module && !strcmp(hook_module, hi->module) &&
	    call_site_at(m, hook - 1 - bias, s.origin, s.key, file, line))
		return true;
	if (dwarf_diecu(&host_die, &cu, NULL, NULL) &&
	    dwarf_getsrcfiles(&cu, &s.files, &n_files) != 0)
		s.files = NULL;
	find_inlined(&host_die, &s, 0);
	if (!s.found || s.differ || !s.file || !s.line)
		return false;
	*file = s.file;
	*line = s.line;
	return true;
}

/* ---------------------------------------------------------------------------
 * Inlined copies holding a PC
 * ------------------------------------------------------------------------ */

/* The inlined subroutines that hold rel_pc, outermost first, into
 * out[0..max); how many, or -1 when no function's DWARF holds rel_pc (or
 * the copies nest deeper than max). */
static int inline_chain(struct dw_module *m, uint64_t rel_pc, Dwarf_Die *out,
			int max)
{
	Dwarf_Die cur, child;
	int n = 0;

	if (!outer_function_at(m, rel_pc, &cur))
		return -1;
	for (int depth = 0; depth <= 256; depth++) {
		bool deeper = false;
		if (dwarf_tag(&cur) == DW_TAG_inlined_subroutine) {
			if (n == max)
				return -1;
			out[n++] = cur;
		}
		if (dwarf_child(&cur, &child) != 0)
			break;
		do {
			int tag = dwarf_tag(&child);
			if ((tag == DW_TAG_lexical_block ||
			     tag == DW_TAG_inlined_subroutine ||
			     tag == DW_TAG_try_block ||
			     tag == DW_TAG_catch_block) &&
			    dwarf_haspc(&child, rel_pc) == 1) {
				cur = child;
				deeper = true;
				break;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
		if (!deeper)
			break;
	}
	return n;
}

/* The abstract DIEs of the copies holding a PC (a hook's call), or of a
 * function, by module and offset: a replay asks for the same few hooks
 * and functions at every call. */
struct origins {
	const char *module; /* the resolver's, equal paths equal pointers */
	uint64_t off;
	bool fn;
	int n; /* -1: unknown */
	Dwarf_Off *roots;
	const char **keys; /* dw_origin_key's, by root */
};

static struct {
	struct origins *e;
	size_t n, cap;
} origins_cache;

static size_t origins_hash(const char *module, uint64_t off, bool fn)
{
	uint64_t h = ((uint64_t)(uintptr_t)module ^ off ^ (fn ? 1 : 0)) *
		     0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 20);
}

static struct origins *origins_slot(const char *module, uint64_t off, bool fn)
{
	size_t mask, i;

	if (2 * (origins_cache.n + 1) > origins_cache.cap) {
		struct origins *old = origins_cache.e;
		size_t old_cap = origins_cache.cap;
		origins_cache.cap = old_cap ? 2 * old_cap : 256;
		origins_cache.e = must_calloc(origins_cache.cap,
					      sizeof *origins_cache.e);
		for (size_t k = 0; k < old_cap; k++) {
			if (!old[k].module)
				continue;
			mask = origins_cache.cap - 1;
			i = origins_hash(old[k].module, old[k].off, old[k].fn) &
			    mask;
			while (origins_cache.e[i].module)
				i = (i + 1) & mask;
			origins_cache.e[i] = old[k];
		}
		free(old);
	}
	mask = origins_cache.cap - 1;
	i = origins_hash(module, off, fn) & mask;
	while (origins_cache.e[i].module &&
	       (origins_cache.e[i].module != module ||
		origins_cache.e[i].off != off || origins_cache.e[i].fn != fn))
		i = (i + 1) & mask;
	return &origins_cache.e[i];
}

static void origins_free(void)
{
	for (size_t i = 0; i < origins_cache.cap; i++) {
		free(origins_cache.e[i].roots);
		free(origins_cache.e[i].keys);
	}
	free(origins_cache.e);
	memset(&origins_cache, 0, sizeof origins_cache);
}

/* What origins_of finds, by value: the table's entries move when it
 * grows (a pointer to one would dangle after the next lookup), their
 * roots arrays do not. */
struct origins_found {
	int n; /* -1: unknown */
	const Dwarf_Off *roots;
	const char *const *keys;
};

/* Whether roots a[i] and b[j] are the same function's. */
static bool same_origin(struct origins_found a, int i, struct origins_found b,
			int j)
{
	return a.roots[i] == b.roots[j] ||
	       (a.keys[i] != NULL && b.keys[j] != NULL &&
		dw_same_key(a.keys[i], b.keys[j]));
}

static struct origins_found origins_of(struct dw_module *m,
				       const char *module, uint64_t off,
				       bool fn)
{
	struct origins *o = origins_slot(module, off, fn);
	Dwarf_Die chain[CHAIN_MAX], root;

	if (o->module)
		return (struct origins_found){o->n, o->roots, o->keys};
	o->module = module;
	o->off = off;
	o->fn = fn;
	if (fn)
		o->n = dw_function_at(m, off, &chain[0]) < 0 ? -1 : 1;
	else
		o->n = inline_chain(m, off, chain, CHAIN_MAX);
	if (o->n > 0) {
		o->roots = must_calloc((size_t)o->n, sizeof *o->roots);
		o->keys = must_calloc((size_t)o->n, sizeof *o->keys);
		for (int k = 0; k < o->n; k++) {
			dw_root(&chain[k], &root);
			o->roots[k] = dwarf_dieoffset(&root);
			o->keys[k] = dw_origin_key(&root);
		}
	}
	origins_cache.n++;
	return (struct origins_found){o->n, o->roots, o->keys};
}

int dw_copies_holding(struct trace *t, uint64_t pc, uint64_t ticks,
		      const uint64_t *fns, size_t n_fns)
{
	const struct resolve_info *pi = resolve_function(t->resolver, pc,
							 ticks);
	struct origins_found chain, fo;
	struct dw_module *m;
	size_t k = 0;

	if (!(m = dw_module_at(t, pi, pc, ticks)) || !m->dw ||
	    (chain = origins_of(m, pi->module, pi->module_offset, false)).n < 0)
		return -1;
	/* Copies of functions that are not instrumented may lie between. */
	for (int j = 0; j < chain.n && k < n_fns; j++) {
		const struct resolve_info *fi = resolve_function(t->resolver,
								 fns[k], ticks);
		const Dwarf_Off none = (Dwarf_Off)-1;
		const char *symbol = fi->symbol;
		if (!fi->module)
			return -1;
		/* Another object's copy (is_origin): by its symbol. */
		if (strcmp(fi->module, pi->module) != 0)
			fo = (struct origins_found){1, &none, &symbol};
		else if ((fo = origins_of(m, fi->module, fi->module_offset,
					  true)).n < 0)
			return -1;
		if (same_origin(fo, 0, chain, j))
			k++;
	}
	/* Another object's copy that no copy here matched by its symbol
	 * (a constructor's symbol names one of its variants, C1 or C2,
	 * where the DWARF names C4): which copies hold pc is not known. */
	for (size_t i = k; i < n_fns; i++) {
		const struct resolve_info *fi = resolve_function(t->resolver,
								 fns[i], ticks);
		if (!fi->module || strcmp(fi->module, pi->module) != 0)
			return -1;
	}
	return (int)k;
}
