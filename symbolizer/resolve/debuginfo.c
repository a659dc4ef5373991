/* debuginfo.c -- the resolver's use of libbfd: DWARF and where it lives.
 *
 * A module's DWARF is in the module itself, or in a separate debug file
 * (`objcopy --only-keep-debug`) found the way gdb finds one:
 *
 *   by build-id   DIR/.build-id/xx/rest.debug, for each debug directory
 *   by debuglink  the .gnu_debuglink name (checked by CRC) in DIR, in
 *                 DIR/<the module's directory>, next to the module and in
 *                 its .debug/ subdirectory
 *
 * The debug directories are the resolver's debug_dirs, then its
 * search_dirs, then /usr/lib/debug unless debug_dirs were given: they
 * take its place, as gdb's debug-file-directory does (a test hides the
 * system's debug files so).  libbfd's DWARF reader would find
 * /usr/lib/debug on its own, but not the other directories, and the
 * resolver wants to know which file it reads; so the separate file is
 * opened here and queried directly.
 *
 * libbfd reports problems through one process-wide handler; it is pointed
 * at the resolver making the call, and nothing reaches stderr.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "resolve/resolve_internal.h"
#include "resolve/debugfile.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SYSTEM_DEBUG_DIR "/usr/lib/debug"

/* ---------------------------------------------------------------------------
 * libbfd's messages
 * ------------------------------------------------------------------------ */

static unsigned n_users;           /* resolvers alive */
static struct resolver *bfd_owner; /* the resolver calling libbfd now */
static bfd_error_handler_type saved_handler;

/* How big the argument of a conversion is. */
enum arg_size { ARG_PLAIN, ARG_LONG, ARG_LONG_LONG, ARG_SIZE, ARG_LONG_DOUBLE };

/* Formats one standard conversion: `spec` is the whole of it, from '%' to
 * the conversion character, with the length modifier written for `size`.
 * Returns snprintf's result, or -1 for a conversion it does not know. */
static int format_arg(char *out, size_t room, const char *spec, char conv,
		      enum arg_size size, va_list *ap)
{
	bool is_long = size == ARG_LONG || size == ARG_SIZE;

	switch (conv) {
	case 'd':
	case 'i':
		if (size == ARG_LONG_LONG)
			return snprintf(out, room, spec,
					va_arg(*ap, long long));
		if (is_long)
			return snprintf(out, room, spec, va_arg(*ap, long));
		return snprintf(out, room, spec, va_arg(*ap, int));
	case 'o':
	case 'u':
	case 'x':
	case 'X':
		if (size == ARG_LONG_LONG)
			return snprintf(out, room, spec,
					va_arg(*ap, unsigned long long));
		if (is_long)
			return snprintf(out, room, spec,
					va_arg(*ap, unsigned long));
		return snprintf(out, room, spec, va_arg(*ap, unsigned));
	case 'c':
		return snprintf(out, room, spec, va_arg(*ap, int));
	case 's':
		return snprintf(out, room, spec, va_arg(*ap, const char *));
	case 'p':
		return snprintf(out, room, spec, va_arg(*ap, void *));
	case 'e':
	case 'E':
	case 'f':
	case 'g':
	case 'G':
		if (size == ARG_LONG_DOUBLE)
			return snprintf(out, room, spec,
					va_arg(*ap, long double));
		return snprintf(out, room, spec, va_arg(*ap, double));
	default:
		return -1;
	}
}

/* libbfd's format strings use %pA (a section) and %pB (a bfd) besides the
 * standard conversions; this formats them all, one conversion at a time.
 * A positional argument (%1$s) or an unknown conversion stops it: the
 * rest of the format is then shown as it is. */
