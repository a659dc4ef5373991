/* escape.c -- names made safe for every output format.
 *
 * Function names, module paths, thread names and messages come from the
 * traced program and may hold any byte.  Every format writes them through
 * here, so that what comes out is valid for the format whatever they hold:
 *
 *   text   (tree, report)  control characters, DEL, the C1 controls,
 *          backslash and bytes that are not UTF-8 become C escapes:
 *          \n \t \r \0 \\ \xHH.  A terminal shows them as text, never
 *          acts on them.
 *   C      a value's text as a C literal (values.c): the same escapes for
 *          every byte outside printable ASCII, and the literal's quote.
 *   folded text, and ';' (the frame separator) as \x3b.
 *   DOT    text, then '"' and '\' escaped for a quoted DOT string.
 *   XML    text, then & < > " ' as entities.
 *   JSON   '"', '\' and control characters escaped; a byte that is not
 *          part of valid UTF-8 becomes U+FFFD (JSON holds text, not
 *          bytes).
 *   UTF-8  every byte as it is, but for a byte that is not part of valid
 *          UTF-8, which becomes U+FFFD: the strings of a binary format
 *          (protobuf) that must hold text.
 *
 * Valid UTF-8 (no overlong form, no surrogate, nothing above U+10FFFF,
 * not U+FFFE or U+FFFF) passes unchanged everywhere.
 */
#include <string.h>

#include "util/util.h"

static const char hex[] = "0123456789abcdef";

/* Length of the valid UTF-8 sequence starting at s (a byte >= 0x80), or 0
 * when it is not one. */
static size_t utf8_sequence(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t len;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1fu;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0fu;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07u;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe ||
	    cp == 0xffff)
		return 0;
	return len;
}

static bool is_c1(const unsigned char *s)
{
	return s[0] == 0xc2 && s[1] < 0xa0;
}

/* True if byte c (below 0x80) is written as it is in this mode. */
static bool plain(unsigned char c, enum escape_mode mode)
{
	if (mode == ESCAPE_UTF8)
		return true;
	if (c < 0x20 || c == 0x7f)
		return mode == ESCAPE_JSON && c == 0x7f;
	switch (mode) {
	case ESCAPE_TEXT:
		return c != '\\';
	case ESCAPE_FOLDED:
		return c != '\\' && c != ';';
	case ESCAPE_DOT:
		return c != '\\' && c != '"';
	case ESCAPE_XML:
		return c != '\\' && c != '&' && c != '<' && c != '>' &&
		       c != '"' && c != '\'';
	case ESCAPE_JSON:
		return c != '\\' && c != '"';
	case ESCAPE_UTF8:
		break;
	}
	return false;
}

/* plain() as a table, one row a mode: every byte of every name and
 * value of every output passes here. */
static const bool *plain_row(enum escape_mode mode)
{
	static bool table[ESCAPE_UTF8 + 1][0x80];
	static bool ready;
	if (!ready) {
		for (int m = 0; m <= ESCAPE_UTF8; m++)
			for (int c = 0; c < 0x80; c++)
				table[m][c] = plain((unsigned char)c,
						    (enum escape_mode)m);
		ready = true;
	}
	return table[mode];
}

size_t escape_c_byte(unsigned char c, char quote, char out[4])
{
	size_t len = 2;

	out[0] = '\\';
	switch (c) {
	case '\n':
		out[1] = 'n';
		break;
	case '\t':
		out[1] = 't';
		break;
	case '\r':
		out[1] = 'r';
		break;
	case '\0':
		out[1] = '0';
		break;
	case '\\':
		out[1] = '\\';
		break;
	default:
		if (quote != 0 && c == (unsigned char)quote) {
			out[1] = quote;
		} else if (c >= 0x20 && c < 0x7f) {
			out[0] = (char)c;
			len = 1;
		} else {
			out[1] = 'x';
			out[2] = hex[c >> 4];
			out[3] = hex[c & 15];
			len = 4;
		}
	}
	return len;
}

/* A C escape (\n, \\, \xHH) for the text formats; inside a DOT string
 * each of its backslashes is escaped once more. */
static void put_c_escape(struct outbuf *o, unsigned char c,
			 enum escape_mode mode)
{
	char e[4];
	size_t len = escape_c_byte(c, 0, e);

	if (len == 1) { /* printable, but special here: folded's ';' */
		e[0] = '\\';
		e[1] = 'x';
		e[2] = hex[c >> 4];
		e[3] = hex[c & 15];
		len = 4;
	}
	for (size_t i = 0; i < len; i++) {
		if (mode == ESCAPE_DOT && e[i] == '\\')
			outbuf_putc(o, '\\');
		outbuf_putc(o, e[i]);
	}
}

