/* cfi.c -- canonical frame addresses, from the program's .eh_frame.
 *
 * The recorder needs an instrumented function's CFA (its stack pointer
 * before the call that entered it) in two places: argument capture reads
 * the frame around it, and every ENTRY's DEFINE record carries the
 * function's frame size so that a reader can compare frames exactly when
 * longjmp or an exception skipped exits.  Both come from the CFI rule in
 * effect at the hook's call, found through _dl_find_object (no lock,
 * async-signal-safe) and .eh_frame_hdr's search table.
 */
#define _GNU_SOURCE
#include <link.h>
#include <string.h>

#include "internal.h"

#define PTR_SIZE sizeof(uintptr_t)

/* ---------------------------------------------------------------------------
 * Reading .eh_frame
 * ------------------------------------------------------------------------ */

struct cursor {
	const uint8_t *p, *end;
	int bad;
};

static __attribute__((noinline)) uint64_t get_uleb_long(struct cursor *c)
{
	uint64_t v = 0;
	if (ctrace__uleb_get(&c->p, c->end, &v) < 0)
		c->bad = 1, c->p = c->end;
	return v;
}

/* One byte inline: the CFA instructions' operands nearly always are. */
static inline uint64_t get_uleb(struct cursor *c)
{
	if (likely(c->p < c->end && *c->p < 0x80))
		return *c->p++;
	return get_uleb_long(c);
}

static __attribute__((noinline)) int64_t get_sleb_long(struct cursor *c)
{
	int64_t v = 0;
	if (ctrace__sleb_get(&c->p, c->end, &v) < 0)
		c->bad = 1, c->p = c->end;
	return v;
}

static inline int64_t get_sleb(struct cursor *c)
{
	if (likely(c->p < c->end && *c->p < 0x80))
		return (int64_t)(*c->p++ ^ 0x40) - 0x40;
	return get_sleb_long(c);
}

static uint64_t get_fixed(struct cursor *c, size_t n)
{
	uint64_t v = 0;
	if ((size_t)(c->end - c->p) < n) {
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->p, n); /* little-endian */
	c->p += n;
	return v;
}

/* DW_EH_PE_* pointer encodings; `data` is the base for datarel. */
static __attribute__((noinline)) uintptr_t
get_encoded_any(struct cursor *c, uint8_t enc, uintptr_t data)
{
	if (enc == 0xff)
		return 0;
	uintptr_t field = (uintptr_t)c->p, v;
	switch (enc & 0x0f) {
	case 0x00: v = (uintptr_t)get_fixed(c, PTR_SIZE); break;
	case 0x01: v = (uintptr_t)get_uleb(c); break;
	case 0x02: v = (uintptr_t)get_fixed(c, 2); break;
	case 0x03: v = (uintptr_t)get_fixed(c, 4); break;
	case 0x04: v = (uintptr_t)get_fixed(c, 8); break;
	case 0x09: v = (uintptr_t)get_sleb(c); break;
	case 0x0a: v = (uintptr_t)(int16_t)get_fixed(c, 2); break;
	case 0x0b: v = (uintptr_t)(int32_t)get_fixed(c, 4); break;
	case 0x0c: v = (uintptr_t)get_fixed(c, 8); break;
	default: c->bad = 1; return 0;
	}
	switch (enc & 0x70) {
	case 0x00: break;
	case 0x10: v += field; break;
	case 0x30: v += data; break;
	default: c->bad = 1; return 0;
	}
	if (enc & 0x80) { /* indirect: our own mapped data */
		if (v == 0) {
			c->bad = 1;
			return 0;
		}
		v = *(const uintptr_t *)v;
	}
	return v;
}

/* Inline for the two encodings linkers and compilers use for the search
 * table's header and the FDEs' addresses (pcrel sdata4, udata4). */
