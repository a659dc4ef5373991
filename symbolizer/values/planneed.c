/* planneed.c -- what the recorder must save at one call of the entry
 * hook for the symbolizer to find the arguments (plan.c writes it).
 *
 * The parameters' locations are walked by the symbolizer's own walker
 * (locwalk.c), over symbols instead of captured bytes: CFA + k, SP + k, or
 * data (a value loaded at run time).  Each register the walk reads and
 * each stack range it reads at a known offset is a need; whatever it does
 * not follow marks the call `wide`: the recorder then also saves its
 * generic windows, as without a plan.  So a plan never loses a value the
 * windows would have given.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "ctrace_plan.h"
#include "values/dwinfo.h"
#include "trace/trace.h"
#include "util/util.h"

#define CALLER_WINDOW 128 /* the caller's frame, for DW_OP_entry_value */

static void need_range(struct plan_need *nd, enum plan_base b, int64_t lo, int64_t len)
{
	if (nd->n == PLAN_MAX_RANGES) {
		nd->wide = true;
		return;
	}
	nd->r[nd->n++] = (struct plan_range){b, lo, lo + len};
}

/* ---------------------------------------------------------------------------
 * Symbolic evaluation
 *
 * Values are the walker's (locwalk.c): numbers, CFA + k, SP + k, or data
 * known only at run time.  A register the recorder does not save makes
 * the evaluator fail there: nothing to save for it.
 * ------------------------------------------------------------------------ */

static bool is_saved(const struct plan_ctx *c, uint64_t reg)
{
	for (size_t i = 0; i < c->nsaved; i++)
		if ((uint64_t)c->saved[i] == reg)
			return true;
	return false;
}

/* The evaluator will read the saved register reg. */
void planneed_reg(const struct plan_ctx *c, uint64_t reg)
{
	if (is_saved(c, reg) && reg < 64)
		c->need->regs |= (uint64_t)1 << reg;
}

/* What the evaluator will read in register reg; false if the recorder
 * does not save it. */
static bool reg_sym(const struct plan_ctx *c, uint64_t reg, struct lw_val *out)
{
	planneed_reg(c, reg);
	if (reg == (uint64_t)c->sp_reg)
		*out = (struct lw_val){LW_SP, 0};
	else if (reg == (uint64_t)c->bp_reg && c->cfa_reg == c->bp_reg)
		*out = (struct lw_val){LW_CFA, (uint64_t)-c->cfa_off};
	else if (is_saved(c, reg))
		*out = (struct lw_val){LW_DATA, 0};
	else
		return false;
	return true;
}

/* The evaluator reads n bytes at address a. */
static void need_bytes(struct plan_ctx *c, struct lw_val a, int64_t n)
{
	if (a.k == LW_CFA)
		need_range(c->need, PLAN_AT_CFA, (int64_t)a.v, n);
	else if (a.k == LW_SP)
		need_range(c->need, PLAN_AT_SP, (int64_t)a.v, n);
	else if (a.k == LW_DATA)
		c->need->wide = true; /* may point into the windows */
}

/* ---------------------------------------------------------------------------
 * The walker's machine (locwalk.c) over symbols
 * ------------------------------------------------------------------------ */

static int m_reg(struct lw_frame *w, uint64_t reg, struct lw_val *out,
		 const char **why)
{
	if (reg_sym(w->ctx, reg, out))
		return 0;
	*why = "not captured";
	return -1;
}

/* A read at an address the recorder must save; a constant one is no
 * stack address. */
static int m_mem(struct lw_frame *w, struct lw_val addr, size_t size,
		 struct lw_val *out, const char **why)
{
	need_bytes(w->ctx, addr, (int64_t)size);
	*out = (struct lw_val){LW_DATA, 0};
	if (addr.k != LW_NUM)
		return 0;
	*why = "not a stack address";
	return -1;
}

static int m_cfa(struct lw_frame *w, struct lw_val *out, const char **why)
{
	(void)w;
	(void)why;
	*out = (struct lw_val){LW_CFA, 0};
	return 0;
}

