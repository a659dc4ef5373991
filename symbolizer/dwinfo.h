/* dwinfo.h -- what dwinfo.c gives values.c: modules' DWARF, captured state,
 * and DWARF expressions evaluated against it. */
#ifndef CTRACE_SYMBOLIZER_DWINFO_H
#define CTRACE_SYMBOLIZER_DWINFO_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "payload.h"

struct trace;

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
	struct dw_module *next;
};

/* The module's DWARF, opened once; NULL when the file cannot be read. */
struct dw_module *dw_module(const char *path);
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

/* Sets up the state of the instrumented function at the hook's return
 * address pc (runtime): registers, CFA from CFI. */
void frame_init(struct frame_state *f, struct dw_module *m, uint64_t bias,
		const struct capture *c, struct trace *t, uint64_t site,
		uint64_t ticks, uint16_t machine, int ptr_size);

/* Evaluates the location of attr (DW_AT_location) at f's PC into `size`
 * bytes at out.  Returns 0, or -1 with *why set. */
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
/* The CU's producer names clang. */
bool dw_is_clang(Dwarf_Die *die);
/* type is a pointer to char, signed char or unsigned char (qualified or
 * through typedefs). */
bool dw_is_string_type(Dwarf_Die *type);
/* clang on i386: what to add to esp at the hook's return address ra to
 * get the frame base (esp as the body keeps it); false if unknown. */
bool dw_i386_esp_adjust(struct dw_module *m, uint64_t ra, int64_t *adjust);
/* i386: the slot above the CFA (its offset) where a stack parameter whose
 * location list stops before the hook's call at ra still is; see
 * dwinfo.c. */
bool dw_i386_stack_slot(struct dw_module *m, Dwarf_Attribute *loc,
			Dwarf_Die *sub, uint64_t ra, int64_t *slot);
/* clang -O0: the spill slot (frame-base offset) the code after the hook's
 * call at rel_pc copies into the home at `home`; see dwinfo.c. */
bool dw_clang_spill_at(struct dw_module *m, uint16_t machine, uint64_t rel_pc,
		       int64_t home, size_t size, int64_t *spill);

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

/* prologue.c: the entry register (DWARF number; -1: none known, -2: a
 * value the code computed from registers) whose low *width bytes the
 * register `reg` holds at the call instruction `call`; false if the code
 * from `entry` is not understood. */
bool dw_entry_reg_origin(struct dw_module *m, uint64_t entry, uint64_t call,
			 int reg, int *origin, size_t *width);
/* prologue.c: the straight-line code [entry, pc) leaves the register
 * `reg` (DWARF number) holding all of its value at `entry`; false if it
 * does not or is not understood. */
bool dw_entry_reg_kept(struct dw_module *m, uint64_t entry, uint64_t pc,
		       int reg);
/* x86-64: the location in force at f's call names one register, the one
 * at `entry` another, and the code between proves the first does not
 * hold the second's `size` bytes, or a value computed from registers
 * (gcc -Os: `movslq %ebp,%rbp' after
 * moving a struct there, its DWARF still says RBP). */
bool dw_location_contradicted(struct frame_state *f, Dwarf_Attribute *attr,
			      uint64_t entry, size_t size);

/* The location at pc names where a value is (registers, memory, a
 * constant), not a value computed from others.  An inlined copy's
 * parameter described by a computation at the entry hook's call is
 * clang's salvage of a statement of the copy's body the compiler placed
 * before the hook (`p0 * 3 | 8` for p0): not the value passed. */
bool dw_location_plain(Dwarf_Attribute *attr, uint64_t pc);
/* The location in force at pc is a value (computed, or a constant), not
 * the same one as at `entry`: clang gives a parameter at the entry hook's
 * call the value a statement after the hook leaves it (`p0 & 15' as EDI &
 * 15, the and after the call; 0 after a loop moved above the call). */
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
/* The register the location in force at pc names (exactly one), or -1. */
int dw_location_reg(Dwarf_Attribute *attr, uint64_t pc);
/* The register whose value at the function's entry the location in force
 * at pc reads (DW_OP_entry_value of one register), or -1. */
int dw_entry_value_reg(Dwarf_Attribute *attr, uint64_t pc);
/* The address of the memory the location in force at f's call names as
 * a whole (one memory location, no pieces); false for anything else. */
bool dw_location_address(struct frame_state *f, Dwarf_Attribute *attr,
			 uint64_t *addr);
/* i386dec.c: the one i386 decoder. */
#define I386_ESP 4
struct i386_insn {
	unsigned writes;   /* general registers written (bit: number) */
	bool esp_known;    /* esp changes by esp_delta exactly */
	int64_t esp_delta;
	enum { I386_NO_STORE, I386_STORE_ESP, I386_STORE_OTHER } store;
	int64_t store_disp; /* I386_STORE_ESP: from esp before the insn */
	size_t store_len;
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

/* The registers a function's return value comes back in
 * (CTRACE_RETVAL_* bits; 0: void) and *mem, the bytes of a struct returned
 * in memory (values.c). */
unsigned values_ret_regs(Dwarf_Die *fn_die, bool i386, unsigned *mem);
/* x86-64, C, external functions: the general registers (DWARF numbers)
 * and bytes in which the calling convention delivers the parameter
 * `target` of `defn` (values.c).  Returns 1 or 2, or 0. */
int values_param_regs(Dwarf_Die *fn_die, Dwarf_Die *defn, Dwarf_Die *target,
		      int regs[2], size_t lens[2]);

/* The call site in the source of a copy of function `callee` inlined into
 * function `host` (their entry addresses, as the hooks give them) in trace
 * t at `ticks`: the DW_AT_call_file and DW_AT_call_line of its
 * DW_TAG_inlined_subroutine.  Returns true when every inlined copy of
 * callee in host is called from the same line (*file points into the
 * DWARF, valid until dw_modules_free); false when there is none, or
 * several on different lines (which one ran is not known). */
bool dw_inlined_call_site(struct trace *t, uint64_t host, uint64_t callee,
			  uint64_t ticks, const char **file, unsigned *line);

#endif /* CTRACE_SYMBOLIZER_DWINFO_H */
