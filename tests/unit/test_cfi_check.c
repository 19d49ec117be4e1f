// SPDX-License-Identifier: GPL-2.0
/*
 * The check of .eh_frame before libdw runs it (unwind/cfi_check.c), through
 * cfi_table__build: register numbers and saved states bounded in every CIE
 * and FDE, including those libdw reaches without the linear walk (an
 * .eh_frame_hdr search table, an FDE's CIE pointer).
 */
#include <criterion/criterion.h>
#include <dwarf.h>

#include "unwind/cfi_check.h"
#include "unwind/cfi_table.h"
#include "eh_frame_image.h"

/* Opcode op, register reg as ULEB128, then the operand bytes of arg. */
static size_t insn(uint8_t *out, uint8_t op, uint64_t reg, const uint8_t *arg, size_t n)
{
	size_t len = 0;

	out[len++] = op;
	do {
		out[len++] = (reg & 0x7f) | (reg > 0x7f ? 0x80 : 0);
		reg >>= 7;
	} while (reg);
	if (n)	/* arg may be NULL then, which memcpy must not be given */
		memcpy(out + len, arg, n);
	return len + n;
}

static void assert_refused_for_register(int err)
{
	cr_assert_eq(err, -EFBIG, "%s", strerror(-err));
	cr_assert(strstr(budget__why(), "register"), "%s", budget__why());
}

/* libdw would zero and copy a GiB for it at each row: minutes. */
Test(cfi_check, a_cie_naming_a_huge_register_is_refused, .timeout = 10)
{
	struct eh e = { 0 };
	struct cfi_table t;
	uint8_t ins[16];
	size_t n = insn(ins, DW_CFA_undefined, 1u << 27, NULL, 0);

	eh_cie_with(&e, ins, n);
	eh_fde(&e, 0x1000, 0x10, NULL, 0);
	assert_refused_for_register(eh_build(&e, NULL, &t));
	cr_assert_eq(t.nr, 0);
}

/* Every opcode that names a register, one past the bound and at it. */
Test(cfi_check, an_fde_naming_a_register_over_the_bound_is_refused)
{
	static const struct { uint8_t op, arg[3], n; } ops[] = {
		{ DW_CFA_offset_extended, { 1 }, 1 }, { DW_CFA_restore_extended, { 0 }, 0 },
		{ DW_CFA_undefined, { 0 }, 0 }, { DW_CFA_same_value, { 0 }, 0 },
		{ DW_CFA_register, { 3 }, 1 }, { DW_CFA_def_cfa, { 8 }, 1 },
		{ DW_CFA_def_cfa_register, { 0 }, 0 }, { DW_CFA_expression, { 1, DW_OP_lit0 }, 2 },
		{ DW_CFA_offset_extended_sf, { 0x7f }, 1 }, { DW_CFA_def_cfa_sf, { 2 }, 1 },
		{ DW_CFA_val_offset, { 1 }, 1 }, { DW_CFA_val_offset_sf, { 1 }, 1 },
		{ DW_CFA_val_expression, { 1, DW_OP_lit0 }, 2 },
		{ DW_CFA_GNU_negative_offset_extended, { 1 }, 1 },
	};
	struct cfi_table t;

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		for (uint64_t reg = CFI_CHECK_MAX_REG; reg <= CFI_CHECK_MAX_REG + 1; reg++) {
			struct eh e = { 0 };
			uint8_t ins[16];
			size_t n = insn(ins, ops[i].op, reg, ops[i].arg, ops[i].n);
			int err;

			eh_cie(&e);
			eh_fde(&e, 0x1000, 0x10, ins, n);
			err = eh_build(&e, NULL, &t);
			if (reg > CFI_CHECK_MAX_REG) {
				assert_refused_for_register(err);
				continue;
			}
			cr_assert_eq(err, 0, "opcode %#x register %llu: %s", ops[i].op,
				     (unsigned long long)reg, strerror(-err));
			cfi_table__release(&t);
		}
	}
}

/* The second register of DW_CFA_register counts too. */
Test(cfi_check, a_register_rule_naming_a_huge_register_is_refused)
{
	struct eh e = { 0 };
	struct cfi_table t;
	uint8_t ins[] = { DW_CFA_register, 3, 0x80, 0x80, 0x80, 0x40 };

	eh_cie(&e);
	eh_fde(&e, 0x1000, 0x10, ins, sizeof(ins));
	assert_refused_for_register(eh_build(&e, NULL, &t));
}

/* Each saved state is a copy of the whole register table. */
Test(cfi_check, saved_states_nested_over_the_bound_are_refused)
{
	uint8_t ins[16 + CFI_CHECK_MAX_DEPTH + 1];
	struct cfi_table t;

	for (size_t depth = CFI_CHECK_MAX_DEPTH; depth <= CFI_CHECK_MAX_DEPTH + 1; depth++) {
		struct eh e = { 0 };
		size_t n = insn(ins, DW_CFA_undefined, CFI_CHECK_MAX_REG, NULL, 0);
		int err;

		memset(ins + n, DW_CFA_remember_state, depth);
		eh_cie(&e);
		eh_fde(&e, 0x1000, 0x10, ins, n + depth);
		err = eh_build(&e, NULL, &t);
		if (depth > CFI_CHECK_MAX_DEPTH) {
			cr_assert_eq(err, -EFBIG, "%s", strerror(-err));
			cr_assert(strstr(budget__why(), "states"), "%s", budget__why());
		} else {
			cr_assert_eq(err, 0, "%s", strerror(-err));
			cfi_table__release(&t);
		}
	}
}

