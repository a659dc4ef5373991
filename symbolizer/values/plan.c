/* plan.c -- ctrace-symbolize --make-plan: the recorder's capture plan.
 *
 * At each call of the entry hook in a program, the plan says what the
 * recorder must save for the symbolizer to find the arguments: the frame's
 * CFA rule, the stack bytes (relative to the CFA or the stack pointer) the
 * parameters' DWARF locations read there, and where the pointer of each
 * string argument is, so that the recorder can copy the text.  The
 * recorder reads it at start-up (lib/plan.c); include/ctrace_plan.h gives
 * the grammar and the limits both sides keep.
 *
 * The analysis follows what the evaluator (dwinfo.c) will do with the
 * captured state, with addresses kept symbolic: CFA + k, SP + k, or "data"
 * (a value loaded at run time).  Whatever it does not follow marks the
 * call `wide`: the recorder then also saves its generic windows, as
 * without a plan.  So a plan never loses a value the windows would have
 * given.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrace_plan.h"
#include "dwinfo.h"
#include "elfinfo.h"
#include "util.h"

#define MAX_RANGES 64
#define CALLER_WINDOW 128 /* the caller's frame, for DW_OP_entry_value */

/* ---------------------------------------------------------------------------
 * What one hook call needs
 * ------------------------------------------------------------------------ */

enum base { BASE_CFA, BASE_SP };

struct range {
	enum base base;
	int64_t lo, hi;
};

struct plan_string {
	char base; /* CTRACE_PLAN_BASE_REG, _CFA or _SP */
	int64_t off;
};

struct need {
	struct range r[MAX_RANGES];
	size_t n;
	bool wide;
	struct plan_string str[CTRACE_PLAN_MAX_STR];
	size_t nstr;
	uint64_t regs; /* saved registers read, by DWARF number */
	bool all_regs; /* a caller's call-site values may read any of them */
};

static void need_range(struct need *nd, enum base b, int64_t lo, int64_t len)
{
	if (nd->n == MAX_RANGES) {
		nd->wide = true;
		return;
	}
	nd->r[nd->n++] = (struct range){b, lo, lo + len};
}

/* ---------------------------------------------------------------------------
 * Symbolic evaluation
 * ------------------------------------------------------------------------ */

enum sym_kind {
	SYM_NONE,  /* the evaluator will fail here: nothing to save */
	SYM_CONST,
	SYM_CFA,   /* CFA + v */
	SYM_SP,    /* SP + v */
	SYM_DATA,  /* known at run time, not relative to the stack */
};

struct sym {
	enum sym_kind k;
	int64_t v;
};

struct ctx {
	struct dw_module *m;
	uint16_t machine;
	int ptr_size, sp_reg, bp_reg;
	const int *saved;
	size_t nsaved;
	uint64_t ra;      /* the hook's return address (link-time) */
	/* Where locations are looked up: the call instruction (ra - 1).
	 * The captured registers are the machine state there; from ra on,
	 * a location list may already describe the code after the call. */
	uint64_t loc_pc;
	uint64_t entry;   /* the function's first instruction */
	int cfa_reg;
	int64_t cfa_off;
	Dwarf_Die sub;
	bool clang;
	struct need *need;
};

static const int saved_x86_64[] = CTRACE_SAVED_REGS_X86_64;
static const int saved_i386[] = CTRACE_SAVED_REGS_I386;

static bool is_saved(const struct ctx *c, uint64_t reg)
{
	for (size_t i = 0; i < c->nsaved; i++)
		if ((uint64_t)c->saved[i] == reg)
			return true;
	return false;
}

/* The evaluator will read the saved register reg. */
static void need_reg(const struct ctx *c, uint64_t reg)
{
	if (is_saved(c, reg) && reg < 64)
		c->need->regs |= (uint64_t)1 << reg;
}

static struct sym reg_sym(const struct ctx *c, uint64_t reg)
{
	need_reg(c, reg);
	if (reg == (uint64_t)c->sp_reg)
		return (struct sym){SYM_SP, 0};
	if (reg == (uint64_t)c->bp_reg && c->cfa_reg == c->bp_reg)
		return (struct sym){SYM_CFA, -c->cfa_off};
	if (is_saved(c, reg))
		return (struct sym){SYM_DATA, 0};
	return (struct sym){SYM_NONE, 0};
}

