/* SPDX-License-Identifier: GPL-2.0 */
/*
 * elf_symtab.h - the function symbols and loadable segments of one ELF
 * file, read with libelf and kept after the file is closed.
 */
#ifndef ELF_SYMTAB_H
#define ELF_SYMTAB_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/budget.h"

struct elf_sym {
	uint64_t addr;		/* st_value: link-time virtual address */
	uint64_t size;		/* 0 when the symbol does not say */
	const char *name;
};

struct elf_symtab;

/* Where the function symbols came from, worst to best. */
enum elf_symtab_kind {
	ELF_SYMTAB_NONE,	/* no function symbols at all */
	ELF_SYMTAB_DYNSYM,	/* only the exported ones: a stripped file */
	ELF_SYMTAB_FULL,	/* .symtab, the file's own or a debug file's */
};

/*
 * Loaders return NULL with errno set: ENOEXEC for a file that is not a
 * usable ELF object, EFBIG for one over its budget (budget.h; the default
 * budget where none is passed, budget__why() says what), ECANCELED when
 * the budget's cancel flag was raised. A file without function symbols
 * loads (its segments still translate addresses) with
 * elf_symtab__count() == 0. .symtab is read when it has functions, else
 * .dynsym. Files are read with pread, never mapped (elf_read.h).
 */
struct elf_symtab *elf_symtab__load_fd(int fd);
struct elf_symtab *elf_symtab__load_file(const char *path);
struct elf_symtab *elf_symtab__load_mem(const void *image, size_t size);
/* The same from an open libelf handle, which stays the caller's. */
struct elf_symtab *elf_symtab__load_elf(Elf *elf);
struct elf_symtab *elf_symtab__load_fd_budget(int fd, const struct budget *b);
struct elf_symtab *elf_symtab__load_elf_budget(Elf *elf, const struct budget *b);

/*
 * A table of symbols made elsewhere (the PLT stubs': elf_plt.h), which it
 * takes over: syms, malloc'ed, sorted by address, one per address, their
 * names in pool, malloc'ed too. It has no segments and its kind is
 * ELF_SYMTAB_NONE. NULL with errno ENOMEM (syms and pool freed).
 */
struct elf_symtab *elf_symtab__adopt(struct elf_sym *syms, size_t nr, char *pool);

/*
 * Add src's function symbols to dst (a debug file's or MiniDebugInfo's
 * symbols to the stripped file's, then the PLT stubs'): dst keeps its
 * segments, and where both have a symbol at one address dst's stays.
 * dst's kind becomes the better of the two. Returns 0 or -ENOMEM (dst
 * unchanged).
 */
int elf_symtab__merge(struct elf_symtab *dst, const struct elf_symtab *src);
enum elf_symtab_kind elf_symtab__kind(const struct elf_symtab *st);
/* How many PT_LOAD segments: a file's debug copy has them too. */
size_t elf_symtab__nr_segments(const struct elf_symtab *st);

/*
 * Translate a file offset (from a mapping: addr - start + offset) to the
 * link-time virtual address through the PT_LOAD segment that maps it.
 * Returns 0, or -ENOENT when no segment holds the offset.
 */
int elf_symtab__offset_to_vaddr(const struct elf_symtab *st, uint64_t offset, uint64_t *vaddr);

/*
 * The function containing vaddr, or NULL (outside every sized symbol). Of
 * functions nested in one another, the innermost that covers vaddr.
 */
const struct elf_sym *elf_symtab__find(const struct elf_symtab *st, uint64_t vaddr);
size_t elf_symtab__count(const struct elf_symtab *st);
/* Symbol i (< elf_symtab__count()), by address: for tests and checks. */
const struct elf_sym *elf_symtab__at(const struct elf_symtab *st, size_t i);
/* Position of sym (returned by elf_symtab__find) among st's symbols, for per-symbol caches. */
size_t elf_symtab__index(const struct elf_symtab *st, const struct elf_sym *sym);
void elf_symtab__free(struct elf_symtab *st);

#endif /* ELF_SYMTAB_H */