static inline uintptr_t get_encoded(struct cursor *c, uint8_t enc,
				    uintptr_t data)
{
	if ((enc == 0x1b || enc == 0x03) && c->end - c->p >= 4) {
		uintptr_t field = (uintptr_t)c->p;
		uint32_t v;
		memcpy(&v, c->p, 4);
		c->p += 4;
		if (enc == 0x03)
			return v;
		return field + (uintptr_t)(intptr_t)(int32_t)v;
	}
	return get_encoded_any(c, enc, data);
}

const int32_t *ctrace__cfi_table(const uint8_t *hdr, size_t *count)
{
	if (hdr[0] != 1 || hdr[3] != 0x3b) /* version 1, datarel sdata4 */
		return NULL;
	struct cursor c = {hdr + 4, hdr + 4 + 2 * 8, 0};
	get_encoded(&c, hdr[1], (uintptr_t)hdr); /* eh_frame_ptr */
	uintptr_t n = get_encoded(&c, hdr[2], (uintptr_t)hdr);
	if (c.bad || n == 0)
		return NULL;
	*count = n;
	return (const int32_t *)c.p;
}

/* The address of the search table's entry i. */
static inline uintptr_t table_pc(const uint8_t *hdr, const int32_t *table,
				 size_t i)
{
	return (uintptr_t)hdr + (uintptr_t)(intptr_t)table[2 * i];
}

/* Where this thread's last search ended: new functions come near each
 * other in the code as often as not (a caller's callees, a file's
 * functions run in turn), and their entries then lie in the lines that
 * search read.  Only a hint: any index gives the right answer. */
struct search_hint {
	const uint8_t *hdr;
	size_t index;
	uintptr_t at; /* the entry's address */
};
static __thread struct search_hint search_hint
	__attribute__((tls_model("initial-exec")));

/* The entries after the hint looked at first: two cache lines.  Only
 * for an address at most SEARCH_HINT_BYTES after the hint's: one farther
 * away is seldom among them, and their reads (far from the last search,
 * out of the caches) would be lost. */
#define SEARCH_HINT_SPAN 16
#define SEARCH_HINT_BYTES 4096

/* The FDE covering pc, from .eh_frame_hdr's sorted table; NULL if none.
 * A binary search, in the SEARCH_HINT_SPAN entries after the hint when
 * pc lies shortly after it and they bracket pc (two reads, independent
 * of each other), else in the whole table.  A search of the whole table
 * of a program of 10,000 functions is 14 reads, each waiting for the one
 * before, and after the program's new code they miss the caches: a third
 * of the CFI read.  Not in a part of the table either: the whole table's
 * searches all read the same entries first, which stay in the caches. */
static const uint8_t *find_fde(const uint8_t *hdr, uintptr_t pc)
{
	size_t count;
	const int32_t *table = ctrace__cfi_table(hdr, &count);
	if (table == NULL)
		return NULL;
	/* lo: an entry at or below pc (0 if none is); hi: one above it, or
	 * count. */
	size_t lo = 0, hi = count;
	struct search_hint *h = &search_hint;
	size_t g = h->index;
	if (h->hdr == hdr && pc - h->at < SEARCH_HINT_BYTES && g < count) {
		size_t e = g + SEARCH_HINT_SPAN < count ? g + SEARCH_HINT_SPAN
							: count - 1;
		if (table_pc(hdr, table, g) <= pc &&
		    table_pc(hdr, table, e) > pc)
			lo = g, hi = e;
	}
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (table_pc(hdr, table, mid) <= pc)
			lo = mid;
		else
			hi = mid;
	}
	uintptr_t at = table_pc(hdr, table, lo);
	if (at > pc)
		return NULL;
	h->hdr = hdr;
	h->index = lo;
	h->at = at;
	return hdr + table[2 * lo + 1];
}

struct cie_info {
	uint64_t code_align;
	int64_t data_align;
	uint8_t fde_enc;
	int has_z;
	const uint8_t *insns, *end;
};

