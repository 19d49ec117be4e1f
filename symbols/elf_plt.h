/* SPDX-License-Identifier: GPL-2.0 */
/*
 * elf_plt.h - names for the PLT stubs of an x86-64 ELF file, as objdump
 * and perf print them: "memcmp@plt" for the stub that jumps to memcmp.
 * No symbol table has them, and without them a sample in a stub is taken
 * for the function before it (_init) or for none at all.
 *
 * Each 16-byte slot of .plt and .plt.sec, and each 8- or 16-byte one of
 * .plt.got, whose code is an indirect jump through a GOT slot
 * ([endbr64] [bnd] jmp *disp32(%rip)) is a stub; the dynamic relocation
 * of that GOT slot names it: R_X86_64_JUMP_SLOT and R_X86_64_GLOB_DAT by
 * their .dynsym symbol, R_X86_64_IRELATIVE (an IFUNC) by the function at
 * its resolver's address, or "*ABS*+0xADDR@plt" as objdump has it. What
 * is left of those sections (the lazy-binding header, .plt's own stubs
 * where .plt.sec has the jumps, a stub no relocation names) takes the
 * section's name, ".plt", as perf has it.
 *
 * Other machines have no PLT symbols here. Every count, index and offset
 * comes from the file and is checked: a relocation whose symbol is not in
 * .dynsym, or a name not in its string table, names nothing.
 */
#ifndef ELF_PLT_H
#define ELF_PLT_H

#include <libelf.h>

#include "symbols/budget.h"
#include "symbols/elf_symtab.h"

/*
 * The PLT stubs of elf as a table of their own, for the caller to merge
 * into the file's symbols last (elf_symtab__merge): a real symbol at a
 * stub's address keeps its name. names (NULL: none) are the file's
 * symbols, which name IFUNCs. NULL with errno: ENOENT (not x86-64, or no
 * PLT: a debug file's sections are NOBITS), EFBIG (over budget:
 * budget__why()), ECANCELED, ENOMEM.
 */
struct elf_symtab *elf_plt__load(Elf *elf, const struct elf_symtab *names,
				 const struct budget *b);

#endif /* ELF_PLT_H */
