// SPDX-License-Identifier: GPL-2.0
/*
 * go_pclntab.c - what the unwinder takes from Go's function table,
 * .gopclntab (go_pclntab.h): the Go text's range, the stack roots' ranges,
 * and rows from the pc-to-sp tables. The table is read through go_pcln.h,
 * which checks every offset and count against its size.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/go_pcln.h"
#include "unwind/go_pclntab.h"

/* Steps of the pc-to-sp programs one table may run: Go shares one among functions */
#define GO_SP_STEPS (4ull * CFI_TABLE_MAX_ROWS)

/* The functions a Go stack starts at; ABI0 ones may carry ".abi0" in .symtab. */
static const char *const root_names[] = { "runtime.goexit", "runtime.mstart", "runtime.rt0_go" };

bool go_pclntab__is_root(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(root_names) / sizeof(root_names[0]); i++) {
		size_t l = strlen(root_names[i]);

		if (n < l || memcmp(s, root_names[i], l))
			continue;
		if (n == l || (n == l + 5 && !memcmp(s + l, ".abi0", 5)))
			return true;
	}
	return false;
}

void go_info__add_root(struct go_info *g, uint64_t lo, uint64_t hi)
{
	if (g->nr_roots < GO_MAX_ROOTS && lo < hi)
		g->roots[g->nr_roots++] = (struct go_range){ lo, hi };
}

int go_pclntab__parse(const uint8_t *data, size_t size, struct go_info *g)
{
	struct go_pcln p;
	struct go_func f;
	int err;

	memset(g, 0, sizeof(*g));
	err = go_pcln__open(&p, data, size);
	if (err)
		return err;
	for (uint64_t i = 0; i < p.nfunc; i++) {
		/* sorted, every record where its entry says: else not a table */
		if (go_pcln__func(&p, i, &f)) {
			memset(g, 0, sizeof(*g));
			return -ENOEXEC;
		}
		if (go_pclntab__is_root(f.name, f.name_len))
			go_info__add_root(g, f.lo, f.hi);
		if (!i)
			g->text.lo = f.lo;
	}
	g->text.hi = go_pcln__end(&p);
	if (g->text.lo >= g->text.hi) {
		memset(g, 0, sizeof(*g));
		return -ENOEXEC;
	}
	return 0;
}

/* Whether two rows say the same but for pc. */
static bool same_rule(const struct unwind_row *a, const struct unwind_row *b)
{
	struct unwind_row x = *a, y = *b;

	x.pc = y.pc = 0;
	return !memcmp(&x, &y, sizeof(x));
}

int go_rows__push(struct go_rows *v, const struct unwind_row *r)
{
	struct unwind_row *grown;
	size_t cap;

	/* rows hold until the next: one that says what the last says adds nothing */
	if (v->n && same_rule(&v->r[v->n - 1], r))
		return 0;
	/* nor does one of no rule at the start */
	if (!v->n && r->cfa_rule == UNW_CFA_NONE)
		return 0;
	/* a row at the last one's pc replaces it */
	if (v->n && v->r[v->n - 1].pc == r->pc) {
		v->r[v->n - 1] = *r;
		if (v->n > 1 && same_rule(&v->r[v->n - 2], r))
			v->n--;
		return 0;
	}
	if (v->n == v->cap) {
		if (v->cap >= CFI_TABLE_MAX_ROWS)
			return -EFBIG;
		cap = v->cap ? 2 * v->cap : 1024;
		grown = reallocarray(v->r, cap, sizeof(*v->r));
		if (!grown)
			return -ENOMEM;
		v->r = grown;
		v->cap = cap;
	}
	v->r[v->n++] = *r;
	return 0;
}

/*
 * The rows of the function f from its pc-to-sp program (go_pcln.h): the
 * CFA is rsp + the value + 8; what it does not say is a row of no rule.
 * *work: steps left to run.
 */
static int sp_rows_of(const struct go_pcln *p, const struct go_func *f, struct go_rows *v,
		      uint64_t *work)
{
	struct go_pcvalue it;
	uint64_t pc = f->lo, lo, hi;
	struct unwind_row r;
	uint32_t off;
	int64_t val;
	int err = 0;

	if (go_pcln__field(p, f, GO_FUNC_PCSP, &off) && go_pcvalue__start(&it, p, off, f->lo)) {
		while (!err && pc < f->hi && go_pcvalue__next(&it, &lo, &hi, &val)) {
			if (!*work)
				return budget__refuse("Go's pc-to-sp tables run over %llu steps",
						      (unsigned long long)GO_SP_STEPS);
			(*work)--;
			if (val >= 0 && val <= INT32_MAX - 8)
				r = (struct unwind_row){ .pc = (uint32_t)lo, .cfa_rule = UNW_CFA_SP,
							 .cfa_off = (int32_t)val + 8, .ra_off = -8 };
			else
				r = (struct unwind_row){ .pc = (uint32_t)lo, .cfa_rule = UNW_CFA_NONE };
			err = go_rows__push(v, &r);
			pc = hi;
		}
	}
	if (!err && pc < f->hi)
		err = go_rows__push(v, &(struct unwind_row){ .pc = (uint32_t)pc, .cfa_rule = UNW_CFA_NONE });
	return err;
}

int go_pclntab__sp_rows(const uint8_t *data, size_t size, struct cfi_table *t)
{
	uint64_t work = GO_SP_STEPS;
	struct go_rows v = { 0 };
	struct go_pcln p;
	struct go_func f;
	int err;

	memset(t, 0, sizeof(*t));
	err = go_pcln__open(&p, data, size);
	if (err)
		return err;
	if (go_pcln__end(&p) > UINT32_MAX)
		return -ERANGE;
	for (uint64_t i = 0; !err && i < p.nfunc; i++) {
		err = go_pcln__func(&p, i, &f);
		if (!err)
			err = sp_rows_of(&p, &f, &v, &work);
	}
	if (!err)
		err = go_rows__push(&v, &(struct unwind_row){ .pc = (uint32_t)go_pcln__end(&p),
							      .cfa_rule = UNW_CFA_NONE });
	if (err) {
		free(v.r);
		return err;
	}
	t->rows = v.r;
	t->nr = v.n;
	return 0;
}
