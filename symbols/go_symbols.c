// SPDX-License-Identifier: GPL-2.0
/*
 * go_symbols.c - a Go executable's function symbols from its function
 * table (go_symbols.h).
 *
 * Go's linker writes each function's name once, for it alone: the names
 * of the functions add up to the names region at most. A table whose
 * names add up to more shares them, which no linker does; it is refused,
 * so what one function table costs is its own size twice (the names
 * copied once here, once more by elf_symtab__merge()), whatever the
 * offsets in it say.
 */
#include <errno.h>
#include <stdbool.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/elf_read.h"
#include "symbols/go_pcln.h"
#include "symbols/go_symbols.h"

/* How many functions between two looks at the cancel flag. */
#define CANCEL_EVERY 65536

static struct elf_symtab *fail(struct elf_sym *syms, char *pool, int err)
{
	free(syms);
	free(pool);
	errno = err;
	return NULL;
}

struct elf_symtab *go_symbols__from_table(const uint8_t *data, size_t size,
					  const struct budget *b)
{
	struct elf_sym *syms = NULL;
	uint64_t region, names_bytes = 0;
	char *pool = NULL;
	struct go_pcln p;
	struct go_func f;
	size_t nr = 0;
	int err;

	b = b ? b : budget__default();
	err = go_pcln__open(&p, data, size);
	if (err)
		return fail(NULL, NULL, -err);
	if (p.nfunc > b->max_symbols)
		return fail(NULL, NULL,
			    -budget__refuse("Go's function table has %llu functions, over %llu",
					    (unsigned long long)p.nfunc,
					    (unsigned long long)b->max_symbols));
	/* the names point into a copy of the names region: the table is the caller's */
	region = p.names_end - p.names;
	syms = calloc(p.nfunc, sizeof(*syms));
	pool = malloc(region);
	if (!syms || !pool)
		return fail(syms, pool, ENOMEM);
	memcpy(pool, p.d + p.names, region);
	for (uint64_t i = 0; i < p.nfunc; i++) {
		if (i % CANCEL_EVERY == 0 && budget__cancelled(b))
			return fail(syms, pool, ECANCELED);
		if (go_pcln__func(&p, i, &f))
			return fail(syms, pool, ENOEXEC);
		names_bytes += f.name_len + 1;
		if (names_bytes > region)
			return fail(syms, pool, ENOEXEC);
		/* one symbol per address: of functions at one start, the one with bytes */
		if (f.lo == f.hi)
			continue;
		syms[nr++] = (struct elf_sym){
			.addr = f.lo,
			.size = f.hi - f.lo,
			.name = pool + (f.name - (const char *)p.d - p.names),
		};
	}
	return elf_symtab__adopt(syms, nr, pool);
}

/* The sections that say where elf's function table is, by one pass over the headers. */
struct table_sections {
	Elf_Scn *named, *relro;	/* .gopclntab (or a PIE's); .data.rel.ro */
	GElf_Shdr named_sh, relro_sh;
	bool go;		/* .go.buildinfo: a Go file */
};

static void find_sections(Elf *elf, struct table_sections *t)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *name;
	GElf_Shdr sh;

	memset(t, 0, sizeof(*t));
	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (go_pcln__is_section(name) && !t->named) {
			t->named = scn;
			t->named_sh = sh;
		} else if (!strcmp(name, ".data.rel.ro")) {
			t->relro = scn;
			t->relro_sh = sh;
		} else if (!strcmp(name, ".go.buildinfo")) {
			t->go = true;
		}
	}
}

/* The first 8-aligned header in d that opens as a table, and has a first function. */
static bool scan_for_table(const uint8_t *d, size_t size, size_t *off)
{
	struct go_pcln p;
	struct go_func f;

	for (size_t i = 0; i + 16 <= size; i += 8) {
		if (d[i + 1] != 0xff || d[i + 2] != 0xff || d[i + 3] != 0xff || d[i + 4] || d[i + 5] ||
		    d[i + 6] != 1 || d[i + 7] != 8)
			continue;
		if (!go_pcln__open(&p, d + i, size - i) && !go_pcln__func(&p, 0, &f)) {
			*off = i;
			return true;
		}
	}
	return false;
}

int go_symbols__table(Elf *elf, const struct budget *b, const uint8_t **data, size_t *size,
		      uint64_t *addr)
{
	struct table_sections t;
	size_t off = 0;
	GElf_Shdr *sh;
	Elf_Data *d;

	b = b ? b : budget__default();
	find_sections(elf, &t);
	if (!t.named && !(t.go && t.relro))
		return -ENOENT;
	sh = t.named ? &t.named_sh : &t.relro_sh;
	d = elf_read__section(t.named ? t.named : t.relro, sh,
			      t.named ? ".gopclntab" : ".data.rel.ro", b);
	if (!d)
		return -errno;
	if (!d->d_buf || !d->d_size)
		return -ENOEXEC;
	if (!t.named && !scan_for_table(d->d_buf, d->d_size, &off))
		return -ENOENT;
	*data = (const uint8_t *)d->d_buf + off;
	*size = d->d_size - off;
	*addr = sh->sh_addr + off;
	return 0;
}

struct elf_symtab *go_symbols__load(Elf *elf, const struct budget *b)
{
	const uint8_t *data;
	uint64_t addr;
	size_t size;
	int err;

	err = go_symbols__table(elf, b, &data, &size, &addr);
	if (err) {
		errno = -err;
		return NULL;
	}
	return go_symbols__from_table(data, size, b);
}

int go_symbols__add(struct elf_symtab *st, Elf *elf, const struct budget *b)
{
	struct elf_symtab *go = go_symbols__load(elf, b);
	int err;

	if (!go)
		return -errno;
	err = elf_symtab__merge(st, go);
	elf_symtab__free(go);
	return err;
}
