// SPDX-License-Identifier: GPL-2.0
/*
 * test_py_linetable.c - lines from CPython's location tables
 * (python/py_linetable.c): every code unit of every code object of a
 * source made to use each form, against the line CPython itself gives
 * (co_lines(), written by tests/fixtures/py_linetable.py with Debian's
 * python3 when the fixtures are made); tables cut short and corrupt.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "python/py_linetable.h"
#include "test_util.h"

#define FIXTURE_LINES FIXTURE_DIR "/py_linetable.txt"

struct code {
	int32_t first;
	uint8_t table[8192];
	size_t len;
	uint32_t nr;
	int lines[4096];
	char name[128];
};

/* The next code object of f in *c; false at the end. */
static bool next_code(FILE *f, struct code *c)
{
	char hex[2 * sizeof(c->table) + 1], line[64];
	unsigned int u;
	int l;

	if (fscanf(f, " code %d %16384s %127s", &c->first, hex, c->name) != 3)
		return false;
	c->len = strlen(hex) / 2;
	cr_assert_leq(c->len, sizeof(c->table));
	for (size_t i = 0; i < c->len; i++) {
		cr_assert_eq(sscanf(hex + 2 * i, "%2x", &u), 1);
		c->table[i] = (uint8_t)u;
	}
	c->nr = 0;
	while (fscanf(f, " %63s", line) == 1 && strcmp(line, "end")) {
		cr_assert_eq(sscanf(line, "%u", &u), 1);
		cr_assert_eq(fscanf(f, " %d", &l), 1);
		cr_assert_eq(u, c->nr);
		cr_assert_lt(c->nr, sizeof(c->lines) / sizeof(c->lines[0]));
		c->lines[c->nr++] = l;
	}
	return true;
}

Test(py_linetable, every_code_unit_as_cpython_says)
{
	FILE *f = fopen(FIXTURE_LINES, "re");
	static struct code c;
	unsigned int codes = 0, units = 0, far = 0, none = 0;

	cr_assert_not_null(f, "open '%s'", FIXTURE_LINES);
	while (next_code(f, &c)) {
		for (uint32_t u = 0; u < c.nr; u++) {
			int got = py_linetable__line(c.table, c.len, c.first, u);

			cr_expect_eq(got, c.lines[u], "%s: code unit %u: line %d, CPython says %d",
				     c.name, u, got, c.lines[u]);
			units++;
			far += c.lines[u] > c.first + 100;
			none += !c.lines[u];
		}
		/* past the code: no line */
		cr_expect_eq(py_linetable__line(c.table, c.len, c.first, c.nr + 8), 0);
		codes++;
	}
	fclose(f);
	/* the fixture did exercise what it is for */
	cr_assert_geq(codes, 8);
	cr_assert_geq(units, 300);
	cr_expect_gt(far, 0, "no line far from its function's first");
	cr_expect_gt(none, 0, "no instruction without a line");
}

/* A table cut anywhere gives the line of the whole one, or none: never another. */
Test(py_linetable, cut_tables_give_their_line_or_none)
{
	FILE *f = fopen(FIXTURE_LINES, "re");
	static struct code c;

	cr_assert_not_null(f);
	while (next_code(f, &c))
		for (size_t cut = 0; cut < c.len; cut++)
			for (uint32_t u = 0; u < c.nr; u++) {
				int got = py_linetable__line(c.table, cut, c.first, u);

				cr_expect(got == 0 || got == c.lines[u],
					  "%s cut at %zu: code unit %u gives %d, not %d", c.name,
					  cut, u, got, c.lines[u]);
			}
	fclose(f);
}

/* Each form, by hand: its change of line, and its length in code units. */
Test(py_linetable, each_form)
{
	static const uint8_t t[] = {
		0x80 | 0 << 3 | 1, 0x05,		/* short, 2 units: line 10 */
		0x80 | 12 << 3 | 0, 0x01, 0x02,		/* one line +2: 12 */
		0x80 | 13 << 3 | 2, 0x07,		/* no columns, -3: 9 */
		0x80 | 15 << 3 | 0,			/* no location */
		0x80 | 14 << 3 | 0, 0x40 | 0x08, 0x02,	/* long, +(8 | 2 << 6) / 2 = +68: 77 */
		0x00, 0x01, 0x01,
	};

	cr_expect_eq(py_linetable__line(t, sizeof(t), 10, 0), 10);
	cr_expect_eq(py_linetable__line(t, sizeof(t), 10, 1), 10);
	cr_expect_eq(py_linetable__line(t, sizeof(t), 10, 2), 12);
	cr_expect_eq(py_linetable__line(t, sizeof(t), 10, 3), 9);
	cr_expect_eq(py_linetable__line(t, sizeof(t), 10, 5), 9);
	cr_expect_eq(py_linetable__line(t, sizeof(t), 10, 6), 0);
	cr_expect_eq(py_linetable__line(t, sizeof(t), 10, 7), 77);
	cr_expect_eq(py_linetable__line(t, sizeof(t), 10, 8), 0);
}

Test(py_linetable, corrupt_tables_give_no_line)
{
	/* a first byte without its top bit */
	static const uint8_t no_top[] = { 0x05, 0x80 };
	/* a varint that never ends */
	static const uint8_t endless[] = { 0x80 | 13 << 3, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f };
	/* lines past what an int holds, or before the first */
	static const uint8_t huge[] = { 0x80 | 13 << 3, 0x7e, 0x7f, 0x7f, 0x7f, 0x7f, 0x3f };
	static const uint8_t negative[] = { 0x80 | 13 << 3, 0x15 };

	cr_expect_eq(py_linetable__line(no_top, sizeof(no_top), 1, 0), 0);
	cr_expect_eq(py_linetable__line(endless, sizeof(endless), 1, 0), 0);
	cr_expect_eq(py_linetable__line(huge, sizeof(huge), 1, 0), 0);
	cr_expect_eq(py_linetable__line(negative, sizeof(negative), 5, 0), 0);
	cr_expect_eq(py_linetable__line(NULL, 0, 5, 0), 0);
}
