/* dwinfo.h -- the values stage's own header (values.h says which file
 * does what): modules' DWARF, a call's captured state, the location
 * walker and its two machines, the calling conventions, types, the
 * decoders of the code around the entry hook, and the plan's needs.
 */
#ifndef CTRACE_SYMBOLIZER_DWINFO_H
#define CTRACE_SYMBOLIZER_DWINFO_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ctrace_plan.h"
#include "trace/trace.h"

struct trace;
struct resolve_info;

/* A range of code of a subprogram that no other subprogram contains. */
struct dw_fn_range {
	uint64_t lo, hi;
	Dwarf_Off die;
};

struct dw_module {
	char *path;
	int fd;
	Elf *elf;
	Dwarf *dw;      /* NULL: no DWARF */
	Dwarf_CFI *cfi; /* .eh_frame (or .debug_frame), NULL if none */
	/* Every outermost subprogram's ranges, sorted by lo, made in one
	 * pass over the DWARF at the first lookup; max_hi[i] is the largest
	 * hi of fn_ranges[0..i] (ranges of bad DWARF may overlap). */
	struct dw_fn_range *fn_ranges;
	uint64_t *fn_max_hi;
	size_t n_fn_ranges;
	bool fn_index_done;
	/* A separate debug file's, when the module has no DWARF itself
	 * (dw_module_at): dw reads it, the code stays the module's. */
	bool debug_tried;
	int debug_fd;
	Elf *debug_elf;
	/* or debug_elf is this file's, shared with the resolver */
	struct debug_file *debug_shared;
	struct dw_module *next;
};

/* The module's DWARF, opened once; NULL when the file cannot be read. */
struct dw_module *dw_module(const char *path);
/* The same for the module of address addr in trace t at `ticks` (ri: the
 * resolver's answer for it), with the DWARF of the separate debug file the
 * resolver found when the module has none itself. */
struct dw_module *dw_module_at(struct trace *t, const struct resolve_info *ri,
			       uint64_t addr, uint64_t ticks);
void dw_modules_free(void);

#define DW_MAX_REG 64

/* One frame's known state: the instrumented function's at its entry
 * hook, or its caller's at the call (for DW_OP_entry_value). */
struct frame_state {
	struct dw_module *m;
	uint64_t bias;   /* runtime minus link-time addresses */
	uint64_t rel_pc; /* link-time PC the state belongs to */
	bool have[DW_MAX_REG];
	uint64_t reg[DW_MAX_REG];
	bool have_cfa;
	uint64_t cfa;
	Dwarf_Die subprogram; /* for DW_AT_frame_base */
	bool have_subprogram;
	bool is_caller;       /* at a call: rel_pc is the return address */
	const struct capture *mem;
	/* For DW_OP_entry_value: the caller's return address (runtime) and
	 * how to find its module. */
	uint64_t site;
	struct trace *trace;
	uint64_t ticks;
	struct frame_state *callee; /* set on the caller's state */
	int ptr_size;
	int sp_reg; /* DWARF number of the stack pointer */
	uint16_t machine;
};

/* What a decoding read of the captured state (frame.c, for recipe.c):
 * reads counts the reads of values (registers, stack, CFA) that were not
 * copies into the buffer that frame_sink_start named; log[0..n) are those
 * copies, in order: a register's bytes (reg >= 0) or constant bytes. */
enum { FRAME_SINK_MAX = 32, FRAME_SINK_BYTES = 16 };
struct frame_sink {
	uint16_t off;
	uint8_t len;
	int16_t reg; /* -1: the constant bytes[] */
	uint8_t bytes[FRAME_SINK_BYTES];
};
struct frame_taint {
	unsigned reads;
	uint8_t *buf;
	size_t buf_len;
	size_t n;
	struct frame_sink log[FRAME_SINK_MAX];
};
extern struct frame_taint frame_taint;
void frame_read(void);
/* The buffer values are built in from now on; empties the log. */
void frame_sink_start(uint8_t *buf, size_t len);
struct frame_state;
/* Copies len bytes of f's register reg (which f has) to dst, logged. */
void frame_sink_reg(uint8_t *dst, const struct frame_state *f, int reg,
		    size_t len);
/* Copies len constant bytes to dst, logged. */
void frame_sink_const(uint8_t *dst, const void *src, size_t len);

/* Sets up the state of the instrumented function at the hook's return
 * address pc (runtime): registers, CFA from CFI. */
void frame_init(struct frame_state *f, struct dw_module *m, uint64_t bias,
		const struct capture *c, struct trace *t, uint64_t site,
		uint64_t ticks, uint16_t machine, int ptr_size);

/* frame.c: evaluates the location of attr (DW_AT_location) at f's call
 * into `size` bytes at out.  Returns 0, or -1 with *why set. */
int dw_eval_location(struct frame_state *f, Dwarf_Attribute *attr,
		     uint8_t *out, size_t size, const char **why);

/* The origin of a DIE: DW_AT_abstract_origin and DW_AT_specification
 * followed to the end. */
void dw_root(Dwarf_Die *die, Dwarf_Die *out);

