/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfi_code.h - the rows an ELF file's CFI leaves out or gets wrong that
 * its code shows, laid over the table cfi_table.c built:
 *
 *   - a signal trampoline without an FDE (musl's __restore_rt: Debian's
 *     musl has no CFI), or whose FDE covers it alone without an 'S'
 *     augmentation: the kernel's rt_sigreturn, "mov $15, %rax; syscall",
 *     with the nop or int3 before it (a return address into it is looked
 *     up one byte before): a UNW_CFA_SIGNAL range;
 *   - the entry point of a program whose _start has no FDE (musl's): a
 *     UNW_CFA_END range over its first bytes, so that a walk ends there
 *     as at the thread's root, not as a walk cut short.
 *
 * The code is the file's, read under the budget like its sections. These
 * rows are not the CFI's: they are laid over a table after it is built or
 * read from the cache (whose key is a digest of the CFI alone), for each
 * file.
 */
#ifndef CFI_CODE_H
#define CFI_CODE_H

#include <libelf.h>
#include <stdint.h>

#include "symbols/budget.h"
#include "unwind/cfi_table.h"

/* Bytes of a program's entry point without an FDE taken as its root (musl's call is at +17). */
#define CFI_CODE_ENTRY_BYTES 32
/* Code without an FDE searched for a trampoline: no shorter than padding gets (16-byte alignment) */
#define CFI_CODE_GAP_BYTES 16
/* Signal trampolines laid over one table at most (libc has one). */
#define CFI_CODE_MAX_TRAMPOLINES 16

/*
 * Lay the ranges above over t, the table of elf. Returns 0, -ENOMEM,
 * -ECANCELED, or -EFBIG when the table would pass CFI_TABLE_MAX_ROWS.
 */
int cfi_code__apply(Elf *elf, const struct budget *b, struct cfi_table *t);

/*
 * Rules r over [lo, hi) of t (lo < hi <= UINT32_MAX), whatever rows were
 * there; from hi on the rules are those that held at hi. The rows stay
 * sorted, neighbours different. Returns 0, -EINVAL, -ENOMEM or -EFBIG.
 */
int cfi_code__set_range(struct cfi_table *t, uint64_t lo, uint64_t hi,
			const struct unwind_row *r);

#endif /* CFI_CODE_H */
