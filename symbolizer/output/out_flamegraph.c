/* out_flamegraph.c -- a flame graph as one self-contained SVG file.
 *
 * The same call paths as the folded stacks (out_folded.c), drawn: one box
 * per path, as wide as its weight (self time of the path and everything
 * below it, or calls with --weight=calls), callees stacked above their
 * caller, siblings sorted by name.  Boxes narrower than 0.1% of the width
 * are left out with what they call.  Every box has a <title> (the name,
 * its weight and its share, shown when the pointer rests on it) and its
 * name as text, cut to fit with "..".  No script, no external style: any
 * browser or image viewer shows it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "output/output.h"

#define IMAGE_WIDTH 1200.0
#define PAD_SIDE 10.0
#define PAD_TOP 40.0
#define PAD_BOTTOM 10.0
#define FRAME_HEIGHT 16.0
#define FONT_SIZE 11.0
#define CHAR_WIDTH (FONT_SIZE * 0.59) /* of an average Verdana letter */
#define MIN_SHARE 0.001

static void put_fmt(struct outbuf *out, const char *fmt, double v)
{
	char buf[64];

	snprintf(buf, sizeof buf, fmt, v);
	outbuf_str(out, buf);
}

/* Warm colours, the same for the same name in every graph. */
static void put_color(struct outbuf *out, const char *name, size_t n)
{
	uint64_t h = 0xcbf29ce484222325u;
	char buf[32];

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)name[i]) * 0x100000001b3u;
	snprintf(buf, sizeof buf, "rgb(%u,%u,%u)",
		 205 + (unsigned)(h % 50), 80 + (unsigned)((h >> 8) % 150),
		 (unsigned)((h >> 16) % 55));
	outbuf_str(out, buf);
}

/* As much of the name as fits in `width` pixels, cut with ".."; nothing
 * when not even three letters fit. */
static void put_label(struct outbuf *out, const char *name, size_t n,
		      double width)
{
	size_t fit = width > 6 ? (size_t)((width - 6) / CHAR_WIDTH) : 0;

	if (fit < 3)
		return;
	if (n <= fit) {
		agg_put_xml_str(out, name, n);
		return;
	}
	agg_put_xml_str(out, name, fit - 2);
	outbuf_str(out, "..");
}

static void put_frame(struct outbuf *out, const char *name, size_t len,
		      uint64_t weight, double share, bool calls, double x,
		      double y, double w)
{
	outbuf_str(out, "<g class=\"frame\"><title>");
	agg_put_xml_str(out, name, len);
	outbuf_str(out, " (");
	outbuf_u64(out, weight);
	outbuf_str(out, calls ? " calls, " : " ns, ");
	put_fmt(out, "%.2f", share * 100.0);
	outbuf_str(out, "%)</title><rect x=\"");
	put_fmt(out, "%.2f", x);
	outbuf_str(out, "\" y=\"");
	put_fmt(out, "%.1f", y);
	outbuf_str(out, "\" width=\"");
	put_fmt(out, "%.2f", w);
	outbuf_str(out, "\" height=\"");
	put_fmt(out, "%.1f", FRAME_HEIGHT - 1);
	outbuf_str(out, "\" rx=\"2\" fill=\"");
	put_color(out, name, len);
	outbuf_str(out, "\"/><text x=\"");
	put_fmt(out, "%.2f", x + 3);
	outbuf_str(out, "\" y=\"");
	put_fmt(out, "%.1f", y + FRAME_HEIGHT - 4.5);
	outbuf_str(out, "\">");
	put_label(out, name, len, w);
	outbuf_str(out, "</text></g>\n");
}

