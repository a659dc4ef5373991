/* libcall.c -- the arguments and return values of library calls (calls
 * through a GOT slot the recorder redirected, lib/plt.c).
 *
 * The recorder saved, at the call, the argument registers the prototype
 * table (include/ctrace_protos.def) names for the function (all six
 * integer ones, xmm0-7 and the first 32 bytes of the stack arguments
 * when it names none) with the text of its string arguments, and at the
 * return rax and xmm0 (and rdx, xmm1, st(0) when it held a value, st(1)
 * when it did too (a RETVAL_ST1 record), and the memory rax points to
 * when in the stack, when the table names none or the function returns
 * a _Complex long double, whose argument is on the stack).
 * On i386 (cdecl) it saved the words of the arguments on the stack above
 * the return address (six when the table names none), and at the return
 * eax, edx and st(0) when it held a value (and the memory eax points to
 * when in the stack, when the table names none).  The types come, in
 * order, from:
 *   1. the library's own DWARF, when its debug file is found
 *      (libtypes.c): the declaration of the code that ran, its values
 *      where the ABI (abi.c) placed them;
 *   2. else the table, written from the C and POSIX standards;
 *   3. else nothing: the raw integer argument registers and rax (i386:
 *      stack words and eax), named as such (`malloc(rdi=0x20)`), and the
 *      symbolizer says once that no prototype is known.
 * Where the DWARF and the table disagree, the DWARF is right about the
 * types and names: it describes the code that ran (`open` is glibc's
 * `__libc_open64 (const char *file, int oflag, ...)`, `malloc`'s
 * parameter is `bytes`), the table only the standard's declaration,
 * which a library may widen or extend.  The table stays right about
 * three things: what was saved (the recorder reads nothing else, so a
 * `char *` the table does not list as a string shows its pointer, never
 * text read afterwards, and of its functions only the floating-point
 * registers it lists are saved); the names of the parameters of an
 * IFUNC, whose DWARF type names none; and how open(2)'s flags and modes
 * read (`O_RDONLY`, octal), the same bits the DWARF calls an int.
 * A value is the register's as the ABI passed it (an int is the low 32
 * bits of its register; on i386 a long is 32 bits, a long long edx:eax,
 * a double or float returned st(0) rounded to its type as the caller's
 * store rounds it), or `?` with the reason.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrace_format.h"
#include "ctrace_protos.h"
#include "trace/trace.h"
#include "util/util.h"
#include "values/dwinfo.h"
#include "values/values.h"

#define CTRACE_ARG(kind, name) {CTRACE_PROTO_##kind, #name}
struct proto_arg {
	uint8_t kind;
	const char *name;
};
struct proto_src {
	const char *name;
	uint8_t ret, variadic;
	struct proto_arg arg[CTRACE_PROTO_MAX_ARGS];
};
#define CTRACE_PROTO(name, ret, variadic, ...)                               \
	{#name, CTRACE_PROTO_##ret, variadic, {__VA_ARGS__}},
static const struct proto_src protos[] = {
#include "ctrace_protos.def"
};
#undef CTRACE_PROTO
#undef CTRACE_ARG

#define N_PROTOS (sizeof protos / sizeof protos[0])

static const struct proto_src *by_name[N_PROTOS];

static int src_cmp(const void *a, const void *b)
{
	const struct proto_src *x = *(const struct proto_src *const *)a;
	const struct proto_src *y = *(const struct proto_src *const *)b;
	return strcmp(x->name, y->name);
}

static const struct proto_src *proto_find(const char *name)
{
	static bool sorted;
	if (!sorted) {
		for (size_t i = 0; i < N_PROTOS; i++)
			by_name[i] = &protos[i];
		qsort(by_name, N_PROTOS, sizeof by_name[0], src_cmp);
		sorted = true;
	}
	struct proto_src key = {.name = name};
	const struct proto_src *k = &key;
	const struct proto_src *const *r =
		bsearch(&k, by_name, N_PROTOS, sizeof by_name[0], src_cmp);
	return r ? *r : NULL;
}

static const char *const kind_type[CTRACE_PROTO_N_KINDS] = {
	[CTRACE_PROTO_VOID] = "void",
	[CTRACE_PROTO_INT] = "int",
	[CTRACE_PROTO_UINT] = "unsigned int",
	[CTRACE_PROTO_LONG] = "long",
	[CTRACE_PROTO_ULONG] = "unsigned long",
	[CTRACE_PROTO_LLONG] = "long long",
	[CTRACE_PROTO_ULLONG] = "unsigned long long",
	[CTRACE_PROTO_SIZE] = "size_t",
	[CTRACE_PROTO_SSIZE] = "ssize_t",
	[CTRACE_PROTO_OFF] = "off_t",
	[CTRACE_PROTO_MODE] = "mode_t",
	[CTRACE_PROTO_FD] = "int",
	[CTRACE_PROTO_OFLAGS] = "int",
	[CTRACE_PROTO_CHAR] = "int",
	[CTRACE_PROTO_CSTR] = "const char *",
	[CTRACE_PROTO_BUF] = "char *",
	[CTRACE_PROTO_PTR] = "void *",
	[CTRACE_PROTO_CPTR] = "const void *",
	[CTRACE_PROTO_FILE] = "FILE *",
	[CTRACE_PROTO_PTHREAD] = "pthread_t",
	[CTRACE_PROTO_DOUBLE] = "double",
	[CTRACE_PROTO_FLOAT] = "float",
	[CTRACE_PROTO_CLDOUBLE] = "complex long double",
};

/* x86-64's integer argument registers, by DWARF number and name, and
 * xmm0's number. */
