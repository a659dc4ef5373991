/* debugfile.c -- a separate debug file opened once for libdw and libbfd
 * (debugfile.h).
 *
 * The view libbfd reads is the file with three changes: its ELF header
 * points to a copy of the section headers past the end of the file, in
 * which each compressed section lies, inflated, between the file's end
 * and that copy (at the alignment its compression header asks), its
 * SHF_COMPRESSED flag clear.  The layout comes from the compression
 * headers alone: nothing is inflated before a reader reads it.  libbfd
 * reads the first bytes of every debug section when it opens a file, to
 * know whether it is compressed: those come from a few bytes inflated by
 * zlib, the whole section only when a reader reads more of it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <elf.h>
#include <gelf.h>
#include <zlib.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resolve/debugfile.h"
#include "resolve/elfinfo.h"

/* The first bytes of a section inflated alone, enough for libbfd's
 * look at its header (24 bytes at most). */
enum { PREFIX_MAX = 64 };

/* A compressed section in the view: `size` inflated bytes at `at`. */
struct view_section {
	Elf_Scn *scn;
	uint64_t at, size;
	/* its zlib stream in the file (zlen 0: not zlib), and the first
	 * prefix_len bytes it inflates to (0: not inflated yet) */
	const unsigned char *z;
	size_t zlen, prefix_len;
	unsigned char prefix[PREFIX_MAX];
};

struct debug_file {
	struct debug_file *next;
	unsigned refs;
	/* which file: another at the same path is another debug_file */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	int fd;
	Elf *elf;
	const char *raw; /* the file, mapped by libelf */
	size_t raw_len;
	/* the view: ELF header and section headers patched, sections */
	unsigned char *ehdr, *shdrs;
	size_t ehdr_len, shdrs_len;
	uint64_t shdrs_at, len;
	struct view_section *sec;
	size_t n_sec;
};

static struct debug_file *open_files;

