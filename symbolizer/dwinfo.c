/* dwinfo.c -- modules' DWARF (elfutils libdw) and DWARF expressions
 * evaluated against a call's captured registers and stack.
 *
 * The state at the entry hook is the instrumented function's: its
 * callee-saved registers, its stack pointer, and stack memory around its
 * frame.  Its CFA comes from its CFI at the hook's call.  A parameter whose
 * location is DW_OP_entry_value(reg) (gcc, for values the function no
 * longer keeps) is found at the caller: one CFI step gives the caller's
 * registers at the call, and the caller's DW_TAG_call_site for that return
 * address says what it passed in reg.
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

#include "dwinfo.h"
#include "elfinfo.h"
#include "internal.h"
#include "values.h"

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

void dw_modules_free(void)
{
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
		free(m->fn_ranges);
		free(m->fn_max_hi);
		free(m->path);
		free(m);
	}
}

bool dw_read_code(struct dw_module *m, uint64_t rel, uint8_t *out, size_t n)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(m->elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || rel < sh.sh_addr ||
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

/* ---------------------------------------------------------------------------
 * Expressions
 * ------------------------------------------------------------------------ */

enum loc_kind { LOC_MEMORY, LOC_REGISTER, LOC_VALUE, LOC_IMPLICIT };

struct loc {
	enum loc_kind kind;
	uint64_t v;         /* address, register number or value */
	const uint8_t *data; /* LOC_IMPLICIT */
	size_t data_len;
};

#define STACK_MAX 64

static int eval_ops(struct frame_state *f, Dwarf_Attribute *attr,
		    const Dwarf_Op *ops, size_t n, struct loc *out,
		    const char **why, int depth);

static int reg_value(struct frame_state *f, uint64_t reg, uint64_t *v,
		     const char **why)
{
	if (reg < DW_MAX_REG && f->have[reg]) {
		*v = f->reg[reg];
		return 0;
	}
	*why = "not captured (a call-clobbered register)";
	return -1;
}

/* The value of a CFI or frame-base expression that yields an address or a
 * register's value. */
static int eval_value(struct frame_state *f, Dwarf_Attribute *attr,
		      const Dwarf_Op *ops, size_t n, uint64_t *v,
		      const char **why, int depth)
{
	struct loc l;
	if (eval_ops(f, attr, ops, n, &l, why, depth) < 0)
		return -1;
	switch (l.kind) {
	case LOC_MEMORY:
	case LOC_VALUE:
		*v = l.v;
		return 0;
	case LOC_REGISTER:
		return reg_value(f, l.v, v, why);
	default:
		*why = "unsupported location";
		return -1;
	}
}

static int frame_base(struct frame_state *f, uint64_t *v, const char **why,
		      int depth)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	if (!f->have_subprogram ||
	    !dwarf_attr_integrate(&f->subprogram, DW_AT_frame_base, &a) ||
	    dwarf_getlocation_addr(&a, f->rel_pc - 1, &ops, &n, 1) <= 0) {
		*why = "no frame base";
		return -1;
	}
	if (f->machine == 3 && n == 1 && ops[0].atom == DW_OP_reg0 + 4) {
		/* clang on i386: the frame base is esp as the function body
		 * keeps it, but the hook's arguments were pushed on top of it.
		 * The `add $n, %esp` after the call says by how much. */
		int64_t adjust;
		if (f->is_caller || !f->have[4] ||
		    !dw_i386_esp_adjust(f->m, f->rel_pc, &adjust)) {
			*why = "no frame base";
			return -1;
		}
		*v = (f->reg[4] + (uint64_t)adjust) & 0xffffffffu;
		return 0;
	}
	if (eval_value(f, &a, ops, n, v, why, depth) < 0)
		return -1;
	if (f->machine == 62 && f->is_caller && n == 1 &&
	    ops[0].atom == DW_OP_reg0 + 7) {
		/* clang on x86-64: the caller's frame base is rsp as its
		 * body keeps it, but the stack arguments of this call were
		 * pushed on top of it (`add $n, %rsp' right after the call
		 * removes them).  Its call-site values are then read from
		 * the wrong slots, moved by n or by part of it (the value
		 * fuzzer found both): not used. */
		uint8_t c[7];
		int32_t imm = 0;
		if (dw_read_code(f->m, f->rel_pc, c, 4) && c[0] == 0x48 &&
		    c[1] == 0x83 && c[2] == 0xc4)
			imm = (int8_t)c[3];
		else if (dw_read_code(f->m, f->rel_pc, c, 7) && c[0] == 0x48 &&
			 c[1] == 0x81 && c[2] == 0xc4)
			memcpy(&imm, c + 3, 4);
		if (imm != 0) {
			*why = "the caller's stack pointer moves around the call";
			return -1;
		}
	}
	return 0;
}

static int read_mem(struct frame_state *f, uint64_t addr, size_t size,
		    uint64_t *v, const char **why)
{
	uint8_t buf[8] = {0};
	if (size > 8 || !capture_read(f->mem, addr, buf, size)) {
		*why = "outside the captured stack";
		return -1;
	}
	memcpy(v, buf, 8);
	return 0;
}

static int entry_value(struct frame_state *f, Dwarf_Attribute *attr,
		       const Dwarf_Op *op, uint64_t *v, const char **why,
		       int depth);

