/* i386loc.c -- i386: the frame base and the stack parameters around the
 * entry hook's call, where the DWARF does not follow esp.  The code is
 * read with the one i386 decoder (i386dec.c); where esp is, with the CFI.
 *
 * clang on i386 ends a stack parameter's location where the code starts
 * pushing the hook's arguments (it does not follow esp there).  The value
 * is still in its slot above the CFA if nothing between the function's
 * entry and the hook's call can have written there: the prologue is read
 * and accepted only when every instruction is one that writes no memory
 * but below the CFA.  gcc keeps a 64-bit value in a register pair that the
 * code before the call may have written, and may name as a struct's
 * pieces registers that do not hold it; when such a location is not
 * used, the slot the list names at the entry serves the same way.  A
 * slot of the function's own frame, below its return address, holds at
 * the hook's call only what the code before the call stored there; a
 * slot of two words of which that code stores only one holds in the
 * other what an earlier use of the slot left.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dwarf.h>
#include <stdint.h>

#include "values/dwinfo.h"

/* The straight code [from, to) of a function, read for decoding one
 * instruction at a time (walk_next); each reader bounds how far it looks
 * (`max' bytes). */
struct i386_walk {
	uint8_t code[2048];
	const uint8_t *p, *end;
	uint64_t from;
};

static bool walk_start(struct i386_walk *w, struct dw_module *m,
		       uint64_t from, uint64_t to, size_t max)
{
	if (to < from || to - from > max || to - from > sizeof w->code ||
	    (to > from && !dw_read_code(m, from, w->code, to - from)))
		return false;
	w->p = w->code;
	w->end = w->code + (to - from);
	w->from = from;
	return true;
}

/* The next instruction, decoded into *in, its first byte at *at: 1; 0 at
 * the end of the code; -1 for one the decoder does not know. */
static int walk_next(struct i386_walk *w, struct dw_module *m,
		     struct i386_insn *in, const uint8_t **at)
{
	if (w->p >= w->end)
		return 0;
	size_t n = i386dec_step(m, w->from + (uint64_t)(w->p - w->code), w->p,
				w->end, in);
	if (n == 0)
		return -1;
	*at = w->p;
	w->p += n;
	return 1;
}

/* The lines of the compilation unit of `die' and, in *first, the index
 * of the first row at or after `addr' (the rows are sorted by address):
 * false if they cannot be read. */
