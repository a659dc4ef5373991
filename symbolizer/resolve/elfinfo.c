/* elfinfo.c -- function symbols with sizes, and the build-id, from ELF files.
 *
 * Only files of this machine's byte order are read: a trace from another
 * byte order is refused long before any of its modules is opened.  Both
 * ELF classes are read, so a 64-bit symbolizer handles -m32 programs.
 */
#define _GNU_SOURCE /* asprintf */
#include "resolve/elfinfo.h"
#include "resolve/resolve.h"
#include "elfsym.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------
 * Reading the file
 * ------------------------------------------------------------------------ */

/* An open ELF file and its section headers (common/elfsym.c decodes
 * them, whatever the class). */
struct elf_file {
	int fd;
	struct ctrace_elf elf;
	size_t n_sections;
	struct ctrace_elf_section *sections;
};

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	char *p = buf;

	while (len > 0) {
		ssize_t n = pread(fd, p, len, (off_t)off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ENOEXEC; /* truncated file */
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* Reads `len` bytes at `off` into a new buffer (with a NUL after them, so
 * string tables can be used in place). */
static int read_alloc(int fd, uint64_t off, uint64_t len, char **out)
{
	char *buf;
	int err;

	struct stat st;

	if (len > (uint64_t)1 << 32)
		return -EFBIG;
	/* what the headers claim is bounded by what the file holds: a
	 * damaged size must not become a huge allocation */
	if (fstat(fd, &st) < 0 || off > (uint64_t)st.st_size ||
	    len > (uint64_t)st.st_size - off)
		return -ENOEXEC;
	buf = malloc((size_t)len + 1);
	if (buf == NULL)
		return -ENOMEM;
	err = read_at(fd, buf, (size_t)len, off);
	if (err < 0) {
		free(buf);
		return err;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

int elfinfo_open_regular(const char *path)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	/* no object is empty; the files of /proc say they are, and some
	 * block when read (/proc/kmsg) */
	if (st.st_size == 0) {
		close(fd);
		return -ENOEXEC;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

/* The candidates of elfinfo_altlink_check, in order; NULL after the last.
 * Returns a malloc'd path, or NULL with *oom set. */
static char *altlink_candidate(unsigned i, const char *path, const char *name,
			       const uint8_t *id, size_t id_len, bool *oom)
{
	static const char debug_dir[] = "/usr/lib/debug";
	const char *slash = strrchr(path, '/');
	int dir_len = slash != NULL ? (int)(slash - path + 1) : 0;
	char *out = NULL;
	int n = 0;

	*oom = false;
	if (name[0] == '/') {
		if (i == 0)
			n = asprintf(&out, "%s", name);
		else if (i == 1 && id_len > 1)
			goto by_id;
		else
			return NULL;
	} else if (i == 0) {
		n = asprintf(&out, "%.*s%s", dir_len, path, name);
	} else if (i == 1) {
		n = asprintf(&out, "%.*s.debug/%s", dir_len, path, name);
	} else if (i == 2) {
		n = asprintf(&out, "%s%s%.*s%s", debug_dir,
			     path[0] == '/' ? "" : "/", dir_len, path, name);
	} else if (i == 3 && id_len > 1) {
by_id:
		/* .build-id/xx/yyyy.debug: 2 + 1 + 2 * 63 + 6 characters */
		out = malloc(sizeof debug_dir + 10 + 2 * id_len + 7);
		if (out == NULL) {
			*oom = true;
			return NULL;
		}
		char *q = out + sprintf(out, "%s/.build-id/%02x/", debug_dir,
					id[0]);
		for (size_t k = 1; k < id_len; k++)
			q += sprintf(q, "%02x", id[k]);
		strcpy(q, ".debug");
		return out;
	} else {
		return NULL;
	}
	if (n < 0) {
		*oom = true;
		return NULL;
	}
	return out;
}

int elfinfo_altlink_check(const char *path, const char *name,
			  const uint8_t *id, size_t id_len, char **bad)
{
	bool oom;
	char *c;

	*bad = NULL;
	for (unsigned i = 0;
	     (c = altlink_candidate(i, path, name, id, id_len, &oom)); i++) {
		struct stat st;
		if (stat(c, &st) < 0) {
			free(c);
			continue;
		}
		if (S_ISREG(st.st_mode)) {
			free(c);
			return 0;
		}
		*bad = c;
		return -EINVAL;
	}
	return oom ? -ENOMEM : 0;
}

static int elf_open(const char *path, struct elf_file *ef)
{
	unsigned char head[CTRACE_ELF_HEADER_MAX];
	struct ctrace_elf e;
	uint64_t shnum;
	char *raw;
	int err;

	memset(ef, 0, sizeof *ef);
	ef->fd = elfinfo_open_regular(path);
	if (ef->fd < 0)
		return ef->fd;
	struct stat st;
	err = fstat(ef->fd, &st) < 0 ? -errno : 0;
	if (err < 0)
		goto fail;
	size_t n = (uint64_t)st.st_size < sizeof head ? (size_t)st.st_size
						       : sizeof head;
	err = read_at(ef->fd, head, n, 0);
	if (err < 0)
		goto fail;
	err = -ENOEXEC;
	if (ctrace__elf_header(head, n, &e) < 0 || e.swap)
		goto fail;
	ef->elf = e;
	if (e.shoff == 0)
		return 0; /* no section headers: nothing to find */
	if (e.shentsize != ctrace__elf_shdr_size(&e))
		goto fail;
	shnum = e.shnum;
	if (shnum == 0) {
		/* More than SHN_LORESERVE sections: the count is in the
		 * first section header's size. */
		unsigned char first[sizeof(Elf64_Shdr)];
		struct ctrace_elf_section s0;
		err = read_at(ef->fd, first, (size_t)e.shentsize, e.shoff);
		if (err < 0)
			goto fail;
		ctrace__elf_section(&e, first, &s0);
		shnum = s0.size;
		err = -ENOEXEC;
		if (shnum == 0 || shnum > 1u << 24)
			goto fail;
	}
	err = read_alloc(ef->fd, e.shoff, shnum * e.shentsize, &raw);
	if (err < 0)
		goto fail;
	ef->sections = calloc((size_t)shnum, sizeof *ef->sections);
	if (ef->sections == NULL) {
		free(raw);
		err = -ENOMEM;
		goto fail;
	}
	ef->n_sections = (size_t)shnum;
	for (size_t i = 0; i < ef->n_sections; i++)
		ctrace__elf_section(&e, raw + i * e.shentsize,
				    &ef->sections[i]);
	free(raw);
	return 0;

fail:
	close(ef->fd);
	ef->fd = -1;
	return err;
}

static void elf_close(struct elf_file *ef)
{
	if (ef->fd >= 0)
		close(ef->fd);
	free(ef->sections);
}

/* ---------------------------------------------------------------------------
 * Build-id
 * ------------------------------------------------------------------------ */

int elfinfo_build_id(const char *path, uint8_t *id)
{
	struct elf_file ef;
	int ret = 0;
	int err = elf_open(path, &ef);

	if (err < 0)
		return err;
	for (size_t i = 0; i < ef.n_sections && ret == 0; i++) {
		const struct ctrace_elf_section *s = &ef.sections[i];
		char *notes;
		if (s->type != SHT_NOTE || s->size == 0 || s->size > 1u << 20)
			continue;
		err = read_alloc(ef.fd, s->offset, s->size, &notes);
		if (err < 0) {
			ret = err;
			break;
		}
		ret = (int)ctrace__elf_build_id(notes, (size_t)s->size, id,
						 ELFINFO_BUILD_ID_MAX);
		free(notes);
	}
	elf_close(&ef);
	return ret;
}

/* ---------------------------------------------------------------------------
 * Function symbols
 * ------------------------------------------------------------------------ */

/* Among symbols at one address, which name to show: a global one over a
 * local alias (glibc's __GI_ names), then the one with fewer leading
 * underscores (puts over _IO_puts), then strong over weak. */
static uint8_t symbol_rank(unsigned bind, const char *name)
{
	uint8_t rank = 0;

	if (bind != STB_LOCAL)
		rank += 8;
	if (name[0] != '_' || name[1] == 'Z')
		rank += 4;
	else if (name[1] != '_')
		rank += 2;
	if (bind == STB_GLOBAL)
		rank += 1;
	return rank;
}

static int compare_functions(const void *a, const void *b)
{
	const struct elf_function *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int read_table(struct elf_file *ef, const struct ctrace_elf_section *tab,
		      struct elf_functions *out)
{
	size_t entsize = ctrace__elf_sym_size(&ef->elf);
	const struct ctrace_elf_section *strsec;
	size_t count;
	char *raw = NULL;
	int err;

	if (tab->link >= ef->n_sections || tab->size % entsize != 0)
		return -ENOEXEC;
	strsec = &ef->sections[tab->link];
	count = (size_t)(tab->size / entsize);
	err = read_alloc(ef->fd, strsec->offset, strsec->size, &out->strings);
	if (err < 0)
		return err;
	err = read_alloc(ef->fd, tab->offset, tab->size, &raw);
	if (err < 0)
		return err;
	out->syms = malloc((count ? count : 1) * sizeof *out->syms);
	if (out->syms == NULL) {
		free(raw);
		return -ENOMEM;
	}
	for (size_t i = 0; i < count; i++) {
		struct ctrace_elf_symbol sym;
		ctrace__elf_symbol(&ef->elf, raw + i * entsize, &sym);
		if (!ctrace__elf_function(&sym) || sym.name >= strsec->size ||
		    out->strings[sym.name] == '\0')
			continue;
		struct elf_function *f = &out->syms[out->n++];
		f->addr = sym.value;
		f->size = sym.size;
		f->name = out->strings + sym.name;
		f->rank = symbol_rank(sym.bind, f->name);
	}
	free(raw);
	if (out->n)
		qsort(out->syms, out->n, sizeof *out->syms, compare_functions);
	return 0;
}

int elfinfo_functions(const char *path, struct elf_functions *out)
{
	const struct ctrace_elf_section *symtab = NULL, *dynsym = NULL;
	struct elf_file ef;
	int err;

	memset(out, 0, sizeof *out);
	err = elf_open(path, &ef);
	if (err < 0)
		return err;
	for (size_t i = 0; i < ef.n_sections; i++) {
		if (ef.sections[i].type == SHT_SYMTAB && ef.sections[i].size)
			symtab = &ef.sections[i];
		else if (ef.sections[i].type == SHT_DYNSYM &&
			 ef.sections[i].size)
			dynsym = &ef.sections[i];
	}
	if (symtab != NULL) {
		err = read_table(&ef, symtab, out);
	} else if (dynsym != NULL) {
		out->from_dynsym = true;
		err = read_table(&ef, dynsym, out);
	} else {
		err = -ENOENT;
	}
	elf_close(&ef);
	if (err < 0 && err != -ENOENT) {
		elfinfo_functions_free(out);
		memset(out, 0, sizeof *out);
	}
	return err;
}

int elfinfo_add_functions(struct elf_functions *f,
			  const struct elf_function *add, size_t n)
{
	size_t bytes = 0;
	for (size_t i = 0; i < n; i++)
		bytes += strlen(add[i].name) + 1;
	if (n == 0 || f->extra_strings != NULL)
		return 0;
	struct elf_function *syms = realloc(f->syms, (f->n + n) * sizeof *syms);
	if (syms == NULL)
		return -ENOMEM;
	f->syms = syms;
	char *strings = malloc(bytes);
	if (strings == NULL)
		return -ENOMEM;
	f->extra_strings = strings;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(add[i].name) + 1;
		memcpy(strings, add[i].name, len);
		syms[f->n] = add[i];
		syms[f->n].name = strings;
		syms[f->n].rank = 0;
		f->n++;
		strings += len;
	}
	if (f->n)
		qsort(f->syms, f->n, sizeof *f->syms, compare_functions);
	return 0;
}

uint64_t elfinfo_function_address(const char *path, const char *name)
{
	struct elf_functions f;
	uint64_t addr = 0;
	if (elfinfo_functions(path, &f) < 0)
		return 0;
	for (size_t i = 0; i < f.n && addr == 0; i++)
		if (f.syms[i].addr != 0 && !strcmp(f.syms[i].name, name))
			addr = f.syms[i].addr;
	elfinfo_functions_free(&f);
	return addr;
}

void elfinfo_functions_free(struct elf_functions *f)
{
	free(f->syms);
	free(f->strings);
	free(f->extra_strings);
	f->syms = NULL;
	f->strings = NULL;
	f->extra_strings = NULL;
	f->n = 0;
}

/* ---------------------------------------------------------------------------
 * Lookup
 * ------------------------------------------------------------------------ */

/* Index of the first symbol whose address is greater than addr. */
static size_t upper_bound(const struct elf_functions *f, uint64_t addr)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct elf_function *elfinfo_lookup(const struct elf_functions *f,
					  uint64_t addr, bool exact)
{
	size_t end = upper_bound(f, addr);
	const struct elf_function *best = NULL;
	uint64_t last, next;

	if (end == 0)
		return NULL;
	last = f->syms[end - 1].addr;
	if (exact) {
		size_t i = end - 1;
		if (last != addr)
			return NULL;
		while (i > 0 && f->syms[i - 1].addr == addr)
			i--;
		return &f->syms[i]; /* sorted best rank first */
	}
	/* A symbol without a size (hand-written assembly) reaches as far as
	 * the next symbol, so only the nearest ones can cover addr. */
	next = end < f->n ? f->syms[end].addr : UINT64_MAX;
	/* Sized functions rarely overlap, but a small one may sit inside a
	 * big one: look back a few symbols, stop at the first address with a
	 * covering symbol, and take its best-ranked one. */
	for (size_t i = end, seen = 0; i > 0 && seen < 8; i--, seen++) {
		const struct elf_function *s = &f->syms[i - 1];
		bool covers = s->size ? addr - s->addr < s->size
				      : s->addr == last && addr < next;
		if (best != NULL && s->addr != best->addr)
			break;
		if (covers && (best == NULL || s->rank >= best->rank))
			best = s;
	}
	return best;
}
