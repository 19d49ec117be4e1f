// SPDX-License-Identifier: GPL-2.0
/*
 * test_go_runtime.c - Go executables for the unwinder (unwind/go_runtime.c):
 * told apart from C's; their roots (runtime.goexit, mstart, rt0_go) read
 * from .gopclntab, held to nm's reading of the same build, stripped
 * (-s -w) or not, PIE and cgo; .symtab when the table is damaged; crafted
 * tables of each layout, truncated and mutated ones; the roots made END
 * rows of a table that otherwise says what it said; and a mapping cut
 * around cgo's C code.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind/cfi_table.h"
#include "symbols/elf_read.h"
#include "unwind/go_pclntab.h"
#include "go_craft.h"
#include "unwind/go_runtime.h"
#include "test_util.h"

#define FIXTURE_GO FIXTURE_DIR "/fixture_go"
#define FIXTURE_GO_STRIPPED FIXTURE_DIR "/fixture_go_stripped"
#define FIXTURE_GO_PIE FIXTURE_DIR "/fixture_go_pie"
#define FIXTURE_GO_CGO FIXTURE_DIR "/fixture_go_cgo"
#define FIXTURE_GO_CGO_PIE FIXTURE_DIR "/fixture_go_cgo_pie"
#define FIXTURE_GO_CGO_PIE_STRIPPED FIXTURE_DIR "/fixture_go_cgo_pie_stripped"

static const char *const roots[] = {
	"runtime.rt0_go.abi0", "runtime.mstart.abi0", "runtime.goexit.abi0",
};

/* go_runtime__read() of the file at path. */
static int read_go(const char *path, struct go_info *g)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	Elf *elf;

	cr_assert_geq(fd, 0, "open '%s': %s", path, strerror(errno));
	cr_assert(elf_read__ready());
	elf = elf_read__begin(fd, NULL);
	cr_assert_not_null(elf, "'%s': %s", path, strerror(errno));
	err = go_runtime__read(elf, NULL, g);
	elf_end(elf);
	close(fd);
	return err;
}

static int read_go_image(char *image, size_t size, struct go_info *g)
{
	Elf *elf = elf_read__memory(image, size, NULL);
	int err;

	cr_assert_not_null(elf);
	err = go_runtime__read(elf, NULL, g);
	elf_end(elf);
	return err;
}

/* The file offset and size of section name of the image (libelf, as an oracle's reader). */
static void section_at(char *image, size_t size, const char *name, size_t *off, size_t *len)
{
	Elf *elf = elf_memory(image, size);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	cr_assert_not_null(elf);
	cr_assert_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn))) {
		cr_assert_not_null(gelf_getshdr(scn, &sh));
		if (!strcmp(elf_strptr(elf, shstrndx, sh.sh_name), name)) {
			*off = sh.sh_offset;
			*len = sh.sh_size;
			elf_end(elf);
			return;
		}
	}
	cr_assert_fail("no section %s", name);
}

/* Each root of g starts where nm has the function, and holds it whole. */
static void assert_roots_are_nm(const struct go_info *g, const char *nm_path, bool exact)
{
	cr_assert_eq(g->nr_roots, 3, "%zu roots", g->nr_roots);
	for (size_t i = 0; i < 3; i++) {
		uint64_t addr, size;

		nm_symbol(nm_path, roots[i], &addr, &size);
		cr_assert_eq(g->roots[i].lo, addr, "%s at %#lx, root at %#lx", roots[i],
			     (unsigned long)addr, (unsigned long)g->roots[i].lo);
		if (exact)
			cr_assert_eq(g->roots[i].hi, addr + size, "%s", roots[i]);
		else
			cr_assert(g->roots[i].hi >= addr + size && g->roots[i].hi < addr + size + 64,
				  "%s ends at %#lx", roots[i], (unsigned long)g->roots[i].hi);
	}
}

static void assert_in_text(const struct go_info *g, const char *path, const char *name, bool in)
{
	uint64_t addr, size;

	nm_symbol(path, name, &addr, &size);
	cr_assert_eq(addr >= g->text.lo && addr < g->text.hi, in, "%s at %#lx, text %#lx-%#lx",
		     name, (unsigned long)addr, (unsigned long)g->text.lo, (unsigned long)g->text.hi);
}

