// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_gopclntab.c - Go's function table (symbols/go_pcln.c, read by
 * unwind/go_pclntab.c and symbols/go_symbols.c) on arbitrary bytes: a
 * table read has its roots inside its text, sorted and apart; rows made
 * from its pc-to-sp tables are sorted, within the table's limit, of the
 * rules they may have; its symbols are sized, apart, named within the
 * table; a refusal says why. An input that is an ELF image goes through
 * go_runtime.c as a Go file's does: detection, the table (.gopclntab or
 * .symtab), its rows and roots; and through go_symbols__load() and
 * go_lines (--lines at some of its functions).
 */
#include <errno.h>

#include "symbols/elf_read.h"
#include "fuzz.h"
#include "symbols/go_lines.h"
#include "unwind/go_pclntab.h"
#include "symbols/go_symbols.h"

static const struct budget fuzz_budget = {
	.max_section_bytes = 4 << 20,
	.max_inflate_bytes = 4 << 20,
	.max_inflate_ratio = 64,
	.max_sections = 256,
	.max_symbols = 1 << 16,
};

/*
 * The symbols of a table: each of some bytes, after the one before, its
 * name within size bytes (the copy of the names region is no bigger), and
 * found at its address.
 */
static void check_symbols(struct elf_symtab *st, size_t size)
{
	const struct elf_sym *s, *prev = NULL;

	if (!st) {
		FUZZ_CHECK(errno == ENOEXEC || errno == ENOTSUP || errno == EFBIG || errno == ENOMEM ||
			   errno == ENOENT || errno == ECANCELED);
		return;
	}
	for (size_t i = 0; i < elf_symtab__count(st); i++) {
		s = elf_symtab__at(st, i);
		FUZZ_CHECK(s->size > 0 && s->addr + s->size > s->addr);
		FUZZ_CHECK(strnlen(s->name, size) < size);
		FUZZ_CHECK(!prev || s->addr >= prev->addr + prev->size);
		FUZZ_CHECK(elf_symtab__find(st, s->addr) == s);
		prev = s;
	}
	elf_symtab__free(st);
}

/* A Go file's table as unwind_procs.c makes it: rows from .gopclntab, then the roots. */
static void go_file(const uint8_t *data, size_t size)
{
	struct cfi_table t = { 0 };
	char *image = malloc(size);
	struct go_info g;
	Elf *elf;

	if (!image)
		return;
	memcpy(image, data, size);
	elf = elf_read__memory(image, size, &fuzz_budget);
	if (elf && !go_runtime__read(elf, &fuzz_budget, &g)) {
		FUZZ_CHECK(g.nr_roots <= GO_MAX_ROOTS);
		FUZZ_CHECK(!g.only_go || g.text.hi);
		go_runtime__add_sp_rows(elf, &fuzz_budget, &g, &t);
		if (!go_runtime__add_roots(&g, &t))
			for (size_t i = 1; i < t.nr; i++)
				FUZZ_CHECK(t.rows[i - 1].pc < t.rows[i].pc);
		cfi_table__release(&t);
	}
	if (elf) {
		struct elf_symtab *st = go_symbols__load(elf, &fuzz_budget);
		struct go_lines *gl = go_lines__open(elf, &fuzz_budget);

		/* --lines at the start and the middle of some of its functions */
		for (size_t i = 0; gl && st && i < elf_symtab__count(st) && i < 256; i++) {
			const struct elf_sym *s = elf_symtab__at(st, i);
			struct srcline_frame fr[8];

			for (int k = 0; k < 2; k++) {
				int n = go_lines__lookup(gl, s->addr + k * (s->size / 2), fr, 8);

				FUZZ_CHECK(n == -ENOENT || (n >= 1 && n <= 8));
				for (int j = 0; j < n; j++)
					FUZZ_CHECK((!fr[j].file || strnlen(fr[j].file, size) < size) &&
						   (!fr[j].name || strnlen(fr[j].name, size) < size));
			}
		}
		go_lines__free(gl);
		check_symbols(st, size);
	}
	elf_end(elf);
	free(image);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfi_table t;
	struct go_info g;
	int err;

	if (size >= 4 && !memcmp(data, "\177ELF", 4)) {
		go_file(data, size);
		return 0;
	}
	err = go_pclntab__parse(data, size, &g);
	if (!err) {
		FUZZ_CHECK(g.text.lo < g.text.hi && g.nr_roots <= GO_MAX_ROOTS);
		for (size_t i = 0; i < g.nr_roots; i++) {
			FUZZ_CHECK(g.roots[i].lo < g.roots[i].hi);
			FUZZ_CHECK(g.roots[i].lo >= g.text.lo && g.roots[i].hi <= g.text.hi);
			FUZZ_CHECK(!i || g.roots[i].lo >= g.roots[i - 1].hi);
		}
	} else {
		FUZZ_CHECK(err == -ENOEXEC || err == -ENOTSUP);
		FUZZ_CHECK(!g.nr_roots && !g.text.hi);
	}
	err = go_pclntab__sp_rows(data, size, &t);
	if (!err) {
		FUZZ_CHECK(t.nr <= CFI_TABLE_MAX_ROWS);
		for (size_t i = 0; i < t.nr; i++) {
			FUZZ_CHECK(!i || t.rows[i - 1].pc < t.rows[i].pc);
			FUZZ_CHECK(t.rows[i].cfa_rule == UNW_CFA_SP || t.rows[i].cfa_rule == UNW_CFA_NONE);
			FUZZ_CHECK(t.rows[i].cfa_rule != UNW_CFA_SP || t.rows[i].cfa_off >= 8);
		}
		cfi_table__release(&t);
	} else {
		FUZZ_CHECK(err == -ENOEXEC || err == -ENOTSUP || err == -ERANGE || err == -EFBIG ||
			   err == -ENOMEM);
		FUZZ_CHECK(!t.rows && !t.nr);
	}
	check_symbols(go_symbols__from_table(data, size, &fuzz_budget), size);
	return 0;
}
