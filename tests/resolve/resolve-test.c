/* resolve-test.c -- checks the resolver against what a fixture expects.
 *
 * Reads the lines a fixture printed (fixture.h), declares the fixture's
 * module to a resolver and checks every function and call site: name,
 * module, offset and, unless the object has no debug info left, file and
 * line, inline frames included.  Prints one "ok"/"FAIL" line per check and
 * exits 1 if any failed.
 *
 * Usage: resolve-test [OPTIONS] EXPECTATIONS
 *   --name=CASE           test case name for the output lines
 *   --demangle=name|full|none
 *   --debug-dir=DIR       a resolver debug dir (repeatable)
 *   --search-dir=DIR      a resolver search dir (repeatable)
 *   --path=PATH           declare the module under PATH, not its own path
 *   --stripped            only exported functions keep names, no lines
 *   --missing             the module cannot be found: module+offset only
 *   --expect-warning=TEXT exactly one warning, containing TEXT (by default
 *                         no warning at all is allowed)
 *   --warnings-only       check the warnings, not the answers
 *   --time                also check the choice of module by time, with a
 *                         missing decoy module at the same addresses
 */
#include "resolve/resolve.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIRS 8
#define MAX_WARNINGS 16

struct config {
	const char *name;
	const char *path;
	bool stripped, missing, warnings_only, time;
	const char *expect_warning;
	struct resolve_options opts;
	const char *debug_dirs[MAX_DIRS];
	const char *search_dirs[MAX_DIRS];
};

struct expected_module {
	char path[4096];
	uint64_t bias, start, end;
	uint8_t build_id[64];
	size_t build_id_len;
};

static struct config cfg;
static struct expected_module mod;
static unsigned n_checks, n_failed;
static char *warnings[MAX_WARNINGS];
static unsigned n_warnings;

/* ---------------------------------------------------------------------------
 * Reporting
 * ------------------------------------------------------------------------ */