Test(go_runtime, roots_from_the_function_table)
{
	const char *files[] = { FIXTURE_GO, FIXTURE_GO_PIE, FIXTURE_GO_CGO };

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		struct go_info g;

		cr_assert_eq(read_go(files[i], &g), 0, "'%s' not Go's", files[i]);
		cr_assert_not(g.from_symtab, "'%s'", files[i]);
		/* internal linking, no PLT: the Go text is all the code there is */
		cr_assert_eq(g.only_go, i == 0, "'%s'", files[i]);
		assert_roots_are_nm(&g, files[i], false);
		assert_in_text(&g, files[i], "main.main", true);
		assert_in_text(&g, files[i], "runtime.goexit.abi0", true);
	}
}

/* cgo: C's functions, linked by gcc beside the Go text, are not in it. */
Test(go_runtime, cgo_text_leaves_c_out)
{
	struct go_info g;

	cr_assert_eq(read_go(FIXTURE_GO_CGO, &g), 0);
	assert_in_text(&g, FIXTURE_GO_CGO, "fixture_c_spin", false);
	assert_in_text(&g, FIXTURE_GO_CGO, "_start", false);
	assert_in_text(&g, FIXTURE_GO_CGO, "main._Cfunc_fixture_c_spin.abi0", true);
}

/* -s -w leaves no .symtab: the same roots, from .gopclntab (same text as fixture_go). */
Test(go_runtime, stripped_by_go)
{
	struct go_info g, full;

	cr_assert_eq(read_go(FIXTURE_GO_STRIPPED, &g), 0);
	cr_assert_eq(read_go(FIXTURE_GO, &full), 0);
	cr_assert_not(g.from_symtab);
	assert_roots_are_nm(&g, FIXTURE_GO, false);
	cr_assert_eq(memcmp(g.roots, full.roots, sizeof(g.roots)), 0);
	cr_assert_eq(g.text.lo, full.text.lo);
	cr_assert_eq(g.text.hi, full.text.hi);
}

/* cgo's PIE, stripped: its table, inside .data.rel.ro, gives the roots nm gives unstripped. */
Test(go_runtime, stripped_cgo_pie_from_its_data)
{
	struct go_info g;

	cr_assert_eq(read_go(FIXTURE_GO_CGO_PIE_STRIPPED, &g), 0);
	cr_assert(!g.from_symtab);
	cr_assert_gt(g.text.hi, g.text.lo);
	assert_roots_are_nm(&g, FIXTURE_GO_CGO_PIE, false);
	assert_in_text(&g, FIXTURE_GO_CGO_PIE, "main.main", true);
}

Test(go_runtime, c_files_are_not_go)
{
	struct go_info g;

	cr_assert_eq(read_go(FIXTURE_EXEC, &g), -ENOENT);
	cr_assert_eq(read_go(FIXTURE_LIB, &g), -ENOENT);
	cr_assert_eq(g.nr_roots, 0);
}

/* A table that does not read: the roots of .symtab, exactly its sizes; without one, still Go's. */
Test(go_runtime, damaged_table)
{
	size_t size, off, len;
	char *image = read_whole(FIXTURE_GO, &size);
	struct go_info g;

	section_at(image, size, ".gopclntab", &off, &len);
	image[off + 8] = 0x7f;	/* nfunc: far more than the table holds */
	image[off + 15] = 0x7f;
	cr_assert_eq(read_go_image(image, size, &g), 0);
	cr_assert(g.from_symtab);
	cr_assert_eq(g.text.hi, 0, "a text range from a damaged table");
	assert_roots_are_nm(&g, FIXTURE_GO, true);
	free(image);

	image = read_whole(FIXTURE_GO_STRIPPED, &size);
	section_at(image, size, ".gopclntab", &off, &len);
	memset(image + off, 0, 8);
	cr_assert_eq(read_go_image(image, size, &g), 0, "a Go file by its other sections");
	cr_assert_eq(g.nr_roots, 0);
	cr_assert_eq(g.text.hi, 0);
	free(image);
}

/* --- crafted tables -------------------------------------------------- */

static const char *const names3[] = { "main.a", "runtime.goexit", "main.b" };
static const uint32_t starts3[] = { 0x0, 0x40, 0x60 };

