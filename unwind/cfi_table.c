// SPDX-License-Identifier: GPL-2.0
/*
 * cfi_table.c - an ELF file's .eh_frame as a compact, sorted unwind table
 * (cfi_table.h).
 *
 * The FDEs are listed with libdw's dwarf_next_cfi, which leaves an FDE's
 * address range encoded as its CIE says: decoded here. Each FDE's program
 * is then run once by a linear interpreter of the instructions compilers
 * emit (fast_rows()), which tracks only what a row holds. An FDE with
 * anything else goes to libdw, which answers "what are the rules at
 * address A" (dwarf_cfi_addrframe) and how far they hold, and whose rules
 * are translated into rows (row_of()); the tests hold the two to the same
 * rows on libc, python3, cc1 and crafted programs. Nothing runs that
 * cfi_check.c has not read first.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfi_check.h"
#include "cfi_code.h"
#include "cfi_table.h"
#include "elf_read.h"

/* DWARF register numbers of x86-64 (psABI): rbp, rsp, return address. */
#define X86_REG_RBP 6
#define X86_REG_RSP 7
#define X86_REG_RA 16

/*
 * libdw runs an FDE's program from its start for every row it is asked
 * for: a program of n advances costs n^2. The bytes of programs that may
 * run per byte of .eh_frame, beyond a floor, and at most (the linear
 * interpreter is charged each FDE once): with libdw alone, of the 2,800
 * ELF files of this Debian 12, libc needed 10, cc1 and cc1plus 66,
 * liblapack 187 (0.19 s); the ceiling is a few seconds of libdw at its
 * slowest.
 */
#define CFI_WORK_PER_BYTE 512
#define CFI_WORK_MIN (64ull << 20)
#define CFI_WORK_MAX (1ull << 30)

/* a register saved at cfa + off, at rbp + off, or held in register off */
enum fast_reg { FR_SAME, FR_UNDEF, FR_OFFSET, FR_AT_FP, FR_REG };
enum fast_cfa { FC_NONE, FC_REG, FC_PLT, FC_DEREF };

struct fast_state {
	uint8_t cfa;		/* enum fast_cfa */
	uint8_t rbp, ra;	/* enum fast_reg */
	uint64_t cfa_reg;
	int64_t cfa_off;	/* FC_PLT: its K */
	int64_t cfa_add;	/* FC_DEREF: added to the word read */
	int64_t rbp_off, ra_off;
};

/* What the linear interpreter needs of a CIE (fast_rows()). */
struct cie_info {
	uint64_t off;
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_reg;
	const uint8_t *init, *init_end;
	bool signal;		/* 'S': a signal trampoline's */
	bool sized;		/* 'z': FDEs carry augmentation data behind a length */
	/* the rules after its instructions, run once: 0 till then, or -errno */
	int init_err;
	bool init_done;
	struct fast_state init_state;
};

/*
 * An FDE's range, the bytes of its entry (what one row of it costs libdw),
 * and its program, for the linear interpreter (NULL: libdw's alone).
 */
struct fde_range {
	uint64_t lo, hi;
	uint64_t bytes;
	const uint8_t *prog, *prog_end;
	size_t cie;		/* index in the builder's cies */
	uint8_t src;		/* enum cfi_src: the section it is in */
};

/* The sections a table is built from. */
enum cfi_src { SRC_EH_FRAME, SRC_DEBUG_FRAME, NR_SRC };

struct builder {
	const struct budget *b;
	struct cfi_table *t;
	size_t cap;
	/* the section being listed, to decode pc-relative pointers */
	enum cfi_src src;
	const uint8_t *base;
	uint64_t vaddr;
	/* its CIEs checked, with the encoding each gives its FDEs */
	const struct cfi_check *chk;
	/* libdw's reader of each section, NULL when it has none */
	Dwarf_CFI *cfi[NR_SRC];
	struct fde_range *fdes;
	size_t nr_fdes, cap_fdes;
	/*
	 * .eh_frame's ranges sorted by start, with the highest end so far:
	 * .debug_frame's FDEs are taken only where none of them is
	 */
	uint64_t *eh_lo, *eh_hi_max;
	size_t nr_eh;
	/* the CIEs as listed, in section order; the section's from cie_base */
	struct cie_info *cies;
	size_t nr_cies, cap_cies, cie_base;
	/* bytes of FDE programs libdw may still run (CFI_WORK_PER_BYTE) */
	uint64_t work;
	bool libdw_only;	/* cfi_table__build_libdw(): the reference path */
	/* fast_rows()' rows of one FDE, emitted once it ran to its end */
	struct fast_row *fast;
	size_t cap_fast;
};

