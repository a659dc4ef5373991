/* plan.c -- the capture plan: what to save at each entry hook.
 *
 * Without a plan the recorder saves a generic window of stack memory at
 * every call (about 700 bytes), and string arguments only as addresses.
 * `ctrace-symbolize --make-plan PROGRAM` reads the program's DWARF and
 * writes, for each call of the entry hook, the few stack bytes the
 * parameters need there, the frame's CFA rule, and where each string
 * argument's pointer is.  The recorder loads the plan at start-up
 * (CTRACE_PLAN, or PROGRAM.ctrace-plan next to the executable) into a table
 * keyed by the hook's return address.
 *
 * The file's grammar and limits are in include/ctrace_plan.h, shared with
 * the writer (ctrace-symbolize --make-plan).  A module whose build-id
 * matches no loaded object is ignored, so a stale plan never applies; a
 * line that breaks a limit is skipped, and that call gets the generic
 * windows.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "retval.h"
#include "state.h"

/* The DWARF number of each saved register, in struct ctrace__regs' order:
 * a plan names registers by number, capture.c stores them in this order. */
#if defined(__x86_64__)
const uint8_t ctrace__plan_regnos[CTRACE_NREGS] = CTRACE_SAVED_REGS_X86_64;
#else
const uint8_t ctrace__plan_regnos[CTRACE_NREGS] = CTRACE_SAVED_REGS_I386;
#endif

uint8_t ctrace__plan_regs_select(uint32_t dwarf_mask)
{
	uint8_t sel = 0;
	for (int i = 0; i < CTRACE_NREGS; i++)
		if (dwarf_mask & ((uint32_t)1 << ctrace__plan_regnos[i]))
			sel |= (uint8_t)(1u << i);
	return sel;
}


/* ---------------------------------------------------------------------------
 * The table
 * ------------------------------------------------------------------------ */

/* The lookup is in capture.h, inlined into the entry hook. */
const struct ctrace__plan_entry *ctrace__plan_slots;
size_t ctrace__plan_mask;
static struct ctrace__plan_entry *slots; /* the same, while filled */
static int modules_matched;
const struct ctrace__plan_exit *ctrace__plan_exits;
size_t ctrace__plan_exit_mask;
static struct ctrace__plan_exit *exit_slots; /* the same, while filled */
/* The `rx` functions, while the tables are filled. */
static uintptr_t *rx_fns; /* sorted once read */
static size_t rx_n;
static int exits_refused; /* an `exit` line was skipped */
static struct ctrace__plan_op *op_pool; /* the exit lines' operations */
static size_t op_cap;
/* The pc lines' memory and string items (struct ctrace__plan_extra),
 * for the lines the first pass took that have any. */
static struct ctrace__plan_extra *extras;
static size_t n_extras, extras_cap;

static void table_put(const struct ctrace__plan_entry *e)
{
	size_t i = ctrace__plan_slot_of(e->pc);
	while (slots[i].pc != 0 && slots[i].pc != e->pc)
		i = (i + 1) & ctrace__plan_mask;
	slots[i] = *e;
}

static void exit_put(const struct ctrace__plan_exit *e)
{
	size_t i = ctrace__plan_hash(e->pc) & ctrace__plan_exit_mask;
	while (exit_slots[i].pc != 0 && exit_slots[i].pc != e->pc)
		i = (i + 1) & ctrace__plan_exit_mask;
	exit_slots[i] = *e;
}

/* ---------------------------------------------------------------------------
 * Loaded objects by build-id
 * ------------------------------------------------------------------------ */

struct find_module {
	uint8_t id[CTRACE_PLAN_BUILD_ID_MAX];
	size_t len;
	uintptr_t bias;
	int found;
};

static int match_build_id(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct find_module *f = data;
	uint8_t id[CTRACE_PLAN_BUILD_ID_MAX];
	size_t len = ctrace__build_id(info, id, sizeof id);
	if (len == 0 || len != f->len || memcmp(id, f->id, len) != 0)
		return 0;
	f->bias = info->dlpi_addr;
	f->found = 1;
	return 1;
}