Test(go_runtime, crafted_tables_of_each_layout)
{
	const uint32_t magics[] = { 0xfffffffb, 0xfffffffa, 0xfffffff0, 0xfffffff1 };

	for (size_t i = 0; i < ARRAY_SIZE(magics); i++) {
		struct craft c;
		struct go_info g;

		craft(&c, magics[i], names3, starts3, 3, 0x90);
		cr_assert_eq(go_pclntab__parse(c.b, c.size, &g), 0, "magic %#x", magics[i]);
		cr_assert_eq(g.nr_roots, 1, "magic %#x", magics[i]);
		cr_assert_eq(g.roots[0].lo, TEXT + 0x40);
		cr_assert_eq(g.roots[0].hi, TEXT + 0x60);
		cr_assert_eq(g.text.lo, TEXT);
		cr_assert_eq(g.text.hi, TEXT + 0x90);
	}
}

/* Names that only begin like a root's are not roots; ".abi0" ones are. */
Test(go_runtime, root_names)
{
	static const char *const names[] = {
		"runtime.goexit1", "runtime.mstart.abi0", "runtime.mstart0", "runtime.rt0_go.abi0x",
		"runtime.rt0_go",
	};
	static const uint32_t starts[] = { 0x0, 0x10, 0x20, 0x30, 0x40 };
	struct craft c;
	struct go_info g;

	craft(&c, 0xfffffff0, names, starts, 5, 0x50);
	cr_assert_eq(go_pclntab__parse(c.b, c.size, &g), 0);
	cr_assert_eq(g.nr_roots, 2);
	cr_assert_eq(g.roots[0].lo, TEXT + 0x10);
	cr_assert_eq(g.roots[1].lo, TEXT + 0x40);
	cr_assert_eq(g.roots[1].hi, TEXT + 0x50);
}

Test(go_runtime, crafted_tables_refused)
{
	struct craft c;
	struct go_info g;

	craft(&c, 0xfffffff0, names3, starts3, 3, 0x90);
	put(c.b + c.rec_at[1] + 4, 0x80000000u, 4);	/* a negative name offset */
	cr_assert_eq(go_pclntab__parse(c.b, c.size, &g), -ENOEXEC);
	cr_assert_eq(g.nr_roots, 0);

	craft(&c, 0xfffffff0, names3, starts3, 3, 0x90);
	put(c.b + c.rec_at[1] + 4, 4000, 4);	/* a name past its region */
	cr_assert_eq(go_pclntab__parse(c.b, c.size, &g), -ENOEXEC);

	craft(&c, 0xfffffff0, names3, starts3, 3, 0x90);
	put(c.b + c.rec_at[2], 0x61, 4);	/* a record naming another start */
	cr_assert_eq(go_pclntab__parse(c.b, c.size, &g), -ENOEXEC);

	craft(&c, 0xfffffff0, names3, starts3, 3, 0x90);
	put(c.b + c.ftab + 2 * 8, 0x10, 4);	/* unsorted */
	cr_assert_eq(go_pclntab__parse(c.b, c.size, &g), -ENOEXEC);

	craft(&c, 0xfffffff0, names3, starts3, 3, 0x90);
	put(c.b + c.ftab + 3 * 8 + 4, 1u << 31, 4);	/* a record past the table */
	put(c.b + 8, 1ull << 60, 8);	/* more functions than it holds */
	cr_assert_eq(go_pclntab__parse(c.b, c.size, &g), -ENOEXEC);

	craft(&c, 0xfffffff0, names3, starts3, 3, 0x90);
	put(c.b + 8, 0, 8);	/* none */
	cr_assert_eq(go_pclntab__parse(c.b, c.size, &g), -ENOEXEC);

	craft(&c, 0xfffffff0, names3, starts3, 3, 0x90);
	put(c.b + 40, c.size + 1, 8);	/* the names' end past the table */
	cr_assert_eq(go_pclntab__parse(c.b, c.size, &g), -ENOEXEC);

	craft(&c, 0xfffffff0, names3, starts3, 3, 0x90);
	put(c.b + 40, 72 + 3, 8);	/* a name cut by its region's end */
	cr_assert_eq(go_pclntab__parse(c.b, c.size, &g), -ENOEXEC);

	craft(&c, 0xfffffff0, names3, starts3, 3, 0x90);
	put(c.b + 24, 0, 8);	/* Go 1.26: textStart elsewhere */
	cr_assert_eq(go_pclntab__parse(c.b, c.size, &g), -ENOTSUP);

	craft(&c, 0xfffffff0, names3, starts3, 3, 0x90);
	c.b[7] = 4;	/* 32-bit */
	cr_assert_eq(go_pclntab__parse(c.b, c.size, &g), -ENOTSUP);

	craft(&c, 0xfffffff0, names3, starts3, 3, 0x90);
	c.b[0] = 0xf2;	/* no version known */
	cr_assert_eq(go_pclntab__parse(c.b, c.size, &g), -ENOEXEC);
}