static int grow(void **v, size_t *cap, size_t need, size_t size)
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

/* An unsigned LEB128 at *p, before end; false when cut or over 64 bits. */
static bool uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	while (*p < end && shift < 64) {
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

static bool sleb(const uint8_t **p, const uint8_t *end, int64_t *v)
{
	unsigned shift = 0;
	uint64_t u = 0;
	uint8_t b = 0;

	while (*p < end && shift < 64) {
		b = *(*p)++;
		u |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				u |= ~0ull << shift;
			*v = (int64_t)u;
			return true;
		}
	}
	return false;
}

/*
 * Read a pointer encoded as enc at *p (not past end), relative to the
 * section when pc-relative. Only what .eh_frame writers emit is known:
 * absolute or pc-relative, of a fixed size (LEB128 is refused; textrel,
 * datarel and
 * indirect make no sense for an FDE's range).
 */
static int read_encoded(const uint8_t **p, const uint8_t *end, uint8_t enc,
			const struct builder *bd, uint64_t *out)
{
	const uint8_t *at = *p;
	uint64_t v = 0;
	unsigned size;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr: case DW_EH_PE_udata8: case DW_EH_PE_sdata8: size = 8; break;
	case DW_EH_PE_udata4: case DW_EH_PE_sdata4: size = 4; break;
	case DW_EH_PE_udata2: case DW_EH_PE_sdata2: size = 2; break;
	default: return -ENOEXEC;
	}
	if (end - at < (long)size)
		return -ENOEXEC;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)at[i] << (8 * i);
	/* sign-extend the signed forms (little-endian: x86-64) */
	if ((enc & DW_EH_PE_signed) && size < 8 && (v >> (8 * size - 1)) & 1)
		v |= ~0ull << (8 * size);
	switch (enc & 0x70) {
	case 0:
		break;
	case DW_EH_PE_pcrel:
		v += bd->vaddr + (uint64_t)(at - bd->base);
		break;
	default:
		return -ENOEXEC;
	}
	*p = at + size;
	*out = v;
	return 0;
}

/* Whether [lo, hi) meets a range of .eh_frame. */
static bool in_eh_frame(const struct builder *bd, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = bd->nr_eh;

	/* the ranges that start before hi: one of them ends past lo? */
	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (bd->eh_lo[mid] < hi)
			a = mid + 1;
		else
			b = mid;
	}
	return a && bd->eh_hi_max[a - 1] > lo;
}

static int add_fde(struct builder *bd, const Dwarf_FDE *fde)
{
	const uint8_t *p = fde->start;
	uint64_t lo, len;
	uint8_t enc;
	int err;

	/* the range is two pointers: a location, then a length (no application) */
	if (!cfi_check__fde_encoding(bd->chk, fde->CIE_pointer, &enc) ||
	    read_encoded(&p, fde->end, enc, bd, &lo) ||
	    read_encoded(&p, fde->end, enc & 0x0f, bd, &len) || !len || lo + len < lo) {
		bd->t->stats.fdes++;
		bd->t->stats.bad_fdes++;
		return 0;
	}
	/* .eh_frame's rules are the ones the program runs by */
	if (bd->src == SRC_DEBUG_FRAME) {
		if (in_eh_frame(bd, lo, lo + len)) {
			bd->t->shadowed++;
			return 0;
		}
		bd->t->from_debug_frame++;
	}
	bd->t->stats.fdes++;
	/* before libdw holds a copy of each: a row or more apiece anyway */
	if (bd->nr_fdes >= CFI_TABLE_MAX_ROWS)
		return budget__refuse("unwind table over %u FDEs", CFI_TABLE_MAX_ROWS);
	err = grow((void **)&bd->fdes, &bd->cap_fdes, bd->nr_fdes + 1, sizeof(*bd->fdes));
	if (err)
		return err;
	bd->fdes[bd->nr_fdes++] = (struct fde_range){
		.lo = lo, .hi = lo + len, .bytes = (uint64_t)(fde->end - fde->start), .src = bd->src,
	};
	/* its program, behind the augmentation data, for fast_rows() */
	for (size_t lo = bd->cie_base, hi = bd->nr_cies; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		const struct cie_info *c = &bd->cies[mid];
		uint64_t aug = 0;

		if (c->off < fde->CIE_pointer) {
			lo = mid + 1;
		} else if (c->off > fde->CIE_pointer) {
			hi = mid;
		} else {
			if (c->sized && (!uleb(&p, fde->end, &aug) || aug > (uint64_t)(fde->end - p)))
				break;
			bd->fdes[bd->nr_fdes - 1].prog = p + aug;
			bd->fdes[bd->nr_fdes - 1].prog_end = fde->end;
			bd->fdes[bd->nr_fdes - 1].cie = mid;
			break;
		}
	}
	return 0;
}