/* ---------------------------------------------------------------------------
 * Parsing
 * ------------------------------------------------------------------------ */

/* The text ends with a newline of its own (read_plan's sentinel, past
 * `end`): the scans below stop at a newline without testing for the end
 * at each byte. */
struct lexer {
	const char *p, *end;
};

/* The bytes that end a word. */
static const uint8_t ends_word[256] = {[' '] = 1, ['\t'] = 1, ['\n'] = 1};

static void skip_blanks(struct lexer *l)
{
	while (*l->p == ' ' || *l->p == '\t')
		l->p++;
}

/* The next word of the current line, or NULL at its end. */
static const char *word(struct lexer *l, size_t *len)
{
	skip_blanks(l);
	if (*l->p == '\n')
		return NULL;
	const char *w = l->p;
	while (!ends_word[(uint8_t)*l->p])
		l->p++;
	*len = (size_t)(l->p - w);
	return w;
}

static void next_line(struct lexer *l)
{
	l->p = (const char *)memchr(l->p, '\n', (size_t)(l->end - l->p) + 1) + 1;
}

static int is_word(const char *w, size_t len, const char *s)
{
	return w != NULL && len == strlen(s) && !memcmp(w, s, len);
}

/* The value of digit c in base 10 or 16 (either case), or -1. */
static int digit_of(unsigned c, int base)
{
	if (c - '0' < 10)
		return (int)(c - '0');
	if (base == 16 && (c | 0x20) - 'a' < 6)
		return (int)((c | 0x20) - 'a') + 10;
	return -1;
}

/* The next word as a number of base 10 or 16 (include/ctrace_plan.h:
 * digits, a sign before them; no 0x): 0, or -1 if it is none or does
 * not fit.  Read in place: strtoll on a copy of each word took most of
 * the time the recorder's start-up spent on a C++ program's plan. */
static int number(struct lexer *l, int base, long long *v)
{
	skip_blanks(l);
	const char *w = l->p;
	int neg = *w == '-';
	w += neg || *w == '+';
	const char *digits = w;
	unsigned long long n = 0, cap = neg ? (unsigned long long)LLONG_MAX + 1
					    : (unsigned long long)LLONG_MAX;
	for (int d; (d = digit_of((uint8_t)*w, base)) >= 0; w++)
		if (__builtin_mul_overflow(n, (unsigned)base, &n) ||
		    __builtin_add_overflow(n, (unsigned)d, &n) || n > cap)
			return -1;
	l->p = w;
	if (w == digits || !ends_word[(uint8_t)*w])
		return -1;
	*v = neg ? (long long)(0 - n) : (long long)n;
	return 0;
}

/* One letter: CTRACE_PLAN_BASE_CFA or CTRACE_PLAN_BASE_SP. */
static int base_of(const char *w, size_t len)
{
	if (w == NULL || len != 1)
		return -1;
	if (*w == CTRACE_PLAN_BASE_CFA)
		return CTRACE_PLAN_CFA;
	if (*w == CTRACE_PLAN_BASE_SP)
		return CTRACE_PLAN_SP;
	return -1;
}