static __attribute__((noinline)) int parse_cie(const uint8_t *cie,
						 struct cie_info *ci)
{
	uint32_t len;
	memcpy(&len, cie, 4);
	if (len == 0 || len == 0xffffffffu)
		return -1;
	struct cursor c = {cie + 8, cie + 4 + len, 0};
	uint8_t version = (uint8_t)get_fixed(&c, 1);
	const char *aug = (const char *)c.p;
	size_t alen = strnlen(aug, (size_t)(c.end - c.p));
	c.p += alen + 1;
	if (strstr(aug, "eh") != NULL)
		get_fixed(&c, PTR_SIZE);
	ci->code_align = get_uleb(&c);
	ci->data_align = get_sleb(&c);
	if (version == 1)
		get_fixed(&c, 1);
	else
		get_uleb(&c);
	ci->fde_enc = 0;
	ci->has_z = aug[0] == 'z';
	if (ci->has_z) {
		uint64_t zlen = get_uleb(&c);
		const uint8_t *after = c.p + zlen;
		for (const char *a = aug + 1; *a && !c.bad; a++) {
			if (*a == 'R') {
				ci->fde_enc = (uint8_t)get_fixed(&c, 1);
			} else if (*a == 'L') {
				get_fixed(&c, 1);
			} else if (*a == 'P') {
				uint8_t e = (uint8_t)get_fixed(&c, 1);
				get_encoded(&c, e & 0x7f, 0);
			} else if (*a != 'S' && *a != 'B') {
				break;
			}
		}
		c.p = after;
	}
	if (c.bad || c.p > c.end)
		return -1;
	ci->insns = c.p;
	ci->end = c.end;
	return 0;
}

/* Small: the state and its remembered copies live on the program's
 * stack (doc/security.md states the recorder's stack use). */
struct cfa_state {
	int64_t offset;
	uint32_t reg;
	uint8_t unknown; /* an expression or something we do not follow */
};
#define CFA_REMEMBER 4 /* nested DW_CFA_remember_state: compilers use 1 */

/* A register number; one too large for any register stays unknown. */
static uint32_t get_reg(struct cursor *c)
{
	uint64_t r = get_uleb(c);
	return r > 0xffff ? UINT32_MAX : (uint32_t)r;
}

/* Runs CFA instructions while the location stays at or below target.
 * Returns 1 when it stopped because the location went past target. */
static int run_cfa(struct cursor *c, const struct cie_info *ci,
		   uintptr_t *loc, uintptr_t target, struct cfa_state *st,
		   struct cfa_state *saved, int *nsaved)
{
	while (c->p < c->end && !c->bad) {
		uint8_t op = *c->p++;
		uint64_t adv = 0;
		switch (op >> 6) {
		case 1:
			adv = op & 0x3f;
			goto advance;
		case 2:
			get_uleb(c);
			continue;
		case 3:
			continue;
		}
		switch (op) {
		case 0x00: break;                                  /* nop */
		case 0x01: *loc = (uintptr_t)get_fixed(c, PTR_SIZE); /* set_loc */
			   if (*loc > target) return 1;
			   break;
		case 0x02: adv = get_fixed(c, 1); goto advance;
		case 0x03: adv = get_fixed(c, 2); goto advance;
		case 0x04: adv = get_fixed(c, 4); goto advance;
		case 0x05: get_uleb(c); get_uleb(c); break;      /* offset_ext */
		case 0x06: case 0x07: case 0x08: get_uleb(c); break;
		case 0x09: get_uleb(c); get_uleb(c); break;      /* register */
		case 0x0a:                                         /* remember */
			if (*nsaved < CFA_REMEMBER)
				saved[(*nsaved)++] = *st;
			else
				st->unknown = 1;
			break;
		case 0x0b:                                         /* restore */
			if (*nsaved > 0)
				*st = saved[--(*nsaved)];
			else
				st->unknown = 1;
			break;
		case 0x0c:                                         /* def_cfa */
			st->reg = get_reg(c);
			st->offset = (int64_t)get_uleb(c);
			st->unknown = 0;
			break;
		case 0x0d: st->reg = get_reg(c); break;
		case 0x0e: st->offset = (int64_t)get_uleb(c); break;
		case 0x0f: {                                       /* def_cfa_expr */
			uint64_t n = get_uleb(c);
			c->p += n;
			st->unknown = 1;
			break;
		}
		case 0x10: case 0x16: {                           /* (val_)expr */
			get_uleb(c);
			uint64_t n = get_uleb(c);
			c->p += n;
			break;
		}
		case 0x11: get_uleb(c); get_sleb(c); break;
		case 0x12:                                         /* def_cfa_sf */
			st->reg = get_reg(c);
			st->offset = get_sleb(c) * ci->data_align;
			st->unknown = 0;
			break;
		case 0x13: st->offset = get_sleb(c) * ci->data_align; break;
		case 0x14: get_uleb(c); get_uleb(c); break;
		case 0x15: get_uleb(c); get_sleb(c); break;
		case 0x2e: get_uleb(c); break;                     /* args_size */
		case 0x2f: get_uleb(c); get_uleb(c); break;
		default:
			c->bad = 1;
			return 0;
		}
		continue;
	advance:
		*loc += adv * ci->code_align;
		if (*loc > target)
			return 1;
	}
	return 0;
}