/* The innermost subprogram or inlined_subroutine at rel_pc, and its
 * enclosing subprogram.  Returns 0 or -1. */
int dw_scope_at(struct dw_module *m, uint64_t rel_pc, Dwarf_Die *scope,
		Dwarf_Die *subprogram);
/* The subprogram whose entry is rel_addr.  Returns 0 or -1. */
int dw_function_at(struct dw_module *m, uint64_t rel_addr, Dwarf_Die *out);
/* Reads link-time addresses [rel, rel + n) of the module's code. */
bool dw_read_code(struct dw_module *m, uint64_t rel, uint8_t *out, size_t n);
/* The same for its read-only data (.rodata, a constant pool). */
bool dw_read_rodata(struct dw_module *m, uint64_t rel, uint8_t *out, size_t n);
/* i386: the address PIC code keeps in its GOT register (the linkers'
 * _GLOBAL_OFFSET_TABLE_, the start of .got.plt). */
bool dw_got_address(struct dw_module *m, uint64_t *out);
/* The CU's producer names clang. */
bool dw_is_clang(Dwarf_Die *die);
/* What names a function across compilation units.  C++ inline and
 * template functions are described in every unit that uses them, each
 * with its own DIEs: a copy inlined in one unit has its origin there,
 * while the function a hook names (the one out-of-line copy the linker
 * kept) may be another unit's.  Its linkage name says which function it
 * is in the whole program; in C, an external function's name does.
 * NULL (its DIE alone matches): a static function (its name, even
 * mangled, may be another unit's static function's), or an external C++
 * one without a linkage name. */
const char *dw_origin_key(Dwarf_Die *root);
/* Whether dw_origin_key's a and b name one function: the same, or for a
 * constructor or destructor, the variant an ELF symbol names (C1, C2,
 * C3; D0, D1, D2) and the one gcc's DWARF declares (C4, D4), the one
 * digit that differs in a mangled name. */
bool dw_same_key(const char *a, const char *b);
/* clang on i386: what to add to esp at the call to the hook of sub whose
 * return address is ra to get the frame base (esp as the body keeps it);
 * false if unknown. */
bool dw_i386_esp_adjust(struct dw_module *m, Dwarf_Die *sub, uint64_t ra,
			int64_t *adjust);
/* i386loc.c: the general registers (bit i: i386 DWARF and hardware
 * number i) the i386 code [from, call) may write, or -1 if any of it is
 * not understood. */
int dw_i386_written(struct dw_module *m, uint64_t from, uint64_t call);
/* i386: the slot above the CFA (its offset) where a stack parameter whose
 * location list stops before the hook's call at ra still is; see
 * i386loc.c. */
bool dw_i386_stack_slot(struct dw_module *m, Dwarf_Attribute *loc,
			Dwarf_Die *sub, uint64_t ra, int64_t *slot);
/* i386loc.c: whether the location at f's call puts a byte of the value
 * in the frame of the function entered at `entry' (below its return
 * address) that the code from the entry to the call is not seen to
 * store. */
bool i386loc_frame_unwritten(struct frame_state *f, Dwarf_Attribute *attr,
			     uint64_t entry, size_t size);
/* i386loc.c: whether the location at f's call puts a value of more than
 * one word in a stack slot that the straight code before the call stores
 * into only in part. */
bool i386loc_slot_part_stored(struct frame_state *f, Dwarf_Attribute *attr,
			      size_t size);
/* x87const.c: whether the constant k (`size' bytes) a variable of `sub'
 * (x86 code) is said to have may be the integer conversion of a floating
 * constant the code pushes on the x87 stack, pops and then converts ST0
 * after: gcc's variable tracking may take the value converted for it. */
bool x87const_converted(struct dw_module *m, Dwarf_Die *sub, bool x86_64,
			 const uint8_t *k, size_t size);
/* i386loc.c: a location of register pieces (ops, n) holds at f's call
 * only if the code from the start of its range to the call writes none
 * of them, and no register of it was made a copy of another. */
bool i386loc_pieces_kept(struct frame_state *f, Dwarf_Attribute *attr,
			 const Dwarf_Op *ops, size_t n);
/* prologue.c, clang -O0: the spill slot (frame-base offset) the code
 * after the hook's call at rel_pc copies into the home at `home`. */
bool dw_clang_spill_at(struct dw_module *m, uint16_t machine, uint64_t rel_pc,
		       int64_t home, size_t size, int64_t *spill);

/* epilogue.c (x86-64): the code from a call of the exit hook to the
 * function's `ret` as the capture plan's operations (include/ctrace_plan.h,
 * `exit` lines), and which bytes of the return registers it leaves known
 * (bit per byte; xmm: its low 8 bytes). */
struct epi_op {
	int op, dsz, ssz, d, s, base;
	int64_t arg;
};
struct epilogue {
	struct epi_op ops[CTRACE_PLAN_MAX_OPS];
	size_t n;
	uint8_t r0, r1, x0, x1;
};
/* Runs the code from code[at] (a function's part, code[0..size), whose
 * link-time address is base, in module m: its read-only data holds the
 * constants the code loads; NULL: none is read) to its `ret`; fp_frame:
 * rbp is the frame pointer there.  False when the code is not made of
 * the operations the recorder runs. */
