// SPDX-License-Identifier: GPL-2.0
/*
 * escape.c - JSON and XML escaping with UTF-8 validation, shared by the
 * speedscope and SVG flame graph writers.
 */
#include <errno.h>
#include <string.h>

#include "escape.h"

#define REPLACEMENT "\xef\xbf\xbd"	/* U+FFFD in UTF-8 */

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

static int stream_err(void)
{
	return errno ? -errno : -EIO;
}

static int put(FILE *out, const void *s, size_t len)
{
	errno = 0;
	return fwrite(s, 1, len, out) == len ? 0 : stream_err();
}

int escape__json(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), len;
	char esc[8];
	uint32_t cp;
	int err;

	if ((err = put(out, "\"", 1)))
		return err;
	while (n) {
		len = utf8_decode(s, n, &cp);
		if (!len) {
			err = put(out, REPLACEMENT, 3);
			len = 1;
		} else if (cp == '"' || cp == '\\') {
			esc[0] = '\\';
			esc[1] = (char)cp;
			err = put(out, esc, 2);
		} else if (cp == '\n') {
			err = put(out, "\\n", 2);
		} else if (cp == '\t') {
			err = put(out, "\\t", 2);
		} else if (cp == '\r') {
			err = put(out, "\\r", 2);
		} else if (cp < 0x20 || cp == 0x7f) {
			/* DEL is legal JSON, but escaping it keeps files readable */
			snprintf(esc, sizeof(esc), "\\u%04x", (unsigned)cp);
			err = put(out, esc, 6);
		} else {
			err = put(out, s, len);
		}
		if (err)
			return err;
		s += len;
		n -= len;
	}
	return put(out, "\"", 1);
}

/* XML 1.0's Char production, for the code points utf8_decode() accepts. */
static int xml_char_ok(uint32_t cp)
{
	if (cp < 0x20)
		return cp == '\t' || cp == '\n' || cp == '\r';
	return cp != 0xfffe && cp != 0xffff;
}

int escape__xml(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), len;
	uint32_t cp;
	int err;

	while (n) {
		len = utf8_decode(s, n, &cp);
		if (!len || !xml_char_ok(cp)) {
			err = put(out, REPLACEMENT, 3);
			len = len ? len : 1;
		} else if (cp == '<') {
			err = put(out, "&lt;", 4);
		} else if (cp == '>') {
			err = put(out, "&gt;", 4);
		} else if (cp == '&') {
			err = put(out, "&amp;", 5);
		} else if (cp == '"') {
			err = put(out, "&quot;", 6);
		} else if (cp == '\'') {
			err = put(out, "&apos;", 6);
		} else {
			err = put(out, s, len);
		}
		if (err)
			return err;
		s += len;
		n -= len;
	}
	return 0;
}

int escape__text(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s);

	while (left) {
		uint32_t cp;
		size_t n = utf8_decode(p, left, &cp);

		/* C0, DEL and C1 (U+0080..U+009F, 8-bit CSI included) defused */
		if (n && cp >= 0x20 && (cp < 0x7f || cp > 0x9f))
			fwrite(p, 1, n, out);
		else if (n)
			fputc('?', out);
		else if (*p < 0x80 || *p > 0x9f)
			fputc(*p, out);	/* other invalid UTF-8: as it is, as before */
		else
			fputc('?', out);
		n = n ? n : 1;
		p += n;
		left -= n;
	}
	return ferror(out) ? -EIO : 0;
}