static void put_special(struct outbuf *o, unsigned char c,
			enum escape_mode mode)
{
	static const char *const xml[] = {
		['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;",
		['"'] = "&quot;", ['\''] = "&apos;",
	};

	if (mode == ESCAPE_JSON) {
		outbuf_putc(o, '\\');
		if (c == '"' || c == '\\')
			outbuf_putc(o, (char)c);
		else if (c == '\n' || c == '\t' || c == '\r')
			outbuf_putc(o, c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
		else {
			outbuf_write(o, "u00", 3);
			outbuf_putc(o, hex[c >> 4]);
			outbuf_putc(o, hex[c & 15]);
		}
	} else if (mode == ESCAPE_XML && c < sizeof xml / sizeof xml[0] &&
		   xml[c] != NULL) {
		outbuf_str(o, xml[c]);
	} else if (mode == ESCAPE_DOT && c == '"') {
		outbuf_write(o, "\\\"", 2);
	} else {
		put_c_escape(o, c, mode);
	}
}

/* How many bytes from s on, in whole words of 8, are plain ASCII for
 * the text and JSON modes (the tree's and JSON's names, paths and values,
 * almost always nothing to escape): a word is passed when none of its
 * bytes has the high bit, is below 0x20, is '\\', or is DEL (text) or
 * '"' (JSON).  The tests below say exactly whether such a byte is in the
 * word; which one is found byte by byte. */
static size_t plain_words(const unsigned char *s, size_t n,
			  enum escape_mode mode)
{
	const uint64_t ones = 0x0101010101010101ull;
	const uint64_t highs = 0x8080808080808080ull;
	const uint64_t other = ones * (mode == ESCAPE_JSON ? '"' : 0x7f);
	size_t i = 0;

	if (mode != ESCAPE_TEXT && mode != ESCAPE_JSON)
		return 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w, b, q;
		memcpy(&w, s + i, 8);
		if (w & highs)
			break;
		b = w ^ (ones * '\\');
		q = w ^ other;
		if (((w - ones * 0x20) | (b - ones) | (q - ones)) &
		    ~(w & b & q) & highs)
			break;
	}
	return i;
}

void outbuf_escaped(struct outbuf *o, const char *str, size_t n,
		    enum escape_mode mode)
{
	const unsigned char *s = (const unsigned char *)str;
	const bool *ok = plain_row(mode);
	size_t run = 0, i = 0;

	while (i < n) {
		size_t len;
		i += plain_words(s + i, n - i, mode);
		while (i < n && s[i] < 0x80 && ok[s[i]])
			i++;
		if (i == n)
			break;
		if (s[i] < 0x80) {
			outbuf_write(o, s + run, i - run);
			put_special(o, s[i], mode);
			run = ++i;
			continue;
		}
		len = utf8_sequence(s + i, n - i);
		if (len != 0 && (mode == ESCAPE_JSON || mode == ESCAPE_UTF8 ||
				 !is_c1(s + i))) {
			i += len;
			continue;
		}
		outbuf_write(o, s + run, i - run);
		if (len == 0 && mode == ESCAPE_JSON) {
			outbuf_write(o, "\\ufffd", 6);
			i++;
		} else if (len == 0 && mode == ESCAPE_UTF8) {
			outbuf_write(o, "\xef\xbf\xbd", 3);
			i++;
		} else {
			/* not UTF-8 (one byte), or a C1 control (two) */
			for (size_t k = 0; k < (len ? len : 1); k++)
				put_c_escape(o, s[i++], mode);
		}
		run = i;
	}
	outbuf_write(o, s + run, n - run);
}

bool escape_needed(const char *str, size_t n, enum escape_mode mode)
{
	const unsigned char *s = (const unsigned char *)str;
	const bool *ok = plain_row(mode);

	for (size_t i = 0; i < n;) {
		size_t len;
		if (s[i] < 0x80) {
			if (!ok[s[i]])
				return true;
			i++;
			continue;
		}
		len = utf8_sequence(s + i, n - i);
		if (len == 0 || (mode != ESCAPE_JSON && mode != ESCAPE_UTF8 &&
				 is_c1(s + i)))
			return true;
		i += len;
	}
	return false;
}

void outbuf_json_str(struct outbuf *o, const char *s, size_t n)
{
	outbuf_putc(o, '"');
	outbuf_escaped(o, s, n, ESCAPE_JSON);
	outbuf_putc(o, '"');
}