static bool same_file(const struct debug_file *f, const struct stat *st)
{
	return f->dev == st->st_dev && f->ino == st->st_ino &&
	       f->size == st->st_size &&
	       f->mtime.tv_sec == st->st_mtim.tv_sec &&
	       f->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* Section index i's header in the copy: placed at `at`, `size` bytes,
 * uncompressed, aligned to `align`. */
static void patch_shdr(struct debug_file *f, int cls, size_t i, uint64_t at,
		       uint64_t size, uint64_t align)
{
	if (cls == ELFCLASS64) {
		Elf64_Shdr sh;
		memcpy(&sh, f->shdrs + i * sizeof sh, sizeof sh);
		sh.sh_offset = at;
		sh.sh_size = size;
		sh.sh_flags &= ~(Elf64_Xword)SHF_COMPRESSED;
		sh.sh_addralign = align;
		memcpy(f->shdrs + i * sizeof sh, &sh, sizeof sh);
	} else {
		Elf32_Shdr sh;
		memcpy(&sh, f->shdrs + i * sizeof sh, sizeof sh);
		sh.sh_offset = (Elf32_Off)at;
		sh.sh_size = (Elf32_Word)size;
		sh.sh_flags &= ~(Elf32_Word)SHF_COMPRESSED;
		sh.sh_addralign = (Elf32_Word)align;
		memcpy(f->shdrs + i * sizeof sh, &sh, sizeof sh);
	}
}

/* The view of f->elf; -1 when the file has no compressed section (both
 * readers read it as it is) or is not one the view can describe. */
static int make_view(struct debug_file *f)
{
	static const unsigned char host_data =
		__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB
							  : ELFDATA2MSB;
	int cls = gelf_getclass(f->elf);
	const char *id = elf_getident(f->elf, NULL);
	bool is64 = cls == ELFCLASS64;
	size_t shsize = is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	uint64_t limit = is64 ? (uint64_t)1 << 40 : UINT32_MAX;
	size_t shnum;
	GElf_Ehdr eh;

	f->raw = elf_rawfile(f->elf, &f->raw_len);
	if (!f->raw || !id || (unsigned char)id[EI_DATA] != host_data ||
	    (cls != ELFCLASS64 && cls != ELFCLASS32) ||
	    !gelf_getehdr(f->elf, &eh) || elf_getshdrnum(f->elf, &shnum) < 0 ||
	    shnum == 0 || eh.e_shnum != shnum || eh.e_shentsize != shsize ||
	    eh.e_shoff > f->raw_len ||
	    shnum > (f->raw_len - eh.e_shoff) / shsize)
		return -1;
	f->ehdr_len = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	if (f->raw_len < f->ehdr_len)
		return -1;
	f->shdrs_len = shnum * shsize;
	f->shdrs = malloc(f->shdrs_len);
	f->ehdr = malloc(f->ehdr_len);
	if (!f->shdrs || !f->ehdr)
		return -1;
	memcpy(f->shdrs, f->raw + eh.e_shoff, f->shdrs_len);
	memcpy(f->ehdr, f->raw, f->ehdr_len);

	uint64_t at = align_up(f->raw_len, 16);
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(f->elf, scn));) {
		GElf_Shdr sh;
		GElf_Chdr ch;
		if (!gelf_getshdr(scn, &sh))
			return -1;
		if (!(sh.sh_flags & SHF_COMPRESSED) || sh.sh_type == SHT_NOBITS)
			continue;
		uint64_t align = 1;
		if (!gelf_getchdr(scn, &ch) || ch.ch_size > limit)
			return -1;
		if (ch.ch_addralign > 1 && ch.ch_addralign <= 4096 &&
		    !(ch.ch_addralign & (ch.ch_addralign - 1)))
			align = ch.ch_addralign;
		struct view_section *s = realloc(f->sec, (f->n_sec + 1) *
							 sizeof *f->sec);
		if (!s)
			return -1;
		f->sec = s;
		at = align_up(at, align);
		s = &f->sec[f->n_sec++];
		*s = (struct view_section){.scn = scn, .at = at,
					   .size = ch.ch_size};
		size_t chsz = is64 ? sizeof(Elf64_Chdr) : sizeof(Elf32_Chdr);
		if (ch.ch_type == ELFCOMPRESS_ZLIB && sh.sh_offset <= f->raw_len &&
		    sh.sh_size <= f->raw_len - sh.sh_offset && sh.sh_size > chsz) {
			s->z = (const unsigned char *)f->raw + sh.sh_offset +
			       chsz;
			s->zlen = sh.sh_size - chsz;
		}
		patch_shdr(f, cls, elf_ndxscn(scn), at, ch.ch_size,
			   ch.ch_addralign);
		at += ch.ch_size;
		if (at > limit)
			return -1;
	}
	if (f->n_sec == 0)
		return -1;
	f->shdrs_at = align_up(at, 8);
	f->len = f->shdrs_at + f->shdrs_len;
	if (f->len > limit)
		return -1;
	if (is64) {
		Elf64_Ehdr e;
		memcpy(&e, f->ehdr, sizeof e);
		e.e_shoff = f->shdrs_at;
		memcpy(f->ehdr, &e, sizeof e);
	} else {
		Elf32_Ehdr e;
		memcpy(&e, f->ehdr, sizeof e);
		e.e_shoff = (Elf32_Off)f->shdrs_at;
		memcpy(f->ehdr, &e, sizeof e);
	}
	return 0;
}

static void file_free(struct debug_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->ehdr);
	free(f->shdrs);
	free(f->sec);
	free(f);
}

struct debug_file *debugfile_open(const char *path)
{
	struct stat st;
	struct debug_file *f;
	int fd = elfinfo_open_regular(path);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return NULL;
	}
	for (f = open_files; f; f = f->next)
		if (same_file(f, &st)) {
			close(fd);
			return debugfile_ref(f);
		}
	f = calloc(1, sizeof *f);
	if (!f) {
		close(fd);
		return NULL;
	}
	f->fd = fd;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->size = st.st_size;
	f->mtime = st.st_mtim;
	elf_version(EV_CURRENT);
	f->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF || make_view(f) < 0) {
		file_free(f);
		return NULL;
	}
	f->refs = 1;
	f->next = open_files;
	open_files = f;
	return f;
}

