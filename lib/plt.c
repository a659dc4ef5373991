/* plt.c -- library calls: the calls an instrumented module makes through
 * its PLT into another module (libc, libm, libstdc++, the program's own
 * uninstrumented libraries).
 *
 * At start-up and whenever the loader's list grew (modules.c calls
 * ctrace__plt_scan), each instrumented module's JUMP_SLOT GOT entries
 * (.rela.plt) are pointed at trampolines (arch/<arch>/plt.S), one per
 * slot.  A trampoline's C side, ctrace__plt_enter, records an ENTRY whose
 * function is the GOT slot's address and whose call site is the call's
 * return address, replaces that return address with ctrace__plt_return
 * through retval.c's list of patched frames (so that longjmp, exceptions
 * and the unwinder treat it as any patched frame), and gives the real
 * target, to which the trampoline jumps with the caller's registers and
 * stack untouched.  ctrace__plt_exit records the EXIT and gives back the
 * real return address.  A PLT_SLOT metadata record names each slot: its
 * relocation's symbol and, once known, its target (the symbolizer names
 * the call and its library by them).
 *
 * Lazy binding: a slot not yet bound holds the loader's lazy stub in the
 * module's own PLT.  Its first call goes there with its return patched;
 * the loader then writes the real target into the slot, which the first
 * return (or the next call through any trampoline) notices: the target is
 * remembered and the slot pointed at the trampoline again.  A thread that
 * calls through the slot in between calls the target directly (that call
 * is not recorded).  With -z now and full RELRO the GOT is read-only:
 * its pages are made writable for the writes and read-only again.
 *
 * Filters: a slot's symbol is matched against the record-time filters
 * once, as it is redirected (filter.c keeps its flags under the slot's
 * address, where the events look them up); a slot they leave out is not
 * redirected.  The slots of a module get their flags before any of them
 * points at a trampoline, so that a call's entry and exit are judged by
 * the same flags.
 *
 * The recorder's own calls into libc may come through a redirected slot
 * (x86-64 builds lib/ with -fno-plt, whose GLOB_DAT slots the program
 * may call through too; i386 calls through the PLT, see
 * m4/ctrace_flags.m4): ctrace__plt_enter sends them straight on.
 *
 * Architectures: the relocations, the trampolines' frames and the code
 * that names a GOT slot are arch/<arch>/pltarch.h's (i386: .rel.plt,
 * R_386_JMP_SLOT and R_386_GLOB_DAT, cdecl arguments on the stack).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "event.h"
#include "plt.h"
#include "protos.h"
#include "retval.h"

#if defined(__x86_64__)
#include "arch/x86_64/pltarch.h"
#elif defined(__i386__)
#include "arch/i386/pltarch.h"
#endif

/* arch/<arch>/plt.S */
CTRACE_HIDDEN extern const char ctrace__plt_tramps[], ctrace__plt_tramps_end[];
CTRACE_HIDDEN void ctrace__plt_return(void);
CTRACE_HIDDEN CTRACE_REALIGN uintptr_t ctrace__plt_enter(uint32_t index,
						 uintptr_t *ret);
CTRACE_HIDDEN CTRACE_REALIGN uintptr_t ctrace__plt_exit(uintptr_t sp);

#define MAX_MODULES 4096

struct plt_slot {
	uintptr_t got;          /* the GOT slot's address */
	_Atomic uintptr_t real; /* the real target, 0 until bound */
	uintptr_t lazy;         /* what an unbound slot held: the lazy stub */
	const char *name;       /* the relocation's symbol (name_keep) */
	struct ctrace__libcall_how how; /* values to save (protos.c) */
	/* A canonical PLT entry's slot (see canonical): its module's code,
	 * from which alone its calls are recorded, and the entry; canon 0
	 * for others. */
	uint8_t canon;
	/* A longjmp: it never returns, so its return is not patched (the
	 * entry would stay in retval.c's list, its slot holding the
	 * trampoline, taken for a frame still running). */
	uint8_t jumps;
	uintptr_t code_lo, code_len, entry;
};

/* dlopen and dlmopen: a module they load may sit where one unloaded
 * before did, its functions and call sites at the same addresses, so
 * that no event of it is new to the recorder; and a dlopen of a cached
 * file may take less than the pause after which the loader's list is
 * looked at (CTRACE_GAP_TICKS).  Its slots would go unredirected, its
 * library calls unrecorded.  Called from the module that holds the
 * recorder, whose code the patched return address (ctrace__plt_return)
 * is in, they find their caller's RUNPATH and namespace by it as by the
 * real one: there they are recorded, and the modules looked at when they
 * return (ctrace__plt_exit).  Kept with the slot's return mask, in a bit
 * no return register uses (CTRACE_RETVAL_COMPACT's, a record's state,
 * never a mask's): ctrace__plt_exit takes it out before the mask is
 * read. */
#define PLT_RET_LOADS 0x80
_Static_assert((PLT_RET_LOADS &
		(CTRACE_RETVAL_R0 | CTRACE_RETVAL_R1 | CTRACE_RETVAL_XMM0 |
		 CTRACE_RETVAL_XMM1 | CTRACE_RETVAL_ST0 | CTRACE_RETVAL_MEM |
		 CTRACE_RETVAL_NARROW)) == 0,
	       "PLT_RET_LOADS is no return register's bit");
static int loads(const char *name)
{
	return !strcmp(name, "dlopen") || !strcmp(name, "dlmopen");
}

/* The functions that jump and never return (struct plt_slot's jumps):
 * the longjmp family, and setcontext. */
static int jumps(const char *name)
{
	static const char *const jump[] = {
		"longjmp",	   "_longjmp",	       "siglongjmp",
		"__longjmp_chk",   "__libc_longjmp",   "__libc_siglongjmp",
		"setcontext",
	};
	for (size_t i = 0; i < sizeof jump / sizeof jump[0]; i++)
		if (!strcmp(name, jump[i]))
			return 1;
	return 0;
}

