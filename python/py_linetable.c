// SPDX-License-Identifier: GPL-2.0
/*
 * py_linetable.c - lines from a CPython location table (py_linetable.h).
 *
 * The table (3.11 on) is a sequence of entries, each covering 1 to 8
 * code units. An entry's first byte has its top bit set; bits 3-6 say
 * its form, bits 0-2 its length in code units, less one. The forms:
 *   15      no location: the instructions have no line;
 *   14      long: the line's change (a signed varint), then the end
 *           line's change and the two columns (varints);
 *   13      no columns: the line's change (a signed varint);
 *   10-12   one line: the line changes by form - 10, two column bytes;
 *   0-9     short: the same line, one column byte.
 * A varint is 6-bit chunks, least significant first, bit 6 set in every
 * chunk but the last; a signed one is an unsigned one whose bit 0 is the
 * sign. The line starts at the code object's first line.
 */
#include <stdbool.h>

#include "python/py_linetable.h"

enum {
	FORM_NONE = 15,
	FORM_LONG = 14,
	FORM_NO_COLUMNS = 13,
	FORM_ONE_LINE0 = 10,
	FORM_ONE_LINE2 = 12,
};

/* More chunks than an int's bits need make no varint here. */
#define VARINT_MAX_CHUNKS 6

/* The varint at table[*pos, len) in *v, *pos past it; false when it runs off. */
static bool varint(const uint8_t *table, size_t len, size_t *pos, uint64_t *v)
{
	uint64_t val = 0;

	for (unsigned int i = 0; i < VARINT_MAX_CHUNKS; i++) {
		uint8_t b;

		if (*pos >= len)
			return false;
		b = table[(*pos)++];
		val |= (uint64_t)(b & 63) << (6 * i);
		if (!(b & 64)) {
			*v = val;
			return true;
		}
	}
	return false;
}

/* How far the entry whose first byte is at table[*pos] moves the line, *pos past its delta. */
static bool line_delta(const uint8_t *table, size_t len, size_t *pos, unsigned int form,
		       int64_t *delta)
{
	uint64_t v;

	*delta = 0;
	if (form == FORM_LONG || form == FORM_NO_COLUMNS) {
		if (!varint(table, len, pos, &v))
			return false;
		*delta = v & 1 ? -(int64_t)(v >> 1) : (int64_t)(v >> 1);
	} else if (form >= FORM_ONE_LINE0 && form <= FORM_ONE_LINE2) {
		*delta = form - FORM_ONE_LINE0;
	}
	return true;
}

int py_linetable__line(const uint8_t *table, size_t len, int32_t firstlineno, uint32_t lasti)
{
	int64_t line = firstlineno;
	uint64_t addr = 0;
	size_t pos = 0;

	while (pos < len) {
		uint8_t first = table[pos++];
		unsigned int form = (first >> 3) & 15;
		int64_t delta;

		if (!(first & 128) || !line_delta(table, len, &pos, form, &delta))
			return 0;
		line += delta;
		/* a line no file has: the table is not one */
		if (line < -(int64_t)INT32_MAX || line > INT32_MAX)
			return 0;
		addr += (first & 7) + 1;
		if (lasti < addr)
			return form == FORM_NONE || line <= 0 ? 0 : (int)line;
		/* the rest of the entry: columns, never a first byte */
		while (pos < len && !(table[pos] & 128))
			pos++;
	}
	return 0;
}