static bool lines_from(Dwarf_Die *die, uint64_t addr, Dwarf_Lines **lines,
		       size_t *n, size_t *first)
{
	Dwarf_Die cu;
	Dwarf_Addr a;
	size_t lo = 0, hi;
	if (!dwarf_diecu(die, &cu, NULL, NULL) ||
	    dwarf_getsrclines(&cu, lines, n) != 0)
		return false;
	for (hi = *n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		if (dwarf_lineaddr(dwarf_onesrcline(*lines, mid), &a) != 0)
			return false;
		if (a < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	return true;
}

/* The first instruction of the function entered at `entry' that the line
 * table marks as the end of its prologue, if it comes before `call'. */
static bool prologue_end(Dwarf_Die *sub, uint64_t entry, uint64_t call,
			 uint64_t *end)
{
	Dwarf_Lines *lines;
	size_t n, lo;
	Dwarf_Addr a;
	if (!lines_from(sub, entry, &lines, &n, &lo))
		return false;
	for (; lo < n; lo++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, lo);
		bool flag;
		if (dwarf_lineaddr(l, &a) != 0 || a >= call)
			return false;
		if (dwarf_lineprologueend(l, &flag) == 0 && flag) {
			*end = a;
			return true;
		}
	}
	return false;
}

/* clang on i386 gives esp as the frame base: esp as the function body
 * keeps it between calls, once the prologue has pushed the registers it
 * saves and made its frame.  At the hook's call the hook's arguments and
 * the padding that aligns them lie on top of it, and the code after the
 * call may remove only part of them and leave the rest to the next call
 * (seen: `add $4' after the hook's call, a push, a call to strlen, then
 * `add $16').  The CFI says where esp is relative to the CFA at every
 * instruction: at the hook's call, and where the line table says the
 * prologue ends (clang marks there the first instruction after the ones
 * that make the frame).  Either unknown, or not esp-based: unknown. */
bool dw_i386_esp_adjust(struct dw_module *m, Dwarf_Die *sub, uint64_t ra,
			int64_t *adjust)
{
	Dwarf_Addr entry;
	uint64_t body;
	int reg;
	int64_t at_call, in_body;
	if (dwarf_entrypc(sub, &entry) != 0 ||
	    !prologue_end(sub, entry, ra - 5, &body) ||
	    !frame_cfa_rule(m, ra - 1, &reg, &at_call) || reg != 4 ||
	    !frame_cfa_rule(m, body, &reg, &in_body) || reg != 4 ||
	    at_call < in_body)
		return false;
	*adjust = at_call - in_body;
	return true;
}

/* Whether the code [lo, call) writes no memory at or above the CFA. */
static bool prologue_harmless(struct dw_module *m, uint64_t lo, uint64_t call)
{
	struct i386_walk w;
	if (call <= lo || !walk_start(&w, m, lo, call, 128))
		return false;
	int64_t esp = -4; /* relative to the CFA */
	struct i386_insn in;
	const uint8_t *at;
	int got;
	while ((got = walk_next(&w, m, &in, &at)) > 0) {
		/* esp followed exactly; a store only into the frame, below
		 * the CFA, addressed from esp */
		if (in.call || !in.esp_known || in.store == I386_STORE_OTHER ||
		    (in.store == I386_STORE_ESP &&
		     esp + in.store_disp + (int64_t)in.store_len > 0))
			return false;
		esp += in.esp_delta;
	}
	return got == 0;
}

/* A call other than to a PIC thunk writes the call-clobbered eax, ecx and
 * edx; a thunk `mov (%esp), %reg; ret` writes its register. */
int dw_i386_written(struct dw_module *m, uint64_t from, uint64_t call)
{
	struct i386_walk w;
	if (!walk_start(&w, m, from, call, 128))
		return -1;
	int written = 0, got;
	struct i386_insn in;
	const uint8_t *at;
	while ((got = walk_next(&w, m, &in, &at)) > 0)
		written |= (int)in.writes;
	return got == 0 ? written : -1;
}

/* Whether two of the registers `regs` (bit: number) hold at the call one
 * value, the code from the start of the function to the call having
 * copied one into the other (a register-to-register mov, or a push of
 * one and a pop into the other, followed through later copies).  Read in
 * one pass over the straight code before the hook; code that cannot be
 * read to the call (a jump, an instruction not known) proves nothing and
 * answers false.  A call keeps the registers the ABI says it saves, and
 * the words pushed before it are taken as still the ones popped after
 * it: a copy only ever makes a pair not used, never a value shown. */
static bool i386_regs_copied(struct frame_state *f, uint64_t call, int regs)
{
	Dwarf_Addr base, lo = 0, hi;
	ptrdiff_t it = 0;
	struct i386_walk w;
	if (!f->have_subprogram)
		return false;
	while ((it = dwarf_ranges(&f->subprogram, it, &base, &lo, &hi)) > 0)
		if (call >= lo && call < hi)
			break;
	if (it <= 0 || !walk_start(&w, f->m, lo, call, 2048))
		return false;
	/* Each register's value, named by the write that made it: equal
	 * names, one value. */
	unsigned name[8], next = 9;
	for (unsigned r = 0; r < 8; r++)
		name[r] = r + 1;
	/* The words pushed, by depth below esp at the start (slot[k]: the
	 * word at start - 4 * (k + 1)), 0 for one not known. */
	unsigned slot[64] = {0};
	int64_t esp = 0;
	struct i386_insn in;
	const uint8_t *p;
	int got;
	while ((got = walk_next(&w, f->m, &in, &p)) > 0) {
		if (!in.esp_known)
			return false;
		int64_t k = -esp / 4 - 1; /* the slot at esp */
		bool aligned = esp % 4 == 0;
		unsigned popped = 0;     /* pop %reg: the name of the word */
		if (*p >= 0x58 && *p <= 0x5f && aligned && k >= 0 && k < 64)
			popped = slot[k];
		if (in.store == I386_STORE_ESP)
			for (int64_t a = esp + in.store_disp;
			     a < esp + in.store_disp + (int64_t)in.store_len;
			     a++)
				if (a < 0 && (-a - 1) / 4 < 64)
					slot[(-a - 1) / 4] = 0;
		if (*p >= 0x50 && *p <= 0x57 && aligned && k + 1 >= 0 &&
		    k + 1 < 64)
			slot[k + 1] = name[*p & 7]; /* push %reg */
		for (unsigned r = 0; r < 8; r++) {
			if (!(in.writes & 1u << r))
				continue;
			if (in.reg_copy && r != I386_ESP)
				name[r] = name[in.copy_src];
			else if (popped && r == (unsigned)(*p & 7))
				name[r] = popped;
			else
				name[r] = next++;
		}
		esp += in.esp_delta;
	}
	if (got < 0)
		return false;
	for (unsigned r = 0; r < 8; r++)
		for (unsigned s = r + 1; s < 8; s++)
			if ((regs >> r & 1) && (regs >> s & 1) &&
			    name[r] == name[s])
				return true;
	return false;
}

/* Whether the code [from, to), in which the registers `regs` (bit:
 * number) took a value that is still theirs at `to', set them together:
 * from the last write of the register written first to the last write
 * of each other one, nothing used that other register's value (a copy,
 * a store, an operation, a call that may take it as an argument), no
 * call ran, and the register got its value once (one write that does not
 * read it, then only writes that change it in place: `mov %eax, %edi;
 * sar $31, %edi').  Code not understood: false. */
static bool i386_regs_set_together(struct dw_module *m, uint64_t from,
				   uint64_t to, int regs)
{
	enum { MAX_INSNS = 512 };
	struct { unsigned writes, reads; bool call; } ins[MAX_INSNS];
	size_t count = 0;
	struct i386_walk w;
	if (!walk_start(&w, m, from, to, 2048))
		return false;
	struct i386_insn in;
	const uint8_t *at;
	int got;
	while ((got = walk_next(&w, m, &in, &at)) > 0) {
		if (count == MAX_INSNS)
			return false;
		ins[count].writes = in.writes;
		ins[count].reads = in.reads;
		ins[count++].call = in.call;
	}
	if (got < 0)
		return false;
	/* each register's last write (-1: none in the code) */
	long last[8], first = (long)count;
	for (unsigned r = 0; r < 8; r++) {
		if (!(regs >> r & 1))
			continue;
		last[r] = -1;
		for (size_t i = 0; i < count; i++)
			if (ins[i].writes & 1u << r)
				last[r] = (long)i;
		if (last[r] < first)
			first = last[r];
	}
	for (unsigned r = 0; r < 8; r++) {
		if (!(regs >> r & 1))
			continue;
		unsigned fresh = 0;
		for (long i = first + 1; i <= last[r]; i++) {
			bool w = ins[i].writes & 1u << r,
			     rd = ins[i].reads & 1u << r;
			if (i < last[r] && (ins[i].call || (rd && !w)))
				return false;
			if (w && !rd && ++fresh > 1)
				return false;
		}
	}
	return true;
}

/* Whether, the location's range starting where the scope holding the
 * call does (dw_location_bound_from: the value was bound before the
 * scope's code ran), the scope's own code before that start in the block
 * of code holding the call (an inlined copy's range before its entry)
 * may write one of the registers `regs`, or the code of that block
 * before the start may not have set them together (a register of the
 * pair given a new value after the other one was set).
 * Code not understood may. */
static bool written_before_start(struct frame_state *f, uint64_t start,
				 uint64_t call, int regs)
{
	Dwarf_Die scope, sub;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	if (dw_scope_at(f->m, call, &scope, &sub) < 0)
		return true;
	uint64_t from = dw_location_bound_from(&scope, &sub, start, call);
	if (from >= start)
		return false;
	if (!i386_regs_set_together(f->m, from, start, regs))
		return true;
	while ((off = dwarf_ranges(&scope, off, &base, &lo, &hi)) > 0) {
		uint64_t a = lo > from ? lo : from, b = hi < start ? hi : start;
		int w = a < b ? dw_i386_written(f->m, a, b) : 0;
		if (w < 0 || (w & regs))
			return true;
	}
	return off < 0;
}

/* gcc on i386 keeps a 64-bit value in a register pair and may name the
 * pair after an instruction wrote one of its registers (seen: the high
 * half in edi through `lea this_fn, %edi' that sets up the entry hook's
 * argument).  A location of register pieces is used only when the code
 * from the start of its range to the call writes none of them, nor, when
 * that range starts where the scope does, the scope's own code before it
 * (seen at -Os: an inlined copy's `lea this_fn, %edi' in a range of the
 * copy's own before its entry, the pair esi:edi named from the entry on),
 * nor, then, when the code of the function around the copy before its
 * entry gave one register of the pair a new value after the other was
 * set (seen at -Os: the high half in edi passed to a call, then `mov $7,
 * %edi' for a multiplication after the copy, the pair esi:edi named as
 * the copy's long long from its entry on).  gcc also
 * names a pair right after a copy made one of its registers the other
 * (seen at -O2: a struct of two ints whose second field is never read,
 * `mov %esi, %edi' to sign-extend the first, and the pair esi:edi named
 * as the struct from there on): pieces in registers that hold one copied
 * value are not used either. */
bool i386loc_pieces_kept(struct frame_state *f, Dwarf_Attribute *attr,
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
		int w = dw_i386_written(f->m, start, call);
		return w >= 0 && !(w & regs) &&
		       !written_before_start(f, start, call, regs) &&
		       !i386_regs_copied(f, call, regs);
	}
	return false;
}