/* Modules looked at, by their dynamic section's address: each once, but
 * again when a scan finds its first redirected slot no longer ours (an
 * object unloaded and another loaded at its address). */
struct plt_module {
	uintptr_t dynamic;
	uintptr_t first_got; /* 0: nothing redirected */
};

static struct plt_slot *slots;
static _Atomic uint32_t n_slots;
static struct plt_module *modules;
static size_t n_modules;
static int mode;        /* CTRACE_PLT_* */
static int full_warned; /* the slots ran out: said once */
static int names_warned; /* the names' space ran out: said once */
/* Slots called while unbound whose binding is not yet seen. */
static _Atomic uint32_t unbound_called;
/* The canonical PLT entries' span (see through_entry). */
static uintptr_t canon_lo = UINTPTR_MAX, canon_hi;

static uint32_t tramp_count(void)
{
	return (uint32_t)((ctrace__plt_tramps_end - ctrace__plt_tramps) /
			  PLT_TRAMP_SIZE);
}

static uintptr_t tramp_of(uint32_t i)
{
	return (uintptr_t)ctrace__plt_tramps + (uintptr_t)i * PLT_TRAMP_SIZE;
}

/* The slots' symbols, copied: a module's string table goes when it is
 * unloaded.  NAMES_BYTES reserved, their pages taken as written.  A
 * symbol is kept whole up to PLT_NAME_MAX bytes, which a PLT_SLOT record
 * holds in the smallest chunk (C++ names run to hundreds of bytes:
 * libstdc++'s basic_string members share their first 47), and cut
 * there. */
#define NAMES_BYTES (16u << 20)
#define PLT_NAME_MAX 1024
static char *names;
static size_t names_used;

/* A copy of name, NUL-terminated, cut at PLT_NAME_MAX bytes; NULL when
 * the names' space is used up. */
static const char *name_keep(const char *name)
{
	size_t len = strnlen(name, PLT_NAME_MAX);
	if (names == NULL || NAMES_BYTES - names_used < len + 1)
		return NULL;
	char *p = names + names_used;
	memcpy(p, name, len);
	p[len] = '\0';
	names_used += len + 1;
	return p;
}

static void record_return(void)
{
	uint64_t v = (uintptr_t)ctrace__plt_return;
	uint64_t saved;
	ctrace__meta_lock(&saved);
	ctrace__meta_record(CTRACE_REC_LIB_RETURN, &v, sizeof v);
	ctrace__meta_unlock(&saved);
}

/* A PLT_SLOT record is made here under the metadata lock (which blocks
 * signals): not on the stack, which may be a signal handler's small
 * one (learn() runs in the trampolines). */
static uint8_t slot_rec[24 + PLT_NAME_MAX];

static void record_slot(const struct plt_slot *p, uintptr_t real)
{
	uint64_t v[3] = {ctrace__now(), p->got, real};
	size_t n = p->name != NULL ? strlen(p->name) : 0;
	uint64_t saved;
	ctrace__meta_lock(&saved);
	memcpy(slot_rec, v, sizeof v);
	if (n != 0)
		memcpy(slot_rec + 24, p->name, n);
	ctrace__meta_record(CTRACE_REC_PLT_SLOT, slot_rec, 24 + n);
	ctrace__meta_unlock(&saved);
}

void ctrace__plt_describe(void)
{
	if (mode == CTRACE_PLT_OFF)
		return;
	record_return();
	/* A fork()ed child's trace: the slots redirected before, which
	 * its scans find ours already. */
	uint32_t n = atomic_load_explicit(&n_slots, memory_order_acquire);
	for (uint32_t i = 0; i < n; i++)
		if (slots[i].got != 0)
			record_slot(&slots[i],
				    atomic_load_explicit(&slots[i].real,
							 memory_order_relaxed));
}

/* A library's slot that holds a canonical PLT entry (a GLOB_DAT slot of
 * -fno-plt code: the loader resolves it to the program's entry) has the
 * function for its target, once the entry's slot knows it: its calls are
 * the function's, of its library (the entry jumps there; the entry's
 * trampoline lets them through, see ctrace__plt_enter).  v: a slot's
 * target; the function, or v. */
static uintptr_t through_entry(uintptr_t v)
{
	if (v < canon_lo || v > canon_hi)
		return v;
	uint32_t n = atomic_load_explicit(&n_slots, memory_order_acquire);
	for (uint32_t i = 0; i < n; i++) {
		if (!slots[i].canon || slots[i].entry != v)
			continue;
		uintptr_t r =
			atomic_load_explicit(&slots[i].real, memory_order_relaxed);
		return r != 0 ? r : v;
	}
	return v;
}

/* The slot of the canonical entry at entry was bound to real: the slots
 * that held the entry (through_entry) go to real too. */
static void entry_bound(uintptr_t entry, uintptr_t real)
{
	uint32_t n = atomic_load_explicit(&n_slots, memory_order_acquire);
	for (uint32_t i = 0; i < n; i++) {
		uintptr_t r = entry;
		if (atomic_compare_exchange_strong(&slots[i].real, &r, real))
			record_slot(&slots[i], real);
	}
}

/* A slot bound by the loader since it was redirected: remember the target,
 * and redirect it again.  Only writable GOTs are bound lazily. */
static void learn(uint32_t i)
{
	struct plt_slot *p = &slots[i];
	uintptr_t tramp = tramp_of(i);
	_Atomic uintptr_t *got = (_Atomic uintptr_t *)p->got;
	uintptr_t v = atomic_load_explicit(got, memory_order_relaxed);
	if (v == tramp || v == p->lazy ||
	    atomic_load_explicit(&p->real, memory_order_relaxed) != 0)
		return;
	atomic_store(&p->real, v);
	uintptr_t real = v;
	atomic_compare_exchange_strong(got, &v, tramp);
	record_slot(p, v);
	if (p->canon)
		entry_bound(p->entry, real);
}