void debugfile_close(struct debug_file *f)
{
	if (!f || --f->refs)
		return;
	for (struct debug_file **p = &open_files; *p; p = &(*p)->next)
		if (*p == f) {
			*p = f->next;
			break;
		}
	file_free(f);
}

struct debug_file *debugfile_ref(struct debug_file *f)
{
	f->refs++;
	return f;
}

Elf *debugfile_elf(const struct debug_file *f)
{
	return f->elf;
}

uint64_t debugfile_size(const struct debug_file *f)
{
	return f->len;
}

/* Section s's inflated bytes: inflated now unless a reader did before. */
static const char *inflated(struct view_section *s)
{
	GElf_Shdr sh;
	Elf_Data *d;

	if (!gelf_getshdr(s->scn, &sh))
		return NULL;
	if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(s->scn, 0, 0) < 0)
		return NULL;
	d = elf_getdata(s->scn, NULL);
	if (!d || d->d_size != s->size || (s->size && !d->d_buf))
		return NULL;
	return d->d_buf;
}

/* The first bytes of section s, inflated alone; NULL when they cannot be
 * (not zlib, damaged). */
static const unsigned char *prefix(struct view_section *s)
{
	z_stream zs = {0};
	size_t want = s->size < PREFIX_MAX ? (size_t)s->size : PREFIX_MAX;
	int rc;

	if (s->prefix_len)
		return s->prefix;
	if (!s->zlen || want == 0 || inflateInit(&zs) != Z_OK)
		return NULL;
	zs.next_in = (unsigned char *)s->z; /* zlib does not write it */
	zs.avail_in = s->zlen > UINT_MAX ? UINT_MAX : (unsigned)s->zlen;
	zs.next_out = s->prefix;
	zs.avail_out = (unsigned)want;
	do
		rc = inflate(&zs, Z_SYNC_FLUSH);
	while (rc == Z_OK && zs.avail_out > 0);
	inflateEnd(&zs);
	if (zs.avail_out > 0)
		return NULL;
	s->prefix_len = want;
	return s->prefix;
}

/* Section s's bytes [from, from + k): its prefix when they lie in it and
 * the section is not inflated yet, else the whole section inflated. */
static const char *section_bytes(struct view_section *s, uint64_t from,
				 size_t k)
{
	GElf_Shdr sh;
	const unsigned char *p;

	if (from + k <= PREFIX_MAX && gelf_getshdr(s->scn, &sh) &&
	    (sh.sh_flags & SHF_COMPRESSED) && (p = prefix(s)) &&
	    from + k <= s->prefix_len)
		return (const char *)p + from;
	p = (const unsigned char *)inflated(s);
	return p ? (const char *)p + from : NULL;
}

ssize_t debugfile_pread(struct debug_file *f, void *buf, size_t n,
			uint64_t off)
{
	unsigned char *out = buf;
	size_t done = 0;

	while (done < n && off < f->len) {
		const char *src = NULL; /* NULL: zeros */
		uint64_t end = f->len;

		if (off < f->ehdr_len) {
			src = (const char *)f->ehdr + off;
			end = f->ehdr_len;
		} else if (off < f->raw_len) {
			src = f->raw + off;
			end = f->raw_len;
		} else if (off >= f->shdrs_at) {
			src = (const char *)f->shdrs + (off - f->shdrs_at);
		} else {
			end = f->shdrs_at;
			for (size_t i = 0; i < f->n_sec; i++) {
				struct view_section *s = &f->sec[i];
				if (off >= s->at && off < s->at + s->size) {
					end = s->at + s->size;
					src = section_bytes(
						s, off - s->at,
						end - off < n - done
							? (size_t)(end - off)
							: n - done);
					if (!src)
						return -1;
					break;
				}
				if (s->at > off && s->at < end)
					end = s->at; /* padding before it */
			}
		}
		size_t k = end - off < n - done ? (size_t)(end - off)
						: n - done;
		if (src)
			memcpy(out + done, src, k);
		else
			memset(out + done, 0, k);
		done += k;
		off += k;
	}
	return (ssize_t)done;
}
