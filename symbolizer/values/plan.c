/* plan.c -- the recorder's capture plan, which cmd_plan.c writes
 * (ctrace-symbolize --make-plan).
 *
 * At each call of the entry hook in a program, the plan says what the
 * recorder must save for the symbolizer to find the arguments: the frame's
 * CFA rule, the stack bytes (relative to the CFA or the stack pointer) the
 * parameters' DWARF locations read there, and where the pointer of each
 * string argument is, so that the recorder can copy the text.  The
 * recorder reads it at start-up (lib/plan.c); include/ctrace_plan.h gives
 * the grammar and the limits both sides keep.
 *
 * What one call needs is planneed.c's: the same walk of the parameters'
 * locations as the symbolizer's (locwalk.c), over symbols.  This file
 * finds the hook's calls, keeps each call's needs within the recorder's
 * limits, and writes the plan.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrace_plan.h"
#include "values/dwinfo.h"
#include "resolve/resolve.h"
#include "util/util.h"

static const int saved_x86_64[] = CTRACE_SAVED_REGS_X86_64;
static const int saved_i386[] = CTRACE_SAVED_REGS_I386;

/* ---------------------------------------------------------------------------
 * Ranges out
 * ------------------------------------------------------------------------ */

static int cmp_range(const void *a, const void *b)
{
	const struct plan_range *x = a, *y = b;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sorts and merges: ranges close to each other become one, then the
 * closest pairs are joined until CTRACE_PLAN_MAX_MEM remain. */
static void merge_ranges(struct plan_need *nd)
{
	qsort(nd->r, nd->n, sizeof *nd->r, cmp_range);
	size_t out = 0;
	for (size_t i = 0; i < nd->n; i++) {
		if (out > 0 && nd->r[out - 1].base == nd->r[i].base &&
		    nd->r[i].lo <= nd->r[out - 1].hi + 16) {
			if (nd->r[i].hi > nd->r[out - 1].hi)
				nd->r[out - 1].hi = nd->r[i].hi;
			continue;
		}
		nd->r[out++] = nd->r[i];
	}
	nd->n = out;
	while (nd->n > CTRACE_PLAN_MAX_MEM) {
		size_t best = SIZE_MAX;
		int64_t gap = INT64_MAX;
		for (size_t i = 0; i + 1 < nd->n; i++)
			if (nd->r[i].base == nd->r[i + 1].base &&
			    nd->r[i + 1].lo - nd->r[i].hi < gap) {
				gap = nd->r[i + 1].lo - nd->r[i].hi;
				best = i;
			}
		if (best == SIZE_MAX) {
			nd->wide = true;
			nd->n = 0;
			return;
		}
		if (nd->r[best + 1].hi > nd->r[best].hi)
			nd->r[best].hi = nd->r[best + 1].hi;
		memmove(&nd->r[best + 1], &nd->r[best + 2],
			(nd->n - best - 2) * sizeof *nd->r);
		nd->n--;
	}
}

/* ---------------------------------------------------------------------------
 * Hook calls
 * ------------------------------------------------------------------------ */

static void plan_call(FILE *out, struct dw_module *m, uint16_t machine,
		      uint64_t ra)
{
	struct plan_need nd;
	struct plan_ctx c;
	Dwarf_Addr fde = 0;
	memset(&nd, 0, sizeof nd);
	memset(&c, 0, sizeof c);
	c.m = m;
	c.machine = machine;
	c.ptr_size = machine == EM_386 ? 4 : 8;
	c.sp_reg = machine == EM_386 ? CTRACE_DW_SP_I386 : CTRACE_DW_SP_X86_64;
	c.bp_reg = machine == EM_386 ? CTRACE_DW_FP_I386 : CTRACE_DW_FP_X86_64;
	c.saved = machine == EM_386 ? saved_i386 : saved_x86_64;
	c.nsaved = machine == EM_386 ? sizeof saved_i386 / sizeof *saved_i386
				: sizeof saved_x86_64 / sizeof *saved_x86_64;
	c.ra = ra;
	c.loc_pc = ra - 1;
	c.need = &nd;
	/* Without a rule or a function, the recorder reads the CFI
	 * itself and saves its generic windows. */
	Dwarf_Die scope;
	if (!frame_cfa_rule(m, ra - 1, &c.cfa_reg, &c.cfa_off) ||
	    (c.cfa_reg != c.sp_reg && c.cfa_reg != c.bp_reg) ||
	    dw_scope_at(m, ra - 1, &scope, &c.sub) < 0)
		return;
	/* The start of the part of the function holding the call (a
	 * function split hot and cold has ranges). */
	Dwarf_Addr base, lo, hi;
	ptrdiff_t it = 0;
	while ((it = dwarf_ranges(&c.sub, it, &base, &lo, &hi)) > 0)
		if (ra - 1 >= lo && ra - 1 < hi)
			fde = lo;
	if (fde == 0)
		return;
	/* The return value is caught only in the function's own body (not
	 * an inlined copy, not a clone): the recorder compares fde with
	 * the function the hook is given. */
	Dwarf_Addr entry;
	c.entry = dwarf_entrypc(&c.sub, &entry) == 0 ? entry : fde;
	planneed_params(&c, &scope);
	merge_ranges(&nd);
	int64_t total = 0;
	for (size_t i = 0; i < nd.n; i++)
		total += nd.r[i].hi - nd.r[i].lo;
	if (total > CTRACE_PLAN_MAX_BYTES)
		nd.wide = true, nd.n = 0;
	/* Within the limits the recorder reads (ctrace_plan.h): a line
	 * beyond them would be skipped whole. */
	if (c.cfa_reg > CTRACE_PLAN_MAX_REG ||
	    c.cfa_off < -CTRACE_PLAN_MAX_CFA_OFFSET ||
	    c.cfa_off > CTRACE_PLAN_MAX_CFA_OFFSET)
		return;
	for (size_t i = 0; i < nd.n; i++)
		if (nd.r[i].lo < -CTRACE_PLAN_MAX_OFFSET ||
		    nd.r[i].lo > CTRACE_PLAN_MAX_OFFSET ||
		    nd.r[i].hi - nd.r[i].lo > CTRACE_PLAN_MAX_LENGTH)
			nd.wide = true, nd.n = 0;
	fprintf(out, "pc %" PRIx64 " fde %" PRIx64 " cfa %d %" PRId64, ra, fde,
		c.cfa_reg, c.cfa_off);
	if (nd.wide)
		fputs(" wide", out);
	/* The saved registers to record: those read, and the one the CFA
	 * is computed from. */
	if (!nd.wide && !nd.all_regs) {
		planneed_reg(&c, (uint64_t)c.cfa_reg);
		fprintf(out, " regs %" PRIx64, nd.regs);
	}
	for (size_t i = 0; i < nd.n; i++)
		fprintf(out, " mem %c %" PRId64 " %" PRId64,
			nd.r[i].base == PLAN_AT_CFA ? CTRACE_PLAN_BASE_CFA
						 : CTRACE_PLAN_BASE_SP,
			nd.r[i].lo, nd.r[i].hi - nd.r[i].lo);
	for (size_t i = 0; i < nd.nstr; i++) {
		int64_t off = nd.str[i].off;
		if (nd.str[i].base == CTRACE_PLAN_BASE_REG
			    ? off < 0 || off > CTRACE_PLAN_MAX_REG
			    : off < -CTRACE_PLAN_MAX_OFFSET ||
				      off > CTRACE_PLAN_MAX_OFFSET)
			continue; /* shown as an address */
		fprintf(out, " str %c %" PRId64, nd.str[i].base, off);
	}
	/* The return value's registers: the recorder saves only those, and
	 * sets no trampoline for a function that returns nothing. */
	unsigned mem;
	unsigned ret = abi_ret_regs(&c.sub, machine == EM_386, &mem);
	fprintf(out, " ret %u %u", ret, mem);
	fputc('\n', out);
}

/* ---------------------------------------------------------------------------
 * Exit hook calls (x86-64): return values read there
 * ------------------------------------------------------------------------ */

/* Per function: how many exits of its own body, how many of them read. */
struct exit_count {
	uint64_t fn;
	size_t exits, read;
};

struct exit_counts {
	struct exit_count *v;
	size_t n, cap;
	bool failed; /* no memory: an exit may be uncounted, no `rx` */
};

static struct exit_count *exit_count_of(struct exit_counts *c, uint64_t fn)
{
	for (size_t i = c->n; i > 0; i--) /* exits come by function */
		if (c->v[i - 1].fn == fn)
			return &c->v[i - 1];
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256;
		struct exit_count *v = realloc(c->v, cap * sizeof *v);
		if (v == NULL) {
			c->failed = true;
			return NULL;
		}
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n] = (struct exit_count){fn, 0, 0};
	return &c->v[c->n++];
}

