/* frame.c -- a call's captured machine state, and locations read from it.
 *
 * The state at the entry hook is the instrumented function's: its
 * callee-saved registers, its stack pointer, and stack memory around its
 * frame, as they were at the hook's call instruction.  Its CFA comes from
 * its CFI there.  This file is the walker's (locwalk.c) machine over those
 * real bytes; entryval.c adds the caller's state for DW_OP_entry_value.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "values/dwinfo.h"
#include "trace/trace.h"
#include "util/util.h"

/* ---------------------------------------------------------------------------
 * What a decoding read of the captured state (recipe.c)
 *
 * Every read of a captured register's, the stack's or the CFA's value
 * goes through frame_read() or one of the two sinks below.  A sink copies
 * a register's bytes (or a constant) into the buffer a parameter's value
 * is built in, and is logged; any other read is only counted.  A decoding
 * that counted no read took every decision from the DWARF, the code and
 * which registers were captured, never from their values: its values are
 * its log replayed with another call's registers (recipe.c).
 * ------------------------------------------------------------------------ */

struct frame_taint frame_taint;

void frame_read(void)
{
	frame_taint.reads++;
}

void frame_sink_start(uint8_t *buf, size_t len)
{
	frame_taint.buf = buf;
	frame_taint.buf_len = len;
	frame_taint.n = 0;
}

static void sink_log(uint8_t *dst, int reg, const void *src, size_t len)
{
	struct frame_taint *ft = &frame_taint;
	if (!ft->buf || dst < ft->buf || len > FRAME_SINK_BYTES ||
	    (size_t)(dst - ft->buf) + len > ft->buf_len ||
	    ft->n == FRAME_SINK_MAX) {
		ft->reads++; /* not into the value: a read like any other */
		return;
	}
	struct frame_sink *s = &ft->log[ft->n++];
	s->off = (uint16_t)(dst - ft->buf);
	s->len = (uint8_t)len;
	s->reg = (int16_t)reg;
	if (reg < 0)
		memcpy(s->bytes, src, len);
}

void frame_sink_reg(uint8_t *dst, const struct frame_state *f, int reg,
		    size_t len)
{
	memcpy(dst, &f->reg[reg], len);
	if (f->is_caller) /* the caller's registers: unwound from memory */
		frame_taint.reads++;
	else
		sink_log(dst, reg, NULL, len);
}

void frame_sink_const(uint8_t *dst, const void *src, size_t len)
{
	memcpy(dst, src, len);
	sink_log(dst, -1, src, len);
}

/* ---------------------------------------------------------------------------
 * The walker's machine: captured registers, stack and CFA
 * ------------------------------------------------------------------------ */

static int reg_value(struct frame_state *f, uint64_t reg, uint64_t *v,
		     const char **why)
{
	if (reg < DW_MAX_REG && f->have[reg]) {
		frame_read();
		*v = f->reg[reg];
		return 0;
	}
	*why = "not captured (a call-clobbered register)";
	return -1;
}

static int read_mem(struct frame_state *f, uint64_t addr, size_t size,
		    uint64_t *v, const char **why)
{
	uint8_t buf[8] = {0};
	frame_read();
	if (size > 8 || !capture_read(f->mem, addr, buf, size)) {
		*why = "outside the captured stack";
		return -1;
	}
	memcpy(v, buf, 8);
	return 0;
}

static int m_reg(struct lw_frame *w, uint64_t reg, struct lw_val *out,
		 const char **why)
{
	out->k = LW_NUM;
	return reg_value(w->ctx, reg, &out->v, why);
}

static int m_mem(struct lw_frame *w, struct lw_val addr, size_t size,
		 struct lw_val *out, const char **why)
{
	out->k = LW_NUM;
	return read_mem(w->ctx, addr.v, size, &out->v, why);
}

static int m_cfa(struct lw_frame *w, struct lw_val *out, const char **why)
{
	struct frame_state *f = w->ctx;
	frame_read();
	if (!f->have_cfa) {
		*why = "no CFI for the frame";
		return -1;
	}
	*out = (struct lw_val){LW_NUM, f->cfa};
	return 0;
}

