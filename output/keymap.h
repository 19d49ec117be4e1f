/* SPDX-License-Identifier: GPL-2.0 */
/*
 * keymap.h - intern byte-string keys into dense indices 0, 1, 2... in
 * insertion order. The output writers use it to deduplicate strings,
 * frames, functions and mappings, and to find a child node by name,
 * then walk what they collected in the order it was first seen.
 *
 * Composite keys (module + address + name...) are built with struct key,
 * which length-prefixes every part so that no two different tuples
 * encode to the same bytes.
 */
#ifndef KEYMAP_H
#define KEYMAP_H

#include <stddef.h>
#include <stdint.h>

struct keymap;

/* NULL with errno set when out of memory. */
struct keymap *keymap__new(void);
void keymap__free(struct keymap *m);

/*
 * The index of key: an existing one, or the next free index (the number
 * of keys so far) for a new key, which is copied. Returns 1 when the key
 * was added, 0 when it was already there, -ENOMEM.
 */
int keymap__intern(struct keymap *m, const void *key, size_t len, size_t *idx);
/* The index of key in *idx when it is there: 0, or -ENOENT (nothing added). */
int keymap__find(const struct keymap *m, const void *key, size_t len, size_t *idx);
size_t keymap__count(const struct keymap *m);
/* The bytes of key idx (< keymap__count()); NUL-terminated, len not counting it. */
const char *keymap__key(const struct keymap *m, size_t idx, size_t *len);

/* A composite key under construction; zero-initialise, then key__release(). */
struct key {
	char *buf;
	size_t len;
	size_t cap;
	int err;	/* first -ENOMEM; later additions do nothing */
};

void key__reset(struct key *k);
/* A string part; NULL is a part distinct from "". */
void key__add_str(struct key *k, const char *s);
void key__add_u64(struct key *k, uint64_t v);
void key__release(struct key *k);

/* keymap__intern() of the key k holds, or k's error if building it failed. */
int keymap__intern_key(struct keymap *m, const struct key *k, size_t *idx);

#endif /* KEYMAP_H */
