// SPDX-License-Identifier: GPL-2.0
/*
 * cfi_linear.c - the linear interpreter of FDE programs (cfi_linear.h):
 * one run of a program, its rows emitted once it ran to its end.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "symbols/budget.h"
#include "unwind/cfi_check.h"
#include "unwind/cfi_linear.h"
#include "unwind/cfi_rows.h"
#include "unwind/cfi_table.h"

/* a register saved at cfa + off, at rbp + off, or held in register off */
enum fast_reg { FR_SAME, FR_UNDEF, FR_OFFSET, FR_AT_FP, FR_REG };
enum fast_cfa { FC_NONE, FC_REG, FC_PLT, FC_DEREF };

/* The PLT's CFA expression, K (DW_OP_lit0 + K) at PLT_K. */
static const uint8_t plt_expr[] = {
	DW_OP_breg7, 8, DW_OP_breg16, 0, DW_OP_lit15, DW_OP_and, 0 /* K */,
	DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus,
};
#define PLT_K 6

/* The row for state s, as cfi_table.c's row_of() makes it from libdw's. */
static bool fast_row_of(const struct cfi_linear_state *s, struct unwind_row *r)
{
	if (s->ra == FR_UNDEF) {
		r->cfa_rule = UNW_CFA_END;
		return true;
	}
	if (s->ra == FR_REG) {
		if (s->ra_off < 0 || !set_ra_reg(r, (uint64_t)s->ra_off))
			return false;
	} else if (s->ra != FR_OFFSET || !fits16(s->ra_off, &r->ra_off)) {
		return false;
	}
	if (s->cfa == FC_NONE) {
		return false;
	} else if (s->cfa == FC_PLT) {
		r->cfa_rule = UNW_CFA_PLT;
		r->cfa_off = (int32_t)s->cfa_off;
	} else if (s->cfa == FC_DEREF) {
		if (!set_cfa_deref(r, s->cfa_reg, s->cfa_off, s->cfa_add))
			return false;
	} else if (!set_cfa_reg(r, s->cfa_reg, s->cfa_off)) {
		return false;
	}
	if (s->rbp == FR_SAME) {
		r->fp_rule = UNW_FP_SAME;
	} else if ((s->rbp == FR_OFFSET || s->rbp == FR_AT_FP) && fits16(s->rbp_off, &r->fp_off)) {
		r->fp_rule = s->rbp == FR_OFFSET ? UNW_FP_AT_CFA : UNW_FP_AT_FP;
	} else {
		r->fp_off = 0;
		r->fp_rule = UNW_FP_UNDEFINED;
	}
	return true;
}

static void fast_set(struct cfi_linear_state *s, uint64_t reg, uint8_t rule, int64_t off)
{
	if (reg == X86_REG_RBP) {
		s->rbp = rule;
		s->rbp_off = off;
	} else if (reg == X86_REG_RA) {
		s->ra = rule;
		s->ra_off = off;
	}
}

static void fast_restore(struct cfi_linear_state *s, const struct cfi_linear_state *init, uint64_t reg)
{
	if (reg == X86_REG_RBP)
		fast_set(s, reg, init->rbp, init->rbp_off);
	else if (reg == X86_REG_RA)
		fast_set(s, reg, init->ra, init->ra_off);
}

struct fast_run {
	struct cfi_linear_rows *out;
	const struct cfi_linear_cie *cie;
	const struct cfi_linear_state *init;	/* the CIE's rules; NULL while running the CIE's */
	uint64_t loc, hi;
	struct cfi_linear_row pending;	/* the last row, until a later pc makes it final */
	bool has_pending;
};

/*
 * The pending row is final: counted as libdw's range would be, and kept
 * unless its rules repeat the row before (emit() would merge it anyway),
 * so the rows held never outnumber what the table may have.
 */