static void format_bfd_message(char *buf, size_t size, const char *fmt,
			       va_list ap)
{
	static const char *const modifiers[] = {"", "l", "ll", "z", "L"};
	const char *p = fmt;
	size_t len = 0;
	va_list args;

	va_copy(args, ap);
	buf[0] = '\0';
	while (*p != '\0' && len + 1 < size) {
		enum arg_size arg_size = ARG_PLAIN;
		const char *start = p;
		char spec[48], conv;
		size_t k = 0;
		int n;

		if (*p != '%' || p[1] == '%') {
			buf[len++] = *p;
			buf[len] = '\0';
			p += *p == '%' ? 2 : 1;
			continue;
		}
		spec[k++] = *p++;
		for (; *p != '\0' && k < 32 && strchr("-+ #0123456789.*$", *p);
		     p++) {
			if (*p == '$')
				break;
			if (*p == '*')
				k += (size_t)snprintf(spec + k, sizeof spec - k,
						      "%d", va_arg(args, int));
			else
				spec[k++] = *p;
		}
		for (; *p != '\0' && strchr("hlLqjzt", *p); p++) {
			if (*p == 'l' || *p == 'q' || *p == 'j')
				arg_size = arg_size == ARG_LONG ? ARG_LONG_LONG
								: ARG_LONG;
			else if (*p == 'z' || *p == 't')
				arg_size = ARG_SIZE;
			else if (*p == 'L')
				arg_size = ARG_LONG_DOUBLE;
		}
		conv = *p != '\0' ? *p++ : '\0';
		if (conv == 'p' && (*p == 'A' || *p == 'B')) {
			const char *name = "(null)";
			if (*p++ == 'A') {
				asection *sec = va_arg(args, asection *);
				if (sec != NULL)
					name = bfd_section_name(sec);
			} else {
				bfd *abfd = va_arg(args, bfd *);
				if (abfd != NULL)
					name = bfd_get_filename(abfd);
			}
			n = snprintf(buf + len, size - len, "%s", name);
		} else {
			snprintf(spec + k, sizeof spec - k, "%s%c",
				 strchr("csp", conv) ? "" : modifiers[arg_size],
				 conv);
			n = format_arg(buf + len, size - len, spec, conv,
				       arg_size, &args);
		}
		if (n < 0) {
			snprintf(buf + len, size - len, "%s", start);
			break;
		}
		len += (size_t)n < size - len ? (size_t)n : size - len - 1;
	}
	va_end(args);
}

static void on_bfd_message(const char *fmt, va_list ap)
{
	char msg[512];

	if (bfd_owner == NULL)
		return;
	format_bfd_message(msg, sizeof msg, fmt, ap);
	resolve_report_bfd(bfd_owner, msg);
}

int debuginfo_init(struct resolver *r)
{
	static bool initialized;

	(void)r;
	if (!initialized) {
		if (bfd_init() != BFD_INIT_MAGIC)
			return -ENOSYS; /* bfd.h and libbfd disagree */
		initialized = true;
	}
	if (n_users++ == 0)
		saved_handler = bfd_set_error_handler(on_bfd_message);
	return 0;
}

void debuginfo_exit(struct resolver *r)
{
	if (bfd_owner == r)
		bfd_owner = NULL;
	if (--n_users == 0)
		bfd_set_error_handler(saved_handler);
}

/* ---------------------------------------------------------------------------
 * Opening files
 * ------------------------------------------------------------------------ */

char *debuginfo_path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	char *path = malloc(n + strlen(name) + 2);

	if (path == NULL)
		return NULL;
	memcpy(path, dir, n);
	if (n > 0 && dir[n - 1] != '/')
		path[n++] = '/';
	strcpy(path + n, name);
	return path;
}

/* libbfd follows a .gnu_debugaltlink (dwz's shared debug information)
 * on its own, with a plain fopen that waits forever on a FIFO: when the
 * file it would open is not a regular one, the link is hidden from it,
 * and the names and types kept in that file are not read. */
static void guard_altlink(struct resolver *r, bfd *abfd, const char *path)
{
	bfd_size_type id_len = 0;
	bfd_byte *id = NULL;
	char *name = bfd_get_alt_debug_link_info(abfd, &id_len, &id), *bad;

	if (name == NULL)
		return;
	if (elfinfo_altlink_check(path, name, id, (size_t)id_len, &bad) < 0) {
		asection *sec = bfd_get_section_by_name(abfd,
							 ".gnu_debugaltlink");
		if (sec != NULL)
			bfd_rename_section(sec, ".gnu_debugaltlink.ignored");
		resolve_report(r, 0,
			       "%s: its .gnu_debugaltlink file %s is not a "
			       "regular file; ignored",
			       path, bad != NULL ? bad : name);
		free(bad);
	}
	free(name);
	free(id);
}

/* abfd (NULL: not opened), checked: an object file, its compressed
 * sections read as if they were not. */
