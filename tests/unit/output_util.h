/* SPDX-License-Identifier: GPL-2.0 */
/*
 * output_util.h - what the tests of the output writers share: a stream in
 * memory to write to and read back, and a stream on which every write
 * fails.
 */
#ifndef OUTPUT_UTIL_H
#define OUTPUT_UTIL_H

#include "test_util.h"

/* Open it, let the code under test write to its f, then take the text. */
struct memout {
	FILE *f;
	char *text;
	size_t len;
};

static inline FILE *memout__open(struct memout *m)
{
	*m = (struct memout){ 0 };
	m->f = open_memstream(&m->text, &m->len);
	cr_assert_not_null(m->f);
	return m->f;
}

/* Close the stream: what was written, NUL-terminated (m->len bytes); free() it. */
static inline char *memout__text(struct memout *m)
{
	cr_assert_eq(fclose(m->f), 0);
	return m->text;
}

/* /dev/full, unbuffered: the first write fails, with ENOSPC, inside the call under test. */
static inline FILE *full_stream(void)
{
	FILE *f = fopen("/dev/full", "w");

	if (!f)
		skip_unless_ci("no /dev/full");
	setvbuf(f, NULL, _IONBF, 0);
	return f;
}

#endif /* OUTPUT_UTIL_H */
