// SPDX-License-Identifier: GPL-2.0
/*
 * go_pclntab.c - Go's function table, .gopclntab (go_pclntab.h): the Go
 * text's range, the stack roots' ranges, and rows from the pc-to-sp
 * tables, every offset and count checked against the table's size.
 *
 * The table (the Go linker's pcln.go writes it, the runtime's symtab.go
 * reads it) is, for 64-bit little-endian targets:
 *
 *   header: magic (4 bytes: the version), 2 zero bytes, the instruction
 *           quantum (1 on x86-64), the pointer size (8), then the number
 *           of functions; from Go 1.16 the offsets of the regions below,
 *           from 1.18 also the address the text offsets count from
 *   ftab:   nfunc + 1 entries (function start, offset of its record); the
 *           last one's start is the end of the last function
 *   _func:  per function a record opening with its start again, the
 *           offset of its name in the names region, two words, and the
 *           offset of its pc-to-sp program in the pc-value region
 *
 * Go 1.2-1.15 (0xfffffffb): ftab at 16, 8-byte starts and offsets, names,
 * records and programs from the table's start. 1.16 (0xfffffffa): the
 * regions' offsets in the header. 1.18 and 1.20 (0xfffffff0, 0xfffffff1):
 * 4-byte entries counted from textStart. (Go 1.26 leaves textStart 0:
 * then .symtab, if any, names the roots.)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "go_pclntab.h"

#define GO_MAGIC_12 0xfffffffbu
#define GO_MAGIC_116 0xfffffffau
#define GO_MAGIC_118 0xfffffff0u
#define GO_MAGIC_120 0xfffffff1u

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

static uint64_t le(const uint8_t *p, unsigned size)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* One function table, its regions checked against its size. */
struct pcln {
	const uint8_t *d;
	size_t size;
	uint64_t nfunc;
	uint64_t text_start;	/* 1.18+: the entries' starts count from here */
	uint64_t ftab;		/* offset of the entries */
	unsigned word;		/* bytes of a start or offset: 4 (1.18+) or 8 */
	uint64_t funcs;		/* records at funcs + an entry's offset */
	uint64_t names, names_end;	/* the names region */
	uint64_t pctab, pctab_end;	/* the pc-value programs: a record's offsets count from pctab */
};

static bool within(const struct pcln *p, uint64_t off, uint64_t len)
{
	return off <= p->size && len <= p->size - off;
}

/* Entry i's function start, and its record's offset (i < nfunc). */
static void entry(const struct pcln *p, uint64_t i, uint64_t *pc, uint64_t *rec)
{
	const uint8_t *e = p->d + p->ftab + i * 2 * p->word;

	*pc = p->text_start + le(e, p->word);
	*rec = le(e + p->word, p->word);
}

/* The end of the last function: the start of the entry after it. */
static uint64_t end_pc(const struct pcln *p)
{
	return p->text_start + le(p->d + p->ftab + p->nfunc * 2 * p->word, p->word);
}

/*
 * The name of the function that starts at pc, its record at rec; NULL
 * when the record or its name are not within the table, or the record
 * names another start.
 */
static const char *func_name(const struct pcln *p, uint64_t pc, uint64_t rec, size_t *len)
{
	uint64_t at, name;
	int32_t off;
	size_t max;

	/* every layout's record has its pc-to-sp offset after the name's */
	if (rec > p->size || !within(p, p->funcs + rec, p->word + 16))
		return NULL;
	at = p->funcs + rec;
	if (p->text_start + le(p->d + at, p->word) != pc)
		return NULL;
	off = (int32_t)le(p->d + at + p->word, 4);
	if (off < 0 || (uint64_t)off >= p->names_end - p->names)
		return NULL;
	name = p->names + (uint64_t)off;
	max = (size_t)(p->names_end - name);
	*len = strnlen((const char *)p->d + name, max);
	return *len < max ? (const char *)p->d + name : NULL;
}

/* The header of the table in data into p. */
static int read_header(const uint8_t *d, size_t size, struct pcln *p)
{
	uint32_t magic;
	uint64_t room, pcln_off = 0;

	memset(p, 0, sizeof(*p));
	p->d = d;
	p->size = size;
	if (size < 16)
		return -ENOEXEC;
	magic = (uint32_t)le(d, 4);
	if (magic != GO_MAGIC_12 && magic != GO_MAGIC_116 && magic != GO_MAGIC_118 &&
	    magic != GO_MAGIC_120)
		return -ENOEXEC;
	if (d[4] || d[5])
		return -ENOEXEC;
	/* x86-64's quantum and pointer size */
	if (d[6] != 1 || d[7] != 8)
		return -ENOTSUP;
	p->nfunc = le(d + 8, 8);
	switch (magic) {
	case GO_MAGIC_12:
		p->word = 8;
		p->ftab = 16;
		p->names_end = p->pctab_end = size;
		break;
	case GO_MAGIC_116:
		if (size < 64)
			return -ENOEXEC;
		p->word = 8;
		p->names = le(d + 24, 8);
		p->names_end = le(d + 32, 8);	/* cuOffset: the next region */
		p->pctab = le(d + 48, 8);
		pcln_off = p->pctab_end = le(d + 56, 8);
		break;
	default:
		if (size < 72)
			return -ENOEXEC;
		p->word = 4;
		p->text_start = le(d + 24, 8);
		p->names = le(d + 32, 8);
		p->names_end = le(d + 40, 8);
		p->pctab = le(d + 56, 8);
		pcln_off = p->pctab_end = le(d + 64, 8);
		/* Go 1.26 keeps it in the module data instead */
		if (!p->text_start)
			return -ENOTSUP;
		break;
	}
	if (magic != GO_MAGIC_12)
		p->ftab = p->funcs = pcln_off;
	if (p->names >= p->names_end || p->names_end > size || p->ftab > size ||
	    p->pctab > p->pctab_end || p->pctab_end > size)
		return -ENOEXEC;
	/* nfunc entries and the last one's start */
	room = size - p->ftab;
	if (!p->nfunc || room < p->word || p->nfunc > (room - p->word) / (2 * p->word))
		return -ENOEXEC;
	return 0;
}

