// SPDX-License-Identifier: GPL-2.0
/*
 * ksyms.c - /proc/kallsyms parser. Names, module names and the printed
 * labels of module symbols ("name [module]") are kept in one
 * string pool (no fixed-size name buffers), symbols sorted by address.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksyms.h"
#include "trace_helpers.h"

struct ksyms {
	struct ksym *syms;
	size_t nr, cap;
	char *pool;		/* all names, NUL-separated */
	size_t pool_len, pool_cap;
};

/* Offsets into the pool while loading; turned into pointers at the end
 * because the pool moves as it grows. */
#define POOL_NONE ((uintptr_t)-1)

static int pool_add(struct ksyms *ks, const char *s, size_t len, uintptr_t *off)
{
	if (ks->pool_len + len + 1 > ks->pool_cap) {
		size_t cap = ks->pool_cap ? ks->pool_cap * 2 : 1 << 16;
		char *p;

		while (cap < ks->pool_len + len + 1)
			cap *= 2;
		p = realloc(ks->pool, cap);
		if (!p)
			return -ENOMEM;
		ks->pool = p;
		ks->pool_cap = cap;
	}
	memcpy(ks->pool + ks->pool_len, s, len);
	ks->pool[ks->pool_len + len] = '\0';
	*off = ks->pool_len;
	ks->pool_len += len + 1;
	return 0;
}

static int is_text_type(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

/* "addr type name[\t[module]]" -> one symbol; malformed lines are skipped. */
static int parse_line(struct ksyms *ks, const char *line, size_t len,
		      uintptr_t *last_mod_off)
{
	const char *p = line, *end = line + len, *name, *mod = NULL;
	size_t name_len, mod_len = 0;
	unsigned long addr = 0;
	uintptr_t name_off, mod_off = POOL_NONE, label_off;
	int digits = 0, err;
	char type;

	for (; p < end && *p != ' '; p++, digits++) {
		int v = hex_digit_value(*p);

		if (v < 0)
			return 0;
		if (digits >= (int)sizeof(addr) * 2)
			return 0;
		addr = addr << 4 | v;
	}
	if (!digits || end - p < 4 || p[0] != ' ' || p[2] != ' ')
		return 0;
	type = p[1];
	if (!addr || !is_text_type(type))
		return 0;
	name = p + 3;
	for (p = name; p < end && *p != '\t' && *p != ' '; p++)
		;
	name_len = p - name;
	if (!name_len)
		return 0;
	while (p < end && (*p == '\t' || *p == ' '))
		p++;
	if (p < end && *p == '[') {
		const char *close = memchr(p, ']', end - p);

		if (close) {
			mod = p + 1;
			mod_len = close - mod;
		}
	}

	if (ks->nr == ks->cap) {
		size_t cap = ks->cap ? ks->cap * 2 : 4096;
		struct ksym *s = realloc(ks->syms, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		ks->syms = s;
		ks->cap = cap;
	}
	err = pool_add(ks, name, name_len, &name_off);
	if (err)
		return err;
	if (mod) {
		/* consecutive lines share their module: store it once */
		const char *last = *last_mod_off == POOL_NONE ? NULL : ks->pool + *last_mod_off;

		if (last && strlen(last) == mod_len && !memcmp(last, mod, mod_len)) {
			mod_off = *last_mod_off;
		} else {
			err = pool_add(ks, mod, mod_len, &mod_off);
			if (err)
				return err;
			*last_mod_off = mod_off;
		}
	}
	label_off = name_off;
	if (mod) {
		char label[1024];
		int n = snprintf(label, sizeof(label), "%.*s [%.*s]", (int)name_len, name,
				 (int)mod_len, mod);

		if (n > 0 && (size_t)n < sizeof(label)) {
			err = pool_add(ks, label, n, &label_off);
			if (err)
				return err;
		}
	}
	ks->syms[ks->nr].addr = addr;
	ks->syms[ks->nr].name = (const char *)name_off;
	ks->syms[ks->nr].module = (const char *)mod_off;
	ks->syms[ks->nr].label = (const char *)label_off;
	ks->nr++;
	return 0;
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Pool offsets become pointers (the pool no longer moves), then sort. */
static int finish(struct ksyms *ks)
{
	if (!ks->nr)
		return -ENOENT;
	for (size_t i = 0; i < ks->nr; i++) {
		uintptr_t n = (uintptr_t)ks->syms[i].name;
		uintptr_t m = (uintptr_t)ks->syms[i].module;
		uintptr_t l = (uintptr_t)ks->syms[i].label;

		ks->syms[i].name = ks->pool + n;
		ks->syms[i].label = ks->pool + l;
		ks->syms[i].module = m == POOL_NONE ? NULL : ks->pool + m;
	}
	qsort(ks->syms, ks->nr, sizeof(*ks->syms), ksym_cmp);
	return 0;
}

struct ksyms *ksyms__load_buf(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	uintptr_t last_mod_off = POOL_NONE;
	struct ksyms *ks;
	int err = 0;

	ks = calloc(1, sizeof(*ks));
	if (!ks)
		return NULL;
	while (p < end && !err) {
		const char *nl = memchr(p, '\n', end - p);
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		err = parse_line(ks, p, l, &last_mod_off);
		p += l + 1;
	}
	if (!err)
		err = finish(ks);
	if (err) {
		ksyms__free(ks);
		errno = -err;
		return NULL;
	}
	return ks;
}

/* Line by line: /proc/kallsyms is megabytes; never hold it whole. */
struct ksyms *ksyms__load_file(const char *path)
{
	uintptr_t last_mod_off = POOL_NONE;
	struct ksyms *ks;
	size_t cap = 0;
	char *line = NULL;
	ssize_t n;
	FILE *f;
	int err = 0;

	f = fopen(path, "re");
	if (!f)
		return NULL;
	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		fclose(f);
		errno = ENOMEM;
		return NULL;
	}
	while (!err && (n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			n--;
		err = parse_line(ks, line, n, &last_mod_off);
	}
	if (!err && ferror(f))
		err = -EIO;
	free(line);
	fclose(f);
	if (!err)
		err = finish(ks);
	if (err) {
		ksyms__free(ks);
		errno = -err;
		return NULL;
	}
	return ks;
}

struct ksyms *ksyms__load(void)
{
	return ksyms__load_file("/proc/kallsyms");
}

const struct ksym *ksyms__find(const struct ksyms *ks, unsigned long addr)
{
	size_t lo = 0, hi;

	if (!ks || !ks->nr || addr < ks->syms[0].addr)
		return NULL;
	hi = ks->nr;
	/* invariant: syms[lo].addr <= addr, answer in [lo, hi) */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return &ks->syms[lo];
}

size_t ksyms__count(const struct ksyms *ks)
{
	return ks ? ks->nr : 0;
}

void ksyms__free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->pool);
	free(ks);
}