static void entry_value_needs(struct plan_ctx *c, Dwarf_Attribute *attr,
			      const Dwarf_Op *op);
static void caller_frame_needs(struct plan_ctx *c, uint64_t reg);

static int m_entry_value(struct lw_frame *w, Dwarf_Attribute *attr,
			 const Dwarf_Op *op, struct lw_val *out,
			 const char **why, int depth)
{
	(void)why;
	(void)depth;
	entry_value_needs(w->ctx, attr, op);
	*out = (struct lw_val){LW_DATA, 0};
	return 0;
}

static const struct lw_machine symbolic = {m_reg, m_mem, m_cfa,
					    m_entry_value};

static void walker(struct plan_ctx *c, struct lw_frame *w)
{
	memset(w, 0, sizeof *w);
	w->mach = &symbolic;
	w->ctx = c;
	w->m = c->m;
	w->machine = c->machine;
	w->ptr_size = c->ptr_size;
	w->ra = c->ra;
	w->subprogram = c->sub;
	w->have_subprogram = true;
	w->symbolic = true;
}

/* The symbols of a location: L_NONE where the evaluator will fail (nothing
 * to save); an operation it does not know: the generic windows. */
enum loc_kind { L_MEMORY, L_REGISTER, L_VALUE, L_NONE };

struct sloc {
	enum loc_kind kind;
	struct lw_val s; /* address or value */
	uint64_t reg;   /* L_REGISTER */
};

static struct sloc sloc_of(struct plan_ctx *c, struct lw_frame *w, int r,
			   const struct lw_loc *l)
{
	if (w->unknown_op)
		c->need->wide = true;
	if (r < 0 || l->kind == LW_IMPLICIT)
		return (struct sloc){L_NONE, {LW_DATA, 0}, 0};
	if (l->kind == LW_REGISTER) {
		planneed_reg(c, l->reg);
		return (struct sloc){L_REGISTER, {LW_DATA, 0}, l->reg};
	}
	return (struct sloc){l->kind == LW_VALUE ? L_VALUE : L_MEMORY,
			     l->v, 0};
}

static struct sloc eval(struct plan_ctx *c, Dwarf_Attribute *attr,
			const Dwarf_Op *ops, size_t n, int depth)
{
	struct lw_frame w;
	struct lw_loc l;
	const char *why;
	walker(c, &w);
	int r = lw_eval(&w, attr, ops, n, &l, &why, depth);
	return sloc_of(c, &w, r, &l);
}

/* ---------------------------------------------------------------------------
 * The callers' frames, for DW_OP_entry_value
 *
 * A register the function may have changed since its entry is found at
 * the caller's DW_TAG_call_site, whose DW_AT_call_value for it may read
 * the caller's frame (clang: an argument loaded from a stack slot).  The
 * bytes are those the call-site values of the module's calls that may
 * reach the function read: its direct calls, and every indirect one.
 * Anything this does not follow (a read through a register, a caller
 * whose CFA is not its stack pointer plus a constant) asks for the
 * generic window above the CFA, CALLER_WINDOW bytes.  A caller in
 * another module is not seen: its call-site values find no bytes of its
 * frame (doc/values.md).
 * ------------------------------------------------------------------------ */

/* A call site of the module, and the function it calls: the root DIE and
 * dw_origin_key of its callee, target NO_TARGET for an indirect call. */
struct call_site {
	Dwarf_Die die, caller; /* the DW_TAG_call_site, its subprogram */
	uint64_t ret;          /* its return address */
	Dwarf_Off target;
	const char *key;
	uint64_t hash; /* key_hash(key) */
	/* Without a target DIE (gcc leaves it out of some calls of a
	 * constructor), the address a direct call goes to, read from its
	 * call instruction; 0 for a call through a pointer. */
	uint64_t to;
};
#define NO_TARGET ((Dwarf_Off)-1)
#define CALLER_READ_MAX 256 /* more: the generic window */

/* The call sites of one module (plan_module's), made at the first entry
 * value that asks. */
