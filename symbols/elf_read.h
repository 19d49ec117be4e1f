/* SPDX-License-Identifier: GPL-2.0 */
/*
 * elf_read.h - open ELF files that someone else wrote with libelf, under a
 * budget (budget.h). Every reader of such files (symbol tables, build-ids
 * and debug links, DWARF lines) starts here:
 *
 *  - the header's section and program header counts are checked before
 *    libelf allocates for them;
 *  - files are read with pread(2) as sections are asked for, never mapped:
 *    a file truncated while we read it gives a read error, not SIGBUS;
 *  - a section is read only when its size, and for a compressed section
 *    its inflated size and ratio, are within the budget.
 */
#ifndef ELF_READ_H
#define ELF_READ_H

#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>

#include "symbols/budget.h"

/* libelf's version handshake, once; false when libelf is unusable. */
bool elf_read__ready(void);

/*
 * An ELF handle for the file open at fd, which must stay open as long as
 * the handle. b NULL: the default budget. Returns NULL with errno:
 * ENOEXEC (not ELF, or corrupt), EFBIG (over budget: budget__why()),
 * ENOSYS (libelf unusable).
 */
Elf *elf_read__begin(int fd, const struct budget *b);
/* The same over an image in memory, which libelf may write to. */
Elf *elf_read__memory(char *image, size_t size, const struct budget *b);

/*
 * The data of a section, inflated if SHF_COMPRESSED (shdr is updated
 * then), when within budget; what names the section in budget__why().
 * NULL with errno: EFBIG, ECANCELED, ENOEXEC (unreadable).
 */
Elf_Data *elf_read__section(Elf_Scn *scn, GElf_Shdr *shdr, const char *what,
			    const struct budget *b);

/* The section of elf named name that has data (not SHT_NOBITS), its header in shdr; NULL. */
Elf_Scn *elf_read__find_section(Elf *elf, const char *name, GElf_Shdr *shdr);

/*
 * Check every section whose name starts with prefix (".debug_") against
 * the budget, for readers such as libdw that read them all themselves:
 * their sizes, inflated sizes included, must add up to at most
 * max_section_bytes. Returns 0 or -EFBIG.
 */
int elf_read__check_sections(Elf *elf, const char *prefix, const struct budget *b);

#endif /* ELF_READ_H */
