/* escape.c -- names and values made valid for each output format
 * (symbolizer/util/escape.c): control bytes, invalid UTF-8, newline, each
 * format's own specials; escape_needed agrees with what is written. */
#include <string.h>

#include "util/util.h"
#include "tap.h"

#define S(lit) lit, sizeof(lit) - 1

static const struct {
	enum escape_mode mode;
	const char *in;
	size_t n;
	const char *out;
} cases[] = {
	{ESCAPE_TEXT, S("plain_name"), "plain_name"},
	{ESCAPE_TEXT, S("a\nb"), "a\\nb"},
	{ESCAPE_TEXT, S("tab\there\r"), "tab\\there\\r"},
	{ESCAPE_TEXT, S("\x1b[31mred"), "\\x1b[31mred"},
	{ESCAPE_TEXT, S("back\\slash"), "back\\\\slash"},
	{ESCAPE_TEXT, S("nul\0x"), "nul\\0x"},
	{ESCAPE_TEXT, S("del\x7f"), "del\\x7f"},
	{ESCAPE_TEXT, S("caf\xc3\xa9"), "caf\xc3\xa9"},
	{ESCAPE_TEXT, S("\xe2\x82\xac\xf0\x9f\x98\x80"),
	 "\xe2\x82\xac\xf0\x9f\x98\x80"},
	{ESCAPE_TEXT, S("bad\xff"), "bad\\xff"},
	{ESCAPE_TEXT, S("cut\xc3"), "cut\\xc3"},
	{ESCAPE_TEXT, S("c1\xc2\x85"), "c1\\xc2\\x85"},
	{ESCAPE_TEXT, S("overlong\xc0\xaf"), "overlong\\xc0\\xaf"},
	{ESCAPE_TEXT, S("surrogate\xed\xa0\x80"), "surrogate\\xed\\xa0\\x80"},
	{ESCAPE_TEXT, S("noncharacter\xef\xbf\xbf"),
	 "noncharacter\\xef\\xbf\\xbf"},
	{ESCAPE_TEXT, S("a;b\"<&"), "a;b\"<&"},
	{ESCAPE_FOLDED, S("main;f"), "main\\x3bf"},
	{ESCAPE_FOLDED, S("a\nb"), "a\\nb"},
	{ESCAPE_DOT, S("say \"hi\""), "say \\\"hi\\\""},
	{ESCAPE_DOT, S("a\nb\\"), "a\\\\nb\\\\\\\\"},
	{ESCAPE_XML, S("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;"},
	{ESCAPE_XML, S("a\nb\x01"), "a\\nb\\x01"},
	{ESCAPE_XML, S("bad\xff"), "bad\\xff"},
	{ESCAPE_JSON, S("a\nb"), "a\\nb"},
	{ESCAPE_JSON, S("q\"b\\"), "q\\\"b\\\\"},
	{ESCAPE_JSON, S("\x01\x1b\t\r"), "\\u0001\\u001b\\t\\r"},
	{ESCAPE_JSON, S("nul\0"), "nul\\u0000"},
	{ESCAPE_JSON, S("del\x7f"), "del\x7f"},
	{ESCAPE_JSON, S("bad\xff!"), "bad\\ufffd!"},
	{ESCAPE_JSON, S("caf\xc3\xa9"), "caf\xc3\xa9"},
	{ESCAPE_JSON, S("c1\xc2\x85"), "c1\xc2\x85"},
	{ESCAPE_JSON, S("<a;b>"), "<a;b>"},
	/* text and JSON pass eight plain bytes at a time: a special at
	 * each place of a word, after whole words, in the tail */
	{ESCAPE_TEXT, S("/usr/src/work.c:44"), "/usr/src/work.c:44"},
	{ESCAPE_TEXT, S("0123456\\89abcdef"), "0123456\\\\89abcdef"},
	{ESCAPE_TEXT, S("01234567\\9abcdef"), "01234567\\\\9abcdef"},
	{ESCAPE_TEXT, S("0123456789abcde\\"), "0123456789abcde\\\\"},
	{ESCAPE_TEXT, S("\\123456789abcdef"), "\\\\123456789abcdef"},
	{ESCAPE_TEXT, S("0123456789a\x7f" "cd"), "0123456789a\\x7fcd"},
	{ESCAPE_TEXT, S("01234567\x1f"), "01234567\\x1f"},
	{ESCAPE_TEXT, S("0123456789abcdef\xc3\xa9"),
	 "0123456789abcdef\xc3\xa9"},
	{ESCAPE_TEXT, S("0123456789abcdef\xff"), "0123456789abcdef\\xff"},
	{ESCAPE_TEXT, S("0123\"567;9ab<d&f"), "0123\"567;9ab<d&f"},
	{ESCAPE_JSON, S("0123456\"89abcdef"), "0123456\\\"89abcdef"},
	{ESCAPE_JSON, S("01234567\"9abcdef"), "01234567\\\"9abcdef"},
	{ESCAPE_JSON, S("0123456789abcde\\"), "0123456789abcde\\\\"},
	{ESCAPE_JSON, S("0123456789abcd\x7f" "f"), "0123456789abcd\x7f" "f"},
	{ESCAPE_JSON, S("0123456789ab\ncdef"), "0123456789ab\\ncdef"},
	{ESCAPE_JSON, S("0123456789abcdef\x80"), "0123456789abcdef\\ufffd"},
	{ESCAPE_FOLDED, S("01234567;9abcdef"), "01234567\\x3b9abcdef"},
	{ESCAPE_DOT, S("01234567\"9abcdef"), "01234567\\\"9abcdef"},
	{ESCAPE_XML, S("01234567<9abcdef"), "01234567&lt;9abcdef"},
};

/* Byte, quote, the C literal's text. */
static const struct {
	unsigned char c;
	char quote;
	const char *out;
} c_bytes[] = {
	{'a', '"', "a"},     {'\n', '"', "\\n"},   {'\t', 0, "\\t"},
	{'\r', 0, "\\r"},    {'\0', '\'', "\\0"},  {'\\', '"', "\\\\"},
	{'"', '"', "\\\""},  {'"', '\'', "\""},    {'\'', '\'', "\\'"},
	{0x1b, '"', "\\x1b"}, {0x7f, '"', "\\x7f"}, {0xc3, '"', "\\xc3"},
	{0xff, 0, "\\xff"},  {' ', '"', " "},      {'~', '"', "~"},
};

static const char *const mode_names[] = {"text", "folded", "dot", "xml",
					 "json"};

int main(void)
{
	tap_plan(2 * TAP_COUNT(cases) + TAP_COUNT(c_bytes) + 1);
	for (int i = 0; i < TAP_COUNT(cases); i++) {
		struct outbuf o;
		outbuf_init_memory(&o);
		outbuf_escaped(&o, cases[i].in, cases[i].n, cases[i].mode);
		outbuf_flush(&o);
		size_t want = strlen(cases[i].out);
		if (!tap_ok(o.mem_len == want && !memcmp(o.mem, cases[i].out, want),
			    "%s: case %d (%s)", mode_names[cases[i].mode], i,
			    cases[i].out))
			tap_diag("got '%.*s'", (int)o.mem_len, o.mem);
		bool changed = o.mem_len != cases[i].n ||
			       memcmp(o.mem, cases[i].in, cases[i].n) != 0;
		tap_ok(escape_needed(cases[i].in, cases[i].n, cases[i].mode) ==
			       changed,
		       "%s: case %d: escape_needed says %s",
		       mode_names[cases[i].mode], i,
		       changed ? "yes" : "no");
		outbuf_free_memory(&o);
	}
	for (int i = 0; i < TAP_COUNT(c_bytes); i++) {
		char e[4];
		size_t n = escape_c_byte(c_bytes[i].c, c_bytes[i].quote, e);
		if (!tap_ok(n == strlen(c_bytes[i].out) &&
				    !memcmp(e, c_bytes[i].out, n),
			    "C literal of byte 0x%02x quoted by %s: %s",
			    c_bytes[i].c,
			    c_bytes[i].quote ? (c_bytes[i].quote == '"' ? "\"" : "'")
					     : "nothing",
			    c_bytes[i].out))
			tap_diag("got '%.*s'", (int)n, e);
	}
	struct outbuf o;
	outbuf_init_memory(&o);
	outbuf_json_str(&o, S("a\"\n"));
	outbuf_flush(&o);
	tap_ok(o.mem_len == 7 && !memcmp(o.mem, "\"a\\\"\\n\"", 7),
	       "outbuf_json_str quotes");
	outbuf_free_memory(&o);
	return tap_done();
}