static void learn_all(void)
{
	uint32_t n = atomic_load_explicit(&n_slots, memory_order_acquire);
	for (uint32_t i = 0; i < n; i++)
		if (atomic_load_explicit(&slots[i].real,
					 memory_order_relaxed) == 0)
			learn(i);
}

uintptr_t ctrace__plt_enter(uint32_t index, uintptr_t *ret)
{
	struct plt_slot *p = &slots[index];
	struct ctrace__thread *t = &ctrace__state_tls;
	/* The recorder's own calls (this one's too) go straight on.  (A
	 * signal handler that interrupted this and left with siglongjmp
	 * leaves the mark up, and the thread's later library calls go so
	 * too: doc/recording.md.) */
	if (ctrace__state_self) {
		uintptr_t r = atomic_load_explicit(&p->real,
						   memory_order_relaxed);
		if (r != 0)
			return r;
		/* Bound by the loader on the way: the next call through a
		 * trampoline learns it (else the slot, the loader's from
		 * then on, would never be recorded again). */
		atomic_fetch_add(&unbound_called, 1);
		return p->lazy;
	}
	ctrace__state_self = 1;
	uintptr_t target = atomic_load_explicit(&p->real, memory_order_relaxed);
	if (target == 0) {
		/* The loader may have bound it since (another thread). */
		learn(index);
		target = atomic_load_explicit(&p->real, memory_order_relaxed);
		if (target == 0) {
			target = p->lazy;
			atomic_fetch_add(&unbound_called, 1);
		}
	} else if (unlikely(atomic_load_explicit(&unbound_called,
						  memory_order_relaxed))) {
		/* A first call that never returned (exit, longjmp). */
		atomic_store(&unbound_called, 0);
		learn_all();
	}
	/* Inside the recorder (its start, a signal handler that interrupted
	 * it), or not recording: the call goes straight on.  A thread's
	 * first event may be a library call's (a thread function not
	 * instrumented): ctrace__event starts the thread's recording. */
	if ((t->state != CTRACE_T_IDLE && t->state != CTRACE_T_NEW) ||
	    !(atomic_load_explicit(&ctrace__gate, memory_order_relaxed) &
	      CTRACE_GATE_LIVE)) {
		ctrace__state_self = 0;
		return target;
	}
	/* The stack pointer the library function starts with, as a hook's
	 * is the instrumented function's: the trampoline copied the call
	 * site into the word below, where an entry hook's return address
	 * lies, which the ENTRY reads as its hook (plt.S). */
	uintptr_t site = *ret;
	/* Through a canonical PLT entry, every module calls: a call from
	 * another one (libc's printf calling malloc) is none of the
	 * module's, and one whose return is already ours came through
	 * another trampoline (a library's -fno-plt slot holds the entry),
	 * which records it. */
	if (unlikely(p->canon) &&
	    (site == (uintptr_t)ctrace__plt_return ||
	     (mode == CTRACE_PLT_ON && site - p->code_lo >= p->code_len))) {
		ctrace__state_self = 0;
		return target;
	}
	/* A tail call through the PLT from a library call recorded here
	 * (libstdc++'s operator delete jumping to free) finds its return
	 * address ours, and returns where that call does: it is named by
	 * that call's site, with the trampoline as its hook (the word below,
	 * left as the trampoline copied it), which tells the tree to nest it
	 * in that call at the same stack pointer (replay/thread.c). */
	if (unlikely(site == (uintptr_t)ctrace__plt_return)) {
		uintptr_t real = ctrace__retval_real_at((uintptr_t)ret, site);
		if (real != 0)
			site = real;
	}
	/* A call whose return cannot be patched is not recorded: no ENTRY
	 * without its EXIT.  With the list full it is counted lost; a
	 * thread that has no list (exiting, or its list could not be
	 * mapped) records no more library calls. */
	int pushed = p->jumps ? 1
			      : ctrace__retval_push((uintptr_t)ret, p->got,
						    (uintptr_t)ctrace__plt_return,
						    p->how.retmask);
	if (pushed == 0)
		ctrace__event_refused();
	if (pushed > 0) {
		if (likely(!ctrace__state_capture_on)) {
			ctrace__event(0, p->got, site, (uintptr_t)ret);
		} else {
			/* The arguments, as the trampoline left them
			 * (plt.S). */
			struct ctrace__libvals v =
				plt_arch_entry_vals(ret, p->how);
			ctrace__event_lib(0, p->got, site, (uintptr_t)ret,
					  &v);
		}
	}
	ctrace__state_self = 0;
	return target;
}

/* The call site an exit names its call by: the real return address, but
 * for a tail call's (ctrace__plt_enter), the site its entry named. */
static inline uintptr_t exit_site(uintptr_t real, uintptr_t sp)
{
	if (unlikely(real == (uintptr_t)ctrace__plt_return)) {
		uintptr_t under = ctrace__retval_real_at(
			sp - sizeof(uintptr_t), real);
		if (under != 0)
			return under;
	}
	return real;
}

uintptr_t ctrace__plt_exit(uintptr_t sp)
{
	uintptr_t fn;
	uint8_t mask;
	uintptr_t real = ctrace__retval_pop(sp, &fn, &mask);
	int loaded = mask & PLT_RET_LOADS;
	mask &= (uint8_t)~PLT_RET_LOADS;
	uint8_t self = ctrace__state_self;
	ctrace__state_self = 1;
	if (unlikely(atomic_load_explicit(&unbound_called,
					  memory_order_relaxed))) {
		atomic_store(&unbound_called, 0);
		learn_all();
	}
	/* A dlopen returned (see loads): its modules are recorded and
	 * their slots redirected before its caller can call into them. */
	if (unlikely(loaded))
		ctrace__event_loaded();
	if (!self && likely(!ctrace__state_capture_on)) {
		ctrace__event(CTRACE_TAG_EXIT_BIT, fn, exit_site(real, sp),
			      sp);
	} else if (!self) {
		/* The return registers, as the return trampoline saved
		 * them below sp (plt.S); x86-64 records those of the slot's
		 * mask. */
		struct ctrace__libvals v = plt_arch_exit_vals(sp, mask);
		ctrace__event_lib(CTRACE_TAG_EXIT_BIT, fn,
				  exit_site(real, sp), sp, &v);
	}
	ctrace__state_self = self;
	return real;
}

