/* locwalk.c -- the one walker of DWARF location expressions.
 *
 * Two readers walk the same expressions: the symbolizer over a call's
 * captured registers and stack (frame.c), and the plan maker before the
 * program runs (plan.c), to know which registers and stack bytes the
 * recorder must save for the first to succeed.  The walker is written
 * once, over values that are either numbers or symbols (CFA + k, SP + k,
 * data known only at run time); what a register, a memory read, the CFA
 * or an entry value is, the reader says through its lw_machine.  The plan
 * then follows exactly what the symbolizer will do, by construction.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dwarf.h>
#include <string.h>

#include "values/dwinfo.h"

#define STACK_MAX 64

static struct lw_val num(uint64_t v)
{
	return (struct lw_val){LW_NUM, v};
}

/* An address: 32 bits on i386, whatever the arithmetic left above. */
static struct lw_val address(const struct lw_frame *w, struct lw_val a)
{
	if (a.k == LW_NUM && w->ptr_size == 4)
		a.v &= 0xffffffffu;
	return a;
}

/* x + y and x - y keep a symbol's base when the other side is a number;
 * anything else on symbols is data. */
static struct lw_val add(struct lw_val x, struct lw_val y, bool minus)
{
	if (y.k == LW_NUM)
		return (struct lw_val){x.k, minus ? x.v - y.v : x.v + y.v};
	if (x.k == LW_NUM && !minus)
		return (struct lw_val){y.k, x.v + y.v};
	return (struct lw_val){LW_DATA, 0};
}

