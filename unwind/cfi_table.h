/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfi_table.h - the unwind table of one ELF file, built from its .eh_frame
 * (and, for the ranges .eh_frame leaves out, from the .debug_frame of the
 * file or of its debug file) by one linear run of each FDE's program, or with elfutils' CFI reader
 * (libdw) for the instructions that run does not follow: a sorted array
 * of compact rows
 * (unwind_row.h) that the BPF program searches to step from a frame to
 * its caller without frame pointers.
 *
 * The file is someone else's: it is opened through elf_read (bounded
 * sections), and every rule the table cannot express (a CFA expression
 * other than the PLT's and a word read from the stack, a CFA or a return
 * address in no general register, an offset over what a row holds)
 * becomes a UNW_CFA_NONE row, counted in the table's statistics, never a
 * guess. Before any of it runs, every
 * entry is checked (cfi_check.h): a file whose rules would make libdw's
 * tables huge, or that this reader cannot check, is refused whole.
 */
#ifndef CFI_TABLE_H
#define CFI_TABLE_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/budget.h"
#include "symbols/sha256.h"
#include "unwind/unwind_row.h"

/* Rows of one file at most (16 bytes each): libxul-sized files fit. */
#define CFI_TABLE_MAX_ROWS (4u << 20)
/*
 * In every table's digest: bump when the same bytes would make other rows
 * (2: a CFA in any general register or read from the stack, rbp saved
 * where rbp points, the return address in a register).
 */
#define CFI_TABLE_ROWS_VERSION 2

struct cfi_table_stats {
	uint64_t fdes;		/* FDEs read */
	uint64_t bad_fdes;	/* FDEs that could not be read, or overlap an earlier one */
	uint64_t unsupported;	/* row ranges whose rule has no compact form */
};

struct cfi_table {
	struct unwind_row *rows;	/* sorted by pc, no two neighbours alike but for pc */
	size_t nr;
	struct cfi_table_stats stats;	/* kept with the table in the cache */
	/* FDEs whose rows libdw made (instructions the linear run does not follow) */
	uint64_t by_libdw;
	/* FDEs skipped for starting inside the one before (also in bad_fdes) */
	uint64_t overlapping;
	/* FDEs of .debug_frame in the table (where .eh_frame has none) */
	uint64_t from_debug_frame;
	/*
	 * FDEs of .debug_frame left out for meeting .eh_frame's: still in the
	 * section libdw searches, so where one also meets an FDE listed,
	 * libdw may answer for it instead (as with overlapping)
	 */
	uint64_t shadowed;
	/* why a .debug_frame there was left out (-ENOEXEC, -EFBIG...), else 0 */
	int debug_frame_err;
	/* ranges the code gave (cfi_code.h): signal trampolines, an entry point */
	uint64_t from_code;
};

/*
 * Build the table of the ELF file elf (x86-64 only for now). Returns 0,
 * -ENOENT when the file has no .eh_frame nor .debug_frame, -ENOTSUP for
 * another machine,
 * -EFBIG over budget (budget__why()), CFI_TABLE_MAX_ROWS or the bounds of
 * cfi_check.h, -ENOEXEC when the CFI cannot be read or checked, -ENOMEM,
 * -ECANCELED.
 */
int cfi_table__build(Elf *elf, const struct budget *b, struct cfi_table *t);
/*
 * The same, with debug (NULL: none) the separate debug file of elf, whose
 * .debug_frame is read when elf has none. A .debug_frame that cannot be
 * read leaves the table .eh_frame's, t->debug_frame_err says why; without
 * an .eh_frame it is the error.
 */
int cfi_table__build_debug(Elf *elf, Elf *debug, const struct budget *b, struct cfi_table *t);
/*
 * The same with libdw making every row (dwarf_cfi_addrframe per row range):
 * the reference the tests hold cfi_table__build()'s linear interpreter to.
 */
int cfi_table__build_libdw(Elf *elf, Elf *debug, const struct budget *b, struct cfi_table *t);
/*
 * The identity of the table cfi_table__build_debug(elf, debug) makes: a
 * SHA-256 over every byte its rows depend on and nothing else (file_id.h):
 * the machine and class, .eh_frame (its bytes and address), and the
 * .debug_frame it reads, the file's own or else debug's (with debug's
 * machine), and CFI_TABLE_ROWS_VERSION. Sections are read under b through
 * the same handles, so the build that follows reads them from libelf's
 * copy. Returns 0, or -errno as reading a section fails (the build would
 * fail the same way).
 */
int cfi_table__digest(Elf *elf, Elf *debug, const struct budget *b, uint8_t out[SHA256_LEN]);
/* Whether elf has a .debug_frame of its own (not one emptied by strip). */
bool cfi_table__has_debug_frame(Elf *elf);
/* The same for the file at path. */
int cfi_table__build_file(const char *path, const struct budget *b, struct cfi_table *t);

/* The row that holds pc, or NULL when pc is before the first one. */
const struct unwind_row *cfi_table__find(const struct cfi_table *t, uint32_t pc);

/* Free the rows; t can be built again. */
void cfi_table__release(struct cfi_table *t);

#endif /* CFI_TABLE_H */