static bfd *checked_object(struct resolver *r, bfd *abfd, const char *path)
{
	if (abfd == NULL) {
		resolve_report(r, 0, "%s: %s; no source lines", path,
			       bfd_errmsg(bfd_get_error()));
		return NULL;
	}
	/* Read compressed debug sections (-gz, SHF_COMPRESSED, or the older
	 * .zdebug_*) as if they were not. */
	abfd->flags |= BFD_DECOMPRESS;
	if (!bfd_check_format(abfd, bfd_object)) {
		resolve_report(r, 0, "%s: %s; no source lines", path,
			       bfd_errmsg(bfd_get_error()));
		bfd_close(abfd);
		return NULL;
	}
	guard_altlink(r, abfd, path);
	return abfd;
}

static bfd *open_object(struct resolver *r, const char *path)
{
	int fd = elfinfo_open_regular(path);

	if (fd < 0) {
		resolve_report(r, 0, "%s: %s; no source lines", path,
			       fd == -EINVAL    ? "not a regular file"
			       : fd == -ENOEXEC ? "empty file"
						: strerror(-fd));
		return NULL;
	}
	/* libbfd owns fd from here, closed or not */
	return checked_object(r, bfd_fdopenr(path, NULL, fd), path);
}

/* A separate debug file whose sections are compressed is read through
 * the view debugfile.c makes of it, its sections inflated once for
 * libbfd and libdw.  libbfd holds a reference to it from its open to its
 * close. */
static void *view_open(struct bfd *abfd, void *f)
{
	(void)abfd;
	return debugfile_ref(f);
}

static file_ptr view_pread(struct bfd *abfd, void *f, void *buf,
			   file_ptr n, file_ptr off)
{
	(void)abfd;
	if (n < 0 || off < 0)
		return -1;
	return debugfile_pread(f, buf, (size_t)n, (uint64_t)off);
}

static int view_close(struct bfd *abfd, void *f)
{
	(void)abfd;
	debugfile_close(f);
	return 0;
}

static int view_stat(struct bfd *abfd, void *f, struct stat *sb)
{
	(void)abfd;
	memset(sb, 0, sizeof *sb);
	sb->st_mode = S_IFREG | 0444;
	sb->st_size = (off_t)debugfile_size(f);
	return 0;
}

static bfd *open_debug_object(struct resolver *r, const char *path)
{
	struct debug_file *f = debugfile_open(path);
	bfd *abfd;

	if (f == NULL)
		return open_object(r, path);
	abfd = bfd_openr_iovec(path, NULL, view_open, f, view_pread,
			       view_close, view_stat);
	debugfile_close(f); /* libbfd's reference, if it opened it, stays */
	return checked_object(r, abfd, path);
}

static bool has_dwarf(bfd *abfd)
{
	static const char *const names[] = {".debug_info", ".zdebug_info"};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		asection *sec = bfd_get_section_by_name(abfd, names[i]);
		if (sec != NULL && bfd_section_size(sec) > 0 &&
		    (bfd_section_flags(sec) & SEC_HAS_CONTENTS))
			return true;
	}
	return false;
}

/* The symbols of abfd for bfd_find_nearest_line, which finds nothing at
 * all without a symbol array -- so an empty one when there are none. */
static asymbol **read_symbols(bfd *abfd)
{
	asymbol **syms = NULL;
	long size = 0;

	if (bfd_get_file_flags(abfd) & HAS_SYMS)
		size = bfd_get_symtab_upper_bound(abfd);
	if (size > 0) {
		syms = malloc((size_t)size);
		if (syms != NULL && bfd_canonicalize_symtab(abfd, syms) < 0) {
			free(syms);
			syms = NULL;
		}
	}
	if (syms == NULL)
		syms = calloc(1, sizeof *syms);
	return syms;
}

/* ---------------------------------------------------------------------------
 * Separate debug files
 * ------------------------------------------------------------------------ */

/* Whether the regular file at path has the CRC the .gnu_debuglink asks
 * for.  What is read is bounded by the size the file had when opened: a
 * device, a FIFO or a file of /proc (size 0) is never read. */
static bool crc_matches(const char *path, unsigned long want)
{
	unsigned char buf[65536];
	unsigned long crc = 0;
	struct stat st;
	uint64_t left;
	ssize_t n = 0;
	int fd = elfinfo_open_regular(path);

	if (fd < 0)
		return false;
	if (fstat(fd, &st) < 0 || st.st_size <= 0) {
		close(fd);
		return false;
	}
	for (left = (uint64_t)st.st_size; left > 0; left -= (uint64_t)n) {
		n = read(fd, buf, left < sizeof buf ? left : sizeof buf);
		if (n <= 0)
			break;
		crc = bfd_calc_gnu_debuglink_crc32(crc, buf, (bfd_size_type)n);
	}
	close(fd);
	return left == 0 && crc == want;
}