static int fast_final(struct fast_run *run)
{
	struct cfi_linear_rows *out = run->out;
	const struct cfi_linear_row *f = &run->pending;

	if (!run->has_pending)
		return 0;
	run->has_pending = false;
	if (!f->supported)
		out->unsupported++;
	if (out->nr && same_rules(&out->rows[out->nr - 1].r, &f->r))
		return 0;
	if (out->nr >= CFI_TABLE_MAX_ROWS)
		return budget__refuse("unwind table over %u rows", CFI_TABLE_MAX_ROWS);
	if (grow((void **)&out->rows, &out->cap, out->nr + 1, sizeof(*out->rows)))
		return -ENOMEM;
	out->rows[out->nr++] = *f;
	return 0;
}

/* The rules of s hold from run->loc: a row, unless past the FDE. */
static int fast_push(struct fast_run *run, const struct cfi_linear_state *s)
{
	struct cfi_linear_row f = { .pc = run->loc };
	int err = 0;

	if (!run->init)
		return -EOPNOTSUPP;	/* an advance in a CIE: libdw's */
	if (run->loc >= run->hi)
		return 0;
	f.supported = fast_row_of(s, &f.r);
	if (!f.supported)
		f.r = (struct unwind_row){ .cfa_rule = UNW_CFA_NONE };
	/* a range left empty (an advance of 0) is replaced */
	if (run->has_pending && run->pending.pc != f.pc)
		err = fast_final(run);
	run->pending = f;
	run->has_pending = true;
	return err;
}

static int fast_advance(struct fast_run *run, const struct cfi_linear_state *s, uint64_t delta)
{
	int err = fast_push(run, s);

	/* code_align is 1 (cfi_linear__run()): a location only grows, or it is libdw's */
	if (!err && run->loc + delta < run->loc)
		return -EOPNOTSUPP;
	if (!err)
		run->loc += delta;
	return err;
}

/*
 * An offset as libdw keeps it: a factored value times data_align, in 32
 * bits here (rows hold 16 or 32). Anything larger is libdw's to judge.
 */
static bool scaled(int64_t v, int64_t da, int64_t *out)
{
	return !__builtin_mul_overflow(v, da, out) && *out >= INT32_MIN && *out <= INT32_MAX;
}

static bool small_u(uint64_t u, int64_t *out)
{
	if (u > INT32_MAX)
		return false;
	*out = (int64_t)u;
	return true;
}

/*
 * A LEB128 of at most 5 bytes at *p: libdw reads a longer one its own way
 * inside an expression, so it is left to libdw.
 */
static bool short_leb(const uint8_t **p, const uint8_t *end, bool sign, int64_t *v)
{
	const uint8_t *start = *p;
	uint64_t u;
	bool ok = sign ? sleb(p, end, v) : uleb(p, end, &u);

	if (!sign && ok)
		*v = (int64_t)u;
	return ok && *p - start <= 5;
}

/* A DW_OP_bregN or DW_OP_bregx at *p, before end. */
static bool fast_breg(const uint8_t **p, const uint8_t *end, uint64_t *reg, int64_t *off)
{
	const uint8_t *q = *p;
	int64_t r = 0;

	if (q >= end)
		return false;
	if (*q == DW_OP_bregx) {
		q++;
		if (!short_leb(&q, end, false, &r))
			return false;
	} else if (*q >= DW_OP_breg0 && *q <= DW_OP_breg31) {
		r = *q++ - DW_OP_breg0;
	} else {
		return false;
	}
	if (!short_leb(&q, end, true, off))
		return false;
	*reg = (uint64_t)r;
	*p = q;
	return true;
}

/*
 * A CFA expression of n bytes at p that rows hold: the PLT's, or
 * "*(reg + off)" with "+ add" or not (DW_OP_deref, DW_OP_plus_uconst).
 */
static bool fast_cfa_expr(const uint8_t *p, uint64_t n, struct cfi_linear_state *s)
{
	const uint8_t *end = p + n;
	int64_t off, add = 0;
	uint64_t reg;
	bool plt = n == sizeof(plt_expr);

	for (size_t i = 0; plt && i < sizeof(plt_expr); i++)
		plt = i == PLT_K ? p[i] >= DW_OP_lit0 && p[i] <= DW_OP_lit31 : p[i] == plt_expr[i];
	if (plt) {
		s->cfa = FC_PLT;
		s->cfa_off = p[PLT_K] - DW_OP_lit0;
		return true;
	}
	if (!fast_breg(&p, end, &reg, &off) || p == end || *p++ != DW_OP_deref)
		return false;
	if (p < end && (*p++ != DW_OP_plus_uconst || !short_leb(&p, end, false, &add)))
		return false;
	if (p != end)
		return false;
	s->cfa = FC_DEREF;
	s->cfa_reg = reg;
	s->cfa_off = off;
	s->cfa_add = add;
	return true;
}

