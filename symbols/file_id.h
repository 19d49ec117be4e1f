/* SPDX-License-Identifier: GPL-2.0 */
/*
 * file_id.h - when two files are the same, for every cache and every share.
 *
 * What is read from a file (its symbols, its unwind table) is shared with
 * another file, within a run or through the table cache, only when what
 * it was made from is the same: a SHA-256 over those bytes, not a claim
 * the file makes. A build-id is such a claim: anyone can link a file with
 * libc's, and a file owned by root is not one root chose (a container
 * without a user namespace, a FUSE, NFS or USB mount).
 *
 * Where a file is named rather than hashed, its stamp is its identity:
 * common/file_stamp.h.
 */
#ifndef FILE_ID_H
#define FILE_ID_H

#include <gelf.h>
#include <libelf.h>
#include <stdint.h>

#include "symbols/budget.h"
#include "symbols/sha256.h"

/*
 * Add a section to a digest as its readers see it: its type, address and
 * entry size, and its data, inflated if compressed, read under b (the
 * readers read it through the same elf handle afterwards, from libelf's
 * copy). Returns 0, or -errno as elf_read__section() fails.
 */
int file_id__add_section(struct sha256 *s, Elf_Scn *scn, const char *what, const struct budget *b);

/*
 * The digest of everything the symbol reader takes from the ELF file elf
 * itself (elf_symtab.c, debuginfo.c): the ELF identification, every
 * program header, every .symtab and .dynsym with its string table, the
 * build-id, the .gnu_debuglink and .gnu_debugdata, a Go file's function
 * table (go_symbols.h names stripped Go files from it). A separate debug file
 * is not in it: the caller adds the one used. Returns 0, or -errno when a
 * table cannot be read (-EFBIG over b, -ENOEXEC, -ECANCELED).
 */
int file_id__symbols(Elf *elf, const struct budget *b, uint8_t out[SHA256_LEN]);

#endif /* FILE_ID_H */
