// SPDX-License-Identifier: GPL-2.0
/*
 * cfi_rows.c - the row for the rules libdw reports at an address
 * (cfi_rows.h), in the same canonical form as the linear interpreter's.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>

#include "unwind/cfi_rows.h"

/* The register and offset of a DW_OP_bregN or DW_OP_bregx, as libdw holds them. */
static bool breg_op(const Dwarf_Op *op, uint64_t *reg, int64_t *off)
{
	if (op->atom == DW_OP_bregx) {
		*reg = op->number;
		*off = (int64_t)op->number2;
		return true;
	}
	if (op->atom < DW_OP_breg0 || op->atom > DW_OP_breg31)
		return false;
	*reg = (uint64_t)(op->atom - DW_OP_breg0);
	*off = (int64_t)op->number;
	return true;
}

/*
 * The CFA rule: a register plus an offset, the word at a register plus
 * an offset (and plus a constant: OpenSSL's assembly), or the PLT's
 * expression.
 */
static bool cfa_rule(Dwarf_Frame *f, struct unwind_row *r)
{
	/* cfa = rsp + 8 + (((rip & 15) >= K) << 3), K = 10 or 11 */
	static const uint8_t plt[] = {
		DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and, 0 /* K */,
		DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus,
	};
	Dwarf_Op *ops;
	uint64_t reg;
	int64_t off;
	size_t n;

	if (dwarf_frame_cfa(f, &ops, &n) || !n)
		return false;
	/* a register rule comes as one DW_OP_bregx (libdw), or a DW_OP_bregN */
	if (n == 1 && breg_op(&ops[0], &reg, &off))
		return set_cfa_reg(r, reg, off);
	if ((n == 2 || n == 3) && breg_op(&ops[0], &reg, &off) && ops[1].atom == DW_OP_deref) {
		if (n == 2)
			return set_cfa_deref(r, reg, off, 0);
		return ops[2].atom == DW_OP_plus_uconst && ops[2].number <= INT16_MAX &&
		       set_cfa_deref(r, reg, off, (int64_t)ops[2].number);
	}
	if (n != sizeof(plt))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (i == 4 ? ops[i].atom < DW_OP_lit0 || ops[i].atom > DW_OP_lit31
			   : ops[i].atom != plt[i])
			return false;
	}
	if (ops[0].number != 8 || ops[1].number != 0)
		return false;
	r->cfa_rule = UNW_CFA_PLT;
	r->cfa_off = ops[4].atom - DW_OP_lit0;
	return true;
}

enum reg_rule { REG_SAME, REG_UNDEFINED, REG_AT_CFA, REG_AT_FP, REG_IN_REG, REG_OTHER };

/*
 * Where the caller's register is: unchanged, unknown, saved at cfa + off,
 * saved at rbp + off (a DW_CFA_expression of DW_OP_breg6), or held in
 * register *off.
 */
static enum reg_rule reg_rule(Dwarf_Frame *f, int reg, int64_t *off)
{
	Dwarf_Op mem[3], *ops;
	uint64_t base;
	size_t n;

	if (dwarf_frame_register(f, reg, mem, &ops, &n))
		return REG_OTHER;
	if (!n)
		return ops ? REG_UNDEFINED : REG_SAME;
	if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return REG_AT_CFA;
	}
	if (n == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*off = 0;
		return REG_AT_CFA;
	}
	/* a DW_CFA_expression: evaluated with the CFA pushed first */
	if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa && breg_op(&ops[1], &base, off) &&
	    base == X86_REG_RBP)
		return REG_AT_FP;
	if (n == 1 && (ops[0].atom == DW_OP_regx || (ops[0].atom >= DW_OP_reg0 &&
						     ops[0].atom <= DW_OP_reg31))) {
		*off = ops[0].atom == DW_OP_regx ? (int64_t)ops[0].number : ops[0].atom - DW_OP_reg0;
		return REG_IN_REG;
	}
	return REG_OTHER;
}

bool cfi_rows__of_frame(Dwarf_Frame *f, bool signal, struct unwind_row *r)
{
	enum reg_rule fp;
	int64_t off;

	if (signal) {
		r->cfa_rule = UNW_CFA_SIGNAL;
		return true;
	}
	switch (reg_rule(f, X86_REG_RA, &off)) {
	case REG_UNDEFINED:
		r->cfa_rule = UNW_CFA_END;
		return true;
	case REG_AT_CFA:
		if (!fits16(off, &r->ra_off))
			return false;
		break;
	case REG_IN_REG:
		if (off < 0 || !set_ra_reg(r, (uint64_t)off))
			return false;
		break;
	default:
		return false;
	}
	if (!cfa_rule(f, r))
		return false;
	fp = reg_rule(f, X86_REG_RBP, &off);
	if (fp == REG_SAME) {
		r->fp_rule = UNW_FP_SAME;
	} else if ((fp == REG_AT_CFA || fp == REG_AT_FP) && fits16(off, &r->fp_off)) {
		r->fp_rule = fp == REG_AT_CFA ? UNW_FP_AT_CFA : UNW_FP_AT_FP;
	} else {
		r->fp_off = 0;
		r->fp_rule = UNW_FP_UNDEFINED;
	}
	return true;
}