/* An expression of n bytes at p that is "rbp + off": *off. */
static bool fast_at_fp(const uint8_t *p, uint64_t n, int64_t *off)
{
	const uint8_t *end = p + n;
	uint64_t reg;

	return fast_breg(&p, end, &reg, off) && p == end && reg == X86_REG_RBP;
}

/* Run [p, end) over s. -EOPNOTSUPP: an instruction this does not follow. */
static int fast_program(struct fast_run *run, const uint8_t *p, const uint8_t *end,
			struct cfi_linear_state *s)
{
	struct cfi_linear_state saved[CFI_CHECK_MAX_DEPTH];
	const int64_t da = run->cie->data_align;
	unsigned depth = 0;
	int err = 0;

	while (!err && p < end && (!run->init || run->loc < run->hi)) {
		uint8_t op = *p++;
		uint64_t reg, u;
		int64_t v;

		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
			err = fast_advance(run, s, op & 0x3f);
			continue;
		case DW_CFA_offset:
			if (!uleb(&p, end, &u) || !small_u(u, &v) || !scaled(v, da, &v))
				return -EOPNOTSUPP;
			fast_set(s, op & 0x3f, FR_OFFSET, v);
			continue;
		case DW_CFA_restore:
			if (!run->init)
				return -EOPNOTSUPP;
			fast_restore(s, run->init, op & 0x3f);
			continue;
		}
		switch (op) {
		case DW_CFA_nop:
			break;
		case DW_CFA_advance_loc1:
			if (end - p < 1)
				return -EOPNOTSUPP;
			err = fast_advance(run, s, p[0]);
			p += 1;
			break;
		case DW_CFA_advance_loc2:
			if (end - p < 2)
				return -EOPNOTSUPP;
			err = fast_advance(run, s, p[0] | (uint64_t)p[1] << 8);
			p += 2;
			break;
		case DW_CFA_advance_loc4:
			if (end - p < 4)
				return -EOPNOTSUPP;
			err = fast_advance(run, s, p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
							   (uint64_t)p[3] << 24);
			p += 4;
			break;
		case DW_CFA_offset_extended:
			if (!uleb(&p, end, &reg) || !uleb(&p, end, &u) || !small_u(u, &v) ||
			    !scaled(v, da, &v))
				return -EOPNOTSUPP;
			fast_set(s, reg, FR_OFFSET, v);
			break;
		case DW_CFA_offset_extended_sf:
			if (!uleb(&p, end, &reg) || !sleb(&p, end, &v) || !scaled(v, da, &v))
				return -EOPNOTSUPP;
			fast_set(s, reg, FR_OFFSET, v);
			break;
		case DW_CFA_restore_extended:
			if (!run->init || !uleb(&p, end, &reg))
				return -EOPNOTSUPP;
			fast_restore(s, run->init, reg);
			break;
		case DW_CFA_undefined:
		case DW_CFA_same_value:
			if (!uleb(&p, end, &reg))
				return -EOPNOTSUPP;
			fast_set(s, reg, op == DW_CFA_undefined ? FR_UNDEF : FR_SAME, 0);
			break;
		case DW_CFA_remember_state:
			if (depth == CFI_CHECK_MAX_DEPTH)
				return -EOPNOTSUPP;
			saved[depth++] = *s;
			break;
		case DW_CFA_restore_state:
			if (!depth)
				return -EOPNOTSUPP;
			*s = saved[--depth];
			break;
		case DW_CFA_def_cfa:
			if (!uleb(&p, end, &reg) || !uleb(&p, end, &u) || !small_u(u, &v))
				return -EOPNOTSUPP;
			s->cfa = FC_REG;
			s->cfa_reg = reg;
			s->cfa_off = v;
			break;
		case DW_CFA_def_cfa_sf:
			if (!uleb(&p, end, &reg) || !sleb(&p, end, &v) || !scaled(v, da, &v))
				return -EOPNOTSUPP;
			s->cfa = FC_REG;
			s->cfa_reg = reg;
			s->cfa_off = v;
			break;
		case DW_CFA_def_cfa_register:
			if (s->cfa != FC_REG || !uleb(&p, end, &reg))
				return -EOPNOTSUPP;
			s->cfa_reg = reg;
			break;
		case DW_CFA_def_cfa_offset:
			if (s->cfa != FC_REG || !uleb(&p, end, &u) || !small_u(u, &v))
				return -EOPNOTSUPP;
			s->cfa_off = v;
			break;
		case DW_CFA_def_cfa_offset_sf:
			if (s->cfa != FC_REG || !sleb(&p, end, &v) || !scaled(v, da, &v))
				return -EOPNOTSUPP;
			s->cfa_off = v;
			break;
		case DW_CFA_def_cfa_expression:
			if (!uleb(&p, end, &u) || (uint64_t)(end - p) < u || !fast_cfa_expr(p, u, s))
				return -EOPNOTSUPP;
			p += u;
			break;
		case DW_CFA_expression:
			if (!uleb(&p, end, &reg) || !uleb(&p, end, &u) || (uint64_t)(end - p) < u)
				return -EOPNOTSUPP;
			/* DRAP: rbp saved where rbp points; the others' rules no row holds */
			if (reg == X86_REG_RBP && fast_at_fp(p, u, &v))
				fast_set(s, reg, FR_AT_FP, v);
			else if (reg == X86_REG_RBP || reg == X86_REG_RA)
				return -EOPNOTSUPP;
			p += u;
			break;
		case DW_CFA_register:
			if (!uleb(&p, end, &reg) || !uleb(&p, end, &u) || !small_u(u, &v))
				return -EOPNOTSUPP;
			/* __vfork's return address in rdi; rbp in another register is libdw's */
			if (reg == X86_REG_RA)
				fast_set(s, reg, FR_REG, v);
			else if (reg == X86_REG_RBP)
				return -EOPNOTSUPP;
			break;
		case DW_CFA_GNU_args_size:
			if (!uleb(&p, end, &u))
				return -EOPNOTSUPP;
			break;
		default:
			return -EOPNOTSUPP;
		}
	}
	return err;
}