bool epilogue_decode(const uint8_t *code, size_t size, size_t at,
		     bool fp_frame, struct dw_module *m, uint64_t base,
		     struct epilogue *e);
/* Writes the `exit` line's operations to out (NULL: none) when they
 * leave known what the RETVAL record of mask (CTRACE_RETVAL_*) holds (of
 * a scalar of `size` bytes, 1 to 8, those bytes; 0: all the record
 * holds); false, and nothing written, when they do not (or mask asks for
 * st0, or nothing). */
bool epilogue_print(FILE *out, const struct epilogue *e, unsigned mask,
		    unsigned size);

/* x86-64: a parameter that the function was entered with in registers
 * (its location at `entry`, the function's first instruction) and whose
 * bytes the straight-line code up to the hook's call at `call` copied
 * into callee-saved registers (prologue.c proves it): those registers,
 * piece by piece.  Returns the number of pieces, or -1. */
struct dw_reg_piece {
	int reg;    /* DWARF number of the callee-saved copy */
	size_t len; /* bytes of the value it holds */
};
int dw_entry_copies(struct dw_module *m, Dwarf_Attribute *attr,
		    uint64_t entry, uint64_t call, size_t size,
		    struct dw_reg_piece *out, size_t max);
/* The same, read from f's captured registers into out.  0 or -1. */
int dw_eval_entry_copy(struct frame_state *f, Dwarf_Attribute *attr,
		       uint64_t entry, uint8_t *out, size_t size);
/* prologue.c: a callee-saved register (DWARF number, in *copy) holding
 * the low `size` bytes the register `reg` had at `entry`, at the call
 * instruction `call`; false if the code between does not prove one. */
bool dw_entry_reg_copy(struct dw_module *m, uint64_t entry, uint64_t call,
		       int reg, size_t size, int *copy);
/* prologue.c: the straight-line code [from, call) proves that at the call
 * instruction `call` the register param_reg holds what value_reg holds
 * (DWARF numbers); false if it does not or is not understood. */
bool dw_call_value_holds(struct dw_module *m, uint64_t from, uint64_t call,
			 int param_reg, int value_reg);
/* prologue.c: the straight-line code [from, call) proves that at the
 * call instruction `call` the `len` bytes at rsp + off (rsp as it is
 * there) still hold what they held anywhere in that code: rsp does not
 * move and no store may write them; false if it may, or is not
 * understood. */
bool dw_stack_kept(struct dw_module *m, uint64_t from, uint64_t call,
		   int64_t off, size_t len);

/* prologue.c: the entry register (DWARF number; -1: none known, -2: a
 * value the code computed from registers) whose low *width bytes the
 * register `reg` holds at the call instruction `call`; false if the code
 * from `entry` is not understood. */
bool dw_entry_reg_origin(struct dw_module *m, uint64_t entry, uint64_t call,
			 int reg, int *origin, size_t *width);
/* prologue.c: how many low bytes of the register `reg` (DWARF number)
 * may hold anything at the call instruction `call` (8, or 4, 2, 1 when
 * the code from `entry` last wrote it with a 32-bit load or an extension:
 * the bytes above are then zeros or copies of the sign); false if the code
 * is not understood. */
bool dw_reg_bytes_at_call(struct dw_module *m, uint64_t entry, uint64_t call,
			  int reg, size_t *bytes);
/* prologue.c: the straight-line code [entry, pc) leaves the register
 * `reg` (DWARF number) holding all of its value at `entry`; false if it
 * does not or is not understood. */
bool dw_entry_reg_kept(struct dw_module *m, uint64_t entry, uint64_t pc,
		       int reg);
/* prologue.c: 1 when the straight-line code [from, to) leaves the
 * register `reg` (DWARF number, a general register) holding at least the
 * low `size` bytes of its value at `from`, 0 when it may not (a write, a
 * computation on it), -1 when the code is not understood. */
int dw_reg_kept(struct dw_module *m, uint64_t from, uint64_t to, int reg,
		size_t size);
/* prologue.c: whether the straight-line code [from, to) is understood
 * (at most 256 bytes, every instruction known): where it is not, nothing
 * is proved either way. */
bool dw_code_understood(struct dw_module *m, uint64_t from, uint64_t to);
/* x86-64: the location in force at f's call names one register, the one
 * at `entry` another, and the code between proves the first does not
 * hold the second's `size` bytes, or a value computed from registers
 * (gcc -Os: `movslq %ebp,%rbp' after
 * moving a struct there, its DWARF still says RBP); or the register at
 * the call holds fewer than `size` bytes, wherever the value was at the
 * entry (gcc -O2, -Os: a struct passed in memory loaded into R13, then
 * `movslq %r13d,%r13', its DWARF says R13).  A location of register
 * pieces is asked the same of each piece, and is contradicted too when a
 * piece names a callee-saved register the code never wrote (gcc -O1: an
 * __int128 in R12 and R13 where the prologue moved it to R12 and RBP). */