/* ---------------------------------------------------------------------------
 * Redirecting a module's slots
 * ------------------------------------------------------------------------ */

/* Calls that must not be redirected: the hooks themselves; the program's
 * start; functions that return twice or read their return address
 * (setjmp and vfork: the patched return address would be saved, or
 * returned through twice; dlopen and dlsym: RTLD_NEXT and the caller's
 * RUNPATH are found by the caller's address, which would be the
 * recorder's, but for dlopen called from the recorder's own module, see
 * loads); the loader's TLS lookup, called by compiled code; and
 * personality routines.  own: the module holds the recorder. */
static int skipped(const char *name, int own)
{
	if (own && loads(name))
		return 0;
	static const char *const skip[] = {
		"__libc_start_main", "__cxa_finalize", "setjmp", "_setjmp",
		"__sigsetjmp", "sigsetjmp", "savectx", "getcontext",
		"vfork", "__vfork", "dlopen", "dlmopen", "dlsym", "dlvsym",
		"__tls_get_addr", "__gmon_start__",
	};
	if (!strncmp(name, "__cyg_profile_", 14))
		return 1;
	/* A personality routine's GOT slot is read by the unwinder, not
	 * called by the module (a CIE points at it). */
	if (strstr(name, "_personality") != NULL)
		return 1;
	for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
		if (!strcmp(name, skip[i]))
			return 1;
	return 0;
}

/* A dynamic entry's address: the loader relocates them in place on this
 * architecture, but not every loader does. */
static uintptr_t dyn_ptr(const struct dl_phdr_info *info, uintptr_t v)
{
	return v < info->dlpi_addr ? v + info->dlpi_addr : v;
}

struct dyn {
	const ElfW(Sym) *symtab;
	const char *strtab;
	const plt_rel *jmprel;
	size_t pltrelsz;
	const plt_rel *rela;
	size_t relasz;
	uintptr_t pltgot; /* the GOT's address, i386's PIC register */
};

static int read_dynamic(const struct dl_phdr_info *info,
			const ElfW(Dyn) *d, struct dyn *out)
{
	memset(out, 0, sizeof *out);
	for (; d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_SYMTAB:
			out->symtab = (const void *)dyn_ptr(info, d->d_un.d_ptr);
			break;
		case DT_STRTAB:
			out->strtab = (const void *)dyn_ptr(info, d->d_un.d_ptr);
			break;
		case DT_JMPREL:
			out->jmprel = (const void *)dyn_ptr(info, d->d_un.d_ptr);
			break;
		case DT_PLTRELSZ:
			out->pltrelsz = d->d_un.d_val;
			break;
		case PLT_DT_REL:
			out->rela = (const void *)dyn_ptr(info, d->d_un.d_ptr);
			break;
		case PLT_DT_RELSZ:
			out->relasz = d->d_un.d_val;
			break;
		case DT_PLTGOT:
			out->pltgot = dyn_ptr(info, d->d_un.d_ptr);
			break;
		case DT_PLTREL:
			if (d->d_un.d_val != PLT_DT_REL)
				return -1;
			break;
		}
	}
	return out->symtab != NULL && out->strtab != NULL ? 0 : -1;
}

static const char *rela_name(const struct dyn *dy, const plt_rel *r)
{
	size_t sym = PLT_R_SYM(r->r_info);
	return sym != 0 ? dy->strtab + dy->symtab[sym].st_name : "";
}

/* An instrumented module calls the entry hook through its GOT; the
 * program, which holds the recorder, always counts. */
static int instrumented(const struct dyn *dy, int first)
{
	if (first)
		return 1;
	const plt_rel *r[2] = {dy->jmprel, dy->rela};
	size_t n[2] = {dy->pltrelsz / sizeof(plt_rel),
		       dy->relasz / sizeof(plt_rel)};
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; r[k] != NULL && i < n[k]; i++)
			if (!strcmp(rela_name(dy, &r[k][i]),
				    "__cyg_profile_func_enter"))
				return 1;
	return 0;
}

/* The slot for a GOT address: the one it had (a module loaded again at
 * the same address), else a new one; -1 when they ran out. */
static int64_t slot_for(uintptr_t got)
{
	uint32_t n = atomic_load_explicit(&n_slots, memory_order_relaxed);
	for (uint32_t i = 0; i < n; i++)
		if (slots[i].got == got)
			return i;
	if (n == tramp_count())
		return -1;
	return n;
}

struct range {
	uintptr_t lo, hi;
};

/* Whether addr lies in the module's own segments: an unbound slot holds
 * its lazy stub there. */
static int in_module(const struct dl_phdr_info *info, uintptr_t addr)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t s = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && addr >= s && addr - s < ph->p_memsz)
			return 1;
	}
	return 0;
}

/* The pages of the module's RELRO segment: read-only once the loader
 * relocated the module, so written through a writable window. */
static struct range relro_of(const struct dl_phdr_info *info)
{
	long page = sysconf(_SC_PAGESIZE);
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_GNU_RELRO)
			continue;
		uintptr_t s = info->dlpi_addr + ph->p_vaddr;
		uintptr_t lo = s & ~(uintptr_t)(page - 1);
		/* The loader protects whole pages from the start, and the
		 * last page only up to where the segment ends. */
		uintptr_t hi = (s + ph->p_memsz) & ~(uintptr_t)(page - 1);
		return (struct range){lo, hi};
	}
	return (struct range){0, 0};
}

