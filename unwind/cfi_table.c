// SPDX-License-Identifier: GPL-2.0
/*
 * cfi_table.c - an ELF file's .eh_frame as a compact, sorted unwind table
 * (cfi_table.h).
 *
 * The FDEs are listed with libdw's dwarf_next_cfi, which leaves an FDE's
 * address range encoded as its CIE says: decoded here. Each FDE's program
 * is then run once by a linear interpreter of the instructions compilers
 * emit (cfi_linear.c), which tracks only what a row holds. An FDE with
 * anything else goes to libdw, which answers "what are the rules at
 * address A" (dwarf_cfi_addrframe) and how far they hold, and whose rules
 * are translated into rows (cfi_rows.c); the tests hold the two to the
 * same rows on libc, python3, cc1 and crafted programs. Nothing runs that
 * cfi_check.c has not read first. (The rows the code gives where the CFI
 * has none are laid over by the caller: cfi_code.h.)
 *
 * Past 600 lines on purpose: listing the FDEs, budgeting libdw and emitting
 * rows work on one builder, and cfi_table__digest() must read exactly the
 * sections the build reads, so it stays beside it; the interpreters and
 * the checks are in cfi_linear.c, cfi_rows.c and cfi_check.c.
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

#include "unwind/cfi_check.h"
#include "unwind/cfi_linear.h"
#include "unwind/cfi_rows.h"
#include "unwind/cfi_table.h"
#include "symbols/elf_read.h"
#include "symbols/file_id.h"

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
/*
 * A row libdw makes runs the FDE's program from its start, and each
 * DW_CFA_remember_state in it allocates and copies the frame: a rule for
 * every register up to the highest one the CIE and the FDE name (at least
 * libdw's 17 of x86-64). Charged in the budget's unit, a byte of program
 * run (about 1 ns of libdw here), as measured: 500,000 remembers a row
 * took 7-10 ms of a frame of 17 registers, 16 ms of 129, where 1 MB of
 * DW_CFA_nop took 1 ms. So LIBDW_REMEMBER + regs / LIBDW_REGS_A_UNIT a
 * remember (a 129-register frame: 48 bytes' worth).
 */
#define LIBDW_REMEMBER 16
#define LIBDW_REGS_A_UNIT 4
#define LIBDW_MIN_REGS 17
/*
 * The most one row libdw makes may cost (some 16 ms): compilers' FDEs
 * that libdw runs are a few hundred bytes; a program that costs more a
 * row is refused before libdw runs any of it.
 */
#define CFI_ROW_WORK_MAX (16ull << 20)

/* A CIE: where it is, and what the linear interpreter needs of it. */
struct cie_info {
	uint64_t off;
	bool sized;		/* 'z': FDEs carry augmentation data behind a length */
	uint64_t max_reg;	/* the highest register it names */
	struct cfi_linear_cie lin;
};

/*
 * An FDE's range, the bytes of its entry (what one row of it costs libdw),
 * and its program, for the linear interpreter (NULL: libdw's alone).
 */
struct fde_range {
	uint64_t lo, hi;
	uint64_t bytes;
	uint64_t row_cost;	/* the work one row of it by libdw is charged */
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
	struct cfi_linear_rows fast;
};

/*
 * Read a pointer encoded as enc at *p (not past end), relative to the
 * section when pc-relative. Only what .eh_frame writers emit is known:
 * absolute or pc-relative, of a fixed size (LEB128 is refused; textrel,
 * datarel and indirect make no sense for an FDE's range).
 */
static int read_encoded(const uint8_t **p, const uint8_t *end, uint8_t enc,
			const struct builder *bd, uint64_t *out)
{
	const uint8_t *at = *p, *q = at;
	uint64_t v;

	/* libdw would read the range through the pointer: where it points is not here */
	if ((enc & DW_EH_PE_indirect) || !eh_pe_read(&q, end, enc, &v))
		return -ENOEXEC;
	switch (enc & 0x70) {
	case 0:
		break;
	case DW_EH_PE_pcrel:
		v += bd->vaddr + (uint64_t)(at - bd->base);
		break;
	default:
		return -ENOEXEC;
	}
	*p = q;
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

/* fd's row_cost: its bytes, and the frames libdw copies at its remembers (cie's registers too). */
static void add_copies(struct fde_range *fd, const struct cie_info *cie, uint8_t enc)
{
	struct cfi_check_cost cost = { .max_reg = cie->max_reg };
	uint64_t regs;

	if (cfi_check__cost(fd->prog, fd->prog_end, enc, &cost))
		return;
	if (cost.max_reg < cie->lin.ra_reg)
		cost.max_reg = cie->lin.ra_reg;
	regs = cost.max_reg + 1 > LIBDW_MIN_REGS ? cost.max_reg + 1 : LIBDW_MIN_REGS;
	fd->row_cost += cost.remembers * (LIBDW_REMEMBER + regs / LIBDW_REGS_A_UNIT);
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
	bd->fdes[bd->nr_fdes - 1].row_cost = bd->fdes[bd->nr_fdes - 1].bytes;
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
			add_copies(&bd->fdes[bd->nr_fdes - 1], c, enc);
			break;
		}
	}
	return 0;
}

