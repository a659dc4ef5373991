/* meta.c -- the metadata stream: the process, its modules and threads.
 *
 * Read completely before any event, since names depend on it: modules and
 * their unloading are kept in the order of the records (the replay stage
 * gives them to the resolver and, by their times, to the pair table's
 * epochs), thread records give threads their kernel ids and names.
 */
#include <stdlib.h>

#include "trace/trace.h"

static struct thread_info *find_thread(struct trace *t, uint32_t serial)
{
	size_t lo = 0, hi = t->n_threads;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->threads[mid].serial == serial)
			return &t->threads[mid];
		if (t->threads[mid].serial < serial)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Keeps a MODULE record's path (taking it) and identity, for the JSON
 * header and the resolver. */
static void record_module(struct trace *t, char *path, const uint8_t *p,
			  size_t id_len)
{
	struct trace_module *m;

	t->modules = must_realloc(t->modules, t->n_modules + 1,
				  sizeof *t->modules);
	m = &t->modules[t->n_modules++];
	m->path = path;
	m->bias = load_u64(p + 8);
	m->start = load_u64(p + 16);
	m->end = load_u64(p + 24);
	m->build_id_len = id_len < sizeof m->build_id ? id_len
						      : sizeof m->build_id;
	memcpy(m->build_id, p + 33, m->build_id_len);
}

static struct trace_module_event *record_module_event(struct trace *t,
						      uint64_t ticks)
{
	struct trace_module_event *e;

	t->module_events = must_realloc(t->module_events,
					t->n_module_events + 1,
					sizeof *t->module_events);
	e = &t->module_events[t->n_module_events++];
	*e = (struct trace_module_event){.ticks = ticks};
	return e;
}

/* One record's payload; returns false when it is too short (reported). */
static bool meta_record(struct trace *t, unsigned type, const uint8_t *p,
			size_t len, uint64_t off)
{
	switch (type) {
	case CTRACE_REC_PROCESS:
		if (len < 16)
			break;
		t->pid = load_u32(p + 8);
		t->ppid = load_u32(p + 12);
		free(t->exe);
		t->exe = must_strndup((const char *)p + 16, len - 16);
		return true;
	case CTRACE_REC_MODULE: {
		size_t id_len;
		char *path;
		if (len < 33)
			break;
		id_len = p[32];
		if (len < 33 + id_len)
			break;
		path = must_strndup((const char *)p + 33 + id_len,
				len - 33 - id_len);
		record_module(t, path, p, id_len);
		record_module_event(t, load_u64(p))->module = t->n_modules - 1;
		return true;
	}
	case CTRACE_REC_MODULE_GONE: {
		struct trace_module_event *e;
		if (len < 16)
			break;
		e = record_module_event(t, load_u64(p));
		e->start = load_u64(p + 8);
		e->gone = true;
		return true;
	}
	case CTRACE_REC_THREAD: {
		struct thread_info *ti;
		if (len < 16)
			break;
		ti = find_thread(t, load_u32(p + 8));
		if (ti) {
			ti->tid = load_u32(p + 12);
			free(ti->name);
			ti->name = must_strndup((const char *)p + 16, len - 16);
		}
		return true;
	}
	case CTRACE_REC_PLT_SLOT: {
		uint64_t slot;
		if (len < 24)
			break;
		slot = load_u64(p + 8);
		if (slot == 0) {
			t->libcalls_unseen = true;
			return true;
		}
		/* Appended, merged once all are read (symtab_attach): a
		 * search here would make a trace of many slots quadratic. */
		if (t->n_plt_slots == t->cap_plt_slots) {
			t->cap_plt_slots = t->cap_plt_slots
						   ? 2 * t->cap_plt_slots
						   : 64;
			t->plt_slots = must_realloc(t->plt_slots,
						    t->cap_plt_slots,
						    sizeof *t->plt_slots);
		}
		t->plt_slots[t->n_plt_slots] = (struct trace_plt_slot){
			.slot = slot,
			.target = load_u64(p + 16),
			.name = must_strndup((const char *)p + 24, len - 24),
			.seq = t->n_plt_slots,
		};
		t->n_plt_slots++;
		return true;
	}
	case CTRACE_REC_LIB_RETURN:
		if (len < 8)
			break;
		t->lib_return = load_u64(p);
		return true;
	case CTRACE_REC_ARGV:
		free(t->argv);
		t->argv = must_strndup((const char *)p, len);
		t->argv_len = len;
		return true;
	case CTRACE_REC_SETTINGS:
		free(t->settings);
		t->settings = must_strndup((const char *)p, len);
		t->settings_len = len;
		return true;
	default: /* types from later versions */
		return true;
	}
	trace_error(t, off, "metadata record of type %u too short (%zu bytes)",
		    type, len);
	return false;
}

static void meta_chunk(struct trace *t, const struct chunk_ref *c,
		       const uint8_t *buf)
{
	const uint8_t *p = buf + c->header_size, *end = buf + c->size;
	bool cut = trace_chunk_is_cut(t, c);

	if (c->header_size > c->size)
		goto truncated;
	while (p < end && *p != CTRACE_TAG_END) {
		uint64_t off = c->offset + (uint64_t)(p - buf), len;
		unsigned type;

		if (*p != CTRACE_TAG_EXTENDED) {
			trace_error(t, off, "event record in the metadata");
			return;
		}
		if (end - p < 2)
			goto past_end;
		type = p[1];
		p += 2;
		if (ctrace__uleb_get(&p, end, &len) < 0)
			goto past_end;
		if (len > (uint64_t)(end - p))
			goto past_end;
		if (!meta_record(t, type, p, (size_t)len, off))
			return;
		p += len;
		continue;
past_end:
		if (cut)
			goto truncated;
		trace_error(t, off, "record runs past the end of its chunk");
		return;
	}
	if (!cut)
		return;
truncated: /* the file ends inside this chunk */
	trace_error(t, c->offset, "truncated chunk");
}

void meta_read(struct trace *t)
{
	uint8_t *buf;

	if (!t->meta.n)
		return;
	buf = must_malloc(t->max_chunk_bytes);
	for (size_t i = 0; i < t->meta.n; i++) {
		const struct chunk_ref *c = &t->meta.first[i];
		if (trace_read_chunk(t, c, buf) == 0)
			meta_chunk(t, c, buf);
	}
	free(buf);
}