bool dw_location_contradicted(struct frame_state *f, Dwarf_Attribute *attr,
			      uint64_t entry, size_t size);

/* x86-64 and i386: the location in force at f's call names one general
 * register, and the code of `scope' (the function, or the inlined copy's
 * DW_TAG_inlined_subroutine: its own ranges) before the call, from where
 * that location's range starts, may have written it, or is not
 * understood: the register may no longer hold the `size` bytes passed
 * (gcc places a statement of an inlined copy's body, `p0 = p0 - 1' as
 * `sub $0x1,%ebp', before the hook and names RBP for the whole copy). */
bool dw_location_rewritten(struct frame_state *f, Dwarf_Attribute *attr,
			   Dwarf_Die *scope, size_t size);
/* loclist.c: from where the code of `scope' before the hook's `call'
 * must leave the registers of a location alone, the location's range
 * starting at `start': from there (the DWARF says they hold the parameter
 * from there on), or, when that range starts where the scope does (its
 * entry or one of its ranges), from the start of the range of `sub' (the
 * function holding the call; NULL: unknown, 0 is returned) that holds the
 * call: the parameter was bound before any of the scope's code ran, and
 * gcc places the setup of the hook's arguments there (an inlined copy's
 * `lea this_fn, %edi' in a range of its own before its entry, edi still
 * named). */
uint64_t dw_location_bound_from(Dwarf_Die *scope, Dwarf_Die *sub,
				uint64_t start, uint64_t call);

/* The location at pc names where a value is (registers, memory, a
 * constant), not a value computed from others.  An inlined copy's
 * parameter described by a computation at the entry hook's call is
 * clang's salvage of a statement of the copy's body the compiler placed
 * before the hook (`p0 * 3 | 8` for p0): not the value passed. */
bool dw_location_plain(Dwarf_Attribute *attr, uint64_t pc);
/* The location in force at pc is a value (computed, or a constant), not
 * the same one as at `entry`, or a constant from `entry` on: clang gives
 * a parameter at the entry hook's call the value a statement after the
 * hook leaves it (`p0 & 15' as EDI & 15, the and after the call; 0 after
 * a loop moved above the call), and starts a constant's range at the
 * function's first instruction. */
bool dw_location_changed_value(Dwarf_Attribute *attr, uint64_t entry,
			       uint64_t pc);
/* The register a parameter's location names at `entry` (itself or as
 * DW_OP_entry_value), or -1. */
int dw_entry_reg(Dwarf_Attribute *attr, uint64_t entry);
/* A list that says nothing at `entry`: the register (exactly one) named
 * by its earliest range starting after `entry` and at or before `call`,
 * and that range's start in *start; -1 for anything else. */
int dw_first_reg_after(Dwarf_Attribute *attr, uint64_t entry, uint64_t call,
		       uint64_t *start);
/* The constant (a literal or constant then DW_OP_stack_value, or
 * DW_OP_implicit_value) the location in force at pc gives, as `size`
 * little-endian bytes in out (at most 16); false for anything else. */
bool dw_location_constant(Dwarf_Attribute *attr, uint64_t pc, uint8_t *out,
			  size_t size);
/* Whether a DW_AT_location (any of its ranges) or a DW_AT_const_value
 * gives the constant `bytes` of `size` bytes. */
bool dw_location_has_constant(Dwarf_Attribute *attr, const uint8_t *bytes,
			      size_t size);
/* Whether the location in force at pc gives the constant `bytes` of
 * `size` bytes (at most 16) and a range that ends before that one gives
 * a place in memory or reads a register numbered x87_lo to x87_hi. */
bool dw_location_constant_after_memory(Dwarf_Attribute *attr, uint64_t pc,
				       const uint8_t *bytes, size_t size,
				       int x87_lo, int x87_hi);
/* The register the location in force at pc names (exactly one), or -1. */
int dw_location_reg(Dwarf_Attribute *attr, uint64_t pc);
/* The register whose value at the function's entry the location in force
 * at pc reads (DW_OP_entry_value of one register), or -1. */
int dw_entry_value_reg(Dwarf_Attribute *attr, uint64_t pc);
/* The address of the memory the location in force at f's call names as
 * a whole (one memory location, no pieces); false for anything else. */
bool dw_location_address(struct frame_state *f, Dwarf_Attribute *attr,
			 uint64_t *addr);
/* Whether a piece of the location in force at f's call of a value of
 * `size` bytes is memory that overlaps the `len` bytes at `addr`. */
bool dw_location_overlaps(struct frame_state *f, Dwarf_Attribute *attr,
			  size_t size, uint64_t addr, size_t len);
