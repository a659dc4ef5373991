/* libtypes.c -- a library function's prototype from the library's own
 * DWARF (its separate debug file, which the resolver finds by build-id:
 * Debian's libc6-dbg), for library calls' values (libcall.c).
 *
 * The trace names a call by its GOT slot's relocation symbol (`strlen`)
 * and gives the address the loader bound the slot to.  That address is
 * not the function's to look up: for an IFUNC it is the implementation
 * chosen at load time (`__strlen_avx2`, assembly without DWARF).  So the
 * symbol is looked up by name in the library's dynamic symbol table, the
 * version the slot was bound to when its address is the target, else the
 * default one:
 *   - a function (STT_FUNC): the DW_TAG_subprogram starting at its
 *     address, which may be named otherwise (`open` is the code of
 *     `__libc_open64`): its parameters are those of the code that ran;
 *   - an IFUNC: the subprogram at its address is the resolver, which
 *     returns a pointer to the function: that pointer's subroutine type
 *     is the prototype (glibc writes it as __typeof of the public
 *     declaration), its parameters unnamed.
 * Anything else (no DWARF, no symbol, a resolver returning `void *`, a
 * function of another language than C, a K&R definition, a vector or
 * _Float128 value) gives no prototype: the table, then raw
 * registers, say what they can.  Each (trace, target, symbol) is looked up once.
 * x86-64 and i386 (abi.c places the parameters as each passes them).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "resolve/resolve.h"
#include "trace/trace.h"
#include "util/util.h"
#include "values/dwinfo.h"
#include "values/values.h"

struct entry {
	const struct trace *trace; /* traces replayed together: each its own */
	uint64_t target;
	char *symbol;
	const char *seen; /* the caller's copy of symbol last asked for */
	struct libtype *lt; /* NULL: no prototype from DWARF */
	bool debug;         /* the library's debug information was found */
};

static struct {
	struct entry *slots; /* open addressing by target */
	size_t mask, n;
} cache;

/* The symbol's address in the library (link-time) and whether it is an
 * IFUNC: the version whose address is want, else the default one (not
 * hidden in .gnu.version), else any. */
static bool dynsym_find(Elf *elf, const char *name, uint64_t want,
			uint64_t *addr, bool *ifunc)
{
	Elf_Scn *scn = NULL, *symscn = NULL, *verscn = NULL;
	GElf_Shdr sh, symsh = {0};
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (sh.sh_type == SHT_DYNSYM) {
			symscn = scn;
			symsh = sh;
		} else if (sh.sh_type == SHT_GNU_versym) {
			verscn = scn;
		}
	}
	Elf_Data *syms = symscn ? elf_getdata(symscn, NULL) : NULL;
	Elf_Data *vers = verscn ? elf_getdata(verscn, NULL) : NULL;
	if (syms == NULL || symsh.sh_entsize == 0)
		return false;
	size_t n = symsh.sh_size / symsh.sh_entsize;
	int best = 0; /* 1: some version, 2: the default, 3: at want */
	for (size_t i = 1; i < n && best < 3; i++) {
		GElf_Sym s;
		const char *sn;
		if (gelf_getsym(syms, (int)i, &s) == NULL ||
		    s.st_shndx == SHN_UNDEF ||
		    (GELF_ST_TYPE(s.st_info) != STT_FUNC &&
		     GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC) ||
		    (sn = elf_strptr(elf, symsh.sh_link, s.st_name)) == NULL ||
		    strcmp(sn, name) != 0)
			continue;
		GElf_Versym v = 0;
		if (vers != NULL)
			gelf_getversym(vers, (int)i, &v);
		int rank = s.st_value == want ? 3 : (v & 0x8000) ? 1 : 2;
		if (rank > best) {
			best = rank;
			*addr = s.st_value;
			*ifunc = GELF_ST_TYPE(s.st_info) == STT_GNU_IFUNC;
		}
	}
	return best > 0;
}

/* The C subprogram that starts at rel: one of the top-level DIEs of the
 * compile unit that holds it. */
static bool subprogram_at(Dwarf *dw, uint64_t rel, Dwarf_Die *out)
{
	Dwarf_Die cu, d;
	Dwarf_Attribute a;
	Dwarf_Word lang;
	if (dwarf_addrdie(dw, rel, &cu) == NULL ||
	    !dwarf_attr(&cu, DW_AT_language, &a) || dwarf_formudata(&a, &lang) ||
	    (lang != DW_LANG_C89 && lang != DW_LANG_C99 && lang != DW_LANG_C11 &&
	     lang != DW_LANG_C && lang != 0x2c /* DW_LANG_C17 */) ||
	    dwarf_child(&cu, &d) != 0)
		return false;
	do {
		Dwarf_Addr lo;
		if (dwarf_tag(&d) == DW_TAG_subprogram &&
		    dwarf_lowpc(&d, &lo) == 0 && lo == rel) {
			*out = d;
			return true;
		}
	} while (dwarf_siblingof(&d, &d) == 0);
	return false;
}

