/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_elf.h - the lookups the symbolizer makes on a loaded elf_symtab,
 * with the invariants they must keep whatever file was loaded: a symbol is
 * returned only for an address it covers, and lives in the table.
 */
#ifndef FUZZ_ELF_H
#define FUZZ_ELF_H

#include "symbols/elf_symtab.h"
#include "fuzz.h"

static inline void fuzz_elf_queries(const struct elf_symtab *st, const uint8_t *data, size_t size)
{
	size_t nr = elf_symtab__count(st);

	for (size_t i = 0; i < 8; i++) {
		uint64_t q = fuzz_u64_from_end(data, size, i), vaddr = 0;
		const struct elf_sym *sym;

		if (!elf_symtab__offset_to_vaddr(st, q, &vaddr))
			q = vaddr;
		sym = elf_symtab__find(st, q);
		if (!sym)
			continue;
		FUZZ_CHECK(elf_symtab__index(st, sym) < nr);
		FUZZ_CHECK(sym->addr <= q);
		FUZZ_CHECK(!sym->size || q - sym->addr < sym->size);
		fuzz_touch(sym->name);
		/* the neighbours of a hit: the edges of the binary search */
		elf_symtab__find(st, sym->addr - 1);
		elf_symtab__find(st, sym->addr + sym->size);
	}
	/* symbols at address 0 are undefined or absolute: never loaded */
	FUZZ_CHECK(!elf_symtab__find(st, 0));
}

#endif /* FUZZ_ELF_H */