static int add_cie(struct builder *bd, uint64_t off, const Dwarf_CIE *cie)
{
	int err = grow((void **)&bd->cies, &bd->cap_cies, bd->nr_cies + 1, sizeof(*bd->cies));

	if (err)
		return err;
	bd->cies[bd->nr_cies++] = (struct cie_info){
		.off = off,
		.code_align = cie->code_alignment_factor,
		.data_align = cie->data_alignment_factor,
		.ra_reg = cie->return_address_register,
		.init = cie->initial_instructions,
		.init_end = cie->initial_instructions_end,
		.signal = strchr(cie->augmentation, 'S') != NULL,
		.sized = cie->augmentation[0] == 'z',
	};
	return 0;
}

/* Every FDE's range of section bd->src, decoded as the CIE that cfi_check read says. */
static int list_fdes(Elf *elf, Elf_Data *data, struct builder *bd)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry e;
	int rc, err = 0;

	if (!ident)
		return -ENOEXEC;
	while (!err && off != (Dwarf_Off)-1) {
		if (budget__cancelled(bd->b))
			return -ECANCELED;
		rc = dwarf_next_cfi(ident, data, bd->src == SRC_EH_FRAME, off, &next, &e);
		if (rc > 0)
			break;
		if (rc < 0) {
			/* a format error that cannot be skipped ends the list */
			bd->t->stats.bad_fdes++;
			if (next <= off || next == (Dwarf_Off)-1)
				break;
		} else if (dwarf_cfi_cie_p(&e)) {
			err = add_cie(bd, off, &e.cie);
		} else {
			err = add_fde(bd, &e.fde);
		}
		off = next;
	}
	return err;
}