/* The span of the module's executable segments. */
static struct range code_of(const struct dl_phdr_info *info)
{
	struct range r = {UINTPTR_MAX, 0};
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		uintptr_t s = info->dlpi_addr + ph->p_vaddr;
		if (s < r.lo)
			r.lo = s;
		if (s + ph->p_memsz > r.hi)
			r.hi = s + ph->p_memsz;
	}
	return r.hi != 0 ? r : (struct range){0, 0};
}

/* Whether the slot's function has a canonical PLT entry in the module: a
 * symbol the module does not define but gives an address, its PLT
 * entry's, which is then the function's address in every module (lld
 * and mold make one for each function i386 non-PIC code calls, R_386_PC32;
 * any linker for a function whose address non-PIC code takes).  The
 * loader resolves the other modules' GLOB_DAT and absolute relocations of
 * the function to that entry, which jumps through the module's slot: the
 * libraries' own calls of the function (printf's malloc, qsort's free)
 * reach its trampoline too.  The entry, the function's identity, is left
 * as it is; only the slot it jumps through is redirected. */
static int canonical(const struct dyn *dy, const plt_rel *r)
{
	size_t sym = PLT_R_SYM(r->r_info);
	return sym != 0 && dy->symtab[sym].st_shndx == SHN_UNDEF &&
	       dy->symtab[sym].st_value != 0;
}

struct scan {
	int first;
};

/* A JUMP_SLOT, or the GLOB_DAT slot of a function the module does not
 * define: what -fno-plt code calls through (and a PLT stub of .plt.got,
 * when the module also takes the GOT slot's value). */
static int is_call_slot(const struct dyn *dy, const plt_rel *r)
{
	unsigned type = PLT_R_TYPE(r->r_info);
	if (type == PLT_JUMP_SLOT)
		return 1;
	if (type != PLT_GLOB_DAT)
		return 0;
	const ElfW(Sym) *sym = &dy->symtab[PLT_R_SYM(r->r_info)];
	unsigned kind = PLT_ST_TYPE(sym->st_info);
	return sym->st_shndx == SHN_UNDEF &&
	       (kind == STT_FUNC || kind == STT_GNU_IFUNC);
}

/* GLOB_DAT slots of functions, and what the module's code does with
 * them (see only_called). */
struct glob {
	uintptr_t got;
	uint8_t called, loaded;
};

/* Shell sort by slot (no qsort: glibc's may call malloc). */
static void glob_sort(struct glob *g, size_t n)
{
	for (size_t gap = n / 2; gap > 0; gap /= 2)
		for (size_t i = gap; i < n; i++) {
			struct glob t = g[i];
			size_t j = i;
			for (; j >= gap && g[j - gap].got > t.got; j -= gap)
				g[j] = g[j - gap];
			g[j] = t;
		}
}

static struct glob *glob_find(struct glob *g, size_t n, uintptr_t got)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g[mid].got < got)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && g[lo].got == got ? &g[lo] : NULL;
}

/* Whether addr lies in one of the module's writable segments (its GOT,
 * RELRO or not). */
static int in_data(const struct dl_phdr_info *info, uintptr_t addr)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t s = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) &&
		    addr >= s && addr - s < ph->p_memsz)
			return 1;
	}
	return 0;
}

/* The GOT bases the module's code reaches its slots from: on i386 each
 * base its code computes (plt_arch_got_base) that lies in its data, and
 * DT_PLTGOT when it computes none (non-PIC code names slots by their
 * addresses).  Not DT_PLTGOT beside the computed ones: in a mold build,
 * whose base is .got, the GOT-relative offsets of the data after .got
 * (0x1010(%ebx), a static variable) read from .got.plt name its GLOB_DAT
 * slots, and every one looked loaded.  Their number, or 0 when there are
 * more than PLT_GOT_BASES: a reference from a base not known could not
 * be told from other bytes, nor a load of a slot seen. */