/* Whether the code [entry, call) stores into every byte of the `len'
 * bytes at `rel' from the CFA: each store addressed from esp, or from
 * ebp once a `mov %esp, %ebp' made it a known offset from the CFA.  A
 * store elsewhere (another register, a call) may write there or not:
 * it proves nothing. */
static bool frame_slot_stored(struct dw_module *m, uint64_t entry,
			      uint64_t call, int64_t rel, size_t len)
{
	uint8_t done[64] = {0};
	size_t left = len;
	struct i386_walk w;
	if (len == 0 || len > sizeof done || call <= entry ||
	    !walk_start(&w, m, entry, call, 512))
		return false;
	int64_t esp = -4, ebp = 0; /* relative to the CFA */
	bool have_ebp = false;
	struct i386_insn in;
	const uint8_t *at_insn;
	int got;
	while ((got = walk_next(&w, m, &in, &at_insn)) > 0) {
		if (!in.esp_known)
			return false;
		int64_t at = in.store == I386_STORE_ESP ? esp + in.store_disp
			     : in.store == I386_STORE_OTHER && in.store_ebp &&
					 have_ebp
				 ? ebp + in.store_disp
				 : INT64_MIN;
		for (size_t i = 0; at != INT64_MIN && i < in.store_len; i++) {
			int64_t k = at + (int64_t)i - rel;
			if (k >= 0 && k < (int64_t)len && !done[k]) {
				done[k] = 1;
				left--;
			}
		}
		if (in.writes & 1u << 5) { /* ebp */
			have_ebp = in.reg_copy && in.copy_src == I386_ESP;
			ebp = esp;
		}
		esp += in.esp_delta;
	}
	return got == 0 && left == 0;
}