static int eval_ops(struct frame_state *f, Dwarf_Attribute *attr,
		    const Dwarf_Op *ops, size_t n, struct loc *out,
		    const char **why, int depth)
{
	uint64_t st[STACK_MAX];
	size_t sp = 0;
	bool value = false;

#define NEED(k)                                                              \
	do {                                                                 \
		if (sp < (k))                                                \
			goto bad;                                            \
	} while (0)
#define PUSH(x)                                                              \
	do {                                                                 \
		uint64_t pushed_ = (x);                                      \
		if (sp == STACK_MAX)                                         \
			goto bad;                                            \
		st[sp++] = pushed_;                                          \
	} while (0)

	for (size_t i = 0; i < n; i++) {
		const Dwarf_Op *op = &ops[i];
		uint8_t a = op->atom;
		uint64_t x, y;

		if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			PUSH((uint64_t)(a - DW_OP_lit0));
			continue;
		}
		if (a >= DW_OP_reg0 && a <= DW_OP_reg31) {
			if (n != 1)
				goto unsupported;
			*out = (struct loc){LOC_REGISTER, a - DW_OP_reg0, 0, 0};
			return 0;
		}
		if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
			if (reg_value(f, a - DW_OP_breg0, &x, why) < 0)
				return -1;
			PUSH(x + (uint64_t)(int64_t)op->number);
			continue;
		}
		switch (a) {
		case DW_OP_regx:
			if (n != 1)
				goto unsupported;
			*out = (struct loc){LOC_REGISTER, op->number, 0, 0};
			return 0;
		case DW_OP_bregx:
			if (reg_value(f, op->number, &x, why) < 0)
				return -1;
			PUSH(x + op->number2);
			break;
		case DW_OP_addr:
			PUSH(op->number + f->bias);
			break;
		case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u:
		case DW_OP_const8u: case DW_OP_constu:
		case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s:
		case DW_OP_const8s: case DW_OP_consts:
			PUSH(op->number);
			break;
		case DW_OP_fbreg:
			if (depth > 2 || frame_base(f, &x, why, depth + 1) < 0)
				return -1;
			PUSH(x + op->number);
			break;
		case DW_OP_call_frame_cfa:
			if (!f->have_cfa) {
				*why = "no CFI for the frame";
				return -1;
			}
			PUSH(f->cfa);
			break;
		case DW_OP_dup: NEED(1); PUSH(st[sp - 1]); break;
		case DW_OP_drop: NEED(1); sp--; break;
		case DW_OP_over: NEED(2); PUSH(st[sp - 2]); break;
		case DW_OP_pick:
			NEED(op->number + 1);
			PUSH(st[sp - 1 - op->number]);
			break;
		case DW_OP_swap:
			NEED(2);
			x = st[sp - 1];
			st[sp - 1] = st[sp - 2];
			st[sp - 2] = x;
			break;
		case DW_OP_plus_uconst: NEED(1); st[sp - 1] += op->number; break;
		case DW_OP_neg: NEED(1); st[sp - 1] = -st[sp - 1]; break;
		case DW_OP_not: NEED(1); st[sp - 1] = ~st[sp - 1]; break;
		case DW_OP_abs:
			NEED(1);
			if ((int64_t)st[sp - 1] < 0)
				st[sp - 1] = -st[sp - 1];
			break;
		case DW_OP_plus: case DW_OP_minus: case DW_OP_mul:
		case DW_OP_and: case DW_OP_or: case DW_OP_xor:
		case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
		case DW_OP_div: case DW_OP_mod:
			NEED(2);
			y = st[--sp];
			x = st[sp - 1];
			switch (a) {
			case DW_OP_plus: x += y; break;
			case DW_OP_minus: x -= y; break;
			case DW_OP_mul: x *= y; break;
			case DW_OP_and: x &= y; break;
			case DW_OP_or: x |= y; break;
			case DW_OP_xor: x ^= y; break;
			case DW_OP_shl: x = y < 64 ? x << y : 0; break;
			case DW_OP_shr: x = y < 64 ? x >> y : 0; break;
			case DW_OP_shra:
				x = (uint64_t)((int64_t)x >> (y < 63 ? y : 63));
				break;
			case DW_OP_div:
				if (y == 0)
					goto bad;
				x = (uint64_t)((int64_t)x / (int64_t)y);
				break;
			case DW_OP_mod:
				if (y == 0)
					goto bad;
				x %= y;
				break;
			}
			st[sp - 1] = x;
			break;
		case DW_OP_deref:
			NEED(1);
			if (read_mem(f, st[sp - 1], (size_t)f->ptr_size, &x,
				     why) < 0)
				return -1;
			if (f->ptr_size == 4)
				x &= 0xffffffffu;
			st[sp - 1] = x;
			break;
		case DW_OP_deref_size:
			NEED(1);
			if (op->number == 0 || op->number > 8 ||
			    read_mem(f, st[sp - 1], op->number, &x, why) < 0)
				return -1;
			if (op->number < 8)
				x &= (1ull << (8 * op->number)) - 1;
			st[sp - 1] = x;
			break;
		case DW_OP_stack_value:
			value = true;
			break;
		case DW_OP_implicit_value: {
			/* libdw's number2 points at the block's length, not
			 * its bytes: ask libdw for the block. */
			Dwarf_Block blk;
			if (n != 1 || attr == NULL ||
			    dwarf_getlocation_implicit_value(attr, op, &blk) != 0)
				goto unsupported;
			*out = (struct loc){LOC_IMPLICIT, 0, blk.data,
					    blk.length};
			return 0;
		}
		case DW_OP_entry_value:
		case DW_OP_GNU_entry_value:
			if (entry_value(f, attr, op, &x, why, depth) < 0)
				return -1;
			PUSH(x);
			break;
		case DW_OP_nop:
			break;
		default:
			goto unsupported;
		}
	}
	NEED(1);
	out->kind = value ? LOC_VALUE : LOC_MEMORY;
	out->v = st[sp - 1];
	if (f->ptr_size == 4 && !value)
		out->v &= 0xffffffffu;
	return 0;
unsupported:
	*why = "unsupported location";
	return -1;
bad:
	*why = "bad location expression";
	return -1;
#undef NEED
#undef PUSH
}

/* ---------------------------------------------------------------------------
 * Registers and CFA of a frame, from CFI
 * ------------------------------------------------------------------------ */

static int frame_cfa(struct frame_state *f, uint64_t lookup_pc)
{
	Dwarf_Frame *fr = NULL;
	Dwarf_Op *ops;
	size_t n;
	const char *why;
	int ok = -1;
	if (!f->m->cfi || dwarf_cfi_addrframe(f->m->cfi, lookup_pc, &fr) != 0)
		return -1;
	if (dwarf_frame_cfa(fr, &ops, &n) == 0 && n > 0) {
		uint64_t v;
		if (eval_value(f, NULL, ops, n, &v, &why, 3) == 0) {
			f->cfa = v;
			f->have_cfa = true;
			ok = 0;
		}
	}
	free(fr);
	return ok;
}

static const int saved_x86_64[] = CTRACE_SAVED_REGS_X86_64;
static const int saved_i386[] = CTRACE_SAVED_REGS_I386;

