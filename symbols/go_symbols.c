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
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "elf_read.h"
#include "go_pcln.h"
#include "go_symbols.h"

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

/* elf's function table, NULL where it has none. */
static Elf_Scn *find_table(Elf *elf, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *name;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, shdr) || shdr->sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (name && go_pcln__is_section(name))
			return scn;
	}
	return NULL;
}

struct elf_symtab *go_symbols__load(Elf *elf, const struct budget *b)
{
	GElf_Shdr shdr;
	Elf_Data *d;
	Elf_Scn *scn;

	b = b ? b : budget__default();
	scn = find_table(elf, &shdr);
	if (!scn) {
		errno = ENOENT;
		return NULL;
	}
	d = elf_read__section(scn, &shdr, ".gopclntab", b);
	if (!d)
		return NULL;
	if (!d->d_buf || !d->d_size) {
		errno = ENOEXEC;
		return NULL;
	}
	return go_symbols__from_table(d->d_buf, d->d_size, b);
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
