/* values.c -- arguments and return values as typed text.
 *
 * Parameters are listed from the function's abstract DIE (names, types,
 * order), and looked up in the concrete instance the hook ran in: the
 * function itself, an out-of-line clone (gcc's f.constprop.0: the hook is
 * given f's address but runs in the clone), or an inlined copy.  Return
 * values are read from the registers the calling convention puts them in.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dwarf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwinfo.h"
#include "replay.h"
#include "values.h"

#define MAX_VALUE_BYTES 256
#define MAX_TEXT 4096

/* ---------------------------------------------------------------------------
 * Growing strings
 * ------------------------------------------------------------------------ */

struct str {
	char *s;
	size_t len, cap;
};

static void str_add(struct str *b, const char *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = must_realloc(b->s, b->cap, 1);
	}
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void str_cat(struct str *b, const char *p)
{
	str_add(b, p, strlen(p));
}

static void str_printf(struct str *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void str_printf(struct str *b, const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n > 0)
		str_add(b, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static char *str_take(struct str *b)
{
	if (!b->s)
		return must_strndup("", 0);
	return b->s;
}

/* ---------------------------------------------------------------------------
 * Types
 * ------------------------------------------------------------------------ */

static bool type_of(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(die, DW_AT_type, &a) &&
	       dwarf_formref_die(&a, type);
}

/* Through typedefs and qualifiers. */
static bool strip(Dwarf_Die *type, Dwarf_Die *out)
{
	Dwarf_Die t = *type;
	for (int i = 0; i < 16; i++) {
		int tag = dwarf_tag(&t);
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_restrict_type &&
		    tag != DW_TAG_atomic_type) {
			*out = t;
			return true;
		}
		if (!type_of(&t, &t)) {
			*out = t; /* const void */
			return false;
		}
	}
	return false;
}

static bool is_cxx(Dwarf_Die *die)
{
	Dwarf_Die cu;
	if (!dwarf_diecu(die, &cu, NULL, NULL))
		return false;
	int lang = dwarf_srclang(&cu);
	return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
	       lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
}

static void type_name(Dwarf_Die *type, struct str *b, int depth)
{
	const char *name = dwarf_diename(type);
	Dwarf_Die inner;
	bool has_inner = type_of(type, &inner);
	if (depth > 8) {
		str_cat(b, "...");
		return;
	}
	switch (dwarf_tag(type)) {
	case DW_TAG_base_type:
	case DW_TAG_typedef:
		str_cat(b, name ? name : "?");
		return;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		if (!is_cxx(type))
			str_cat(b, dwarf_tag(type) == DW_TAG_union_type ? "union "
				   : dwarf_tag(type) == DW_TAG_enumeration_type
					   ? "enum "
					   : "struct ");
		str_cat(b, name ? name : "{...}");
		return;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		str_cat(b, dwarf_tag(type) == DW_TAG_const_type ? "const "
							       : "volatile ");
		if (has_inner)
			type_name(&inner, b, depth + 1);
		else
			str_cat(b, "void");
		return;
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		if (has_inner)
			type_name(&inner, b, depth + 1);
		return;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		if (!has_inner)
			str_cat(b, "void");
		else if (dwarf_tag(&inner) == DW_TAG_subroutine_type)
			str_cat(b, "function");
		else
			type_name(&inner, b, depth + 1);
		str_cat(b, dwarf_tag(type) == DW_TAG_pointer_type ? " *"
			   : dwarf_tag(type) == DW_TAG_reference_type ? " &"
								       : " &&");
		return;
	case DW_TAG_array_type:
		if (has_inner)
			type_name(&inner, b, depth + 1);
		str_cat(b, "[]");
		return;
	default:
		str_cat(b, name ? name : "?");
	}
}

static size_t type_size(Dwarf_Die *type, int ptr_size)
{
	Dwarf_Die t;
	strip(type, &t);
	int tag = dwarf_tag(&t);
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
	    tag == DW_TAG_rvalue_reference_type)
		return (size_t)ptr_size;
	Dwarf_Word size;
	if (dwarf_aggregate_size(&t, &size) == 0)
		return (size_t)size;
	return 0;
}

/* ---------------------------------------------------------------------------
 * Values as text
 * ------------------------------------------------------------------------ */

struct fmt_ctx {
	const struct capture *mem; /* for strings; may be NULL */
	int ptr_size;
};

static uint64_t get_uint(const uint8_t *p, size_t size)
{
	uint64_t v = 0;
	memcpy(&v, p, size > 8 ? 8 : size);
	return v;
}

static int64_t get_int(const uint8_t *p, size_t size)
{
	uint64_t v = get_uint(p, size);
	if (size < 8 && (v >> (8 * size - 1)) & 1)
		v |= ~0ull << (8 * size);
	return (int64_t)v;
}

/* One byte of a string or char value, as a C literal (escape.c). */
static void put_char(struct str *b, unsigned c, char quote)
{
	char e[4];
	str_add(b, e, escape_c_byte((unsigned char)c, quote, e));
}

