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
		need_range(c->need, PLAN_AT_CFA, 0, CALLER_WINDOW);
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