static int cmp_fde(const void *a, const void *b)
{
	const struct fde_range *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* A signed 16-bit offset, or false. */
static bool fits16(int64_t v, int16_t *out)
{
	if (v < INT16_MIN || v > INT16_MAX)
		return false;
	*out = (int16_t)v;
	return true;
}

static bool fits32(int64_t v, int32_t *out)
{
	if (v < INT32_MIN || v > INT32_MAX)
		return false;
	*out = (int32_t)v;
	return true;
}

/*
 * The canonical rows, made the same way from libdw's rules and the
 * linear interpreter's. cfa = reg + off: sp and fp have rules of their
 * own, the other registers a rule that reads them at interrupted frames.
 */
static bool set_cfa_reg(struct unwind_row *r, uint64_t reg, int64_t off)
{
	if (reg >= UNW_NR_REGS || !fits32(off, &r->cfa_off))
		return false;
	r->cfa_rule = reg == X86_REG_RSP ? UNW_CFA_SP : reg == X86_REG_RBP ? UNW_CFA_FP : UNW_CFA_REG;
	r->cfa_reg = r->cfa_rule == UNW_CFA_REG ? (uint8_t)reg : 0;
	return true;
}

/* cfa = *(reg + off) + add */
static bool set_cfa_deref(struct unwind_row *r, uint64_t reg, int64_t off, int64_t add)
{
	if (reg >= UNW_NR_REGS || !fits16(off, &r->deref_off) || !fits16(add, &r->deref_add))
		return false;
	r->cfa_rule = UNW_CFA_DEREF;
	r->cfa_reg = (uint8_t)reg;
	return true;
}

/* The return address in a register (not sp: that would be the CFA) */
static bool set_ra_reg(struct unwind_row *r, uint64_t reg)
{
	if (reg >= UNW_NR_REGS || reg == X86_REG_RSP)
		return false;
	r->ra_rule = UNW_RA_REG;
	r->ra_reg = (uint16_t)reg;
	return true;
}

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

/* The row for the rules of f; false when they have no compact form. */
static bool row_of(Dwarf_Frame *f, bool signal, struct unwind_row *r)
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

/* Everything but pc alike (a row has no padding: every byte is a field). */
static bool same_rules(const struct unwind_row *a, const struct unwind_row *b)
{
	_Static_assert(sizeof(*a) == 16 && offsetof(struct unwind_row, cfa_off) == 4,
		       "rules are the 12 bytes after pc");
	return !memcmp((const char *)a + 4, (const char *)b + 4, sizeof(*a) - 4);
}

/* Append a row unless it repeats the last one's rules. */
static int emit(struct builder *bd, uint64_t pc, const struct unwind_row *rules)
{
	struct cfi_table *t = bd->t;
	struct unwind_row r = *rules;

	if (pc > UINT32_MAX)
		return budget__refuse("unwind rule at %#llx, past the 4 GiB a table addresses",
				      (unsigned long long)pc);
	/* a range left empty (an FDE starts where the last one ended) goes */
	if (t->nr && t->rows[t->nr - 1].pc == pc)
		t->nr--;
	if (t->nr && same_rules(&t->rows[t->nr - 1], &r))
		return 0;
	if (t->nr >= CFI_TABLE_MAX_ROWS)
		return budget__refuse("unwind table over %u rows", CFI_TABLE_MAX_ROWS);
	if (grow((void **)&t->rows, &bd->cap, t->nr + 1, sizeof(*t->rows)))
		return -ENOMEM;
	r.pc = (uint32_t)pc;
	t->rows[t->nr++] = r;
	return 0;
}

/* The rows of fd, one per range of rules libdw reports. */
static int rows_of_fde(struct builder *bd, Dwarf_CFI *cfi, const struct fde_range *fd)
{
	static const struct unwind_row none = { .cfa_rule = UNW_CFA_NONE };
	uint64_t pc = fd->lo, hi = fd->hi;
	int err = 0;

	while (!err && pc < hi) {
		struct unwind_row r = { 0 };
		Dwarf_Addr start, end;
		Dwarf_Frame *f;
		bool signal = false;

		/* one FDE can take all the work: look between its rows */
		if (budget__cancelled(bd->b))
			return -ECANCELED;
		if (bd->work < fd->bytes)
			return budget__refuse("unwind rules too long to run, at %#llx",
					      (unsigned long long)pc);
		bd->work -= fd->bytes;
		if (dwarf_cfi_addrframe(cfi, pc, &f)) {
			bd->t->stats.bad_fdes++;
			return emit(bd, pc, &none);
		}
		if (dwarf_frame_info(f, &start, &end, &signal) < 0 || end <= pc) {
			free(f);
			bd->t->stats.bad_fdes++;
			return emit(bd, pc, &none);
		}
		if (!row_of(f, signal, &r)) {
			bd->t->stats.unsupported++;
			r = none;
		}
		free(f);
		err = emit(bd, pc, &r);
		pc = end < hi ? end : hi;
	}
	return err;
}

/*
 * The linear interpreter. libdw runs an FDE's program from its start for
 * each row asked for, which makes a long function cost the square of its
 * rows (gcc's cc1: 0.25 s). fast_rows() runs the program once, for the
 * instructions compilers emit on x86-64, and tracks only what a row holds:
 * the CFA, rbp and the return address. Anything else (DW_CFA_set_loc,
 * value rules, rbp in a register or by an expression other than gcc's
 * DRAP's, a signal trampoline's CIE, a CFA expression other than the
 * PLT's and a word read) hands the FDE to libdw, as does every FDE under
 * cfi_table__build_libdw(); tests check both give the same rows.
 */
struct fast_row {
	uint64_t pc;
	struct unwind_row r;
	bool supported;
};

/* The PLT's CFA expression, K (DW_OP_lit0 + K) at PLT_K. */
static const uint8_t plt_expr[] = {
	DW_OP_breg7, 8, DW_OP_breg16, 0, DW_OP_lit15, DW_OP_and, 0 /* K */,
	DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus,
};
#define PLT_K 6

/* The row for state s, as row_of() makes it from libdw's. */
static bool fast_row_of(const struct fast_state *s, struct unwind_row *r)
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

static void fast_set(struct fast_state *s, uint64_t reg, uint8_t rule, int64_t off)
{
	if (reg == X86_REG_RBP) {
		s->rbp = rule;
		s->rbp_off = off;
	} else if (reg == X86_REG_RA) {
		s->ra = rule;
		s->ra_off = off;
	}
}

static void fast_restore(struct fast_state *s, const struct fast_state *init, uint64_t reg)
{
	if (reg == X86_REG_RBP)
		fast_set(s, reg, init->rbp, init->rbp_off);
	else if (reg == X86_REG_RA)
		fast_set(s, reg, init->ra, init->ra_off);
}

struct fast_run {
	struct builder *bd;
	const struct cie_info *cie;
	const struct fast_state *init;	/* the CIE's rules; NULL while running the CIE's */
	uint64_t loc, hi;
	size_t n;			/* rows in bd->fast */
	struct fast_row pending;	/* the last row, until a later pc makes it final */
	bool has_pending;
	uint64_t unsupported;
};

/*
 * The pending row is final: counted as libdw's range would be, and kept
 * unless its rules repeat the row before (emit() would merge it anyway),
 * so the rows held never outnumber what the table may have.
 */
static int fast_final(struct fast_run *run)
{
	struct builder *bd = run->bd;
	const struct fast_row *f = &run->pending;

	if (!run->has_pending)
		return 0;
	run->has_pending = false;
	if (!f->supported)
		run->unsupported++;
	if (run->n && same_rules(&bd->fast[run->n - 1].r, &f->r))
		return 0;
	if (run->n >= CFI_TABLE_MAX_ROWS)
		return budget__refuse("unwind table over %u rows", CFI_TABLE_MAX_ROWS);
	if (grow((void **)&bd->fast, &bd->cap_fast, run->n + 1, sizeof(*bd->fast)))
		return -ENOMEM;
	bd->fast[run->n++] = *f;
	return 0;
}

/* The rules of s hold from run->loc: a row, unless past the FDE. */
static int fast_push(struct fast_run *run, const struct fast_state *s)
{
	struct fast_row f = { .pc = run->loc };
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

static int fast_advance(struct fast_run *run, const struct fast_state *s, uint64_t delta)
{
	int err = fast_push(run, s);

	/* code_align is 1 (fast_rows()): a location only grows, or it is libdw's */
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
static bool fast_cfa_expr(const uint8_t *p, uint64_t n, struct fast_state *s)
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
			struct fast_state *s)
{
	struct fast_state saved[CFI_CHECK_MAX_DEPTH];
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

/*
 * fd's rows by one run of its program; -EOPNOTSUPP when libdw must make
 * them. Nothing is emitted until the whole program ran.
 */
static int fast_rows(struct builder *bd, const struct fde_range *fd)
{
	struct fast_run run = { .bd = bd, .loc = fd->lo, .hi = fd->hi };
	struct cie_info *cie;
	struct fast_state s;
	int err;

	if (bd->libdw_only || !fd->prog)
		return -EOPNOTSUPP;
	cie = &bd->cies[fd->cie];
	run.cie = cie;
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
		cie->init_state = (struct fast_state){ .cfa = FC_NONE, .rbp = FR_SAME, .ra = FR_SAME };
		cie->init_err = fast_program(&run, cie->init, cie->init_end, &cie->init_state);
		cie->init_done = true;
	}
	if (cie->init_err)
		return cie->init_err;
	s = cie->init_state;
	run.init = &cie->init_state;
	err = fast_program(&run, fd->prog, fd->prog_end, &s);
	if (!err)
		err = fast_push(&run, &s);
	if (!err)
		err = fast_final(&run);
	if (err)
		return err;
	bd->t->stats.unsupported += run.unsupported;
	for (size_t i = 0; !err && i < run.n; i++)
		err = emit(bd, bd->fast[i].pc, &bd->fast[i].r);
	return err;
}

static int build_rows(struct builder *bd)
{
	static const struct unwind_row none = { .cfa_rule = UNW_CFA_NONE };
	uint64_t covered = 0;
	int err = 0;

	if (bd->nr_fdes)	/* fdes is NULL when none: qsort's is nonnull */
		qsort(bd->fdes, bd->nr_fdes, sizeof(*bd->fdes), cmp_fde);
	for (size_t i = 0; !err && i < bd->nr_fdes; i++) {
		const struct fde_range *fd = &bd->fdes[i];

		if (budget__cancelled(bd->b))
			return -ECANCELED;
		if (fd->lo < covered) {
			bd->t->stats.bad_fdes++;	/* overlaps the one before */
			bd->t->overlapping++;
			continue;
		}
		if (bd->work < fd->bytes)
			return budget__refuse("unwind rules too long to run, at %#llx",
					      (unsigned long long)fd->lo);
		bd->work -= fd->bytes;
		err = fast_rows(bd, fd);
		if (err == -EOPNOTSUPP) {
			bd->t->by_libdw++;
			err = rows_of_fde(bd, bd->cfi[fd->src], fd);
		}
		/* the range ends with the FDE unless the next one starts there */
		if (!err)
			err = emit(bd, fd->hi, &none);
		covered = fd->hi;
	}
	return err;
}

static Elf_Scn *find_section(Elf *elf, const char *name, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, shdr) || shdr->sh_type == SHT_NOBITS)
			continue;
		n = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* x86-64, 64-bit, little-endian: what the rows are for. */
static int check_machine(Elf *elf)
{
	GElf_Ehdr ehdr;

	if (!gelf_getehdr(elf, &ehdr))
		return -ENOEXEC;
	if (ehdr.e_machine != EM_X86_64 || ehdr.e_ident[EI_CLASS] != ELFCLASS64 ||
	    ehdr.e_ident[EI_DATA] != ELFDATA2LSB)
		return -ENOTSUP;
	return 0;
}

/* .eh_frame's ranges, listed first, for in_eh_frame(): before .debug_frame's. */
static int index_eh_frame(struct builder *bd)
{
	uint64_t max = 0;

	bd->nr_eh = bd->nr_fdes;
	if (!bd->nr_eh)
		return 0;
	qsort(bd->fdes, bd->nr_fdes, sizeof(*bd->fdes), cmp_fde);
	bd->eh_lo = calloc(bd->nr_eh, sizeof(*bd->eh_lo));
	bd->eh_hi_max = calloc(bd->nr_eh, sizeof(*bd->eh_hi_max));
	if (!bd->eh_lo || !bd->eh_hi_max)
		return -ENOMEM;
	for (size_t i = 0; i < bd->nr_eh; i++) {
		if (bd->fdes[i].hi > max)
			max = bd->fdes[i].hi;
		bd->eh_lo[i] = bd->fdes[i].lo;
		bd->eh_hi_max[i] = max;
	}
	return 0;
}

/*
 * The FDEs of section src of elf into bd, once cfi_check read all of it;
 * chk stays open for libdw. -ENOENT when elf has no such section.
 */
static int list_section(struct builder *bd, Elf *elf, enum cfi_src src, struct cfi_check *chk)
{
	const char *name = src == SRC_EH_FRAME ? ".eh_frame" : ".debug_frame";
	uint64_t work;
	GElf_Shdr shdr;
	Elf_Data *data;
	Elf_Scn *scn;
	int err;

	scn = find_section(elf, name, &shdr);
	if (!scn)
		return -ENOENT;
	data = elf_read__section(scn, &shdr, name, bd->b);
	if (!data)
		return -errno;
	/* libdw runs only entries checked, and reaches no others */
	err = cfi_check__open(chk, elf, data, src == SRC_EH_FRAME, shdr.sh_addr, bd->b);
	if (err)
		return err;
	/* the sections' allowances add up, to the one ceiling */
	work = CFI_WORK_MIN + CFI_WORK_PER_BYTE * (uint64_t)data->d_size;
	bd->work = bd->work + work < CFI_WORK_MAX ? bd->work + work : CFI_WORK_MAX;
	bd->src = src;
	bd->base = data->d_buf;
	bd->vaddr = shdr.sh_addr;
	bd->chk = chk;
	bd->cfi[src] = chk->cfi;
	bd->cie_base = bd->nr_cies;
	if (src == SRC_DEBUG_FRAME) {
		err = index_eh_frame(bd);
		if (err)
			return err;
	}
	return list_fdes(elf, data, bd);
}

/*
 * .debug_frame, the file's own else its debug file's, into bd where
 * .eh_frame has no FDE: all of it or nothing (on an error what it listed
 * is dropped). -ENOENT when neither has one; -ENOTSUP when the debug file
 * is for another machine.
 */
static int list_debug_frame(struct builder *bd, Elf *elf, Elf *debug, struct cfi_check *df)
{
	struct cfi_table_stats stats = bd->t->stats;
	size_t nr_fdes = bd->nr_fdes, nr_cies = bd->nr_cies;
	uint64_t work = bd->work;
	int err = list_section(bd, elf, SRC_DEBUG_FRAME, df);

	if (err == -ENOENT && debug) {
		cfi_check__close(df);
		err = check_machine(debug);
		if (!err)
			err = list_section(bd, debug, SRC_DEBUG_FRAME, df);
	}
	if (err) {
		bd->t->stats = stats;
		bd->t->from_debug_frame = 0;
		bd->t->shadowed = 0;
		bd->nr_fdes = nr_fdes;
		bd->nr_cies = nr_cies;
		bd->work = work;
		bd->cfi[SRC_DEBUG_FRAME] = NULL;
	}
	return err;
}

static int build(Elf *elf, Elf *debug, const struct budget *b, struct cfi_table *t,
		 bool libdw_only)
{
	struct builder bd = { .b = b, .t = t, .libdw_only = libdw_only };
	struct cfi_check eh = { 0 }, df = { 0 };
	int err, eh_err, df_err;

	memset(t, 0, sizeof(*t));
	err = check_machine(elf);
	if (err)
		return err;
	eh_err = list_section(&bd, elf, SRC_EH_FRAME, &eh);
	err = eh_err == -ENOENT ? 0 : eh_err;
	if (!err) {
		df_err = list_debug_frame(&bd, elf, debug, &df);
		if (df_err == -ENOENT)
			err = eh_err;	/* -ENOENT too when there is no .eh_frame */
		else if (df_err && !eh_err &&
			 (df_err == -ENOEXEC || df_err == -EFBIG || df_err == -ENOTSUP))
			t->debug_frame_err = df_err;	/* .eh_frame's table, and why */
		else
			err = df_err;
	}
	if (!err)
		err = build_rows(&bd);
	/* what the code says where the CFI says nothing, or not the truth */
	if (!err)
		err = cfi_code__apply(elf, b, t);
	cfi_check__close(&eh);
	cfi_check__close(&df);
	free(bd.fdes);
	free(bd.cies);
	free(bd.fast);
	free(bd.eh_lo);
	free(bd.eh_hi_max);
	if (err)
		cfi_table__release(t);
	return err;
}

int cfi_table__build(Elf *elf, const struct budget *b, struct cfi_table *t)
{
	return build(elf, NULL, b, t, false);
}

int cfi_table__build_debug(Elf *elf, Elf *debug, const struct budget *b, struct cfi_table *t)
{
	return build(elf, debug, b, t, false);
}

int cfi_table__build_libdw(Elf *elf, Elf *debug, const struct budget *b, struct cfi_table *t)
{
	return build(elf, debug, b, t, true);
}

bool cfi_table__has_debug_frame(Elf *elf)
{
	GElf_Shdr shdr;

	return find_section(elf, ".debug_frame", &shdr) != NULL;
}

int cfi_table__build_file(const char *path, const struct budget *b, struct cfi_table *t)
{
	int fd, err;
	Elf *elf;

	memset(t, 0, sizeof(*t));
	if (!elf_read__ready())
		return -ENOSYS;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_read__begin(fd, b);
	if (!elf) {
		err = -errno;
		close(fd);
		return err;
	}
	err = cfi_table__build(elf, b, t);
	elf_end(elf);
	close(fd);
	return err;
}

const struct unwind_row *cfi_table__find(const struct cfi_table *t, uint32_t pc)
{
	size_t lo = 0, hi = t->nr;

	/* the last row whose pc <= pc */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->rows[lo - 1] : NULL;
}

void cfi_table__release(struct cfi_table *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}
