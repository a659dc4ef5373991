/* values.h -- arguments and return values, from captured machine state
 * and the program's DWARF (elfutils libdw); the capture plan.
 *
 *   values.c    a call's values built, the return value, tree and JSON
 *   args.c      a call's arguments: which location to trust, and why not
 *   cache.c     a call's values by recipe, remembered, or decoded in full
 *   memo.c      a call's values remembered by its pair and payload bytes
 *   recipe.c    a call's arguments read by the recipe of a call like it
 *   format.c    typed bytes as text
 *   types.c     DWARF types followed, sized and named
 *   abi.c       the calling conventions: return registers, parameters
 *   locwalk.c   the one DWARF location walker, over bytes or symbols
 *   frame.c     the walker over a call's captured registers and stack
 *   entryval.c  DW_OP_entry_value, at the caller's call site
 *   loclist.c   questions about a location list, without evaluating it
 *   x86/        the machine code before the hook, decoded:
 *     prologue.c  x86-64: registers the code before the hook copied
 *     i386dec.c   the one i386 decoder
 *     i386loc.c   i386: frame base and stack parameters around the hook
 *     x87const.c  constants the x87 converted (a stale DWARF constant)
 *   libcall.c   library calls' values, typed by the library's DWARF or
 *               the prototype table
 *   libtypes.c  a library function's prototype from the library's DWARF
 *   dwinfo.c    modules' DWARF: files, code, function and scope at a PC
 *   plan.c      the capture plan: the hook calls of a program
 *   planneed.c  what one hook call needs saved (the walker over symbols)
 *
 * dwinfo.h is the stage's private header.  A value that cannot be
 * recovered is never guessed: it is shown as `?` with the reason.
 */
#ifndef CTRACE_SYMBOLIZER_VALUES_H
#define CTRACE_SYMBOLIZER_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct trace;
struct outbuf;

/* What the values of a call need to know of it, from the replay stage's
 * pair: the function's and the call site's addresses, the time the pair
 * was first seen (which modules were loaded), and the function's name
 * (for the no-debug-information hint). */
struct values_call {
	uint64_t fn, site, ticks;
	const char *name;
	bool libcall; /* a library call: fn is its GOT slot (libcall.c) */
	/* A library call's: the function the slot was bound to (0: not
	 * known) and the relocation's symbol, as the trace has them. */
	uint64_t target;
	const char *symbol;
};

/* One argument or return value, as shown. */
struct value {
	char *name; /* parameter name; NULL for a return value */
	char *type; /* C type as written, "" when unknown */
	char *text; /* the value, NULL when unavailable */
	const char *why; /* when unavailable: "optimized out", ... */
	size_t len; /* text's length, when values have pieces (recipe.c) */
};

struct values_pieces;
struct values_shown;

struct values {
	size_t n;
	unsigned refs; /* owners besides the first (memo.c shares values) */
	bool packed;   /* the strings live in v's own allocation */
	bool unknown; /* the parameters are unknown, for the reason: */
	const char *unknown_why; /* "no debug information", ... */
	/* The output around the texts, the same for every call of a
	 * recipe (recipe.c; values.c writes it), or NULL. */
	const struct values_pieces *pieces;
	/* Shared values (memo.c): their output as written the first time,
	 * made then (values.c); or NULL. */
	struct values_shown *shown;
	struct value v[];
};

/* The arguments of a call from its ARGS payload; never NULL. */
struct values *values_args(struct trace *t, const struct values_call *p,
			   const uint8_t *payload, size_t len);
/* The return value of a call from its RETVAL payload; NULL for a
 * function that returns nothing. */
struct values *values_retval(struct trace *t, const struct values_call *p,
			     const uint8_t *payload, size_t len);
void values_free(struct values *v);

/* Output: "a=1, b=?" and " = 29" (tree), `, "args": [...]` (JSON). */
void values_put_args_tree(struct outbuf *o, const struct values *v);
void values_put_ret_tree(struct outbuf *o, const struct values *v);
void values_put_args_json(struct outbuf *o, const struct values *v);
void values_put_ret_json(struct outbuf *o, const struct values *v);

/* The capture plan (plan.c), written by ctrace-symbolize --make-plan:
 * its first line, then one module's part: the module line and an entry per
 * call of the entry hook.  plan_module reports a program it cannot plan
 * and returns -1. */
void plan_header(FILE *out);
int plan_module(FILE *out, const char *path);

/* The call site in the source of a copy of function `callee` inlined into
 * function `host` (their entry addresses, as the hooks give them) in trace
 * t at `ticks`: the DW_AT_call_file and DW_AT_call_line of its
 * DW_TAG_inlined_subroutine.  That of the copy holding the call of the
 * entry hook whose return address is `hook` (0: unknown); failing that,
 * true when every inlined copy of callee in host is called from the same
 * line (*file points into the DWARF, valid until values_reset); false
 * when there is none, or several on different lines (which one ran is
 * not known). */
bool dw_inlined_call_site(struct trace *t, uint64_t host, uint64_t callee,
			  uint64_t hook, uint64_t ticks, const char **file,
			  unsigned *line);
/* Of the inlined copies of functions fns[0..n_fns) (their entry
 * addresses, as the hooks give them), open one in the other, outermost
 * first, how many (a prefix) hold the code at pc in trace t at `ticks`,
 * as the DWARF of pc's function nests its inlined subroutines; -1 when
 * that DWARF is not at hand. */
int dw_copies_holding(struct trace *t, uint64_t pc, uint64_t ticks,
		      const uint64_t *fns, size_t n_fns);

/* Frees the DWARF of every module (at the end of a trace). */
void values_reset(void);

#endif /* CTRACE_SYMBOLIZER_VALUES_H */