/* The evaluator reads n bytes at address a. */
static void need_bytes(struct ctx *c, struct sym a, int64_t n)
{
	if (a.k == SYM_CFA)
		need_range(c->need, BASE_CFA, a.v, n);
	else if (a.k == SYM_SP)
		need_range(c->need, BASE_SP, a.v, n);
	else if (a.k == SYM_DATA)
		c->need->wide = true; /* may point into the windows */
}

enum loc_kind { L_MEMORY, L_REGISTER, L_VALUE, L_NONE };

struct sloc {
	enum loc_kind kind;
	struct sym s;   /* address or value */
	uint64_t reg;   /* L_REGISTER */
};

static struct sloc eval(struct ctx *c, Dwarf_Attribute *attr,
			const Dwarf_Op *ops, size_t n, int depth);

static struct sym frame_base(struct ctx *c, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	if (depth > 2 || !dwarf_attr_integrate(&c->sub, DW_AT_frame_base, &a) ||
	    dwarf_getlocation_addr(&a, c->loc_pc, &ops, &n, 1) <= 0)
		return (struct sym){SYM_NONE, 0};
	if (c->machine == 3 && n == 1 && ops[0].atom == DW_OP_reg0 + 4) {
		/* clang on i386: esp as the body keeps it (dwinfo.c) */
		int64_t adjust;
		if (!dw_i386_esp_adjust(c->m, c->ra, &adjust))
			return (struct sym){SYM_NONE, 0};
		return (struct sym){SYM_SP, adjust};
	}
	struct sloc l = eval(c, &a, ops, n, depth + 1);
	if (l.kind == L_REGISTER)
		return reg_sym(c, l.reg);
	if (l.kind == L_MEMORY || l.kind == L_VALUE)
		return l.s;
	return (struct sym){SYM_NONE, 0};
}

/* DW_OP_entry_value(reg): one CFI step to the caller (its saved
 * registers), then, for a register the function may have changed, the
 * caller's call site: in the caller's frame, just above ours. */
static void entry_value_needs(struct ctx *c, Dwarf_Attribute *attr,
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
		need_range(c->need, BASE_CFA, 0, CALLER_WINDOW);
}