static void flame_finish(struct output *o)
{
	struct paths *ps = o->state;
	struct outbuf *out = o->out;
	bool by_calls = ps->weight_calls;
	uint64_t *total = must_calloc(ps->n, sizeof *total);
	uint32_t *depth = must_calloc(ps->n, sizeof *depth);
	double *x = must_calloc(ps->n, sizeof *x);
	bool *shown = must_calloc(ps->n, sizeof *shown);
	uint32_t *order, *first, max_depth = 0;
	double scale, height, min_weight;

	/* parents come first: children add up backwards, saturating (a
	 * wrapped sum made a box wider than its parent, above 100%) */
	for (size_t i = ps->n; i-- > 1;) {
		uint64_t w = by_calls ? ps->nodes[i].calls : ps->nodes[i].self;
		uint64_t *up = &total[ps->nodes[i].parent];
		total[i] = total[i] + w < w ? UINT64_MAX : total[i] + w;
		*up = *up + total[i] < *up ? UINT64_MAX : *up + total[i];
	}
	paths_children(ps, &order, &first);
	scale = total[0] ? (IMAGE_WIDTH - 2 * PAD_SIDE) / (double)total[0] : 0;
	min_weight = (double)total[0] * MIN_SHARE;

	/* x and depth of the boxes that show, parents before children */
	x[0] = PAD_SIDE;
	shown[0] = true;
	for (uint32_t node = 0; node < ps->n; node++) {
		double cx = x[node];
		if (!shown[node])
			continue;
		for (uint32_t k = first[node]; k < first[node + 1]; k++) {
			uint32_t c = order[k];
			x[c] = cx;
			depth[c] = depth[node] + 1;
			cx += (double)total[c] * scale;
			shown[c] = total[c] && (double)total[c] >= min_weight;
			if (shown[c] && depth[c] > max_depth)
				max_depth = depth[c];
		}
	}
	height = PAD_TOP + (max_depth + 1) * FRAME_HEIGHT + PAD_BOTTOM;

	outbuf_str(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
			"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\""
			" width=\"");
	put_fmt(out, "%.0f", IMAGE_WIDTH);
	outbuf_str(out, "\" height=\"");
	put_fmt(out, "%.0f", height);
	outbuf_str(out, "\" viewBox=\"0 0 ");
	put_fmt(out, "%.0f", IMAGE_WIDTH);
	outbuf_putc(out, ' ');
	put_fmt(out, "%.0f", height);
	outbuf_str(out, "\">\n<style>text { font-family: Verdana, "
			"'DejaVu Sans', sans-serif; font-size: ");
	put_fmt(out, "%.0f", FONT_SIZE);
	outbuf_str(out, "px; fill: #000; } .title { font-size: 17px; "
			"text-anchor: middle; } .frame:hover rect { stroke: "
			"#000; stroke-width: 0.5; }</style>\n"
			"<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" "
			"fill=\"#f8f4ec\"/>\n<text class=\"title\" x=\"");
	put_fmt(out, "%.0f", IMAGE_WIDTH / 2);
	outbuf_str(out, "\" y=\"24\">Flame graph (");
	outbuf_str(out, by_calls ? "calls" : "self time");
	outbuf_str(out, ")</text>\n");

	if (total[0])
		put_frame(out, "all", 3, total[0], 1.0, by_calls, PAD_SIDE,
			  height - PAD_BOTTOM - FRAME_HEIGHT,
			  IMAGE_WIDTH - 2 * PAD_SIDE);
	for (uint32_t node = 1; node < ps->n; node++) {
		const struct path_node *n = &ps->nodes[node];
		if (!shown[node])
			continue;
		put_frame(out, agg_name(n->name), agg_name_len(n->name),
			  total[node], (double)total[node] / (double)total[0],
			  by_calls, x[node],
			  height - PAD_BOTTOM - (depth[node] + 1) * FRAME_HEIGHT,
			  (double)total[node] * scale);
	}
	outbuf_str(out, "</svg>\n");
	outbuf_flush(out);
	free(total);
	free(depth);
	free(x);
	free(shown);
	free(order);
	free(first);
	paths_free(ps);
}

static const struct output_ops flame_ops = {
	.entry = paths_entry,
	.leaf = paths_leaf,
	.close = paths_close,
	.park = paths_park,
	.unpark = paths_unpark,
	.drop_parked = agg_drop_parked,
	.lost = paths_lost,
	.end_trace = paths_end_trace,
	.finish = flame_finish,
};

void out_flamegraph_init(struct output *o, const struct output_options *oo)
{
	static struct paths ps;

	paths_init(&ps);
	ps.weight_calls = oo->weight_calls;
	o->ops = &flame_ops;
	o->leaves = true;
	o->no_values = true; /* shows no values */
	o->state = &ps;
}