static int m_entry_value(struct lw_frame *w, Dwarf_Attribute *attr,
			 const Dwarf_Op *op, struct lw_val *out,
			 const char **why, int depth)
{
	out->k = LW_NUM;
	frame_read();
	return entryval_eval(w->ctx, attr, op, w->entry_bytes, &out->v, why,
			     depth);
}

static const struct lw_machine captured = {m_reg, m_mem, m_cfa,
					    m_entry_value};

void frame_walker(struct frame_state *f, struct lw_frame *w)
{
	memset(w, 0, sizeof *w);
	w->mach = &captured;
	w->ctx = f;
	w->m = f->m;
	w->machine = f->machine;
	w->ptr_size = f->ptr_size;
	w->bias = f->bias;
	w->ra = f->rel_pc;
	w->subprogram = f->subprogram;
	w->have_subprogram = f->have_subprogram;
	w->is_caller = f->is_caller;
}

int frame_eval(struct frame_state *f, Dwarf_Attribute *attr,
	       const Dwarf_Op *ops, size_t n, struct lw_loc *out,
	       const char **why, int depth)
{
	struct lw_frame w;
	frame_walker(f, &w);
	return lw_eval(&w, attr, ops, n, out, why, depth);
}

int frame_eval_value(struct frame_state *f, Dwarf_Attribute *attr,
		     const Dwarf_Op *ops, size_t n, uint64_t *v,
		     const char **why, int depth)
{
	struct lw_frame w;
	struct lw_val x;
	frame_walker(f, &w);
	if (lw_eval_value(&w, attr, ops, n, &x, why, depth) < 0)
		return -1;
	*v = x.v;
	return 0;
}

/* ---------------------------------------------------------------------------
 * Registers and CFA of a frame, from CFI
 * ------------------------------------------------------------------------ */

int frame_cfa(struct frame_state *f, uint64_t lookup_pc)
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
		if (frame_eval_value(f, NULL, ops, n, &v, &why, 3) == 0) {
			f->cfa = v;
			f->have_cfa = true;
			ok = 0;
		}
	}
	free(fr);
	return ok;
}

/* The CFA rule at pc as (register, offset); false if it is anything else. */
bool frame_cfa_rule(struct dw_module *m, uint64_t pc, int *reg, int64_t *off)
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
	f->sp_reg = machine == EM_386 ? CTRACE_DW_SP_I386 : CTRACE_DW_SP_X86_64;
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

int frame_unwind_to_caller(struct frame_state *f, struct frame_state *c)
{
	Dwarf_Frame *fr = NULL;
	const int *saved = f->machine == EM_386 ? saved_i386 : saved_x86_64;
	size_t nsaved = f->machine == EM_386
				? sizeof saved_i386 / sizeof *saved_i386
				: sizeof saved_x86_64 / sizeof *saved_x86_64;
	const char *why;

	frame_read();
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
		struct lw_loc l;
		if (frame_eval(f, NULL, ops, n, &l, &why, 3) < 0)
			continue;
		uint64_t v;
		if (l.kind == LW_VALUE) {
			c->reg[r] = l.v.v;
			c->have[r] = true;
		} else if (l.kind == LW_MEMORY &&
			   read_mem(f, l.v.v, (size_t)f->ptr_size, &v,
				    &why) == 0) {
			if (f->ptr_size == 4)
				v &= 0xffffffffu;
			c->reg[r] = v;
			c->have[r] = true;
		} else if (l.kind == LW_REGISTER && l.reg < DW_MAX_REG &&
			   f->have[l.reg]) {
			c->reg[r] = f->reg[l.reg];
			c->have[r] = true;
		}
	}
	free(fr);
	c->have[f->sp_reg] = true;
	c->reg[f->sp_reg] = f->cfa;
	return 0;
}

/* ---------------------------------------------------------------------------
 * Locations to bytes
 * ------------------------------------------------------------------------ */

