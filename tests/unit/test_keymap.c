// SPDX-License-Identifier: GPL-2.0
/*
 * test_keymap.c - interning keys into dense indices, in insertion order,
 * through table growth; composite keys that must not collide.
 */
#include "output/keymap.h"
#include "test_util.h"

Test(keymap, indices_are_dense_and_stable_through_growth)
{
	struct keymap *m = keymap__new();
	char key[32];
	size_t idx;

	cr_assert_not_null(m);
	for (size_t i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "key-%zu", i);
		cr_assert_eq(keymap__intern(m, key, strlen(key), &idx), 1, "'%s' is not new", key);
		cr_assert_eq(idx, i);
	}
	cr_assert_eq(keymap__count(m), 5000);
	for (size_t i = 0; i < 5000; i += 7) {
		size_t len;

		snprintf(key, sizeof(key), "key-%zu", i);
		cr_assert_eq(keymap__intern(m, key, strlen(key), &idx), 0);
		cr_assert_eq(idx, i);
		cr_assert_str_eq(keymap__key(m, i, &len), key);
		cr_assert_eq(len, strlen(key));
	}
	cr_assert_eq(keymap__count(m), 5000);
	keymap__free(m);
	keymap__free(NULL);
}

Test(keymap, keys_are_bytes_not_strings)
{
	struct keymap *m = keymap__new();
	size_t a, b, c;

	cr_assert_eq(keymap__intern(m, "a\0b", 3, &a), 1);
	cr_assert_eq(keymap__intern(m, "a\0c", 3, &b), 1);
	cr_assert_eq(keymap__intern(m, "", 0, &c), 1);
	cr_assert_neq(a, b);
	cr_assert_eq(keymap__intern(m, "a", 1, &c), 1, "a prefix is another key");
	keymap__free(m);
}

static size_t intern_parts(struct keymap *m, struct key *k, const char *x, const char *y)
{
	size_t idx;

	key__reset(k);
	key__add_str(k, x);
	key__add_str(k, y);
	cr_assert_eq(k->err, 0);
	cr_assert_geq(keymap__intern(m, k->buf, k->len, &idx), 0);
	return idx;
}

Test(keymap, composite_keys_keep_their_parts_apart)
{
	struct keymap *m = keymap__new();
	struct key k = { 0 };
	size_t ids[5];

	ids[0] = intern_parts(m, &k, "ab", "c");
	ids[1] = intern_parts(m, &k, "a", "bc");
	ids[2] = intern_parts(m, &k, "abc", "");
	ids[3] = intern_parts(m, &k, "abc", NULL);
	ids[4] = intern_parts(m, &k, "", "abc");
	for (size_t i = 0; i < 5; i++)
		for (size_t j = 0; j < i; j++)
			cr_assert_neq(ids[i], ids[j], "parts %zu and %zu collide", i, j);
	cr_assert_eq(intern_parts(m, &k, "a", "bc"), ids[1]);
	key__reset(&k);
	key__add_u64(&k, 1);
	key__add_str(&k, "x");
	cr_assert_eq(k.len, 1 + 8 + 1 + 8 + 1);
	key__release(&k);
	keymap__free(m);
}
