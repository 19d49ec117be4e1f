// SPDX-License-Identifier: GPL-2.0
/*
 * sym_nest.c - one sweep over a sorted symbol table keeps the sized
 * functions still open at each start; where one ends inside another, the
 * other resumes there. A lookup is then one more binary search.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "symbols/sym_nest.h"
#include "trace_helpers.h"

/* From addr on, up to the next symbol's start, the address is in syms[idx]. */
struct resume {
	uint64_t addr;
	size_t idx;
};

struct sym_nest {
	struct resume *resumes;	/* sorted by addr */
	size_t nr, cap;
};

struct sweep {
	const struct elf_sym *syms;
	size_t *open;		/* the sized symbols that may still enclose, innermost last */
	size_t nr_open;
	struct sym_nest *n;
};

/* One past the symbol's last byte; UINT64_MAX where that overflows. */
static uint64_t sym_end(const struct elf_sym *s)
{
	return s->addr + s->size < s->addr ? UINT64_MAX : s->addr + s->size;
}

static bool has_nesting(const struct elf_sym *syms, size_t nr)
{
	for (size_t i = 0; i + 1 < nr; i++)
		if (syms[i].size && sym_end(&syms[i]) > syms[i + 1].addr)
			return true;
	return false;
}

static uint64_t open_end(const struct sweep *w)
{
	return sym_end(&w->syms[w->open[w->nr_open - 1]]);
}

/*
 * Close the symbols that end at or before x, the next symbol's start.
 * Where one ends before x inside another, the other resumes there.
 */
static int close_until(struct sweep *w, uint64_t x)
{
	while (w->nr_open && open_end(w) <= x) {
		uint64_t end = open_end(w);
		struct sym_nest *n = w->n;

		w->nr_open--;
		/* under it, those that ended while it was open */
		while (w->nr_open && open_end(w) <= end)
			w->nr_open--;
		if (!w->nr_open || end == x)
			continue;
		if (array_reserve((void **)&n->resumes, &n->cap, n->nr, sizeof(*n->resumes)))
			return -ENOMEM;
		n->resumes[n->nr++] = (struct resume){ .addr = end, .idx = w->open[w->nr_open - 1] };
	}
	return 0;
}

int sym_nest__build(const struct elf_sym *syms, size_t nr, struct sym_nest **out)
{
	struct sweep w = { .syms = syms };
	int err = 0;

	*out = NULL;
	if (!has_nesting(syms, nr))
		return 0;
	w.open = malloc(nr * sizeof(*w.open));
	w.n = calloc(1, sizeof(*w.n));
	if (!w.open || !w.n) {
		free(w.open);
		free(w.n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nr && !err; i++) {
		err = close_until(&w, syms[i].addr);
		if (syms[i].size)
			w.open[w.nr_open++] = i;
	}
	if (!err)
		err = close_until(&w, UINT64_MAX);
	free(w.open);
	if (err) {
		sym_nest__free(w.n);
		return err;
	}
	*out = w.n;
	return 0;
}

/*
 * The last resumption at or below vaddr holds, if it lies after syms[i]'s
 * start: no symbol starts in between, and any function that covered
 * vaddr would have been open when syms[i] ended.
 */
const struct elf_sym *sym_nest__enclosing(const struct sym_nest *n, const struct elf_sym *syms,
					  size_t i, uint64_t vaddr)
{
	size_t lo = 0, hi;
	const struct resume *r;
	const struct elf_sym *e;

	if (!n)
		return NULL;
	hi = n->nr;
	/* lo: the first resumption above vaddr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (n->resumes[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	r = &n->resumes[lo - 1];
	if (r->addr <= syms[i].addr)
		return NULL;
	e = &syms[r->idx];
	return vaddr - e->addr < e->size ? e : NULL;
}

void sym_nest__free(struct sym_nest *n)
{
	if (!n)
		return;
	free(n->resumes);
	free(n);
}
