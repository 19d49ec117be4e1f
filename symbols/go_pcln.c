// SPDX-License-Identifier: GPL-2.0
/*
 * go_pcln.c - Go's function table, .gopclntab (go_pcln.h): its header,
 * functions, names and pc-value programs, every offset and count checked
 * against the table's size.
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
 *   _func:  per function a record opening with its start again, then
 *           4-byte fields: the offset of its name in the names region,
 *           args, deferreturn (frame before 1.12), and the offsets of its
 *           pc-to-sp, pc-to-file and pc-to-line programs in the pc-value
 *           region
 *
 * Go 1.2-1.15 (0xfffffffb): ftab at 16, 8-byte starts and offsets, names,
 * records and programs from the table's start. 1.16 (0xfffffffa): the
 * regions' offsets in the header. 1.18 and 1.20 (0xfffffff0, 0xfffffff1):
 * 4-byte entries counted from textStart. (Go 1.26 leaves textStart 0.)
 */
#include <errno.h>
#include <string.h>

#include "symbols/go_pcln.h"

#define GO_MAGIC_12 GO_PCLN_1_2
#define GO_MAGIC_116 GO_PCLN_1_16
#define GO_MAGIC_118 GO_PCLN_1_18
#define GO_MAGIC_120 GO_PCLN_1_20

bool go_pcln__is_section(const char *name)
{
	return !strcmp(name, ".gopclntab") || !strcmp(name, ".data.rel.ro.gopclntab");
}

static uint64_t le(const uint8_t *p, unsigned size)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static bool within(const struct go_pcln *p, uint64_t off, uint64_t len)
{
	return off <= p->size && len <= p->size - off;
}

int go_pcln__open(struct go_pcln *p, const uint8_t *d, size_t size)
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
	p->magic = magic;
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
		p->names_end = p->cutab = le(d + 32, 8);	/* cuOffset: the next region */
		p->cutab_end = p->filetab = le(d + 40, 8);
		p->pctab = p->filetab_end = le(d + 48, 8);
		pcln_off = p->pctab_end = le(d + 56, 8);
		break;
	default:
		if (size < 72)
			return -ENOEXEC;
		p->word = 4;
		p->text_start = le(d + 24, 8);
		p->names = le(d + 32, 8);
		p->names_end = p->cutab = le(d + 40, 8);
		p->cutab_end = p->filetab = le(d + 48, 8);
		p->pctab = p->filetab_end = le(d + 56, 8);
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
	/* file names: where they are not where the header says, there are none */
	if (p->cutab > p->cutab_end || p->cutab_end > p->filetab_end || p->filetab_end > size)
		p->cutab = p->cutab_end = p->filetab = p->filetab_end = 0;
	/* 1.2: the file table's offset follows the last entry's start */
	if (magic == GO_MAGIC_12 && room - p->word - p->nfunc * 2 * p->word >= 4)
		p->filetab12 = le(d + p->ftab + (p->nfunc * 2 + 1) * p->word, 4);
	return 0;
}

/* Entry i's function start, and its record's offset (i <= nfunc: the last has only a start). */
static uint64_t entry(const struct go_pcln *p, uint64_t i, uint64_t *rec)
{
	const uint8_t *e = p->d + p->ftab + i * 2 * p->word;

	if (rec)
		*rec = le(e + p->word, p->word);
	return p->text_start + le(e, p->word);
}

uint64_t go_pcln__end(const struct go_pcln *p)
{
	return entry(p, p->nfunc, NULL);
}

int go_pcln__func(const struct go_pcln *p, uint64_t i, struct go_func *f)
{
	uint64_t at, name, max;
	int32_t off;

	memset(f, 0, sizeof(*f));
	f->lo = entry(p, i, &f->rec);
	f->hi = entry(p, i + 1, NULL);
	/* every layout's record has its pc-to-sp offset after the name's */
	if (f->hi < f->lo || f->rec > p->size || !within(p, p->funcs + f->rec, p->word + 16))
		return -ENOEXEC;
	at = p->funcs + f->rec;
	f->rec = at;
	if (p->text_start + le(p->d + at, p->word) != f->lo)
		return -ENOEXEC;
	off = (int32_t)le(p->d + at + p->word, 4);
	if (off < 0 || (uint64_t)off >= p->names_end - p->names)
		return -ENOEXEC;
	name = p->names + (uint64_t)off;
	max = p->names_end - name;
	f->name_len = strnlen((const char *)p->d + name, max);
	if (f->name_len == max)
		return -ENOEXEC;
	f->name = (const char *)p->d + name;
	return 0;
}

int go_pcln__find(const struct go_pcln *p, uint64_t pc, struct go_func *f)
{
	uint64_t lo = 0, hi = p->nfunc;

	if (pc < entry(p, 0, NULL) || pc >= go_pcln__end(p))
		return -ENOENT;
	/* the last entry that starts at or before pc */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (entry(p, mid, NULL) <= pc)
			lo = mid;
		else
			hi = mid;
	}
	if (go_pcln__func(p, lo, f))
		return -ENOEXEC;
	return pc < f->hi ? 0 : -ENOENT;
}

/* The string at off, NUL-terminated before end; NULL when not. */
static const char *string_at(const struct go_pcln *p, uint64_t off, uint64_t end)
{
	if (off >= end || end > p->size)
		return NULL;
	return memchr(p->d + off, 0, end - off) ? (const char *)p->d + off : NULL;
}