/* One `pc` line after the keyword; 0, or -1 if it is malformed. */
static int parse_pc(struct lexer *l, uintptr_t bias,
		    struct ctrace__plan_entry *e, struct ctrace__plan_extra *x)
{
	long long v, w;
	size_t len;
	const char *k;
	memset(e, 0, sizeof *e);
	if (number(l, 16, &v) < 0 || v == 0)
		return -1;
	e->pc = bias + (uintptr_t)v;
	while ((k = word(l, &len)) != NULL) {
		if (is_word(k, len, "fde")) {
			if (number(l, 16, &v) < 0)
				return -1;
			e->fde = bias + (uintptr_t)v;
		} else if (is_word(k, len, "cfa")) {
			if (number(l, 10, &v) < 0 || number(l, 10, &w) < 0 ||
			    v < 0 || v > CTRACE_PLAN_MAX_REG ||
			    w < -CTRACE_PLAN_MAX_CFA_OFFSET ||
			    w > CTRACE_PLAN_MAX_CFA_OFFSET)
				return -1;
			e->cfa_reg = (uint8_t)(v + 1);
			e->cfa_off = (int32_t)w;
		} else if (is_word(k, len, "regs")) {
			if (number(l, 16, &v) < 0 || v < 0 ||
			    v > 0xffffffffll)
				return -1;
			e->regs_known = 1;
			e->regs = (uint32_t)v;
			e->regs_sel = ctrace__plan_regs_select(e->regs);
		} else if (is_word(k, len, "ret")) {
			if (number(l, 10, &v) < 0 || number(l, 10, &w) < 0 ||
			    v < 0 || v > 0x7f || w < 0 ||
			    w > CTRACE_RETVAL_MEM_MAX ||
			    (!(v & CTRACE_RETVAL_MEM) && w != 0))
				return -1;
			e->ret_known = 1;
			e->ret_mask = (uint8_t)v;
			e->ret_mem = (uint8_t)w;
		} else if (is_word(k, len, "wide")) {
			e->wide = 1;
		} else if (is_word(k, len, "mem")) {
			const char *b = word(l, &len);
			int base = base_of(b, len);
			long long n;
			if (base < 0 || number(l, 10, &v) < 0 ||
			    number(l, 10, &n) < 0 || n <= 0 ||
			    n > CTRACE_PLAN_MAX_LENGTH ||
			    v < -CTRACE_PLAN_MAX_OFFSET ||
			    v > CTRACE_PLAN_MAX_OFFSET ||
			    e->nmem == CTRACE_PLAN_MAX_MEM)
				return -1;
			x->mem[e->nmem].base = (uint8_t)base;
			x->mem[e->nmem].off = (int32_t)v;
			x->mem[e->nmem].len = (uint32_t)n;
			e->nmem++;
		} else if (is_word(k, len, "str")) {
			const char *b = word(l, &len);
			if (e->nstr == CTRACE_PLAN_MAX_STR)
				return -1;
			struct ctrace__plan_str *s = &x->str[e->nstr];
			if (b != NULL && len == 1 &&
			    *b == CTRACE_PLAN_BASE_REG) {
				if (number(l, 10, &v) < 0 || v < 0 ||
				    v > CTRACE_PLAN_MAX_REG)
					return -1;
				s->base = CTRACE_PLAN_REG;
				s->off = (int32_t)v;
			} else {
				int base = base_of(b, len);
				if (base < 0 || number(l, 10, &v) < 0 ||
				    v < -CTRACE_PLAN_MAX_OFFSET ||
				    v > CTRACE_PLAN_MAX_OFFSET)
					return -1;
				s->base = (uint8_t)base;
				s->off = (int32_t)v;
			}
			e->nstr++;
		} else {
			return -1;
		}
	}
	uint32_t total = 0;
	for (int i = 0; i < e->nmem; i++)
		total += x->mem[i].len;
	if (total > CTRACE_PLAN_MAX_BYTES) { /* the generic windows instead */
		e->nmem = 0;
		e->wide = 1;
	}
	e->regs_only = e->regs_known && !e->wide && e->nmem == 0 &&
		       e->nstr == 0;
	e->ret_len = (uint8_t)ctrace__retval_payload(e->ret_mask, e->ret_mem);
	return e->cfa_reg ? 0 : -1;
}