void go_info__add_root(struct go_info *g, uint64_t lo, uint64_t hi)
{
	if (g->nr_roots < GO_MAX_ROOTS && lo < hi)
		g->roots[g->nr_roots++] = (struct go_range){ lo, hi };
}

int go_pclntab__parse(const uint8_t *data, size_t size, struct go_info *g)
{
	uint64_t pc, rec, next, next_rec = 0;
	struct pcln p;
	int err;

	memset(g, 0, sizeof(*g));
	err = read_header(data, size, &p);
	if (err)
		return err;
	entry(&p, 0, &pc, &rec);
	for (uint64_t i = 0; i < p.nfunc; i++) {
		const char *name;
		size_t len;

		if (i + 1 < p.nfunc)
			entry(&p, i + 1, &next, &next_rec);
		else
			next = end_pc(&p);
		name = func_name(&p, pc, rec, &len);
		/* sorted, every record where its entry says: else not a table */
		if (next < pc || !name) {
			memset(g, 0, sizeof(*g));
			return -ENOEXEC;
		}
		if (go_pclntab__is_root(name, len))
			go_info__add_root(g, pc, next);
		pc = next;
		rec = next_rec;
	}
	entry(&p, 0, &g->text.lo, &rec);
	g->text.hi = end_pc(&p);
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

/* An unsigned varint of a pc-value program, 32 bits at most, at *q before end. */
static bool varint32(const uint8_t **q, const uint8_t *end, uint32_t *v)
{
	uint32_t x = 0;

	for (unsigned shift = 0; shift < 35 && *q < end; shift += 7) {
		uint8_t b = *(*q)++;

		x |= (uint32_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

/*
 * The rows of the function [pc, end) from its pc-to-sp program at off in
 * the pc-value region: pairs of a zig-zag value delta and a pc delta,
 * from the value -1; a value delta of 0 but the first ends it. The CFA
 * is rsp + the value + 8; what it does not say is a row of no rule.
 * *work: steps left to run.
 */
static int sp_rows_of(const struct pcln *p, uint64_t pc, uint64_t end, uint32_t off,
		      struct go_rows *v, uint64_t *work)
{
	const uint8_t *q, *q_end = p->d + p->pctab_end;
	struct unwind_row r;
	int64_t val = -1;
	int err = 0;

	if (off && off < p->pctab_end - p->pctab) {
		q = p->d + p->pctab + off;
		for (bool first = true; !err && pc < end && q < q_end && (first || *q); first = false) {
			uint32_t dv, dpc;

			if (!varint32(&q, q_end, &dv) || !varint32(&q, q_end, &dpc) || !dpc)
				break;
			if (!*work)
				return budget__refuse("Go's pc-to-sp tables run over %llu steps",
						      (unsigned long long)GO_SP_STEPS);
			(*work)--;
			val += (int32_t)((dv >> 1) ^ -(dv & 1));
			if (val >= 0 && val <= INT32_MAX - 8)
				r = (struct unwind_row){ .pc = (uint32_t)pc, .cfa_rule = UNW_CFA_SP,
							 .cfa_off = (int32_t)val + 8, .ra_off = -8 };
			else
				r = (struct unwind_row){ .pc = (uint32_t)pc, .cfa_rule = UNW_CFA_NONE };
			err = go_rows__push(v, &r);
			pc += dpc;
		}
	}
	if (!err && pc < end)
		err = go_rows__push(v, &(struct unwind_row){ .pc = (uint32_t)pc, .cfa_rule = UNW_CFA_NONE });
	return err;
}

int go_pclntab__sp_rows(const uint8_t *data, size_t size, struct cfi_table *t)
{
	uint64_t pc, rec, next, next_rec = 0, work = GO_SP_STEPS;
	struct go_rows v = { 0 };
	struct pcln p;
	int err;

	memset(t, 0, sizeof(*t));
	err = read_header(data, size, &p);
	if (err)
		return err;
	if (end_pc(&p) > UINT32_MAX)
		return -ERANGE;
	entry(&p, 0, &pc, &rec);
	for (uint64_t i = 0; !err && i < p.nfunc; i++) {
		uint64_t at = p.funcs + rec;

		if (i + 1 < p.nfunc)
			entry(&p, i + 1, &next, &next_rec);
		else
			next = end_pc(&p);
		/* the pcsp field follows start, name, args and deferreturn */
		if (next < pc || rec > p.size || !within(&p, at, p.word + 16) ||
		    p.text_start + le(p.d + at, p.word) != pc)
			err = -ENOEXEC;
		else
			err = sp_rows_of(&p, pc, next, (uint32_t)le(p.d + at + p.word + 12, 4), &v,
					 &work);
		pc = next;
		rec = next_rec;
	}
	if (!err)
		err = go_rows__push(&v, &(struct unwind_row){ .pc = (uint32_t)pc, .cfa_rule = UNW_CFA_NONE });
	if (err) {
		free(v.r);
		return err;
	}
	t->rows = v.r;
	t->nr = v.n;
	return 0;
}