/* The `exit` line of one call of the exit hook (ra: its return address),
 * when it is the function's own exit and the code after it moves the
 * return value from where the recorder can read it at the call. */
static void plan_exit(FILE *out, struct dw_module *m, uint64_t ra,
		      struct exit_counts *counts)
{
	Dwarf_Die scope, sub;
	if (dw_scope_at(m, ra - 1, &scope, &sub) < 0 ||
	    dwarf_tag(&scope) != DW_TAG_subprogram)
		return; /* an inlined copy's exit: no value of its own */
	unsigned mem;
	unsigned ret = abi_ret_regs(&sub, false, &mem);
	if (ret == 0)
		return; /* returns nothing: no trampoline either */
	Dwarf_Addr base, lo, hi, part_lo = 0, part_hi = 0, entry;
	ptrdiff_t it = 0;
	while ((it = dwarf_ranges(&sub, it, &base, &lo, &hi)) > 0)
		if (ra - 1 >= lo && ra - 1 < hi)
			part_lo = lo, part_hi = hi;
	if (part_hi <= part_lo || dwarf_entrypc(&sub, &entry) != 0)
		return;
	struct exit_count *c = exit_count_of(counts, entry);
	if (c == NULL)
		return; /* no memory: the function keeps the trampoline */
	c->exits++;
	int cfa_reg;
	int64_t cfa_off;
	size_t size = (size_t)(part_hi - part_lo);
	if (size > (1u << 20) || ra >= part_hi ||
	    !frame_cfa_rule(m, ra - 1, &cfa_reg, &cfa_off))
		return;
	/* A scalar's bytes: the rest of its register need not be known. */
	unsigned scalar = 0;
	Dwarf_Attribute at;
	Dwarf_Die type;
	if (dwarf_attr_integrate(&sub, DW_AT_type, &at) &&
	    dwarf_formref_die(&at, &type) && dwarf_peel_type(&type, &type) == 0 &&
	    (dwarf_tag(&type) == DW_TAG_base_type ||
	     dwarf_tag(&type) == DW_TAG_pointer_type ||
	     dwarf_tag(&type) == DW_TAG_enumeration_type)) {
		Dwarf_Word bytes;
		if (dwarf_aggregate_size(&type, &bytes) == 0 && bytes <= 8)
			scalar = (unsigned)bytes;
	}
	uint8_t *code = malloc(size);
	struct epilogue e;
	if (code != NULL && dw_read_code(m, part_lo, code, size) &&
	    epilogue_decode(code, size, (size_t)(ra - part_lo),
			    cfa_reg == CTRACE_DW_FP_X86_64, m, part_lo, &e) &&
	    epilogue_print(NULL, &e, ret, scalar)) {
		fprintf(out, "exit %" PRIx64 " fn %" PRIx64 " ret %u %u", ra,
			(uint64_t)entry, ret, mem);
		epilogue_print(out, &e, ret, scalar);
		fputc('\n', out);
		c->read++;
	}
	free(code);
}