static struct sloc eval(struct ctx *c, Dwarf_Attribute *attr,
			const Dwarf_Op *ops, size_t n, int depth)
{
	struct sym st[64];
	size_t sp = 0;
	bool value = false;
	const struct sloc none = {L_NONE, {SYM_NONE, 0}, 0};
#define PUSH(k_, v_)                                                         \
	do {                                                                 \
		if (sp == 64)                                                \
			return none;                                         \
		st[sp++] = (struct sym){(k_), (v_)};                         \
	} while (0)
#define NEED(k)                                                              \
	do {                                                                 \
		if (sp < (k))                                                \
			return none;                                         \
	} while (0)

	for (size_t i = 0; i < n; i++) {
		const Dwarf_Op *op = &ops[i];
		uint8_t a = op->atom;
		if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			PUSH(SYM_CONST, a - DW_OP_lit0);
			continue;
		}
		if ((a >= DW_OP_reg0 && a <= DW_OP_reg31) || a == DW_OP_regx) {
			if (n != 1)
				return none;
			uint64_t reg = a == DW_OP_regx
					       ? op->number
					       : (uint64_t)(a - DW_OP_reg0);
			need_reg(c, reg);
			return (struct sloc){L_REGISTER, {SYM_NONE, 0}, reg};
		}
		if ((a >= DW_OP_breg0 && a <= DW_OP_breg31) || a == DW_OP_bregx) {
			uint64_t reg = a == DW_OP_bregx ? op->number
							: (uint64_t)(a - DW_OP_breg0);
			int64_t off = a == DW_OP_bregx ? (int64_t)op->number2
						       : (int64_t)op->number;
			struct sym s = reg_sym(c, reg);
			if (s.k == SYM_NONE)
				return none;
			PUSH(s.k, s.v + off);
			continue;
		}
		switch (a) {
		case DW_OP_addr:
			PUSH(SYM_DATA, 0);
			break;
		case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u:
		case DW_OP_const8u: case DW_OP_constu:
		case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s:
		case DW_OP_const8s: case DW_OP_consts:
			PUSH(SYM_CONST, (int64_t)op->number);
			break;
		case DW_OP_fbreg: {
			struct sym fb = frame_base(c, depth);
			if (fb.k == SYM_NONE)
				return none;
			PUSH(fb.k, fb.v + (int64_t)op->number);
			break;
		}
		case DW_OP_call_frame_cfa:
			PUSH(SYM_CFA, 0);
			break;
		case DW_OP_dup: NEED(1); st[sp] = st[sp - 1]; sp++; break;
		case DW_OP_drop: NEED(1); sp--; break;
		case DW_OP_over: NEED(2); st[sp] = st[sp - 2]; sp++; break;
		case DW_OP_pick:
			NEED(op->number + 1);
			st[sp] = st[sp - 1 - op->number];
			sp++;
			break;
		case DW_OP_swap: {
			NEED(2);
			struct sym t = st[sp - 1];
			st[sp - 1] = st[sp - 2];
			st[sp - 2] = t;
			break;
		}
		case DW_OP_plus_uconst:
			NEED(1);
			st[sp - 1].v += (int64_t)op->number;
			break;
		case DW_OP_plus:
		case DW_OP_minus: {
			NEED(2);
			struct sym y = st[--sp], x = st[sp - 1];
			if (x.k == SYM_NONE || y.k == SYM_NONE)
				return none;
			if (y.k == SYM_CONST)
				x.v = a == DW_OP_plus ? x.v + y.v : x.v - y.v;
			else if (x.k == SYM_CONST && a == DW_OP_plus)
				x = (struct sym){y.k, x.v + y.v};
			else
				x = (struct sym){SYM_DATA, 0};
			st[sp - 1] = x;
			break;
		}
		case DW_OP_neg: case DW_OP_not: case DW_OP_abs:
			NEED(1);
			if (st[sp - 1].k != SYM_NONE)
				st[sp - 1] = (struct sym){SYM_DATA, 0};
			break;
		case DW_OP_mul: case DW_OP_and: case DW_OP_or: case DW_OP_xor:
		case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
		case DW_OP_div: case DW_OP_mod: {
			NEED(2);
			struct sym y = st[--sp], x = st[sp - 1];
			if (x.k == SYM_NONE || y.k == SYM_NONE)
				return none;
			st[sp - 1] = (struct sym){SYM_DATA, 0};
			break;
		}
		case DW_OP_deref:
			NEED(1);
			need_bytes(c, st[sp - 1], c->ptr_size);
			if (st[sp - 1].k == SYM_NONE || st[sp - 1].k == SYM_CONST)
				return none;
			st[sp - 1] = (struct sym){SYM_DATA, 0};
			break;
		case DW_OP_deref_size:
			NEED(1);
			if (op->number == 0 || op->number > 8)
				return none;
			need_bytes(c, st[sp - 1], (int64_t)op->number);
			if (st[sp - 1].k == SYM_NONE || st[sp - 1].k == SYM_CONST)
				return none;
			st[sp - 1] = (struct sym){SYM_DATA, 0};
			break;
		case DW_OP_stack_value:
			value = true;
			break;
		case DW_OP_implicit_value:
			return none;
		case DW_OP_entry_value:
		case DW_OP_GNU_entry_value:
			entry_value_needs(c, attr, op);
			PUSH(SYM_DATA, 0);
			break;
		case DW_OP_nop:
			break;
		default:
			c->need->wide = true;
			return none;
		}
	}
	NEED(1);
	if (st[sp - 1].k == SYM_NONE)
		return none;
	return (struct sloc){value ? L_VALUE : L_MEMORY, st[sp - 1], 0};
#undef PUSH
#undef NEED
}

/* ---------------------------------------------------------------------------
 * Parameters
 * ------------------------------------------------------------------------ */