/* The last CIE this thread read, parsed and with its initial instructions
 * run: most objects have one or two CIEs for thousands of FDEs, and the
 * parse (its augmentation string searched) and the run were a third of
 * reading a new function's rule.  Keyed by the CIE's address and checked
 * against a copy of its bytes, which are all the parse and the initial
 * state depend on: an object unloaded and another loaded at its address
 * reads its own.  Filled key last, as the frame cache below: a jump out
 * of a signal handler in the middle leaves it empty.  Only a CIE whose
 * instructions neither advance the location nor remember a state. */
#define CIE_CACHE_BYTES 64
struct cie_cached {
	const uint8_t *cie;
	uint32_t bytes_len;
	uint8_t bytes[CIE_CACHE_BYTES];
	struct cie_info ci;
	struct cfa_state st;
};
static __thread struct cie_cached cie_cache
	__attribute__((tls_model("initial-exec")));

/* Whether the cache holds the CIE at cie: then ci and st are its parse
 * and initial state. */
static int cie_cached(const uint8_t *cie, struct cie_info *ci,
		      struct cfa_state *st)
{
	const struct cie_cached *k = &cie_cache;
	uint32_t len;
	if (k->cie != cie)
		return 0;
	memcpy(&len, cie, 4);
	if (k->bytes_len != (uint64_t)len + 4 ||
	    memcmp(k->bytes, cie, k->bytes_len) != 0)
		return 0;
	*ci = k->ci;
	*st = k->st;
	return 1;
}

/* Runs the initial instructions of the CIE at cie (parsed into ci) into
 * st, for an FDE from `start` and the location `target` (run_cfa's
 * saved and nsaved), and keeps the result when it can. */
static int cie_run(const uint8_t *cie, const struct cie_info *ci,
		   uintptr_t start, uintptr_t target, struct cfa_state *st,
		   struct cfa_state *saved, int *nsaved)
{
	struct cie_cached *k = &cie_cache;
	uintptr_t loc = start;
	memset(st, 0, sizeof *st);
	struct cursor cc = {ci->insns, ci->end, 0};
	int stopped = run_cfa(&cc, ci, &loc, target, st, saved, nsaved);
	if (cc.bad)
		return -1;
	uint32_t len;
	memcpy(&len, cie, 4);
	if (!stopped && loc == start && *nsaved == 0 &&
	    (uint64_t)len + 4 <= CIE_CACHE_BYTES) {
		k->cie = NULL;
		ctrace__barrier();
		k->bytes_len = len + 4;
		memcpy(k->bytes, cie, len + 4);
		k->ci = *ci;
		k->st = *st;
		ctrace__barrier();
		k->cie = cie;
	}
	return 0;
}

