/* fuzz_trace.c -- libFuzzer target: the symbolizer on arbitrary bytes.
 *
 * The input is taken as a trace file and goes through everything
 * ctrace-symbolize does with one: the header and chunk index (trace.c),
 * the metadata (meta.c), the streams' decoding (stream.c), calls and the
 * merge of threads (thread.c), captured values (values.c), the filters
 * (a set chosen by the input's last byte) and every output format,
 * written to /dev/null.  The resolver is the real one, given none of the
 * trace's modules (symtab_attach's open_modules false): a fuzzed trace's
 * module paths must not be opened, and decoding needs no resolver.  Built by fuzz/Makefile.inc with -fsanitize=fuzzer,address,
 * undefined; fuzz/run-fuzz.sh runs it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "output/output.h"
#include "values/values.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int null_fd = -1;

/* The input as a file: the reader works on a path, with pread. */
static int input_file(const uint8_t *data, size_t size, char *path,
		      size_t path_size)
{
	int fd = memfd_create("trace", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	for (size_t done = 0; done < size;) {
		ssize_t n = write(fd, data + done, size - done);
		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	snprintf(path, path_size, "/proc/self/fd/%d", fd);
	return fd;
}

/* Filter sets tried on each input, one per run (chosen from its bytes):
 * every kind of filter, alone and together. */
static const char *const filter_sets[][10] = {
	{NULL},
	{"F", "main", NULL},
	{"F", "nomatch", NULL},
	{"N", "*f*", NULL},
	{"H", "*", NULL},
	{"D", "2", NULL},
	{"t", "1us", NULL},
	{"T", "1,2", NULL},
	{"R", "10us~1ms", NULL},
	{"m", "regex", "F", "^m|x$", "H", "[0-9]", NULL},
	{"F", "*", "N", "main", "D", "1", "t", "0", NULL},
};

static struct filters *make_filters(unsigned which)
{
	const char *const *set = filter_sets[which % (sizeof filter_sets /
						    sizeof filter_sets[0])];
	struct filters *f;
	const char *what;

	if (set[0] == NULL)
		return NULL;
	f = filter_new();
	for (size_t i = 0; set[i] != NULL; i += 2) {
		int code = set[i][0] == 'm'   ? FILTER_OPT_MATCH
			   : set[i][0] == 'T' ? FILTER_OPT_TID
			   : set[i][0] == 'R' ? FILTER_OPT_TIME_RANGE
					      : set[i][0];
		if (filter_option(f, code, set[i + 1]) != NULL)
			abort(); /* the sets above are valid */
	}
	if (filter_ready(f, &what) != NULL)
		abort();
	return f;
}

/* One run of the symbolizer over `copies` opens of the same file (two
 * make the multi-process merge run). */
static void symbolize(const char *path, const struct output_format *format,
		      bool per_thread, bool srcline, size_t copies,
		      unsigned filters)
{
	static struct outbuf out;
	struct options opts;
	struct output_options oopts;
	struct output output, *shown = &output;
	struct trace traces[2], *ptrs[2];
	size_t n = 0;

	memset(&opts, 0, sizeof opts);
	opts.per_thread = per_thread;
	opts.srcline = srcline;
	opts.serial_ids = srcline;
	memset(&oopts, 0, sizeof oopts);
	oopts.sort = (enum report_sort)(filters % 6);
	oopts.weight_calls = filters & 1;
	opts.filters = make_filters(filters);
	opts.max_depth = 50;
	outbuf_init(&out, null_fd, "/dev/null");
	memset(&output, 0, sizeof output);
	output.opts = &opts;
	output.out = &out;
	format->init(&output, &oopts);
	if (opts.filters)
		shown = filter_wrap(opts.filters, &output);

	for (size_t i = 0; i < copies; i++)
		if (trace_open(&traces[n], path, false) == 0) {
			symtab_attach(&traces[n], &opts.resolve, false);
			ptrs[n] = &traces[n];
			n++;
		}
	output.n_traces = n;
	shown->n_traces = n;
	/* copies of a forked child's trace are each other's parent */
	replay_inherit(ptrs, n);
	for (size_t i = 0; i < n; i++) {
		ptrs[i]->time_offset = (int64_t)i;
		output_begin_trace(shown, ptrs[i]);
	}
	if (n)
		replay_run(ptrs, n, shown);
	for (size_t i = 0; i < n; i++)
		output_end_trace(shown, ptrs[i]);
	output_finish(shown);
	for (size_t i = 0; i < n; i++) {
		symtab_detach(ptrs[i]);
		trace_close(ptrs[i]);
	}
	values_reset();
	filter_free(opts.filters);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct output_format *tree = formats_find("tree");
	unsigned pick = size ? data[size - 1] : 0;
	char path[64];

	if (null_fd < 0 && (null_fd = open("/dev/null", O_WRONLY)) < 0)
		abort();
	int fd = input_file(data, size, path, sizeof path);
	if (fd < 0)
		return 0;
	symbolize(path, tree, false, false, 1, 0);
	symbolize(path, tree, true, true, 2, pick);
	/* every format of formats.c's table, with and without filters, one
	 * thread at a time or merged */
	for (size_t i = 0; formats_all[i].name; i++)
		symbolize(path, &formats_all[i], (pick + i) & 1, false, 1,
			  pick + (unsigned)i);
	close(fd);
	return 0;
}
