// SPDX-License-Identifier: GPL-2.0
/*
 * ksyms.c - /proc/kallsyms parser. Names, module names and the printed
 * labels of module symbols ("name [module]") are kept in one
 * string pool (no fixed-size name buffers), symbols sorted by address.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/ksyms.h"
#include "symbols/sym_alias.h"
#include "trace_helpers.h"

struct ksyms {
	struct ksym *syms;
	size_t nr, cap;
	char *pool;		/* all names, NUL-separated */
	size_t pool_len, pool_cap;
	size_t nr_hidden;	/* text symbols read with address 0 */
};

/* The file loader reads this much at a time (ksyms__load_fd). */
#define LOAD_BUF (64 * 1024)

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

static bool is_text_type(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

/* The fields of one kallsyms line, pointing into it. */
struct kline {
	uint64_t addr;
	char type;
	const char *name, *mod;		/* mod: NULL for the kernel image */
	size_t name_len, mod_len;
};

/* "addr type name[\t[module]]". Returns 0, or -EINVAL for what is not such a line. */
static int kline__parse(struct kline *k, const char *line, size_t len)
{
	const char *p = line, *end = line + len, *close;

	if (parse_hex(&p, end, &k->addr) || k->addr > ULONG_MAX ||
	    end - p < 4 || p[0] != ' ' || p[2] != ' ')
		return -EINVAL;
	k->type = p[1];
	k->name = p + 3;
	for (p = k->name; p < end && *p != '\t' && *p != ' '; p++)
		;
	k->name_len = p - k->name;
	while (p < end && (*p == '\t' || *p == ' '))
		p++;
	k->mod = NULL;
	k->mod_len = 0;
	if (p < end && *p == '[' && (close = memchr(p, ']', end - p))) {
		k->mod = p + 1;
		k->mod_len = close - k->mod;
	}
	return k->name_len ? 0 : -EINVAL;
}

/* The module's pool offset: consecutive lines share their module, stored once. */
static int add_module(struct ksyms *ks, const struct kline *k, uintptr_t *last_mod_off,
		      uintptr_t *off)
{
	const char *last = *last_mod_off == POOL_NONE ? NULL : ks->pool + *last_mod_off;
	int err;

	if (last && strlen(last) == k->mod_len && !memcmp(last, k->mod, k->mod_len)) {
		*off = *last_mod_off;
		return 0;
	}
	err = pool_add(ks, k->mod, k->mod_len, off);
	if (!err)
		*last_mod_off = *off;
	return err;
}

/* A module's symbol prints as "name [module]"; over-long ones print bare. */
static int add_label(struct ksyms *ks, const struct kline *k, uintptr_t *off)
{
	char label[1024];
	int n = snprintf(label, sizeof(label), "%.*s [%.*s]", (int)k->name_len, k->name,
			 (int)k->mod_len, k->mod);

	if (n <= 0 || (size_t)n >= sizeof(label))
		return 0;
	return pool_add(ks, label, n, off);
}

/*
 * The longest line read: the file loader's buffer less its newline. Names
 * are at most 512 bytes; what is longer is no kallsyms line, and the
 * buffer and file loaders skip it alike.
 */
#define MAX_LINE (LOAD_BUF - 1)

/* One line -> one symbol; lines that are not text symbols are skipped. */
static int parse_line(struct ksyms *ks, const char *line, size_t len, uintptr_t *last_mod_off)
{
	uintptr_t name_off, mod_off = POOL_NONE, label_off;
	struct kline k;
	int err;

	if (len > MAX_LINE || kline__parse(&k, line, len) || !is_text_type(k.type))
		return 0;
	if (!k.addr) {
		/* kptr_restrict: the kernel shows this reader no address */
		ks->nr_hidden++;
		return 0;
	}
	err = array_reserve((void **)&ks->syms, &ks->cap, ks->nr, sizeof(*ks->syms));
	if (!err)
		err = pool_add(ks, k.name, k.name_len, &name_off);
	if (err)
		return err;
	label_off = name_off;
	if (k.mod) {
		err = add_module(ks, &k, last_mod_off, &mod_off);
		if (!err)
			err = add_label(ks, &k, &label_off);
		if (err)
			return err;
	}
	ks->syms[ks->nr++] = (struct ksym){
		.addr = k.addr,
		.name = (const char *)name_off,
		.module = (const char *)mod_off,
		.label = (const char *)label_off,
	};
	return 0;
}

/*
 * By address; aliases at one address worst name first, as ksyms__find
 * returns the last of them (sym_alias.h: the order of the lines and
 * qsort's ties must not choose).
 */
static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return (x->addr > y->addr) - (x->addr < y->addr);
	return -sym_alias__name_cmp(x->name, y->name);
}

/*
 * Sort by ksym_cmp. The kernel image's lines come sorted, the modules'
 * and BPF programs' after them do not: only that tail is sorted, then
 * merged in (a full sort of 120k symbols was a tenth of the reading).
 */
static int sort_syms(struct ksyms *ks)
{
	size_t k = 1, i, j, o = 0;
	struct ksym *merged;

	while (k < ks->nr && ksym_cmp(&ks->syms[k - 1], &ks->syms[k]) <= 0)
		k++;
	if (k >= ks->nr)
		return 0;
	qsort(ks->syms + k, ks->nr - k, sizeof(*ks->syms), ksym_cmp);
	merged = malloc(ks->nr * sizeof(*merged));
	if (!merged)
		return -ENOMEM;
	for (i = 0, j = k; i < k || j < ks->nr;) {
		if (j == ks->nr || (i < k && ksym_cmp(&ks->syms[i], &ks->syms[j]) <= 0))
			merged[o++] = ks->syms[i++];
		else
			merged[o++] = ks->syms[j++];
	}
	free(ks->syms);
	ks->syms = merged;
	ks->cap = ks->nr;
	return 0;
}

