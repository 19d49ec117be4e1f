// SPDX-License-Identifier: GPL-2.0
/*
 * go_runtime.c - Go executables for the unwinder (go_runtime.h): told
 * apart by their sections, their Go text, roots and pc-to-sp rows read
 * from .gopclntab (go_pclntab.c; .symtab's roots when it cannot be
 * read), the roots made END rows of their table, their mappings flagged.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/elf_read.h"
#include "symbols/go_pcln.h"
#include "unwind/go_pclntab.h"
#include "symbols/go_symbols.h"
#include "unwind/go_runtime.h"

#define NT_GO_BUILDID 4

static int cmp_range(const void *a, const void *b)
{
	const struct go_range *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

/*
 * The roots from .symtab (scn, its header sh), for a table that could not
 * be read: sized function symbols of the roots' names, sorted, apart.
 */
static int roots_from_symtab(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, const struct budget *b,
			     struct go_info *g)
{
	Elf_Scn *str_scn = elf_getscn(elf, sh->sh_link);
	GElf_Shdr str_sh;
	Elf_Data *syms, *strs;
	size_t n, kept = 0;

	if (sh->sh_entsize != sizeof(Elf64_Sym) || !str_scn || !gelf_getshdr(str_scn, &str_sh) ||
	    str_sh.sh_type != SHT_STRTAB)
		return -ENOEXEC;
	syms = elf_read__section(scn, sh, ".symtab", b);
	if (!syms)
		return -errno;
	strs = elf_read__section(str_scn, &str_sh, ".strtab", b);
	if (!strs)
		return -errno;
	n = syms->d_size / sizeof(Elf64_Sym);
	if (n > b->max_symbols)
		return budget__refuse(".symtab has %zu symbols, over %llu", n,
				      (unsigned long long)b->max_symbols);
	for (size_t i = 0; i < n && g->nr_roots < GO_MAX_ROOTS; i++) {
		GElf_Sym s;
		const char *name;
		size_t max;

		if (!gelf_getsym(syms, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
		    !s.st_size || s.st_name >= strs->d_size || s.st_value + s.st_size < s.st_value)
			continue;
		name = (const char *)strs->d_buf + s.st_name;
		max = strs->d_size - s.st_name;
		if (strnlen(name, max) < max && go_pclntab__is_root(name, strlen(name)))
			go_info__add_root(g, s.st_value, s.st_value + s.st_size);
	}
	qsort(g->roots, g->nr_roots, sizeof(g->roots[0]), cmp_range);
	/* a symbol over the one before it: only the first is kept */
	for (size_t i = 0; i < g->nr_roots; i++)
		if (!kept || g->roots[i].lo >= g->roots[kept - 1].hi)
			g->roots[kept++] = g->roots[i];
	g->nr_roots = kept;
	g->from_symtab = true;
	return 0;
}

/* The Go build-id note (owner "Go", type 4) is in note section scn. */
static bool has_go_note(Elf_Scn *scn, GElf_Shdr *sh, const struct budget *b)
{
	Elf_Data *d = elf_read__section(scn, sh, "a note section", b);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GO_BUILDID && nh.n_namesz == 3 &&
		    !memcmp((const char *)d->d_buf + name_off, "Go", 3))
			return true;
	}
	return false;
}

/* The sections that tell a Go file, found by one pass over the headers. */
struct go_sections {
	Elf_Scn *symtab;
	GElf_Shdr symtab_sh;
	bool go;
	struct go_range exec;	/* the executable sections' span; 0, 0: none */
};

static int find_sections(Elf *elf, const struct budget *b, struct go_sections *s)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	memset(s, 0, sizeof(*s));
	if (elf_getshdrstrndx(elf, &shstrndx))
		return -ENOEXEC;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if ((sh.sh_flags & SHF_EXECINSTR) && sh.sh_size && sh.sh_addr + sh.sh_size > sh.sh_addr) {
			if (!s->exec.hi || sh.sh_addr < s->exec.lo)
				s->exec.lo = sh.sh_addr;
			if (sh.sh_addr + sh.sh_size > s->exec.hi)
				s->exec.hi = sh.sh_addr + sh.sh_size;
		}
		if (sh.sh_type == SHT_SYMTAB) {
			s->symtab = scn;
			s->symtab_sh = sh;
		} else if (sh.sh_type == SHT_NOBITS) {
			continue;
		} else if (go_pcln__is_section(name)) {
			s->go = true;
		} else if (!strcmp(name, ".go.buildinfo")) {
			s->go = true;
		} else if (sh.sh_type == SHT_NOTE && !s->go && has_go_note(scn, &sh, b)) {
			s->go = true;
		}
	}
	return 0;
}

int go_runtime__read(Elf *elf, const struct budget *b, struct go_info *g)
{
	struct go_sections s;
	const uint8_t *table;
	uint64_t addr;
	GElf_Ehdr eh;
	size_t size;
	int err;

	memset(g, 0, sizeof(*g));
	b = b ? b : budget__default();
	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return -ENOENT;
	if (find_sections(elf, b, &s) || !s.go)
		return -ENOENT;
	/* its own section, or in a cgo PIE's .data.rel.ro (go_symbols.h) */
	err = go_symbols__table(elf, b, &table, &size, &addr);
	if (err == -ECANCELED)
		return err;
	if (!err && !go_pclntab__parse(table, size, g)) {
		/* internal linking: .text is the Go text, and no PLT */
		g->only_go = s.exec.hi && s.exec.lo >= g->text.lo && s.exec.hi <= g->text.hi;
		return 0;
	}
	if (s.symtab) {
		err = roots_from_symtab(elf, s.symtab, &s.symtab_sh, b, g);
		if (err == -ECANCELED)
			return err;
		if (err)
			memset(g, 0, sizeof(*g));
	}
	return 0;
}