/* `rx` for every function all of whose exits are read. */
static void plan_rx(FILE *out, struct exit_counts *counts)
{
	for (size_t i = 0; i < counts->n && !counts->failed; i++)
		if (counts->v[i].exits > 0 &&
		    counts->v[i].read == counts->v[i].exits)
			fprintf(out, "rx %" PRIx64 "\n", counts->v[i].fn);
	free(counts->v);
}

/* The link-time address of a hook defined in the module; 0 if there is
 * none (the hook is then reached through the PLT, which the plan does
 * not follow). */
static uint64_t hook_address(const char *path, const char *name)
{
	return elfinfo_function_address(path, name);
}

/* Plans every `call __cyg_profile_func_enter` (e8 rel32) of the module's
 * code, and on x86-64 every `call __cyg_profile_func_exit`.  A match
 * inside another instruction gives an entry for a PC no hook ever
 * returns to: harmless. */
int plan_module(FILE *out, const char *path)
{
	struct dw_module *m = dw_module(path);
	if (!m) {
		fprintf(stderr, PROGRAM_NAME ": %s: cannot read the file\n",
			path);
		return -1;
	}
	GElf_Ehdr eh;
	if (!gelf_getehdr(m->elf, &eh) ||
	    (eh.e_machine != EM_X86_64 && eh.e_machine != EM_386)) {
		fprintf(stderr, PROGRAM_NAME ": %s: not an x86-64 or i386 "
			"ELF file\n", path);
		return -1;
	}
	const void *id;
	ssize_t idlen = dwelf_elf_gnu_build_id(m->elf, &id);
	if (idlen <= 0) {
		fprintf(stderr, PROGRAM_NAME ": %s: no build-id: link with "
			"-Wl,--build-id to make a capture plan\n", path);
		return -1;
	}
	if (idlen > CTRACE_PLAN_BUILD_ID_MAX) {
		fprintf(stderr, PROGRAM_NAME ": %s: a build-id of %zd bytes "
			"(a capture plan takes %d at most)\n", path, idlen,
			CTRACE_PLAN_BUILD_ID_MAX);
		return -1;
	}
	if (!m->dw)
		fprintf(stderr, PROGRAM_NAME ": %s: no debug information: "
			"arguments will not be shown\n", path);
	uint64_t hook = hook_address(path, "__cyg_profile_func_enter");
	uint64_t exit_hook = eh.e_machine == EM_X86_64
				     ? hook_address(path,
						    "__cyg_profile_func_exit")
				     : 0;
	struct exit_counts counts = {NULL, 0, 0, false};
	fputs("module ", out);
	for (ssize_t i = 0; i < idlen; i++)
		fprintf(out, "%02x", ((const uint8_t *)id)[i]);
	fprintf(out, " %s\n", path);
	if (hook == 0 || !m->dw)
		return 0;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(m->elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		const uint8_t *code = d->d_buf;
		for (size_t i = 0; i + 5 <= d->d_size; i++) {
			if (code[i] != 0xe8)
				continue;
			int32_t rel;
			memcpy(&rel, code + i + 1, 4);
			uint64_t ra = sh.sh_addr + i + 5;
			uint64_t to = (uint64_t)((int64_t)ra + rel);
			if (to == hook)
				plan_call(out, m, eh.e_machine, ra);
			else if (to == exit_hook && exit_hook != 0)
				plan_exit(out, m, ra, &counts);
		}
	}
	plan_rx(out, &counts);
	planneed_done();
	return 0;
}

void plan_header(FILE *out)
{
	fprintf(out, CTRACE_PLAN_MAGIC " %d\n", CTRACE_PLAN_VERSION);
}