/* One operation after its "op" word: 0, or -1 if it is malformed. */
static int parse_op(struct lexer *l, struct ctrace__plan_op *o)
{
	long long v[7];
	for (int i = 0; i < 7; i++)
		if (number(l, 10, &v[i]) < 0)
			return -1;
	long long op = v[0], dsz = v[1], ssz = v[2], d = v[3], src = v[4],
		  base = v[5], arg = v[6];
	if (op < CTRACE_EOP_MOV || op > CTRACE_EOP_LAST ||
	    (dsz != 1 && dsz != 2 && dsz != 4 && dsz != 8) ||
	    (ssz != 1 && ssz != 2 && ssz != 4 && ssz != 8) || d < 0 ||
	    d > 31 || src < CTRACE_EOP_IMM || src > 31)
		return -1;
	/* Memory only in the function's frame, through rsp or rbp. */
	if (src == CTRACE_EOP_MEM &&
	    ((base != 4 && base != 5) || arg < -CTRACE_PLAN_MAX_OFFSET ||
	     arg > CTRACE_PLAN_MAX_OFFSET))
		return -1;
	if (op == CTRACE_EOP_LEA &&
	    (base < -1 || base > 15 || (src != CTRACE_EOP_IMM && src > 15)))
		return -1;
	if (op == CTRACE_EOP_IMULI && (src < 0 || src > 15))
		return -1;
	if ((op == CTRACE_EOP_SET || op == CTRACE_EOP_CMOV) &&
	    (arg < 0 || arg > 15))
		return -1;
	if ((op == CTRACE_EOP_SHL || op == CTRACE_EOP_SHR ||
	     op == CTRACE_EOP_SAR) &&
	    (arg < 1 || arg > 63))
		return -1;
	o->op = (uint8_t)op;
	o->dsz = (uint8_t)dsz;
	o->ssz = (uint8_t)ssz;
	o->d = (uint8_t)d;
	o->s = (int8_t)src;
	o->base = (uint8_t)(base < 0 ? CTRACE_EOP_NO_BASE : base);
	o->arg = (int64_t)arg;
	ctrace__retread_prepare(o);
	return 0;
}

/* One `exit` line after the keyword (x86-64 only), its operations into
 * ops (CTRACE_PLAN_MAX_OPS); 0, or -1 if it is malformed. */
static int parse_exit(struct lexer *l, uintptr_t bias,
		      struct ctrace__plan_exit *e, struct ctrace__plan_op *ops)
{
	long long v, w;
	size_t len;
	const char *k;
	memset(e, 0, sizeof *e);
#if !defined(__x86_64__)
	(void)l, (void)bias, (void)ops, (void)v, (void)w, (void)len, (void)k;
	(void)parse_op;
	return -1;
#else
	if (number(l, 16, &v) < 0 || v == 0)
		return -1;
	e->pc = bias + (uintptr_t)v;
	k = word(l, &len);
	if (!is_word(k, len, "fn") || number(l, 16, &v) < 0 || v == 0)
		return -1;
	e->fn = bias + (uintptr_t)v;
	k = word(l, &len);
	if (!is_word(k, len, "ret") || number(l, 10, &v) < 0 ||
	    number(l, 10, &w) < 0 || v <= 0 || v > 0x7f ||
	    (v & CTRACE_RETVAL_ST0) || w < 0 || w > CTRACE_RETVAL_MEM_MAX ||
	    (!(v & CTRACE_RETVAL_MEM) && w != 0))
		return -1;
	e->mask = (uint8_t)v;
	e->mem = (uint8_t)w;
	e->len = (uint8_t)ctrace__retread_payload_max(e->mask, e->mem);
	while ((k = word(l, &len)) != NULL) {
		if (!is_word(k, len, "op") || e->nops == CTRACE_PLAN_MAX_OPS ||
		    parse_op(l, &ops[e->nops]) < 0)
			return -1;
		e->nops++;
	}
	/* The value moves after the hook's call at least once (the call
	 * clobbers the return registers): a line without operations is
	 * damaged. */
	return e->nops != 0 ? 0 : -1;
#endif
}

/* Two passes over the text: count the entries of matching modules, then
 * fill the tables; *exits, *rx and *nops: the `exit` and `rx` lines and
 * the exit lines' operations, *nextra the pc lines with memory or string
 * items.  Both read every line: the tables are sized by the lines taken,
 * never by the lines written (a plan of junk must not cost memory). */