static size_t param_size(Dwarf_Die *type, int ptr_size)
{
	Dwarf_Die t = *type;
	for (int i = 0; i < 16; i++) {
		int tag = dwarf_tag(&t);
		if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
		    tag == DW_TAG_rvalue_reference_type)
			return (size_t)ptr_size;
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_restrict_type &&
		    tag != DW_TAG_atomic_type)
			break;
		Dwarf_Attribute a;
		if (!dwarf_attr_integrate(&t, DW_AT_type, &a) ||
		    !dwarf_formref_die(&a, &t))
			return 0;
	}
	Dwarf_Word size;
	return dwarf_aggregate_size(&t, &size) == 0 ? (size_t)size : 0;
}

/* One location at one PC, piece by piece as dw_eval_location reads it.
 * For a string, *where is set to the pointer's place when it is whole in
 * a saved register or a stack slot. */
static void param_at(struct ctx *c, Dwarf_Attribute *loc, size_t size,
		     bool string, bool *found_string)
{
	Dwarf_Op *ops;
	size_t n;
	if (dwarf_getlocation_addr(loc, c->loc_pc, &ops, &n, 1) <= 0 || n == 0)
		return;
	size_t done = 0, start = 0;
	bool pieces = false;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && ops[i].atom != DW_OP_piece)
			continue;
		size_t len = i < n ? ops[i].number : size - done;
		if (i < n)
			pieces = true;
		if (pieces && i == n)
			break;
		if (len > size - done || i == start)
			return;
		struct sloc l = eval(c, loc, ops + start, i - start, 0);
		if (l.kind == L_MEMORY && i - start == 1 &&
		    ops[start].atom == DW_OP_fbreg &&
		    (int64_t)ops[start].number < 0 && c->clang) {
			int64_t spill, home = (int64_t)ops[start].number;
			if (!dw_clang_spill_at(c->m, c->machine, c->ra, home,
					       len, &spill))
				return;
			l.s.v += spill - home;
		}
		if (l.kind == L_MEMORY)
			need_bytes(c, l.s, (int64_t)len);
		if (string && !pieces && !*found_string &&
		    c->need->nstr < CTRACE_PLAN_MAX_STR) {
			struct plan_string *ps = &c->need->str[c->need->nstr];
			if (l.kind == L_REGISTER && is_saved(c, l.reg)) {
				*ps = (struct plan_string){CTRACE_PLAN_BASE_REG,
						    (int64_t)l.reg};
				c->need->nstr++;
				*found_string = true;
			} else if (l.kind == L_MEMORY &&
				   (l.s.k == SYM_CFA || l.s.k == SYM_SP)) {
				*ps = (struct plan_string){
					l.s.k == SYM_CFA ? CTRACE_PLAN_BASE_CFA
							 : CTRACE_PLAN_BASE_SP,
					l.s.v};
				c->need->nstr++;
				*found_string = true;
			}
		}
		done += len;
		start = i + 1;
	}
}

static void params(struct ctx *c, Dwarf_Die *scope)
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
		size_t size = param_size(&type, c->ptr_size);
		if (size == 0 || size > 256)
			continue;
		bool string = dw_is_string_type(&type), found = false;
		param_at(c, &loc, size, string, &found);
		struct dw_reg_piece pc[8];
		int np = c->machine == 62 && own
				 ? dw_entry_copies(c->m, &loc, c->entry,
						   c->ra - 5, size, pc, 8)
				 : -1;
		for (int i = 0; i < np; i++)
			need_reg(c, (uint64_t)pc[i].reg);
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
		int nr = np < 0 && own && c->machine == 62
				 ? values_param_regs(&c->sub, &root_fn, &root_p,
						     regs, lens)
				 : 0;
		for (int i = 0, copy; i < nr; i++)
			if (dw_entry_reg_copy(c->m, c->entry, c->ra - 5, regs[i],
					      lens[i], &copy))
				need_reg(c, (uint64_t)copy);
		int64_t slot;
		if (c->machine == 3 && own &&
		    dw_i386_stack_slot(c->m, &loc, &c->sub, c->ra, &slot)) {
			need_range(c->need, BASE_CFA, slot, (int64_t)size);
			if (string && !found && c->need->nstr < CTRACE_PLAN_MAX_STR)
				c->need->str[c->need->nstr++] =
					(struct plan_string){CTRACE_PLAN_BASE_CFA,
						     slot};
		}
	} while (dwarf_siblingof(&p, &p) == 0);
}

