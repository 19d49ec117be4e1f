/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go_craft.h - Go function tables (.gopclntab) crafted by the unit tests
 * of their readers (test_go_runtime.c, test_go_symbols.c): each layout,
 * a few functions, with names, records and pc-to-sp programs where the
 * tests say, for them to damage one field at a time.
 */
#ifndef GO_CRAFT_H
#define GO_CRAFT_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline void put(uint8_t *p, uint64_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

struct craft {
	uint8_t b[4096];
	size_t size;
	size_t rec_at[8];	/* where function i's record is */
	size_t ftab;
	size_t pctab;		/* 1.16+: 64 bytes of programs */
	size_t pc_used;
};

/* Function i's pc-to-sp program (1.16+ layouts). */
static inline void set_pcsp(struct craft *c, size_t i, const uint8_t *prog, size_t len, unsigned word)
{
	/* offset 0 means none: programs start at 1 */
	if (!c->pc_used)
		c->pc_used = 1;
	cr_assert_leq(c->pc_used + len, 64);
	memcpy(c->b + c->pctab + c->pc_used, prog, len);
	put(c->b + c->rec_at[i] + word + 12, c->pc_used, 4);
	c->pc_used += len;
}

#define TEXT 0x401000u

/*
 * A table of layout magic with functions names[i] at TEXT + starts[i],
 * the last ending at TEXT + end.
 */
static inline void craft(struct craft *c, uint32_t magic, const char *const *names,
		  const uint32_t *starts, size_t n, uint32_t end)
{
	bool v12 = magic == 0xfffffffb, v118 = magic == 0xfffffff0 || magic == 0xfffffff1;
	unsigned word = v118 ? 4 : 8, hdr = v12 ? 16 : v118 ? 72 : 64;
	size_t names_at = hdr + (v12 ? (n + 1) * 16 + 8 : 0), at, name_off[8];
	size_t base;

	cr_assert_leq(n, 8);
	memset(c, 0, sizeof(*c));
	put(c->b, magic, 4);
	c->b[6] = 1;
	c->b[7] = 8;
	put(c->b + 8, n, 8);
	at = names_at;
	for (size_t i = 0; i < n; i++) {
		name_off[i] = at - (v12 ? 0 : names_at);
		strcpy((char *)c->b + at, names[i]);
		at += strlen(names[i]) + 1;
	}
	at = (at + 7) & ~7ul;
	if (v12) {
		c->ftab = 16;
		base = 0;
	} else {
		/* funcname, cu (the names' end), filetab, pctab, pcln */
		size_t off = v118 ? 32 : 24;

		if (v118)
			put(c->b + 24, TEXT, 8);
		put(c->b + off, names_at, 8);
		put(c->b + off + 8, at, 8);
		put(c->b + off + 16, at, 8);
		/* pc-value programs: 64 bytes, for set_pcsp() */
		c->pctab = at;
		put(c->b + off + 24, at, 8);
		at += 64;
		put(c->b + off + 32, at, 8);
		c->ftab = base = at;
	}
	/* the entries, the end, then the records (1.2: after the names) */
	if (!v12)
		at = c->ftab + (n + 1) * 2 * word;
	for (size_t i = 0; i <= n; i++) {
		uint8_t *e = c->b + c->ftab + i * 2 * word;
		uint64_t pc = (i < n ? starts[i] : end) + (v118 ? 0 : TEXT);

		put(e, pc, word);
		if (i == n)
			break;
		put(e + word, at - base, word);
		c->rec_at[i] = at;
		put(c->b + at, pc, word);
		put(c->b + at + word, name_off[i], 4);
		/* the table ends with the last record's pc-to-sp offset */
		c->size = at + word + 16;
		at += 40;
	}
	cr_assert_leq(c->size, sizeof(c->b));
}

#endif /* GO_CRAFT_H */