static void u128_text(struct str *b, unsigned __int128 v, bool neg)
{
	char d[48];
	size_t n = sizeof d;
	d[--n] = '\0';
	do {
		d[--n] = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	if (neg)
		d[--n] = '-';
	str_cat(b, d + n);
}

static void format_value(struct fmt_ctx *fc, Dwarf_Die *type,
			 const uint8_t *p, size_t size, struct str *b,
			 int depth);

static bool is_char_type(Dwarf_Die *type)
{
	Dwarf_Die t;
	Dwarf_Word enc, sz;
	Dwarf_Attribute a;
	if (!strip(type, &t) || dwarf_tag(&t) != DW_TAG_base_type ||
	    !dwarf_attr(&t, DW_AT_encoding, &a) || dwarf_formudata(&a, &enc) ||
	    !dwarf_attr(&t, DW_AT_byte_size, &a) || dwarf_formudata(&a, &sz))
		return false;
	return sz == 1 && (enc == DW_ATE_signed_char ||
			   enc == DW_ATE_unsigned_char ||
			   ((enc == DW_ATE_signed || enc == DW_ATE_unsigned) &&
			    dwarf_diename(&t) && strstr(dwarf_diename(&t), "char")));
}

static void format_pointer(struct fmt_ctx *fc, Dwarf_Die *t, uint64_t addr,
			   struct str *b)
{
	Dwarf_Die target;
	bool has_target = type_of(t, &target);
	if (has_target && is_char_type(&target) && addr != 0 && fc->mem) {
		/* The text of a string argument, if the recorder saved it;
		 * an empty block: it tried, and the pointer was bad. */
		bool unreadable = false;
		for (size_t i = 0; i < fc->mem->nblocks; i++) {
			const struct capture_block *blk = &fc->mem->blocks[i];
			if (blk->addr != addr)
				continue;
			if (blk->len == 0) {
				unreadable = true;
				continue;
			}
			size_t n = strnlen((const char *)blk->bytes, blk->len);
			str_cat(b, "\"");
			for (size_t k = 0; k < n; k++)
				put_char(b, blk->bytes[k], '"');
			str_cat(b, n == blk->len ? "\"..." : "\"");
			return;
		}
		if (unreadable) {
			str_printf(b, "0x%" PRIx64 " <unreadable>", addr);
			return;
		}
	}
	if (addr == 0)
		str_cat(b, "NULL");
	else
		str_printf(b, "0x%" PRIx64, addr);
}

static void format_struct(struct fmt_ctx *fc, Dwarf_Die *t, const uint8_t *p,
			  size_t size, struct str *b, int depth)
{
	Dwarf_Die m;
	bool first = true;
	str_cat(b, "{");
	if (dwarf_child(t, &m) == 0) {
		do {
			Dwarf_Attribute a;
			Dwarf_Word off = 0;
			Dwarf_Die mt;
			if (dwarf_tag(&m) != DW_TAG_member ||
			    dwarf_attr(&m, DW_AT_external, &a) || /* static */
			    !type_of(&m, &mt))
				continue;
			if (dwarf_attr(&m, DW_AT_data_member_location, &a) &&
			    dwarf_formudata(&a, &off) != 0)
				continue;
			const char *name = dwarf_diename(&m);
			if (!first)
				str_cat(b, ", ");
			first = false;
			if (name) {
				str_cat(b, name);
				str_cat(b, "=");
			}
			size_t ms = type_size(&mt, fc->ptr_size);
			if (dwarf_attr(&m, DW_AT_bit_size, &a) ||
			    dwarf_attr(&m, DW_AT_data_bit_offset, &a) || ms == 0 ||
			    off + ms > size)
				str_cat(b, "?");
			else
				format_value(fc, &mt, p + off, ms, b, depth + 1);
		} while (dwarf_siblingof(&m, &m) == 0);
	}
	str_cat(b, "}");
}

static void format_value(struct fmt_ctx *fc, Dwarf_Die *type,
			 const uint8_t *p, size_t size, struct str *b,
			 int depth)
{
	Dwarf_Die t;
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	if (depth > 6) {
		str_cat(b, "...");
		return;
	}
	strip(type, &t);
	switch (dwarf_tag(&t)) {
	case DW_TAG_base_type:
		if (dwarf_attr(&t, DW_AT_encoding, &a))
			dwarf_formudata(&a, &enc);
		switch (enc) {
		case DW_ATE_boolean:
			str_cat(b, get_uint(p, size) ? "true" : "false");
			return;
		case DW_ATE_signed_char:
		case DW_ATE_unsigned_char:
			/* plain char as a character; signed and unsigned
			 * char are small numbers */
			if (size == 1 && dwarf_diename(&t) &&
			    !strcmp(dwarf_diename(&t), "char")) {
				str_cat(b, "'");
				put_char(b, p[0], '\'');
				str_cat(b, "'");
				return;
			}
			/* fall through */
		case DW_ATE_unsigned:
		case DW_ATE_UTF:
			if (enc == DW_ATE_signed_char) {
				str_printf(b, "%" PRId64, get_int(p, size));
			} else if (size == 16) {
				unsigned __int128 v;
				memcpy(&v, p, 16);
				u128_text(b, v, false);
			} else {
				str_printf(b, "%" PRIu64, get_uint(p, size));
			}
			return;
		case DW_ATE_signed:
			if (size == 16) {
				__int128 v;
				memcpy(&v, p, 16);
				u128_text(b, v < 0 ? -(unsigned __int128)v
						   : (unsigned __int128)v,
					  v < 0);
			} else {
				str_printf(b, "%" PRId64, get_int(p, size));
			}
			return;
		case DW_ATE_float:
			if (size == 4) {
				float f;
				memcpy(&f, p, 4);
				str_printf(b, "%.9g", f);
			} else if (size == 8) {
				double d;
				memcpy(&d, p, 8);
				str_printf(b, "%.17g", d);
			} else if (size == 16 || size == 12 || size == 10) {
				long double ld = 0;
				memcpy(&ld, p, 10);
				str_printf(b, "%.21Lg", ld);
			} else {
				str_cat(b, "?");
			}
			return;
		default:
			str_cat(b, "?");
			return;
		}
	case DW_TAG_enumeration_type: {
		int64_t v = get_int(p, size);
		Dwarf_Die e;
		if (dwarf_child(&t, &e) == 0) {
			do {
				Dwarf_Sword sv;
				if (dwarf_tag(&e) == DW_TAG_enumerator &&
				    dwarf_attr(&e, DW_AT_const_value, &a) &&
				    dwarf_formsdata(&a, &sv) == 0 &&
				    (get_uint((const uint8_t *)&sv, size) ==
				     get_uint(p, size))) {
					str_cat(b, dwarf_diename(&e));
					return;
				}
			} while (dwarf_siblingof(&e, &e) == 0);
		}
		str_printf(b, "%" PRId64, v);
		return;
	}
	case DW_TAG_pointer_type:
		format_pointer(fc, &t, get_uint(p, (size_t)fc->ptr_size), b);
		return;
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		/* The address: the object is rarely in the captured stack. */
		str_printf(b, "@0x%" PRIx64, get_uint(p, (size_t)fc->ptr_size));
		return;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		format_struct(fc, &t, p, size, b, depth);
		return;
	case DW_TAG_array_type: {
		Dwarf_Die et;
		size_t es;
		if (!type_of(&t, &et) || (es = type_size(&et, fc->ptr_size)) == 0) {
			str_cat(b, "?");
			return;
		}
		str_cat(b, "{");
		for (size_t i = 0; i + es <= size; i += es) {
			if (i)
				str_cat(b, ", ");
			format_value(fc, &et, p + i, es, b, depth + 1);
		}
		str_cat(b, "}");
		return;
	}
	default:
		str_cat(b, "?");
	}
}

/* ---------------------------------------------------------------------------
 * Arguments
 * ------------------------------------------------------------------------ */

struct values_build {
	struct value *v;
	size_t n, cap;
};

static void add_value(struct values_build *vb, const char *name,
		      Dwarf_Die *type, char *text, const char *why)
{
	struct str tn = {0};
	if (vb->n == vb->cap) {
		vb->cap = vb->cap ? 2 * vb->cap : 8;
		vb->v = must_realloc(vb->v, vb->cap, sizeof *vb->v);
	}
	if (type)
		type_name(type, &tn, 0);
	vb->v[vb->n++] = (struct value){
		name ? must_strndup(name, strlen(name)) : NULL,
		str_take(&tn), text, text ? NULL : why};
}

static struct values *finish(struct values_build *vb, bool unknown)
{
	struct values *v = must_malloc(sizeof *v + vb->n * sizeof(struct value));
	v->n = vb->n;
	v->unknown = unknown;
	v->unknown_why = unknown ? "no debug information" : NULL;
	if (vb->n)
		memcpy(v->v, vb->v, vb->n * sizeof *vb->v);
	free(vb->v);
	return v;
}

/* The module of fn, its bias, its DWARF. */
static struct dw_module *module_of(struct trace *t, uint64_t addr,
				   uint64_t ticks, uint64_t *bias)
{
	const struct resolve_info *ri = resolve_function(t->resolver, addr, ticks);
	if (!ri->module)
		return NULL;
	*bias = addr - ri->module_offset;
	struct dw_module *m = dw_module(ri->module);
	return m && m->dw ? m : NULL;
}

/* Modules already named by no_debug_info_hint. */
static struct {
	char **paths;
	size_t n;
} hinted;

/* A call's values show as `?` because its function has no DWARF: say so
 * once per module, with the fix, rather than leave `f(?) = ?` a puzzle.
 * Names come from the trace: control characters are not printed. */
static void no_debug_info_hint(struct trace *t, const struct pair *p)
{
	const struct resolve_info *ri =
		resolve_function(t->resolver, p->fn, p->ticks);

	if (!ri->module || !dw_module(ri->module))
		return; /* no file: the resolver said so */
	for (size_t i = 0; i < hinted.n; i++)
		if (!strcmp(hinted.paths[i], ri->module))
			return;
	hinted.paths = must_realloc(hinted.paths, hinted.n + 1,
				    sizeof *hinted.paths);
	hinted.paths[hinted.n++] = must_strndup(ri->module,
						strlen(ri->module));
	fputs(PROGRAM_NAME ": ", stderr);
	for (const char *c = ri->module; *c; c++)
		fputc((unsigned char)*c < 0x20 ? '?' : *c, stderr);
	fputs(": no debug information for ", stderr);
	for (const char *c = p->func->info.name; *c; c++)
		fputc((unsigned char)*c < 0x20 ? '?' : *c, stderr);
	fputs(": the arguments and return values of functions built "
	      "without -g show as ?; compile with -g\n", stderr);
}

/* The concrete parameter of `scope` whose origin is `param`. */
static bool concrete_param(Dwarf_Die *scope, Dwarf_Die *param, Dwarf_Die *out)
{
	Dwarf_Die c;
	if (dwarf_child(scope, &c) != 0)
		return false;
	do {
		Dwarf_Die root;
		if (dwarf_tag(&c) != DW_TAG_formal_parameter)
			continue;
		dw_root(&c, &root);
		if (dwarf_dieoffset(&root) == dwarf_dieoffset(param)) {
			*out = c;
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* Whether two root DIEs (dw_root) declare the same function.  A C++
 * inline function is emitted in every compilation unit that uses it and
 * the linker keeps one out-of-line copy: the hook of a copy inlined in
 * another unit names that copy, whose declaration is another DIE.  The
 * same mangled name is the same function; without one (C), the same
 * name declared at the same line of the same file. */
static bool same_declaration(Dwarf_Die *a, Dwarf_Die *b)
{
	if (dwarf_dieoffset(a) == dwarf_dieoffset(b))
		return true;
	Dwarf_Attribute x, y;
	bool la = dwarf_attr(a, DW_AT_linkage_name, &x) ||
		  dwarf_attr(a, DW_AT_MIPS_linkage_name, &x);
	bool lb = dwarf_attr(b, DW_AT_linkage_name, &y) ||
		  dwarf_attr(b, DW_AT_MIPS_linkage_name, &y);
	if (la || lb) {
		const char *sa = la ? dwarf_formstring(&x) : NULL;
		const char *sb = lb ? dwarf_formstring(&y) : NULL;
		return sa && sb && !strcmp(sa, sb);
	}
	const char *na = dwarf_diename(a), *nb = dwarf_diename(b);
	const char *fa = dwarf_decl_file(a), *fb = dwarf_decl_file(b);
	int line_a, line_b;
	return na && nb && fa && fb && !strcmp(na, nb) && !strcmp(fa, fb) &&
	       dwarf_decl_line(a, &line_a) == 0 &&
	       dwarf_decl_line(b, &line_b) == 0 && line_a == line_b;
}

/* Parameters unknown for another reason than missing debug information. */
static struct values *finish_unknown(struct values_build *vb, const char *why)
{
	struct values *v = finish(vb, true);
	v->unknown_why = why;
	return v;
}

/* The compilation unit of `die` was compiled by clang. */
static bool produced_by_clang(Dwarf_Die *die)
{
	Dwarf_Die cu;
	Dwarf_Attribute a;
	const char *producer;
	return dwarf_diecu(die, &cu, NULL, NULL) &&
	       dwarf_attr(&cu, DW_AT_producer, &a) &&
	       (producer = dwarf_formstring(&a)) != NULL &&
	       strstr(producer, "clang") != NULL;
}

/* The registers (a mask of DWARF numbers below 64) a parameter's
 * location says it arrived in: its register at the entry, the one whose
 * entry value it reads at the call `call`, and (x86-64) the register a
 * list silent at the entry names first before the call when the code up
 * to there leaves that register as it was at the entry (a gcc clone's
 * parameter it does not receive, said to be in the register that brings
 * it another one). */
static uint64_t entry_claims(struct dw_module *mod, bool x86_64,
			     Dwarf_Attribute *loc, uint64_t entry,
			     uint64_t call)
{
	uint64_t m = 0, start;
	int r = dw_entry_reg(loc, entry);
	if (r >= 0 && r < 64)
		m |= (uint64_t)1 << r;
	r = dw_entry_value_reg(loc, call);
	if (r >= 0 && r < 64)
		m |= (uint64_t)1 << r;
	r = x86_64 ? dw_first_reg_after(loc, entry, call, &start) : -1;
	if (r >= 0 && r < 64 && dw_entry_reg_kept(mod, entry, start, r))
		m |= (uint64_t)1 << r;
	return m;
}

/* The start of the range of `sub` holding pc: the entry of a function
 * gcc split into a hot and a cold part (DW_AT_ranges, no low_pc), whose
 * entry hook is called from the hot part. */
static bool range_start(Dwarf_Die *sub, uint64_t pc, Dwarf_Addr *start)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t it = 0;
	while ((it = dwarf_ranges(sub, it, &base, &lo, &hi)) > 0)
		if (pc >= lo && pc < hi) {
			*start = lo;
			return true;
		}
	return false;
}

/* The shape clang -O0 gives a function: no call-site information, and
 * the frame base in RBP (x86-64) or EBP (i386).  Anything else may be
 * optimized. */
static bool clang_unoptimized(Dwarf_Die *sub)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	if (dwarf_attr(sub, DW_AT_call_all_calls, &a) ||
	    dwarf_attr(sub, DW_AT_GNU_all_call_sites, &a))
		return false;
	return dwarf_attr(sub, DW_AT_frame_base, &a) &&
	       dwarf_getlocation(&a, &ops, &n) == 0 && n == 1 &&
	       (ops[0].atom == DW_OP_reg6 || ops[0].atom == DW_OP_reg5);
}

/* A struct, union, class or array: what clang passes in memory by value
 * (byval) when it does not fit in registers. */
static bool is_aggregate(Dwarf_Die *type)
{
	Dwarf_Die t;
	if (!strip(type, &t))
		return false;
	int tag = dwarf_tag(&t);
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type || tag == DW_TAG_array_type;
}

struct values *values_args(struct trace *t, const struct pair *p,
			   const uint8_t *payload, size_t len)
{
	struct values_build vb = {0};
	struct capture cap;
	uint64_t bias;
	int ptr_size = t->hdr.pointer_size;
	if (capture_parse(payload, len, &cap) < 0)
		return finish_unknown(&vb, "not captured");
	struct dw_module *m = module_of(t, p->fn, p->ticks, &bias);
	Dwarf_Die fn_die, fn_root, scope, sub, scope_root;
	if (!m) {
		no_debug_info_hint(t, p);
		return finish(&vb, true);
	}
	if (dw_function_at(m, p->fn - bias, &fn_die) < 0)
		return finish(&vb, true);
	if (dw_scope_at(m, cap.pc - bias - 1, &scope, &sub) < 0)
		return finish_unknown(&vb, "no debug information where the "
					   "entry hook was called");
	dw_root(&fn_die, &fn_root);
	dw_root(&scope, &scope_root);
	if (!same_declaration(&fn_root, &scope_root))
		return finish_unknown(&vb, "the entry hook was called in "
					   "another function's code");

	struct frame_state f;
	frame_init(&f, m, bias, &cap, t, p->site, p->ticks, t->hdr.machine,
		   ptr_size);
	f.subprogram = sub;
	f.have_subprogram = true;
	struct fmt_ctx fc = {&cap, ptr_size};

	/* Names come from the definition (or its abstract instance): a C++
	 * method's declaration in its class may leave them out. */
	Dwarf_Die param, defn = fn_die;
	for (int i = 0; i < 8; i++) {
		Dwarf_Attribute a;
		Dwarf_Die next;
		if (!dwarf_attr(&defn, DW_AT_abstract_origin, &a) ||
		    !dwarf_formref_die(&a, &next))
			break;
		defn = next;
	}
	if (dwarf_child(&defn, &param) != 0)
		return finish(&vb, false);
	/* Two parameters said to arrive in one register: gcc gives a
	 * clone's (f.constprop.0, f.isra.0) parameters the registers the
	 * original received them in, although the clone receives others
	 * there, at the entry or as the DW_OP_entry_value of a parameter
	 * the clone no longer receives.  At most one of them can be right:
	 * show neither. */
	uint64_t entry_regs_seen = 0, entry_regs_twice = 0;
	Dwarf_Addr entry = 0;
	if (dwarf_entrypc(&sub, &entry) != 0 &&
	    !range_start(&sub, cap.pc - bias - 1, &entry))
		entry = p->fn - bias;
	bool own = dwarf_dieoffset(&scope) == dwarf_dieoffset(&sub);
	bool x86_64 = t->hdr.machine == 62;
	bool clone = own && entry != p->fn - bias;
	Dwarf_Die c;
	if (own && dwarf_child(&scope, &c) == 0) {
		do {
			Dwarf_Attribute l;
			uint64_t claims;
			if (dwarf_tag(&c) != DW_TAG_formal_parameter ||
			    !dwarf_attr(&c, DW_AT_location, &l) ||
			    !(claims = entry_claims(m, x86_64, &l, entry,
							  f.rel_pc - 1)))
				continue;
			entry_regs_twice |= entry_regs_seen & claims;
			entry_regs_seen |= claims;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	/* clang -O1 and above: see the two checks below. */
	bool clang_opt = own && produced_by_clang(&scope) &&
			 !clang_unoptimized(&sub);
	do {
		int tag = dwarf_tag(&param);
		if (tag == DW_TAG_unspecified_parameters) {
			add_value(&vb, "...", NULL, NULL, "variadic");
			continue;
		}
		if (tag != DW_TAG_formal_parameter)
			continue;
		const char *name = dwarf_diename(&param);
		Dwarf_Die type, conc;
		bool has_type = type_of(&param, &type);
		const char *why = "optimized out";
		char *text = NULL;
		Dwarf_Attribute loc;
		size_t size = has_type ? type_size(&type, ptr_size) : 0;
		uint8_t buf[MAX_VALUE_BYTES];
		bool found = dwarf_dieoffset(&defn) == dwarf_dieoffset(&scope)
				     ? (conc = param, true)
				     : concrete_param(&scope, &param, &conc);
		if (!has_type || size == 0 || size > sizeof buf) {
			why = "unsupported type";
		} else if (!own && produced_by_clang(&scope)) {
			/* An inlined copy has no entry of its own to prove a
			 * value by, and clang moves statements of its body
			 * above the hook and describes the parameter as they
			 * left it (a constant, a computation): the value
			 * fuzzer finds such values wrong. */
			why = "inlined by clang: the location at the hook may "
			      "be a later statement's";
		} else if (found && dwarf_attr(&conc, DW_AT_location, &loc)) {
			memset(buf, 0, sizeof buf);
			int64_t slot;
			/* The entry register's copy first, when the code
			 * proves it: the value passed, whatever the list says
			 * at the call (clang may already describe a later
			 * statement there: `p3 & 15' for p3). */
			bool copied = own && dw_eval_entry_copy(&f, &loc, entry,
								buf, size) == 0;
			bool ok = copied;
			if (!ok)
				ok = dw_eval_location(&f, &loc, buf, size,
						      &why) == 0;
			if (own && (entry_claims(m, x86_64, &loc, entry,
						 f.rel_pc - 1) &
				    entry_regs_twice)) {
				why = "ambiguous location";
				goto add;
			}
			/* A gcc clone (its hook names the original function:
			 * f.constprop.0.isra.0) describes a parameter it no
			 * longer receives as the entry value of the register
			 * the original received it in, which may hold another
			 * (a field IPA-SRA passes instead of its struct).
			 * Such a value is the clone's only where the list
			 * names that very register at the clone's entry.  The
			 * same holds (x86-64) for a register the code from the
			 * entry to the hook's call filled from that register
			 * (gcc names the copy: `mov %edi,%ebp', then p0 in
			 * RBP where the clone receives p1 in EDI). */
			int ev = clone ? dw_entry_value_reg(&loc, f.rel_pc - 1)
				       : -1;
			int at_call = clone && x86_64 && ev < 0
					      ? dw_location_reg(&loc, f.rel_pc - 1)
					      : -1;
			size_t width;
			if (at_call >= 0 &&
			    !dw_entry_reg_origin(m, entry, f.rel_pc - 5, at_call,
						 &ev, &width))
				ev = -1;
			if (ev >= 0 && !copied &&
			    dw_location_reg(&loc, entry) != ev) {
				ok = false;
				why = "a clone's entry value of a register it may "
				      "receive another parameter in";
				goto add;
			}
			/* One general register at the entry for a value wider
			 * than it (clang: an __int128 passed in memory because
			 * one register was left, said to be in that register,
			 * which holds the next parameter): the list describes
			 * another value. */
			int er = own ? dw_entry_reg(&loc, entry) : -1;
			if (er >= 0 && size > (size_t)ptr_size &&
			    er < (t->hdr.machine == 3 ? 8 : 16)) {
				ok = false;
				why = "location narrower than its type";
				goto add;
			}
			if (ok && own && !copied &&
			    dw_location_contradicted(&f, &loc, entry, size)) {
				ok = false;
				why = "changed before the entry hook";
			}
			/* An inlined copy's computed location is the salvage
			 * of a statement of its body placed before the hook. */
			if (ok && !own &&
			    !dw_location_plain(&loc, f.rel_pc - 1)) {
				ok = false;
				why = "computed by the inlined copy's body";
			}
			/* clang describes a parameter at the hook by the
			 * statements that change it after the hook (`p5 =
			 * p5 & 15' as EDI & 15, the and after the call): a
			 * value there that is not the one at the entry is not
			 * the value passed. */
			if (ok && own && !copied && clang_opt &&
			    dw_location_changed_value(&loc, entry,
						      f.rel_pc - 1)) {
				ok = false;
				why = "computed: clang may describe a later "
				      "statement's value at the hook";
			}
			/* No location at the entry either (clang -O2, a small
			 * struct by value): where the calling convention
			 * put it, when the prologue proves a copy. */
			int regs[2];
			size_t lens[2];
			int nr = !ok && own && t->hdr.machine == 62 &&
					 entry == p->fn - bias
				 ? values_param_regs(&fn_die, &defn, &param,
						     regs, lens)
				 : 0;
			for (int i = 0, done = 0, copy; i < nr; i++) {
				if (!dw_entry_reg_copy(m, entry, cap.pc - bias - 5,
						       regs[i], lens[i], &copy) ||
				    !f.have[copy])
					break;
				memcpy(buf + done, &f.reg[copy], lens[i]);
				done += (int)lens[i];
				ok = i + 1 == nr;
			}
			uint64_t addr = 0;
			bool in_args = false;
			if (!ok && t->hdr.machine == 3 && f.have_cfa &&
			    dwarf_dieoffset(&scope) == dwarf_dieoffset(&sub) &&
			    dw_i386_stack_slot(m, &loc, &sub, cap.pc - bias,
					       &slot)) {
				ok = capture_read(&cap, f.cfa + (uint64_t)slot, buf,
						  size);
				in_args = true;
				if (!ok)
					why = "outside the captured stack";
			} else if (ok && !copied && f.have_cfa &&
				   dw_location_address(&f, &loc, &addr)) {
				in_args = addr >= f.cfa;
			}
			/* clang -O1 and above leave unwritten a by-value
			 * aggregate passed in memory that the function never
			 * reads: the caller's copy of it into the argument
			 * area is removed as dead.  Nothing at the entry tells
			 * whether the function reads it. */
			if (ok && in_args && clang_opt && is_aggregate(&type)) {
				ok = false;
				why = "passed in memory: clang may leave it "
				      "unwritten when the function never reads it";
			}
			if (ok) {
				struct str s = {0};
				format_value(&fc, &type, buf, size, &s, 0);
				text = str_take(&s);
			}
		} else if (found && dwarf_attr(&conc, DW_AT_const_value, &loc)) {
			Dwarf_Sword sv;
			Dwarf_Block blk;
			memset(buf, 0, sizeof buf);
			unsigned form = dwarf_whatform(&loc);
			size_t fsize = form == DW_FORM_data1   ? 1
				       : form == DW_FORM_data2 ? 2
				       : form == DW_FORM_data4 ? 4
				       : form == DW_FORM_data8 ? 8
							       : 0;
			Dwarf_Word raw;
			if (fsize && dwarf_formudata(&loc, &raw) == 0) {
				/* DW_FORM_dataN says neither signed nor
				 * unsigned: narrower than the type with its top
				 * bit set (gcc: 0xffff for an int of 65535),
				 * it could be either. */
				if (fsize < size && size <= 8 &&
				    (raw >> (8 * fsize - 1)) & 1) {
					why = "ambiguous constant";
					goto add;
				}
				memcpy(buf, &raw, size < 8 ? size : 8);
			} else if (dwarf_formblock(&loc, &blk) == 0 &&
				   blk.length >= size) {
				memcpy(buf, blk.data, size);
			} else if (dwarf_formsdata(&loc, &sv) == 0) {
				memcpy(buf, &sv, size < 8 ? size : 8);
			} else {
				goto add;
			}
			struct str s = {0};
			format_value(&fc, &type, buf, size, &s, 0);
			text = str_take(&s);
		}
	add:
		add_value(&vb, name ? name : "?", has_type ? &type : NULL,
			  text, why);
	} while (dwarf_siblingof(&param, &param) == 0);
	return finish(&vb, false);
}

/* ---------------------------------------------------------------------------
 * Return values
 * ------------------------------------------------------------------------ */

enum cls { CLS_NONE, CLS_INT, CLS_SSE, CLS_X87, CLS_MEMORY };

static enum cls merge(enum cls a, enum cls b)
{
	if (a == b || b == CLS_NONE)
		return a;
	if (a == CLS_NONE)
		return b;
	if (a == CLS_MEMORY || b == CLS_MEMORY || a == CLS_X87 || b == CLS_X87)
		return CLS_MEMORY;
	if (a == CLS_INT || b == CLS_INT)
		return CLS_INT;
	return CLS_SSE;
}

/* SysV x86-64 classification of the bytes [off, off + size) of type. */
static void classify(Dwarf_Die *type, size_t off, enum cls c[2], int depth)
{
	Dwarf_Die t;
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	strip(type, &t);
	size_t size = type_size(&t, 8);
	if (depth > 8 || size == 0) {
		c[0] = c[1] = CLS_MEMORY;
		return;
	}
	switch (dwarf_tag(&t)) {
	case DW_TAG_base_type:
		if (dwarf_attr(&t, DW_AT_encoding, &a))
			dwarf_formudata(&a, &enc);
		if (enc == DW_ATE_float && size == 16) {
			c[0] = merge(c[0], CLS_X87);
			c[1] = merge(c[1], CLS_X87);
			return;
		}
		if (enc == DW_ATE_complex_float || enc == DW_ATE_lo_user) {
			c[0] = c[1] = CLS_MEMORY;
			return;
		}
		for (size_t i = off / 8; i <= (off + size - 1) / 8 && i < 2; i++)
			c[i] = merge(c[i], enc == DW_ATE_float ? CLS_SSE
								: CLS_INT);
		if (off + size > 16)
			c[0] = c[1] = CLS_MEMORY;
		return;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_enumeration_type:
		if (off / 8 < 2)
			c[off / 8] = merge(c[off / 8], CLS_INT);
		return;
	case DW_TAG_array_type: {
		Dwarf_Die et;
		size_t es;
		if (!type_of(&t, &et) || (es = type_size(&et, 8)) == 0) {
			c[0] = c[1] = CLS_MEMORY;
			return;
		}
		for (size_t i = 0; i + es <= size; i += es)
			classify(&et, off + i, c, depth + 1);
		return;
	}
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type: {
		Dwarf_Word cc;
		Dwarf_Die m;
		if (dwarf_attr(&t, DW_AT_calling_convention, &a) &&
		    dwarf_formudata(&a, &cc) == 0 &&
		    cc == DW_CC_pass_by_reference) {
			c[0] = c[1] = CLS_MEMORY;
			return;
		}
		if (off + size > 16) {
			c[0] = c[1] = CLS_MEMORY;
			return;
		}
		if (dwarf_child(&t, &m) == 0) {
			do {
				Dwarf_Word moff = 0;
				Dwarf_Die mt;
				int tag = dwarf_tag(&m);
				if ((tag != DW_TAG_member &&
				     tag != DW_TAG_inheritance) ||
				    dwarf_attr(&m, DW_AT_external, &a) ||
				    !type_of(&m, &mt))
					continue;
				if (dwarf_attr(&m, DW_AT_bit_size, &a)) {
					c[0] = c[1] = CLS_MEMORY;
					return;
				}
				if (dwarf_attr(&m, DW_AT_data_member_location,
					       &a))
					dwarf_formudata(&a, &moff);
				classify(&mt, off + moff, c, depth + 1);
			} while (dwarf_siblingof(&m, &m) == 0);
		}
		return;
	}
	default:
		c[0] = c[1] = CLS_MEMORY;
	}
}

/* values_ret_regs without CTRACE_RETVAL_NARROW; *size_out: the return
 * type's size. */
static unsigned ret_regs(Dwarf_Die *fn_die, bool i386, unsigned *mem,
			 size_t *size_out)
{
	Dwarf_Die type, st;
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	*mem = 0;
	*size_out = 0;
	if (!type_of(fn_die, &type))
		return 0;
	strip(&type, &st);
	size_t size = type_size(&type, i386 ? 4 : 8);
	*size_out = size;
	if (size == 0 || size > CTRACE_RETVAL_MEM_MAX)
		return CTRACE_RETVAL_R0; /* shown as unsupported anyway */
	bool is_float = dwarf_tag(&st) == DW_TAG_base_type &&
			dwarf_attr(&st, DW_AT_encoding, &a) &&
			dwarf_formudata(&a, &enc) == 0 && enc == DW_ATE_float;
	int tag = dwarf_tag(&st);
	bool aggregate = tag == DW_TAG_structure_type ||
			 tag == DW_TAG_class_type || tag == DW_TAG_union_type;
	if (is_float && (i386 || size > 8))
		return CTRACE_RETVAL_ST0;
	if (is_float)
		return CTRACE_RETVAL_XMM0;
	if (i386 && aggregate)
		goto memory;
	if (i386)
		return size > 4 ? CTRACE_RETVAL_R0 | CTRACE_RETVAL_R1
				: CTRACE_RETVAL_R0;
	if (aggregate || size > 8) {
		enum cls c[2] = {CLS_NONE, CLS_NONE};
		classify(&type, 0, c, 0);
		if (size > 16 || c[0] == CLS_MEMORY || c[1] == CLS_MEMORY ||
		    c[0] == CLS_X87)
			goto memory;
		unsigned mask = 0;
		int ni = 0, ns = 0;
		for (int i = 0; i < 2 && (size_t)i * 8 < size; i++) {
			if (c[i] == CLS_SSE)
				mask |= ns++ ? CTRACE_RETVAL_XMM1
					     : CTRACE_RETVAL_XMM0;
			else
				mask |= ni++ ? CTRACE_RETVAL_R1
					     : CTRACE_RETVAL_R0;
		}
		return mask;
	}
	return CTRACE_RETVAL_R0;
memory:
	*mem = (unsigned)size;
	return CTRACE_RETVAL_R0 | CTRACE_RETVAL_MEM;
}

/* SysV x86-64: the general registers (DWARF numbers, in order) and the
 * bytes of it each holds, in which a C function that follows the calling
 * convention (an external one: no clone, no changed signature) receives
 * its parameter `target` at its first instruction.  Returns 1 or 2, or 0
 * when it comes in SSE registers, on the stack, or is not known. */
int values_param_regs(Dwarf_Die *fn_die, Dwarf_Die *defn, Dwarf_Die *target,
		      int regs[2], size_t lens[2])
{
	static const int gpr[6] = {5, 4, 1, 2, 8, 9};
	Dwarf_Attribute a;
	Dwarf_Die cu, p;
	Dwarf_Word lang;
	unsigned mem;
	bool ext = false;
	if (!dwarf_diecu(fn_die, &cu, NULL, NULL) ||
	    !dwarf_attr(&cu, DW_AT_language, &a) || dwarf_formudata(&a, &lang) ||
	    (lang != DW_LANG_C89 && lang != DW_LANG_C99 && lang != DW_LANG_C11 &&
	     lang != DW_LANG_C && lang != 0x2c /* DW_LANG_C17 */) ||
	    !dwarf_attr_integrate(fn_die, DW_AT_external, &a) ||
	    dwarf_formflag(&a, &ext) != 0 || !ext ||
	    dwarf_attr_integrate(fn_die, DW_AT_prototyped, &a) == NULL)
		return 0;
	int ni = 0, ns = 0;
	if (ret_regs(defn, false, &mem, &(size_t){0}) & CTRACE_RETVAL_MEM)
		ni = 1; /* the hidden pointer to the result */
	if (dwarf_child(defn, &p) != 0)
		return 0;
	do {
		Dwarf_Die type, st;
		Dwarf_Word enc = 0;
		int tag = dwarf_tag(&p);
		if (tag == DW_TAG_unspecified_parameters)
			return 0;
		if (tag != DW_TAG_formal_parameter)
			continue;
		if (!type_of(&p, &type))
			return 0;
		strip(&type, &st);
		size_t size = type_size(&type, 8);
		enum cls c[2] = {CLS_NONE, CLS_NONE};
		if (size == 0)
			return 0;
		if (dwarf_tag(&st) == DW_TAG_base_type &&
		    dwarf_attr(&st, DW_AT_encoding, &a))
			dwarf_formudata(&a, &enc);
		if (size > 16)
			c[0] = c[1] = CLS_MEMORY;
		else
			classify(&type, 0, c, 0);
		int want_i = 0, want_s = 0;
		bool memory = false;
		for (int i = 0; i < 2 && (size_t)i * 8 < size; i++) {
			if (c[i] == CLS_INT)
				want_i++;
			else if (c[i] == CLS_SSE)
				want_s++;
			else
				memory = true;
		}
		bool in_regs = !memory && ni + want_i <= 6 && ns + want_s <= 8;
		if (dwarf_dieoffset(&p) == dwarf_dieoffset(target)) {
			if (!in_regs || want_s || !want_i)
				return 0;
			for (int i = 0; i < want_i; i++) {
				regs[i] = gpr[ni + i];
				lens[i] = i + 1 < want_i ? 8 : size - 8 * (size_t)i;
			}
			return want_i;
		}
		if (in_regs) {
			ni += want_i;
			ns += want_s;
		}
	} while (dwarf_siblingof(&p, &p) == 0);
	return 0;
}

/* Where the calling convention puts a function's return value: the
 * CTRACE_RETVAL_* registers (0: it returns nothing), and *mem the bytes at
 * r0 when it is returned in memory.  Follows values_retval exactly: the
 * capture plan asks the recorder for these and nothing else. */
unsigned values_ret_regs(Dwarf_Die *fn_die, bool i386, unsigned *mem)
{
	size_t size;
	unsigned mask = ret_regs(fn_die, i386, mem, &size);
	/* The recorder keeps the low half of each register when that is all
	 * the type needs: eax and edx are 32 bits wide; a value of up to 4
	 * bytes in rax alone, of up to 8 in xmm0 alone. */
	unsigned regs = CTRACE_RETVAL_R0 | CTRACE_RETVAL_R1 |
			CTRACE_RETVAL_XMM0 | CTRACE_RETVAL_XMM1;
	if ((i386 && (mask & regs) != 0 &&
	     !(mask & (CTRACE_RETVAL_XMM0 | CTRACE_RETVAL_XMM1))) ||
	    (!i386 && mask == CTRACE_RETVAL_R0 && size <= 4) ||
	    (!i386 && mask == CTRACE_RETVAL_XMM0 && size <= 8))
		mask |= CTRACE_RETVAL_NARROW;
	return mask;
}

struct values *values_retval(struct trace *t, const struct pair *p,
			     const uint8_t *payload, size_t len)
{
	struct values_build vb = {0};
	uint64_t bias;
	int ptr_size = t->hdr.pointer_size;
	bool i386 = t->hdr.machine == 3;
	struct dw_module *m = module_of(t, p->fn, p->ticks, &bias);
	Dwarf_Die fn_die, type;
	if (!m || dw_function_at(m, p->fn - bias, &fn_die) < 0) {
		no_debug_info_hint(t, p);
		add_value(&vb, NULL, NULL, NULL, "no debug information");
		return finish(&vb, true);
	}
	if (!type_of(&fn_die, &type))
		return NULL; /* void */
	Dwarf_Die st;
	strip(&type, &st);
	size_t size = type_size(&type, ptr_size);
	const char *why = NULL;
	uint8_t buf[MAX_VALUE_BYTES] = {0};

	uint8_t full[CTRACE_RETVAL_PAYLOAD];
	unsigned have = CTRACE_RETVAL_R0 | CTRACE_RETVAL_R1 |
			CTRACE_RETVAL_XMM0 | CTRACE_RETVAL_XMM1 |
			CTRACE_RETVAL_ST0 | CTRACE_RETVAL_MEM;
	if (len >= 1 && (payload[0] & CTRACE_RETVAL_COMPACT)) {
		if (retval_expand(payload, len, full, &have) < 0) {
			why = "not captured";
			goto out;
		}
		payload = full;
		len = sizeof full;
	}
	if (len < CTRACE_RETVAL_PAYLOAD) {
		why = "not captured";
		goto out;
	}
	if (payload[0] == 0) {
		why = "not captured (left by longjmp or an exception, "
		      "or inlined into a call that returned later)";
		goto out;
	}
	if (payload[0] != 1) {
		why = "not captured (inlined or cloned call)";
		goto out;
	}
	if (size == 0 || size > CTRACE_RETVAL_MEM_MAX) {
		why = "unsupported type";
		goto out;
	}
	const uint8_t *r0 = payload + CTRACE_RETVAL_AT_R0;
	const uint8_t *r1 = payload + CTRACE_RETVAL_AT_R1;
	const uint8_t *x0 = payload + CTRACE_RETVAL_AT_XMM0;
	const uint8_t *x1 = payload + CTRACE_RETVAL_AT_XMM1;
	const uint8_t *st0 = payload + CTRACE_RETVAL_AT_ST0;
	bool st0_ok = payload[CTRACE_RETVAL_AT_ST0_VALID];
	uint64_t mem_addr = load_u64(payload + CTRACE_RETVAL_AT_MEM_ADDR);
	size_t mem_len = payload[CTRACE_RETVAL_AT_MEM_LEN];
	const uint8_t *mem = payload + CTRACE_RETVAL_AT_MEM;

	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	bool is_float = dwarf_tag(&st) == DW_TAG_base_type &&
			dwarf_attr(&st, DW_AT_encoding, &a) &&
			dwarf_formudata(&a, &enc) == 0 && enc == DW_ATE_float;
	int tag = dwarf_tag(&st);
	bool aggregate = tag == DW_TAG_structure_type ||
			 tag == DW_TAG_class_type || tag == DW_TAG_union_type;

	/* The compact form holds the registers the plan named: a value
	 * whose registers are missing is not shown (never a zero). */
#define NEED(bits)                                                     \
	do {                                                           \
		if (((bits) & ~have) != 0) {                           \
			why = "not captured";                          \
			goto out;                                      \
		}                                                      \
	} while (0)
	if (is_float && (i386 || size > 8)) {
		/* x87: st0 holds it, converted to the type's precision */
		if (!st0_ok || !(have & CTRACE_RETVAL_ST0)) {
			why = "not captured";
			goto out;
		}
		long double ld = 0;
		memcpy(&ld, st0, 10);
		if (size == 4) {
			float f = (float)ld;
			memcpy(buf, &f, 4);
		} else if (size == 8) {
			double d = (double)ld;
			memcpy(buf, &d, 8);
		} else {
			memcpy(buf, st0, 10);
		}
	} else if (is_float) {
		NEED(CTRACE_RETVAL_XMM0);
		memcpy(buf, x0, size);
	} else if (i386 ? aggregate : false) {
		goto memory;
	} else if (i386) {
		if (size > 8) {
			why = "unsupported type";
			goto out;
		}
		NEED(size > 4 ? CTRACE_RETVAL_R0 | CTRACE_RETVAL_R1
			      : CTRACE_RETVAL_R0);
		memcpy(buf, r0, size < 4 ? size : 4);
		if (size > 4)
			memcpy(buf + 4, r1, size - 4);
	} else if (aggregate || size > 8) {
		enum cls c[2] = {CLS_NONE, CLS_NONE};
		classify(&type, 0, c, 0);
		if (size > 16 || c[0] == CLS_MEMORY || c[1] == CLS_MEMORY ||
		    c[0] == CLS_X87)
			goto memory;
		const uint8_t *ints[2] = {r0, r1}, *sses[2] = {x0, x1};
		int ni = 0, ns = 0;
		for (int i = 0; i < 2 && (size_t)i * 8 < size; i++) {
			size_t n = size - (size_t)i * 8 < 8 ? size - (size_t)i * 8
							    : 8;
			unsigned bit;
			const uint8_t *src;
			if (c[i] == CLS_SSE) {
				bit = ns ? CTRACE_RETVAL_XMM1 : CTRACE_RETVAL_XMM0;
				src = sses[ns++];
			} else {
				bit = ni ? CTRACE_RETVAL_R1 : CTRACE_RETVAL_R0;
				src = ints[ni++];
			}
			NEED(bit);
			memcpy(buf + i * 8, src, n);
		}
	} else {
		NEED(CTRACE_RETVAL_R0);
		memcpy(buf, r0, size);
	}
	goto show;
memory:
	/* Returned in memory: r0 holds the buffer's address. */
	if ((have & (CTRACE_RETVAL_R0 | CTRACE_RETVAL_MEM)) ==
		    (CTRACE_RETVAL_R0 | CTRACE_RETVAL_MEM) &&
	    mem_len >= size && mem_addr == get_uint(r0, (size_t)ptr_size) &&
	    mem_addr != 0) {
		memcpy(buf, mem, size);
	} else {
		why = "not captured (returned in memory)";
		goto out;
	}
show: {
	struct fmt_ctx fc = {NULL, ptr_size};
	struct str s = {0};
	format_value(&fc, &type, buf, size, &s, 0);
	add_value(&vb, NULL, &type, str_take(&s), NULL);
	return finish(&vb, false);
}
out:
	add_value(&vb, NULL, &type, NULL, why);
	return finish(&vb, false);
#undef NEED
}

void values_free(struct values *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		free(v->v[i].name);
		free(v->v[i].type);
		free(v->v[i].text);
	}
	free(v);
}

void values_reset(void)
{
	for (size_t i = 0; i < hinted.n; i++)
		free(hinted.paths[i]);
	free(hinted.paths);
	hinted.paths = NULL;
	hinted.n = 0;
	dw_modules_free();
}

/* ---------------------------------------------------------------------------
 * Output
 * ------------------------------------------------------------------------ */

void values_put_args_tree(struct outbuf *o, const struct values *v)
{
	if (!v)
		return;
	if (v->unknown) {
		outbuf_putc(o, '?');
		return;
	}
	for (size_t i = 0; i < v->n; i++) {
		if (i)
			outbuf_write(o, ", ", 2);
		if (v->v[i].name && !strcmp(v->v[i].name, "...")) {
			outbuf_write(o, "...", 3);
			continue;
		}
		if (v->v[i].name) /* from the binary's DWARF: any bytes */
			outbuf_escaped(o, v->v[i].name, strlen(v->v[i].name),
				       ESCAPE_TEXT);
		else
			outbuf_putc(o, '?');
		outbuf_putc(o, '=');
		outbuf_str(o, v->v[i].text ? v->v[i].text : "?");
	}
}

void values_put_ret_tree(struct outbuf *o, const struct values *v)
{
	if (!v || v->n == 0)
		return;
	outbuf_write(o, " = ", 3);
	outbuf_str(o, v->v[0].text ? v->v[0].text : "?");
}

static void json_str(struct outbuf *o, const char *s)
{
	outbuf_json_str(o, s, strlen(s));
}

static void json_value(struct outbuf *o, const struct value *v)
{
	outbuf_putc(o, '{');
	if (v->name) {
		outbuf_str(o, "\"name\": ");
		json_str(o, v->name);
		outbuf_str(o, ", ");
	}
	outbuf_str(o, "\"type\": ");
	json_str(o, v->type ? v->type : "");
	if (v->text) {
		outbuf_str(o, ", \"value\": ");
		json_str(o, v->text);
	} else {
		outbuf_str(o, ", \"unavailable\": ");
		json_str(o, v->why ? v->why : "unknown");
	}
	outbuf_putc(o, '}');
}

void values_put_args_json(struct outbuf *o, const struct values *v)
{
	if (!v)
		return;
	if (v->unknown) {
		outbuf_str(o, ", \"args\": null, \"args_unavailable\": ");
		json_str(o, v->unknown_why);
		return;
	}
	outbuf_str(o, ", \"args\": [");
	for (size_t i = 0; i < v->n; i++) {
		if (i)
			outbuf_str(o, ", ");
		json_value(o, &v->v[i]);
	}
	outbuf_putc(o, ']');
}

void values_put_ret_json(struct outbuf *o, const struct values *v)
{
	if (!v || v->n == 0)
		return;
	outbuf_str(o, ", \"retval\": ");
	json_value(o, &v->v[0]);
}
