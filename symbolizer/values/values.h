/* values.h -- arguments and return values, from captured machine state
 * and the program's DWARF (elfutils libdw).
 *
 *   dwinfo.c  modules' DWARF and CFI, the function at a PC, DWARF
 *             expressions evaluated against the captured registers and
 *             stack (with DW_OP_entry_value resolved at the caller's call
 *             site)
 *   values.c  typed values as text, return values by the calling
 *             convention, the output helpers of the tree and JSON
 *
 * A value that cannot be recovered is never guessed: it is shown as `?`
 * with the reason.
 */
#ifndef CTRACE_SYMBOLIZER_VALUES_H
#define CTRACE_SYMBOLIZER_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trace;
struct pair;
struct outbuf;

/* One argument or return value, as shown. */
struct value {
	char *name; /* parameter name; NULL for a return value */
	char *type; /* C type as written, "" when unknown */
	char *text; /* the value, NULL when unavailable */
	const char *why; /* when unavailable: "optimized out", ... */
};

struct values {
	size_t n;
	bool unknown; /* the parameters are unknown, for the reason: */
	const char *unknown_why; /* "no debug information", ... */
	struct value v[];
};

/* The arguments of a call from its ARGS payload; never NULL. */
struct values *values_args(struct trace *t, const struct pair *p,
			   const uint8_t *payload, size_t len);
/* The return value of a call from its RETVAL payload; NULL for a
 * function that returns nothing. */
struct values *values_retval(struct trace *t, const struct pair *p,
			     const uint8_t *payload, size_t len);
void values_free(struct values *v);

/* Output: "a=1, b=?" and " = 29" (tree), `, "args": [...]` (JSON). */
void values_put_args_tree(struct outbuf *o, const struct values *v);
void values_put_ret_tree(struct outbuf *o, const struct values *v);
void values_put_args_json(struct outbuf *o, const struct values *v);
void values_put_ret_json(struct outbuf *o, const struct values *v);

/* ctrace-symbolize --make-plan ARGS... (plan.c); returns the exit
 * status. */
int plan_main(int argc, char **argv);

/* Frees the DWARF of every module (at the end of a trace). */
void values_reset(void);

#endif /* CTRACE_SYMBOLIZER_VALUES_H */