static void assert_row(const struct cfi_table *t, size_t i, uint32_t pc, uint8_t rule, int32_t off)
{
	cr_assert_lt(i, t->nr, "row %zu of %zu", i, t->nr);
	cr_assert(t->rows[i].pc == pc && t->rows[i].cfa_rule == rule &&
		  (rule != UNW_CFA_SP || (t->rows[i].cfa_off == off && t->rows[i].ra_off == -8 &&
					  t->rows[i].fp_rule == UNW_FP_SAME)),
		  "row %zu: pc %#x rule %u off %d", i, t->rows[i].pc, t->rows[i].cfa_rule,
		  t->rows[i].cfa_off);
}

/*
 * Rows from pc-to-sp programs: zig-zag value deltas from -1 and pc
 * deltas; a function without one, a value below 0 and a program that
 * ends early are no rule; one that runs past its function stops there.
 */
Test(go_runtime, sp_rows_of_crafted_programs)
{
	/* 0 for 4 bytes, 24 for 0x30, 0 for 0xc: +1, +24, -24 */
	static const uint8_t a[] = { 2, 4, 48, 0x30, 47, 0x0c, 0 };
	/* -8 (no rule) for 8 bytes, then ends */
	static const uint8_t b[] = { 13, 8, 0 };
	/* 16 for 0x400 bytes: past the function's end (0x90) */
	static const uint8_t c3[] = { 34, 0x80, 0x08, 0 };
	struct cfi_table t;
	struct craft c;

	craft(&c, 0xfffffff0, names3, starts3, 3, 0x90);
	set_pcsp(&c, 0, a, sizeof(a), 4);
	set_pcsp(&c, 1, b, sizeof(b), 4);
	set_pcsp(&c, 2, c3, sizeof(c3), 4);
	cr_assert_eq(go_pclntab__sp_rows(c.b, c.size, &t), 0);
	assert_row(&t, 0, TEXT, UNW_CFA_SP, 8);
	assert_row(&t, 1, TEXT + 4, UNW_CFA_SP, 32);
	assert_row(&t, 2, TEXT + 0x34, UNW_CFA_SP, 8);
	/* 0x40: goexit's program, no rule and cut short: none till 0x60 */
	assert_row(&t, 3, TEXT + 0x40, UNW_CFA_NONE, 0);
	assert_row(&t, 4, TEXT + 0x60, UNW_CFA_SP, 24);
	assert_row(&t, 5, TEXT + 0x90, UNW_CFA_NONE, 0);
	cr_assert_eq(t.nr, 6);
	cfi_table__release(&t);

	/* no programs at all: no rule anywhere, so no rows */
	craft(&c, 0xfffffff0, names3, starts3, 3, 0x90);
	cr_assert_eq(go_pclntab__sp_rows(c.b, c.size, &t), 0);
	cr_assert_eq(t.nr, 0);
	cfi_table__release(&t);

	/* a program past the region, and a pc delta of 0 (no progress) */
	craft(&c, 0xfffffff0, names3, starts3, 3, 0x90);
	put(c.b + c.rec_at[0] + 16, 1000, 4);
	set_pcsp(&c, 1, (const uint8_t[]){ 2, 0x80, 0 }, 3, 4);
	cr_assert_eq(go_pclntab__sp_rows(c.b, c.size, &t), 0);
	cr_assert_eq(t.nr, 0, "%zu rows", t.nr);
	cfi_table__release(&t);
}