/* i386dec.c: the one i386 decoder. */
#define I386_ESP 4
struct i386_insn {
	unsigned writes;   /* general registers written (bit: number) */
	unsigned reads;    /* general registers whose value it uses (not as
			    * an address but lea's), a partial write's
			    * register included */
	bool reg_copy;     /* a 32-bit mov from register copy_src into the
			    * one register written */
	unsigned copy_src;
	bool esp_known;    /* esp changes by esp_delta exactly */
	int64_t esp_delta;
	enum { I386_NO_STORE, I386_STORE_ESP, I386_STORE_OTHER } store;
	int64_t store_disp; /* I386_STORE_ESP: from esp before the insn */
	size_t store_len;
	bool store_ebp;     /* I386_STORE_OTHER at store_disp from ebp */
	bool call;          /* a call (i386dec_step: of another function) */
	int32_t call_rel;
};
/* The length of the x86 ModRM operand whose ModRM byte is at p (with its
 * SIB byte and displacement; the same in 32- and 64-bit code, where
 * mod 0 rm 5 is rip-relative), or 0 when it runs past end. */
size_t i386dec_modrm_len(const uint8_t *p, const uint8_t *end);
/* The instruction at p: its length and effects in *in, or 0 when it is
 * not one the decoder knows (or runs past end). */
size_t i386dec_insn(const uint8_t *p, const uint8_t *end,
		    struct i386_insn *in);
/* The same for code of module m at link-time address addr, a call's
 * effects included (PIC set-up, or another function's). */
size_t i386dec_step(struct dw_module *m, uint64_t addr, const uint8_t *p,
		    const uint8_t *end, struct i386_insn *in);



/* ---------------------------------------------------------------------------
 * locwalk.c: the one DWARF location walker, over real bytes or symbols
 * ------------------------------------------------------------------------ */

/* A value on the walker's stack: a number, or (the plan maker's symbols)
 * an offset from the CFA or the stack pointer, or data known only when
 * the program runs. */
enum lw_kind { LW_NUM, LW_CFA, LW_SP, LW_DATA };
struct lw_val {
	enum lw_kind k;
	uint64_t v; /* the number, or the offset */
};

enum lw_loc_kind { LW_MEMORY, LW_REGISTER, LW_VALUE, LW_IMPLICIT };
struct lw_loc {
	enum lw_loc_kind kind;
	struct lw_val v;     /* LW_MEMORY: the address; LW_VALUE: the value */
	uint64_t reg;        /* LW_REGISTER */
	const uint8_t *data; /* LW_IMPLICIT */
	size_t data_len;
};

struct lw_frame;
/* What the walker reads, as its reader knows it: 0, or -1 with *why. */
struct lw_machine {
	int (*reg)(struct lw_frame *w, uint64_t reg, struct lw_val *out,
		   const char **why);
	int (*mem)(struct lw_frame *w, struct lw_val addr, size_t size,
		   struct lw_val *out, const char **why);
	int (*cfa)(struct lw_frame *w, struct lw_val *out, const char **why);
	int (*entry_value)(struct lw_frame *w, Dwarf_Attribute *attr,
			   const Dwarf_Op *op, struct lw_val *out,
			   const char **why, int depth);
};

/* Where an expression is walked: one frame at one call. */
struct lw_frame {
	const struct lw_machine *mach;
	void *ctx;            /* the machine's */
	struct dw_module *m;
	uint16_t machine;     /* EM_386 or EM_X86_64 */
	int ptr_size;
	uint64_t bias;        /* DW_OP_addr: runtime minus link-time */
	uint64_t ra;          /* link-time return address of the call;
			       * locations are those in force at ra - 1 */
	Dwarf_Die subprogram; /* for DW_AT_frame_base */
	bool have_subprogram;
	bool is_caller;       /* the caller's frame (DW_OP_entry_value) */
	bool symbolic;        /* DW_OP_addr is data, not a number */
	size_t entry_bytes;   /* the low bytes of a DW_OP_entry_value the
			       * expression needs: lw_eval_piece's length
			       * when the piece is that value alone, else 0
			       * (all of it) */
	bool unknown_op;      /* out: an operation the walker does not know */
};

int lw_eval(struct lw_frame *w, Dwarf_Attribute *attr, const Dwarf_Op *ops,
	    size_t n, struct lw_loc *out, const char **why, int depth);
/* An expression that yields an address or a register's value (CFI,
 * frame base, call-site values). */
int lw_eval_value(struct lw_frame *w, Dwarf_Attribute *attr,
		  const Dwarf_Op *ops, size_t n, struct lw_val *v,
		  const char **why, int depth);
int lw_frame_base(struct lw_frame *w, struct lw_val *v, const char **why,
		  int depth);

/* A location of `size` bytes piece by piece: lw_pieces_begin takes the
 * expression in force at pc (-1: none); lw_pieces_next gives each piece's
 * operations and the bytes [off, off + len) of the value it holds (1), or
 * the end (0), or -1 with *why (a piece past the value, an empty one);
 * lw_eval_piece walks one (-2: clang -O0's value not yet stored). */
struct lw_pieces {
	const Dwarf_Op *ops;
	size_t n, i, start, done, size;
	bool pieces;
};
int lw_pieces_begin(struct lw_pieces *it, Dwarf_Attribute *attr,
		    uint64_t pc, size_t size);
int lw_pieces_next(struct lw_pieces *it, const Dwarf_Op **ops, size_t *n,
		   size_t *off, size_t *len, const char **why);