/* Whether the regular file at path has the build-id id. */
static bool build_id_matches(const char *path, const uint8_t *id, int len)
{
	uint8_t other[ELFINFO_BUILD_ID_MAX];

	return elfinfo_build_id(path, other) == len &&
	       memcmp(other, id, (size_t)len) == 0;
}

/* DIR/.build-id/xx/rest.debug for the module's build-id. */
static char *by_build_id(const char *dir, const uint8_t *id, int len)
{
	static const char hex[] = "0123456789abcdef";
	char name[2 * ELFINFO_BUILD_ID_MAX + 32], *p = name, *path;

	if (len < 2)
		return NULL;
	p += sprintf(p, ".build-id/%c%c/", hex[id[0] >> 4], hex[id[0] & 15]);
	for (int i = 1; i < len; i++) {
		*p++ = hex[id[i] >> 4];
		*p++ = hex[id[i] & 15];
	}
	strcpy(p, ".debug");
	path = debuginfo_path_join(dir, name);
	if (path != NULL && !build_id_matches(path, id, len)) {
		free(path);
		path = NULL;
	}
	return path;
}

/* The file the .gnu_debuglink `name` names, looked for where gdb looks:
 * next to the module, in its .debug/ subdirectory, in DIR/<the module's
 * directory>/ and in DIR itself (a flat directory of debug files).  Each
 * candidate must be a regular file with the CRC the link records; libbfd's
 * own search is not used, as it reads whatever the name leads to (a FIFO,
 * /dev/zero) to its end. */
static char *by_debuglink(const char *module, const char *dir,
			  const char *name, unsigned long crc)
{
	const char *slash = strrchr(module, '/');
	size_t mod_dir_len = slash != NULL ? (size_t)(slash - module) + 1 : 0;
	size_t size = strlen(dir) + 2 * mod_dir_len + strlen(name) + 16;
	char *path = malloc(size);

	if (path == NULL)
		return NULL;
	for (int i = 0; i < 4; i++) {
		if (i == 0)
			snprintf(path, size, "%.*s%s", (int)mod_dir_len,
				 module, name);
		else if (i == 1)
			snprintf(path, size, "%.*s.debug/%s", (int)mod_dir_len,
				 module, name);
		else if (i == 2 && module[0] == '/')
			snprintf(path, size, "%s%.*s%s", dir, (int)mod_dir_len,
				 module, name);
		else if (i == 3)
			snprintf(path, size, "%s/%s", dir, name);
		else
			continue;
		if (dir[0] == '\0' && i >= 2)
			continue;
		if (crc_matches(path, crc))
			return path;
	}
	free(path);
	return NULL;
}

static char *find_in_dir(struct module *m, const char *dir,
			 const uint8_t *id, int id_len, const char *link,
			 unsigned long crc)
{
	char *path = id_len > 0 ? by_build_id(dir, id, id_len) : NULL;

	if (path == NULL && link != NULL)
		path = by_debuglink(m->file, dir, link, crc);
	return path;
}

static char *find_debug_file(struct resolver *r, struct module *m)
{
	uint8_t id[ELFINFO_BUILD_ID_MAX];
	int id_len = elfinfo_build_id(m->file, id);
	unsigned long crc = 0;
	char *link = bfd_get_debug_link_info(m->abfd, &crc);
	const char *const *dirs;
	size_t n;
	char *path = NULL;

	/* a name with a NUL or no name at all names nothing */
	if (link != NULL && link[0] == '\0') {
		free(link);
		link = NULL;
	}
	if (id_len <= 0 && link == NULL)
		return NULL;
	size_t n_debug;
	dirs = resolve_debug_dirs(r, &n_debug);
	for (size_t i = 0; path == NULL && i < n_debug; i++)
		path = find_in_dir(m, dirs[i], id, id_len, link, crc);
	dirs = resolve_search_dirs(r, &n);
	for (size_t i = 0; path == NULL && i < n; i++)
		path = find_in_dir(m, dirs[i], id, id_len, link, crc);
	if (path == NULL && n_debug == 0)
		path = find_in_dir(m, SYSTEM_DEBUG_DIR, id, id_len, link, crc);
	free(link);
	return path;
}