static int fetch(struct frame_state *f, const struct lw_loc *l, uint8_t *out,
		 size_t size, const char **why)
{
	uint64_t v;
	switch (l->kind) {
	case LW_MEMORY:
		frame_read();
		if (!capture_read(f->mem, l->v.v, out, size)) {
			*why = "outside the captured stack";
			return -1;
		}
		return 0;
	case LW_REGISTER:
		if (size > 8 || l->reg >= DW_MAX_REG || !f->have[l->reg]) {
			*why = "not captured (a call-clobbered register)";
			return -1;
		}
		(void)v;
		frame_sink_reg(out, f, (int)l->reg, size);
		return 0;
	case LW_VALUE:
		/* a constant, or computed from reads counted as they were
		 * made */
		if (size > VALUES_MAX_BYTES) {
			frame_read();
			memset(out, 0, size);
			memcpy(out, &l->v.v, 8);
			return 0;
		}
		if (size > 8) {
			uint8_t wide[VALUES_MAX_BYTES] = {0};
			memcpy(wide, &l->v.v, 8);
			frame_sink_const(out, wide, size);
			return 0;
		}
		frame_sink_const(out, &l->v.v, size);
		return 0;
	case LW_IMPLICIT:
		if (l->data_len < size) {
			*why = "unsupported location";
			return -1;
		}
		frame_sink_const(out, l->data, size);
		return 0;
	}
	return -1;
}

int dw_eval_location(struct frame_state *f, Dwarf_Attribute *attr,
		     uint8_t *out, size_t size, const char **why)
{
	struct lw_pieces it;
	struct lw_frame w;
	const Dwarf_Op *ops;
	size_t n, off, len;
	int r;
	*why = "optimized out";
	/* At the call instruction: the captured registers are the machine
	 * state there.  From the return address on, the list may already
	 * describe the code after the call (a parameter counted down, its
	 * register reused). */
	if (lw_pieces_begin(&it, attr, f->rel_pc - 1, size) < 0)
		return -1;
	if (f->machine == EM_386 && !f->is_caller && it.n > 2 &&
	    !i386loc_pieces_kept(f, attr, it.ops, it.n)) {
		*why = "a register of its pair may be overwritten before the call";
		return -1;
	}
	/* Pieces: each part of the value from its own place. */
	frame_walker(f, &w);
	while ((r = lw_pieces_next(&it, &ops, &n, &off, &len, why)) > 0) {
		struct lw_loc l;
		if (lw_eval_piece(&w, attr, ops, n, len, &l, why) < 0 ||
		    fetch(f, &l, out + off, len, why) < 0)
			return -1;
	}
	if (r < 0)
		return -1;
	if (it.done == size)
		return 0;
	*why = "optimized out";
	return -1;
}

bool dw_location_address(struct frame_state *f, Dwarf_Attribute *attr,
			 uint64_t *addr)
{
	Dwarf_Op *ops;
	size_t n;
	struct lw_loc l;
	const char *why;
	if (dwarf_getlocation_addr(attr, f->rel_pc - 1, &ops, &n, 1) <= 0 ||
	    n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (ops[i].atom == DW_OP_piece || ops[i].atom == DW_OP_bit_piece)
			return false;
	if (frame_eval(f, attr, ops, n, &l, &why, 0) < 0 ||
	    l.kind != LW_MEMORY)
		return false;
	*addr = l.v.v;
	return true;
}

bool dw_location_overlaps(struct frame_state *f, Dwarf_Attribute *attr,
			  size_t size, uint64_t addr, size_t len)
{
	struct lw_pieces it;
	const Dwarf_Op *ops;
	size_t n, off, plen;
	const char *why;
	if (lw_pieces_begin(&it, attr, f->rel_pc - 1, size) < 0)
		return false;
	while (lw_pieces_next(&it, &ops, &n, &off, &plen, &why) > 0) {
		struct lw_loc l;
		if (frame_eval(f, attr, ops, n, &l, &why, 0) == 0 &&
		    l.kind == LW_MEMORY && l.v.v < addr + len &&
		    addr < l.v.v + plen)
			return true;
	}
	return false;
}
