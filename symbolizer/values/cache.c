/* cache.c -- a call's values: by the recipe of a call like it
 * (recipe.c), remembered by its payload (memo.c), or decoded in full
 * (args.c, values.c), as CTRACE_VALUE_CACHE says: unset, every way; 0,
 * always in full (the same output: for comparing); stats, every way, and
 * the calls served each way said on standard error at the end.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "values/dwinfo.h"
#include "values/values.h"


static struct {
	int mode; /* enum values_cache + 1; 0: CTRACE_VALUE_CACHE not read */
	/* calls whose arguments came by recipe, remembered or decoded; and
	 * return values remembered or decoded */
	uint64_t args_recipe, args_memo, args_decoded;
	uint64_t ret_memo, ret_decoded;
} cache;

static enum values_cache mode(void)
{
	if (!cache.mode) {
		const char *e = getenv("CTRACE_VALUE_CACHE");
		cache.mode = 1 + (!e		     ? VALUES_CACHE_ON
				  : !strcmp(e, "0")     ? VALUES_CACHE_OFF
				  : !strcmp(e, "stats") ? VALUES_CACHE_STATS
							: VALUES_CACHE_ON);
	}
	return (enum values_cache)(cache.mode - 1);
}

/* The work per (function, call site) once (recipe.c), a payload seen
 * before not decoded again (memo.c). */
struct values *values_args(struct trace *t, const struct values_call *p,
			   const uint8_t *payload, size_t len)
{
	uint64_t hash = 0;
	struct values *v;
	if (p->libcall)
		return libcall_args(p, payload, len,
				    t->hdr.pointer_size == 4);
	if (mode() == VALUES_CACHE_OFF) {
		cache.args_decoded++;
		return args_decode(t, p, payload, len, false);
	}
	v = recipe_apply(t, p, payload, len);
	if (v) {
		cache.args_recipe++;
		return v;
	}
	v = memo_get(MEMO_ARGS, t, p, payload, len, &hash);
	if (v) {
		cache.args_memo++;
		return v;
	}
	cache.args_decoded++;
	v = args_decode(t, p, payload, len, true);
	memo_put(MEMO_ARGS, t, p, payload, len, hash, v);
	return v;
}

struct values *values_retval(struct trace *t, const struct values_call *p,
			     const uint8_t *payload, size_t len)
{
	uint64_t hash = 0;
	struct values *v;
	if (p->libcall)
		return libcall_retval(p, payload, len,
				      t->hdr.pointer_size == 4);
	if (mode() == VALUES_CACHE_OFF) {
		cache.ret_decoded++;
		return retval_decode(t, p, payload, len);
	}
	v = memo_get(MEMO_RETVAL, t, p, payload, len, &hash);
	if (v) {
		cache.ret_memo++;
		return v;
	}
	cache.ret_decoded++;
	v = retval_decode(t, p, payload, len);
	memo_put(MEMO_RETVAL, t, p, payload, len, hash, v);
	return v;
}


void values_reset(void)
{
	if (mode() == VALUES_CACHE_STATS)
		fprintf(stderr, PROGRAM_NAME ": value cache: arguments of %" PRIu64
			" calls by recipe, %" PRIu64 " remembered, %" PRIu64
			" decoded; return values of %" PRIu64 " remembered, %"
			PRIu64 " decoded\n",
			cache.args_recipe, cache.args_memo, cache.args_decoded,
			cache.ret_memo, cache.ret_decoded);
	cache.args_recipe = cache.args_memo = cache.args_decoded = 0;
	cache.ret_memo = cache.ret_decoded = 0;
	memo_reset();
	recipe_reset(); /* holds DIEs of the modules */
	values_forget_hints();
	values_forget_ret_shapes();
	libcall_forget_hints();
	dw_modules_free();
}