static void check(bool ok, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void check(bool ok, const char *what, const char *fmt, ...)
{
	va_list ap;

	n_checks++;
	if (!ok)
		n_failed++;
	printf("%s - %s: %s", ok ? "ok" : "FAIL", cfg.name, what);
	if (!ok && fmt != NULL) {
		printf(": ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	printf("\n");
}

static void on_warning(void *data, const char *msg, int errnum)
{
	(void)data;
	printf("# %s: warning: %s (errno %d)\n", cfg.name, msg, errnum);
	if (n_warnings < MAX_WARNINGS)
		warnings[n_warnings] = strdup(msg);
	n_warnings++;
}

/* ---------------------------------------------------------------------------
 * Expected values
 * ------------------------------------------------------------------------ */

static const char *base_name(const char *path)
{
	const char *slash;

	if (path == NULL)
		return "";
	slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static bool same_base(const char *a, const char *b)
{
	return a != NULL && b != NULL &&
	       strcmp(base_name(a), base_name(b)) == 0;
}

/* "f*" matches f and f.SUFFIX (a clone gcc may or may not make). */
static bool name_matches(const char *pattern, const char *name)
{
	size_t n = strlen(pattern);

	if (name == NULL)
		return false;
	if (n > 0 && pattern[n - 1] == '*')
		return strncmp(pattern, name, n - 1) == 0 &&
		       (name[n - 1] == '\0' || name[n - 1] == '.');
	return strcmp(pattern, name) == 0;
}

/* What the resolver should call a function: its name in the chosen
 * demangling, or module+offset when the object lost it. */
static bool expected_name_ok(const char *name, const char *full, int exported,
			     uint64_t offset, const char *got, char *want,
			     size_t size)
{
	if (cfg.missing || (cfg.stripped && !exported)) {
		snprintf(want, size, "%s+0x%" PRIx64, base_name(cfg.path),
			 offset);
		return strcmp(want, got) == 0;
	}
	switch (cfg.opts.demangle) {
	case RESOLVE_DEMANGLE_FULL:
		snprintf(want, size, "%s", full);
		return name_matches(full, got);
	case RESOLVE_DEMANGLE_NONE:
		/* C names are the same in every mode; C++ names stay
		 * mangled. */
		if (strcmp(name, full) == 0) {
			snprintf(want, size, "%s", name);
			return name_matches(name, got);
		}
		snprintf(want, size, "_Z...");
		return strncmp(got, "_Z", 2) == 0;
	default:
		snprintf(want, size, "%s", name);
		return name_matches(name, got);
	}
}

static bool has_lines(void)
{
	return !cfg.stripped && !cfg.missing;
}

/* ---------------------------------------------------------------------------
 * Checks
 * ------------------------------------------------------------------------ */

static void check_common(const char *what, const struct resolve_info *info,
			 uint64_t addr)
{
	char buf[512];

	snprintf(buf, sizeof buf, "%s module", what);
	check(info->module != NULL && strcmp(info->module, cfg.path) == 0, buf,
	      "got %s", info->module ? info->module : "(null)");
	snprintf(buf, sizeof buf, "%s offset", what);
	check(info->module_offset == addr - mod.bias, buf,
	      "got 0x%" PRIx64 ", want 0x%" PRIx64, info->module_offset,
	      addr - mod.bias);
}

static void check_func(struct resolver *r, char **f)
{
	uint64_t addr = strtoull(f[1], NULL, 16);
	int exported = atoi(f[4]), first = atoi(f[6]), last = atoi(f[7]);
	const struct resolve_info *info = resolve_function(r, addr, 1);
	const struct resolve_frame *outer = &info->src;
	char what[512], want[512];

	if (cfg.warnings_only)
		return;
	snprintf(what, sizeof what, "func %s", f[2]);
	check(expected_name_ok(f[2], f[3], exported, addr - mod.bias,
			       info->name, want, sizeof want),
	      what, "got \"%s\", want \"%s\"", info->name, want);
	check_common(what, info, addr);
	while (outer->next != NULL)
		outer = outer->next;
	snprintf(what, sizeof what, "func %s line", f[2]);
	if (has_lines())
		check(same_base(outer->file, f[5]) &&
			  outer->line >= (unsigned)first &&
			  outer->line <= (unsigned)last,
		      what, "got %s:%u, want %s:%d-%d",
		      outer->file ? outer->file : "(null)", outer->line,
		      base_name(f[5]), first, last);
	else
		check(info->src.file == NULL && info->src.line == 0, what,
		      "got %s:%u, want none", info->src.file, info->src.line);
	snprintf(what, sizeof what, "func %s cached", f[2]);
	check(resolve_function(r, addr, 2) == info, what, "new answer");
	/* the name alone is resolve_function's, the same interned string */
	snprintf(what, sizeof what, "func %s name only", f[2]);
	check(resolve_function_name(r, addr, 1) == info->name, what,
	      "got \"%s\"", resolve_function_name(r, addr, 1));
}

static void check_site(struct resolver *r, char **f)
{
	uint64_t ret = strtoull(f[1], NULL, 16);
	int exported = atoi(f[4]), line = atoi(f[6]);
	const char *inner = f[7], *outer = f[8];
	int outer_line = atoi(f[9]);
	const struct resolve_info *info = resolve_call_site(r, ret, 1);
	const struct resolve_frame *fr = &info->src;
	char what[512], want[512];

	if (cfg.warnings_only)
		return;
	snprintf(what, sizeof what, "site %s:%d in %s", base_name(f[5]), line,
		 f[2]);
	check(expected_name_ok(f[2], f[3], exported, ret - mod.bias, info->name,
			       want, sizeof want),
	      what, "got \"%s\", want \"%s\"", info->name, want);
	check_common(what, info, ret);
	snprintf(what, sizeof what, "site %s:%d line", base_name(f[5]), line);
	if (!has_lines()) {
		check(fr->file == NULL && fr->line == 0, what,
		      "got %s:%u, want none", fr->file, fr->line);
		return;
	}
	check(same_base(fr->file, f[5]) && fr->line == (unsigned)line, what,
	      "got %s:%u", fr->file ? fr->file : "(null)", fr->line);
	if (cfg.opts.demangle == RESOLVE_DEMANGLE_NAME) {
		snprintf(what, sizeof what, "site %s:%d function",
			 base_name(f[5]), line);
		check(name_matches(inner, fr->function), what,
		      "got %s, want %s", fr->function ? fr->function : "(null)",
		      inner);
	}
	snprintf(what, sizeof what, "site %s:%d inline frames", base_name(f[5]),
		 line);
	if (strcmp(outer, "-") == 0) {
		check(fr->next == NULL, what, "unexpected outer frame %s:%u",
		      fr->next ? fr->next->function : "",
		      fr->next ? fr->next->line : 0);
	} else {
		const struct resolve_frame *o = fr->next;
		bool named = cfg.opts.demangle != RESOLVE_DEMANGLE_NAME ||
			     name_matches(outer, o ? o->function : NULL);
		check(o != NULL && named && same_base(o->file, f[5]) &&
			  o->line == (unsigned)outer_line,
		      what, "got %s %s:%u, want %s line %d",
		      o ? o->function : "(no frame)", o ? o->file : "",
		      o ? o->line : 0, outer, outer_line);
	}
	snprintf(what, sizeof what, "site %s:%d cached", base_name(f[5]), line);
	check(resolve_call_site(r, ret, 3) == info, what, "new answer");
}

/* Loads at the same addresses: the fixture at 100, a decoy (missing)
 * loaded at 200 and unloaded at 300.  The newest module loaded at or
 * before an event wins; one still loaded beats one unloaded; before any
 * load, any covering module will do. */
static void check_time(struct resolver *r, uint64_t addr, const char *name)
{
	const struct resolve_info *a, *b, *c, *d;

	if (resolve_add_module(r, "/nonexistent/decoy.so", mod.bias, mod.start,
			       mod.end, NULL, 0, 200) != 0)
		exit(99);
	resolve_remove_module(r, mod.start, 300);
	a = resolve_function(r, addr, 150);
	b = resolve_function(r, addr, 250);
	c = resolve_function(r, addr, 350);
	d = resolve_function(r, addr, 50);
	check(strcmp(a->name, name) == 0, "time: before the decoy", "got %s",
	      a->name);
	check(strncmp(b->name, "decoy.so+0x", 11) == 0 &&
		  strcmp(b->module, "/nonexistent/decoy.so") == 0,
	      "time: while the decoy is loaded", "got %s", b->name);
	check(c == a, "time: after the decoy is unloaded", "got %s", c->name);
	check(d == a, "time: before any load", "got %s", d->name);
	check(resolve_function(r, addr, 250) == b, "time: cached decoy answer",
	      NULL);
}

/* ---------------------------------------------------------------------------
 * Main
 * ------------------------------------------------------------------------ */

static int split(char *line, char **fields, int max)
{
	int n = 0;

	line[strcspn(line, "\n")] = '\0';
	while (n < max) {
		fields[n++] = line;
		line = strchr(line, '\t');
		if (line == NULL)
			break;
		*line++ = '\0';
	}
	return n;
}

static void parse_module(char **f)
{
	snprintf(mod.path, sizeof mod.path, "%s", f[1]);
	mod.bias = strtoull(f[2], NULL, 16);
	mod.start = strtoull(f[3], NULL, 16);
	mod.end = strtoull(f[4], NULL, 16);
	for (const char *p = f[5]; p[0] && p[1] && mod.build_id_len < 64;
	     p += 2) {
		unsigned v;
		if (sscanf(p, "%2x", &v) != 1)
			break;
		mod.build_id[mod.build_id_len++] = (uint8_t)v;
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: resolve-test [--name=CASE] [--demangle=MODE] "
			"[--debug-dir=DIR] [--search-dir=DIR] [--path=PATH] "
			"[--stripped] [--missing] [--expect-warning=TEXT] "
			"[--warnings-only] [--time] EXPECTATIONS\n");
	exit(2);
}

static enum resolve_demangle demangle_mode(const char *v)
{
	if (!strcmp(v, "full"))
		return RESOLVE_DEMANGLE_FULL;
	if (!strcmp(v, "none"))
		return RESOLVE_DEMANGLE_NONE;
	return RESOLVE_DEMANGLE_NAME;
}

static const char *option(const char *arg, const char *name)
{
	size_t n = strlen(name);
	return strncmp(arg, name, n) == 0 && arg[n] == '=' ? arg + n + 1 : NULL;
}

int main(int argc, char **argv)
{
	char line[8192], *f[16];
	const char *v, *file = NULL;
	char *first_func = NULL;
	struct resolver *r;
	FILE *in;
	int i;

	cfg.name = "resolve";
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if ((v = option(a, "--name")))
			cfg.name = v;
		else if ((v = option(a, "--path")))
			cfg.path = v;
		else if ((v = option(a, "--debug-dir")) &&
			 cfg.opts.n_debug_dirs < MAX_DIRS)
			cfg.debug_dirs[cfg.opts.n_debug_dirs++] = v;
		else if ((v = option(a, "--search-dir")) &&
			 cfg.opts.n_search_dirs < MAX_DIRS)
			cfg.search_dirs[cfg.opts.n_search_dirs++] = v;
		else if ((v = option(a, "--expect-warning")))
			cfg.expect_warning = v;
		else if ((v = option(a, "--demangle")))
			cfg.opts.demangle = demangle_mode(v);
		else if (!strcmp(a, "--stripped"))
			cfg.stripped = true;
		else if (!strcmp(a, "--missing"))
			cfg.missing = true;
		else if (!strcmp(a, "--warnings-only"))
			cfg.warnings_only = true;
		else if (!strcmp(a, "--time"))
			cfg.time = true;
		else if (a[0] == '-' || file != NULL)
			usage();
		else
			file = a;
	}
	if (file == NULL)
		usage();
	cfg.opts.debug_dirs = cfg.debug_dirs;
	cfg.opts.search_dirs = cfg.search_dirs;

	in = fopen(file, "r");
	if (in == NULL) {
		perror(file);
		return 99;
	}
	r = resolve_new(&cfg.opts, on_warning, NULL);
	if (r == NULL)
		return 99;
	while (fgets(line, sizeof line, in) != NULL) {
		int n = split(line, f, 16);
		if (!strcmp(f[0], "module") && n >= 6) {
			parse_module(f);
			if (cfg.path == NULL)
				cfg.path = mod.path;
			if (resolve_add_module(
				r, cfg.path, mod.bias, mod.start, mod.end,
				mod.build_id, mod.build_id_len, 100) != 0)
				return 99;
		} else if (!strcmp(f[0], "func") && n >= 8) {
			check_func(r, f);
			if (first_func == NULL)
				first_func = strdup(line + 5);
		} else if (!strcmp(f[0], "site") && n >= 10) {
			check_site(r, f);
		} else if (line[0] != '\0') {
			fprintf(stderr, "%s: bad line: %s\n", file, f[0]);
			return 99;
		}
	}
	fclose(in);
	if (cfg.path == NULL || first_func == NULL) {
		fprintf(stderr, "%s: no module or no function\n", file);
		return 99;
	}
	if (cfg.time && !cfg.warnings_only) {
		/* first_func is "ADDR\tNAME...": strtoull stops at the tab */
		uint64_t addr = strtoull(first_func, NULL, 16);
		check_time(r, addr, resolve_function(r, addr, 100)->name);
	}
	free(first_func);
	resolve_free(r);

	if (cfg.time)
		cfg.expect_warning = "decoy.so: not found";
	if (cfg.expect_warning != NULL)
		check(n_warnings == 1 &&
			  strstr(warnings[0], cfg.expect_warning),
		      "warnings", "got %u, want one with \"%s\"", n_warnings,
		      cfg.expect_warning);
	else
		check(n_warnings == 0, "warnings", "got %u, want none",
		      n_warnings);
	for (unsigned w = 0; w < n_warnings && w < MAX_WARNINGS; w++)
		free(warnings[w]);
	printf("# %s: %u checks, %u failed\n", cfg.name, n_checks, n_failed);
	return n_failed ? 1 : 0;
}