static size_t parse(const char *text, size_t size, int fill, size_t *exits,
		    size_t *rx, size_t *nops, size_t *nextra)
{
	struct lexer l = {text, text + size};
	uintptr_t bias = 0;
	int active = 0;
	size_t n = 0, len;
	const char *k = word(&l, &len);
	long long version;
	if (!is_word(k, len, CTRACE_PLAN_MAGIC) ||
	    number(&l, 10, &version) < 0 || version != CTRACE_PLAN_VERSION)
		return 0;
	for (next_line(&l); l.p < l.end; next_line(&l)) {
		k = word(&l, &len);
		if (is_word(k, len, "module")) {
			const char *h = word(&l, &len);
			struct find_module f = {{0}, 0, 0, 0};
			active = 0;
			if (h == NULL || len % 2 || len / 2 > sizeof f.id)
				continue;
			for (size_t i = 0; i < len; i++) {
				int d = digit_of((uint8_t)h[i], 16);
				if (d < 0)
					goto next;
				f.id[i / 2] = (uint8_t)(f.id[i / 2] << 4 | d);
			}
			f.len = len / 2;
			dl_iterate_phdr(match_build_id, &f);
			active = f.found;
			modules_matched += f.found;
			bias = f.bias;
		} else if (is_word(k, len, "pc") && active) {
			struct ctrace__plan_entry e;
			struct ctrace__plan_extra x;
			if (parse_pc(&l, bias, &e, &x) < 0)
				continue;
			int items = e.nmem != 0 || e.nstr != 0;
			if (!fill) {
				n++;
				*nextra += (size_t)items;
				continue;
			}
			if (items) {
				/* No room (no pool): as a line not read. */
				if (n_extras == extras_cap)
					continue;
				extras[n_extras] = x;
				e.extra = &extras[n_extras++];
			}
			n++;
			table_put(&e);
		} else if (is_word(k, len, "exit") && active) {
			struct ctrace__plan_exit e;
			struct ctrace__plan_op ops[CTRACE_PLAN_MAX_OPS];
			if (parse_exit(&l, bias, &e, ops) < 0) {
				/* Its function's `rx` would leave an exit
				 * unread: no `rx` is trusted. */
				exits_refused = 1;
				continue;
			}
			++*exits;
			if (fill && exit_slots != NULL &&
			    *nops + e.nops + 1 <= op_cap) {
				struct ctrace__plan_op *to = &op_pool[*nops];
				e.ops = to;
				e.reads = ctrace__retread_reads(ops, e.nops);
				memcpy(to, ops, e.nops * sizeof *ops);
				to[e.nops] = (struct ctrace__plan_op){
					.op = CTRACE__EOP_END};
				ctrace__retread_prepare(&to[e.nops]);
				exit_put(&e);
			}
			*nops += e.nops + 1; /* and the end */
		} else if (is_word(k, len, "rx") && active) {
			long long v;
			if (number(&l, 16, &v) < 0 || v == 0)
				continue;
			if (fill && rx_fns != NULL)
				rx_fns[*rx] = bias + (uintptr_t)v;
			++*rx;
		}
	next:;
	}
	return n;
}

/* ---------------------------------------------------------------------------
 * Functions that return nothing
 * ------------------------------------------------------------------------ */

/* The `ret` of a pc line is that of the function whose code holds the
 * call (an inlined copy's line gives its host's), and fde is where that
 * code starts: a line that says the function returns nothing says so of
 * the function at fde, its own body when fde is its address.  The
 * filters (filter.c) leave such a function out of CTRACE_RETVAL, so that
 * its exit takes the hooks' fast path instead of looking for a patched
 * frame that cannot be there.  Open addressing by address, filled at
 * set-up, read-only after. */
static uintptr_t *void_slots;
static size_t void_mask;

static size_t void_slot_of(uintptr_t fn)
{
	return (size_t)(((uint64_t)fn * 0x9e3779b97f4a7c15ull) >> 40) &
	       void_mask;
}

