/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unwind_row.h - one row of an unwind table, as the BPF program reads it
 * and userspace builds it from .eh_frame (cfi_table.c). Fixed-width types
 * only; shared by both sides.
 *
 * A table covers one ELF file. Rows are sorted by pc; a row holds from its
 * pc up to the next row's. Addresses are the file's own (ELF virtual
 * addresses), so a table is shared by every process that maps the file.
 * Where no FDE covers an address a row with UNW_CFA_NONE ends the range
 * before it.
 *
 * To step from a frame (pc, sp, fp) to its caller:
 *	cfa	= sp, fp or another register, by cfa_rule, + cfa_off
 *		  (UNW_CFA_DEREF: the word at register + deref_off, + deref_add)
 *	ra	= *(cfa + ra_off)		(x86-64: cfa - 8), or a register
 *	fp'	= *(cfa + fp_off) or *(fp + fp_off), by fp_rule, else fp
 *	sp'	= cfa
 *
 * Registers are DWARF's numbers (x86-64 psABI: 0 rax, 1 rdx, 2 rcx, 3 rbx,
 * 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8-15 r8-r15). sp and fp are known at every
 * frame; the others only at a frame that was interrupted, not called: the
 * leaf, or the frame a signal interrupted (its registers are in the
 * signal frame). Elsewhere a rule that reads one ends the walk.
 */
#ifndef UNWIND_ROW_H
#define UNWIND_ROW_H

#include <linux/types.h>

#define UNW_REG_FP 6	/* rbp */
#define UNW_REG_SP 7	/* rsp */
#define UNW_NR_REGS 16	/* the general registers a rule may read */

enum unw_cfa_rule {
	UNW_CFA_NONE,		/* no unwind information here */
	UNW_CFA_SP,		/* cfa = sp + cfa_off */
	UNW_CFA_FP,		/* cfa = fp (rbp, x29) + cfa_off */
	/*
	 * The x86-64 PLT's expression: cfa = sp + 8, plus 8 more when
	 * (pc & 15) >= cfa_off (the entry has pushed its index).
	 */
	UNW_CFA_PLT,
	UNW_CFA_SIGNAL,		/* a signal trampoline (__restore_rt): on from the saved registers */
	UNW_CFA_END,		/* the return address is undefined: the thread's root */
	/* cfa = cfa_reg + cfa_off, a register other than sp and fp (hand-written assembly) */
	UNW_CFA_REG,
	/*
	 * cfa = *(cfa_reg + deref_off) + deref_add: a function that realigns
	 * its stack keeps the CFA in its frame (gcc's DRAP: *(rbp - 16)),
	 * OpenSSL's assembly its entry sp (*(rsp + 40) + 8)
	 */
	UNW_CFA_DEREF,
	UNW_CFA_MAX = UNW_CFA_DEREF,
};

enum unw_fp_rule {
	UNW_FP_SAME,		/* the caller's fp is this frame's */
	UNW_FP_AT_CFA,		/* saved at cfa + fp_off */
	UNW_FP_UNDEFINED,	/* not known: the walk may not use fp above here */
	UNW_FP_AT_FP,		/* saved at fp + fp_off (DRAP: where this frame's fp points) */
	UNW_FP_MAX = UNW_FP_AT_FP,
};

enum unw_ra_rule {
	UNW_RA_AT_CFA,		/* saved at cfa + ra_off */
	UNW_RA_REG,		/* held in register ra_reg (__vfork: rdi) */
	UNW_RA_MAX = UNW_RA_REG,
};

/* 16 bytes; frames over 32 KiB are common (libc has one of 33 KiB) */
struct unwind_row {
	__u32 pc;		/* start of the range, an ELF virtual address */
	union {
		__s32 cfa_off;
		struct {	/* UNW_CFA_DEREF */
			__s16 deref_off;
			__s16 deref_add;
		};
	};
	__s16 fp_off;
	union {
		__s16 ra_off;	/* UNW_RA_AT_CFA: return address at cfa + ra_off */
		__u16 ra_reg;	/* UNW_RA_REG */
	};
	__u8 cfa_rule;		/* enum unw_cfa_rule */
	__u8 fp_rule;		/* enum unw_fp_rule */
	__u8 cfa_reg;		/* UNW_CFA_REG, UNW_CFA_DEREF: the register read; else 0 */
	__u8 ra_rule;		/* enum unw_ra_rule */
};

/*
 * A table's page index, in the rows array right after its rows, so that
 * the row of a pc is found in a few cache lines (user_stack.bpf.h), not
 * by a binary search over the whole table. The pcs from base are cut into
 * pages of 1 << shift bytes; first[p] is the number of rows at or before
 * the start of page p, base + (p << shift), for p in [0, nr_pages]. The
 * row of a pc in page p is then among rows [first[p], first[p + 1]], and
 * one past the last page is after every row (first[nr_pages] = nr).
 *
 *	row nr			struct unwind_index_head
 *	rows nr + 1 ...		first[0 .. nr_pages], UNW_INDEX_PER_ROW a row
 *
 * The shift is chosen per table (row_index.c): the smallest from
 * UNW_INDEX_MIN_SHIFT that keeps the index within 1/UNW_INDEX_DENSITY of
 * the rows, UNW_INDEX_DENSITY rows a page on average.
 */
#define UNW_INDEX_PER_ROW 4
#define UNW_INDEX_MIN_SHIFT 8
#define UNW_INDEX_MAX_SHIFT 32
#define UNW_INDEX_DENSITY 8

struct unwind_index_head {	/* the size of a row */
	__u32 base;		/* the first row's pc, rounded down to a page */
	__u32 nr_pages;
	__u32 shift;		/* UNW_INDEX_MIN_SHIFT .. UNW_INDEX_MAX_SHIFT */
	__u32 pad;
};

/*
 * Whether r is a row this build writes: known rules, registers in range,
 * and no register where its rule reads none. (A table from the cache, or
 * from the fuzzer, is held to it.)
 */
static inline int unwind_row__valid(const struct unwind_row *r)
{
	int reg_rule = r->cfa_rule == UNW_CFA_REG || r->cfa_rule == UNW_CFA_DEREF;

	if (r->cfa_rule > UNW_CFA_MAX || r->fp_rule > UNW_FP_MAX || r->ra_rule > UNW_RA_MAX)
		return 0;
	if (reg_rule ? r->cfa_reg >= UNW_NR_REGS : r->cfa_reg != 0)
		return 0;
	/* sp and fp have rules of their own */
	if (r->cfa_rule == UNW_CFA_REG && (r->cfa_reg == UNW_REG_SP || r->cfa_reg == UNW_REG_FP))
		return 0;
	return r->ra_rule != UNW_RA_REG || (r->ra_reg < UNW_NR_REGS && r->ra_reg != UNW_REG_SP);
}

#endif /* UNWIND_ROW_H */
