// SPDX-License-Identifier: GPL-2.0
/*
 * escape.c - JSON and XML escaping with UTF-8 validation, and the sink
 * that keeps a stream's first error, shared by the speedscope, SVG flame
 * graph and pprof writers.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#include "common/escape.h"

#define REPLACEMENT "\xef\xbf\xbd"	/* U+FFFD in UTF-8 */
#define ESCAPE_MAX 8		/* an escape written into a buffer: "\\u001f" */

size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	uint32_t c, min;
	size_t len;

	if (!n)
		return 0;
	c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if ((c & 0xe0) == 0xc0) {
		len = 2;
		min = 0x80;
		c &= 0x1f;
	} else if ((c & 0xf0) == 0xe0) {
		len = 3;
		min = 0x800;
		c &= 0x0f;
	} else if ((c & 0xf8) == 0xf0) {
		len = 4;
		min = 0x10000;
		c &= 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

static int put(FILE *out, const void *s, size_t len)
{
	errno = 0;
	if (fwrite(s, 1, len, out) != len)
		return errno ? -errno : -EIO;
	return 0;
}

/*
 * What a terminal acts on or that reorders the text around it: C0, DEL,
 * C1 (U+0080..U+009F, 8-bit CSI included), and the bidirectional
 * controls (U+061C, U+200E/F, U+202A..U+202E, U+2066..U+2069), which make
 * a name read as another.
 */
static bool defused(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x61c || cp == 0x200e ||
	       cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/*
 * What to write for the code point cp instead of its bytes, or NULL to
 * write them as they are. buf (ESCAPE_MAX bytes) may hold the result.
 */
typedef const char *escape_fn(uint32_t cp, char *buf);

/* str through fn, with U+FFFD for each byte of an invalid sequence. */
static int escape(FILE *out, const char *str, escape_fn *fn)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), len;
	const char *rep;
	char buf[ESCAPE_MAX];
	uint32_t cp;
	int err;

	while (n) {
		len = utf8_decode(s, n, &cp);
		rep = len ? fn(cp, buf) : REPLACEMENT;
		if (rep)
			err = put(out, rep, strlen(rep));
		else
			err = put(out, s, len);
		if (err)
			return err;
		len = len ? len : 1;
		s += len;
		n -= len;
	}
	return 0;
}

static const char *json_escape(uint32_t cp, char *buf)
{
	switch (cp) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\n':
		return "\\n";
	case '\t':
		return "\\t";
	case '\r':
		return "\\r";
	}
	if (cp < 0x20 || cp == 0x7f) {
		/* DEL is legal JSON, but escaping it keeps files readable */
		snprintf(buf, ESCAPE_MAX, "\\u%04x", (unsigned)cp);
		return buf;
	}
	/* a viewer would act on them as a terminal does: names never need them */
	return defused(cp) ? REPLACEMENT : NULL;
}

int escape__json(FILE *out, const char *str)
{
	int err;

	if ((err = put(out, "\"", 1)) || (err = escape(out, str, json_escape)))
		return err;
	return put(out, "\"", 1);
}

/* XML 1.0's Char production, for the code points utf8_decode() accepts. */
static bool xml_char_ok(uint32_t cp)
{
	if (cp < 0x20)
		return cp == '\t' || cp == '\n' || cp == '\r';
	return cp != 0xfffe && cp != 0xffff;
}

static const char *xml_escape(uint32_t cp, char *buf)
{
	(void)buf;
	if (!xml_char_ok(cp) || (cp >= 0x7f && defused(cp)))
		return REPLACEMENT;
	switch (cp) {
	case '<':
		return "&lt;";
	case '>':
		return "&gt;";
	case '&':
		return "&amp;";
	case '"':
		return "&quot;";
	case '\'':
		return "&apos;";
	}
	return NULL;
}

int escape__xml(FILE *out, const char *str)
{
	return escape(out, str, xml_escape);
}

int escape__name(FILE *out, const char *s, bool folded)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s);
	int err = 0;

	while (left && !err) {
		uint32_t cp;
		size_t n = utf8_decode(p, left, &cp);

		if (n && defused(cp))
			err = put(out, "?", 1);
		else if (n && folded && cp == ';')
			err = put(out, ":", 1);
		else if (n)
			err = put(out, p, n);
		else if (*p < 0x80 || *p > 0x9f)
			err = put(out, p, 1);	/* other invalid UTF-8: as it is */
		else
			err = put(out, "?", 1);	/* a lone C1 byte: 8-bit CSI */
		n = n ? n : 1;
		p += n;
		left -= n;
	}
	return err;
}

int escape__text(FILE *out, const char *s)
{
	return escape__name(out, s, false);
}

void sink__write(struct sink *k, const void *buf, size_t len)
{
	if (!k->err)
		k->err = put(k->f, buf, len);
}

void sink__printf(struct sink *k, const char *fmt, ...)
{
	va_list ap;

	if (k->err)
		return;
	errno = 0;
	va_start(ap, fmt);
	if (vfprintf(k->f, fmt, ap) < 0)
		k->err = errno ? -errno : -EIO;
	va_end(ap);
}

void sink__json(struct sink *k, const char *s)
{
	if (!k->err)
		k->err = escape__json(k->f, s);
}

void sink__xml(struct sink *k, const char *s)
{
	if (!k->err)
		k->err = escape__xml(k->f, s);
}

void sink__fail(struct sink *k, int err)
{
	if (!k->err)
		k->err = err;
}
