/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfi_linear.h - the linear interpreter of an FDE's program (cfi_table.c's
 * fast path). libdw runs a program from its start for each row asked
 * for, which makes a long function cost the square of its rows (gcc's
 * cc1: 0.25 s); this runs it once, for the instructions compilers emit on
 * x86-64, and tracks only what a row holds: the CFA, rbp and the return
 * address. Anything else (DW_CFA_set_loc, value rules, rbp in a register
 * or by an expression other than gcc's DRAP's, a signal trampoline's CIE,
 * a CFA expression other than the PLT's and a word read) is left to
 * libdw; the tests hold both to the same rows.
 */
#ifndef CFI_LINEAR_H
#define CFI_LINEAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind/unwind_row.h"

/* What the run tracks of the rules at one location. */
struct cfi_linear_state {
	uint8_t cfa;		/* enum fast_cfa (cfi_linear.c) */
	uint8_t rbp, ra;	/* enum fast_reg */
	uint64_t cfa_reg;
	int64_t cfa_off;	/* the PLT's: its K */
	int64_t cfa_add;	/* a word read: added to it */
	int64_t rbp_off, ra_off;
};

/* What the run needs of a CIE; its rules are run once, at its first FDE. */
struct cfi_linear_cie {
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_reg;
	const uint8_t *init, *init_end;
	bool signal;		/* 'S': a signal trampoline's */
	/* the rules after its instructions: 0 till then, or -errno */
	int init_err;
	bool init_done;
	struct cfi_linear_state init_state;
};

struct cfi_linear_row {
	uint64_t pc;
	struct unwind_row r;
	bool supported;		/* else r is UNW_CFA_NONE for rules with no row */
};

/* One FDE's rows, each from its pc to the next's (or the FDE's end). */
struct cfi_linear_rows {
	struct cfi_linear_row *rows;
	size_t nr, cap;
	uint64_t unsupported;	/* row ranges whose rules have no row, as libdw's would count */
};

/*
 * The rows of the program [prog, end) of an FDE of cie over [lo, hi),
 * into out (emptied first; its buffer kept for the next). Returns 0,
 * -EOPNOTSUPP for a program libdw must run, -EFBIG over
 * CFI_TABLE_MAX_ROWS (budget__why()), -ENOMEM.
 */
int cfi_linear__run(struct cfi_linear_cie *cie, uint64_t lo, uint64_t hi, const uint8_t *prog,
		    const uint8_t *end, struct cfi_linear_rows *out);

#endif /* CFI_LINEAR_H */