/* Out of line, so that its frame (the loader's answer) is gone before the
 * CFA instructions run: the two never share the stack. */
static __attribute__((noinline)) const uint8_t *fde_of(uintptr_t pc)
{
	struct dl_find_object obj;
	if (_dl_find_object((void *)(pc - 1), &obj) != 0 ||
	    obj.dlfo_eh_frame == NULL)
		return NULL;
	return find_fde(obj.dlfo_eh_frame, pc - 1);
}

/* The FDE covering pc - 1 (a return address's call), its length and its
 * CIE; NULL if none, or one this reader does not take (64-bit DWARF, a
 * terminator, a CIE where an FDE should be). */
static const uint8_t *fde_with_cie(uintptr_t pc, uint32_t *len,
				   const uint8_t **cie)
{
	const uint8_t *fde = fde_of(pc);
	if (fde == NULL)
		return NULL;
	uint32_t cie_off;
	memcpy(len, fde, 4);
	memcpy(&cie_off, fde + 4, 4);
	if (*len == 0 || *len == 0xffffffffu || cie_off == 0)
		return NULL;
	*cie = fde + 4 - cie_off;
	return fde;
}

int ctrace__cfa_at(uintptr_t pc, struct ctrace__cfa *rule, uintptr_t *begin)
{
	uint32_t len;
	const uint8_t *cie, *fde = fde_with_cie(pc, &len, &cie);
	if (fde == NULL)
		return -1;
	struct cie_info ci;
	struct cfa_state state, *st = &state, saved[CFA_REMEMBER];
	int nsaved = 0;
	int cached = cie_cached(cie, &ci, st);
	if (!cached && parse_cie(cie, &ci) < 0)
		return -1;
	struct cursor c = {fde + 8, fde + 4 + len, 0};
	uintptr_t start = get_encoded(&c, ci.fde_enc, 0);
	uintptr_t range = get_encoded(&c, ci.fde_enc & 0x0f, 0);
	if (c.bad || pc - 1 < start || pc - 1 >= start + range)
		return -1;
	if (ci.has_z)
		c.p += get_uleb(&c);
	*begin = start;

	if (!cached && cie_run(cie, &ci, start, pc - 1, st, saved, &nsaved) < 0)
		return -1;
	uintptr_t loc = start;
	run_cfa(&c, &ci, &loc, pc - 1, st, saved, &nsaved);
	if (c.bad || st->unknown ||
	    (st->reg != CTRACE_DW_SP && st->reg != CTRACE_DW_FP) ||
	    st->offset < INT32_MIN || st->offset > INT32_MAX)
		return -1;
	rule->reg = (uint8_t)st->reg;
	rule->offset = (int32_t)st->offset;
	return 0;
}

int ctrace__cfi_extent(uintptr_t fn, uintptr_t *len)
{
	uint32_t n;
	const uint8_t *cie, *fde = fde_with_cie(fn + 1, &n, &cie);
	struct cie_info ci;
	struct cfa_state st;
	if (fde == NULL || (!cie_cached(cie, &ci, &st) && parse_cie(cie, &ci) < 0))
		return -1;
	struct cursor c = {fde + 8, fde + 4 + n, 0};
	uintptr_t start = get_encoded(&c, ci.fde_enc, 0);
	uintptr_t range = get_encoded(&c, ci.fde_enc & 0x0f, 0);
	if (c.bad || start != fn)
		return -1;
	*len = range;
	return 0;
}

/* ---------------------------------------------------------------------------
 * A function's rules in order (plt.c's scan of i386 code)
 * ------------------------------------------------------------------------ */

/* One function's CFA program, run as far as the last address asked for:
 * the next address runs it on from there, an earlier one from the start.
 * One walk at a time (plt.c's scans never run together). */
