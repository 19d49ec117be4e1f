/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go_symbols.h - names for a Go executable's functions from its function
 * table (.gopclntab), which Go's linker writes for the runtime and
 * stripping keeps: `go build -ldflags="-s -w"`, as most Go binaries in
 * containers are built, leaves no .symtab and no DWARF, and without these
 * every Go frame would print as the file's name.
 *
 * The table is found by its section (.gopclntab, or .data.rel.ro.gopclntab
 * in a PIE Go linked itself), else in a Go file (.go.buildinfo) that a
 * linker of C linked as a PIE (cgo), merged into .data.rel.ro, as the
 * first 8-aligned header there that reads; it is read through go_pcln.h,
 * which checks every offset against it, under the file's budget.
 */
#ifndef GO_SYMBOLS_H
#define GO_SYMBOLS_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/budget.h"
#include "symbols/elf_symtab.h"

/*
 * The functions of the table in data (size bytes) as a symbol table of
 * their own (elf_symtab__adopt(): no segments), each sized to the next
 * function's start, for the caller to merge into the file's. Its names
 * are copies of the table's, NUL-terminated there. NULL with errno:
 * ENOEXEC (not a table, or one that does not hold together), ENOTSUP (a
 * version or machine not read), EFBIG (more functions than b's
 * max_symbols: budget__why()), ECANCELED, ENOMEM. b NULL: the default.
 */
struct elf_symtab *go_symbols__from_table(const uint8_t *data, size_t size,
					  const struct budget *b);

/*
 * Where elf's function table is: its bytes (to the end of its section:
 * *size), read under b, and the address it is loaded at. Returns 0,
 * -ENOENT where elf has none, or -errno as elf_read__section() fails.
 */
int go_symbols__table(Elf *elf, const struct budget *b, const uint8_t **data, size_t *size,
		      uint64_t *addr);

/*
 * The same from elf's function table, read under b. NULL with errno:
 * ENOENT where elf has none, else as elf_read__section() and the above.
 */
struct elf_symtab *go_symbols__load(Elf *elf, const struct budget *b);

/*
 * Add elf's Go functions to st, its symbols (elf_symtab__merge(): a
 * symbol st has at an address keeps its name). Returns 0 when added,
 * -errno as go_symbols__load() fails (-ENOENT: not a Go file), -ENOMEM
 * (st unchanged).
 */
int go_symbols__add(struct elf_symtab *st, Elf *elf, const struct budget *b);

#endif /* GO_SYMBOLS_H */
