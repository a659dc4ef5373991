/* fuzz_trace.c -- libFuzzer target: the symbolizer on arbitrary bytes.
 *
 * The input is taken as a trace file and goes through everything
 * ctrace-symbolize does with one: the header and chunk index (reader.c),
 * the metadata (meta.c), the streams' decoding (stream.c), calls and the
 * merge of threads (calls.c), captured values (values.c) and the tree,
 * JSON and report outputs, written to /dev/null.  Only the resolver is a
 * stand-in (stub_resolve.c): a fuzzed trace's module paths must not be
 * opened.  Built by fuzz/Makefile.inc with -fsanitize=fuzzer,address,
 * undefined; fuzz/run-fuzz.sh runs it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "values.h"

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

/* One run of the symbolizer over `copies` opens of the same file (two
 * make the multi-process merge run). */
static void symbolize(const char *path, void (*init)(struct output *),
		      bool per_thread, bool srcline, size_t copies)
{
	static struct outbuf out;
	struct options opts;
	struct output output;
	struct trace traces[2], *ptrs[2];
	size_t n = 0;

	memset(&opts, 0, sizeof opts);
	opts.per_thread = per_thread;
	opts.srcline = srcline;
	opts.serial_ids = srcline;
	outbuf_init(&out, null_fd, "/dev/null");
	memset(&output, 0, sizeof output);
	output.opts = &opts;
	output.out = &out;
	init(&output);

	for (size_t i = 0; i < copies; i++)
		if (trace_open(&traces[n], path, &opts, false) == 0) {
			ptrs[n] = &traces[n];
			n++;
		}
	output.n_traces = n;
	/* copies of a forked child's trace are each other's parent */
	calls_inherit(ptrs, n);
	for (size_t i = 0; i < n; i++) {
		ptrs[i]->time_offset = (int64_t)i;
		output.ops->begin_trace(&output, ptrs[i]);
	}
	if (n)
		calls_replay(ptrs, n, &output);
	for (size_t i = 0; i < n; i++)
		output.ops->end_trace(&output, ptrs[i]);
	output.ops->finish(&output);
	for (size_t i = 0; i < n; i++)
		trace_close(ptrs[i]);
	values_reset();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];

	if (null_fd < 0 && (null_fd = open("/dev/null", O_WRONLY)) < 0)
		abort();
	int fd = input_file(data, size, path, sizeof path);
	if (fd < 0)
		return 0;
	symbolize(path, output_tree_init, false, false, 1);
	symbolize(path, output_tree_init, true, true, 2);
	symbolize(path, output_json_init, false, false, 1);
	symbolize(path, output_report_init, false, false, 1);
	close(fd);
	return 0;
}