static size_t got_bases(const struct dl_phdr_info *info, const struct dyn *dy,
			uintptr_t b[PLT_GOT_BASES])
{
	size_t n = 0;
	for (int k = 0; PLT_GOT_BASES > 1 && k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		const uint8_t *c =
			(const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		const uint8_t *call = c;
		/* each call (e8) once: memchr steps over the rest fast */
		while ((call = memchr(call, 0xe8, ph->p_filesz -
						(size_t)(call - c))) != NULL) {
			size_t i = (size_t)(call++ - c);
			uintptr_t got;
			unsigned reg;
			if (!plt_arch_got_base(c, i, ph->p_filesz, (uintptr_t)c,
					       &got, &reg) ||
			    !in_data(info, got))
				continue;
			size_t j = 0;
			while (j < n && b[j] != got)
				j++;
			if (j < n)
				continue;
			if (n == PLT_GOT_BASES)
				return 0;
			b[n++] = got;
		}
	}
	if (n == 0)
		b[n++] = dy->pltgot;
	return n;
}

/* The jump targets of a function plt_arch_region follows the GOT's
 * address through; a function with more is read with every register
 * counted. */
#define PLT_BLOCKS 2048

/* Where the scan of a module's code notes what it does with the slots. */
struct refs {
	struct glob *g;
	size_t n;
	uintptr_t lo, hi; /* the slots' span */
	/* loads not noted but told here (scan_code's first reading of an
	 * x86-64 function) */
	int defer_loads, load_seen;
};

/* The code makes a reference of this kind (PLT_REF_*) to address t. */
static void note_ref(void *ctx, uintptr_t t, int kind)
{
	struct refs *r = ctx;
	struct glob *e;
	if (kind == PLT_REF_NONE || t - r->lo >= r->hi - r->lo ||
	    (e = glob_find(r->g, r->n, t)) == NULL)
		return;
	if (kind == PLT_REF_CALL)
		e->called = 1;
	else if (r->defer_loads)
		r->load_seen = 1;
	else
		e->loaded = 1;
}

/* Each byte of c from `from` to `to` read as the start of an address or a
 * displacement (plt_arch_ref, plt_arch_abs_load).  With regs 0, the
 * references from a register (i386's `disp32(%reg)`) are left to
 * plt_arch_region, which reads the instructions; whether one of them would
 * name a slot is returned (only then are they read). */
static int scan_bytes(const uint8_t *c, size_t size, size_t from, size_t to,
		      const uintptr_t *bases, size_t n_bases, int regs,
		      struct refs *r)
{
	int named = 0;
	if (from < 2)
		from = 2;
	if (to > size - 3)
		to = size - 3; /* i + 4 <= size */
	for (size_t i = from; i < to; i++) {
		uintptr_t t;
		if (plt_arch_abs_load(c, i, &t))
			note_ref(r, t, PLT_REF_LOAD);
		for (size_t b = 0; b < n_bases; b++) {
			int kind = plt_arch_ref(c, i, size, (uintptr_t)c,
						bases[b], &t);
			if (kind == PLT_REF_NONE)
				continue;
			if (regs || !plt_arch_by_reg(c, i))
				note_ref(r, t, kind);
			else
				named |= t - r->lo < r->hi - r->lo;
		}
	}
	return named;
}

/* Whether code at pc starts as a function does, its CFA the stack
 * pointer just above the return address (a .cold part of a function
 * starts inside its frame). */
static int function_entry(uintptr_t pc)
{
	struct ctrace__cfa rule;
	uintptr_t begin;
	return ctrace__cfa_at(pc + 1, &rule, &begin) == 0 && begin == pc &&
	       rule.reg == CTRACE_DW_SP &&
	       rule.offset == (int32_t)sizeof(uintptr_t);
}

/* The CFA's register at pc in the function at fn, and its offset. */
static int frame_rule(uintptr_t fn, uintptr_t pc, int32_t *offset)
{
	struct ctrace__cfa rule;
	if (ctrace__cfa_walk(fn, pc, &rule) < 0)
		return -1;
	*offset = rule.offset;
	return rule.reg;
}

/* .eh_frame_hdr's search table of the module's functions, or NULL. */
static const int32_t *functions_of(const struct dl_phdr_info *info,
				   const uint8_t **hdr, size_t *count)
{
	for (int i = 0; (PLT_GOT_BASES > 1 || PLT_REGION_EXTENT) &&
			i < info->dlpi_phnum;
	     i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_GNU_EH_FRAME)
			continue;
		*hdr = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		return ctrace__cfi_table(*hdr, count);
	}
	return NULL;
}

/* One executable segment's references into the slots.  Each function
 * its FDEs name is read instruction by instruction (plt_arch_region): on
 * i386 from one's start to the next one's, `disp32(%reg)` a reference
 * only when %reg may hold a GOT base (arch/i386/gotreg.h); on x86-64 its
 * FDE's range (PLT_REGION_EXTENT), every RIP-relative operand.  The
 * rest, and a function the reader refuses, byte by byte. */
static void scan_code(const struct dl_phdr_info *info, const uint8_t *c,
		      size_t size, const uintptr_t *bases, size_t n_bases,
		      uint8_t *marks, void *blocks, struct refs *r)
{
	const uint8_t *hdr = NULL;
	size_t count = 0;
	const int32_t *table = functions_of(info, &hdr, &count);
	uintptr_t base = (uintptr_t)c;
	struct plt_gotreg gr = {c,
				size,
				base,
				bases,
				n_bases,
				r->lo,
				r->hi,
				note_ref,
				function_entry,
				frame_rule,
				marks,
				blocks,
				blocks ? PLT_BLOCKS : 0,
				r};
	size_t from = 0; /* bytes not yet scanned */
	for (size_t k = 0; table != NULL && k < count; k++) {
		uintptr_t start =
			(uintptr_t)hdr + (uintptr_t)(intptr_t)table[2 * k];
		if (start - base >= size || start - base < from)
			continue;
		size_t lo = start - base, hi = size;
		for (size_t j = k + 1; j < count; j++) {
			uintptr_t next = (uintptr_t)hdr +
					 (uintptr_t)(intptr_t)table[2 * j];
			if (next > start) {
				if (next - base < size)
					hi = next - base;
				break;
			}
		}
		scan_bytes(c, size, from, lo, bases, n_bases, 1, r);
		if (PLT_REGION_EXTENT) {
			/* Its bytes first: a call seen there is noted (one
			 * of stray bytes can only let a slot no code names
			 * be redirected), and only a function where they
			 * show a load is read instruction by instruction,
			 * a few in a program (a load of a function's slot
			 * takes its address).  Bytes no range covers (the
			 * padding after a function) are scanned with the
			 * next gap. */
			uintptr_t len;
			from = lo;
			if (ctrace__cfi_extent(start, &len) < 0)
				continue;
			if (len < hi - lo)
				hi = lo + len;
			from = hi;
			r->defer_loads = 1;
			r->load_seen = 0;
			scan_bytes(c, size, lo, hi, bases, n_bases, 1, r);
			r->defer_loads = 0;
			if (r->load_seen &&
			    plt_arch_region(&gr, lo, hi) == PLT_SCAN_BYTES)
				scan_bytes(c, size, lo, hi, bases, n_bases, 1,
					   r);
			continue;
		}
		from = hi;
		if (scan_bytes(c, size, lo, hi, bases, n_bases, 0, r) &&
		    plt_arch_region(&gr, lo, hi) == PLT_SCAN_BYTES)
			scan_bytes(c, size, lo, hi, bases, n_bases, 1, r);
	}
	scan_bytes(c, size, from, size, bases, n_bases, 1, r);
}

/* A GLOB_DAT slot holds the function's address for every use: a call
 * through it (-fno-plt, or a .plt.got stub), but also its value taken
 * (&f, a function given to the entry hook as its address).  Only a slot
 * the code calls or jumps through and never loads may be redirected, or
 * the program would see the trampoline as the function's address.  The
 * executable segments are read once for every reference into the slots
 * (scan_code; plt_arch_ref says which bytes are one, and whether it is a
 * call; plt_arch_abs_load which bytes read another way take a slot's
 * address).  A stray match of other bytes (`89 c7 be 02 00`, `mov
 * %eax,%edi; mov $2,%esi`, pointed at strcmp's slot in an lld build) can
 * still only keep a slot from being redirected, never redirect a slot
 * whose value the code takes. */
