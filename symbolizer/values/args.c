/* args.c -- a call's arguments, from its captured state and DWARF.
 *
 * Parameters are listed from the function's abstract DIE (names, types,
 * order), and looked up in the concrete instance the hook ran in: the
 * function itself, an out-of-line clone (gcc's f.constprop.0: the hook is
 * given f's address but runs in the clone), or an inlined copy.  Each is
 * read where its location says (frame.c), or where the prologue proves a
 * copy of it (prologue.c), and shown as ? with the reason whenever the
 * DWARF may describe another value than the one passed.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dwarf.h>
#include <string.h>

#include "values/dwinfo.h"
#include "resolve/resolve.h"
#include "trace/trace.h"
#include "util/util.h"
#include "values/values.h"

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

/* The registers (a mask of DWARF numbers below 64) a parameter's
 * location says it arrived in: its register at the entry, the one whose
 * entry value it reads at the call `call`, and (x86-64) the register a
 * list silent at the entry names first before the call when the code up
 * to there leaves that register as it was at the entry, or is not
 * understood (a gcc clone's parameter it does not receive, said to be in
 * the register that brings it another one). */
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
	if (r >= 0 && r < 64 && (dw_entry_reg_kept(mod, entry, start, r) ||
				 (r < 16 && !dw_code_understood(mod, entry, start))))
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

/* Whether a variable or parameter other than `self` of the scopes of
 * `die` has its value, at f's call, in memory that overlaps the `size`
 * bytes at `addr`.  gcc -O3 may give an inlined copy's parameter a stack
 * slot of the function it was inlined into that holds one of that
 * function's variables there (its `acc'): two values said to be in one
 * place, at most one of them right.  The variable may be one piece of a
 * composite (an __int128 in two slots), and its block may no longer hold
 * pc while its location list still says the slot is its own (seed
 * 288615126, gcc -O3: a copy's unsigned short said to be in the slot of
 * the low half of an __int128 of a block above): a list entry in force at
 * pc counts whatever the block's ranges. */