static int add_cie(struct builder *bd, uint64_t off, const Dwarf_CIE *cie)
{
	int err = grow((void **)&bd->cies, &bd->cap_cies, bd->nr_cies + 1, sizeof(*bd->cies));
	struct cfi_check_cost cost = { 0 };
	uint8_t enc = DW_EH_PE_absptr;

	if (err)
		return err;
	/* checked already: a failure leaves the registers it names uncounted */
	(void)cfi_check__fde_encoding(bd->chk, off, &enc);
	(void)cfi_check__cost(cie->initial_instructions, cie->initial_instructions_end, enc, &cost);
	bd->cies[bd->nr_cies++] = (struct cie_info){
		.off = off,
		.sized = cie->augmentation[0] == 'z',
		.lin = {
			.code_align = cie->code_alignment_factor,
			.data_align = cie->data_alignment_factor,
			.ra_reg = cie->return_address_register,
			.init = cie->initial_instructions,
			.init_end = cie->initial_instructions_end,
			.signal = strchr(cie->augmentation, 'S') != NULL,
		},
		.max_reg = cost.max_reg,
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
		if (fd->row_cost > CFI_ROW_WORK_MAX)
			return budget__refuse("unwind rules too long to run for each row, at %#llx",
					      (unsigned long long)pc);
		if (bd->work < fd->row_cost)
			return budget__refuse("unwind rules too long to run, at %#llx",
					      (unsigned long long)pc);
		bd->work -= fd->row_cost;
		if (dwarf_cfi_addrframe(cfi, pc, &f)) {
			bd->t->stats.bad_fdes++;
			return emit(bd, pc, &none);
		}
		if (dwarf_frame_info(f, &start, &end, &signal) < 0 || end <= pc) {
			free(f);
			bd->t->stats.bad_fdes++;
			return emit(bd, pc, &none);
		}
		if (!cfi_rows__of_frame(f, signal, &r)) {
			bd->t->stats.unsupported++;
			r = none;
		}
		free(f);
		err = emit(bd, pc, &r);
		pc = end < hi ? end : hi;
	}
	return err;
}

/* fd's rows by one run of its program; -EOPNOTSUPP when libdw must make them. */
static int fast_rows(struct builder *bd, const struct fde_range *fd)
{
	int err;

	if (bd->libdw_only || !fd->prog)
		return -EOPNOTSUPP;
	err = cfi_linear__run(&bd->cies[fd->cie].lin, fd->lo, fd->hi, fd->prog, fd->prog_end,
			      &bd->fast);
	if (err)
		return err;
	bd->t->stats.unsupported += bd->fast.unsupported;
	for (size_t i = 0; !err && i < bd->fast.nr; i++)
		err = emit(bd, bd->fast.rows[i].pc, &bd->fast.rows[i].r);
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

	scn = elf_read__find_section(elf, name, &shdr);
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
	cfi_check__close(&eh);
	cfi_check__close(&df);
	free(bd.fdes);
	free(bd.cies);
	free(bd.fast.rows);
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

/* What check_machine() reads. */
static int add_machine(struct sha256 *s, Elf *elf)
{
	GElf_Ehdr ehdr;

	if (!gelf_getehdr(elf, &ehdr))
		return -ENOEXEC;
	sha256__update(s, ehdr.e_ident, EI_NIDENT);
	sha256__u64(s, ehdr.e_machine);
	return 0;
}

/* Section name of elf as list_section() finds it, or a mark that there is none. */
static int add_named(struct sha256 *s, Elf *elf, const char *name, const struct budget *b)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = elf_read__find_section(elf, name, &shdr);

	sha256__u64(s, scn ? 1 : 0);
	return scn ? file_id__add_section(s, scn, name, b) : 0;
}

int cfi_table__digest(Elf *elf, Elf *debug, const struct budget *b, uint8_t out[SHA256_LEN])
{
	static const char tag[] = "profile: unwind table rows";
	GElf_Shdr shdr;
	struct sha256 s;
	int err;

	sha256__init(&s);
	sha256__update(&s, tag, sizeof(tag));
	sha256__u64(&s, CFI_TABLE_ROWS_VERSION);
	err = add_machine(&s, elf);
	if (!err)
		err = add_named(&s, elf, ".eh_frame", b);
	/* list_debug_frame(): the file's own .debug_frame, else debug's */
	if (!err && (elf_read__find_section(elf, ".debug_frame", &shdr) || !debug)) {
		sha256__u64(&s, 1);
		err = add_named(&s, elf, ".debug_frame", b);
	} else if (!err) {
		sha256__u64(&s, 2);
		err = add_machine(&s, debug);
		if (!err)
			err = add_named(&s, debug, ".debug_frame", b);
	}
	if (err)
		return err;
	sha256__final(&s, out);
	return 0;
}

bool cfi_table__has_debug_frame(Elf *elf)
{
	GElf_Shdr shdr;

	return elf_read__find_section(elf, ".debug_frame", &shdr) != NULL;
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