/* gcc may describe a parameter of a clone (f.constprop.1, that does not
 * read it) as a stack slot of the clone's own frame, below its return
 * address, that no instruction writes: its bytes there are whatever an
 * earlier call left (seen at -O3: a struct {double; int} passed in
 * registers, said to be at the frame base - 28).  A slot of the
 * function's own frame holds at the entry hook's call only what the code
 * before the call stored there; where that code is not understood, or
 * stores where it cannot be told, it is not known to hold the value. */
bool i386loc_frame_unwritten(struct frame_state *f, Dwarf_Attribute *attr,
			     uint64_t entry, size_t size)
{
	struct lw_pieces it;
	struct lw_frame w;
	const Dwarf_Op *ops;
	const char *why;
	size_t n, off, len;
	uint8_t op;
	if (f->machine != EM_386 || f->is_caller || !f->have_cfa ||
	    lw_pieces_begin(&it, attr, f->rel_pc - 1, size) < 0)
		return false;
	frame_walker(f, &w);
	while (lw_pieces_next(&it, &ops, &n, &off, &len, &why) > 0) {
		struct lw_loc l;
		if (lw_eval_piece(&w, attr, ops, n, len, &l, &why) < 0 ||
		    l.kind != LW_MEMORY)
			continue;
		/* 32-bit addresses: the offset from the CFA as signed */
		int64_t rel = (int32_t)(uint32_t)(l.v.v - f->cfa);
		if (rel >= 0)
			continue; /* the caller's: the arguments it passed */
		if (!dw_read_code(f->m, f->rel_pc - 5, &op, 1) || op != 0xe8 ||
		    !frame_slot_stored(f->m, entry, f->rel_pc - 5, rel, len))
			return true;
	}
	return false;
}