/* Go's linker writes .debug_frame from the same tables: the same rows, byte for byte. */
Test(go_runtime, sp_rows_are_go_debug_frame)
{
	const char *files[] = { FIXTURE_GO, FIXTURE_GO_PIE };

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		size_t size, off, len;
		char *image = read_whole(files[i], &size);
		struct cfi_table sp, df;

		section_at(image, size, i ? ".data.rel.ro.gopclntab" : ".gopclntab", &off, &len);
		cr_assert_eq(go_pclntab__sp_rows((uint8_t *)image + off, len, &sp), 0);
		cr_assert_eq(cfi_table__build_file(files[i], NULL, &df), 0);
		cr_assert_eq(sp.nr, df.nr, "'%s': %zu rows, .debug_frame %zu", files[i], sp.nr, df.nr);
		for (size_t k = 0; k < sp.nr; k++)
			cr_assert_eq(memcmp(&sp.rows[k], &df.rows[k], sizeof(sp.rows[k])), 0,
				     "'%s': row %zu at %#x", files[i], k, sp.rows[k].pc);
		cfi_table__release(&sp);
		cfi_table__release(&df);
		free(image);
	}
}

/* The real table of fixture_go, with libelf (the oracle's reader): malloc'd copy. */
static uint8_t *real_table(size_t *len)
{
	size_t size, off;
	char *image = read_whole(FIXTURE_GO, &size);
	uint8_t *t;

	section_at(image, size, ".gopclntab", &off, len);
	cr_assert_leq(off + *len, size);
	t = malloc(*len);
	cr_assert_not_null(t);
	memcpy(t, image + off, *len);
	free(image);
	return t;
}

/* Cut anywhere, a table is refused: its records are at its end. (ASan sees every read.) */
Test(go_runtime, truncated_tables)
{
	size_t len;
	uint8_t *t = real_table(&len);
	struct craft c;
	struct go_info g;

	cr_assert_eq(go_pclntab__parse(t, len, &g), 0);
	for (size_t n = 0; n < len; n = n < 4096 ? n + 1 : n + 997) {
		/* a copy of exactly n bytes: a read past them is ASan's */
		uint8_t *cut = malloc(n ? n : 1);

		struct cfi_table rows;

		memcpy(cut, t, n);
		cr_assert_neq(go_pclntab__parse(cut, n, &g), 0, "cut at %zu", n);
		cr_assert_neq(go_pclntab__sp_rows(cut, n, &rows), 0, "cut at %zu", n);
		free(cut);
	}
	craft(&c, 0xfffffffb, names3, starts3, 3, 0x90);
	for (size_t n = 0; n < c.size; n++)
		cr_assert_neq(go_pclntab__parse(c.b, n, &g), 0, "1.2 layout cut at %zu", n);
	free(t);
}

/* Bytes changed at random: never a read outside, and roots only inside the text. */
Test(go_runtime, mutated_tables)
{
	size_t len;
	uint8_t *t = real_table(&len), *m = malloc(len);
	unsigned seed = 22;

	cr_assert_not_null(m);
	for (int round = 0; round < 3000; round++) {
		struct go_info g;
		struct cfi_table rows;
		size_t span = round % 2 ? len : (len < 256 ? len : 256);

		memcpy(m, t, len);
		for (int k = 0; k < 1 + round % 4; k++)
			m[(size_t)rand_r(&seed) % span] = (uint8_t)rand_r(&seed);
		/* rows sorted, within the table's limits */
		if (!go_pclntab__sp_rows(m, len, &rows)) {
			for (size_t i = 1; i < rows.nr; i++)
				cr_assert_lt(rows.rows[i - 1].pc, rows.rows[i].pc, "round %d", round);
			cfi_table__release(&rows);
		}
		if (go_pclntab__parse(m, len, &g))
			continue;
		for (size_t i = 0; i < g.nr_roots; i++)
			cr_assert(g.roots[i].lo >= g.text.lo && g.roots[i].hi <= g.text.hi &&
				  g.roots[i].lo < g.roots[i].hi, "round %d", round);
	}
	free(m);
	free(t);
}

/* --- roots as rows ---------------------------------------------------- */