/* A type abi.c does not place in registers as the psABI does, so that
 * the parameters after it could be read from the wrong ones: a vector
 * (DW_AT_GNU_vector: SSEUP), a 16-byte floating type other than long
 * double (_Float128: in xmm0). */
static bool misplaced(Dwarf_Die *type)
{
	Dwarf_Die t;
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	const char *name;
	if (!type_strip(type, &t))
		return false;
	if (dwarf_tag(&t) == DW_TAG_array_type)
		return dwarf_hasattr(&t, DW_AT_GNU_vector);
	if (dwarf_tag(&t) != DW_TAG_base_type || !dwarf_attr(&t, DW_AT_encoding, &a) ||
	    dwarf_formudata(&a, &enc) != 0)
		return false;
	return enc >= DW_ATE_lo_user ||
	       (enc == DW_ATE_float && type_size(&t, 8) == 16 &&
		(!(name = dwarf_diename(&t)) || strcmp(name, "long double")));
}

static char *type_text(Dwarf_Die *type)
{
	struct str b = {0};
	type_name(type, &b, 0);
	return str_take(&b);
}

/* The prototype of fn (a subprogram or a subroutine type), or NULL;
 * i386: its parameters placed as cdecl passes them. */
static struct libtype *prototype(Dwarf_Die *fn, bool named, bool i386)
{
	Dwarf_Attribute a;
	bool proto = false;
	if (dwarf_attr_integrate(fn, DW_AT_prototyped, &a) == NULL ||
	    dwarf_formflag(&a, &proto) != 0 || !proto)
		return NULL; /* K&R: the caller promoted what it passed */
	struct abi_param at[ABI_PARAMS_MAX];
	bool variadic;
	int n = i386 ? abi_params_i386(fn, at, ABI_PARAMS_MAX, &variadic)
		     : abi_params(fn, at, ABI_PARAMS_MAX, &variadic);
	int ptr_size = i386 ? 4 : 8;
	if (n < 0 || n > ABI_PARAMS_MAX)
		return NULL;
	struct libtype *lt = must_calloc(1, sizeof *lt);
	lt->param = must_calloc((size_t)n + 1, sizeof *lt->param);
	lt->variadic = variadic;
	Dwarf_Die p;
	int k = 0;
	if (n > 0 && dwarf_child(fn, &p) == 0) {
		do {
			if (dwarf_tag(&p) != DW_TAG_formal_parameter || k >= n)
				continue;
			struct libtype_param *q = &lt->param[k];
			const char *name = named ? dwarf_diename(&p) : NULL;
			q->name = name ? must_strndup(name, strlen(name)) : NULL;
			q->at = at[k];
			if (type_of(&p, &q->type)) {
				q->type_name = type_text(&q->type);
				q->kind = format_kind(&q->type, ptr_size,
						      at[k].size);
				q->string = type_is_string(&q->type);
				if (misplaced(&q->type)) {
					lt->n = (size_t)k + 1;
					libtypes_free(lt);
					return NULL;
				}
			}
			k++;
		} while (dwarf_siblingof(&p, &p) == 0);
	}
	lt->n = (size_t)k;
	lt->have_ret = type_of(fn, &lt->ret);
	if (lt->have_ret && misplaced(&lt->ret)) {
		libtypes_free(lt);
		return NULL;
	}
	abi_return(lt->have_ret ? &lt->ret : NULL, i386, &lt->abi);
	if (lt->have_ret) {
		lt->ret_name = type_text(&lt->ret);
		lt->ret_kind = format_kind(&lt->ret, ptr_size, lt->abi.size);
	}
	return lt;
}

/* The pointer-to-function type an IFUNC resolver returns, as the
 * subroutine type it points to. */
static bool resolved_type(Dwarf_Die *resolver, Dwarf_Die *out)
{
	Dwarf_Die t, pointee;
	return type_of(resolver, &t) && type_strip(&t, &t) &&
	       dwarf_tag(&t) == DW_TAG_pointer_type && type_of(&t, &pointee) &&
	       type_strip(&pointee, out) &&
	       dwarf_tag(out) == DW_TAG_subroutine_type;
}