/* Pool offsets become pointers (the pool no longer moves), then sort. */
static int finish(struct ksyms *ks)
{
	if (!ks->nr)
		return ks->nr_hidden ? -EPERM : -ENOENT;
	for (size_t i = 0; i < ks->nr; i++) {
		uintptr_t n = (uintptr_t)ks->syms[i].name;
		uintptr_t m = (uintptr_t)ks->syms[i].module;
		uintptr_t l = (uintptr_t)ks->syms[i].label;

		ks->syms[i].name = ks->pool + n;
		ks->syms[i].label = ks->pool + l;
		ks->syms[i].module = m == POOL_NONE ? NULL : ks->pool + m;
	}
	return sort_syms(ks);
}

/* The loaded table sorted, or NULL with errno after err or a failed finish. */
static struct ksyms *finish_or_free(struct ksyms *ks, int err)
{
	if (!err)
		err = finish(ks);
	if (err) {
		ksyms__free(ks);
		errno = -err;
		return NULL;
	}
	return ks;
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
	return finish_or_free(ks, err);
}

/*
 * The complete lines of buf[0, *have) parsed, the partial last one moved
 * to the front. A line that fills the buffer is no kallsyms line (names
 * are at most 512 bytes): dropped up to its end, *skipping till then.
 */
static int parse_lines(struct ksyms *ks, char *buf, size_t *have, size_t size, bool *skipping,
		       uintptr_t *last_mod_off)
{
	char *p = buf, *end = buf + *have, *nl;
	int err = 0;

	while (!err && (nl = memchr(p, '\n', end - p))) {
		if (!*skipping)
			err = parse_line(ks, p, nl - p, last_mod_off);
		*skipping = false;
		p = nl + 1;
	}
	*have = end - p;
	memmove(buf, p, *have);
	if (*have == size) {
		*have = 0;
		*skipping = true;
	}
	return err;
}

struct ksyms *ksyms__load_fd(int fd)
{
	enum { BUF = LOAD_BUF };
	uintptr_t last_mod_off = POOL_NONE;
	struct ksyms *ks;
	bool skipping = false;
	size_t have = 0;
	char *buf;
	ssize_t n;
	int err = 0;

	ks = calloc(1, sizeof(*ks));
	buf = malloc(BUF);
	if (!ks || !buf) {
		free(ks);
		free(buf);
		errno = ENOMEM;
		return NULL;
	}
	while (!err && (n = read(fd, buf + have, BUF - have)) != 0) {
		if (n < 0) {
			if (errno != EINTR)
				err = -errno;
			continue;
		}
		have += n;
		err = parse_lines(ks, buf, &have, BUF, &skipping, &last_mod_off);
	}
	/* a last line without its newline */
	if (!err && have && !skipping)
		err = parse_line(ks, buf, have, &last_mod_off);
	free(buf);
	return finish_or_free(ks, err);
}

struct ksyms *ksyms__load_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct ksyms *ks;
	int err;

	if (fd < 0)
		return NULL;
	ks = ksyms__load_fd(fd);
	err = errno;
	close(fd);
	errno = err;
	return ks;
}

int ksyms__write_image(const struct ksyms *ks, FILE *f)
{
	for (size_t i = 0; i < ks->nr; i++) {
		if (!ks->syms[i].module &&
		    fprintf(f, "%016lx t %s\n", ks->syms[i].addr, ks->syms[i].name) < 0)
			return -EIO;
	}
	return 0;
}

struct ksyms *ksyms__load(void)
{
	return ksyms__load_file("/proc/kallsyms");
}

/*
 * Modules whose every symbol is an allocation of its own: trampolines and
 * the like. BPF programs are packed one after the other (bpf_prog_pack),
 * so, as perf does, one runs to the next program, and only the last one
 * known is bounded like the last symbol of a module: a program loaded
 * since the reading lands after it, misses, and is read again.
 */
static bool separate_images(const char *module)
{
	return module && !strncmp(module, "__builtin__", 11);
}

static bool same_image(const struct ksym *a, const struct ksym *b)
{
	if (!a->module || !b->module)
		return !a->module && !b->module;
	if (separate_images(a->module))
		return false;
	return a->module == b->module || !strcmp(a->module, b->module);
}

#define PAGE_BYTES 4096UL

/*
 * The last address of syms[i]: kallsyms gives no sizes. A symbol runs to
 * the next one of its image (the kernel's text, one module). The last one
 * of its image has at most the rest of its page and the page after it, as
 * perf gives it: beyond lies other memory, or code loaded since the
 * reading. syms[i] is the last of its address: the next one starts above.
 */
static unsigned long ksym_last(const struct ksyms *ks, size_t i)
{
	const struct ksym *s = &ks->syms[i], *next = i + 1 < ks->nr ? s + 1 : NULL;
	unsigned long page = s->addr & ~(PAGE_BYTES - 1), last = page + 2 * PAGE_BYTES - 1;

	if (last < page)
		last = ULONG_MAX;	/* the top of the address space */
	if (next && (same_image(s, next) || next->addr <= last))
		return next->addr - 1;
	return last;
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
	return addr <= ksym_last(ks, lo) ? &ks->syms[lo] : NULL;
}

size_t ksyms__count(const struct ksyms *ks)
{
	return ks ? ks->nr : 0;
}

const struct ksym *ksyms__at(const struct ksyms *ks, size_t i)
{
	return &ks->syms[i];
}

void ksyms__free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->pool);
	free(ks);
}
