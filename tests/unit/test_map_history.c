// SPDX-License-Identifier: GPL-2.0
/*
 * test_map_history.c - the mappings of one process generation across
 * readings: what a later reading lacks stays findable (dlclose), a range
 * reused by another file is told apart by the time of the sample, and
 * what is kept stays bounded.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/map_history.h"

/* Stand-ins for two mapped files: only their addresses are compared. */
static char file_a, file_b, file_c;
#define MOD(x) ((struct module *)&(x))

#define LIB 0x7f0000001000ULL
#define EXE 0x400000ULL

static struct umap *reading(size_t nr, const struct umap *maps)
{
	struct umap *copy = calloc(nr ? nr : 1, sizeof(*copy));

	cr_assert_not_null(copy);
	if (nr)		/* maps is NULL for an empty reading: memcpy must not see it */
		memcpy(copy, maps, nr * sizeof(*copy));
	return copy;
}

static struct umap map(uint64_t start, uint64_t end, char *file)
{
	return (struct umap){ .start = start, .end = end, .mod = MOD(*file), .kind = UMAP_FILE };
}

Test(map_history, finds_what_the_latest_reading_maps)
{
	struct map_history h = {};
	struct umap r[] = { map(EXE, EXE + 0x1000, &file_a), map(LIB, LIB + 0x2000, &file_b) };

	cr_assert_eq(map_history__update(&h, reading(2, r), 2, 100), 0);
	cr_assert_eq(map_history__find(&h, EXE + 5, 0, 200)->mod, MOD(file_a));
	cr_assert_eq(map_history__find(&h, LIB + 0x1fff, 0, 200)->mod, MOD(file_b));
	cr_assert_null(map_history__find(&h, LIB + 0x2000, 0, 200));
	cr_assert_null(map_history__find(&h, EXE - 1, 0, 200));
	map_history__release(&h);
}

Test(map_history, a_mapping_gone_later_still_names_its_samples)
{
	struct map_history h = {};
	struct umap before[] = { map(EXE, EXE + 0x1000, &file_a), map(LIB, LIB + 0x2000, &file_b) };
	struct umap after[] = { map(EXE, EXE + 0x1000, &file_a) };
	const struct umap *m;

	map_history__update(&h, reading(2, before), 2, 100);
	map_history__update(&h, reading(1, after), 1, 200);
	/* a sample taken after the dlclose'd library was last seen: still it */
	m = map_history__find(&h, LIB + 0x10, 250, 300);
	cr_assert_not_null(m);
	cr_assert_eq(m->mod, MOD(file_b));
	cr_assert_eq(m->seen_ns, 100);
	cr_assert_eq(m->last_ns, 100);
	cr_assert_eq(map_history__size(&h), 2);
	map_history__release(&h);
}

Test(map_history, a_mapping_seen_again_is_one_mapping_seen_longer)
{
	struct map_history h = {};
	struct umap r[] = { map(EXE, EXE + 0x1000, &file_a) };
	const struct umap *m;

	for (uint64_t t = 100; t <= 500; t += 100)
		map_history__update(&h, reading(1, r), 1, t);
	cr_assert_eq(map_history__size(&h), 1);
	m = map_history__find(&h, EXE, 0, 0);
	cr_assert_eq(m->seen_ns, 100);
	cr_assert_eq(m->last_ns, 500);
	map_history__release(&h);
}

/* file_b at LIB, dlclose'd; file_c dlopen'ed at the same range later. */
static void reused_range(struct map_history *h)
{
	struct umap r1[] = { map(EXE, EXE + 0x1000, &file_a), map(LIB, LIB + 0x2000, &file_b) };
	struct umap r2[] = { map(EXE, EXE + 0x1000, &file_a), map(LIB, LIB + 0x2000, &file_c) };

	map_history__update(h, reading(2, r1), 2, 1000);
	map_history__update(h, reading(2, r1), 2, 2000);
	map_history__update(h, reading(2, r2), 2, 5000);
	map_history__update(h, reading(2, r2), 2, 6000);
}

Test(map_history, a_reused_range_names_the_file_seen_closest_to_the_sample)
{
	struct map_history h = {};

	reused_range(&h);
	/* taken while the readings saw file_b */
	cr_assert_eq(map_history__find(&h, LIB + 1, 1500, 1900)->mod, MOD(file_b));
	/* just after file_b's last reading, long before file_c's first */
	cr_assert_eq(map_history__find(&h, LIB + 1, 2000, 2500)->mod, MOD(file_b));
	/* just before file_c's first reading */
	cr_assert_eq(map_history__find(&h, LIB + 1, 4000, 4900)->mod, MOD(file_c));
	/* after the last reading */
	cr_assert_eq(map_history__find(&h, LIB + 1, 7000, 8000)->mod, MOD(file_c));
	/* a window spanning both: the current mapping */
	cr_assert_eq(map_history__find(&h, LIB + 1, 1000, 6000)->mod, MOD(file_c));
	/* the rest of the process is not disturbed */
	cr_assert_eq(map_history__find(&h, EXE + 1, 1500, 1900)->mod, MOD(file_a));
	map_history__release(&h);
}

/* A, then B, then A again at one range: B's time stays B's. */
Test(map_history, a_range_swapped_back_and_forth_keeps_each_period)
{
	struct map_history h = {};
	struct umap a[] = { map(LIB, LIB + 0x1000, &file_a) };
	struct umap b[] = { map(LIB, LIB + 0x1000, &file_b) };

	map_history__update(&h, reading(1, a), 1, 100);
	map_history__update(&h, reading(1, b), 1, 200);
	map_history__update(&h, reading(1, a), 1, 300);
	map_history__update(&h, reading(0, NULL), 0, 400);
	cr_assert_eq(map_history__find(&h, LIB, 195, 205)->mod, MOD(file_b));
	cr_assert_eq(map_history__find(&h, LIB, 95, 105)->mod, MOD(file_a));
	cr_assert_eq(map_history__find(&h, LIB, 295, 305)->mod, MOD(file_a));
	map_history__release(&h);
}

Test(map_history, gone_mappings_are_bounded_keeping_the_most_recent)
{
	struct map_history h = {};

	/* each reading maps one library at a new place: all but one gone */
	for (uint64_t i = 0; i < MAP_HISTORY_MAX_GONE + 10; i++) {
		struct umap r[] = { map(LIB + i * 0x1000, LIB + (i + 1) * 0x1000, &file_b) };

		map_history__update(&h, reading(1, r), 1, 100 + i);
	}
	cr_assert_eq(h.nr_gone, MAP_HISTORY_MAX_GONE);
	cr_assert_eq(h.nr_dropped, 9);	/* the last reading is current, not gone */
	/* the oldest were forgotten, the newest kept */
	cr_assert_null(map_history__find(&h, LIB, 0, 0));
	cr_assert_not_null(map_history__find(&h, LIB + (MAP_HISTORY_MAX_GONE + 8) * 0x1000, 0, 0));
	map_history__release(&h);
}

Test(map_history, an_empty_history_finds_nothing)
{
	struct map_history h = {};

	cr_assert_null(map_history__find(&h, LIB, 0, UINT64_MAX));
	cr_assert_eq(map_history__update(&h, reading(0, NULL), 0, 10), 0);
	cr_assert_null(map_history__find(&h, LIB, 0, UINT64_MAX));
	map_history__release(&h);
}