/* ---------------------------------------------------------------------------
 * Ranges out
 * ------------------------------------------------------------------------ */

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sorts and merges: ranges close to each other become one, then the
 * closest pairs are joined until CTRACE_PLAN_MAX_MEM remain. */
static void merge_ranges(struct need *nd)
{
	qsort(nd->r, nd->n, sizeof *nd->r, cmp_range);
	size_t out = 0;
	for (size_t i = 0; i < nd->n; i++) {
		if (out > 0 && nd->r[out - 1].base == nd->r[i].base &&
		    nd->r[i].lo <= nd->r[out - 1].hi + 16) {
			if (nd->r[i].hi > nd->r[out - 1].hi)
				nd->r[out - 1].hi = nd->r[i].hi;
			continue;
		}
		nd->r[out++] = nd->r[i];
	}
	nd->n = out;
	while (nd->n > CTRACE_PLAN_MAX_MEM) {
		size_t best = SIZE_MAX;
		int64_t gap = INT64_MAX;
		for (size_t i = 0; i + 1 < nd->n; i++)
			if (nd->r[i].base == nd->r[i + 1].base &&
			    nd->r[i + 1].lo - nd->r[i].hi < gap) {
				gap = nd->r[i + 1].lo - nd->r[i].hi;
				best = i;
			}
		if (best == SIZE_MAX) {
			nd->wide = true;
			nd->n = 0;
			return;
		}
		if (nd->r[best + 1].hi > nd->r[best].hi)
			nd->r[best].hi = nd->r[best + 1].hi;
		memmove(&nd->r[best + 1], &nd->r[best + 2],
			(nd->n - best - 2) * sizeof *nd->r);
		nd->n--;
	}
}

/* ---------------------------------------------------------------------------
 * Hook calls
 * ------------------------------------------------------------------------ */

/* The CFA rule at pc as (register, offset); false if it is anything else. */
static bool cfa_rule(struct dw_module *m, uint64_t pc, int *reg, int64_t *off)
{
	Dwarf_Frame *fr = NULL;
	Dwarf_Op *ops;
	size_t n;
	bool ok = false;
	if (!m->cfi || dwarf_cfi_addrframe(m->cfi, pc, &fr) != 0)
		return false;
	if (dwarf_frame_cfa(fr, &ops, &n) == 0 && n == 1) {
		if (ops[0].atom == DW_OP_bregx) {
			*reg = (int)ops[0].number;
			*off = (int64_t)ops[0].number2;
			ok = true;
		} else if (ops[0].atom >= DW_OP_breg0 &&
			   ops[0].atom <= DW_OP_breg31) {
			*reg = ops[0].atom - DW_OP_breg0;
			*off = (int64_t)ops[0].number;
			ok = true;
		}
	}
	free(fr);
	return ok;
}