static struct unwind_row row(uint32_t pc, uint8_t rule, int32_t off)
{
	return (struct unwind_row){ .pc = pc, .cfa_rule = rule, .cfa_off = off, .ra_off = -8 };
}

static void table(struct cfi_table *t, const struct unwind_row *rows, size_t n)
{
	memset(t, 0, sizeof(*t));
	t->rows = malloc(n ? n * sizeof(*rows) : 1);
	cr_assert_not_null(t->rows);
	if (n)
		memcpy(t->rows, rows, n * sizeof(*rows));
	t->nr = n;
}

/* The rule at pc of old, in a root of g: END; else old's (no row: none). */
static void assert_overlay(const struct cfi_table *old, const struct cfi_table *t,
			   const struct go_info *g, uint64_t lo, uint64_t hi, uint64_t step)
{
	for (uint64_t pc = lo; pc < hi; pc += step) {
		const struct unwind_row *was = cfi_table__find(old, (uint32_t)pc);
		const struct unwind_row *now = cfi_table__find(t, (uint32_t)pc);
		bool in_root = false;

		for (size_t k = 0; k < g->nr_roots; k++)
			in_root |= pc >= g->roots[k].lo && pc < g->roots[k].hi;
		if (in_root) {
			cr_assert(now && now->cfa_rule == UNW_CFA_END, "pc %#lx: not END", (unsigned long)pc);
		} else if (!was || was->cfa_rule == UNW_CFA_NONE) {
			cr_assert(!now || now->cfa_rule == UNW_CFA_NONE, "pc %#lx: a rule from nowhere",
				  (unsigned long)pc);
		} else {
			struct unwind_row a = *was, b;

			cr_assert_not_null(now, "pc %#lx: its row lost", (unsigned long)pc);
			b = *now;
			a.pc = b.pc = 0;
			cr_assert_eq(memcmp(&a, &b, sizeof(a)), 0, "pc %#lx: another rule", (unsigned long)pc);
		}
	}
	for (size_t i = 1; i < t->nr; i++)
		cr_assert_lt(t->rows[i - 1].pc, t->rows[i].pc, "rows %zu, %zu out of order", i - 1, i);
}