/* The library that holds the target, with its DWARF, and its bias: by
 * the module the resolver picks (its path, at the pair's time) and the
 * trace's record of it, without naming the target, which would read the
 * library's line tables through libbfd for nothing. */
static struct dw_module *library_of(struct trace *t,
				    const struct values_call *p,
				    uint64_t *bias)
{
	struct resolve_info ri = {0};
	ri.module = resolve_function_module(t->resolver, p->target, p->ticks);
	if (!ri.module)
		return NULL;
	for (size_t i = 0; i < t->n_modules; i++) {
		const struct trace_module *tm = &t->modules[i];
		if (tm->start <= p->target && p->target < tm->end &&
		    !strcmp(tm->path, ri.module)) {
			struct dw_module *m =
				dw_module_at(t, &ri, p->target, p->ticks);
			*bias = tm->bias;
			return m && m->dw ? m : NULL;
		}
	}
	return NULL;
}

static struct libtype *lookup(struct trace *t, const struct values_call *p,
			      bool *debug)
{
	uint64_t bias, addr = 0;
	bool ifunc = false;
	Dwarf_Die fn, root;
	struct dw_module *m;
	bool i386 = t->hdr.machine == EM_386;
	if ((t->hdr.machine != EM_X86_64 && !i386) ||
	    !(m = library_of(t, p, &bias)))
		return NULL;
	*debug = true;
	if (!dynsym_find(m->elf, p->symbol, p->target - bias, &addr, &ifunc) ||
	    !subprogram_at(m->dw, addr, &fn))
		return NULL;
	if (ifunc)
		return resolved_type(&fn, &root)
			       ? prototype(&root, false, i386)
			       : NULL;
	/* an out-of-line copy of an inline function: its origin lists
	 * every parameter, with names and types */
	Dwarf_Attribute a;
	if (!dwarf_attr(&fn, DW_AT_abstract_origin, &a) ||
	    !dwarf_formref_die(&a, &root))
		root = fn;
	return prototype(&root, true, i386);
}

static size_t slot_of(uint64_t target)
{
	return (size_t)((target * 0x9e3779b97f4a7c15ull) >> 20) & cache.mask;
}

const struct libtype *libtypes_of(struct trace *t,
				  const struct values_call *p, bool *debug)
{
	bool ignored;
	if (debug == NULL)
		debug = &ignored;
	*debug = false;
	if (!p->target || !p->symbol)
		return NULL;
	if (cache.slots) {
		for (size_t i = slot_of(p->target); cache.slots[i].symbol;
		     i = (i + 1) & cache.mask)
			if (cache.slots[i].target == p->target &&
			    cache.slots[i].trace == t &&
			    (cache.slots[i].seen == p->symbol ||
			     !strcmp(cache.slots[i].symbol, p->symbol))) {
				cache.slots[i].seen = p->symbol;
				*debug = cache.slots[i].debug;
				return cache.slots[i].lt;
			}
	}
	if (2 * (cache.n + 1) > cache.mask) {
		size_t old = cache.slots ? cache.mask + 1 : 0;
		struct entry *was = cache.slots;
		cache.mask = old ? 2 * old - 1 : 63;
		cache.slots = must_calloc(cache.mask + 1, sizeof *cache.slots);
		for (size_t k = 0; k < old; k++) {
			if (!was[k].symbol)
				continue;
			size_t i = slot_of(was[k].target);
			while (cache.slots[i].symbol)
				i = (i + 1) & cache.mask;
			cache.slots[i] = was[k];
		}
		free(was);
	}
	size_t i = slot_of(p->target);
	while (cache.slots[i].symbol)
		i = (i + 1) & cache.mask;
	struct entry *e = &cache.slots[i];
	e->trace = t;
	e->target = p->target;
	e->symbol = must_strndup(p->symbol, strlen(p->symbol));
	e->seen = p->symbol;
	e->lt = lookup(t, p, &e->debug);
	cache.n++;
	*debug = e->debug;
	return e->lt;
}

void libtypes_free(struct libtype *lt)
{
	if (!lt)
		return;
	for (size_t k = 0; k < lt->n; k++) {
		free(lt->param[k].name);
		free(lt->param[k].type_name);
	}
	free(lt->param);
	free(lt->ret_name);
	free(lt);
}

void libtypes_reset(void)
{
	for (size_t i = 0; cache.slots && i <= cache.mask; i++) {
		free(cache.slots[i].symbol);
		libtypes_free(cache.slots[i].lt);
	}
	free(cache.slots);
	cache.slots = NULL;
	cache.mask = cache.n = 0;
}