void frame_init(struct frame_state *f, struct dw_module *m, uint64_t bias,
		const struct capture *c, struct trace *t, uint64_t site,
		uint64_t ticks, uint16_t machine, int ptr_size)
{
	memset(f, 0, sizeof *f);
	f->m = m;
	f->bias = bias;
	f->rel_pc = c->pc - bias;
	f->mem = c;
	f->trace = t;
	f->site = site;
	f->ticks = ticks;
	f->machine = machine;
	f->ptr_size = ptr_size;
	f->sp_reg = machine == 3 ? CTRACE_DW_SP_I386 : CTRACE_DW_SP_X86_64;
	for (int i = 0; i < c->nregs; i++)
		if (c->regno[i] < DW_MAX_REG) {
			f->have[c->regno[i]] = true;
			f->reg[c->regno[i]] = c->regval[i];
		}
	f->have[f->sp_reg] = true;
	f->reg[f->sp_reg] = c->sp;
	/* The CFA at the hook's call: pc - 1 lies in the call. */
	if (frame_cfa(f, f->rel_pc - 1) < 0 && c->cfa) {
		f->cfa = c->cfa;
		f->have_cfa = true;
	}
}

/* The caller's registers at the call: one CFI step from f. */
static int unwind_to_caller(struct frame_state *f, struct frame_state *c)
{
	Dwarf_Frame *fr = NULL;
	const int *saved = f->machine == 3 ? saved_i386 : saved_x86_64;
	size_t nsaved = f->machine == 3
				? sizeof saved_i386 / sizeof *saved_i386
				: sizeof saved_x86_64 / sizeof *saved_x86_64;
	const char *why;

	if (!f->have_cfa || !f->m->cfi ||
	    dwarf_cfi_addrframe(f->m->cfi, f->rel_pc - 1, &fr) != 0)
		return -1;
	for (size_t i = 0; i < nsaved; i++) {
		int r = saved[i];
		Dwarf_Op mem[3], *ops;
		size_t n;
		if (dwarf_frame_register(fr, r, mem, &ops, &n) != 0)
			continue;
		if (n == 0) {
			if (ops == NULL && f->have[r]) { /* same value */
				c->have[r] = true;
				c->reg[r] = f->reg[r];
			}
			continue;
		}
		struct loc l;
		if (eval_ops(f, NULL, ops, n, &l, &why, 3) < 0)
			continue;
		uint64_t v;
		if (l.kind == LOC_VALUE) {
			c->reg[r] = l.v;
			c->have[r] = true;
		} else if (l.kind == LOC_MEMORY &&
			   read_mem(f, l.v, (size_t)f->ptr_size, &v, &why) == 0) {
			if (f->ptr_size == 4)
				v &= 0xffffffffu;
			c->reg[r] = v;
			c->have[r] = true;
		} else if (l.kind == LOC_REGISTER && l.v < DW_MAX_REG &&
			   f->have[l.v]) {
			c->reg[r] = f->reg[l.v];
			c->have[r] = true;
		}
	}
	free(fr);
	c->have[f->sp_reg] = true;
	c->reg[f->sp_reg] = f->cfa;
	return 0;
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

/* A pointer to a character type (char, signed or unsigned char, through
 * typedefs and qualifiers): its target is shown as a string. */
bool dw_is_string_type(Dwarf_Die *type)
{
	Dwarf_Die t = *type;
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < 16; i++) {
			int tag = dwarf_tag(&t);
			if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
			    tag != DW_TAG_volatile_type &&
			    tag != DW_TAG_restrict_type &&
			    tag != DW_TAG_atomic_type)
				break;
			Dwarf_Attribute a;
			if (!dwarf_attr_integrate(&t, DW_AT_type, &a) ||
			    !dwarf_formref_die(&a, &t))
				return false;
		}
		if (k == 0) {
			Dwarf_Attribute a;
			if (dwarf_tag(&t) != DW_TAG_pointer_type ||
			    !dwarf_attr_integrate(&t, DW_AT_type, &a) ||
			    !dwarf_formref_die(&a, &t))
				return false;
		}
	}
	Dwarf_Attribute a;
	Dwarf_Word enc, size;
	if (dwarf_tag(&t) != DW_TAG_base_type ||
	    !dwarf_attr(&t, DW_AT_encoding, &a) || dwarf_formudata(&a, &enc) ||
	    !dwarf_attr(&t, DW_AT_byte_size, &a) || dwarf_formudata(&a, &size))
		return false;
	const char *name = dwarf_diename(&t);
	return size == 1 && (enc == DW_ATE_signed_char ||
			     enc == DW_ATE_unsigned_char ||
			     ((enc == DW_ATE_signed || enc == DW_ATE_unsigned) &&
			      name && strstr(name, "char")));
}

/* The function index: every subprogram that no other subprogram contains,
 * by its code ranges.  libdw's dwarf_getscopes walks a CU from its root at
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
 * namespaces and classes (where clang puts some definitions) but not into
 * functions (their nested scopes are found by scope_path). */
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
			break;
		}
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
 * DW_OP_entry_value: what the caller passed
 * ------------------------------------------------------------------------ */

