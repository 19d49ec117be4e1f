/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfi_check.h - check an .eh_frame or a .debug_frame before libdw runs
 * it, and hand libdw nothing but what was checked.
 *
 * libdw's CFI interpreter sizes its register table by the largest register
 * number a rule names, zeroes it, and copies it at every lookup and every
 * DW_CFA_remember_state: a 100-byte entry naming register 2^27 costs a GiB
 * and minutes. So every CIE and FDE of the section is read here the way
 * libdw reads it, and the file is refused if any names a register over
 * CFI_CHECK_MAX_REG, nests DW_CFA_remember_state deeper than
 * CFI_CHECK_MAX_DEPTH, or holds anything this reader does not know.
 *
 * libdw reaches entries by two more roads than the linear list: the binary
 * search table of .eh_frame_hdr (any offset at all) and an FDE's CIE
 * pointer. The first is closed by opening libdw over a copy of .eh_frame
 * alone (no .eh_frame_hdr: libdw then walks the entries in order, as here),
 * the second by refusing an FDE whose CIE pointer is not a CIE checked.
 */
#ifndef CFI_CHECK_H
#define CFI_CHECK_H

#include <elfutils/libdw.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/budget.h"

/* x86-64's DWARF registers end at 125 (k7); rules name 0-32 in practice. */
#define CFI_CHECK_MAX_REG 128
/* Saved states at once; compilers nest one. */
#define CFI_CHECK_MAX_DEPTH 16

/* libdw's reader over a checked copy of the section, and the CIEs checked. */
struct cfi_check {
	Dwarf_CFI *cfi;
	Dwarf *dwarf;	/* .debug_frame: what owns cfi */
	Elf *elf;	/* the copy, an ELF image of the section alone */
	char *image;
	struct cfi_check_cie *cies;
	size_t nr_cies;
};

/*
 * Check every entry of data, the .eh_frame of elf at address vaddr (eh)
 * or its .debug_frame (!eh: CIE ids of all ones, CIE pointers from the
 * section's start, FDE pointers absolute and 8 bytes, no augmentation but "S"),
 * and open c->cfi over a copy of it. Returns 0; -ENOEXEC for an entry that
 * cannot be read, or read safely (an unknown opcode or augmentation, an
 * FDE whose CIE was not read); -EFBIG (budget__why()) for a register
 * number or nesting over the bounds above; -ECANCELED; -ENOMEM.
 */
int cfi_check__open(struct cfi_check *c, Elf *elf, Elf_Data *data, bool eh, uint64_t vaddr,
		    const struct budget *b);
/* Close what cfi_check__open opened; c can be opened again. */
void cfi_check__close(struct cfi_check *c);

/*
 * The encoding of the FDE pointers of the CIE at section offset cie ('R'
 * in its augmentation, absolute else); false when no CIE was checked there.
 */
bool cfi_check__fde_encoding(const struct cfi_check *c, uint64_t cie, uint8_t *enc);

/*
 * What libdw's run of a program costs beyond its bytes: at each
 * DW_CFA_remember_state it copies the frame, a rule for every register up
 * to the highest one named (a CIE naming register 128 makes each copy
 * 129 rules).
 */
struct cfi_check_cost {
	uint64_t remembers;	/* DW_CFA_remember_state run */
	uint64_t max_reg;	/* the highest register named (at least as given) */
};
/*
 * Add the cost of the instructions [p, end), checked already (of an FDE
 * whose CIE gives pointers the encoding enc), to *cost. Returns 0, or
 * -ENOEXEC / -EFBIG as checking them would.
 */
int cfi_check__cost(const uint8_t *p, const uint8_t *end, uint8_t enc, struct cfi_check_cost *cost);

#endif /* CFI_CHECK_H */
