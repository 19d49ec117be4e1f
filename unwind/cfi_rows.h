/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfi_rows.h - rules into rows, as the two makers of an unwind table's
 * rows make them (cfi_table.c from libdw's rules, by cfi_rows__of_frame();
 * cfi_linear.c from one run of a program): the canonical form of each
 * rule, so that both make the same bytes. Internal to unwind/.
 */
#ifndef CFI_ROWS_H
#define CFI_ROWS_H

#include <elfutils/libdw.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/dwarf_bytes.h"
#include "unwind/unwind_row.h"

/* DWARF register numbers of x86-64 (psABI): rbp, rsp, return address. */
#define X86_REG_RBP UNW_REG_FP
#define X86_REG_RSP UNW_REG_SP
#define X86_REG_RA 16

/* *v with room for need elements of size (doubling); -ENOMEM. */
static inline int grow(void **v, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 64;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = reallocarray(*v, n, size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = n;
	return 0;
}

/* A signed 16-bit offset, or false. */
static inline bool fits16(int64_t v, int16_t *out)
{
	if (v < INT16_MIN || v > INT16_MAX)
		return false;
	*out = (int16_t)v;
	return true;
}

static inline bool fits32(int64_t v, int32_t *out)
{
	if (v < INT32_MIN || v > INT32_MAX)
		return false;
	*out = (int32_t)v;
	return true;
}

/*
 * cfa = reg + off: sp and fp have rules of their own, the other general
 * registers a rule that reads them at interrupted frames.
 */
static inline bool set_cfa_reg(struct unwind_row *r, uint64_t reg, int64_t off)
{
	if (reg >= UNW_NR_REGS || !fits32(off, &r->cfa_off))
		return false;
	r->cfa_rule = reg == X86_REG_RSP ? UNW_CFA_SP : reg == X86_REG_RBP ? UNW_CFA_FP : UNW_CFA_REG;
	r->cfa_reg = r->cfa_rule == UNW_CFA_REG ? (uint8_t)reg : 0;
	return true;
}

/* cfa = *(reg + off) + add */
static inline bool set_cfa_deref(struct unwind_row *r, uint64_t reg, int64_t off, int64_t add)
{
	if (reg >= UNW_NR_REGS || !fits16(off, &r->deref_off) || !fits16(add, &r->deref_add))
		return false;
	r->cfa_rule = UNW_CFA_DEREF;
	r->cfa_reg = (uint8_t)reg;
	return true;
}

/* The return address in a register (not sp: that would be the CFA) */
static inline bool set_ra_reg(struct unwind_row *r, uint64_t reg)
{
	if (reg >= UNW_NR_REGS || reg == X86_REG_RSP)
		return false;
	r->ra_rule = UNW_RA_REG;
	r->ra_reg = (uint16_t)reg;
	return true;
}

/* Everything but pc alike (a row has no padding: every byte is a field). */
static inline bool same_rules(const struct unwind_row *a, const struct unwind_row *b)
{
	_Static_assert(sizeof(*a) == 16 && __builtin_offsetof(struct unwind_row, cfa_off) == 4,
		       "rules are the 12 bytes after pc");
	return !memcmp((const char *)a + 4, (const char *)b + 4, sizeof(*a) - 4);
}

/*
 * The row for the rules of frame f, libdw's at an address (signal: its
 * FDE's CIE has 'S'); false when they have no row (r is then partly
 * written: the caller puts UNW_CFA_NONE in its place).
 */
bool cfi_rows__of_frame(Dwarf_Frame *f, bool signal, struct unwind_row *r);

#endif /* CFI_ROWS_H */