int lw_eval(struct lw_frame *w, Dwarf_Attribute *attr, const Dwarf_Op *ops,
	    size_t n, struct lw_loc *out, const char **why, int depth)
{
	struct lw_val st[STACK_MAX], x, y;
	size_t sp = 0;
	bool value = false;

#define NEED(k)                                                              \
	do {                                                                 \
		if (sp < (k))                                                \
			goto bad;                                            \
	} while (0)
#define PUSH(e)                                                              \
	do {                                                                 \
		struct lw_val pushed_ = (e);                                 \
		if (sp == STACK_MAX)                                         \
			goto bad;                                            \
		st[sp++] = pushed_;                                          \
	} while (0)

	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < n; i++) {
		const Dwarf_Op *op = &ops[i];
		uint8_t a = op->atom;

		if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			PUSH(num((uint64_t)(a - DW_OP_lit0)));
			continue;
		}
		if ((a >= DW_OP_reg0 && a <= DW_OP_reg31) || a == DW_OP_regx) {
			if (n != 1)
				goto unsupported;
			out->kind = LW_REGISTER;
			out->reg = a == DW_OP_regx ? op->number
						   : (uint64_t)(a - DW_OP_reg0);
			return 0;
		}
		if ((a >= DW_OP_breg0 && a <= DW_OP_breg31) || a == DW_OP_bregx) {
			uint64_t reg = a == DW_OP_bregx
					       ? op->number
					       : (uint64_t)(a - DW_OP_breg0);
			uint64_t off = a == DW_OP_bregx ? op->number2
							: op->number;
			if (w->mach->reg(w, reg, &x, why) < 0)
				return -1;
			PUSH(add(x, num(off), false));
			continue;
		}
		switch (a) {
		case DW_OP_addr:
			/* a link-time address: where the module is loaded
			 * is known only from a trace */
			x = w->symbolic ? (struct lw_val){LW_DATA, 0}
					: num(op->number + w->bias);
			PUSH(x);
			break;
		case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u:
		case DW_OP_const8u: case DW_OP_constu:
		case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s:
		case DW_OP_const8s: case DW_OP_consts:
			PUSH(num(op->number));
			break;
		case DW_OP_fbreg:
			if (depth > 2 || lw_frame_base(w, &x, why, depth + 1) < 0)
				return -1;
			PUSH(add(x, num(op->number), false));
			break;
		case DW_OP_call_frame_cfa:
			if (w->mach->cfa(w, &x, why) < 0)
				return -1;
			PUSH(x);
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
		case DW_OP_plus_uconst:
			NEED(1);
			st[sp - 1].v += op->number;
			break;
		case DW_OP_plus:
		case DW_OP_minus:
			NEED(2);
			y = st[--sp];
			st[sp - 1] = add(st[sp - 1], y, a == DW_OP_minus);
			break;
		case DW_OP_neg: case DW_OP_not: case DW_OP_abs:
			NEED(1);
			x = st[sp - 1];
			if (x.k != LW_NUM)
				x = (struct lw_val){LW_DATA, 0};
			else if (a == DW_OP_neg ||
				 (a == DW_OP_abs && (int64_t)x.v < 0))
				x.v = -x.v;
			else if (a == DW_OP_not)
				x.v = ~x.v;
			st[sp - 1] = x;
			break;
		case DW_OP_mul: case DW_OP_and: case DW_OP_or: case DW_OP_xor:
		case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
		case DW_OP_div: case DW_OP_mod:
			NEED(2);
			y = st[--sp];
			x = st[sp - 1];
			if (x.k != LW_NUM || y.k != LW_NUM) {
				st[sp - 1] = (struct lw_val){LW_DATA, 0};
				break;
			}
			switch (a) {
			case DW_OP_mul: x.v *= y.v; break;
			case DW_OP_and: x.v &= y.v; break;
			case DW_OP_or: x.v |= y.v; break;
			case DW_OP_xor: x.v ^= y.v; break;
			case DW_OP_shl: x.v = y.v < 64 ? x.v << y.v : 0; break;
			case DW_OP_shr: x.v = y.v < 64 ? x.v >> y.v : 0; break;
			case DW_OP_shra:
				x.v = (uint64_t)((int64_t)x.v >>
						 (y.v < 63 ? y.v : 63));
				break;
			case DW_OP_div:
				if (y.v == 0)
					goto bad;
				x.v = (uint64_t)((int64_t)x.v / (int64_t)y.v);
				break;
			case DW_OP_mod:
				if (y.v == 0)
					goto bad;
				x.v %= y.v;
				break;
			}
			st[sp - 1] = x;
			break;
		case DW_OP_deref:
			NEED(1);
			if (w->mach->mem(w, st[sp - 1], (size_t)w->ptr_size, &x,
					 why) < 0)
				return -1;
			st[sp - 1] = address(w, x);
			break;
		case DW_OP_deref_size:
			NEED(1);
			if (op->number == 0 || op->number > 8 ||
			    w->mach->mem(w, st[sp - 1], op->number, &x, why) < 0)
				return -1;
			if (x.k == LW_NUM && op->number < 8)
				x.v &= (1ull << (8 * op->number)) - 1;
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
			out->kind = LW_IMPLICIT;
			out->data = blk.data;
			out->data_len = blk.length;
			return 0;
		}
		case DW_OP_entry_value:
		case DW_OP_GNU_entry_value:
			if (w->mach->entry_value(w, attr, op, &x, why, depth) < 0)
				return -1;
			PUSH(x);
			break;
		case DW_OP_nop:
			break;
		default:
			w->unknown_op = true;
			goto unsupported;
		}
	}
	NEED(1);
	out->kind = value ? LW_VALUE : LW_MEMORY;
	out->v = value ? st[sp - 1] : address(w, st[sp - 1]);
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

int lw_eval_value(struct lw_frame *w, Dwarf_Attribute *attr,
		  const Dwarf_Op *ops, size_t n, struct lw_val *v,
		  const char **why, int depth)
{
	struct lw_loc l;
	if (lw_eval(w, attr, ops, n, &l, why, depth) < 0)
		return -1;
	switch (l.kind) {
	case LW_MEMORY:
	case LW_VALUE:
		*v = l.v;
		return 0;
	case LW_REGISTER:
		return w->mach->reg(w, l.reg, v, why);
	default:
		*why = "unsupported location";
		return -1;
	}
}