static const uint8_t int_regno[6] = {5, 4, 1, 2, 8, 9};
static const char *const int_regname[6] = {"rdi", "rsi", "rdx",
					   "rcx", "r8",  "r9"};
#define DW_XMM0 17

static void add(struct values_build *vb, const char *name, const char *type,
		char *text, const char *why)
{
	if (vb->n == vb->cap) {
		vb->cap = vb->cap ? 2 * vb->cap : 8;
		vb->v = must_realloc(vb->v, vb->cap, sizeof *vb->v);
	}
	vb->v[vb->n++] = (struct value){
		name ? must_strndup(name, strlen(name)) : NULL,
		must_strndup(type, strlen(type)), text, text ? NULL : why, 0};
}

static char *text_of(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *text_of(const char *fmt, ...)
{
	struct str b = {0};
	char buf[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	str_cat(&b, buf);
	return str_take(&b);
}

static char *pointer_text(uint64_t v)
{
	return v ? text_of("0x%" PRIx64, v) : text_of("NULL");
}

/* open(2)'s flags: the access mode, then the flags Linux defines, by
 * name; bits left over in hex. */
static char *oflags_text(uint32_t v)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = {
		{O_CREAT, "O_CREAT"},	  {O_EXCL, "O_EXCL"},
		{O_NOCTTY, "O_NOCTTY"},	  {O_TRUNC, "O_TRUNC"},
		{O_APPEND, "O_APPEND"},	  {O_NONBLOCK, "O_NONBLOCK"},
		{O_DSYNC, "O_DSYNC"},	  {O_DIRECTORY, "O_DIRECTORY"},
		{O_NOFOLLOW, "O_NOFOLLOW"}, {O_CLOEXEC, "O_CLOEXEC"},
	};
	struct str b = {0};
	uint32_t acc = v & O_ACCMODE;
	str_cat(&b, acc == O_RDONLY   ? "O_RDONLY"
		    : acc == O_WRONLY ? "O_WRONLY"
		    : acc == O_RDWR   ? "O_RDWR"
				      : "3");
	v &= ~(uint32_t)O_ACCMODE;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (v & names[i].bit) {
			str_cat(&b, "|");
			str_cat(&b, names[i].name);
			v &= ~names[i].bit;
		}
	if (v)
		str_printf(&b, "|0x%" PRIx32, v);
	return str_take(&b);
}

/* A string argument: its text as saved at the call (at most
 * CTRACE_STRLEN bytes: `"abc"...` when it went on), an empty block for a
 * pointer that could not be read, none when no text was saved. */
static char *string_text(const struct capture *c, uint64_t a)
{
	if (a == 0)
		return text_of("NULL");
	bool unreadable = false;
	for (size_t i = 0; i < c->nblocks; i++) {
		const struct capture_block *blk = &c->blocks[i];
		if (blk->addr != a)
			continue;
		if (blk->len == 0) {
			unreadable = true;
			continue;
		}
		struct str b = {0};
		size_t n = strnlen((const char *)blk->bytes, blk->len);
		str_cat(&b, "\"");
		for (size_t k = 0; k < n; k++) {
			char e[4];
			str_add(&b, e, escape_c_byte(blk->bytes[k], '"', e));
		}
		str_cat(&b, n == blk->len ? "\"..." : "\"");
		return str_take(&b);
	}
	if (unreadable)
		return text_of("0x%" PRIx64 " <unreadable>", a);
	return pointer_text(a);
}

/* A _Complex long double's text from its real part's 10 bytes at re and
 * its imaginary part's at im (x87 extended). */
static char *cld_text(const uint8_t *re, const uint8_t *im)
{
	long double x[2] = {0, 0};
	_Static_assert(sizeof x[0] >= 10, "long double holds 10 bytes");
	memcpy(&x[0], re, 10);
	memcpy(&x[1], im, 10);
	return text_of("%.21Lg%+.21Lgi", x[0], x[1]);
}

/* The text of a value of kind k in the 8 bytes of its register. */
static char *kind_text(uint8_t k, uint64_t v, const struct capture *c)
{
	double d;
	float f;
	switch (k) {
	case CTRACE_PROTO_INT:
	case CTRACE_PROTO_FD:
	case CTRACE_PROTO_CHAR:
		return text_of("%" PRId32, (int32_t)(uint32_t)v);
	case CTRACE_PROTO_UINT:
		return text_of("%" PRIu32, (uint32_t)v);
	case CTRACE_PROTO_LONG:
	case CTRACE_PROTO_LLONG:
	case CTRACE_PROTO_SSIZE:
	case CTRACE_PROTO_OFF:
		return text_of("%" PRId64, (int64_t)v);
	case CTRACE_PROTO_ULONG:
	case CTRACE_PROTO_ULLONG:
	case CTRACE_PROTO_SIZE:
		return text_of("%" PRIu64, v);
	case CTRACE_PROTO_MODE:
		return text_of("0%" PRIo32, (uint32_t)v);
	case CTRACE_PROTO_OFLAGS:
		return oflags_text((uint32_t)v);
	case CTRACE_PROTO_CSTR:
		return c ? string_text(c, v) : pointer_text(v);
	case CTRACE_PROTO_PTHREAD:
		return text_of("0x%" PRIx64, v);
	case CTRACE_PROTO_DOUBLE:
		memcpy(&d, &v, 8);
		return text_of("%.17g", d);
	case CTRACE_PROTO_FLOAT:
		memcpy(&f, &v, 4);
		return text_of("%.9g", (double)f);
	default:
		return pointer_text(v);
	}
}

static bool reg_value(const struct capture *c, uint8_t regno, uint64_t *v)
{
	for (int i = 0; i < c->nregs; i++)
		if (c->regno[i] == regno) {
			*v = c->regval[i];
			return true;
		}
	return false;
}

/* Functions named by no_proto_hint. */
static struct {
	char **names;
	size_t n;
} hinted;

/* Raw registers are a puzzle without the why: said once per function.
 * debug: the library's debug information was found, and types no such
 * function. */
static void no_proto_hint(const char *name, bool i386, bool debug)
{
	for (size_t i = 0; i < hinted.n; i++)
		if (!strcmp(hinted.names[i], name))
			return;
	hinted.names = must_realloc(hinted.names, hinted.n + 1,
				    sizeof *hinted.names);
	hinted.names[hinted.n++] = must_strndup(name, strlen(name));
	fputs(PROGRAM_NAME ": no prototype known for the library function ",
	      stderr);
	for (const char *s = name; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s,
		      stderr);
	fputs(i386 ? ": its calls show their first stack words and eax, raw"
		   : ": its calls show their integer argument registers and "
		     "rax, raw",
	      stderr);
	if (debug)
		fputs(" (the library's debug information does not type it: "
		      "assembly, or not C)\n",
		      stderr);
	else
		fprintf(stderr,
			" (for types, install the library's debug package, "
			"as %s for the C library, or give its directory "
			"with --debug-dir)\n",
			i386 ? "libc6-dbg:i386" : "libc6-dbg");
}

void libcall_forget_hints(void)
{
	for (size_t i = 0; i < hinted.n; i++)
		free(hinted.names[i]);
	free(hinted.names);
	hinted.names = NULL;
	hinted.n = 0;
}

/* A value of the type of kind k in the bytes [p, p + size): by its
 * kind when the type has one (no DWARF read), else from the DWARF. */
static char *typed_text(enum fmt_kind k, const struct capture *c,
			int ptr_size, const Dwarf_Die *type, const uint8_t *p,
			size_t size)
{
	if (k == FMT_OTHER)
		return format_text(c, ptr_size, (Dwarf_Die *)type, p, size);
	char out[FMT_TEXT_MAX + 1];
	size_t n = format_kind_text(k, ptr_size, p, size, out);
	return must_strndup(out, n);
}

/* The bytes of a parameter the ABI passed in registers, from the saved
 * ones; NULL, or the reason they are not all there. */
static const char *param_bytes(const struct capture *c,
			       const struct abi_param *at, uint8_t *buf)
{
	for (int i = 0; i < at->nregs; i++) {
		uint64_t v;
		if (!reg_value(c, (uint8_t)at->regs[i], &v))
			return at->regs[i] >= ABI_DW_XMM0
				       ? "not captured (the prototype table "
					 "lists fewer floating-point "
					 "parameters, or the recorder predates "
					 "their capture)"
				       : "not captured (the prototype table "
					 "lists fewer parameters)";
		memcpy(buf + at->offs[i], &v, at->lens[i]);
	}
	return NULL;
}

/* The bytes of a parameter passed on the stack, from the words above
 * the return address (c->sp) saved at the call: on i386 the table's
 * (6 for a function it does not list), on x86-64 none for a function it
 * lists, else the first 4; NULL, or the reason they are not all
 * there. */
static const char *stack_bytes(const struct capture *c,
			       const struct abi_param *at,
			       const struct proto_src *pr, int ptr_size,
			       uint8_t *buf, size_t cap)
{
	if (at->stack_off == ABI_STACK_UNKNOWN)
		return "passed on the stack, where is not known (after a "
		       "parameter of unknown alignment)";
	if (at->size > cap)
		return "not shown (its size)";
	if (capture_read(c, c->sp + (uint64_t)ptr_size + at->stack_off, buf,
			 at->size))
		return NULL;
	if (ptr_size == 4)
		return pr ? "not captured (the prototype table lists fewer "
			    "parameters)"
			  : "not captured (past the 6 stack words saved at a "
			    "call of a function the prototype table does not "
			    "list)";
	return pr ? "passed on the stack, which is not saved at a call of a "
		    "function the prototype table lists"
		  : "not captured (past the 32 bytes of stack arguments saved "
		    "at a call of a function the prototype table does not "
		    "list, or the recorder predates their capture)";
}

/* The arguments typed by the library's DWARF.  A parameter it leaves
 * unnamed (an IFUNC's type) has the table's name when the table lists
 * as many, else its position's.  i386 (ptr_size 4): all of them on the
 * stack. */
static struct values *dwarf_args(const struct libtype *lt,
				 const struct proto_src *pr,
				 const struct capture *c, int ptr_size)
{
	struct values_build vb = {0};
	size_t table_n = 0;
	while (pr && table_n < CTRACE_PROTO_MAX_ARGS &&
	       pr->arg[table_n].kind != CTRACE_PROTO_VOID)
		table_n++;
	for (size_t k = 0; k < lt->n; k++) {
		const struct libtype_param *q = &lt->param[k];
		char pos[24];
		const char *name = q->name;
		if (!name && table_n == lt->n)
			name = pr->arg[k].name;
		if (!name) {
			snprintf(pos, sizeof pos, "arg%zu", k + 1);
			name = pos;
		}
		const char *type = q->type_name ? q->type_name : "";
		uint8_t buf[64] = {0};
		const char *why =
			!q->type_name ? "its type is not known"
			: q->at.kind == ABI_PARAM_STACK
				? stack_bytes(c, &q->at, pr, ptr_size, buf,
					      sizeof buf)
			: q->at.kind != ABI_PARAM_REGS
				? "where it is passed is not known"
				: param_bytes(c, &q->at, buf);
		char *text = NULL;
		/* open(2)'s flags and a mode read better by name and in
		 * octal, as the table shows them: the same bits, when the
		 * DWARF's type is an integer of their size */
		if (!why && table_n == lt->n && q->at.size == 4 &&
		    (q->kind == FMT_SIGNED || q->kind == FMT_UNSIGNED) &&
		    (pr->arg[k].kind == CTRACE_PROTO_OFLAGS ||
		     pr->arg[k].kind == CTRACE_PROTO_MODE))
			text = kind_text(pr->arg[k].kind, load_u32(buf), NULL);
		else if (!why && q->string && q->at.size == 8)
			text = string_text(c, load_u64(buf));
		else if (!why && q->string && q->at.size == 4 && ptr_size == 4)
			text = string_text(c, load_u32(buf));
		else if (!why)
			text = typed_text(q->kind, c, ptr_size, &q->type, buf,
					  q->at.size);
		add(&vb, name, type, text, why);
	}
	if (lt->variadic)
		add(&vb, "...", "", NULL,
		    "variadic: the fixed arguments alone are shown");
	return values_finish(&vb, false);
}

/* The 4-byte kinds i386 sign-extends from 32 bits (kind_text takes
 * them as 64-bit, as on x86-64). */
static uint64_t i386_widen(uint8_t k, uint64_t v)
{
	if (k == CTRACE_PROTO_LONG || k == CTRACE_PROTO_SSIZE ||
	    k == CTRACE_PROTO_OFF)
		return (uint64_t)(int64_t)(int32_t)(uint32_t)v;
	return CTRACE_PROTO_WORDS32(k) == 2 ? v : (uint32_t)v;
}

/* i386: the arguments in the block of stack words above the return
 * address (c->sp) the recorder saved. */
static struct values *libcall_args_i386(const struct values_call *p,
					const struct capture *c,
					struct values_build *vb, bool debug)
{
	const struct proto_src *pr = proto_find(p->name);
	uint64_t at = c->sp + 4;
	if (pr == NULL) {
		no_proto_hint(p->name, true, debug);
		for (unsigned i = 0; i < 6; i++) {
			uint32_t w;
			char name[16];
			snprintf(name, sizeof name, "[esp+%u]", 4 * (i + 1));
			bool have = capture_read(c, at + 4 * i, &w, 4);
			add(vb, name, "stack word (no prototype known)",
			    have ? text_of("0x%" PRIx32, w) : NULL,
			    "not captured");
		}
		return values_finish(vb, false);
	}
	/* the address of the caller's buffer comes first */
	if (pr->ret == CTRACE_PROTO_CLDOUBLE)
		at += 4;
	for (int i = 0; i < CTRACE_PROTO_MAX_ARGS; i++) {
		const struct proto_arg *a = &pr->arg[i];
		if (a->kind == CTRACE_PROTO_VOID)
			break;
		unsigned size = 4 * CTRACE_PROTO_WORDS32(a->kind);
		uint64_t v = 0;
		if (a->kind == CTRACE_PROTO_CLDOUBLE) {
			/* 24 bytes: each part in 12 */
			uint8_t b[24];
			bool have = capture_read(c, at, b, sizeof b);
			add(vb, a->name, kind_type[a->kind],
			    have ? cld_text(b, b + 12) : NULL, "not captured");
			at += size;
			continue;
		}
		if (!capture_read(c, at, &v, size))
			add(vb, a->name, kind_type[a->kind], NULL,
			    "not captured");
		else
			add(vb, a->name, kind_type[a->kind],
			    kind_text(a->kind, i386_widen(a->kind, v), c),
			    NULL);
		at += size;
	}
	if (pr->variadic)
		add(vb, "...", "", NULL,
		    "variadic: the fixed arguments alone are shown");
	return values_finish(vb, false);
}

struct values *libcall_args(struct trace *t, const struct values_call *p,
			    const uint8_t *payload, size_t len)
{
	struct values_build vb = {0};
	struct capture c;
	if (len == 0 || capture_parse(payload, len, &c) < 0) {
		add(&vb, NULL, "", NULL, "not captured");
		return values_finish_unknown(&vb, "not captured");
	}
	const struct proto_src *pr = proto_find(p->name);
	bool debug;
	const struct libtype *lt = libtypes_of(t, p, &debug);
	if (lt != NULL)
		return dwarf_args(lt, pr, &c, t->hdr.pointer_size == 4 ? 4 : 8);
	if (t->hdr.pointer_size == 4)
		return libcall_args_i386(p, &c, &vb, debug);
	if (pr == NULL) {
		no_proto_hint(p->name, false, debug);
		for (unsigned i = 0; i < 6; i++) {
			uint64_t v;
			bool have = reg_value(&c, int_regno[i], &v);
			add(&vb, int_regname[i], "register (no prototype known)",
			    have ? text_of("0x%" PRIx64, v) : NULL,
			    "not captured");
		}
		return values_finish(&vb, false);
	}
	unsigned nint = 0, nfp = 0;
	uint64_t stack_at = c.sp + 8; /* above the return address */
	for (int i = 0; i < CTRACE_PROTO_MAX_ARGS; i++) {
		const struct proto_arg *a = &pr->arg[i];
		if (a->kind == CTRACE_PROTO_VOID)
			break;
		if (CTRACE_PROTO_IS_MEM(a->kind)) {
			/* on the stack, 32 bytes: each part in 16 */
			uint8_t b[32];
			bool have = capture_read(&c, stack_at, b, sizeof b);
			add(&vb, a->name, kind_type[a->kind],
			    have ? cld_text(b, b + 16) : NULL,
			    "not captured (past the 32 bytes of stack "
			    "arguments saved)");
			stack_at += sizeof b;
			continue;
		}
		uint8_t regno = CTRACE_PROTO_IS_FP(a->kind)
					? (uint8_t)(DW_XMM0 + nfp++)
					: int_regno[nint++];
		uint64_t v;
		if (!reg_value(&c, regno, &v))
			add(&vb, a->name, kind_type[a->kind], NULL,
			    "not captured");
		else
			add(&vb, a->name, kind_type[a->kind],
			    kind_text(a->kind, v, &c), NULL);
	}
	if (pr->variadic)
		add(&vb, "...", "", NULL,
		    "variadic: the fixed arguments alone are shown");
	return values_finish(&vb, false);
}

/* Where each return register lies in the expanded payload. */
static size_t ret_at(unsigned reg)
{
	switch (reg) {
	case CTRACE_RETVAL_R0:
		return CTRACE_RETVAL_AT_R0;
	case CTRACE_RETVAL_R1:
		return CTRACE_RETVAL_AT_R1;
	case CTRACE_RETVAL_XMM0:
		return CTRACE_RETVAL_AT_XMM0;
	default:
		return CTRACE_RETVAL_AT_XMM1;
	}
}

/* The return value typed by the library's DWARF, from the expanded
 * payload full (the fields have): what rax, rdx, xmm0 and xmm1 hold of
 * it (rdx and xmm1 saved for the functions the prototype table does not
 * list), st(0) (a long double; on i386 a float or double too) and the
 * memory r0 points to (a struct returned in memory, saved for the
 * functions the table does not list when it lies in the stack), and on
 * x86-64 st(1) with st(0), a _Complex long double's parts (st1: its 10
 * bytes from a RETVAL_ST1, NULL when not saved).  i386: eax and edx for
 * r0 and r1. */
static struct values *dwarf_retval(const struct libtype *lt,
				   const uint8_t *full, unsigned have,
				   const uint8_t *st1, bool i386)
{
	struct values_build vb = {0};
	uint8_t buf[CTRACE_RETVAL_MEM_MAX] = {0};
	const char *why = NULL;
	size_t size = lt->abi.size;
	switch (lt->abi.kind) {
	case ABI_RET_REGS:
		for (size_t i = 0; i < lt->abi.npieces && !why; i++) {
			const struct abi_piece *pc = &lt->abi.piece[i];
			if (!(have & pc->reg))
				why = pc->reg == CTRACE_RETVAL_R1 ||
					      pc->reg == CTRACE_RETVAL_XMM1
					      ? "returned partly in rdx or "
						"xmm1, not saved at this call's "
						"return (the prototype table "
						"lists the function, or the "
						"recorder predates their "
						"capture)"
					      : "not captured";
			else
				memcpy(buf + pc->off, full + ret_at(pc->reg),
				       pc->len);
		}
		break;
	case ABI_RET_X87:
		if (!(have & CTRACE_RETVAL_ST0)) {
			why = i386 ? "not captured (st(0) held no value at the "
				     "return)"
				   : "returned in st0, not saved at this call's "
				     "return (st(0) held no value, the "
				     "prototype table lists the function, or "
				     "the recorder predates its capture)";
			break;
		}
		/* st(0) holds it in its own precision: rounded to the type's
		 * as the caller's store rounds it */
		long double x = 0;
		memcpy(&x, full + CTRACE_RETVAL_AT_ST0, CTRACE_RETVAL_ST0_BYTES);
		if (size == 4) {
			float f = (float)x;
			memcpy(buf, &f, 4);
		} else if (size == 8) {
			double d = (double)x;
			memcpy(buf, &d, 8);
		} else if (size <= sizeof buf) {
			memcpy(buf, full + CTRACE_RETVAL_AT_ST0,
			       CTRACE_RETVAL_ST0_BYTES);
		}
		break;
	case ABI_RET_MEMORY: {
		/* the caller's buffer, whose address comes back in r0 */
		uint64_t addr = load_u64(full + CTRACE_RETVAL_AT_MEM_ADDR);
		uint64_t r0 = load_u64(full + CTRACE_RETVAL_AT_R0);
		if (i386)
			r0 = (uint32_t)r0;
		if (!(have & CTRACE_RETVAL_MEM) || addr != r0 ||
		    full[CTRACE_RETVAL_AT_MEM_LEN] < size || size > sizeof buf)
			why = "returned in memory, not saved at this call's "
			      "return (the recorder saves 32 bytes of it for a "
			      "function the prototype table does not list, "
			      "when the caller's buffer is in the stack)";
		else
			memcpy(buf, full + CTRACE_RETVAL_AT_MEM, size);
		break;
	}
	case ABI_RET_X87_PAIR:
		/* the real part in st0, the imaginary in st1, each in the
		 * first 10 bytes of its half of the 32 */
		if (!(have & CTRACE_RETVAL_ST0) || st1 == NULL ||
		    size != 2 * 16) {
			why = "returned in st0 and st1, not saved at this call's "
			      "return (they held no value, the prototype table "
			      "lists the function, or the recorder predates "
			      "the capture of st1)";
			break;
		}
		memcpy(buf, full + CTRACE_RETVAL_AT_ST0, CTRACE_RETVAL_ST0_BYTES);
		memcpy(buf + 16, st1, CTRACE_RETVAL_ST1_BYTES);
		break;
	default:
		why = "not shown (its size)";
	}
	add(&vb, NULL, lt->ret_name,
	    why ? NULL
		: typed_text(lt->ret_kind, NULL, i386 ? 4 : 8, &lt->ret, buf,
			     size),
	    why);
	return values_finish(&vb, false);
}

/* The _Complex long double a function the table lists returned, from
 * the expanded payload full (have: its fields): x86-64 st(0) and st(1)
 * (st1: a RETVAL_ST1's, NULL when none), i386 the caller's buffer eax
 * points to; NULL and *why when it was not saved. */
static char *cld_ret_text(const uint8_t *full, unsigned have,
			  const uint8_t *st1, bool i386, const char **why)
{
	if (!i386) {
		if ((have & CTRACE_RETVAL_ST0) && st1 != NULL)
			return cld_text(full + CTRACE_RETVAL_AT_ST0, st1);
		*why = "not captured (st(0) and st(1) held no value at the "
		       "return, or the recorder predates the capture of st1)";
		return NULL;
	}
	uint64_t addr = load_u64(full + CTRACE_RETVAL_AT_MEM_ADDR);
	uint64_t r0 = (uint32_t)load_u64(full + CTRACE_RETVAL_AT_R0);
	if ((have & CTRACE_RETVAL_MEM) && addr == r0 &&
	    full[CTRACE_RETVAL_AT_MEM_LEN] >= 24)
		return cld_text(full + CTRACE_RETVAL_AT_MEM,
				full + CTRACE_RETVAL_AT_MEM + 12);
	*why = "returned in memory, not saved at this call's return (the "
	       "caller's buffer is not in the stack)";
	return NULL;
}

/* i386: the value of kind k in eax, edx and st(0) (have: the RETVAL's
 * fields), as 8 bytes kind_text reads; false when it is not there (a
 * floating-point value with st(0) empty). */
static bool ret_i386(uint8_t k, const uint8_t *full, unsigned have,
		     uint64_t *v)
{
	if (CTRACE_PROTO_IS_FP(k)) {
		long double x;
		if (!(have & CTRACE_RETVAL_ST0) || sizeof x < 10)
			return false;
		memset(&x, 0, sizeof x);
		memcpy(&x, full + CTRACE_RETVAL_AT_ST0, CTRACE_RETVAL_ST0_BYTES);
		*v = 0;
		if (k == CTRACE_PROTO_FLOAT) {
			float f = (float)x;
			memcpy(v, &f, 4);
		} else {
			double d = (double)x;
			memcpy(v, &d, 8);
		}
		return true;
	}
	if (!(have & CTRACE_RETVAL_R0))
		return false;
	uint64_t lo = (uint32_t)load_u64(full + CTRACE_RETVAL_AT_R0);
	if (CTRACE_PROTO_WORDS32(k) == 2) {
		if (!(have & CTRACE_RETVAL_R1))
			return false;
		lo |= load_u64(full + CTRACE_RETVAL_AT_R1) << 32;
	}
	*v = i386_widen(k, lo);
	return true;
}

struct values *libcall_retval(struct trace *t, const struct values_call *p,
			      const uint8_t *payload, size_t len)
{
	struct values_build vb = {0};
	bool i386 = t->hdr.pointer_size == 4;
	const struct libtype *lt = libtypes_of(t, p, NULL);
	const struct proto_src *pr = lt ? NULL : proto_find(p->name);
	if (lt ? !lt->have_ret
	       : pr != NULL && pr->ret == CTRACE_PROTO_VOID)
		return NULL;
	const char *type = lt	   ? lt->ret_name
			   : pr	   ? kind_type[pr->ret]
			   : i386 ? "register eax (no prototype known)"
				  : "register rax (no prototype known)";
	uint8_t full[CTRACE_RETVAL_PAYLOAD];
	unsigned have = 0;
	const char *why = NULL;
	/* A RETVAL_ST1's: the compact RETVAL, then st(1) (trace.h). */
	const uint8_t *st1 = NULL;
	if (len > 1 + CTRACE_RETVAL_ST1_BYTES && !i386 &&
	    payload[0] == RETVAL_ST1_HELD) {
		len -= 1 + CTRACE_RETVAL_ST1_BYTES;
		payload++;
		st1 = payload + len;
	}
	if (len == 1 && payload[0] == CTRACE_RETVAL_REFUSED) {
		why = "not captured (the recorder's list of 16384 calls "
		      "waiting to return was full)";
	} else if (len < 1 || !(payload[0] & CTRACE_RETVAL_COMPACT) ||
		   retval_expand(payload, len, full, &have) < 0 ||
		   full[0] != 1) {
		why = "not captured";
	} else if (lt != NULL) {
		return dwarf_retval(lt, full, have, st1, i386);
	} else if (pr != NULL && pr->ret == CTRACE_PROTO_CLDOUBLE) {
		char *text = cld_ret_text(full, have, st1, i386, &why);
		if (text != NULL) {
			add(&vb, NULL, type, text, NULL);
			return values_finish(&vb, false);
		}
	} else if (i386) {
		uint8_t k = pr ? pr->ret : CTRACE_PROTO_UINT;
		uint64_t v;
		if (ret_i386(k, full, have, &v)) {
			add(&vb, NULL, type,
			    pr ? kind_text(k, v, NULL)
			       : text_of("0x%" PRIx32, (uint32_t)v),
			    NULL);
			return values_finish(&vb, false);
		}
		why = CTRACE_PROTO_IS_FP(k)
			      ? "not captured (st(0) held no value at the return)"
			      : "not captured";
	} else {
		bool fp = pr && CTRACE_PROTO_IS_FP(pr->ret);
		unsigned need = fp ? CTRACE_RETVAL_XMM0 : CTRACE_RETVAL_R0;
		if (!(have & need)) {
			why = "not captured";
		} else {
			uint64_t v = load_u64(full + (fp ? CTRACE_RETVAL_AT_XMM0
							  : CTRACE_RETVAL_AT_R0));
			add(&vb, NULL, type,
			    pr ? kind_text(pr->ret, v, NULL)
			       : text_of("0x%" PRIx64, v),
			    NULL);
			return values_finish(&vb, false);
		}
	}
	add(&vb, NULL, type, NULL, why);
	return values_finish(&vb, false);
}