/*
 * After the terminator, where no linear walk goes: a CIE whose rules say
 * cfa = rsp + 16 and name register 2^20, and an FDE of it for the range of
 * the listed FDE, which an .eh_frame_hdr points libdw to. libdw must use
 * the listed one.
 */
Test(cfi_check, an_entry_only_eh_frame_hdr_reaches_is_never_run)
{
	static const uint8_t hidden[] = { DW_CFA_def_cfa, 7, 16, DW_CFA_undefined, 0x80, 0x80, 0x40 };
	struct eh e = { 0 };
	struct cfi_table t;
	uint32_t cie;

	eh_cie(&e);
	eh_fde(&e, 0x1000, 0x10, NULL, 0);
	eh_u32(&e, 0);	/* the terminator */
	cie = eh_cie_with(&e, hidden, sizeof(hidden));
	e.hdr = true;
	e.hdr_pc = 0x1000;
	e.hdr_fde = (uint32_t)e.len;
	eh_fde_of(&e, cie, 0x1000, 0x10, NULL, 0);
	cr_assert_eq(eh_build(&e, NULL, &t), 0, "%s", budget__why());
	cr_assert_eq(t.stats.fdes, 1);
	cr_assert_eq(cfi_table__find(&t, 0x1000)->cfa_rule, UNW_CFA_SP);
	cr_assert_eq(cfi_table__find(&t, 0x1000)->cfa_off, 8, "the hidden FDE's rules were run");
	cfi_table__release(&t);
}

/*
 * A CIE hidden in the expression of an FDE, and an FDE that points to it
 * before a listed FDE of the same range: libdw's walk meets it first.
 */
Test(cfi_check, an_fde_whose_cie_was_not_read_is_refused)
{
	static const uint8_t rules[] = { DW_CFA_def_cfa, 7, 16, DW_CFA_undefined, 0x80, 0x80, 0x40 };
	struct eh e = { 0 }, hidden = { 0 };
	struct cfi_table t;
	uint8_t ins[64];
	uint32_t cie;

	eh_cie_with(&hidden, rules, sizeof(rules));
	cr_assert_lt(hidden.len, 0x80);
	ins[0] = DW_CFA_def_cfa_expression;
	ins[1] = (uint8_t)hidden.len;
	memcpy(ins + 2, hidden.buf, hidden.len);
	free(hidden.buf);
	eh_cie(&e);
	cie = (uint32_t)e.len + 17 + 2;	/* past the FDE's header and the block's length */
	eh_fde(&e, 0x3000, 0x10, ins, 2 + ins[1]);
	eh_fde_of(&e, cie, 0x2000, 0x10, NULL, 0);
	eh_fde(&e, 0x2000, 0x10, NULL, 0);
	cr_assert_eq(eh_build(&e, NULL, &t), -ENOEXEC);
	cr_assert_eq(t.nr, 0);
}

/* What this reader does not know it cannot bound: refused, not passed on. */
Test(cfi_check, unknown_or_truncated_instructions_are_refused)
{
	static const struct { uint8_t ins[12], n; } bad[] = {
		{ { DW_CFA_GNU_window_save }, 1 },		/* sparc's, not x86-64's */
		{ { DW_CFA_MIPS_advance_loc8, 1, 0, 0, 0, 0, 0, 0, 0 }, 9 },
		{ { DW_CFA_advance_loc2, 1 }, 2 },		/* an operand cut short */
		{ { DW_CFA_def_cfa_expression, 5, DW_OP_lit0 }, 3 },	/* a block past the end */
		{ { DW_CFA_undefined, 0x80 }, 2 },		/* an unterminated LEB128 */
		/* a register libdw reads as 0 after 10 bytes, and then reads on */
		{ { DW_CFA_undefined, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0 }, 11 },
		{ { DW_CFA_restore_state }, 1 },		/* nothing saved */
	};
	struct cfi_table t;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct eh e = { 0 };

		eh_cie(&e);
		eh_fde(&e, 0x1000, 0x10, bad[i].ins, bad[i].n);
		cr_assert_eq(eh_build(&e, NULL, &t), -ENOEXEC, "case %zu", i);
	}
}

/*
 * FDE ranges through a pointer (DW_EH_PE_indirect in 'R'): libdw reads
 * the pointer wherever it points, and may find that FDE for another's
 * pc. No compiler writes it: the file is refused (fuzz_cfi found libdw
 * and the linear run at odds over one).
 */
Test(cfi_check, an_indirect_fde_range_encoding_is_refused)
{
	static const uint8_t body[] = {
		0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 16, 1, DW_EH_PE_indirect | DW_EH_PE_udata4,
		0x0c, 7, 8, 0x90, 1, 0, 0,
	};
	struct eh e = { 0 };
	struct cfi_table t;

	eh_u32(&e, sizeof(body));
	eh_put(&e, body, sizeof(body));
	eh_fde(&e, 0x1000, 0x10, NULL, 0);
	cr_assert_eq(eh_build(&e, NULL, &t), -ENOEXEC);
	cr_assert_eq(t.nr, 0);
}