static void void_load(size_t cap)
{
	void *m = mmap(NULL, cap * sizeof *void_slots, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return;
	uintptr_t *set = m;
	void_mask = cap - 1;
	for (size_t k = 0; k < cap; k++) {
		const struct ctrace__plan_entry *e = &slots[k];
		if (e->pc == 0 || !e->ret_known || e->ret_mask != 0 ||
		    e->fde == 0)
			continue;
		size_t i = void_slot_of(e->fde);
		while (set[i] != 0 && set[i] != e->fde)
			i = (i + 1) & void_mask;
		set[i] = e->fde;
	}
	void_slots = set;
}

static int cmp_fn(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
	return x < y ? -1 : x > y;
}

int ctrace__plan_reads_return(uintptr_t fn)
{
	return rx_n > 0 && ctrace__state_exit_regs_on &&
	       bsearch(&fn, rx_fns, rx_n, sizeof *rx_fns, cmp_fn) != NULL;
}

int ctrace__plan_returns_nothing(uintptr_t fn)
{
	if (void_slots == NULL || fn == 0)
		return 0;
	for (size_t i = void_slot_of(fn);; i = (i + 1) & void_mask) {
		if (void_slots[i] == fn)
			return 1;
		if (void_slots[i] == 0)
			return 0;
	}
}

/* ---------------------------------------------------------------------------
 * Loading
 * ------------------------------------------------------------------------ */

/* A plan is trusted as the trace is (file.c): a regular file of the user
 * or root that nobody else can write, checked on the descriptor opened.
 * It is read, not mapped: a file truncated under a mapping raises
 * SIGBUS in the program.  NULL, after saying why (when quiet, not that
 * there is none); else the text, *len bytes and a newline after them,
 * in an anonymous mapping of *size bytes (the caller unmaps it). */
static char *read_plan(const char *path, int quiet, size_t *size,
			size_t *len)
{
	const char *who = quiet ? "" : "CTRACE_PLAN=";
	/* O_NONBLOCK: a FIFO or a device must not block the program's
	 * first call; it is refused below.  O_NOFOLLOW: not through a
	 * symbolic link in its place. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0) {
		if (!quiet || errno == ELOOP)
			ctrace__warn(who, path,
				     errno == ELOOP
					     ? ": is a symbolic link; capturing "
					       "without a plan"
					     : ": cannot open the capture plan");
		return NULL;
	}
	struct stat st;
	const char *why = NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		why = ": not a regular file; capturing without a plan";
	else if (st.st_uid != geteuid() && st.st_uid != 0)
		why = ": belongs to another user; capturing without a plan";
	else if ((st.st_mode & S_IWOTH) ||
		 ((st.st_mode & S_IWGRP) && st.st_gid != getegid()))
		why = ": another user can change it; capturing without a plan";
	else if ((uint64_t)st.st_size > CTRACE_PLAN_MAX_FILE)
		why = ": larger than 256 MiB; capturing without a plan";
	if (why != NULL || st.st_size == 0) {
		close(fd);
		if (why != NULL)
			ctrace__warn(who, path, why);
		return NULL;
	}
	/* A byte more for the newline the parser stops at (struct lexer). */
	size_t want = (size_t)st.st_size, got = 0;
	char *text = mmap(NULL, want + 1, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (text == MAP_FAILED) {
		close(fd);
		return NULL;
	}
	/* A file that shrinks meanwhile gives what it still holds. */
	while (got < want) {
		ssize_t r = pread(fd, text + got, want - got, (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	if (got == 0) {
		munmap(text, want + 1);
		return NULL;
	}
	text[got] = '\n';
	*size = want + 1;
	*len = got;
	return text;
}

/* Tables of at least twice n slots (a power of two), or NULL.  Filling
 * one touches nearly every page, each first read (a probe) then written:
 * populated at once, not two faults a page (a C++ program's 2.4 MB of
 * slots took most of its start-up that way). */
static void *table_map(size_t n, size_t slot, size_t *mask)
{
	size_t cap = 64;
	while (cap < n * 2)
		cap *= 2;
	void *m = mmap(NULL, cap * slot, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	*mask = cap - 1;
	return m;
}


/* The entries of the `rx` functions set no trampoline. */
static void rx_mark(size_t nrx)
{
	if (nrx == 0 || exits_refused || ctrace__plan_exits == NULL)
		return;
	qsort(rx_fns, nrx, sizeof *rx_fns, cmp_fn);
	for (size_t k = 0; k <= ctrace__plan_mask; k++) {
		struct ctrace__plan_entry *e = &slots[k];
		if (e->pc != 0 && e->fde != 0 && e->ret_mask != 0 &&
		    bsearch(&e->fde, rx_fns, nrx, sizeof *rx_fns, cmp_fn))
			e->ret_read = 1;
	}
	for (size_t k = 0; k <= ctrace__plan_exit_mask; k++) {
		struct ctrace__plan_exit *x = &exit_slots[k];
		if (x->pc != 0 &&
		    bsearch(&x->fn, rx_fns, nrx, sizeof *rx_fns, cmp_fn))
			x->rx = 1;
	}
}

static int load(const char *path, int quiet_if_missing)
{
	size_t size, len, nexit = 0, nrx = 0, nops = 0, nextra = 0;
	const char *text = read_plan(path, quiet_if_missing, &size, &len);
	if (text == NULL)
		return -EINVAL;
	size_t n = parse(text, len, 0, &nexit, &nrx, &nops, &nextra);
	if (n == 0) {
		munmap((void *)text, size);
		if (!quiet_if_missing && modules_matched == 0)
			ctrace__warn("CTRACE_PLAN=", path,
				     ": no entry for this program (rebuilt "
				     "since the plan was made?)");
		return 0;
	}
	slots = table_map(n, sizeof *slots, &ctrace__plan_mask);
	if (slots == NULL) {
		munmap((void *)text, size);
		return -ENOMEM;
	}
	void *pool = nextra == 0 ? MAP_FAILED
				 : mmap(NULL, nextra * sizeof *extras,
					PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pool != MAP_FAILED) {
		extras = pool;
		extras_cap = nextra;
	}
	size_t rx_bytes = nrx * sizeof *rx_fns;
	if (nexit > 0)
		exit_slots = table_map(nexit, sizeof *exit_slots,
				       &ctrace__plan_exit_mask);
	size_t op_bytes = (nops ? nops : 1) * sizeof *op_pool;
	if (exit_slots != NULL) {
		void *m = mmap(NULL, op_bytes, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED) {
			munmap(exit_slots,
			       (ctrace__plan_exit_mask + 1) * sizeof *exit_slots);
			exit_slots = NULL;
		} else {
			op_pool = m;
			op_cap = nops;
		}
	}
	if (exit_slots != NULL && nrx > 0) {
		void *m = mmap(NULL, rx_bytes, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		rx_fns = m != MAP_FAILED ? m : NULL;
	}
	if (rx_fns == NULL)
		nrx = 0;
	nexit = 0;
	nops = 0;
	size_t filled_rx = 0;
	/* Without room for them, `exit` and `rx` lines are counted, not
	 * kept: the trampoline serves. */
	if (exit_slots == NULL || rx_fns == NULL)
		exits_refused = 1;
	nextra = 0;
	parse(text, len, 1, &nexit, &filled_rx, &nops, &nextra);
	munmap((void *)text, size);
	ctrace__plan_slots = slots;
	ctrace__plan_exits = exit_slots;
	rx_mark(nrx);
	if (exits_refused && rx_fns != NULL) {
		munmap(rx_fns, rx_bytes);
		rx_fns = NULL;
		nrx = 0;
	}
	rx_n = nrx;
	void_load(ctrace__plan_mask + 1);
	return (int)n;
}

void ctrace__plan_load(void)
{
	const char *p = ctrace__config_list(CTRACE_LIST_PLAN);
	if (p != NULL) {
		load(p, 0);
		return;
	}
	/* PROGRAM.ctrace-plan, if there is one. */
	char exe[4096 + 16];
	ssize_t n = readlink("/proc/self/exe", exe, 4096);
	if (n <= 0)
		return;
	memcpy(exe + n, ".ctrace-plan", sizeof ".ctrace-plan");
	load(exe, 1);
}