int lw_eval_piece(struct lw_frame *w, Dwarf_Attribute *attr,
		  const Dwarf_Op *ops, size_t n, size_t len, struct lw_loc *out,
		  const char **why);

/* frame.c: the walker over a frame's captured state. */
void frame_walker(struct frame_state *f, struct lw_frame *w);
int frame_eval(struct frame_state *f, Dwarf_Attribute *attr,
	       const Dwarf_Op *ops, size_t n, struct lw_loc *out,
	       const char **why, int depth);
int frame_eval_value(struct frame_state *f, Dwarf_Attribute *attr,
		     const Dwarf_Op *ops, size_t n, uint64_t *v,
		     const char **why, int depth);
/* The CFA rule at pc as (register, offset); false if it is anything
 * else. */
bool frame_cfa_rule(struct dw_module *m, uint64_t pc, int *reg,
		    int64_t *off);
/* The CFA of f from its CFI at lookup_pc.  0 or -1. */
int frame_cfa(struct frame_state *f, uint64_t lookup_pc);
/* The caller's saved registers and stack pointer at the call: one CFI
 * step from f.  0 or -1. */
int frame_unwind_to_caller(struct frame_state *f, struct frame_state *c);
/* entryval.c: the value of DW_OP_entry_value op of attr in f, of which
 * the low `bytes` bytes are used (0: all of it). */
int entryval_eval(struct frame_state *f, Dwarf_Attribute *attr,
		  const Dwarf_Op *op, size_t bytes, uint64_t *v,
		  const char **why, int depth);
/* The return address of call site `site` (DW_AT_call_return_pc, or a
 * GNU call site's DW_AT_low_pc): true and *ret, or false. */
bool entryval_site_return(Dwarf_Die *site, uint64_t *ret);
/* The DW_TAG_call_site_parameter of call site `site` for register reg:
 * true and *out, or false. */
bool entryval_site_param(Dwarf_Die *site, uint64_t reg, Dwarf_Die *out);

/* ---------------------------------------------------------------------------
 * abi.c: the calling conventions (x86-64 SysV, i386)
 * ------------------------------------------------------------------------ */

/* Where a return value of a type comes back. */
struct abi_piece {
	unsigned reg;     /* CTRACE_RETVAL_R0, _R1, _XMM0, _XMM1 */
	size_t off, len;  /* bytes [off, off + len) of the value, in the
			   * register's low bytes */
};
struct abi_ret {
	enum {
		ABI_RET_VOID,
		ABI_RET_REGS,       /* piece by piece */
		ABI_RET_X87,        /* st0, in its own precision */
		ABI_RET_MEMORY,     /* the caller's buffer, its address in r0 */
		ABI_RET_UNSUPPORTED, /* not shown */
		/* x86-64 _Complex long double: st0 (real) and st1
		 * (imaginary), which the recorder saves at a library call's
		 * return alone (RETVAL_ST1): regs asks for r0, as of
		 * ABI_RET_UNSUPPORTED */
		ABI_RET_X87_PAIR
	} kind;
	size_t size;
	unsigned regs;            /* CTRACE_RETVAL_* the recorder must keep */
	size_t npieces;
	struct abi_piece piece[2];
};
/* type: the return type, NULL for void. */
void abi_return(Dwarf_Die *type, bool i386, struct abi_ret *r);
/* The registers a function's return value comes back in, as the plan
 * asks the recorder for them (CTRACE_RETVAL_* bits with _NARROW where the
 * low halves are enough; 0: void), and *mem, the bytes of a value
 * returned in memory. */
unsigned abi_ret_regs(Dwarf_Die *fn_die, bool i386, unsigned *mem);
/* Where each parameter of fn (a subprogram, or a subroutine type)
 * arrives at its first instruction, in order: in registers (x86-64:
 * DWARF numbers, the general ones or ABI_DW_XMM0 + k; the low lens[i]
 * bytes of each are the value's bytes from offs[i]), on the stack
 * (stack_off bytes above the return address's word, ABI_STACK_UNKNOWN
 * when where is not known: after a parameter whose alignment is not),
 * or not known (a parameter of unknown size, and every one after it).
 * i386 (cdecl) passes every one on the stack, in 4-byte words.  Fills
 * out[0..max) and returns the number of parameters; *variadic: fn ends
 * in `...`. */
#define ABI_DW_XMM0 17
#define ABI_PARAMS_MAX 32
#define ABI_STACK_UNKNOWN ((size_t)-1)
struct abi_param {
	enum { ABI_PARAM_UNKNOWN, ABI_PARAM_REGS, ABI_PARAM_STACK } kind;
	int nregs;
	int regs[2];
	size_t offs[2], lens[2];
	size_t size;
	size_t stack_off;
};
int abi_params(Dwarf_Die *fn, struct abi_param *out, size_t max,
	       bool *variadic);
int abi_params_i386(Dwarf_Die *fn, struct abi_param *out, size_t max,
		    bool *variadic);