static bool slot_shared(struct frame_state *f, Dwarf_Die *die,
			Dwarf_Die *self, uint64_t pc, uint64_t addr,
			size_t size, bool in_scope, int depth)
{
	Dwarf_Die c, type;
	if (depth > 32 || dwarf_child(die, &c) != 0)
		return false;
	do {
		Dwarf_Attribute l;
		int tag = dwarf_tag(&c);
		if ((tag == DW_TAG_lexical_block ||
		     tag == DW_TAG_inlined_subroutine) &&
		    slot_shared(f, &c, self, pc, addr, size,
				in_scope && dwarf_haspc(&c, pc) == 1, depth + 1))
			return true;
		if ((tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) &&
		    dwarf_dieoffset(&c) != dwarf_dieoffset(self) &&
		    dwarf_attr(&c, DW_AT_location, &l) &&
		    (in_scope || (dwarf_whatform(&l) != DW_FORM_exprloc &&
				  dwarf_whatform(&l) != DW_FORM_block1 &&
				  dwarf_whatform(&l) != DW_FORM_block2 &&
				  dwarf_whatform(&l) != DW_FORM_block4 &&
				  dwarf_whatform(&l) != DW_FORM_block)) &&
		    type_of(&c, &type) &&
		    dw_location_overlaps(f, &l, type_size(&type, f->ptr_size),
					 addr, size))
			return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

#define SHARED_CONSTANT \
	"a constant an inlined copy of another call also has: it may be " \
	"that call's"

/* Whether two inlined copies stand for one call of the source (its
 * file, line and column): copies of a statement gcc duplicated. */
static bool same_call(Dwarf_Die *a, Dwarf_Die *b)
{
	static const unsigned at[] = {DW_AT_call_file, DW_AT_call_line,
				      DW_AT_call_column};
	for (size_t i = 0; i < sizeof at / sizeof *at; i++) {
		Dwarf_Attribute x, y;
		Dwarf_Word u, v;
		if (!dwarf_attr(a, at[i], &x) || !dwarf_attr(b, at[i], &y) ||
		    dwarf_formudata(&x, &u) != 0 || dwarf_formudata(&y, &v) != 0 ||
		    u != v)
			return false;
	}
	return true;
}

/* Whether an inlined copy of another call of the function `origin` (a
 * root DIE) in the scopes of `die` than the copy `self` gives its
 * parameter `param` the constant `bytes`.  gcc -O3 stands for a
 * parameter it removed from the callee by one debug temporary per
 * caller, set before each call; when a pass drops a call's reset of it
 * (the value passed was optimized away), that call's copy is said to get
 * the previous call's constant.  Two calls with one constant: either may
 * be the other's.  (Copies of one call, a statement gcc duplicated, pass
 * one argument.) */
static bool constant_shared(Dwarf_Die *die, Dwarf_Die *self, Dwarf_Die *origin,
			    Dwarf_Die *param, const uint8_t *bytes, size_t size,
			    int depth)
{
	Dwarf_Die c, root, cp;
	if (depth > 32 || dwarf_child(die, &c) != 0)
		return false;
	do {
		Dwarf_Attribute a;
		int tag = dwarf_tag(&c);
		if (tag != DW_TAG_lexical_block &&
		    tag != DW_TAG_inlined_subroutine)
			continue;
		if (tag == DW_TAG_inlined_subroutine &&
		    dwarf_dieoffset(&c) != dwarf_dieoffset(self) &&
		    !same_call(&c, self) &&
		    (dw_root(&c, &root),
		     dwarf_dieoffset(&root) == dwarf_dieoffset(origin)) &&
		    concrete_param(&c, param, &cp) &&
		    (dwarf_attr(&cp, DW_AT_location, &a) ||
		     dwarf_attr(&cp, DW_AT_const_value, &a)) &&
		    dw_location_has_constant(&a, bytes, size))
			return true;
		if (constant_shared(&c, self, origin, param, bytes, size,
				    depth + 1))
			return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

#define PATH_CONSTANT \
	"a constant of an inlined copy whose code is on more than one " \
	"path: it may be another path's"

/* Whether the ranges of the inlined copy `copy` hold a call of the entry
 * hook other than the one whose return address is rel_ra (unsure: yes).
 * gcc duplicates an inlined copy's code on paths it specializes (jump
 * threading a `p ? *p : 1' passed to it) and keeps one DIE for them all;
 * a parameter's one location note, the constant a path binds it to, then
 * becomes the DW_AT_const_value of the whole copy, on the other paths
 * too.  Seed 1034440147, gcc -O2 x86-64: f8 inlined into f9, one copy
 * with its hook on the path where the pointer is null (1 passed) and on
 * the other (*p passed, loaded after the hook): p1 said to be 1 on both.
 * A copy with one hook call has its code, and its constant, on the one
 * path that runs it. */
static bool copy_on_paths(struct dw_module *m, Dwarf_Die *copy,
			  uint64_t rel_ra)
{
	uint8_t op;
	int32_t rel;
	if (!dw_read_code(m, rel_ra - 5, &op, 1) || op != 0xe8 ||
	    !dw_read_code(m, rel_ra - 4, (uint8_t *)&rel, 4))
		return true;
	uint64_t hook = rel_ra + (uint64_t)(int64_t)rel;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(copy, off, &base, &lo, &hi)) > 0) {
		uint8_t code[4096 + 4];
		/* windows overlapping by 4 bytes: a call across two */
		for (uint64_t at = lo; at + 5 <= hi; at += 4096) {
			size_t n = hi - at < sizeof code ? hi - at : sizeof code;
			if (!dw_read_code(m, at, code, n))
				return true;
			for (size_t i = 0; i + 5 <= n; i++) {
				if (code[i] != 0xe8 || at + i + 5 == rel_ra)
					continue;
				memcpy(&rel, code + i + 1, 4);
				if (at + i + 5 + (uint64_t)(int64_t)rel == hook)
					return true;
			}
		}
	}
	return off < 0;
}

#define STALE_CONSTANT \
	"a constant a variable of the function is said to have after it " \
	"was in memory or an x87 register: it may be a stale register's"

#define X87_CONSTANT \
	"a constant that is the integer conversion of a floating constant " \
	"the function pops from the x87 stack before converting another value"

/* Whether a variable or parameter in the scopes of `die` (the function
 * the hook was called in) is said to have, at pc, the constant `bytes`
 * after a range where it was in memory or read from an x87 register
 * (DWARF registers lo to hi).  gcc's variable tracking runs after the
 * pass that maps the x87 registers to a stack and does not see a popping
 * instruction (fcomip, fstp) change what ST0 holds: a value converted
 * from ST0 after a constant was pushed and popped there is taken for the
 * conversion of that constant.  Seed 1348775223, gcc -O3 i386: the 1e18
 * of a range check pushed, compared and popped, then the double below it
 * converted by fistpll; the variable that holds the result is read from
 * ST0 or its stack slot, then said to be 0xa7640000 (the low half of
 * (long long)1e18), and the inlined copy it is passed to gets that
 * constant alone.  A variable gcc keeps in memory and then says is a
 * constant was either assigned again or is described by such a stale
 * register; the two cannot be told apart. */
static bool constant_after_memory(Dwarf_Die *die, uint64_t pc,
				  const uint8_t *bytes, size_t size, int lo,
				  int hi, int depth)
{
	Dwarf_Die c;
	if (depth > 32 || dwarf_child(die, &c) != 0)
		return false;
	do {
		Dwarf_Attribute a;
		int tag = dwarf_tag(&c);
		if ((tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) &&
		    dwarf_attr(&c, DW_AT_location, &a) &&
		    dw_location_constant_after_memory(&a, pc, bytes, size, lo,
						      hi))
			return true;
		if ((tag == DW_TAG_lexical_block ||
		     tag == DW_TAG_inlined_subroutine) &&
		    constant_after_memory(&c, pc, bytes, size, lo, hi,
					  depth + 1))
			return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* ---------------------------------------------------------------------------
 * A call's arguments
 * ------------------------------------------------------------------------ */

/* What the parameters of one call share: its captured state, the DIEs of
 * the function and of the code the hook ran in, and what the code from
 * the entry to the hook shows. */
struct args_ctx {
	struct trace *t;
	const struct values_call *p;
	struct capture cap;
	bool parsed; /* cap is the payload's */
	uint64_t bias;
	int ptr_size;
	struct dw_module *m;
	/* the function the hook names; the definition (or abstract
	 * instance) that names its parameters; the scope the hook was called
	 * in, its subprogram and the root of its inlining chain */
	Dwarf_Die fn_die, defn, scope, sub, scope_root;
	struct frame_state f;
	Dwarf_Addr entry;  /* of the code the hook ran in */
	bool own;          /* the hook ran in the function's own code */
	bool x86_64;
	bool clone;        /* ... of a gcc clone (f.constprop.0) */
	bool clang_opt;    /* ... built by clang -O1 or above */
	uint64_t entry_regs_twice; /* entry_claims shared by two parameters */
};

/* Fills c for the call p; NULL, or the call's values when nothing more
 * can be learnt (no debug information, the hook in another function's
 * code). */
static struct values *args_context(struct args_ctx *c, struct values_build *vb,
				   struct trace *t, const struct values_call *p,
				   const uint8_t *payload, size_t len)
{
	Dwarf_Die fn_root;

	c->t = t;
	c->p = p;
	c->ptr_size = t->hdr.pointer_size;
	if (capture_parse(payload, len, &c->cap) < 0)
		return values_finish_unknown(vb, "not captured");
	c->parsed = true;
	c->m = values_module_of(t, p->fn, p->ticks, &c->bias);
	if (!c->m) {
		values_no_debug_hint(t, p);
		return values_finish(vb, true);
	}
	if (dw_function_at(c->m, p->fn - c->bias, &c->fn_die) < 0)
		return values_finish(vb, true);
	if (dw_scope_at(c->m, c->cap.pc - c->bias - 1, &c->scope, &c->sub) < 0)
		return values_finish_unknown(vb, "no debug information where "
					     "the entry hook was called");
	dw_root(&c->fn_die, &fn_root);
	dw_root(&c->scope, &c->scope_root);
	if (!same_declaration(&fn_root, &c->scope_root))
		return values_finish_unknown(vb, "the entry hook was called "
					     "in another function's code");

	/* The CFA from the stack pointer (one register read, counted
	 * again wherever the CFA's value is used); more reads: from memory,
	 * and then no recipe (recipe.c). */
	unsigned before = frame_taint.reads;
	frame_init(&c->f, c->m, c->bias, &c->cap, t, p->site, p->ticks,
		   t->hdr.machine, c->ptr_size);
	if (frame_taint.reads - before <= 1)
		frame_taint.reads = before;
	c->f.subprogram = c->sub;
	c->f.have_subprogram = true;

	/* Names come from the definition (or its abstract instance): a C++
	 * method's declaration in its class may leave them out. */
	c->defn = c->fn_die;
	for (int i = 0; i < 8; i++) {
		Dwarf_Attribute a;
		Dwarf_Die next;
		if (!dwarf_attr(&c->defn, DW_AT_abstract_origin, &a) ||
		    !dwarf_formref_die(&a, &next))
			break;
		c->defn = next;
	}
	c->entry = 0;
	if (dwarf_entrypc(&c->sub, &c->entry) != 0 &&
	    !range_start(&c->sub, c->cap.pc - c->bias - 1, &c->entry))
		c->entry = p->fn - c->bias;
	c->own = dwarf_dieoffset(&c->scope) == dwarf_dieoffset(&c->sub);
	c->x86_64 = t->hdr.machine == EM_X86_64;
	c->clone = c->own && c->entry != p->fn - c->bias;
	/* clang -O1 and above: see the two checks of value_doubted(). */
	c->clang_opt = c->own && dw_is_clang(&c->scope) &&
		       !clang_unoptimized(&c->sub);
	return NULL;
}

/* Two parameters said to arrive in one register: gcc gives a clone's
 * (f.constprop.0, f.isra.0) parameters the registers the original
 * received them in, although the clone receives others there, at the
 * entry or as the DW_OP_entry_value of a parameter the clone no longer
 * receives.  At most one of them can be right: the registers claimed
 * twice, whose parameters show neither. */
static uint64_t entry_regs_claimed_twice(struct args_ctx *c)
{
	uint64_t seen = 0, twice = 0;
	Dwarf_Die d;

	if (!c->own || dwarf_child(&c->scope, &d) != 0)
		return 0;
	do {
		Dwarf_Attribute l;
		uint64_t claims;
		if (dwarf_tag(&d) != DW_TAG_formal_parameter ||
		    !dwarf_attr(&d, DW_AT_location, &l) ||
		    !(claims = entry_claims(c->m, c->x86_64, &l, c->entry,
					    c->f.rel_pc - 1)))
			continue;
		twice |= seen & claims;
		seen |= claims;
	} while (dwarf_siblingof(&d, &d) == 0);
	return twice;
}

/* Why the location `loc` describes another value than the one passed,
 * whatever it holds (a register two parameters claim, a clone's register
 * filled from another parameter's, a location narrower than the type);
 * NULL if none of these.  copied: the value is the entry register's
 * copy. */
static const char *location_rejected(struct args_ctx *c, Dwarf_Attribute *loc,
				     size_t size, bool copied)
{
	struct dw_module *m = c->m;
	uint64_t rel_pc = c->f.rel_pc;

	if (c->own && (entry_claims(m, c->x86_64, loc, c->entry, rel_pc - 1) &
		       c->entry_regs_twice))
		return "ambiguous location";
	/* A gcc clone (its hook names the original function:
	 * f.constprop.0.isra.0) describes a parameter it no longer receives
	 * as the entry value of the register the original received it in,
	 * which may hold another (a field IPA-SRA passes instead of its
	 * struct).  Such a value is the clone's only where the list names
	 * that very register at the clone's entry.  The same holds (x86-64)
	 * for a register the code from the entry to the hook's call filled
	 * from that register (gcc names the copy: `mov %edi,%ebp', then p0
	 * in RBP where the clone receives p1 in EDI).  Where the code is not
	 * understood nothing tells whether the register is such a copy: ?
	 * unless the list names that register at the entry. */
	int ev = c->clone ? dw_entry_value_reg(loc, rel_pc - 1) : -1;
	int at_call = c->clone && c->x86_64 && ev < 0
			      ? dw_location_reg(loc, rel_pc - 1)
			      : -1;
	size_t width;
	if (at_call >= 0 &&
	    !dw_entry_reg_origin(m, c->entry, rel_pc - 5, at_call, &ev,
				 &width))
		ev = -1;
	if (at_call >= 0 && at_call < 16 && !copied &&
	    dw_location_reg(loc, c->entry) != at_call &&
	    !dw_code_understood(m, c->entry, rel_pc - 5))
		return "a clone's register at the hook that the code before it "
		       "may have filled from another parameter's";
	if (ev >= 0 && !copied && dw_location_reg(loc, c->entry) != ev)
		return "a clone's entry value of a register it may receive "
		       "another parameter in";
	/* One general register at the entry for a value wider than it
	 * (clang: an __int128 passed in memory because one register was
	 * left, said to be in that register, which holds the next
	 * parameter): the list describes another value. */
	int er = c->own ? dw_entry_reg(loc, c->entry) : -1;
	if (er >= 0 && size > (size_t)c->ptr_size &&
	    er < (c->t->hdr.machine == EM_386 ? 8 : 16))
		return "location narrower than its type";
	return NULL;
}

/* Why the value read at `loc` (of the concrete parameter conc of param)
 * may not be the one passed: the code before the hook or the DWARF of an
 * inlined copy says it may have changed; NULL if nothing does. */
static const char *value_doubted(struct args_ctx *c, Dwarf_Die *param,
				 Dwarf_Die *conc, Dwarf_Attribute *loc,
				 size_t size, bool copied)
{
	struct frame_state *f = &c->f;
	bool own = c->own;
	uint64_t pc = f->rel_pc - 1;

	if (own && !copied &&
	    dw_location_contradicted(f, loc, c->entry, size))
		return "changed before the entry hook";
	/* i386: a slot of the function's own frame is the parameter's only
	 * once the code before the hook stored it there (gcc -O3: a clone's
	 * parameter it never reads, said to be in a slot never written). */
	if (own && !copied && i386loc_frame_unwritten(f, loc, c->entry, size))
		return "a stack slot of its frame that the code before the "
		       "entry hook is not seen to write";
	/* i386: a slot of more than one word of which the code before the
	 * hook stores only part (gcc -O2: the low word of an inlined copy's
	 * long long that its body reads only as a 32-bit value). */
	if (!copied && i386loc_slot_part_stored(f, loc, size))
		return "a stack slot the code before the entry hook stores "
		       "only in part";
	/* An inlined copy's computed location is the salvage of a statement
	 * of its body placed before the hook. */
	if (!own && !dw_location_plain(loc, pc))
		return "computed by the inlined copy's body";
	/* gcc may place a statement of the body that changes the parameter
	 * before the hook (an inlined copy's `p0 = p0 - 1' as `sub
	 * $0x1,%ebp') and name the register it changed for the whole
	 * scope. */
	if (!copied && dw_location_rewritten(f, loc, &c->scope, size))
		return "its register may be overwritten before the call";
	uint8_t k[16];
	if (!own && !copied && dw_location_constant(loc, pc, k, size)) {
		if (constant_shared(&c->sub, &c->scope, &c->scope_root, param,
				    k, size, 0))
			return SHARED_CONSTANT;
		/* ST0 to ST7: DWARF 11 to 18 on i386, 33 to 40 on x86-64 */
		if (constant_after_memory(&c->sub, pc, k, size,
					  c->x86_64 ? 33 : 11,
					  c->x86_64 ? 40 : 18, 0))
			return STALE_CONSTANT;
		/* The same stale constant with no earlier range: the
		 * variable said to have it from its binding on. */
		if (x87const_converted(c->m, &c->sub, c->x86_64, k, size))
			return X87_CONSTANT;
	}
	uint64_t slot_addr;
	if (!own && !copied && dw_location_address(f, loc, &slot_addr) &&
	    slot_shared(f, &c->sub, conc, pc, slot_addr, size, true, 0))
		return "a stack slot that holds a variable of the function it "
		       "was inlined into";
	/* clang describes a parameter at the hook by the statements that
	 * change it after the hook (`p5 = p5 & 15' as EDI & 15, the and
	 * after the call): a value there that is not the one at the entry is
	 * not the value passed. */
	if (own && !copied && c->clang_opt &&
	    dw_location_changed_value(loc, c->entry, pc))
		return "computed: clang may describe a later statement's value "
		       "at the hook";
	return NULL;
}

/* No location at the entry either (clang -O2, a small struct by value):
 * the value where the calling convention put it, into buf, when the
 * prologue proves a copy of those registers. */
static bool param_abi_copy(struct args_ctx *c, Dwarf_Die *param,
			   uint8_t *buf)
{
	int regs[2];
	size_t lens[2];
	bool ok = false;
	int nr = c->own && c->t->hdr.machine == EM_X86_64 &&
			 c->entry == c->p->fn - c->bias
		 ? abi_param_regs(&c->fn_die, &c->defn, param, regs, lens)
		 : 0;

	for (int i = 0, done = 0, copy; i < nr; i++) {
		if (!dw_entry_reg_copy(c->m, c->entry,
				       c->cap.pc - c->bias - 5, regs[i],
				       lens[i], &copy) ||
		    !c->f.have[copy])
			break;
		frame_sink_reg(buf + done, &c->f, copy, lens[i]);
		done += (int)lens[i];
		ok = i + 1 == nr;
	}
	return ok;
}

/* The text of a parameter that has a location (conc's DW_AT_location
 * `loc`), or NULL with the reason in *why. */
static char *param_at_location(struct args_ctx *c, Dwarf_Die *param,
			       Dwarf_Die *conc, Dwarf_Attribute *loc,
			       Dwarf_Die *type, size_t size, const char **why)
{
	struct frame_state *f = &c->f;
	uint8_t buf[VALUES_MAX_BYTES];
	int64_t slot;
	const char *no;

	memset(buf, 0, sizeof buf);
	frame_sink_start(buf, sizeof buf);
	/* The entry register's copy first, when the code proves it: the
	 * value passed, whatever the list says at the call (clang may
	 * already describe a later statement there: `p3 & 15' for p3). */
	bool copied = c->own && dw_eval_entry_copy(f, loc, c->entry, buf,
						   size) == 0;
	bool ok = copied;
	if (!ok)
		ok = dw_eval_location(f, loc, buf, size, why) == 0;
	if ((no = location_rejected(c, loc, size, copied)) != NULL) {
		*why = no;
		return NULL;
	}
	if (ok && (no = value_doubted(c, param, conc, loc, size, copied))) {
		ok = false;
		*why = no;
	}
	if (!ok)
		ok = param_abi_copy(c, param, buf);
	uint64_t addr = 0;
	bool in_args = false;
	if (!ok && c->t->hdr.machine == EM_386 && f->have_cfa && c->own &&
	    dw_i386_stack_slot(c->m, loc, &c->sub, c->cap.pc - c->bias,
			       &slot)) {
		frame_read();
		ok = capture_read(&c->cap, f->cfa + (uint64_t)slot, buf, size);
		in_args = true;
		if (!ok)
			*why = "outside the captured stack";
	} else if (ok && !copied && f->have_cfa &&
		   dw_location_address(f, loc, &addr)) {
		frame_read();
		in_args = addr >= f->cfa;
	}
	/* clang -O1 and above leave unwritten a by-value aggregate passed in
	 * memory that the function never reads: the caller's copy of it
	 * into the argument area is removed as dead.  Nothing at the entry
	 * tells whether the function reads it. */
	if (ok && in_args && c->clang_opt && type_is_aggregate(type)) {
		ok = false;
		*why = "passed in memory: clang may leave it unwritten when the "
		       "function never reads it";
	}
	return ok ? recipe_text(&c->cap, c->ptr_size, type, buf, size) : NULL;
}

/* The text of a parameter given a constant value (conc's
 * DW_AT_const_value `val`), or NULL with the reason in *why. */
static char *param_constant(struct args_ctx *c, Dwarf_Die *param,
			    Dwarf_Attribute *val, Dwarf_Die *type, size_t size,
			    const char **why)
{
	uint8_t buf[VALUES_MAX_BYTES];
	Dwarf_Sword sv;
	Dwarf_Block blk;
	Dwarf_Word raw;
	unsigned form = dwarf_whatform(val);
	size_t fsize = form == DW_FORM_data1   ? 1
		       : form == DW_FORM_data2 ? 2
		       : form == DW_FORM_data4 ? 4
		       : form == DW_FORM_data8 ? 8
					       : 0;

	memset(buf, 0, sizeof buf);
	frame_sink_start(buf, sizeof buf);
	if (fsize && dwarf_formudata(val, &raw) == 0) {
		/* DW_FORM_dataN says neither signed nor unsigned: narrower
		 * than the type with its top bit set (gcc: 0xffff for an int
		 * of 65535), it could be either. */
		if (fsize < size && size <= 8 && (raw >> (8 * fsize - 1)) & 1) {
			*why = "ambiguous constant";
			return NULL;
		}
		memcpy(buf, &raw, size < 8 ? size : 8);
	} else if (dwarf_formblock(val, &blk) == 0 && blk.length >= size) {
		memcpy(buf, blk.data, size);
	} else if (dwarf_formsdata(val, &sv) == 0) {
		memcpy(buf, &sv, size < 8 ? size : 8);
	} else {
		return NULL;
	}
	if (!c->own && size <= 16 &&
	    constant_shared(&c->sub, &c->scope, &c->scope_root, param, buf,
			    size, 0)) {
		*why = SHARED_CONSTANT;
		return NULL;
	}
	if (!c->own && copy_on_paths(c->m, &c->scope, c->f.rel_pc)) {
		*why = PATH_CONSTANT;
		return NULL;
	}
	return recipe_text(&c->cap, c->ptr_size, type, buf, size);
}

/* One parameter (a child of c->defn), added to vb: its value, or ? and
 * why. */
static void param_value(struct args_ctx *c, struct values_build *vb,
			Dwarf_Die *param)
{
	const char *name = dwarf_diename(param);
	Dwarf_Die type, conc;
	bool has_type = type_of(param, &type);
	const char *why = "optimized out";
	char *text = NULL;
	Dwarf_Attribute attr;
	size_t size = has_type ? type_size(&type, c->ptr_size) : 0;
	bool found = dwarf_dieoffset(&c->defn) == dwarf_dieoffset(&c->scope)
			     ? (conc = *param, true)
			     : concrete_param(&c->scope, param, &conc);

	if (!has_type || size == 0 || size > VALUES_MAX_BYTES) {
		why = "unsupported type";
	} else if (!c->own && dw_is_clang(&c->scope)) {
		/* An inlined copy has no entry of its own to prove a value
		 * by, and clang moves statements of its body above the hook
		 * and describes the parameter as they left it (a constant, a
		 * computation): the value fuzzer finds such values wrong. */
		why = "inlined by clang: the location at the hook may be a "
		      "later statement's";
	} else if (found && dwarf_attr(&conc, DW_AT_location, &attr)) {
		text = param_at_location(c, param, &conc, &attr, &type, size,
					 &why);
	} else if (found && dwarf_attr(&conc, DW_AT_const_value, &attr)) {
		text = param_constant(c, param, &attr, &type, size, &why);
	}
	values_add(vb, name ? name : "?", has_type ? &type : NULL, text, why);
}

static struct values *decode(struct args_ctx *c, struct trace *t,
			     const struct values_call *p,
			     const uint8_t *payload, size_t len)
{
	struct values_build vb = {0};
	struct values *done;
	Dwarf_Die param;

	if ((done = args_context(c, &vb, t, p, payload, len)) != NULL)
		return done;
	if (dwarf_child(&c->defn, &param) != 0)
		return values_finish(&vb, false);
	c->entry_regs_twice = entry_regs_claimed_twice(c);
	do {
		int tag = dwarf_tag(&param);
		if (tag == DW_TAG_unspecified_parameters)
			values_add(&vb, "...", NULL, NULL, "variadic");
		else if (tag == DW_TAG_formal_parameter)
			param_value(c, &vb, &param);
	} while (dwarf_siblingof(&param, &param) == 0);
	return values_finish(&vb, false);
}

/* Decoded in full, and kept as a recipe for the calls like it when the
 * decoding read no captured value but the ones it shows (recipe.c). */
struct values *args_decode(struct trace *t, const struct values_call *p,
			   const uint8_t *payload, size_t len, bool record)
{
	struct args_ctx c;

	memset(&c, 0, sizeof c);
	recipe_begin(record);
	struct values *v = decode(&c, t, p, payload, len);
	recipe_end(t, p, &c.cap, c.parsed, v);
	return v;
}