static void plan_call(FILE *out, struct dw_module *m, uint16_t machine,
		      uint64_t ra)
{
	struct need nd;
	struct ctx c;
	Dwarf_Addr fde = 0;
	memset(&nd, 0, sizeof nd);
	memset(&c, 0, sizeof c);
	c.m = m;
	c.machine = machine;
	c.ptr_size = machine == 3 ? 4 : 8;
	c.sp_reg = machine == 3 ? CTRACE_DW_SP_I386 : CTRACE_DW_SP_X86_64;
	c.bp_reg = machine == 3 ? CTRACE_DW_FP_I386 : CTRACE_DW_FP_X86_64;
	c.saved = machine == 3 ? saved_i386 : saved_x86_64;
	c.nsaved = machine == 3 ? sizeof saved_i386 / sizeof *saved_i386
				: sizeof saved_x86_64 / sizeof *saved_x86_64;
	c.ra = ra;
	c.loc_pc = ra - 1;
	c.need = &nd;
	/* Without a rule or a function, the recorder reads the CFI
	 * itself and saves its generic windows. */
	Dwarf_Die scope;
	if (!cfa_rule(m, ra - 1, &c.cfa_reg, &c.cfa_off) ||
	    (c.cfa_reg != c.sp_reg && c.cfa_reg != c.bp_reg) ||
	    dw_scope_at(m, ra - 1, &scope, &c.sub) < 0)
		return;
	/* The start of the part of the function holding the call (a
	 * function split hot and cold has ranges). */
	Dwarf_Addr base, lo, hi;
	ptrdiff_t it = 0;
	while ((it = dwarf_ranges(&c.sub, it, &base, &lo, &hi)) > 0)
		if (ra - 1 >= lo && ra - 1 < hi)
			fde = lo;
	if (fde == 0)
		return;
	/* The return value is caught only in the function's own body (not
	 * an inlined copy, not a clone): the recorder compares fde with
	 * the function the hook is given. */
	Dwarf_Addr entry;
	c.entry = dwarf_entrypc(&c.sub, &entry) == 0 ? entry : fde;
	c.clang = dw_is_clang(&c.sub);
	params(&c, &scope);
	merge_ranges(&nd);
	int64_t total = 0;
	for (size_t i = 0; i < nd.n; i++)
		total += nd.r[i].hi - nd.r[i].lo;
	if (total > CTRACE_PLAN_MAX_BYTES)
		nd.wide = true, nd.n = 0;
	/* Within the limits the recorder reads (ctrace_plan.h): a line
	 * beyond them would be skipped whole. */
	if (c.cfa_reg > CTRACE_PLAN_MAX_REG ||
	    c.cfa_off < -CTRACE_PLAN_MAX_CFA_OFFSET ||
	    c.cfa_off > CTRACE_PLAN_MAX_CFA_OFFSET)
		return;
	for (size_t i = 0; i < nd.n; i++)
		if (nd.r[i].lo < -CTRACE_PLAN_MAX_OFFSET ||
		    nd.r[i].lo > CTRACE_PLAN_MAX_OFFSET ||
		    nd.r[i].hi - nd.r[i].lo > CTRACE_PLAN_MAX_LENGTH)
			nd.wide = true, nd.n = 0;
	fprintf(out, "pc %" PRIx64 " fde %" PRIx64 " cfa %d %" PRId64, ra, fde,
		c.cfa_reg, c.cfa_off);
	if (nd.wide)
		fputs(" wide", out);
	/* The saved registers to record: those read, and the one the CFA
	 * is computed from. */
	if (!nd.wide && !nd.all_regs) {
		need_reg(&c, (uint64_t)c.cfa_reg);
		fprintf(out, " regs %" PRIx64, nd.regs);
	}
	for (size_t i = 0; i < nd.n; i++)
		fprintf(out, " mem %c %" PRId64 " %" PRId64,
			nd.r[i].base == BASE_CFA ? CTRACE_PLAN_BASE_CFA
						 : CTRACE_PLAN_BASE_SP,
			nd.r[i].lo, nd.r[i].hi - nd.r[i].lo);
	for (size_t i = 0; i < nd.nstr; i++) {
		int64_t off = nd.str[i].off;
		if (nd.str[i].base == CTRACE_PLAN_BASE_REG
			    ? off < 0 || off > CTRACE_PLAN_MAX_REG
			    : off < -CTRACE_PLAN_MAX_OFFSET ||
				      off > CTRACE_PLAN_MAX_OFFSET)
			continue; /* shown as an address */
		fprintf(out, " str %c %" PRId64, nd.str[i].base, off);
	}
	/* The return value's registers: the recorder saves only those, and
	 * sets no trampoline for a function that returns nothing. */
	unsigned mem;
	unsigned ret = values_ret_regs(&c.sub, machine == 3, &mem);
	fprintf(out, " ret %u %u", ret, mem);
	fputc('\n', out);
}

/* The link-time address of the entry hook defined in the module; 0 if
 * there is none (the hook is then reached through the PLT, which the
 * plan does not follow). */
static uint64_t hook_address(const char *path)
{
	struct elf_functions f;
	uint64_t addr = 0;
	if (elfinfo_functions(path, &f) < 0)
		return 0;
	for (size_t i = 0; i < f.n && addr == 0; i++)
		if (f.syms[i].addr != 0 &&
		    !strcmp(f.syms[i].name, "__cyg_profile_func_enter"))
			addr = f.syms[i].addr;
	elfinfo_functions_free(&f);
	return addr;
}

