// SPDX-License-Identifier: GPL-2.0
/*
 * folded_read.c - folded stacks into a pf_build, a line at a time, each
 * line checked whole before anything of it is added.
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "output/folded_read.h"
#include "trace_helpers.h"

#define READ_CHUNK 65536

struct reader {
	struct pf_build *b;
	struct pf_read_error *err;
	uint64_t lineno;
	struct pf_frame *frames;	/* scratch, one stack's */
	size_t cap_frames;
};

static int refuse(struct reader *r, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int refuse(struct reader *r, int ret, const char *fmt, ...)
{
	va_list ap;

	r->err->line = r->lineno;
	va_start(ap, fmt);
	vsnprintf(r->err->why, sizeof(r->err->why), fmt, ap);
	va_end(ap);
	return ret;
}

/* A whole decimal number in s[0, len) that fits in 64 bits: 0, or -EINVAL / -EOVERFLOW. */
static int parse_count(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (!len)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		unsigned int d = (unsigned char)s[i] - '0';

		if (d > 9)
			return -EINVAL;
		if (v > (UINT64_MAX - d) / 10)
			return -EOVERFLOW;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* An annotation at the end of frame [s, s + *len): dropped; true for "_[k]". */
static bool annotation(const char *s, size_t *len)
{
	if (*len > 4 && s[*len - 4] == '_' && s[*len - 3] == '[' && s[*len - 1] == ']' &&
	    strchr("kjiw", s[*len - 2])) {
		*len -= 4;
		return s[*len + 2] == 'k';
	}
	return false;
}

/* pf_build refused what the line holds: its words for why. */
static int build_failed(struct reader *r, int ret)
{
	r->err->line = r->lineno;
	pf_build__why(r->b, ret, r->err->why, sizeof(r->err->why));
	return ret;
}

/* The frames of stack s[0, len), comm first; 0 or -errno through refuse(). */
static int add_stack(struct reader *r, const char *s, size_t len, uint64_t count)
{
	const struct pf_limits *l = pf_build__limits(r->b);
	struct pf_sample smp = { .count = count };
	bool kernel = false;
	size_t nr = 0, i = 0;
	int ret;

	while (i <= len) {
		const char *f = s + i, *end = memchr(f, ';', len - i);
		size_t flen = end ? (size_t)(end - f) : len - i;
		const char *name;
		bool k;

		i += flen + 1;
		if (!flen)
			return refuse(r, -EINVAL, "empty frame (';' at %zu)", (size_t)(f - s));
		if (!smp.comm) {
			smp.comm = pf_build__str(r->b, f, flen);
			if (!smp.comm)
				goto no_memory;
			continue;
		}
		if (flen == 1 && *f == '-') {
			kernel = true;	/* -d: kernel frames from here on */
			continue;
		}
		if (nr >= l->max_frames)
			return refuse(r, -E2BIG, "more than %zu frames", l->max_frames);
		if (array_reserve((void **)&r->frames, &r->cap_frames, nr, sizeof(*r->frames)))
			return build_failed(r, -ENOMEM);
		k = annotation(f, &flen);
		name = pf_build__str(r->b, f, flen);
		if (!name)
			goto no_memory;
		r->frames[nr++] = (struct pf_frame){
			.name = name,
			.kernel = kernel || k || !strcmp(name, "[Missed Kernel Stack]"),
		};
	}
	smp.frames = r->frames;
	smp.nr_frames = nr;
	ret = pf_build__add(r->b, &smp);
	return ret ? build_failed(r, ret) : 0;
no_memory:
	return build_failed(r, errno == E2BIG ? -E2BIG : -ENOMEM);
}

/* Whether the stack s[0, len) ends in a blank and digits: a count before the count. */
static bool second_count(const char *s, size_t len)
{
	size_t i = len;

	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	return i < len && i > 0 && blank(s[i - 1]);
}

/* One line, its newline taken off: 0 or -errno through refuse(). */
static int parse_line(struct reader *r, const char *s, size_t len)
{
	size_t sp;
	uint64_t count;
	int e;

	r->lineno++;
	if (len && s[len - 1] == '\r')
		len--;
	if (memchr(s, '\0', len))
		return refuse(r, -EINVAL, "NUL byte in the line");
	if (!len)
		return 0;
	for (sp = len; sp > 0 && !blank(s[sp - 1]); sp--)
		;
	if (!sp)
		return refuse(r, -EINVAL, "no count: a line is 'frame;frame;... COUNT'");
	e = parse_count(s + sp, len - sp, &count);
	if (e) {
		int shown = len - sp < 32 ? (int)(len - sp) : 32;

		return refuse(r, -EINVAL, "count '%.*s' %s", shown, s + sp,
			      e == -EOVERFLOW ? "does not fit in 64 bits" : "is not a whole number");
	}
	while (sp > 0 && blank(s[sp - 1]))
		sp--;
	if (!sp)
		return refuse(r, -EINVAL, "no stack before the count");
	if (second_count(s, sp))
		return refuse(r, -EINVAL, "two counts: differential folded stacks are not read");
	if (!count)
		return 0;	/* nothing to add */
	return add_stack(r, s, sp, count);
}

static void reader__release(struct reader *r)
{
	free(r->frames);
}

static int too_long(struct reader *r)
{
	r->lineno++;
	return refuse(r, -E2BIG, "line longer than %zu bytes", pf_build__limits(r->b)->max_line);
}

int folded_read__buf(struct pf_build *b, const char *buf, size_t len, struct pf_read_error *err)
{
	struct reader r = { .b = b, .err = err };
	size_t max = pf_build__limits(b)->max_line;
	int ret = 0;

	*err = (struct pf_read_error){ 0 };
	pf_build__rate(b, 0, NULL);	/* folded stacks say no rate */
	while (len && !ret) {
		const char *nl = memchr(buf, '\n', len);
		size_t n = nl ? (size_t)(nl - buf) : len;

		if (n + (nl != NULL) > max) {
			ret = too_long(&r);
			break;
		}
		ret = parse_line(&r, buf, n);
		n += nl != NULL;
		buf += n;
		len -= n;
	}
	reader__release(&r);
	return ret;
}

int folded_read__stream(struct pf_build *b, FILE *f, struct pf_read_error *err)
{
	struct reader r = { .b = b, .err = err };
	size_t max = pf_build__limits(b)->max_line, have = 0, cap = max < READ_CHUNK ? READ_CHUNK : max;
	char *buf = malloc(cap);
	int ret = 0;

	*err = (struct pf_read_error){ 0 };
	if (!buf)
		return refuse(&r, -ENOMEM, "out of memory");
	pf_build__rate(b, 0, NULL);	/* folded stacks say no rate */
	while (!ret) {
		size_t got = fread(buf + have, 1, cap - have, f), start = 0;
		const char *nl;

		have += got;
		if (!got && ferror(f)) {
			ret = refuse(&r, errno ? -errno : -EIO, "read error: %s", strerror(errno ? errno : EIO));
			break;
		}
		/* the whole lines in buf */
		while (!ret && (nl = memchr(buf + start, '\n', have - start))) {
			size_t n = nl - (buf + start);

			if (n + 1 > max)
				ret = too_long(&r);
			else
				ret = parse_line(&r, buf + start, n);
			start += n + 1;
		}
		if (ret)
			break;
		memmove(buf, buf + start, have - start);
		have -= start;
		if (!got) {
			/* the end: a last line without its newline */
			if (have)
				ret = have > max ? too_long(&r) : parse_line(&r, buf, have);
			break;
		}
		if (have >= max) {
			ret = too_long(&r);
			break;
		}
	}
	free(buf);
	reader__release(&r);
	return ret;
}
