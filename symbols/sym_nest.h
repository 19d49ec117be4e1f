/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sym_nest.h - functions nested in others, as assembler code labels its
 * inner entry points: past the end of a nested function, an address is in
 * the one that encloses it again. Built once over a sorted symbol table;
 * most tables have no nesting, and then nothing is built.
 */
#ifndef SYM_NEST_H
#define SYM_NEST_H

#include <stddef.h>
#include <stdint.h>

#include "symbols/elf_symtab.h"

struct sym_nest;

/*
 * Over syms, sorted by address, one symbol per address. Returns 0 or
 * -ENOMEM; *out is NULL when no function nests in another.
 */
int sym_nest__build(const struct elf_sym *syms, size_t nr, struct sym_nest **out);

/*
 * The function that encloses vaddr where syms[i], the nearest one at or
 * below it, is sized and ends before it; NULL when none does (n NULL too).
 */
const struct elf_sym *sym_nest__enclosing(const struct sym_nest *n, const struct elf_sym *syms,
					  size_t i, uint64_t vaddr);
void sym_nest__free(struct sym_nest *n);

#endif /* SYM_NEST_H */