/* The earliest instruction of the straight code that runs into the call:
 * a line table row in the `max' bytes before it from which the code
 * decodes to the call without a jump or an instruction not known. */
static bool straight_start(struct frame_state *f, uint64_t call, size_t max,
			   uint64_t *from)
{
	Dwarf_Lines *lines;
	size_t n, lo;
	Dwarf_Addr a;
	uint64_t low = call > max ? call - max : 0, past = low;
	if (!f->have_subprogram ||
	    !lines_from(&f->subprogram, low, &lines, &n, &lo))
		return false;
	for (; lo < n; lo++) {
		struct i386_walk w;
		struct i386_insn in;
		const uint8_t *at;
		int got;
		if (dwarf_lineaddr(dwarf_onesrcline(lines, lo), &a) != 0 ||
		    a >= call)
			return false;
		if (a < past || !walk_start(&w, f->m, a, call, max))
			continue;
		while ((got = walk_next(&w, f->m, &in, &at)) > 0)
			;
		if (got == 0) {
			*from = a;
			return true;
		}
		/* the next start past the instruction not understood */
		past = a + (uint64_t)(w.p - w.code) + 1;
	}
	return false;
}

/* gcc on i386 may name as a 64-bit value's location a slot of the frame
 * of which the code stores only the half it goes on to read (seen at
 * -O2: an inlined copy's long long whose body reads only its low word,
 * `mov %ecx, -0xf8(%ebp)' before the copy, the value itself in ecx:ebx,
 * and the copy's parameter said to be the 8 bytes at ebp - 248: its high
 * word is what an earlier use of the slot left).  A slot of more than
 * one word is not taken as the value's where the straight code before
 * the hook's call stores into one of its words but not into another.  Stores
 * are placed from esp, followed exactly, and from ebp while the code
 * does not change it; a store elsewhere proves nothing. */
struct slot_store {
	int64_t disp; /* from esp or ebp as at the call */
	size_t len;
	bool ebp;
};