/* Plans every `call __cyg_profile_func_enter` (e8 rel32) of the module's
 * code.  A match inside another instruction gives an entry for a PC no
 * hook ever returns to: harmless. */
static int plan_module(FILE *out, const char *path)
{
	struct dw_module *m = dw_module(path);
	if (!m) {
		fprintf(stderr, PROGRAM_NAME ": %s: cannot read the file\n",
			path);
		return -1;
	}
	GElf_Ehdr eh;
	if (!gelf_getehdr(m->elf, &eh) ||
	    (eh.e_machine != 62 && eh.e_machine != 3)) {
		fprintf(stderr, PROGRAM_NAME ": %s: not an x86-64 or i386 "
			"ELF file\n", path);
		return -1;
	}
	const void *id;
	ssize_t idlen = dwelf_elf_gnu_build_id(m->elf, &id);
	if (idlen <= 0) {
		fprintf(stderr, PROGRAM_NAME ": %s: no build-id: link with "
			"-Wl,--build-id to make a capture plan\n", path);
		return -1;
	}
	if (idlen > CTRACE_PLAN_BUILD_ID_MAX) {
		fprintf(stderr, PROGRAM_NAME ": %s: a build-id of %zd bytes "
			"(a capture plan takes %d at most)\n", path, idlen,
			CTRACE_PLAN_BUILD_ID_MAX);
		return -1;
	}
	if (!m->dw)
		fprintf(stderr, PROGRAM_NAME ": %s: no debug information: "
			"arguments will not be shown\n", path);
	uint64_t hook = hook_address(path);
	fputs("module ", out);
	for (ssize_t i = 0; i < idlen; i++)
		fprintf(out, "%02x", ((const uint8_t *)id)[i]);
	fprintf(out, " %s\n", path);
	if (hook == 0 || !m->dw)
		return 0;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(m->elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		const uint8_t *code = d->d_buf;
		for (size_t i = 0; i + 5 <= d->d_size; i++) {
			if (code[i] != 0xe8)
				continue;
			int32_t rel;
			memcpy(&rel, code + i + 1, 4);
			uint64_t ra = sh.sh_addr + i + 5;
			if ((uint64_t)((int64_t)ra + rel) == hook)
				plan_call(out, m, eh.e_machine, ra);
		}
	}
	return 0;
}

/* ---------------------------------------------------------------------------
 * ctrace-symbolize --make-plan [-o FILE] PROGRAM...
 * ------------------------------------------------------------------------ */

int plan_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *output = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'h':
			printf("Usage: " PROGRAM_NAME " --make-plan [-o FILE] "
			       "PROGRAM...\n"
			       "Write the capture plan of PROGRAM (and of "
			       "shared objects given after it)\n"
			       "for the recorder's CTRACE_PLAN.\n");
			return 0;
		default:
			fputs("Try '" PROGRAM_NAME " --make-plan --help'.\n",
			      stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fputs(PROGRAM_NAME ": --make-plan: no program given\n", stderr);
		return 2;
	}
	/* never over one of the programs read, never a half-written plan */
	struct outfile of = {.fd = -1};
	FILE *out = stdout;
	if (output) {
		int fd = outfile_open(&of, output, argv + optind,
				      (size_t)(argc - optind));
		out = fd < 0 ? NULL : fdopen(fd, "w");
		if (!out) {
			outfile_close(&of, false);
			return 1;
		}
	}
	int status = 0;
	fprintf(out, CTRACE_PLAN_MAGIC " %d\n", CTRACE_PLAN_VERSION);
	for (int i = optind; i < argc; i++)
		if (plan_module(out, argv[i]) < 0)
			status = 1;
	bool written = fflush(out) == 0 && !ferror(out);
	if (output && fclose(out) != 0)
		written = false;
	if (!written) {
		fprintf(stderr, PROGRAM_NAME ": %s: %s\n",
			output ? output : "standard output", strerror(errno));
		status = 1;
	}
	if (output) {
		of.fd = -1; /* closed with the stream */
		if (outfile_close(&of, written) < 0)
			status = 1;
	}
	dw_modules_free();
	return status;
}