static struct cfa_walk {
	uintptr_t fn, end; /* the function walked (0: none) and its end */
	uintptr_t loc;     /* the instructions left apply from loc */
	uintptr_t last;    /* the last address asked for */
	struct cursor c;
	struct cie_info ci;
	struct cfa_state st, saved[CFA_REMEMBER];
	int nsaved;
} cfa_walk;

static int cfa_walk_start(struct cfa_walk *w, uintptr_t fn)
{
	w->fn = 0;
	uint32_t len;
	const uint8_t *cie, *fde = fde_with_cie(fn + 1, &len, &cie);
	if (fde == NULL)
		return -1;
	w->nsaved = 0;
	int cached = cie_cached(cie, &w->ci, &w->st);
	if (!cached && parse_cie(cie, &w->ci) < 0)
		return -1;
	w->c = (struct cursor){fde + 8, fde + 4 + len, 0};
	uintptr_t start = get_encoded(&w->c, w->ci.fde_enc, 0);
	uintptr_t range = get_encoded(&w->c, w->ci.fde_enc & 0x0f, 0);
	if (w->c.bad || start != fn)
		return -1;
	if (w->ci.has_z)
		w->c.p += get_uleb(&w->c);
	if (!cached && cie_run(cie, &w->ci, start, start, &w->st, w->saved,
			       &w->nsaved) < 0)
		return -1;
	w->fn = fn;
	w->end = start + range;
	w->loc = w->last = start;
	return 0;
}

int ctrace__cfa_walk(uintptr_t fn, uintptr_t pc, struct ctrace__cfa *rule)
{
	struct cfa_walk *w = &cfa_walk;
	if ((w->fn != fn || pc < w->last) && cfa_walk_start(w, fn) < 0)
		return -1;
	if (pc >= w->end)
		return -1;
	w->last = pc;
	if (pc >= w->loc &&
	    !run_cfa(&w->c, &w->ci, &w->loc, pc, &w->st, w->saved,
		     &w->nsaved))
		w->loc = UINTPTR_MAX; /* no more: the rule holds to the end */
	if (w->c.bad) {
		w->fn = 0;
		return -1;
	}
	if (w->st.unknown ||
	    (w->st.reg != CTRACE_DW_SP && w->st.reg != CTRACE_DW_FP) ||
	    w->st.offset < INT32_MIN || w->st.offset > INT32_MAX)
		return -1;
	rule->reg = (uint8_t)w->st.reg;
	rule->offset = (int32_t)w->st.offset;
	return 0;
}

/* ---------------------------------------------------------------------------
 * Frame sizes at the entry hook
 * ------------------------------------------------------------------------ */

/* Shared by the threads, and large: a C++ program has hundreds of hot
 * functions, and each DEFINE of an ENTRY (once per pair and chunk, and
 * whenever the pair table overflows) asks for a frame; a per-thread cache
 * of 64 entries missed so often that reading the CFI took 40% of the
 * recorder's time on jsoncpp's tests, and one of 2,048 entries indexed by
 * the return address alone still 11% (its 18,000 pairs).  Indexed by the
 * return address's and the function's offsets in their pages, so that which entries collide does not depend on
 * where address randomisation put the code.  A sequence number per entry,
 * odd while a thread fills it, lets a reader that raced with a writer
 * count a miss and read the CFI itself: no lock, no wait, never a torn
 * rule (a writer stopped for good in the middle, by a jump out of a
 * signal handler or a fork, leaves its entry always missing).  The signal
 * path never looks here.  A hook return address always belongs to the
 * same function (or inlined copy of one), so the entry keeps its
 * verdict. */
