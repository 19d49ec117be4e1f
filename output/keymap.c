// SPDX-License-Identifier: GPL-2.0
/*
 * keymap.c - byte-string keys to dense indices: an open-addressing hash
 * table (linear probing) over an array of copied keys kept in insertion
 * order, so that writers can emit what they interned in a stable order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fnv.h"
#include "output/keymap.h"
#include "trace_helpers.h"

struct keymap_entry {
	char *key;
	size_t len;
	uint64_t hash;
};

struct keymap {
	struct keymap_entry *entries;
	size_t nr_entries;
	size_t cap_entries;
	size_t *slots;		/* entry index + 1; 0 is an empty slot */
	size_t nr_slots;	/* a power of two */
};

struct keymap *keymap__new(void)
{
	struct keymap *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->nr_slots = 64;
	m->slots = calloc(m->nr_slots, sizeof(*m->slots));
	if (!m->slots) {
		free(m);
		errno = ENOMEM;
		return NULL;
	}
	return m;
}

void keymap__free(struct keymap *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nr_entries; i++)
		free(m->entries[i].key);
	free(m->entries);
	free(m->slots);
	free(m);
}

static int keymap__grow_slots(struct keymap *m)
{
	size_t nr = m->nr_slots * 2, *slots;

	slots = calloc(nr, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < m->nr_entries; i++) {
		size_t s = m->entries[i].hash & (nr - 1);

		while (slots[s])
			s = (s + 1) & (nr - 1);
		slots[s] = i + 1;
	}
	free(m->slots);
	m->slots = slots;
	m->nr_slots = nr;
	return 0;
}

int keymap__find(const struct keymap *m, const void *key, size_t len, size_t *idx)
{
	uint64_t h = fnv64_bytes(key, len);

	for (size_t s = h & (m->nr_slots - 1); m->slots[s]; s = (s + 1) & (m->nr_slots - 1)) {
		const struct keymap_entry *e = &m->entries[m->slots[s] - 1];

		if (e->hash == h && e->len == len && !memcmp(e->key, key, len)) {
			*idx = m->slots[s] - 1;
			return 0;
		}
	}
	return -ENOENT;
}

int keymap__intern(struct keymap *m, const void *key, size_t len, size_t *idx)
{
	/* FNV-1a: keys are short and this is not exposed to hostile input rates */
	uint64_t h = fnv64_bytes(key, len);
	struct keymap_entry *e;
	size_t s;
	char *copy;

	for (s = h & (m->nr_slots - 1); m->slots[s]; s = (s + 1) & (m->nr_slots - 1)) {
		e = &m->entries[m->slots[s] - 1];
		if (e->hash == h && e->len == len && !memcmp(e->key, key, len)) {
			*idx = m->slots[s] - 1;
			return 0;
		}
	}

	/* keep the load factor under 1/2 so that probe runs stay short */
	if ((m->nr_entries + 1) * 2 > m->nr_slots) {
		if (keymap__grow_slots(m))
			return -ENOMEM;
		for (s = h & (m->nr_slots - 1); m->slots[s]; s = (s + 1) & (m->nr_slots - 1))
			;
	}
	if (array_reserve((void **)&m->entries, &m->cap_entries, m->nr_entries, sizeof(*e)))
		return -ENOMEM;
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, key, len);
	copy[len] = '\0';
	m->entries[m->nr_entries] = (struct keymap_entry){ .key = copy, .len = len, .hash = h };
	m->slots[s] = ++m->nr_entries;
	*idx = m->nr_entries - 1;
	return 1;
}

size_t keymap__count(const struct keymap *m)
{
	return m->nr_entries;
}

const char *keymap__key(const struct keymap *m, size_t idx, size_t *len)
{
	if (len)
		*len = m->entries[idx].len;
	return m->entries[idx].key;
}

void key__reset(struct key *k)
{
	k->len = 0;
	k->err = 0;
}

static void key__append(struct key *k, const void *data, size_t len)
{
	if (k->err)
		return;
	if (k->len + len > k->cap) {
		size_t cap = k->cap ? k->cap : 64;
		char *buf;

		while (cap < k->len + len)
			cap *= 2;
		buf = realloc(k->buf, cap);
		if (!buf) {
			k->err = -ENOMEM;
			return;
		}
		k->buf = buf;
		k->cap = cap;
	}
	memcpy(k->buf + k->len, data, len);
	k->len += len;
}

void key__add_str(struct key *k, const char *s)
{
	/* a tag byte, then the length: NULL and "" differ, "ab"+"c" != "a"+"bc" */
	uint64_t len = s ? strlen(s) : 0;
	char tag = s ? 's' : 'n';

	key__append(k, &tag, 1);
	key__append(k, &len, sizeof(len));
	if (s)
		key__append(k, s, len);
}

void key__add_u64(struct key *k, uint64_t v)
{
	char tag = 'u';

	key__append(k, &tag, 1);
	key__append(k, &v, sizeof(v));
}

void key__release(struct key *k)
{
	free(k->buf);
	*k = (struct key){ 0 };
}

int keymap__intern_key(struct keymap *m, const struct key *k, size_t *idx)
{
	if (k->err)
		return k->err;
	return keymap__intern(m, k->buf, k->len, idx);
}