/* Searches the subtree of die for the call site returning to ret. */
static bool find_call_site(Dwarf_Die *die, uint64_t ret, Dwarf_Die *out,
			   int depth)
{
	Dwarf_Die child;
	if (depth > 32 || dwarf_child(die, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site) {
			Dwarf_Attribute a;
			Dwarf_Addr pc;
			if (((dwarf_attr(&child, DW_AT_call_return_pc, &a) ||
			      dwarf_attr(&child, DW_AT_low_pc, &a)) &&
			     dwarf_formaddr(&a, &pc) == 0 && pc == ret)) {
				*out = child;
				return true;
			}
		} else if (tag == DW_TAG_lexical_block ||
			   tag == DW_TAG_inlined_subroutine) {
			if (find_call_site(&child, ret, out, depth + 1))
				return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* The latest return address of a call site below die before `before`
 * (0: none). */
static uint64_t previous_return(Dwarf_Die *die, uint64_t before, int depth)
{
	Dwarf_Die child;
	uint64_t best = 0;
	if (depth > 32 || dwarf_child(die, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);
		uint64_t r = 0;
		if (tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site) {
			Dwarf_Attribute a;
			Dwarf_Addr pc;
			if ((dwarf_attr(&child, DW_AT_call_return_pc, &a) ||
			     dwarf_attr(&child, DW_AT_low_pc, &a)) &&
			    dwarf_formaddr(&a, &pc) == 0 && pc < before)
				r = pc;
		} else if (tag == DW_TAG_lexical_block ||
			   tag == DW_TAG_inlined_subroutine) {
			r = previous_return(&child, before, depth + 1);
		}
		if (r > best)
			best = r;
	} while (dwarf_siblingof(&child, &child) == 0);
	return best;
}

/* clang's DW_AT_call_value names the register the argument was copied
 * from, even when the code overwrites that register between the copy and
 * the call (`mov %r14,%rdi; mov %rbx,%r14; call f': RDI given as R14).
 * Such a value is used only when the code from the previous call (or the
 * function's entry) proves the argument register holds it at the call. */
static bool call_value_proven(struct dw_module *m, Dwarf_Die *sub,
			      uint64_t ret, uint64_t param_reg,
			      const Dwarf_Op *ops, size_t n)
{
	int value_reg = -1;
	for (size_t i = 0; i < n; i++) {
		unsigned a = ops[i].atom;
		int r = -1;
		if (a >= DW_OP_breg0 && a <= DW_OP_breg31)
			r = a - DW_OP_breg0;
		else if (a >= DW_OP_reg0 && a <= DW_OP_reg31)
			r = a - DW_OP_reg0;
		else if (a == DW_OP_bregx || a == DW_OP_regx)
			r = (int)ops[i].number;
		if (r < 0 || r == 7 || r == 16)
			continue; /* none, the stack pointer, the pc */
		if (value_reg >= 0 && value_reg != r)
			return false;
		value_reg = r;
	}
	if (value_reg < 0 || !dw_is_clang(sub))
		return true;
	/* The call instruction: direct, or through a register. */
	uint8_t code[3];
	uint64_t call;
	if (dw_read_code(m, ret - 5, code, 1) && code[0] == 0xe8)
		call = ret - 5;
	else if (dw_read_code(m, ret - 2, code, 2) && code[0] == 0xff &&
		 (code[1] & 0xf8) == 0xd0)
		call = ret - 2;
	else if (dw_read_code(m, ret - 3, code, 3) && code[0] == 0x41 &&
		 code[1] == 0xff && (code[2] & 0xf8) == 0xd0)
		call = ret - 3;
	else
		return false;
	uint64_t from = previous_return(sub, ret, 0);
	Dwarf_Addr lo;
	if (from == 0 && dwarf_entrypc(sub, &lo) == 0)
		from = lo;
	return from != 0 && dw_call_value_holds(m, from, call, (int)param_reg,
						value_reg);
}

/* The call-site parameter for register reg, or false. */
static bool find_site_param(Dwarf_Die *site, uint64_t reg, Dwarf_Die *out)
{
	Dwarf_Die child;
	if (dwarf_child(site, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		Dwarf_Attribute a;
		Dwarf_Op *ops;
		size_t n;
		if ((tag != DW_TAG_call_site_parameter &&
		     tag != DW_TAG_GNU_call_site_parameter) ||
		    !dwarf_attr(&child, DW_AT_location, &a) ||
		    dwarf_getlocation(&a, &ops, &n) != 0 || n != 1)
			continue;
		uint64_t r = ops[0].atom == DW_OP_regx
				     ? ops[0].number
				     : (uint64_t)(ops[0].atom - DW_OP_reg0);
		if ((ops[0].atom == DW_OP_regx ||
		     (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)) &&
		    r == reg) {
			*out = child;
			return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

static int entry_value(struct frame_state *f, Dwarf_Attribute *attr,
		       const Dwarf_Op *op, uint64_t *v, const char **why,
		       int depth)
{
	Dwarf_Attribute sub;
	Dwarf_Op *ops;
	size_t n;
	*why = "optimized out";
	if (f->is_caller || depth > 1 || attr == NULL ||
	    dwarf_getlocation_attr(attr, op, &sub) != 0 ||
	    dwarf_getlocation(&sub, &ops, &n) != 0 || n != 1)
		return -1;
	uint64_t reg;
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
		reg = ops[0].atom - DW_OP_reg0;
	else if (ops[0].atom == DW_OP_regx)
		reg = ops[0].number;
	else
		return -1;
	/* A callee-saved register the function has not changed yet. */
	struct frame_state c;
	memset(&c, 0, sizeof c);
	if (unwind_to_caller(f, &c) < 0)
		return -1;
	if (reg < DW_MAX_REG && c.have[reg] && reg != (uint64_t)f->sp_reg) {
		*v = c.reg[reg];
		return 0;
	}

	/* The caller: its module, scope and call site. */
	const struct resolve_info *si = resolve_call_site(
		f->trace->resolver, f->site, f->ticks);
	if (!si->module)
		return -1;
	struct dw_module *cm = dw_module(si->module);
	if (!cm || !cm->dw)
		return -1;
	c.m = cm;
	c.bias = f->site - si->module_offset;
	c.rel_pc = si->module_offset;
	c.is_caller = true;
	c.mem = f->mem;
	c.ptr_size = f->ptr_size;
	c.sp_reg = f->sp_reg;
	c.machine = f->machine;
	c.callee = f;
	Dwarf_Die scope, sub_die, site_die, param;
	if (dw_scope_at(cm, c.rel_pc - 1, &scope, &sub_die) < 0 ||
	    !find_call_site(&sub_die, c.rel_pc, &site_die, 0) ||
	    !find_site_param(&site_die, reg, &param))
		return -1;
	c.subprogram = sub_die;
	c.have_subprogram = true;
	/* The caller's CFA, from its own CFI at the call. */
	Dwarf_Frame *fr = NULL;
	if (cm->cfi && dwarf_cfi_addrframe(cm->cfi, c.rel_pc - 1, &fr) == 0) {
		Dwarf_Op *cops;
		size_t cn;
		const char *w;
		uint64_t cfa;
		if (dwarf_frame_cfa(fr, &cops, &cn) == 0 && cn > 0 &&
		    eval_value(&c, NULL, cops, cn, &cfa, &w, 3) == 0) {
			c.cfa = cfa;
			c.have_cfa = true;
		}
		free(fr);
	}
	Dwarf_Attribute val;
	if (!dwarf_attr(&param, DW_AT_call_value, &val) &&
	    !dwarf_attr(&param, DW_AT_GNU_call_site_value, &val))
		return -1;
	if (dwarf_getlocation(&val, &ops, &n) != 0 || n == 0)
		return -1;
	if (f->machine == 62 &&
	    !call_value_proven(cm, &sub_die, c.rel_pc, reg, ops, n)) {
		*why = "the caller's call-site value is not proven at the call";
		return -1;
	}
	struct loc l;
	if (eval_ops(&c, &val, ops, n, &l, why, depth + 1) < 0)
		return -1;
	/* DW_AT_call_value is a DWARF expression: its result is the value. */
	if (l.kind == LOC_REGISTER)
		return reg_value(&c, l.v, v, why);
	if (l.kind == LOC_IMPLICIT) {
		*why = "unsupported location";
		return -1;
	}
	*v = l.v;
	return 0;
}

/* ---------------------------------------------------------------------------
 * Locations to bytes
 * ------------------------------------------------------------------------ */

static int fetch(struct frame_state *f, const struct loc *l, uint8_t *out,
		 size_t size, const char **why)
{
	uint64_t v;
	switch (l->kind) {
	case LOC_MEMORY:
		if (!capture_read(f->mem, l->v, out, size)) {
			*why = "outside the captured stack";
			return -1;
		}
		return 0;
	case LOC_REGISTER:
		if (size > 8 || reg_value(f, l->v, &v, why) < 0) {
			if (size > 8)
				*why = "not captured (a call-clobbered register)";
			return -1;
		}
		memcpy(out, &v, size);
		return 0;
	case LOC_VALUE:
		if (size > 8) {
			memset(out, 0, size);
			memcpy(out, &l->v, 8);
			return 0;
		}
		memcpy(out, &l->v, size);
		return 0;
	case LOC_IMPLICIT:
		if (l->data_len < size) {
			*why = "unsupported location";
			return -1;
		}
		memcpy(out, l->data, size);
		return 0;
	}
	return -1;
}

/* clang -O0 stores the arguments in their DWARF homes only after the
 * entry hook: before it they sit in spill slots.  The code right after the
 * hook's call reloads each spill and stores it in its home; read those
 * moves to map a home (rbp offset) to its spill. */
static bool clang_spill(struct frame_state *f, int64_t home, size_t size,
			int64_t *spill)
{
	uint8_t code[160];
	int64_t loaded[2][16];
	bool have[2][16] = {{false}};
	if (f->machine != 62 || !dw_read_code(f->m, f->rel_pc, code, sizeof code))
		return false;
	size_t i = 0;
	while (i + 4 < sizeof code - 8) {
		size_t k = i, width = 4;
		int cls = 0, rex = 0, store;
		if (code[k] == 0x66) {
			width = 2;
			k++;
		}
		if (code[k] == 0xf2 || code[k] == 0xf3) {
			cls = 1;
			width = code[k] == 0xf2 ? 8 : 4;
			k++;
		}
		if ((code[k] & 0xf0) == 0x40)
			rex = code[k++];
		if (rex & 8)
			width = 8;
		if (cls) {
			if (code[k] != 0x0f ||
			    (code[k + 1] != 0x10 && code[k + 1] != 0x11))
				break;
			store = code[k + 1] == 0x11;
			k += 2;
		} else if (code[k] == 0x89 || code[k] == 0x88) {
			store = 1;
			width = code[k] == 0x88 ? 1 : width;
			k++;
		} else if (code[k] == 0x8b || code[k] == 0x8a) {
			store = 0;
			k++;
		} else {
			break;
		}
		uint8_t modrm = code[k++];
		int mod = modrm >> 6, rm = modrm & 7;
		int reg = ((modrm >> 3) & 7) | ((rex & 4) ? 8 : 0);
		if (rm != 5 || (rex & 1) || (mod != 1 && mod != 2))
			break;
		int64_t disp;
		if (mod == 1) {
			disp = (int8_t)code[k++];
		} else {
			int32_t d32;
			memcpy(&d32, code + k, 4);
			disp = d32;
			k += 4;
		}
		if (!store) {
			loaded[cls][reg] = disp;
			have[cls][reg] = true;
		} else if (disp == home) {
			/* one move of the whole value, or we do not know */
			if (!have[cls][reg] || width != size)
				return false;
			*spill = loaded[cls][reg];
			return true;
		}
		i = k;
	}
	return false;
}

/* ---------------------------------------------------------------------------
 * i386 stack parameters the DWARF gives up on
 *
 * clang on i386 ends a stack parameter's location where the code starts
 * pushing the hook's arguments (it does not follow esp there).  The value
 * is still in its slot above the CFA if nothing between the function's
 * entry and the hook's call can have written there: the prologue is read
 * and accepted only when every instruction is one that writes no memory
 * but below the stack pointer.
 * ------------------------------------------------------------------------ */

/* clang on i386 gives esp as the frame base: esp as the function body
 * keeps it.  At the hook's call, the hook's arguments may be on top of
 * it: the `add $n, %esp` that removes them after the call says by how
 * much, found by reading forward from the return address over
 * instructions that leave esp alone; arguments stored into the frame
 * rather than pushed leave esp alone.  Anything else (a jump, an
 * instruction not understood): unknown. */
bool dw_i386_esp_adjust(struct dw_module *m, uint64_t ra, int64_t *adjust)
{
	uint8_t code[64];
	size_t len = sizeof code;
	while (len >= 3 && !dw_read_code(m, ra, code, len))
		len /= 2;
	if (len < 3)
		return false;
	/* The hook's first argument stored at (%esp) right before the call
	 * (mov %reg, (%esp)): the frame reserves its calls' arguments and
	 * esp does not move in the body. */
	uint8_t before[3];
	if (dw_read_code(m, ra - 8, before, 3) && before[0] == 0x89 &&
	    (before[1] & 0xc7) == 0x04 && before[2] == 0x24) {
		*adjust = 0;
		return true;
	}
	/* Pushed: the add that removes them, before any call (the exit
	 * hook's comes before the epilogue) or jump. */
	const uint8_t *p = code, *end = code + len;
	for (int k = 0; k < 16 && p + 3 <= end; k++) {
		if (p[0] == 0x83 && p[1] == 0xc4) {
			*adjust = (int8_t)p[2];
			return *adjust >= 0;
		}
		if (p[0] == 0x81 && p[1] == 0xc4 && p + 6 <= end) {
			int32_t imm;
			memcpy(&imm, p + 2, 4);
			*adjust = imm;
			return imm >= 0;
		}
		/* an instruction that leaves esp alone */
		struct i386_insn in;
		size_t n = i386dec_insn(p, end, &in);
		if (n == 0 || in.call || (in.writes & 1u << I386_ESP))
			return false;
		p += n;
	}
	return false;
}

/* Whether the code [lo, call) writes no memory at or above the CFA. */
static bool prologue_harmless(struct dw_module *m, uint64_t lo, uint64_t call)
{
	uint8_t code[128];
	if (call <= lo || call - lo > sizeof code ||
	    !dw_read_code(m, lo, code, call - lo))
		return false;
	const uint8_t *p = code, *end = code + (call - lo);
	int64_t esp = -4; /* relative to the CFA */
	while (p < end) {
		struct i386_insn in;
		size_t n = i386dec_step(m, lo + (uint64_t)(p - code), p, end,
					&in);
		/* esp followed exactly; a store only into the frame, below
		 * the CFA, addressed from esp */
		if (n == 0 || in.call || !in.esp_known ||
		    in.store == I386_STORE_OTHER ||
		    (in.store == I386_STORE_ESP &&
		     esp + in.store_disp + (int64_t)in.store_len > 0))
			return false;
		esp += in.esp_delta;
		p += n;
	}
	return p == end;
}

/* The general registers (bit i: i386 DWARF and hardware number i) the
 * i386 code [from, call) may write, or -1 if any of it is not understood.
 * A call other than to a PIC thunk writes the call-clobbered eax, ecx and
 * edx; a thunk `mov (%esp), %reg; ret` writes its register. */
static int i386_written(struct dw_module *m, uint64_t from, uint64_t call)
{
	uint8_t code[128];
	if (call < from || call - from > sizeof code ||
	    (call > from && !dw_read_code(m, from, code, call - from)))
		return -1;
	const uint8_t *p = code, *end = code + (call - from);
	int w = 0;
	while (p < end) {
		struct i386_insn in;
		size_t n = i386dec_step(m, from + (uint64_t)(p - code), p, end,
					&in);
		if (n == 0)
			return -1;
		w |= (int)in.writes;
		p += n;
	}
	return w;
}

/* gcc on i386 keeps a 64-bit value in a register pair and may name the
 * pair after an instruction wrote one of its registers (seen: the high
 * half in edi through `lea this_fn, %edi' that sets up the entry hook's
 * argument).  A location of register pieces is used only when the code
 * from the start of its range to the call writes none of them. */
static bool i386_pieces_kept(struct frame_state *f, Dwarf_Attribute *attr,
			     const Dwarf_Op *ops, size_t n)
{
	int regs = 0, nregs = 0;
	for (size_t i = 0; i < n; i++)
		if (ops[i].atom >= DW_OP_reg0 && ops[i].atom <= DW_OP_reg7) {
			regs |= 1 << (ops[i].atom - DW_OP_reg0);
			nregs++;
		} else if (ops[i].atom == DW_OP_regx) {
			return false;
		}
	if (nregs == 0)
		return true;
	uint64_t call = f->rel_pc - 5;
	uint8_t op;
	if (!dw_read_code(f->m, call, &op, 1) || op != 0xe8)
		return false;
	Dwarf_Addr base, start, end;
	Dwarf_Op *lops;
	size_t ln;
	ptrdiff_t off = 0;
	while ((off = dwarf_getlocations(attr, off, &base, &start, &end, &lops,
					 &ln)) > 0) {
		if (start == 0 && end == (Dwarf_Addr)-1)
			return true;    /* one expression for the whole scope */
		if (call < start || call >= end)
			continue;
		int w = i386_written(f->m, start, call);
		return w >= 0 && !(w & regs);
	}
	return false;
}

bool dw_i386_stack_slot(struct dw_module *m, Dwarf_Attribute *loc,
			Dwarf_Die *sub, uint64_t ra, int64_t *slot)
{
	Dwarf_Addr base, lo = 0, hi, start, end;
	ptrdiff_t it = 0;
	uint8_t call;
	while ((it = dwarf_ranges(sub, it, &base, &lo, &hi)) > 0)
		if (ra - 1 >= lo && ra - 1 < hi)
			break;
	if (it <= 0 || !m->cfi || !dw_read_code(m, ra - 5, &call, 1) ||
	    call != 0xe8 || !prologue_harmless(m, lo, ra - 5))
		return false;
	Dwarf_Op *ops;
	size_t n;
	ptrdiff_t off = 0;
	while ((off = dwarf_getlocations(loc, off, &base, &start, &end, &ops,
					 &n)) > 0) {
		if (start < lo || start >= ra - 5 || n != 1 ||
		    (ops[0].atom != DW_OP_breg4 && ops[0].atom != DW_OP_fbreg))
			continue;
		if (ops[0].atom == DW_OP_fbreg) {
			Dwarf_Attribute fa;
			Dwarf_Op *fops;
			size_t fn;
			if (!dwarf_attr_integrate(sub, DW_AT_frame_base, &fa) ||
			    dwarf_getlocation(&fa, &fops, &fn) != 0 || fn != 1 ||
			    fops[0].atom != DW_OP_reg4)
				continue;
		}
		Dwarf_Frame *fr = NULL;
		Dwarf_Op *cops;
		size_t cn;
		bool ok = false;
		int64_t cfa_off = 0;
		if (dwarf_cfi_addrframe(m->cfi, start, &fr) == 0 &&
		    dwarf_frame_cfa(fr, &cops, &cn) == 0 && cn == 1) {
			if (cops[0].atom == DW_OP_bregx && cops[0].number == 4) {
				cfa_off = (int64_t)cops[0].number2;
				ok = true;
			} else if (cops[0].atom == DW_OP_breg4) {
				cfa_off = (int64_t)cops[0].number;
				ok = true;
			}
		}
		free(fr);
		int64_t k = (int64_t)ops[0].number - cfa_off;
		if (ok && k >= 0) {
			*slot = k;
			return true;
		}
	}
	return false;
}

bool dw_clang_spill_at(struct dw_module *m, uint16_t machine, uint64_t rel_pc,
		       int64_t home, size_t size, int64_t *spill)
{
	struct frame_state f;
	memset(&f, 0, sizeof f);
	f.m = m;
	f.machine = machine;
	f.rel_pc = rel_pc;
	return clang_spill(&f, home, size, spill);
}

int dw_eval_location(struct frame_state *f, Dwarf_Attribute *attr,
		     uint8_t *out, size_t size, const char **why)
{
	Dwarf_Op *ops;
	size_t n;
	*why = "optimized out";
	/* At the call instruction: the captured registers are the machine
	 * state there.  From the return address on, the list may already
	 * describe the code after the call (a parameter counted down, its
	 * register reused). */
	int r = dwarf_getlocation_addr(attr, f->rel_pc - 1, &ops, &n, 1);
	if (r <= 0 || n == 0)
		return -1;
	if (f->machine == 3 && !f->is_caller && n > 2 &&
	    !i386_pieces_kept(f, attr, ops, n)) {
		*why = "a register of its pair may be overwritten before the call";
		return -1;
	}
	/* Pieces: each part of the value from its own place. */
	size_t done = 0, start = 0;
	bool pieces = false;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && ops[i].atom != DW_OP_piece)
			continue;
		size_t len = i < n ? ops[i].number : size - done;
		if (i < n)
			pieces = true;
		if (!pieces || i < n) {
			if (len > size - done) {
				*why = "bad location expression";
				return -1;
			}
			struct loc l;
			if (i == start) {
				*why = "optimized out";
				return -1;
			}
			if (eval_ops(f, attr, ops + start, i - start, &l, why,
				     0) < 0)
				return -1;
			if (l.kind == LOC_MEMORY && i - start == 1 &&
			    ops[start].atom == DW_OP_fbreg &&
			    (int64_t)ops[start].number < 0 && !f->is_caller &&
			    dw_is_clang(&f->subprogram)) {
				int64_t spill;
				if (!clang_spill(f, (int64_t)ops[start].number,
						 len, &spill)) {
					*why = "not yet stored";
					return -1;
				}
				l.v += (uint64_t)(spill -
						  (int64_t)ops[start].number);
			}
			if (fetch(f, &l, out + done, len, why) < 0)
				return -1;
			done += len;
		}
		start = i + 1;
	}
	if (done == size)
		return 0;
	*why = "optimized out";
	return -1;
}

int dw_entry_copies(struct dw_module *m, Dwarf_Attribute *attr,
		    uint64_t entry, uint64_t call, size_t size,
		    struct dw_reg_piece *out, size_t max)
{
	Dwarf_Op *ops;
	size_t n, k = 0, done = 0;
	if (dwarf_getlocation_addr(attr, entry, &ops, &n, 1) <= 0 || n == 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint64_t reg;
		if (ops[i].atom >= DW_OP_reg0 && ops[i].atom <= DW_OP_reg31)
			reg = ops[i].atom - DW_OP_reg0;
		else if (ops[i].atom == DW_OP_regx)
			reg = ops[i].number;
		else
			return -1;
		size_t len = size - done;
		if (i + 1 < n) {
			if (ops[i + 1].atom != DW_OP_piece)
				return -1;
			len = ops[++i].number;
		} else if (i > 0) {
			return -1; /* pieces end with a piece */
		}
		int copy;
		if (k == max || len == 0 || len > 8 || len > size - done ||
		    !dw_entry_reg_copy(m, entry, call, (int)reg, len, &copy))
			return -1;
		out[k++] = (struct dw_reg_piece){copy, len};
		done += len;
	}
	return done == size ? (int)k : -1;
}

int dw_eval_entry_copy(struct frame_state *f, Dwarf_Attribute *attr,
		       uint64_t entry, uint8_t *out, size_t size)
{
	struct dw_reg_piece pc[8];
	int n = f->machine == 62 ? dw_entry_copies(f->m, attr, entry,
						    f->rel_pc - 5, size, pc, 8)
				 : -1;
	size_t done = 0;
	for (int i = 0; i < n; i++) {
		if (!f->have[pc[i].reg])
			return -1;
		memcpy(out + done, &f->reg[pc[i].reg], pc[i].len);
		done += pc[i].len;
	}
	return n > 0 ? 0 : -1;
}

/* A location that is exactly one register: its DWARF number, or -1. */
static int single_reg(Dwarf_Attribute *attr, uint64_t pc)
{
	Dwarf_Op *ops;
	size_t n;
	if (dwarf_getlocation_addr(attr, pc, &ops, &n, 1) <= 0 || n != 1)
		return -1;
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
		return ops[0].atom - DW_OP_reg0;
	if (ops[0].atom == DW_OP_regx && ops[0].number < DW_MAX_REG)
		return (int)ops[0].number;
	return -1;
}

bool dw_location_contradicted(struct frame_state *f, Dwarf_Attribute *attr,
			      uint64_t entry, size_t size)
{
	int at_call, at_entry, origin;
	size_t width;
	if (f->machine != 62 || f->is_caller)
		return false;
	at_call = single_reg(attr, f->rel_pc - 1);
	at_entry = single_reg(attr, entry);
	if (at_call < 0 || at_entry < 0 ||
	    !dw_entry_reg_origin(f->m, entry, f->rel_pc - 5, at_call, &origin,
				 &width))
		return false;
	/* a computation's result, or another register's bytes */
	return origin == -2 ||
	       (origin >= 0 && (origin != at_entry || width < size));
}

bool dw_location_plain(Dwarf_Attribute *attr, uint64_t pc)
{
	Dwarf_Op *ops;
	size_t n;
	if (dwarf_getlocation_addr(attr, pc, &ops, &n, 1) <= 0 || n == 0)
		return true; /* nothing to read: the caller says why */
	for (size_t i = 0; i < n; i++) {
		unsigned op = ops[i].atom;
		bool last_value = i + 1 < n && ops[i + 1].atom == DW_OP_stack_value;
		if ((op >= DW_OP_reg0 && op <= DW_OP_reg31) || op == DW_OP_regx ||
		    op == DW_OP_piece || op == DW_OP_bit_piece ||
		    op == DW_OP_implicit_value || op == DW_OP_addr ||
		    op == DW_OP_fbreg || op == DW_OP_deref ||
		    op == DW_OP_deref_size || op == DW_OP_stack_value ||
		    (op >= DW_OP_lit0 && op <= DW_OP_lit31) ||
		    op == DW_OP_constu || op == DW_OP_consts ||
		    (op >= DW_OP_const1u && op <= DW_OP_const8s))
			continue;
		/* A register's value as it is, or the memory at an offset
		 * from it; an offset folded into a computed value (`p--` as
		 * breg RAX-1) is arithmetic. */
		if (((op >= DW_OP_breg0 && op <= DW_OP_breg31) ||
		     op == DW_OP_bregx) &&
		    (!last_value ||
		     (op == DW_OP_bregx ? ops[i].number2 : ops[i].number) == 0))
			continue;
		return false;
	}
	return true;
}

/* The register of a DW_OP_entry_value among ops, or -1. */
static int entry_value_reg(Dwarf_Attribute *attr, Dwarf_Op *ops, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		Dwarf_Attribute sub;
		Dwarf_Op *e;
		size_t en;
		if (ops[i].atom != DW_OP_entry_value &&
		    ops[i].atom != DW_OP_GNU_entry_value)
			continue;
		if (dwarf_getlocation_attr(attr, &ops[i], &sub) != 0 ||
		    dwarf_getlocation(&sub, &e, &en) != 0 || en != 1)
			return -1;
		if (e[0].atom >= DW_OP_reg0 && e[0].atom <= DW_OP_reg31)
			return e[0].atom - DW_OP_reg0;
		if (e[0].atom == DW_OP_regx && e[0].number < DW_MAX_REG)
			return (int)e[0].number;
		return -1;
	}
	return -1;
}

bool dw_location_changed_value(Dwarf_Attribute *attr, uint64_t entry,
			       uint64_t pc)
{
	Dwarf_Op *ops, *eops;
	size_t n, en;
	if (dwarf_getlocation_addr(attr, pc, &ops, &n, 1) <= 0 || n == 0)
		return false;
	/* the value passed itself */
	if (n == 2 && (ops[0].atom == DW_OP_entry_value ||
		       ops[0].atom == DW_OP_GNU_entry_value) &&
	    ops[1].atom == DW_OP_stack_value)
		return false;
	bool value = !dw_location_plain(attr, pc);
	for (size_t i = 0; i < n; i++)
		if (ops[i].atom == DW_OP_stack_value ||
		    ops[i].atom == DW_OP_implicit_value)
			value = true;
	if (!value)
		return false;
	if (dwarf_getlocation_addr(attr, entry, &eops, &en, 1) <= 0 ||
	    en != n)
		return true;
	for (size_t i = 0; i < n; i++)
		if (ops[i].atom != eops[i].atom ||
		    ops[i].number != eops[i].number ||
		    ops[i].number2 != eops[i].number2)
			return true;
	return false;
}

int dw_entry_reg(Dwarf_Attribute *attr, uint64_t entry)
{
	Dwarf_Op *ops;
	size_t n;
	int r;
	if (dwarf_getlocation_addr(attr, entry, &ops, &n, 1) <= 0 || n == 0)
		return -1;
	if ((r = single_reg(attr, entry)) >= 0)
		return r;
	if (ops[0].atom == DW_OP_entry_value ||
	    ops[0].atom == DW_OP_GNU_entry_value)
		return entry_value_reg(attr, ops, 1);
	return -1;
}

int dw_first_reg_after(Dwarf_Attribute *attr, uint64_t entry, uint64_t call,
		       uint64_t *start)
{
	Dwarf_Addr base, lo, hi, best = 0;
	Dwarf_Op *ops;
	size_t n;
	ptrdiff_t off = 0;
	int reg = -1;
	bool any = false;
	while ((off = dwarf_getlocations(attr, off, &base, &lo, &hi, &ops,
					 &n)) > 0) {
		if (lo > call || hi <= entry)
			continue;
		if (lo <= entry)
			return -1; /* a location at the entry: dw_entry_reg */
		if (any && lo >= best)
			continue;
		any = true;
		best = lo;
		reg = -1;
		if (n == 1 && ops[0].atom >= DW_OP_reg0 &&
		    ops[0].atom <= DW_OP_reg31)
			reg = ops[0].atom - DW_OP_reg0;
		else if (n == 1 && ops[0].atom == DW_OP_regx &&
			 ops[0].number < DW_MAX_REG)
			reg = (int)ops[0].number;
	}
	*start = best;
	return reg;
}

int dw_location_reg(Dwarf_Attribute *attr, uint64_t pc)
{
	return single_reg(attr, pc);
}

int dw_entry_value_reg(Dwarf_Attribute *attr, uint64_t pc)
{
	Dwarf_Op *ops;
	size_t n;
	if (dwarf_getlocation_addr(attr, pc, &ops, &n, 1) <= 0 || n == 0)
		return -1;
	return entry_value_reg(attr, ops, n);
}

bool dw_location_address(struct frame_state *f, Dwarf_Attribute *attr,
			 uint64_t *addr)
{
	Dwarf_Op *ops;
	size_t n;
	struct loc l;
	const char *why;
	if (dwarf_getlocation_addr(attr, f->rel_pc - 1, &ops, &n, 1) <= 0 ||
	    n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (ops[i].atom == DW_OP_piece || ops[i].atom == DW_OP_bit_piece)
			return false;
	if (eval_ops(f, attr, ops, n, &l, &why, 0) < 0 || l.kind != LOC_MEMORY)
		return false;
	*addr = l.v;
	return true;
}

/* ---------------------------------------------------------------------------
 * Call sites of inlined copies
 * ------------------------------------------------------------------------ */

struct inlined_search {
	Dwarf_Off origin; /* the callee's abstract DIE */
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
			if (dwarf_dieoffset(&root) == s->origin) {
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

bool dw_inlined_call_site(struct trace *t, uint64_t host, uint64_t callee,
			  uint64_t ticks, const char **file, unsigned *line)
{
	const struct resolve_info *hi = resolve_function(t->resolver, host,
							 ticks);
	const struct resolve_info *ci = resolve_function(t->resolver, callee,
							 ticks);
	struct dw_module *m;
	Dwarf_Die host_die, callee_die, root, cu;
	struct inlined_search s = {0};
	size_t n_files;

	if (!hi->module || !ci->module || strcmp(hi->module, ci->module) ||
	    !(m = dw_module(hi->module)) || !m->dw ||
	    dw_function_at(m, hi->module_offset, &host_die) < 0 ||
	    dw_function_at(m, ci->module_offset, &callee_die) < 0)
		return false;
	dw_root(&callee_die, &root);
	s.origin = dwarf_dieoffset(&root);
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