#define FRAME_CACHE_BITS 13
#define FRAME_CACHE (1u << FRAME_CACHE_BITS) /* entries: 192 KiB, in .bss */
#define RULE_SP 1u
#define RULE_FP 2u
#define RULE_FOREIGN 4u /* pc lies outside fn's own code: inlined there */
#define RULE_OFFSET_SHIFT 8
struct frame_rule {
	_Atomic uint32_t seq;
	_Atomic uint32_t rule; /* RULE_*, offset above RULE_OFFSET_SHIFT */
	_Atomic uintptr_t pc, fn; /* fn too: another library may be loaded at pc */
};
static struct frame_rule frame_cache[FRAME_CACHE];

static int frame_rule_get(struct frame_rule *e, uintptr_t pc, uintptr_t fn,
			  uint32_t *rule)
{
	uint32_t seq = atomic_load_explicit(&e->seq, memory_order_acquire);
	if (seq & 1)
		return 0;
	uintptr_t epc = atomic_load_explicit(&e->pc, memory_order_relaxed);
	uintptr_t efn = atomic_load_explicit(&e->fn, memory_order_relaxed);
	*rule = atomic_load_explicit(&e->rule, memory_order_relaxed);
	atomic_thread_fence(memory_order_acquire);
	return atomic_load_explicit(&e->seq, memory_order_relaxed) == seq &&
	       epc == pc && efn == fn;
}

static void frame_rule_put(struct frame_rule *e, uintptr_t pc, uintptr_t fn,
			   uint32_t rule)
{
	uint32_t seq = atomic_load_explicit(&e->seq, memory_order_relaxed);
	if ((seq & 1) ||
	    !atomic_compare_exchange_strong_explicit(&e->seq, &seq, seq + 1,
						     memory_order_acq_rel,
						     memory_order_relaxed))
		return;
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&e->pc, pc, memory_order_relaxed);
	atomic_store_explicit(&e->fn, fn, memory_order_relaxed);
	atomic_store_explicit(&e->rule, rule, memory_order_relaxed);
	atomic_store_explicit(&e->seq, seq + 2, memory_order_release);
}

/* The rule for return address pc in fn, from the CFI: 0 if unknown. */
static uint32_t frame_rule_read(uintptr_t pc, uintptr_t fn)
{
	struct ctrace__cfa cfa;
	uintptr_t begin;
	/* Frames past 16 MiB are refused below anyway. */
	if (ctrace__cfa_at(pc, &cfa, &begin) != 0 ||
	    cfa.offset < -(1 << 23) || cfa.offset >= (1 << 23))
		return 0;
	return (cfa.reg == CTRACE_DW_SP ? RULE_SP : RULE_FP) |
	       (begin != fn ? RULE_FOREIGN : 0) |
	       (uint32_t)cfa.offset << RULE_OFFSET_SHIFT;
}

uintptr_t ctrace__frame_field(uintptr_t fn, uintptr_t sp, uintptr_t fp)
{
	uintptr_t pc, cfa;
	uint32_t rule;

	pc = ctrace__hook_return(sp);
	uint32_t key = (uint32_t)((pc & 0xfff) << 12 | (fn & 0xfff));
	struct frame_rule *e =
		&frame_cache[key * 0x9e3779b1u >> (32 - FRAME_CACHE_BITS)];
	if (!frame_rule_get(e, pc, fn, &rule)) {
		rule = frame_rule_read(pc, fn);
		frame_rule_put(e, pc, fn, rule);
	}
	intptr_t offset = (int32_t)rule >> RULE_OFFSET_SHIFT;
	if (rule & RULE_SP)
		cfa = sp + (uintptr_t)offset;
	else if ((rule & RULE_FP) && fp != 0)
		cfa = fp + (uintptr_t)offset;
	else
		return 0;
	/* A frame pointer not (yet) the function's own gives nonsense: a
	 * frame is at least a return address and at most a stack. */
	if (cfa <= sp || cfa - sp > ((uintptr_t)1 << 24) ||
	    (cfa - sp) % PTR_SIZE)
		return 0;
	return (cfa - sp) / PTR_SIZE * 2 + !!(rule & RULE_FOREIGN);
}