static struct {
	struct dw_module *m;
	struct call_site *v;
	size_t n, cap;
	/* v's indices: the calls by target DIE, by key hash, by the address
	 * their instruction calls (sorted), and those through a pointer */
	uint32_t *by_target, *by_hash, *by_to, *indirect;
	size_t n_target, n_hash, n_to, n_indirect;
	/* what the indirect calls' values of register r (below 64) read:
	 * [lo, hi), or wide: memory this does not place */
	struct reads {
		bool done, wide;
		int64_t lo, hi;
	} ind[64];
} sites;

/* A hash of an dw_origin_key that dw_same_key's equal keys share: the
 * digit after a C or D (a constructor's or destructor's variant) left
 * out.  A plan of a C++ program compares thousands of functions with
 * tens of thousands of call sites. */
static uint64_t key_hash(const char *k)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; k != NULL && k[i] != '\0'; i++) {
		bool variant = i > 0 && (k[i - 1] == 'C' || k[i - 1] == 'D') &&
			       k[i] >= '0' && k[i] <= '4';
		h = (h ^ (uint8_t)(variant ? '*' : k[i])) * 0x100000001b3ull;
	}
	return h;
}

static void sites_walk(struct dw_module *m, Dwarf_Die *die, Dwarf_Die *caller,
		       int depth)
{
	Dwarf_Die child;
	if (depth > 64 || dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_subprogram) {
			sites_walk(m, &child, &child, depth + 1);
		} else if (tag == DW_TAG_lexical_block ||
			   tag == DW_TAG_inlined_subroutine) {
			sites_walk(m, &child, caller, depth + 1);
		} else if ((tag == DW_TAG_call_site ||
			    tag == DW_TAG_GNU_call_site) &&
			   caller != NULL) {
			Dwarf_Attribute a;
			uint64_t ret;
			Dwarf_Die callee, root;
			/* 0: in code the linker discarded (a C++ inline
			 * function's copy of another unit) */
			if (!entryval_site_return(&child, &ret) || ret == 0)
				continue;
			struct call_site cs = {child, *caller, ret, NO_TARGET,
					       NULL, 0, 0};
			uint8_t code[5];
			int32_t rel;
			if ((dwarf_attr(&child, DW_AT_call_origin, &a) ||
			     dwarf_attr(&child, DW_AT_abstract_origin, &a)) &&
			    dwarf_formref_die(&a, &callee)) {
				dw_root(&callee, &root);
				cs.target = dwarf_dieoffset(&root);
				cs.key = dw_origin_key(&root);
				cs.hash = key_hash(cs.key);
			} else if (ret >= 5 && dw_read_code(m, ret - 5, code, 5) &&
				   code[0] == 0xe8) {
				memcpy(&rel, code + 1, 4);
				cs.to = ret + (uint64_t)(int64_t)rel;
			}
			if (sites.n == sites.cap) {
				sites.cap = sites.cap ? 2 * sites.cap : 256;
				sites.v = must_realloc(sites.v, sites.cap,
						       sizeof *sites.v);
			}
			sites.v[sites.n++] = cs;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* The field an index sorts by. */
static uint64_t by_field(uint32_t i, int field)
{
	const struct call_site *s = &sites.v[i];
	return field == 0 ? s->target : field == 1 ? s->hash : s->to;
}

static int sort_field;

static int cmp_index(const void *a, const void *b)
{
	uint64_t x = by_field(*(const uint32_t *)a, sort_field);
	uint64_t y = by_field(*(const uint32_t *)b, sort_field);
	return x < y ? -1 : x > y;
}

static uint32_t *index_of(bool (*in)(const struct call_site *), int field,
			  size_t *n)
{
	uint32_t *ix = must_calloc(sites.n + 1, sizeof *ix);
	*n = 0;
	for (size_t i = 0; i < sites.n; i++)
		if (in(&sites.v[i]))
			ix[(*n)++] = (uint32_t)i;
	sort_field = field;
	if (field >= 0)
		qsort(ix, *n, sizeof *ix, cmp_index);
	return ix;
}

static bool has_target(const struct call_site *s)
{
	return s->target != NO_TARGET;
}
static bool has_key(const struct call_site *s)
{
	return s->key != NULL;
}
static bool has_to(const struct call_site *s)
{
	return s->target == NO_TARGET && s->to != 0;
}
static bool through_pointer(const struct call_site *s)
{
	return s->target == NO_TARGET && s->to == 0;
}

static void sites_of(struct dw_module *m)
{
	if (sites.m == m)
		return;
	planneed_done();
	sites.m = m;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(m->dw, off, &next, &hsize, NULL, NULL, NULL) ==
	       0) {
		Dwarf_Die cu;
		if (dwarf_offdie(m->dw, off + hsize, &cu) != NULL)
			sites_walk(m, &cu, NULL, 0);
		off = next;
	}
	sites.by_target = index_of(has_target, 0, &sites.n_target);
	sites.by_hash = index_of(has_key, 1, &sites.n_hash);
	sites.by_to = index_of(has_to, 2, &sites.n_to);
	sites.indirect = index_of(through_pointer, -1, &sites.n_indirect);
}

void planneed_done(void)
{
	free(sites.v);
	free(sites.by_target);
	free(sites.by_hash);
	free(sites.by_to);
	free(sites.indirect);
	memset(&sites, 0, sizeof sites);
}

/* The first of index ix (n entries, sorted by field) whose field is not
 * below v. */
static size_t first_of(const uint32_t *ix, size_t n, int field, uint64_t v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (by_field(ix[mid], field) < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The caller's frame base at call site s as an offset from its stack
 * pointer at the call: true, or false when it is not one. */
static bool frame_base_at(const struct plan_ctx *c, const struct call_site *s,
			  int64_t *base)
{
	Dwarf_Attribute a;
	Dwarf_Op *fb;
	size_t n;
	int reg;
	int64_t off;
	if (!dwarf_attr_integrate((Dwarf_Die *)&s->caller, DW_AT_frame_base,
				  &a) ||
	    dwarf_getlocation_addr(&a, s->ret - 1, &fb, &n, 1) != 1 || n != 1)
		return false;
	if (fb[0].atom == DW_OP_call_frame_cfa)
		return frame_cfa_rule(c->m, s->ret - 1, &reg, base) &&
		       reg == c->sp_reg;
	if (fb[0].atom == DW_OP_reg0 + (unsigned)c->sp_reg) {
		*base = 0;
		return true;
	}
	off = (int64_t)fb[0].number;
	if (fb[0].atom == DW_OP_breg0 + (unsigned)c->sp_reg) {
		*base = off;
		return true;
	}
	return false;
}

/* The caller's stack bytes the call-site value (ops, n) of s reads, as
 * offsets from its stack pointer at the call (the callee's CFA), added
 * to [*lo, *hi); false when it reads memory at another address, or does
 * what this does not follow. */
static bool value_reads(const struct plan_ctx *c, const struct call_site *s,
			const Dwarf_Op *ops, size_t n, int64_t *lo, int64_t *hi)
{
	enum { V_NUM, V_SP, V_DATA } k[8];
	int64_t v[8];
	int top = 0;
	/* No load, no memory (whatever it computes). */
	bool loads = false;
	for (size_t i = 0; i < n; i++)
		loads |= ops[i].atom == DW_OP_deref ||
			 ops[i].atom == DW_OP_deref_size ||
			 ops[i].atom == DW_OP_xderef ||
			 ops[i].atom == DW_OP_xderef_size ||
			 ops[i].atom == DW_OP_deref_type ||
			 ops[i].atom == DW_OP_GNU_deref_type ||
			 ops[i].atom == DW_OP_call2 ||
			 ops[i].atom == DW_OP_call4 ||
			 ops[i].atom == DW_OP_call_ref;
	if (!loads)
		return true;
	for (size_t i = 0; i < n; i++) {
		unsigned a = ops[i].atom;
		int64_t x = (int64_t)ops[i].number;
		if (top == 8)
			return false;
		if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			k[top] = V_NUM;
			v[top++] = a - DW_OP_lit0;
		} else if (a == DW_OP_const1u || a == DW_OP_const1s ||
			   a == DW_OP_const2u || a == DW_OP_const2s ||
			   a == DW_OP_const4u || a == DW_OP_const4s ||
			   a == DW_OP_const8u || a == DW_OP_const8s ||
			   a == DW_OP_constu || a == DW_OP_consts) {
			k[top] = V_NUM;
			v[top++] = x;
		} else if (a == DW_OP_addr) {
			k[top] = V_NUM; /* static data, not the stack */
			v[top++] = x;
		} else if (a == DW_OP_entry_value ||
			   a == DW_OP_GNU_entry_value) {
			/* the caller's own entry value, which the reader
			 * does not follow */
			k[top] = V_DATA;
			v[top++] = 0;
		} else if (a == DW_OP_breg0 + (unsigned)c->sp_reg) {
			k[top] = V_SP;
			v[top++] = x;
		} else if (a == DW_OP_fbreg) {
			int64_t base;
			bool known = frame_base_at(c, s, &base);
			k[top] = known ? V_SP : V_DATA;
			v[top++] = known ? base + x : 0;
		} else if ((a >= DW_OP_breg0 && a <= DW_OP_breg31) ||
			   (a >= DW_OP_reg0 && a <= DW_OP_reg31) ||
			   a == DW_OP_bregx || a == DW_OP_regx) {
			k[top] = V_DATA; /* a register's value */
			v[top++] = 0;
		} else if (a == DW_OP_plus_uconst && top > 0) {
			v[top - 1] += x;
		} else if ((a == DW_OP_deref || a == DW_OP_deref_size) &&
			   top > 0) {
			if (k[top - 1] == V_NUM) {
				k[top - 1] = V_DATA; /* not the stack */
				continue;
			}
			if (k[top - 1] != V_SP)
				return false;
			int64_t len = a == DW_OP_deref ? c->ptr_size : x;
			if (v[top - 1] < *lo)
				*lo = v[top - 1];
			if (v[top - 1] + len > *hi)
				*hi = v[top - 1] + len;
			k[top - 1] = V_DATA;
		} else if (a == DW_OP_stack_value) {
			break;
		} else if ((a == DW_OP_plus || a == DW_OP_minus ||
			    a == DW_OP_and || a == DW_OP_or ||
			    a == DW_OP_xor || a == DW_OP_mul ||
			    a == DW_OP_shl || a == DW_OP_shr ||
			    a == DW_OP_shra) &&
			   top > 1) {
			/* an address plus a constant stays one; any other
			 * result is data */
			bool sp_plus = a == DW_OP_plus &&
				       ((k[top - 2] == V_SP && k[top - 1] == V_NUM) ||
					(k[top - 2] == V_NUM && k[top - 1] == V_SP));
			top--;
			if (sp_plus) {
				v[top - 1] += v[top];
				k[top - 1] = V_SP;
			} else {
				k[top - 1] = V_DATA;
			}
		} else if ((a == DW_OP_neg || a == DW_OP_not) && top > 0) {
			k[top - 1] = V_DATA;
		} else {
			return false;
		}
	}
	return true;
}

/* What the call-site value of register reg at call site s reads of the
 * caller's frame, added to r. */
static void site_reads(const struct plan_ctx *c, const struct call_site *s,
		       uint64_t reg, struct reads *r)
{
	Dwarf_Die param;
	Dwarf_Attribute val;
	Dwarf_Op *ops;
	size_t n;
	if (r->wide ||
	    !entryval_site_param((Dwarf_Die *)&s->die, reg, &param) ||
	    (!dwarf_attr(&param, DW_AT_call_value, &val) &&
	     !dwarf_attr(&param, DW_AT_GNU_call_site_value, &val)) ||
	    dwarf_getlocation(&val, &ops, &n) != 0)
		return; /* nothing the reader could use */
	if (!value_reads(c, s, ops, n, &r->lo, &r->hi))
		r->wide = true;
}

/* The bytes of the caller's frame above the CFA that the entry value of
 * register reg may read, for every call of the function that the module
 * describes: those through a pointer (the same for every function), and
 * the direct ones, by their target's DIE or key, or the address their
 * instruction calls. */
static void caller_frame_needs(struct plan_ctx *c, uint64_t reg)
{
	Dwarf_Die root;
	dw_root(&c->sub, &root);
	Dwarf_Off self = dwarf_dieoffset(&root);
	const char *key = dw_origin_key(&root);
	uint64_t hash = key_hash(key);
	struct reads r = {true, false, INT64_MAX, INT64_MIN}, own;
	sites_of(c->m);
	if (reg < 64 && sites.ind[reg].done) {
		r = sites.ind[reg];
	} else {
		for (size_t i = 0; i < sites.n_indirect; i++)
			site_reads(c, &sites.v[sites.indirect[i]], reg, &r);
		if (reg < 64)
			sites.ind[reg] = r;
	}
	own = r;
	for (size_t i = first_of(sites.by_target, sites.n_target, 0, self);
	     i < sites.n_target && sites.v[sites.by_target[i]].target == self;
	     i++)
		site_reads(c, &sites.v[sites.by_target[i]], reg, &own);
	for (size_t i = first_of(sites.by_hash, sites.n_hash, 1, hash);
	     key != NULL && i < sites.n_hash &&
	     sites.v[sites.by_hash[i]].hash == hash;
	     i++) {
		const struct call_site *s = &sites.v[sites.by_hash[i]];
		if (s->target != self && dw_same_key(key, s->key))
			site_reads(c, s, reg, &own);
	}
	for (size_t i = first_of(sites.by_to, sites.n_to, 2, c->entry);
	     i < sites.n_to && sites.v[sites.by_to[i]].to == c->entry; i++)
		site_reads(c, &sites.v[sites.by_to[i]], reg, &own);
	if (own.wide || own.hi - own.lo > CALLER_READ_MAX)
		need_range(c->need, PLAN_AT_CFA, 0, CALLER_WINDOW);
	else if (own.lo < own.hi)
		need_range(c->need, PLAN_AT_CFA, own.lo, own.hi - own.lo);
	/* else no call site reads its frame */
}

/* DW_OP_entry_value(reg): one CFI step to the caller (its saved
 * registers), then, for a register the function may have changed, the
 * caller's call site: in the caller's frame, just above ours. */
static void entry_value_needs(struct plan_ctx *c, Dwarf_Attribute *attr,
			      const Dwarf_Op *op)
{
	Dwarf_Attribute sub;
	Dwarf_Op *ops;
	size_t n;
	/* The caller's DW_AT_call_value expressions read its registers,
	 * which the callee's saved ones give. */
	c->need->all_regs = true;
	if (attr == NULL || dwarf_getlocation_attr(attr, op, &sub) != 0 ||
	    dwarf_getlocation(&sub, &ops, &n) != 0 || n != 1)
		return;
	Dwarf_Frame *fr = NULL;
	if (c->m->cfi && dwarf_cfi_addrframe(c->m->cfi, c->ra - 1, &fr) == 0) {
		for (size_t i = 0; i < c->nsaved; i++) {
			Dwarf_Op mem[3], *rops;
			size_t rn;
			if (dwarf_frame_register(fr, c->saved[i], mem, &rops,
						 &rn) != 0 ||
			    rn == 0)
				continue;
			struct sloc l = eval(c, NULL, rops, rn, 3);
			if (l.kind == L_MEMORY)
				need_bytes(c, l.s, c->ptr_size);
		}
		free(fr);
	}
	uint64_t reg = ops[0].atom == DW_OP_regx
			       ? ops[0].number
			       : (uint64_t)(ops[0].atom - DW_OP_reg0);
	if (!is_saved(c, reg))
		caller_frame_needs(c, reg);
}

/* ---------------------------------------------------------------------------
 * Parameters
 * ------------------------------------------------------------------------ */

/* One location at one PC, piece by piece as dw_eval_location reads it.
 * For a string, *where is set to the pointer's place when it is whole in
 * a saved register or a stack slot. */
static void param_at(struct plan_ctx *c, Dwarf_Attribute *loc, size_t size,
		     bool string, bool *found_string)
{
	struct lw_pieces it;
	struct lw_frame w;
	const Dwarf_Op *ops;
	size_t n, off, len;
	const char *why;
	if (lw_pieces_begin(&it, loc, c->loc_pc, size) < 0)
		return;
	walker(c, &w);
	while (lw_pieces_next(&it, &ops, &n, &off, &len, &why) > 0) {
		struct lw_loc ll;
		int r = lw_eval_piece(&w, loc, ops, n, len, &ll, &why);
		if (r == -2)
			return; /* clang -O0's spill slot not found */
		struct sloc l = sloc_of(c, &w, r, &ll);
		if (l.kind == L_MEMORY)
			need_bytes(c, l.s, (int64_t)len);
		if (string && !it.pieces && !*found_string &&
		    c->need->nstr < CTRACE_PLAN_MAX_STR) {
			struct plan_string *ps = &c->need->str[c->need->nstr];
			if (l.kind == L_REGISTER && is_saved(c, l.reg)) {
				*ps = (struct plan_string){CTRACE_PLAN_BASE_REG,
						    (int64_t)l.reg};
				c->need->nstr++;
				*found_string = true;
			} else if (l.kind == L_MEMORY &&
				   (l.s.k == LW_CFA || l.s.k == LW_SP)) {
				*ps = (struct plan_string){
					l.s.k == LW_CFA ? CTRACE_PLAN_BASE_CFA
							 : CTRACE_PLAN_BASE_SP,
					(int64_t)l.s.v};
				c->need->nstr++;
				*found_string = true;
			}
		}
	}
}

void planneed_params(struct plan_ctx *c, Dwarf_Die *scope)
{
	bool own = dwarf_dieoffset(scope) == dwarf_dieoffset(&c->sub);
	Dwarf_Die p;
	if (dwarf_child(scope, &p) != 0)
		return;
	do {
		Dwarf_Attribute loc, ta;
		Dwarf_Die type;
		if (dwarf_tag(&p) != DW_TAG_formal_parameter ||
		    !dwarf_attr(&p, DW_AT_location, &loc) ||
		    !dwarf_attr_integrate(&p, DW_AT_type, &ta) ||
		    !dwarf_formref_die(&ta, &type))
			continue;
		size_t size = type_size(&type, c->ptr_size);
		if (size == 0 || size > 256)
			continue;
		bool string = type_is_string(&type), found = false;
		param_at(c, &loc, size, string, &found);
		struct dw_reg_piece pc[8];
		int np = c->machine == EM_X86_64 && own
				 ? dw_entry_copies(c->m, &loc, c->entry,
						   c->ra - 5, size, pc, 8)
				 : -1;
		for (int i = 0; i < np; i++)
			planneed_reg(c, (uint64_t)pc[i].reg);
		if (string && !found && np == 1 && c->need->nstr < CTRACE_PLAN_MAX_STR) {
			c->need->str[c->need->nstr++] =
				(struct plan_string){CTRACE_PLAN_BASE_REG,
						     (int64_t)pc[0].reg};
			found = true;
		}
		int regs[2];
		size_t lens[2];
		Dwarf_Die root_fn, root_p;
		dw_root(&c->sub, &root_fn);
		dw_root(&p, &root_p);
		int nr = np < 0 && own && c->machine == EM_X86_64
				 ? abi_param_regs(&c->sub, &root_fn, &root_p,
						     regs, lens)
				 : 0;
		for (int i = 0, copy; i < nr; i++)
			if (dw_entry_reg_copy(c->m, c->entry, c->ra - 5, regs[i],
					      lens[i], &copy))
				planneed_reg(c, (uint64_t)copy);
		int64_t slot;
		if (c->machine == EM_386 && own &&
		    dw_i386_stack_slot(c->m, &loc, &c->sub, c->ra, &slot)) {
			need_range(c->need, PLAN_AT_CFA, slot, (int64_t)size);
			if (string && !found && c->need->nstr < CTRACE_PLAN_MAX_STR)
				c->need->str[c->need->nstr++] =
					(struct plan_string){CTRACE_PLAN_BASE_CFA,
						     slot};
		}
	} while (dwarf_siblingof(&p, &p) == 0);
}