Test(go_runtime, roots_as_rows)
{
	const struct unwind_row rows[] = {
		row(0x1000, UNW_CFA_SP, 8), row(0x1010, UNW_CFA_SP, 16), row(0x1030, UNW_CFA_SP, 8),
		row(0x1040, UNW_CFA_NONE, 0), row(0x1100, UNW_CFA_SP, 8), row(0x1110, UNW_CFA_NONE, 0),
	};
	const struct go_info cases[] = {
		{ .roots = { { 0x1008, 0x1020 } }, .nr_roots = 1 },	/* inside rows */
		{ .roots = { { 0x1010, 0x1030 } }, .nr_roots = 1 },	/* on rows' bounds */
		{ .roots = { { 0x800, 0x900 }, { 0x1038, 0x1050 } }, .nr_roots = 2 },
		{ .roots = { { 0x1000, 0x1008 }, { 0x1008, 0x1040 }, { 0x1108, 0x1200 } }, .nr_roots = 3 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct cfi_table old, t;

		table(&old, rows, ARRAY_SIZE(rows));
		table(&t, rows, ARRAY_SIZE(rows));
		cr_assert_eq(go_runtime__add_roots(&cases[i], &t), 0);
		assert_overlay(&old, &t, &cases[i], 0x700, 0x1300, 1);
		cfi_table__release(&old);
		cfi_table__release(&t);
	}
}

/* A Go file without .debug_frame (-w): its table is its roots alone. */
Test(go_runtime, roots_alone)
{
	const struct go_info g = { .roots = { { 0x1000, 0x1020 }, { 0x1020, 0x1030 }, { 0x2000, 0x2010 } },
				   .nr_roots = 3 };
	struct cfi_table t;

	table(&t, NULL, 0);
	cr_assert_eq(go_runtime__add_roots(&g, &t), 0);
	cr_assert_eq(t.nr, 4, "%zu rows", t.nr);
	cr_assert(t.rows[0].pc == 0x1000 && t.rows[0].cfa_rule == UNW_CFA_END);
	cr_assert(t.rows[1].pc == 0x1030 && t.rows[1].cfa_rule == UNW_CFA_NONE);
	cr_assert(t.rows[2].pc == 0x2000 && t.rows[2].cfa_rule == UNW_CFA_END);
	cr_assert(t.rows[3].pc == 0x2010 && t.rows[3].cfa_rule == UNW_CFA_NONE);
	cfi_table__release(&t);

	/* rows hold 32-bit addresses */
	const struct go_info far = { .roots = { { 0xfffffff0ull, 0x100000010ull } }, .nr_roots = 1 };

	table(&t, NULL, 0);
	cr_assert_eq(go_runtime__add_roots(&far, &t), -ERANGE);
	cfi_table__release(&t);
}

/* fixture_go's own table (.debug_frame) with its roots: the same rules elsewhere. */
Test(go_runtime, roots_over_a_real_table)
{
	struct cfi_table old, t;
	struct go_info g;

	cr_assert_eq(read_go(FIXTURE_GO, &g), 0);
	cr_assert_eq(cfi_table__build_file(FIXTURE_GO, NULL, &old), 0);
	cr_assert_eq(cfi_table__build_file(FIXTURE_GO, NULL, &t), 0);
	cr_assert_eq(go_runtime__add_roots(&g, &t), 0);
	assert_overlay(&old, &t, &g, g.text.lo, g.text.hi, 7);
	for (size_t k = 0; k < g.nr_roots; k++)
		assert_overlay(&old, &t, &g, g.roots[k].lo - 64, g.roots[k].hi + 64, 1);
	cfi_table__release(&old);
	cfi_table__release(&t);
}

/* --- mappings ---------------------------------------------------------- */

static struct unwind_map mapping(uint64_t start, uint32_t len, uint64_t bias)
{
	return (struct unwind_map){ .start = start, .len = len, .bias = bias, .first_row = 7,
				    .nr_rows = 9 };
}

Test(go_runtime, mappings_cut_around_c)
{
	const struct go_range text = { 0x402000, 0x480000 }, none = { 0, 0 };
	struct unwind_map m[3];

	/* all of it Go's, or not known: one entry, flagged */
	m[0] = mapping(0x402000, 0x7e000, 0);
	cr_assert_eq(go_runtime__map(&text, m, 3), 1);
	cr_assert_eq(m[0].flags, UNWIND_MAP_GO);
	m[0] = mapping(0x401000, 0x90000, 0);
	cr_assert_eq(go_runtime__map(&none, m, 3), 1);
	cr_assert_eq(m[0].flags, UNWIND_MAP_GO);

	/* C before and after (cgo): three, the middle one flagged, one bias and table */
	m[0] = mapping(0x401000, 0x90000, 0);
	cr_assert_eq(go_runtime__map(&text, m, 3), 3);
	cr_assert(m[0].start == 0x401000 && m[0].len == 0x1000 && !m[0].flags);
	cr_assert(m[1].start == 0x402000 && m[1].len == 0x7e000 && m[1].flags == UNWIND_MAP_GO);
	cr_assert(m[2].start == 0x480000 && m[2].len == 0x11000 && !m[2].flags);
	for (int i = 0; i < 3; i++)
		cr_assert(m[i].bias == 0 && m[i].first_row == 7 && m[i].nr_rows == 9);

	/* a PIE's bias: the same cut where it is mapped */
	m[0] = mapping(0x7f0000401000ull, 0x7f000, 0x7f0000000000ull);
	cr_assert_eq(go_runtime__map(&text, m, 3), 2);
	cr_assert(m[0].start == 0x7f0000401000ull && m[0].len == 0x1000 && !m[0].flags);
	cr_assert(m[1].start == 0x7f0000402000ull && m[1].len == 0x7e000 && m[1].flags);

	/* no room for three: flagged whole */
	m[0] = mapping(0x401000, 0x90000, 0);
	cr_assert_eq(go_runtime__map(&text, m, 2), 1);
	cr_assert_eq(m[0].flags, UNWIND_MAP_GO);

	/* none of the Go text here */
	m[0] = mapping(0x500000, 0x1000, 0);
	cr_assert_eq(go_runtime__map(&text, m, 3), 1);
	cr_assert_eq(m[0].flags, 0);
}