bool i386loc_slot_part_stored(struct frame_state *f, Dwarf_Attribute *attr,
			      size_t size)
{
	enum { MAX_CODE = 512 };
	struct lw_pieces it;
	struct lw_frame lw;
	const Dwarf_Op *ops;
	const char *why;
	size_t n, off, len;
	uint8_t op;
	uint64_t call = f->rel_pc - 5, from;
	if (f->machine != EM_386 || f->is_caller || !f->have[4] ||
	    lw_pieces_begin(&it, attr, f->rel_pc - 1, size) < 0)
		return false;
	frame_walker(f, &lw);
	while (lw_pieces_next(&it, &ops, &n, &off, &len, &why) > 0) {
		struct lw_loc l;
		uint8_t done[16] = {0};
		if (len <= 4 || len > sizeof done ||
		    lw_eval_piece(&lw, attr, ops, n, len, &l, &why) < 0 ||
		    l.kind != LW_MEMORY)
			continue;
		if (!dw_read_code(f->m, call, &op, 1) || op != 0xe8 ||
		    !straight_start(f, call, MAX_CODE, &from))
			return false;
		/* each store's address: the register it is addressed from
		 * as it is at the call, plus an offset */
		struct slot_store st[64];
		size_t count = 0;
		struct i386_walk w;
		struct i386_insn in;
		const uint8_t *at;
		int64_t esp = 0; /* from esp at `from' */
		int got;
		if (!walk_start(&w, f->m, from, call, MAX_CODE))
			return false;
		while ((got = walk_next(&w, f->m, &in, &at)) > 0) {
			if (!in.esp_known)
				return false;
			if (in.writes & 1u << 5) /* ebp changed: earlier
						  * stores from it unplaced */
				for (size_t i = 0; i < count; i++)
					if (st[i].ebp)
						st[i].len = 0;
			if (count < 64 && in.store == I386_STORE_ESP)
				st[count++] = (struct slot_store){
					esp + in.store_disp, in.store_len,
					false};
			else if (count < 64 && in.store == I386_STORE_OTHER &&
				 in.store_ebp && !(in.writes & 1u << 5))
				st[count++] = (struct slot_store){
					in.store_disp, in.store_len, true};
			esp += in.esp_delta;
		}
		if (got < 0)
			return false;
		for (size_t i = 0; i < count; i++) {
			uint64_t base;
			if (st[i].ebp && !f->have[5])
				continue;
			/* esp at the call is `esp' from esp at `from' */
			base = st[i].ebp ? f->reg[5]
					 : f->reg[4] - (uint64_t)esp;
			for (size_t b = 0; b < st[i].len; b++) {
				uint32_t a = (uint32_t)(base +
					(uint64_t)st[i].disp + b);
				uint32_t k = a - (uint32_t)l.v.v;
				if (k < len)
					done[k] = 1;
			}
		}
		/* a word stored into, and a word not */
		bool some = false, none = false;
		for (size_t k = 0; k < len; k += 4) {
			bool any = false;
			for (size_t b = k; b < len && b < k + 4; b++)
				any |= done[b];
			some |= any;
			none |= !any;
		}
		if (some && none)
			return true;
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
			    (fops[0].atom != DW_OP_reg4 &&
			     fops[0].atom != DW_OP_call_frame_cfa))
				continue;
			/* gcc: the frame base is the CFA itself */
			if (fops[0].atom == DW_OP_call_frame_cfa) {
				if ((int64_t)ops[0].number < 0)
					continue;
				*slot = (int64_t)ops[0].number;
				return true;
			}
		}
		/* the CFA as esp + cfa_off where the location starts */
		int cfa_reg;
		int64_t cfa_off;
		bool ok = frame_cfa_rule(m, start, &cfa_reg, &cfa_off) &&
			  cfa_reg == 4;
		int64_t k = (int64_t)ops[0].number - cfa_off;
		if (ok && k >= 0) {
			*slot = k;
			return true;
		}
	}
	return false;
}