int go_runtime__digest(Elf *elf, const struct budget *b, const struct go_info *g,
		       uint8_t out[SHA256_LEN])
{
	static const char tag[] = "profile: Go rows, 2";
	const uint8_t *table;
	struct sha256 s;
	uint64_t addr;
	size_t size;
	int err;

	b = b ? b : budget__default();
	sha256__init(&s);
	sha256__update(&s, tag, sizeof(tag));
	sha256__u64(&s, g->text.lo);
	sha256__u64(&s, g->text.hi);
	sha256__u64(&s, g->nr_roots);
	for (size_t i = 0; i < g->nr_roots; i++) {
		sha256__u64(&s, g->roots[i].lo);
		sha256__u64(&s, g->roots[i].hi);
	}
	sha256__u64(&s, ((uint64_t)g->from_symtab << 1) | g->only_go);
	/* the pc-to-sp rows are made from the table, wherever it is */
	err = go_symbols__table(elf, b, &table, &size, &addr);
	if (err && err != -ENOENT)
		return err;
	sha256__u64(&s, err ? UINT64_MAX : size);
	if (!err)
		sha256__update(&s, table, size);
	sha256__final(&s, out);
	return 0;
}

size_t go_runtime__map(const struct go_range *text, struct unwind_map *m, size_t room)
{
	uint64_t start = m[0].start, end = start + m[0].len;
	/* the Go text where this mapping has it (the bias may wrap: a PIE's is "negative") */
	uint64_t lo = text->lo + m[0].bias, hi = text->hi + m[0].bias;
	struct unwind_map whole;
	uint64_t cut[4];
	size_t n = 0;

	m[0].flags |= UNWIND_MAP_GO;
	if (!text->hi || (lo <= start && hi >= end))
		return 1;
	if (hi <= start || lo >= end || lo >= hi) {
		m[0].flags &= ~UNWIND_MAP_GO;	/* none of it is Go's */
		return 1;
	}
	if (room < 3)
		return 1;
	whole = m[0];
	cut[0] = start;
	cut[1] = lo > start ? lo : start;
	cut[2] = hi < end ? hi : end;
	cut[3] = end;
	for (int i = 0; i < 3; i++) {
		if (cut[i] == cut[i + 1])
			continue;
		m[n] = whole;
		m[n].start = cut[i];
		m[n].len = (__u32)(cut[i + 1] - cut[i]);
		if (i != 1)
			m[n].flags &= ~UNWIND_MAP_GO;
		n++;
	}
	return n;
}

/*
 * t with [lo, hi) replaced by the rows ins (sorted, in [lo, hi)); what
 * held at hi holds after it again.
 */
static int overlay(struct cfi_table *t, uint64_t lo, uint64_t hi, const struct unwind_row *ins,
		   size_t n)
{
	struct unwind_row after = { .pc = (uint32_t)hi, .cfa_rule = UNW_CFA_NONE };
	struct go_rows v = { 0 };
	size_t i = 0;
	int err = 0;

	if (hi > UINT32_MAX || lo >= hi)
		return -ERANGE;
	while (!err && i < t->nr && t->rows[i].pc < lo)
		err = go_rows__push(&v, &t->rows[i++]);
	/* what held at hi before: the last row at or before it */
	while (i < t->nr && t->rows[i].pc <= hi)
		i++;
	if (i) {
		after = t->rows[i - 1];
		after.pc = (uint32_t)hi;
	}
	for (size_t k = 0; !err && k < n; k++)
		err = go_rows__push(&v, &ins[k]);
	if (!err)
		err = go_rows__push(&v, &after);
	while (!err && i < t->nr)
		err = go_rows__push(&v, &t->rows[i++]);
	if (err) {
		free(v.r);
		return err;
	}
	free(t->rows);
	t->rows = v.r;
	t->nr = v.n;
	return 0;
}

int go_runtime__add_roots(const struct go_info *g, struct cfi_table *t)
{
	for (size_t k = 0; k < g->nr_roots; k++) {
		struct unwind_row end = { .pc = (uint32_t)g->roots[k].lo, .cfa_rule = UNW_CFA_END };
		int err = overlay(t, g->roots[k].lo, g->roots[k].hi, &end, 1);

		if (err)
			return err;
	}
	return 0;
}

int go_runtime__add_sp_rows(Elf *elf, const struct budget *b, const struct go_info *g,
			    struct cfi_table *t)
{
	const uint8_t *table;
	struct cfi_table sp;
	uint64_t addr;
	size_t size;
	int err;

	if (!g->text.hi)
		return 0;
	/* Go's .debug_frame gave its rows */
	for (size_t i = 0; i < t->nr; i++)
		if (t->rows[i].pc >= g->text.lo && t->rows[i].pc < g->text.hi &&
		    t->rows[i].cfa_rule != UNW_CFA_NONE)
			return 0;
	b = b ? b : budget__default();
	err = go_symbols__table(elf, b, &table, &size, &addr);
	if (err)
		return err;
	err = go_pclntab__sp_rows(table, size, &sp);
	if (!err)
		err = overlay(t, g->text.lo, g->text.hi, sp.rows, sp.nr);
	cfi_table__release(&sp);
	return err;
}
