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
 *	cfa	= sp or fp, by cfa_rule, + cfa_off
 *	ra	= *(cfa + ra_off)			(x86-64: always cfa - 8)
 *	fp'	= *(cfa + fp_off) if fp_rule is UNW_FP_AT_CFA, else fp
 *	sp'	= cfa
 */
#ifndef UNWIND_ROW_H
#define UNWIND_ROW_H

#include <linux/types.h>

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
};

enum unw_fp_rule {
	UNW_FP_SAME,		/* the caller's fp is this frame's */
	UNW_FP_AT_CFA,		/* saved at cfa + fp_off */
	UNW_FP_UNDEFINED,	/* not known: the walk may not use fp above here */
};

/* 16 bytes; frames over 32 KiB are common (libc has one of 33 KiB) */
struct unwind_row {
	__u32 pc;		/* start of the range, an ELF virtual address */
	__s32 cfa_off;
	__s16 fp_off;
	__s16 ra_off;		/* return address at cfa + ra_off */
	__u8 cfa_rule;		/* enum unw_cfa_rule */
	__u8 fp_rule;		/* enum unw_fp_rule */
	__u16 pad;		/* 0 */
};

#endif /* UNWIND_ROW_H */