const char *go_pcln__file(const struct go_pcln *p, const struct go_func *f, int64_t file)
{
	uint32_t cu;
	uint64_t at, n;

	if (file < 0 || file > UINT32_MAX)
		return NULL;
	if (p->magic == GO_MAGIC_12) {
		/* a count, then the offsets of the names from the table's start; 0 is the count */
		if (!p->filetab12 || !within(p, p->filetab12, 4))
			return NULL;
		n = le(p->d + p->filetab12, 4);
		at = p->filetab12 + 4 * (uint64_t)file;
		if (!file || (uint64_t)file >= n || !within(p, at, 4))
			return NULL;
		return string_at(p, le(p->d + at, 4), p->size);
	}
	if (!p->filetab_end || !go_pcln__field(p, f, 7, &cu))
		return NULL;
	at = p->cutab + 4 * ((uint64_t)cu + (uint64_t)file);
	if (at + 4 > p->cutab_end)
		return NULL;
	n = le(p->d + at, 4);
	return n == UINT32_MAX ? NULL : string_at(p, p->filetab + n, p->filetab_end);
}

bool go_pcln__value_at(const struct go_pcln *p, const struct go_func *f, uint32_t off,
		       uint64_t pc, int64_t *val)
{
	struct go_pcvalue it;
	uint64_t lo, hi;

	if (!go_pcvalue__start(&it, p, off, f->lo))
		return false;
	/* each step reads 2 bytes or more: as many as the region holds */
	while (go_pcvalue__next(&it, &lo, &hi, val))
		if (pc < hi)
			return pc >= lo;
	return false;
}

/* Where f's pcdata offsets start, and how many there are. */
static bool pcdata_at(const struct go_pcln *p, const struct go_func *f, uint64_t *at, uint32_t *n)
{
	/* the fixed part: 1.2 8 fields; 1.16 and 1.18 9 (cuOffset, then 4 bytes); 1.20 10 (startLine) */
	unsigned fields = p->magic == GO_MAGIC_12 ? 8 : p->magic == GO_MAGIC_120 ? 10 : 9;

	if (!go_pcln__field(p, f, 6, n))
		return false;
	*at = f->rec + p->word + 4 * fields;
	return within(p, *at, 4 * (uint64_t)*n);
}

bool go_pcln__pcdata(const struct go_pcln *p, const struct go_func *f, uint32_t n, uint32_t *off)
{
	uint32_t count;
	uint64_t at;

	if (!pcdata_at(p, f, &at, &count) || n >= count)
		return false;
	*off = (uint32_t)le(p->d + at + 4 * (uint64_t)n, 4);
	return true;
}

bool go_pcln__funcdata(const struct go_pcln *p, const struct go_func *f, uint32_t n, uint64_t *v,
		       bool *abs)
{
	uint32_t npcdata, nfuncdata;
	uint64_t at;

	if (!pcdata_at(p, f, &at, &npcdata))
		return false;
	/* nfuncdata: 1.2 the 8th field; after, the last byte of the fixed part */
	if (p->magic == GO_MAGIC_12) {
		if (!go_pcln__field(p, f, 7, &nfuncdata))
			return false;
	} else {
		nfuncdata = p->d[at - 1];
	}
	if (n >= nfuncdata)
		return false;
	at += 4 * (uint64_t)npcdata;
	*abs = p->magic == GO_MAGIC_12 || p->magic == GO_MAGIC_116;
	if (*abs) {
		/* pointers, 8-aligned as the record is */
		at += (at - f->rec) % 8;
		at += 8 * (uint64_t)n;
		if (!within(p, at, 8))
			return false;
		*v = le(p->d + at, 8);
		return *v != 0;
	}
	at += 4 * (uint64_t)n;
	if (!within(p, at, 4))
		return false;
	*v = le(p->d + at, 4);
	return *v != UINT32_MAX;
}

bool go_pcln__field(const struct go_pcln *p, const struct go_func *f, enum go_func_field n,
		    uint32_t *v)
{
	uint64_t at = f->rec + p->word + 4 * (uint64_t)n;

	if (!within(p, at, 4))
		return false;
	*v = (uint32_t)le(p->d + at, 4);
	return true;
}

/* An unsigned varint, 32 bits at most, at *q before end. */
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

bool go_pcvalue__start(struct go_pcvalue *it, const struct go_pcln *p, uint32_t off, uint64_t pc)
{
	memset(it, 0, sizeof(*it));
	if (!off || off >= p->pctab_end - p->pctab)
		return false;
	it->q = p->d + p->pctab + off;
	it->end = p->d + p->pctab_end;
	it->pc = pc;
	it->val = -1;
	it->first = true;
	return true;
}

bool go_pcvalue__next(struct go_pcvalue *it, uint64_t *lo, uint64_t *hi, int64_t *val)
{
	uint32_t dv, dpc;

	if (!it->q || it->q >= it->end || (!it->first && !*it->q))
		return false;
	if (!varint32(&it->q, it->end, &dv) || !varint32(&it->q, it->end, &dpc) || !dpc ||
	    it->pc + dpc < it->pc) {
		it->q = NULL;
		return false;
	}
	it->first = false;
	it->val += (int32_t)((dv >> 1) ^ -(dv & 1));
	*lo = it->pc;
	*hi = it->pc += dpc;
	*val = it->val;
	return true;
}