static void only_called(const struct dl_phdr_info *info,
			const struct dyn *dy, struct glob *g, size_t n)
{
	glob_sort(g, n);
	uintptr_t bases[PLT_GOT_BASES];
	size_t n_bases = got_bases(info, dy, bases);
	if (n_bases == 0) {
		for (size_t i = 0; i < n; i++)
			g[i].loaded = 1;
		return;
	}
	struct refs r = {g, n, g[0].got, g[n - 1].got + sizeof(uintptr_t), 0, 0};
	/* plt_arch_region's scratch: a bit for each byte of the largest
	 * segment (its functions' jump targets), then the targets' states
	 * (without, every register counts) */
	size_t marks_len = 0;
	for (int k = 0; PLT_BLOCK_BYTES != 0 && k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		    ph->p_filesz / 8 + 1 > marks_len)
			marks_len = ph->p_filesz / 8 + 1;
	}
	marks_len = (marks_len + 15) & ~(size_t)15;
	size_t scratch_len = marks_len + PLT_BLOCKS * PLT_BLOCK_BYTES;
	uint8_t *scratch = NULL;
	if (marks_len != 0) {
		int saved_errno = errno;
		scratch = mmap(NULL, scratch_len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		errno = saved_errno;
		if (scratch == MAP_FAILED)
			scratch = NULL;
	}
	for (int k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) ||
		    ph->p_filesz < 6)
			continue;
		scan_code(info,
			  (const uint8_t *)(info->dlpi_addr + ph->p_vaddr),
			  ph->p_filesz, bases, n_bases, scratch,
			  scratch ? scratch + marks_len : NULL, &r);
	}
	if (scratch != NULL)
		munmap(scratch, scratch_len);
}

static void redirect(const struct dl_phdr_info *info, const struct dyn *dy,
		     struct plt_module *m)
{
	struct range ro = relro_of(info);
	struct range code = code_of(info);
	int opened = 0;
	int own = in_module(info, (uintptr_t)ctrace__plt_return);
	size_t n_plt = dy->jmprel ? dy->pltrelsz / sizeof(plt_rel) : 0;
	size_t n_dyn = dy->rela ? dy->relasz / sizeof(plt_rel) : 0;

