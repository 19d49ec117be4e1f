/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go_pcln.h - the one reader of Go's function table (.gopclntab), over
 * the bytes of the section: its header, its functions with their names
 * and records, and the pc-value programs the records point to. The
 * unwinder (unwind/go_pclntab.c: roots, pc-to-sp rows) and the symbolizer
 * (go_symbols.c: names for stripped Go files) read it through this.
 *
 * The bytes are anyone's: every offset and count is checked against the
 * table's size before it is used, and a name is one only when it ends
 * with a NUL within the names region.
 */
#ifndef GO_PCLN_H
#define GO_PCLN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One function table, its regions checked against its size by go_pcln__open(). */
struct go_pcln {
	const uint8_t *d;
	size_t size;
	uint64_t nfunc;
	uint64_t text_start;	/* 1.18+: the entries' starts count from here */
	uint64_t ftab;		/* offset of the entries */
	unsigned word;		/* bytes of a start or offset: 4 (1.18+) or 8 */
	uint64_t funcs;		/* records at funcs + an entry's offset */
	uint64_t names, names_end;	/* the names region */
	uint64_t pctab, pctab_end;	/* the pc-value programs: a record's offsets count from pctab */
	uint32_t magic;		/* the version's: GO_PCLN_1_2 ... GO_PCLN_1_20 */
	/* file names: 1.16+ per compile unit, cutab's entries offsets into filetab */
	uint64_t cutab, cutab_end, filetab, filetab_end;
	uint64_t filetab12;	/* 1.2: the file table (a count, then offsets), 0 when none */
};

#define GO_PCLN_1_2 0xfffffffbu
#define GO_PCLN_1_16 0xfffffffau
#define GO_PCLN_1_18 0xfffffff0u
#define GO_PCLN_1_20 0xfffffff1u

/* One function of the table. */
struct go_func {
	uint64_t lo, hi;	/* [lo, hi): link-time addresses; hi the next function's start */
	uint64_t rec;		/* its record's offset in the table: word + 16 bytes within */
	const char *name;	/* in the table, NUL-terminated within the names region */
	size_t name_len;
};

/* The fields of a record after its start (go_pcln__field()), the same in every layout. */
enum go_func_field {
	GO_FUNC_NAME,
	GO_FUNC_ARGS,
	GO_FUNC_DEFERRETURN,
	GO_FUNC_PCSP,
	GO_FUNC_PCFILE,
	GO_FUNC_PCLN,
};

/* Whether a section of this name is a Go function table (a PIE's is among its relocated data). */
bool go_pcln__is_section(const char *name);

/*
 * Read the header of the table in data (Go 1.2 to 1.25: the layouts for
 * 64-bit little-endian) into p. Returns 0, -ENOEXEC for bytes that are
 * not a table or whose regions are not within them, -ENOTSUP for a
 * version or machine not read (Go 1.26: no textStart in the header).
 */
int go_pcln__open(struct go_pcln *p, const uint8_t *data, size_t size);

/* The end of the last function. */
uint64_t go_pcln__end(const struct go_pcln *p);

/*
 * Function i (< p->nfunc) into f. Returns 0, or -ENOEXEC when its end is
 * before its start, its record or name are not within the table, or the
 * record names another start: the table does not hold together.
 */
int go_pcln__func(const struct go_pcln *p, uint64_t i, struct go_func *f);

/*
 * The function that holds pc, by a binary search of the entries: 0,
 * -ENOENT outside them, else as go_pcln__func().
 */
int go_pcln__find(const struct go_pcln *p, uint64_t pc, struct go_func *f);

/* A 4-byte field of f's record into v; false when it is not within the table. */
bool go_pcln__field(const struct go_pcln *p, const struct go_func *f, enum go_func_field n,
		    uint32_t *v);

/*
 * The name of file number file of f (its pc-to-file program's value),
 * NUL-terminated within the table; NULL when there is none.
 */
const char *go_pcln__file(const struct go_pcln *p, const struct go_func *f, int64_t file);

/*
 * The value at pc (within f) of f's pc-value program at off (a field's,
 * or a pcdata's); false where the program does not say.
 */
bool go_pcln__value_at(const struct go_pcln *p, const struct go_func *f, uint32_t off,
		       uint64_t pc, int64_t *val);

/*
 * Where f's PCDATA table n's offset is (pcdata[n] after the record's
 * fixed part, as the version lays it out); false when f has not that
 * many, or it is not within the table.
 */
bool go_pcln__pcdata(const struct go_pcln *p, const struct go_func *f, uint32_t n, uint32_t *off);

/*
 * f's FUNCDATA n: 1.18+ an offset from the module's go:func.* (*abs
 * false), before an address (*abs true). false when f has none.
 */
bool go_pcln__funcdata(const struct go_pcln *p, const struct go_func *f, uint32_t n, uint64_t *v,
		       bool *abs);

/*
 * A pc-value program: pairs of a zig-zag value delta and a pc delta, from
 * the value -1; a value delta of 0 but the first ends it.
 */
struct go_pcvalue {
	const uint8_t *q, *end;
	uint64_t pc;	/* where the next step's value starts to hold */
	int64_t val;
	bool first;
};

/*
 * Start the program at off in the pc-value region for the function that
 * starts at pc; false when there is none (off 0, or outside the region).
 */
bool go_pcvalue__start(struct go_pcvalue *it, const struct go_pcln *p, uint32_t off, uint64_t pc);

/*
 * The next step: val holds over [*lo, *hi). false at the program's end,
 * or where it is cut or says nothing (a pc delta of 0).
 */
bool go_pcvalue__next(struct go_pcvalue *it, uint64_t *lo, uint64_t *hi, int64_t *val);

#endif /* GO_PCLN_H */