void debuginfo_open(struct resolver *r, struct module *m)
{
	struct resolver *caller = bfd_owner;

	bfd_owner = r;
	m->abfd = open_object(r, m->file);
	if (m->abfd == NULL)
		goto out;
	if (has_dwarf(m->abfd)) {
		m->dwarf = m->abfd;
	} else {
		m->debug_file = find_debug_file(r, m);
		if (m->debug_file != NULL)
			m->dwarf = open_debug_object(r, m->debug_file);
		if (m->dwarf != NULL && !has_dwarf(m->dwarf)) {
			bfd_close(m->dwarf);
			m->dwarf = NULL;
		}
		if (m->dwarf == NULL) {
			free(m->debug_file);
			m->debug_file = NULL;
		}
	}
	if (m->dwarf != NULL)
		m->dwarf_syms = read_symbols(m->dwarf);
out:
	bfd_owner = caller;
}

void debuginfo_add_plt(struct module *m)
{
	if (m->abfd == NULL)
		return;
	long dyn_size = bfd_get_dynamic_symtab_upper_bound(m->abfd);
	if (dyn_size <= 0)
		return;
	asymbol **dyn = malloc((size_t)dyn_size);
	asymbol *synth = NULL;
	struct elf_function *add = NULL;
	long n_dyn = dyn ? bfd_canonicalize_dynamic_symtab(m->abfd, dyn) : -1;
	long n_synth = n_dyn > 0 ? bfd_get_synthetic_symtab(m->abfd, 0, NULL,
							    n_dyn, dyn, &synth)
				 : -1;
	if (n_synth > 0)
		add = calloc((size_t)n_synth, sizeof *add);
	size_t n = 0;
	for (long i = 0; add != NULL && i < n_synth; i++) {
		const char *name = synth[i].name;
		const char *at = strstr(name, "@plt");
		if (at == NULL || at[4] != '\0' || at == name)
			continue;
		/* The name is the function the entry jumps to: keep it
		 * without its "@plt" (the copy below is cut there). */
		char *copy = strndup(name, (size_t)(at - name));
		if (copy == NULL)
			break;
		add[n].addr = bfd_asymbol_value(&synth[i]);
		add[n].size = 16; /* an x86 PLT entry */
		add[n].name = copy;
		n++;
	}
	elfinfo_add_functions(&m->funcs, add, n);
	for (size_t i = 0; i < n; i++)
		free((char *)add[i].name);
	free(add);
	free(synth);
	free(dyn);
}

void debuginfo_close(struct module *m)
{
	if (m->dwarf != NULL && m->dwarf != m->abfd)
		bfd_close(m->dwarf);
	if (m->abfd != NULL)
		bfd_close(m->abfd);
	free(m->dwarf_syms);
	free(m->debug_file);
	m->dwarf = m->abfd = NULL;
	m->dwarf_syms = NULL;
	m->debug_file = NULL;
}

/* ---------------------------------------------------------------------------
 * Lookups
 * ------------------------------------------------------------------------ */

/* The allocated section holding link-time address pc.  In a separate
 * debug file the code sections are NOBITS but keep their addresses. */
static asection *section_of(bfd *abfd, uint64_t pc)
{
	for (asection *sec = abfd->sections; sec != NULL; sec = sec->next) {
		flagword flags = bfd_section_flags(sec);
		if (!(flags & SEC_ALLOC) || (flags & SEC_THREAD_LOCAL))
			continue;
		if (pc >= bfd_section_vma(sec) &&
		    pc - bfd_section_vma(sec) < bfd_section_size(sec))
			return sec;
	}
	return NULL;
}

size_t debuginfo_lookup(struct resolver *r, struct module *m, uint64_t pc,
			struct debug_frame *out, size_t max)
{
	struct resolver *caller = bfd_owner;
	const char *file = NULL, *function = NULL;
	unsigned line = 0, discriminator = 0;
	asection *sec;
	size_t n = 0;

	if (m->dwarf == NULL || max == 0)
		return 0;
	sec = section_of(m->dwarf, pc);
	if (sec == NULL)
		return 0;
	bfd_owner = r;
	if (bfd_find_nearest_line_discriminator(
		    m->dwarf, sec, m->dwarf_syms, pc - bfd_section_vma(sec),
		    &file, &function, &line, &discriminator) &&
	    (file != NULL || function != NULL)) {
		out[n++] = (struct debug_frame){function, file, line};
		/* Each call steps one inline level outwards: the function the
		 * code was inlined into and the line of that call. */
		while (n < max && bfd_find_inliner_info(m->dwarf, &file,
							&function, &line))
			out[n++] = (struct debug_frame){function, file, line};
	}
	bfd_owner = caller;
	return n;
}