	/* The GLOB_DAT function slots, checked against the code; and the
	 * slots to point at their trampolines, by index, once the filters
	 * know them all. */
	struct glob *g = NULL;
	size_t n_glob = 0;
	for (size_t i = 0; i < n_dyn; i++)
		if (PLT_R_TYPE(dy->rela[i].r_info) == PLT_GLOB_DAT &&
		    is_call_slot(dy, &dy->rela[i]))
			n_glob++;
	size_t glob_bytes = n_glob * sizeof *g;
	size_t todo_bytes = (n_plt + n_dyn) * sizeof(uint32_t);
	if (n_plt + n_dyn == 0)
		return;
	int saved_errno = errno;
	void *mem = mmap(NULL, glob_bytes + todo_bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	errno = saved_errno;
	if (mem == MAP_FAILED) {
		ctrace__warn("no memory for library calls: a module's are "
			     "not recorded", "", "");
		return;
	}
	uint32_t *todo = (uint32_t *)((char *)mem + glob_bytes);
	size_t n_todo = 0;
	if (n_glob != 0) {
		g = mem;
		n_glob = 0;
		for (size_t i = 0; i < n_dyn; i++)
			if (PLT_R_TYPE(dy->rela[i].r_info) ==
				    PLT_GLOB_DAT &&
			    is_call_slot(dy, &dy->rela[i]))
				g[n_glob++].got =
					info->dlpi_addr + dy->rela[i].r_offset;
		only_called(info, dy, g, n_glob);
	}

	for (size_t i = 0; i < n_plt + n_dyn; i++) {
		const plt_rel *r = i < n_plt ? &dy->jmprel[i]
						: &dy->rela[i - n_plt];
		if (!is_call_slot(dy, r))
			continue;
		if (i >= n_plt) {
			struct glob *e =
				g == NULL ? NULL
					  : glob_find(g, n_glob,
						      info->dlpi_addr +
							      r->r_offset);
			if (e == NULL || !e->called || e->loaded)
				continue;
		}
		const char *name = rela_name(dy, r);
		if (*name == '\0' || skipped(name, own))
			continue;
		int canon = canonical(dy, r);
		/* The filters decide for the slot once, by its symbol, as
		 * for a function by its name: a call they leave out is not
		 * redirected at all. */
		uint8_t flags = ctrace__filter_libcall_flags(name);
		if (flags & CTRACE_F_SKIP)
			continue;
		uintptr_t got = info->dlpi_addr + r->r_offset;
		uintptr_t v = *(const uintptr_t *)got;
		if (v == 0)
			continue; /* a weak function not there */
		if (v >= (uintptr_t)ctrace__plt_tramps &&
		    v < (uintptr_t)ctrace__plt_tramps_end)
			continue; /* ours already */
		int64_t k = slot_for(got);
		if (k < 0) {
			if (!full_warned)
				ctrace__warn("more library call slots than "
					     "trampolines: the calls of the "
					     "rest are not recorded", "", "");
			full_warned = 1;
			break;
		}
		/* A module loaded again at the same address (dlopen after
		 * dlclose) finds its slots with their names. */
		const char *kept = slots[k].name;
		if (kept == NULL || strncmp(kept, name, PLT_NAME_MAX) != 0 ||
		    strlen(kept) != strnlen(name, PLT_NAME_MAX))
			kept = name_keep(name);
		if (kept == NULL) {
			if (!names_warned)
				ctrace__warn("library call symbols past 16 MiB: "
					     "the calls of the rest are not "
					     "recorded", "", "");
			names_warned = 1;
			break;
		}
		struct plt_slot *p = &slots[k];
		p->got = got;
		p->name = kept;
		ctrace__filter_libcall((uint32_t)k, got, flags);
		ctrace__protos_how(p->name, &p->how);
		if (own && loads(p->name))
			p->how.retmask |= PLT_RET_LOADS;
		p->jumps = (uint8_t)jumps(p->name);
		p->canon = (uint8_t)canon;
		p->code_lo = canon ? code.lo : 0;
		p->code_len = canon ? code.hi - code.lo : 0;
		p->entry = canon ? info->dlpi_addr +
					   dy->symtab[PLT_R_SYM(r->r_info)].st_value
				 : 0;
		if (canon && p->entry < canon_lo)
			canon_lo = p->entry;
		if (canon && p->entry > canon_hi)
			canon_hi = p->entry;
		uintptr_t real = in_module(info, v) ? 0 : through_entry(v);
		p->lazy = real ? 0 : v;
		atomic_store(&p->real, real);
		if ((uint32_t)k == atomic_load(&n_slots))
			atomic_store_explicit(&n_slots, (uint32_t)k + 1,
					      memory_order_release);
		record_slot(p, real);
		todo[n_todo++] = (uint32_t)k;
	}
	/* The slots' flags are in the filters' table before a call can
	 * reach a trampoline: an entry and its exit are judged alike. */
	if (n_todo != 0)
		ctrace__filter_libcalls_done();
	for (size_t i = 0; i < n_todo; i++) {
		uintptr_t got = slots[todo[i]].got;
		if (got >= ro.lo && got < ro.hi && !opened) {
			if (mprotect((void *)ro.lo, ro.hi - ro.lo,
				     PROT_READ | PROT_WRITE) != 0)
				break;
			opened = 1;
		}
		__atomic_store_n((uintptr_t *)got, tramp_of(todo[i]),
				 __ATOMIC_RELEASE);
		if (m->first_got == 0)
			m->first_got = got;
	}
	if (opened)
		mprotect((void *)ro.lo, ro.hi - ro.lo, PROT_READ);
	munmap(mem, glob_bytes + todo_bytes);
}

static int scan_one(struct dl_phdr_info *info, size_t size, void *data)
{
	struct scan *sc = data;
	int first = sc->first;
	sc->first = 0;
	(void)size;
	const char *name = info->dlpi_name;
	if (!first && (name == NULL || strchr(name, '/') == NULL))
		return 0; /* the vDSO */
	if (strstr(name, "/ld-linux") != NULL || strstr(name, "/ld.so") != NULL)
		return 0; /* the loader: its calls are its own business */
	const ElfW(Dyn) *dynamic = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dynamic = (const void *)(info->dlpi_addr +
						 info->dlpi_phdr[i].p_vaddr);
	if (dynamic == NULL)
		return 0;
	struct plt_module *m = NULL;
	for (size_t i = 0; i < n_modules; i++)
		if (modules[i].dynamic == (uintptr_t)dynamic)
			m = &modules[i];
	if (m != NULL) {
		uintptr_t g = m->first_got;
		if (g == 0 || (*(const uintptr_t *)g >=
				       (uintptr_t)ctrace__plt_tramps &&
			       *(const uintptr_t *)g <
				       (uintptr_t)ctrace__plt_tramps_end))
			return 0; /* seen, and still as we left it */
	} else {
		if (n_modules == MAX_MODULES)
			return 0;
		m = &modules[n_modules++];
		m->dynamic = (uintptr_t)dynamic;
	}
	m->first_got = 0;
	struct dyn dy;
	if (read_dynamic(info, dynamic, &dy) < 0)
		return 0;
	if (mode != CTRACE_PLT_NEST && !instrumented(&dy, first))
		return 0;
	redirect(info, &dy, m);
	return 0;
}

void ctrace__plt_scan(void)
{
	static atomic_flag busy = ATOMIC_FLAG_INIT;
	if (mode == CTRACE_PLT_OFF || slots == NULL)
		return;
	/* One scan at a time; one that finds another running leaves the
	 * new modules to it or to the next. */
	if (atomic_flag_test_and_set(&busy))
		return;
	int saved_errno = errno;
	struct scan sc = {.first = 1};
	uint64_t saved = ctrace__block_signals();
	dl_iterate_phdr(scan_one, &sc);
	ctrace__restore_signals(saved);
	errno = saved_errno;
	atomic_flag_clear(&busy);
}

/* Clears sc->first when the program is linked dynamically (it names
 * its loader; a static PIE has a dynamic section but no library). */
static int has_dynamic(struct dl_phdr_info *info, size_t size, void *data)
{
	struct scan *sc = data;
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_INTERP)
			sc->first = 0;
	return 1; /* the program only */
}

void ctrace__plt_start(int how)
{
	mode = how;
	if (mode == CTRACE_PLT_OFF)
		return;
	int saved_errno = errno;
	void *s = mmap(NULL, tramp_count() * sizeof *slots,
		       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		       0);
	void *m = mmap(NULL, MAX_MODULES * sizeof *modules,
		       PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	void *nm = mmap(NULL, NAMES_BYTES, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	errno = saved_errno;
	if (s == MAP_FAILED || m == MAP_FAILED || nm == MAP_FAILED) {
		mode = CTRACE_PLT_OFF;
		ctrace__warn("no memory for library calls: not recorded", "",
			     "");
		return;
	}
	slots = s;
	modules = m;
	names = nm;
	struct scan sc = {.first = 1};
	dl_iterate_phdr(has_dynamic, &sc);
	if (sc.first) {
		/* A static program: no GOT to redirect.  Said in the trace. */
		struct plt_slot none = {0};
		record_slot(&none, 0);
		mode = CTRACE_PLT_OFF;
		return;
	}
	ctrace__plt_describe();
	ctrace__plt_scan();
}