/* x86-64, C, external functions: the general registers (DWARF numbers)
 * and bytes in which the calling convention delivers the parameter
 * `target` of `defn` at its first instruction.  Returns 1 or 2, or 0
 * (SSE registers, the stack, or not known). */
int abi_param_regs(Dwarf_Die *fn_die, Dwarf_Die *defn, Dwarf_Die *target,
		   int regs[2], size_t lens[2]);

/* ---------------------------------------------------------------------------
 * types.c: DWARF types followed, sized and named; format.c: values as text
 * ------------------------------------------------------------------------ */

struct str {
	char *s;
	size_t len, cap;
};
void str_add(struct str *b, const char *p, size_t n);
void str_cat(struct str *b, const char *p);
void str_printf(struct str *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The string made (never NULL); b is then empty. */
char *str_take(struct str *b);

/* The DW_AT_type of die. */
bool type_of(Dwarf_Die *die, Dwarf_Die *type);
/* type through typedefs and qualifiers into *out; false when that ends in
 * nothing (const void). */
bool type_strip(Dwarf_Die *type, Dwarf_Die *out);
/* Bytes of a value of the type; 0 if not known. */
size_t type_size(Dwarf_Die *type, int ptr_size);
/* char, signed char or unsigned char (qualified or through typedefs). */
bool type_is_char(Dwarf_Die *type);
/* A pointer to one: its target is shown as a string. */
bool type_is_string(Dwarf_Die *type);
/* A struct, union, class or array. */
bool type_is_aggregate(Dwarf_Die *type);
/* The type as C or C++ writes it, appended to b. */
void type_name(Dwarf_Die *type, struct str *b, int depth);

struct capture;
/* The text of a value of the type in the bytes [p, p + size); mem: the
 * captured memory where string arguments' text is (NULL: none). */
char *format_text(const struct capture *mem, int ptr_size, Dwarf_Die *type,
		  const uint8_t *p, size_t size);
/* The types format_text shows without its DWARF or the captured memory,
 * once known (format_kind: FMT_OTHER for every other), and their text
 * into out (at most FMT_TEXT_MAX bytes and a NUL; all FMT_TEXT_MAX + 1
 * bytes of out may be written), its length: the same bytes as
 * format_text's. */
enum fmt_kind { FMT_OTHER, FMT_SIGNED, FMT_UNSIGNED, FMT_BOOL, FMT_POINTER,
		FMT_REFERENCE };
enum { FMT_TEXT_MAX = 24 };
enum fmt_kind format_kind(Dwarf_Die *type, int ptr_size, size_t size);
size_t format_kind_text(enum fmt_kind k, int ptr_size, const uint8_t *p,
			size_t size, char *out);
/* The same of a value of at most 8 bytes, w: the bytes from p on (zero
 * past the value) read as one number. */
size_t format_kind_word(enum fmt_kind k, int ptr_size, uint64_t w,
			size_t size, char *out);


/* ---------------------------------------------------------------------------
 * values.c: a call's values built (args.c: its arguments)
 * ------------------------------------------------------------------------ */

#define VALUES_MAX_BYTES 256 /* the largest value shown */

struct value;
struct values;
struct values_build {
	struct value *v;
	size_t n, cap;
};
/* One more value: name NULL for a return value, type NULL when unknown,
 * text NULL when unavailable for the reason why. */
void values_add(struct values_build *vb, const char *name, Dwarf_Die *type,
		char *text, const char *why);
/* The values built; unknown: the parameters are not known (no debug
 * information; values_finish_unknown: for the reason why). */
struct values *values_finish(struct values_build *vb, bool unknown);
struct values *values_finish_unknown(struct values_build *vb,
				     const char *why);
/* size bytes for values whose strings live in the same block (packed),
 * which values_free ends. */
struct values *values_alloc_packed(size_t size);
/* The output of values like v around their texts (the tree's and
 * JSON's), for values_put_*: v's names, types and reasons, and which
 * values have a text; plain[i] true when value i's text needs no escaping
 * in JSON (numbers, pointers, booleans: format_kind).  Made once per
 * recipe; freed by values_pieces_free. */
struct values_pieces *values_pieces_make(const struct values *v,
					 const bool *plain);
void values_pieces_free(struct values_pieces *pc);
/* The module of the function at runtime address addr, with DWARF; its
 * bias in *bias.  NULL: none. */
struct dw_module *values_module_of(struct trace *t, uint64_t addr,
				   uint64_t ticks, uint64_t *bias);
/* memo.c: the values of an earlier call of the same pair (p's fn, site
 * and ticks) in trace t with the same payload bytes, shared (values_free
 * drops a reference), or NULL, then *hash is the key's for memo_put,
 * which remembers v (shared from then on); memo_reset forgets all.
 * kind: MEMO_ARGS or MEMO_RETVAL.  CTRACE_VALUE_CACHE=0: never. */
enum { MEMO_ARGS, MEMO_RETVAL };
struct values_call;
struct values *memo_get(int kind, const struct trace *t,
			const struct values_call *p, const uint8_t *payload,
			size_t len, uint64_t *hash);
void memo_put(int kind, const struct trace *t, const struct values_call *p,
	      const uint8_t *payload, size_t len, uint64_t hash,
	      struct values *v);
void memo_reset(void);
/* cache.c: CTRACE_VALUE_CACHE: 0 (off: every call decoded in full),
 * stats (on, and how many calls each way said at the end) or unset. */
enum values_cache { VALUES_CACHE_ON, VALUES_CACHE_OFF, VALUES_CACHE_STATS };
/* values.c: forgets which modules values_no_debug_hint named. */
void values_forget_hints(void);
/* values.c: the return values' shapes, cached per function, forgotten
 * (they hold DIEs of the modules). */
void values_forget_ret_shapes(void);

/* libcall.c: a library call's arguments from its ARGS payload (never
 * NULL) and its return value from its RETVAL payload (NULL: the function
 * returns nothing), typed by the library's DWARF (libtypes.c), else by
 * the prototype table; a 32-bit trace's as i386 passes them (cdecl:
 * arguments on the stack, eax, edx and st(0) at the return). */
struct values *libcall_args(struct trace *t, const struct values_call *p,
			    const uint8_t *payload, size_t len);
struct values *libcall_retval(struct trace *t, const struct values_call *p,
			      const uint8_t *payload, size_t len);
void libcall_forget_hints(void);
/* libtypes.c: a library call's prototype from the library's own DWARF
 * (its debug file found by build-id), cached per (trace, target, symbol)
 * until libtypes_reset; NULL when there is none to trust.  *debug (may be
 * NULL): whether the library's debug information was found (with no
 * prototype: the function is assembly, or not C). */
struct libtype_param {
	char *name;      /* NULL: the DWARF names none (an IFUNC's type) */
	Dwarf_Die type;  /* valid while the type_name is not NULL */
	char *type_name; /* NULL: no type */
	enum fmt_kind kind; /* FMT_OTHER: formatted from the DWARF */
	bool string;        /* a pointer to char: its text if saved */
	struct abi_param at;
};
struct libtype {
	size_t n;
	struct libtype_param *param;
	bool variadic;
	bool have_ret;    /* else void */
	Dwarf_Die ret;
	char *ret_name;
	enum fmt_kind ret_kind;
	struct abi_ret abi;
};
const struct libtype *libtypes_of(struct trace *t,
				  const struct values_call *p, bool *debug);
void libtypes_free(struct libtype *lt);
void libtypes_reset(void);
/* recipe.c: the arguments of a call by the recipe of an earlier call
 * like it (same pair, hook address and captured register numbers), or
 * NULL.  args_decode records one between recipe_begin and recipe_end (the
 * capture it parsed, if usable), and formats each value it shows with
 * recipe_text (format_text, noted).  recipe_reset forgets them all. */
struct values *recipe_apply(struct trace *t, const struct values_call *p,
			    const uint8_t *payload, size_t len);
void recipe_begin(bool record);
char *recipe_text(const struct capture *cap, int ptr_size, Dwarf_Die *type,
		  const uint8_t *buf, size_t size);
void recipe_end(struct trace *t, const struct values_call *p,
		const struct capture *cap, bool usable, const struct values *v);
void recipe_reset(void);
/* The arguments and return value of a call, decoded (args.c, values.c):
 * values_args and values_retval without the memo; record: keep a recipe
 * of the decoding if it can be one. */
struct values *args_decode(struct trace *t, const struct values_call *p,
			   const uint8_t *payload, size_t len, bool record);
struct values *retval_decode(struct trace *t, const struct values_call *p,
			     const uint8_t *payload, size_t len);
/* Says once per module that its functions have no debug information. */
struct values_call;
void values_no_debug_hint(struct trace *t, const struct values_call *p);


/* ---------------------------------------------------------------------------
 * planneed.c: what one hook call needs saved (plan.c writes it)
 * ------------------------------------------------------------------------ */

#define PLAN_MAX_RANGES 64

enum plan_base { PLAN_AT_CFA, PLAN_AT_SP };

struct plan_range {
	enum plan_base base;
	int64_t lo, hi;
};

struct plan_string {
	char base; /* CTRACE_PLAN_BASE_REG, _CFA or _SP */
	int64_t off;
};

struct plan_need {
	struct plan_range r[PLAN_MAX_RANGES];
	size_t n;
	bool wide;
	struct plan_string str[CTRACE_PLAN_MAX_STR];
	size_t nstr;
	uint64_t regs; /* saved registers read, by DWARF number */
	bool all_regs; /* a caller's call-site values may read any of them */
};

struct plan_ctx {
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
	struct plan_need *need;
};

/* The needs of the parameters of `scope` (c->sub or an inlined copy in
 * it) into c->need. */
void planneed_params(struct plan_ctx *c, Dwarf_Die *scope);
/* The evaluator will read the register reg: saved if the recorder can. */
void planneed_reg(const struct plan_ctx *c, uint64_t reg);
/* Frees what the needs of one module's calls kept (its call sites). */
void planneed_done(void);

#endif /* CTRACE_SYMBOLIZER_DWINFO_H */