int cfi_linear__run(struct cfi_linear_cie *cie, uint64_t lo, uint64_t hi, const uint8_t *prog,
		    const uint8_t *end, struct cfi_linear_rows *out)
{
	struct fast_run run = { .out = out, .cie = cie, .loc = lo, .hi = hi };
	struct cfi_linear_state s;
	int err;

	out->nr = 0;
	out->unsupported = 0;
	/* x86-64's factors are 1 and -8; the others, and 'S', are libdw's */
	if (cie->signal || cie->ra_reg != X86_REG_RA || cie->code_align != 1 ||
	    cie->data_align < -64 || cie->data_align > 64)
		return -EOPNOTSUPP;
	if (!cie->init_done) {
		/*
		 * libdw's x86-64 rules before a CIE's: no CFA, rbp and (having
		 * no rule) the return address the same as the caller's. Run
		 * once per CIE, not per FDE: many FDEs share a long CIE.
		 */
		cie->init_state = (struct cfi_linear_state){ .cfa = FC_NONE, .rbp = FR_SAME, .ra = FR_SAME };
		cie->init_err = fast_program(&run, cie->init, cie->init_end, &cie->init_state);
		cie->init_done = true;
	}
	if (cie->init_err)
		return cie->init_err;
	s = cie->init_state;
	run.init = &cie->init_state;
	err = fast_program(&run, prog, end, &s);
	if (!err)
		err = fast_push(&run, &s);
	if (!err)
		err = fast_final(&run);
	return err;
}
