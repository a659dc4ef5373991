/* fuzz_elf.c -- libFuzzer target: the symbolizer on arbitrary binaries.
 *
 * The input is taken as the module a trace names: it goes through the
 * resolver (ELF symbols, libbfd's DWARF lines and inlining, the search
 * for a separate debug file), the DWARF lookups the value decoder makes
 * with libdw (the function at an entry, the scope at a call), and the
 * capture plan maker (--make-plan).  The seed corpus is real programs
 * built with -g (fuzz/make-corpus.sh); mutations flip their bytes.
 * Built and run by fuzz/run-fuzz.sh with -fsanitize=fuzzer,address,
 * undefined.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "values/dwinfo.h"
#include "replay/replay.h"
#include "resolve/resolve.h"
#include "symbolizer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void quiet(void *data, const char *msg, int errnum)
{
	(void)data;
	(void)msg;
	(void)errnum;
}

/* Addresses looked up: spread over the first 64 KiB (where small
 * programs keep their code), plus a few chosen by the input itself. */
static uint64_t address(const uint8_t *data, size_t size, unsigned i)
{
	if (i < 48)
		return 0x1000 + (uint64_t)i * 0x551;
	if (size >= 8) {
		uint64_t v;
		memcpy(&v, data + (i * 131u) % (size - 7), 8);
		return v & 0xfffff;
	}
	return i;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = memfd_create("module", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	for (size_t done = 0; done < size;) {
		ssize_t n = write(fd, data + done, size - done);
		if (n <= 0) {
			close(fd);
			return 0;
		}
		done += (size_t)n;
	}
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);

	/* the resolver: names and lines, inlined frames included */
	struct resolve_options ro = {.demangle = RESOLVE_DEMANGLE_NAME};
	struct resolver *r = resolve_new(&ro, quiet, NULL);
	if (r != NULL && resolve_add_module(r, path, 0, 0, UINT64_MAX / 2,
					    NULL, 0, 0) == 0) {
		for (unsigned i = 0; i < 64; i++) {
			uint64_t a = address(data, size, i);
			resolve_function(r, a, 1);
			resolve_call_site(r, a + 5, 1);
		}
	}
	resolve_free(r);

	/* what the value decoder asks libdw */
	struct dw_module *m = dw_module(path);
	for (unsigned i = 0; m != NULL && i < 64; i++) {
		Dwarf_Die scope, sub, fn;
		uint64_t a = address(data, size, i);
		uint8_t code[16];
		dw_function_at(m, a, &fn);
		dw_scope_at(m, a, &scope, &sub);
		dw_read_code(m, a, code, sizeof code);
	}
	dw_modules_free();

	/* the capture plan */
	char *argv[] = {"--make-plan", "-o", "/dev/null", path, NULL};
	cmd_plan(4, argv);

	close(fd);
	return 0;
}
