/* SPDX-License-Identifier: GPL-2.0 */
/*
 * escape.h - write arbitrary bytes (symbol names, comms, paths) as JSON
 * strings and XML text. Names come from binaries and processes we do not
 * control: they can hold control characters or invalid UTF-8, which would
 * make the whole JSON or SVG file unreadable, so both writers replace
 * each byte of an invalid sequence with U+FFFD.
 *
 * struct sink is the stream the writers write to: it keeps the first
 * error, so that writing code reads straight and checks once at the end.
 */
#ifndef ESCAPE_H
#define ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The length (1..4) of the valid UTF-8 sequence at s (n bytes available),
 * its code point in *cp; 0 when s does not start one: a stray continuation
 * byte, a truncated sequence, an overlong form, a surrogate or a code point
 * above U+10FFFF.
 */
size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

/* s as a quoted JSON string. Returns 0 or -errno from the stream. */
int escape__json(FILE *out, const char *s);

/*
 * s as XML character data or attribute value (quotes escaped too).
 * Characters XML 1.0 forbids (controls other than tab, newline, CR) become
 * U+FFFD as well. Returns 0 or -errno from the stream.
 */
int escape__xml(FILE *out, const char *s);

/*
 * s for a terminal, a log line or a text profile: control characters (C0,
 * DEL, C1 and a lone 8-bit CSI byte, escape sequences included) and the
 * bidirectional controls (U+202E...) become '?'. The one rule for names and
 * paths in the text and folded output and in messages on stderr. Returns 0
 * or -errno from the stream.
 */
int escape__text(FILE *out, const char *s);
/* escape__text(), and with folded ';' (the folded format's separator) becomes ':'. */
int escape__name(FILE *out, const char *s, bool folded);

/* A stream that keeps its first error; after one, every call does nothing. */
struct sink {
	FILE *f;
	int err;	/* 0, or the first -errno */
};

void sink__write(struct sink *k, const void *buf, size_t len);
void sink__printf(struct sink *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sink__json(struct sink *k, const char *s);	/* escape__json() */
void sink__xml(struct sink *k, const char *s);	/* escape__xml() */
/* A failure of the writer's own (-ENOMEM), kept unless one is kept already. */
void sink__fail(struct sink *k, int err);

#endif /* ESCAPE_H */