int lw_frame_base(struct lw_frame *w, struct lw_val *v, const char **why,
		  int depth)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	if (!w->have_subprogram ||
	    !dwarf_attr_integrate(&w->subprogram, DW_AT_frame_base, &a) ||
	    dwarf_getlocation_addr(&a, w->ra - 1, &ops, &n, 1) <= 0) {
		*why = "no frame base";
		return -1;
	}
	if (w->machine == EM_386 && n == 1 && ops[0].atom == DW_OP_reg0 + 4) {
		/* clang on i386: the frame base is esp as the function body
		 * keeps it, but the hook's arguments were pushed on top of it
		 * (i386loc.c says by how much). */
		int64_t adjust;
		struct lw_val sp;
		const char *ignored;
		if (w->is_caller || w->mach->reg(w, 4, &sp, &ignored) < 0 ||
		    !dw_i386_esp_adjust(w->m, &w->subprogram, w->ra,
					&adjust)) {
			*why = "no frame base";
			return -1;
		}
		*v = address(w, add(sp, num((uint64_t)adjust), false));
		return 0;
	}
	if (lw_eval_value(w, &a, ops, n, v, why, depth) < 0)
		return -1;
	if (w->machine == EM_X86_64 && w->is_caller && n == 1 &&
	    ops[0].atom == DW_OP_reg0 + 7) {
		/* clang on x86-64: the caller's frame base is rsp as its
		 * body keeps it, but the stack arguments of this call were
		 * pushed on top of it (`add $n, %rsp' right after the call
		 * removes them).  Its call-site values are then read from
		 * the wrong slots, moved by n or by part of it (the value
		 * fuzzer found both): not used. */
		uint8_t c[7];
		int32_t imm = 0;
		if (dw_read_code(w->m, w->ra, c, 4) && c[0] == 0x48 &&
		    c[1] == 0x83 && c[2] == 0xc4)
			imm = (int8_t)c[3];
		else if (dw_read_code(w->m, w->ra, c, 7) && c[0] == 0x48 &&
			 c[1] == 0x81 && c[2] == 0xc4)
			memcpy(&imm, c + 3, 4);
		if (imm != 0) {
			*why = "the caller's stack pointer moves around the call";
			return -1;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------------------
 * A location piece by piece
 * ------------------------------------------------------------------------ */

int lw_pieces_begin(struct lw_pieces *it, Dwarf_Attribute *attr,
		    uint64_t pc, size_t size)
{
	Dwarf_Op *ops;
	size_t n;
	memset(it, 0, sizeof *it);
	if (dwarf_getlocation_addr(attr, pc, &ops, &n, 1) <= 0 || n == 0)
		return -1;
	it->ops = ops;
	it->n = n;
	it->size = size;
	return 0;
}

int lw_pieces_next(struct lw_pieces *it, const Dwarf_Op **ops, size_t *n,
		   size_t *off, size_t *len, const char **why)
{
	while (it->i <= it->n) {
		size_t i = it->i++;
		if (i < it->n && it->ops[i].atom != DW_OP_piece)
			continue;
		size_t l = i < it->n ? it->ops[i].number : it->size - it->done;
		if (i < it->n)
			it->pieces = true;
		else if (it->pieces)
			return 0; /* nothing after the last piece */
		if (l > it->size - it->done) {
			*why = "bad location expression";
			return -1;
		}
		if (i == it->start) {
			*why = "optimized out"; /* an empty piece */
			return -1;
		}
		*ops = it->ops + it->start;
		*n = i - it->start;
		*off = it->done;
		*len = l;
		it->start = i + 1;
		it->done += l;
		return 1;
	}
	return 0;
}

int lw_eval_piece(struct lw_frame *w, Dwarf_Attribute *attr,
		  const Dwarf_Op *ops, size_t n, size_t len, struct lw_loc *out,
		  const char **why)
{
	/* A piece that is a register's entry value alone needs only its
	 * low len bytes; any other use of one, all of them. */
	bool entry_value_alone = n == 2 &&
				 (ops[0].atom == DW_OP_entry_value ||
				  ops[0].atom == DW_OP_GNU_entry_value) &&
				 ops[1].atom == DW_OP_stack_value;
	w->entry_bytes = entry_value_alone ? len : 0;
	int r = lw_eval(w, attr, ops, n, out, why, 0);
	w->entry_bytes = 0;
	if (r < 0)
		return -1;
	if (out->kind == LW_MEMORY && n == 1 && ops[0].atom == DW_OP_fbreg &&
	    (int64_t)ops[0].number < 0 && !w->is_caller &&
	    w->have_subprogram && dw_is_clang(&w->subprogram)) {
		/* clang -O0: the home is written only after the hook; before
		 * it, the value is in its spill slot (prologue.c). */
		int64_t spill, home = (int64_t)ops[0].number;
		if (!dw_clang_spill_at(w->m, w->machine, w->ra, home, len,
				       &spill)) {
			*why = "not yet stored";
			return -2;
		}
		out->v.v += (uint64_t)(spill - home);
	}
	return 0;
}
