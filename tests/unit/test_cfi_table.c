// SPDX-License-Identifier: GPL-2.0
/*
 * Unwind tables from .eh_frame (unwind/cfi_table.c), checked row by row
 * against binutils' reading of the same file (`readelf -wF`): on a fixture
 * built without frame pointers, and on the system's libc.
 */
#include <criterion/criterion.h>
#include <dwarf.h>
#include <fcntl.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind/cfi_table.h"
#include "eh_frame_image.h"
#include "symbols/elf_read.h"
#include "test_util.h"

#define FIXTURE_UNWIND FIXTURE_DIR "/fixture_unwind"
#define SYSTEM_LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define SYSTEM_CC1 "/usr/lib/gcc/x86_64-linux-gnu/12/cc1"
#define SYSTEM_PYTHON "/usr/bin/python3"

/* One row as readelf prints it: LOC, CFA ("rsp+8", "rbp+16", "exp"), rbp, ra. */
struct want {
	unsigned long loc, fde_hi;
	char cfa[24], rbp[16], ra[16];
	bool signal;
};

struct oracle {
	struct want *rows;
	size_t nr, cap;
	/* FDE ranges, to find the gaps between them */
	unsigned long (*fdes)[2];
	size_t nr_fdes, cap_fdes;
};

/* Column index of name in readelf's "LOC CFA reg... ra" header, or -1. */
static int column(char *hdr, const char *name)
{
	int i = 0;

	for (char *tok = strtok(hdr, " \n"); tok; tok = strtok(NULL, " \n"), i++)
		if (!strcmp(tok, name))
			return i;
	return -1;
}

static void field(const char *line, int col, char *out, size_t size)
{
	char copy[512], *tok;
	int i = 0;

	/* a register rule prints as "r9 (r9)": one field */
	for (size_t i = 0, j = 0; j < sizeof(copy) - 1; i++) {
		if (line[i] == ' ' && line[i + 1] == '(')
			continue;
		copy[j++] = line[i];
		if (!line[i])
			break;
	}
	copy[sizeof(copy) - 1] = 0;
	snprintf(out, size, "%s", "");
	for (tok = strtok(copy, " \n"); tok; tok = strtok(NULL, " \n"), i++) {
		if (i == col) {
			snprintf(out, size, "%s", tok);
			return;
		}
	}
}

/* Grows by doubling: libc has ~30k rows, and one realloc each is quadratic under ASan. */
static void push(struct oracle *o, const struct want *w)
{
	if (o->nr == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 1024;
		o->rows = reallocarray(o->rows, o->cap, sizeof(*o->rows));
		cr_assert_not_null(o->rows);
	}
	o->rows[o->nr++] = *w;
}

/*
 * readelf -wF's table, with each CIE's initial row standing for the FDEs
 * that print none of their own; CIEs whose augmentation has 'S' (signal
 * frames) remembered by offset.
 */
static struct oracle read_oracle(const char *path)
{
	char cmd[512], line[512], hdr[512] = "", cie_row[512] = "", cie_hdr[512] = "";
	/* each CIE's offset, header and first row */
	static struct { unsigned long off; char hdr[512], row[512]; bool signal; } cies[64];
	unsigned long lo = 0, hi = 0, cie = 0;
	size_t nr_cies = 0;
	struct oracle o = { 0 };
	bool in_fde = false, fde_rows = false, in_cie = false, sig = false;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -wF '%s'", path);
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	for (;;) {
		bool more = fgets(line, sizeof(line), f) != NULL;
		unsigned long off;
		char aug[32];

		/* an FDE without rows of its own: its CIE's first row */
		if ((!more || strstr(line, " FDE ") || strstr(line, " CIE ")) && in_fde && !fde_rows) {
			struct want w = { .loc = lo, .fde_hi = hi, .signal = sig };
			char h[512];
			int c;

			snprintf(h, sizeof(h), "%s", cie_hdr);
			c = column(h, "CFA");
			field(cie_row, c, w.cfa, sizeof(w.cfa));
			snprintf(h, sizeof(h), "%s", cie_hdr);
			field(cie_row, column(h, "ra"), w.ra, sizeof(w.ra));
			snprintf(h, sizeof(h), "%s", cie_hdr);
			c = column(h, "rbp");
			if (c >= 0)
				field(cie_row, c, w.rbp, sizeof(w.rbp));
			push(&o, &w);
		}
		if (!more)
			break;
		if (sscanf(line, "%lx %*x %*x CIE \"%31[^\"]\"", &off, aug) == 2) {
			cr_assert_lt(nr_cies, 64, "too many CIEs for the test");
			cies[nr_cies].off = off;
			cies[nr_cies].signal = strchr(aug, 'S');
			cies[nr_cies].hdr[0] = cies[nr_cies].row[0] = 0;
			nr_cies++;
			in_cie = true;
			in_fde = false;
			continue;
		}
		if (sscanf(line, "%*x %*x %*x FDE cie=%lx pc=%lx..%lx", &cie, &lo, &hi) == 3) {
			in_fde = true;
			in_cie = fde_rows = sig = false;
			cie_row[0] = cie_hdr[0] = 0;
			for (size_t i = 0; i < nr_cies; i++) {
				if (cies[i].off != cie)
					continue;
				sig = cies[i].signal;
				snprintf(cie_hdr, sizeof(cie_hdr), "%s", cies[i].hdr);
				snprintf(cie_row, sizeof(cie_row), "%s", cies[i].row);
			}
			if (o.nr_fdes == o.cap_fdes) {
				o.cap_fdes = o.cap_fdes ? 2 * o.cap_fdes : 256;
				o.fdes = reallocarray(o.fdes, o.cap_fdes, sizeof(*o.fdes));
				cr_assert_not_null(o.fdes);
			}
			o.fdes[o.nr_fdes][0] = lo;
			o.fdes[o.nr_fdes++][1] = hi;
			continue;
		}
		if (strstr(line, "LOC") && strstr(line, "CFA")) {
			snprintf(in_cie ? cies[nr_cies - 1].hdr : hdr, sizeof(hdr), "%s", line);
			continue;
		}
		if (in_cie && !cies[nr_cies - 1].row[0] && sscanf(line, "%lx", &off) == 1) {
			snprintf(cies[nr_cies - 1].row, sizeof(cies[0].row), "%s", line);
			continue;
		}
		if (in_fde && sscanf(line, "%lx", &off) == 1 && !strstr(line, "ZERO")) {
			struct want w = { .loc = off, .fde_hi = hi, .signal = sig };
			char h[512];
			int c;

			fde_rows = true;
			snprintf(h, sizeof(h), "%s", hdr);
			field(line, column(h, "CFA"), w.cfa, sizeof(w.cfa));
			snprintf(h, sizeof(h), "%s", hdr);
			field(line, column(h, "ra"), w.ra, sizeof(w.ra));
			snprintf(h, sizeof(h), "%s", hdr);
			c = column(h, "rbp");
			if (c >= 0)
				field(line, c, w.rbp, sizeof(w.rbp));
			push(&o, &w);
		}
	}
	/* readelf exits 1 for a file without .debug_frame: its rows are what count */
	pclose(f);
	cr_assert_gt(o.nr, 0, "readelf printed no rows for %s", path);
	return o;
}

static void oracle_free(struct oracle *o)
{
	free(o->rows);
	free(o->fdes);
}

/* The DWARF number of a general register as readelf names it, or -1. */
static int gpr(const char *name, size_t len)
{
	static const char *const names[UNW_NR_REGS] = {
		"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	};

	for (int i = 0; i < UNW_NR_REGS; i++)
		if (strlen(names[i]) == len && !strncmp(names[i], name, len))
			return i;
	return -1;
}

/* Our row at pc says what readelf's row w says. */
static void assert_row_matches(const struct cfi_table *t, unsigned long pc, const struct want *w)
{
	const struct unwind_row *r = cfi_table__find(t, (uint32_t)pc);
	int off, ra_reg = -1, cfa_reg = -1;
	const char *plus = strchr(w->cfa, '+');

	cr_assert_not_null(r, "no row at %#lx", pc);
	if (w->signal) {
		cr_assert_eq(r->cfa_rule, UNW_CFA_SIGNAL, "%#lx: a signal frame, rule %u", pc, r->cfa_rule);
		return;
	}
	if (!strcmp(w->ra, "u")) {
		cr_assert_eq(r->cfa_rule, UNW_CFA_END, "%#lx: ra undefined, rule %u", pc, r->cfa_rule);
		return;
	}
	/* "r5(rdi)": the return address in a register */
	if (sscanf(w->ra, "r%d(", &ra_reg) == 1 && (ra_reg >= UNW_NR_REGS || ra_reg == UNW_REG_SP))
		ra_reg = -2;
	if (plus)
		cfa_reg = gpr(w->cfa, (size_t)(plus - w->cfa));
	/* a CFA in no general register, a return address elsewhere: no compact form */
	if ((ra_reg == -1 && sscanf(w->ra, "c%d", &off) != 1) || ra_reg == -2 ||
	    (cfa_reg < 0 && strcmp(w->cfa, "exp"))) {
		cr_assert_eq(r->cfa_rule, UNW_CFA_NONE, "%#lx: CFA %s, ra %s, yet rule %u", pc,
			     w->cfa, w->ra, r->cfa_rule);
		return;
	}
	if (ra_reg >= 0)
		cr_assert(r->ra_rule == UNW_RA_REG && r->ra_reg == ra_reg,
			  "%#lx: ra rule %u reg %u, want %s", pc, r->ra_rule, r->ra_reg, w->ra);
	else
		cr_assert(r->ra_rule == UNW_RA_AT_CFA && r->ra_off == off,
			  "%#lx: ra at c%+d, want %s", pc, r->ra_off, w->ra);
	if (!strcmp(w->cfa, "exp")) {
		/* the PLT's, or a word read: libdw's reading checks which (below) */
		cr_assert(r->cfa_rule == UNW_CFA_PLT || r->cfa_rule == UNW_CFA_DEREF,
			  "%#lx: expression, rule %u", pc, r->cfa_rule);
	} else {
		cr_assert_eq(sscanf(plus, "+%d", &off), 1, "%#lx: CFA '%s'", pc, w->cfa);
		cr_assert(r->cfa_rule == (cfa_reg == UNW_REG_SP ? UNW_CFA_SP
					  : cfa_reg == UNW_REG_FP ? UNW_CFA_FP : UNW_CFA_REG) &&
			  r->cfa_off == off && r->cfa_reg == (r->cfa_rule == UNW_CFA_REG ? cfa_reg : 0),
			  "%#lx: rule %u reg %u %+d, want %s", pc, r->cfa_rule, r->cfa_reg, r->cfa_off,
			  w->cfa);
	}
	/* readelf's "u" also stands for "no rule yet", which libdw calls same value */
	if (sscanf(w->rbp, "c%d", &off) == 1)
		cr_assert(r->fp_rule == UNW_FP_AT_CFA && r->fp_off == off,
			  "%#lx: rbp rule %u%+d, want %s", pc, r->fp_rule, r->fp_off, w->rbp);
	else if (!strcmp(w->rbp, "exp"))
		cr_assert(r->fp_rule == UNW_FP_AT_FP || r->fp_rule == UNW_FP_UNDEFINED,
			  "%#lx: rbp by an expression, rule %u", pc, r->fp_rule);
	else
		cr_assert(r->fp_rule != UNW_FP_AT_CFA && r->fp_rule != UNW_FP_AT_FP,
			  "%#lx: rbp saved, readelf says '%s'", pc, w->rbp);
}

/* Every readelf row, at its first and last address; NONE between FDEs. */
static size_t assert_table_matches(const char *path)
{
	struct oracle o = read_oracle(path);
	struct cfi_table t;
	size_t gaps = 0;
	int err = cfi_table__build_file(path, NULL, &t);

	cr_assert_eq(err, 0, "%s: %s", path, strerror(-err));
	for (size_t i = 0; i < o.nr; i++) {
		const struct want *w = &o.rows[i];
		unsigned long last = w->fde_hi - 1;

		if (i + 1 < o.nr && o.rows[i + 1].loc > w->loc && o.rows[i + 1].loc < w->fde_hi)
			last = o.rows[i + 1].loc - 1;
		assert_row_matches(&t, w->loc, w);
		assert_row_matches(&t, last, w);
	}
	for (size_t i = 0; i < o.nr_fdes; i++) {
		unsigned long hi = o.fdes[i][1];
		bool covered = false;

		for (size_t j = 0; j < o.nr_fdes && !covered; j++)
			covered = o.fdes[j][0] <= hi && hi < o.fdes[j][1];
		if (covered)
			continue;
		cr_assert_eq(cfi_table__find(&t, (uint32_t)hi)->cfa_rule, UNW_CFA_NONE,
			     "%#lx: past an FDE, yet a rule", hi);
		gaps++;
	}
	cr_assert_eq(t.stats.fdes, o.nr_fdes);
	cr_assert_eq(t.stats.bad_fdes, 0);
	for (size_t i = 1; i < t.nr; i++) {
		cr_assert_gt(t.rows[i].pc, t.rows[i - 1].pc, "rows out of order at %zu", i);
		cr_assert(memcmp((char *)&t.rows[i] + 4, (char *)&t.rows[i - 1] + 4,
				 sizeof(t.rows[i]) - 4), "row %zu repeats the one before", i);
	}
	cfi_table__release(&t);
	oracle_free(&o);
	return gaps;
}

Test(cfi_table, rows_match_readelf_without_frame_pointers)
{
	cr_assert_gt(assert_table_matches(FIXTURE_UNWIND), 0, "no gap between FDEs checked");
}

Test(cfi_table, rows_match_readelf_for_libc)
{
	if (access(SYSTEM_LIBC, R_OK))
		skip_unless_ci("no %s", SYSTEM_LIBC);
	assert_table_matches(SYSTEM_LIBC);
}

/*
 * gcc's cc1 runs its FDE programs 66 times a byte of .eh_frame over (long
 * functions of many rows): once over the work allowed, it had no table.
 */
Test(cfi_table, debian_cc1_has_a_table)
{
	struct cfi_table t;
	int err;

	if (access(SYSTEM_CC1, R_OK))
		skip_unless_ci("no %s", SYSTEM_CC1);
	err = cfi_table__build_file(SYSTEM_CC1, NULL, &t);
	cr_assert_eq(err, 0, "%s: %s (%s)", SYSTEM_CC1, strerror(-err), budget__why());
	cr_assert_gt(t.nr, 100000);
	cfi_table__release(&t);
}

/* Both tables alike, row for row, and in what they counted. */
static void assert_same_tables(const struct cfi_table *a, const struct cfi_table *b,
			       const char *what)
{
	size_t i = 0;

	while (i < a->nr && i < b->nr && !memcmp(&a->rows[i], &b->rows[i], sizeof(a->rows[i])))
		i++;
	cr_assert(i == a->nr && i == b->nr, "%s: %zu and %zu rows, first difference at row %zu (pc %#x)",
		  what, a->nr, b->nr, i, i < a->nr ? a->rows[i].pc : 0);
	cr_assert_eq(a->stats.fdes, b->stats.fdes, "%s", what);
	cr_assert_eq(a->stats.bad_fdes, b->stats.bad_fdes, "%s", what);
	cr_assert_eq(a->stats.unsupported, b->stats.unsupported, "%s", what);
}

/* The file's table by the linear interpreter is libdw's, which it spares nearly every FDE. */
static void assert_linear_is_libdw(const char *path, bool skip_if_missing)
{
	struct cfi_table fast, ref;
	Elf *elf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && skip_if_missing)
		skip_unless_ci("no %s", path);
	cr_assert_geq(fd, 0, "%s", path);
	cr_assert(elf_read__ready());
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	cr_assert_not_null(elf);
	cr_assert_eq(cfi_table__build(elf, NULL, &fast), 0, "%s", path);
	cr_assert_eq(cfi_table__build_libdw(elf, NULL, NULL, &ref), 0, "%s", path);
	assert_same_tables(&fast, &ref, path);
	cr_assert_eq(ref.by_libdw, ref.stats.fdes);
	cr_assert_leq(fast.by_libdw * 100, fast.stats.fdes, "%s: libdw made %llu of %llu FDEs' rows",
		      path, (unsigned long long)fast.by_libdw, (unsigned long long)fast.stats.fdes);
	cfi_table__release(&fast);
	cfi_table__release(&ref);
	elf_end(elf);
	close(fd);
}

Test(cfi_table, linear_rows_are_libdws_without_frame_pointers)
{
	assert_linear_is_libdw(FIXTURE_UNWIND, false);
}

Test(cfi_table, linear_rows_are_libdws_for_libc_python_and_cc1)
{
	assert_linear_is_libdw(SYSTEM_LIBC, true);
	assert_linear_is_libdw(SYSTEM_PYTHON, true);
	assert_linear_is_libdw(SYSTEM_CC1, true);
}

/* Programs of the instructions compilers emit, and some they rarely do. */
static void program_common(struct eh *e)
{
	static const uint8_t ins[] = {
		DW_CFA_advance_loc | 1, DW_CFA_def_cfa_offset, 16,
		DW_CFA_offset | 6, 2,			/* rbp at cfa-16 */
		DW_CFA_advance_loc | 3, DW_CFA_def_cfa_register, 6,
		DW_CFA_advance_loc1, 40, DW_CFA_remember_state,
		DW_CFA_def_cfa, 7, 8, DW_CFA_restore | 6,
		DW_CFA_advance_loc2, 0x10, 0x01, DW_CFA_restore_state,
		DW_CFA_advance_loc4, 4, 0, 0, 0, DW_CFA_GNU_args_size, 16,
		DW_CFA_offset_extended_sf, 6, 0x7c,	/* rbp at cfa-32 (sleb -4) */
		DW_CFA_def_cfa_sf, 7, 0x7e,		/* rsp+16 (sleb -2) */
		DW_CFA_advance_loc | 2, DW_CFA_def_cfa_offset_sf, 0x7d,	/* rsp+24 */
		DW_CFA_same_value, 6, DW_CFA_nop,
		DW_CFA_advance_loc | 2, DW_CFA_restore_extended, 6,
		DW_CFA_advance_loc | 2, DW_CFA_offset_extended, 6, 3,
		DW_CFA_advance_loc | 2, DW_CFA_undefined, 16,
	};

	eh_cie(e);
	eh_fde(e, 0x1000, 0x400, ins, sizeof(ins));
	/* an FDE over the next one's start: refused, by both */
	eh_fde(e, 0x1200, 0x20, ins, 3);
}

static void program_rare(struct eh *e)
{
	static const uint8_t reg[] = {		/* rbp kept in rbx */
		DW_CFA_advance_loc | 1, DW_CFA_register, 6, 3,
		DW_CFA_advance_loc | 1, DW_CFA_val_offset, 6, 2,
	};
	static const uint8_t plt[] = {
		DW_CFA_def_cfa_offset, 16, DW_CFA_advance_loc | 6,
		DW_CFA_def_cfa_expression, 11, DW_OP_breg7, 8, DW_OP_breg16, 0, DW_OP_lit15,
		DW_OP_and, DW_OP_lit11, DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus,
	};
	static const uint8_t expr[] = {		/* cfa = *(rsp + 8): no compact form */
		DW_CFA_advance_loc | 2, DW_CFA_def_cfa_expression, 3, DW_OP_breg7, 8, DW_OP_deref,
	};
	static const uint8_t far[] = {		/* a CFA offset over 32 bits */
		DW_CFA_def_cfa, 7, 0x80, 0x80, 0x80, 0x80, 0x20,
	};

	eh_cie(e);
	eh_fde(e, 0x2000, 0x10, reg, sizeof(reg));
	eh_fde(e, 0x3000, 0x40, plt, sizeof(plt));
	eh_fde(e, 0x4000, 0x10, expr, sizeof(expr));
	eh_fde(e, 0x5000, 0x10, far, sizeof(far));
}

/* A CIE of other factors or augmentation than eh_cie()'s; its offset. */
static uint32_t cie_of(struct eh *e, uint8_t code_align, uint8_t data_align_sleb,
		       const char *aug, const uint8_t *ins, size_t n)
{
	uint8_t body[32];
	size_t len = 0, alen = strlen(aug) + 1;
	uint32_t off = (uint32_t)e->len;

	memset(body, 0, 4);			/* CIE id */
	len = 4;
	body[len++] = 1;			/* version */
	memcpy(body + len, aug, alen);
	len += alen;
	body[len++] = code_align;
	body[len++] = data_align_sleb;
	body[len++] = 16;			/* return address column */
	body[len++] = 1;			/* augmentation data: 'R' */
	body[len++] = DW_EH_PE_udata4;
	eh_u32(e, (uint32_t)(len + n));
	eh_put(e, body, len);
	eh_put(e, ins, n);
	return off;
}

/* The corners: factors x86-64 never uses, a CIE that saves state, 'S', ra restored, past the end. */
static void program_corners(struct eh *e)
{
	static const uint8_t cie_ins[] = {
		DW_CFA_def_cfa, 7, 8, DW_CFA_offset | 16, 1,
		DW_CFA_remember_state, DW_CFA_offset | 6, 2, DW_CFA_restore_state,
	};
	static const uint8_t ins[] = {
		DW_CFA_advance_loc | 1, DW_CFA_def_cfa_offset, 16, DW_CFA_offset | 16, 2,
		DW_CFA_advance_loc | 2, DW_CFA_restore | 16,
		DW_CFA_advance_loc | 2, DW_CFA_offset_extended_sf, 6, 0x7f,
		DW_CFA_advance_loc1, 200, DW_CFA_def_cfa_offset, 32,	/* past the FDE's end */
	};
	uint32_t saves, two, big, sig;

	saves = cie_of(e, 1, 0x78, "zR", cie_ins, sizeof(cie_ins));
	eh_fde_of(e, saves, 0x1000, 0x20, ins, sizeof(ins));
	two = cie_of(e, 2, 0x78, "zR", cie_ins, 5);		/* code_align 2 */
	eh_fde_of(e, two, 0x2000, 0x20, ins, sizeof(ins));
	big = cie_of(e, 1, 0x40, "zR", cie_ins, 5);		/* data_align -64 */
	eh_fde_of(e, big, 0x3000, 0x20, ins, sizeof(ins));
	sig = cie_of(e, 1, 0x78, "zRS", cie_ins, 5);		/* a signal frame's */
	eh_fde_of(e, sig, 0x4000, 0x20, ins, sizeof(ins));
}

static int build_libdw(Elf *elf, const struct budget *b, struct cfi_table *t)
{
	return cfi_table__build_libdw(elf, NULL, b, t);
}

static void assert_programs_alike(void (*program)(struct eh *), const char *what)
{
	struct eh e1 = { 0 }, e2 = { 0 };
	struct cfi_table fast, ref;

	program(&e1);
	program(&e2);
	int err1 = eh_build_with(&e1, NULL, &fast, cfi_table__build);
	int err2 = eh_build_with(&e2, NULL, &ref, build_libdw);

	cr_assert(!err1 && !err2, "%s: %d %d (%s)", what, err1, err2, budget__why());
	cr_assert_gt(fast.nr, 3, "%s", what);
	assert_same_tables(&fast, &ref, what);
	cfi_table__release(&fast);
	cfi_table__release(&ref);
}

Test(cfi_table, linear_rows_are_libdws_for_every_instruction_it_runs)
{
	struct eh e = { 0 };
	struct cfi_table t;

	assert_programs_alike(program_common, "common");
	program_common(&e);
	cr_assert_eq(eh_build(&e, NULL, &t), 0);
	cr_assert_eq(t.by_libdw, 0, "the linear run gave up on common instructions");
	cfi_table__release(&t);
}

Test(cfi_table, linear_rows_are_libdws_in_the_corners)
{
	struct eh e = { 0 };
	struct cfi_table t;

	assert_programs_alike(program_corners, "corners");
	program_corners(&e);
	cr_assert_eq(eh_build(&e, NULL, &t), 0);
	/* code_align 2 and 'S' go to libdw; -64 and a CIE that saves state it runs */
	cr_assert_eq(t.by_libdw, 2, "%llu FDEs by libdw", (unsigned long long)t.by_libdw);
	cfi_table__release(&t);
}

Test(cfi_table, what_the_linear_run_does_not_follow_libdw_does)
{
	struct eh e = { 0 };
	struct cfi_table t;

	assert_programs_alike(program_rare, "rare");
	program_rare(&e);
	cr_assert_eq(eh_build(&e, NULL, &t), 0);
	/* the PLT's expression and a deref it reads; rbp in a register, 2^35 it hands over */
	cr_assert_eq(t.by_libdw, 2, "%llu FDEs by libdw", (unsigned long long)t.by_libdw);
	cfi_table__release(&t);
}

/*
 * What hand-written assembly and gcc's stack realignment (DRAP) write:
 * a CFA in another register, a CFA read from the stack (plus a constant
 * or not, by DW_OP_bregN or DW_OP_bregx), rbp saved where rbp points,
 * the return address in a register; and the forms of them a row cannot
 * hold (a vector register, offsets over 16 bits, ra in rsp).
 */
static void program_registers(struct eh *e)
{
	static const uint8_t drap[] = {
		DW_CFA_advance_loc | 5, DW_CFA_def_cfa, 10, 0,				/* r10+0 */
		DW_CFA_advance_loc | 4, DW_CFA_expression, 6, 2, DW_OP_breg6, 0,	/* rbp at *(rbp) */
		DW_CFA_advance_loc | 4, DW_CFA_def_cfa_expression, 3, DW_OP_breg6, 0x70, DW_OP_deref,
		DW_CFA_expression, 12, 2, DW_OP_breg6, 0x78,				/* r12: no row holds it */
		DW_CFA_advance_loc | 8, DW_CFA_def_cfa, 10, 0,
		DW_CFA_advance_loc | 2, DW_CFA_def_cfa, 7, 8,
	};
	static const uint8_t openssl[] = {
		DW_CFA_advance_loc | 3, DW_CFA_def_cfa_register, 0,			/* rax */
		DW_CFA_advance_loc | 4, DW_CFA_offset | 6, 2,
		DW_CFA_advance_loc | 4, DW_CFA_def_cfa_expression, 5,
		DW_OP_breg7, 40, DW_OP_deref, DW_OP_plus_uconst, 8,			/* *(rsp+40)+8 */
		DW_CFA_advance_loc | 4, DW_CFA_def_cfa_expression, 6,
		DW_OP_bregx, 6, 0x70, DW_OP_deref, DW_OP_plus_uconst, 56,		/* *(rbp-16)+56 */
		DW_CFA_advance_loc | 4, DW_CFA_def_cfa_expression, 7,
		DW_OP_breg7, 0x80, 0x80, 0x02, DW_OP_deref, DW_OP_plus_uconst, 8,	/* 32768: too far */
		DW_CFA_advance_loc | 4, DW_CFA_def_cfa_expression, 7,
		DW_OP_breg7, 8, DW_OP_deref, DW_OP_plus_uconst, 0x80, 0x80, 0x02,	/* + 32768 */
		DW_CFA_advance_loc | 4, DW_CFA_def_cfa, 17, 8,				/* xmm0 */
		DW_CFA_advance_loc | 4, DW_CFA_def_cfa, 11, 8,				/* r11 */
	};
	static const uint8_t vfork[] = {
		DW_CFA_advance_loc | 1, DW_CFA_def_cfa_offset, 0, DW_CFA_register, 16, 5,	/* rdi */
		DW_CFA_advance_loc | 8, DW_CFA_def_cfa_offset, 8,
		DW_CFA_advance_loc | 4, DW_CFA_register, 16, 7,			/* rsp: no */
		DW_CFA_advance_loc | 4, DW_CFA_register, 16, 20,			/* not general */
		DW_CFA_advance_loc | 4, DW_CFA_restore | 16,
		DW_CFA_advance_loc | 4, DW_CFA_def_cfa, 5, 0, DW_CFA_register, 16, 1,	/* rdi, rdx */
	};

	eh_cie(e);
	eh_fde(e, 0x1000, 0x30, drap, sizeof(drap));
	eh_fde(e, 0x2000, 0x40, openssl, sizeof(openssl));
	eh_fde(e, 0x3000, 0x30, vfork, sizeof(vfork));
}

Test(cfi_table, register_and_deref_rules_have_rows_and_are_libdws)
{
	static const struct { uint32_t pc; struct unwind_row r; } want[] = {
		{ 0x1005, { .cfa_rule = UNW_CFA_REG, .cfa_reg = 10, .cfa_off = 0, .ra_off = -8 } },
		{ 0x1009, { .cfa_rule = UNW_CFA_REG, .cfa_reg = 10, .ra_off = -8,
			    .fp_rule = UNW_FP_AT_FP, .fp_off = 0 } },
		{ 0x100d, { .cfa_rule = UNW_CFA_DEREF, .cfa_reg = 6, .deref_off = -16, .ra_off = -8,
			    .fp_rule = UNW_FP_AT_FP } },
		{ 0x1017, { .cfa_rule = UNW_CFA_SP, .cfa_off = 8, .ra_off = -8, .fp_rule = UNW_FP_AT_FP } },
		{ 0x2003, { .cfa_rule = UNW_CFA_REG, .cfa_reg = 0, .cfa_off = 8, .ra_off = -8 } },
		{ 0x200b, { .cfa_rule = UNW_CFA_DEREF, .cfa_reg = 7, .deref_off = 40, .deref_add = 8,
			    .ra_off = -8, .fp_rule = UNW_FP_AT_CFA, .fp_off = -16 } },
		{ 0x200f, { .cfa_rule = UNW_CFA_DEREF, .cfa_reg = 6, .deref_off = -16, .deref_add = 56,
			    .ra_off = -8, .fp_rule = UNW_FP_AT_CFA, .fp_off = -16 } },
		{ 0x2013, { .cfa_rule = UNW_CFA_NONE } },
		{ 0x2017, { .cfa_rule = UNW_CFA_NONE } },
		{ 0x201b, { .cfa_rule = UNW_CFA_NONE } },
		{ 0x201f, { .cfa_rule = UNW_CFA_REG, .cfa_reg = 11, .cfa_off = 8, .ra_off = -8,
			    .fp_rule = UNW_FP_AT_CFA, .fp_off = -16 } },
		{ 0x3001, { .cfa_rule = UNW_CFA_SP, .ra_rule = UNW_RA_REG, .ra_reg = 5 } },
		{ 0x3009, { .cfa_rule = UNW_CFA_SP, .cfa_off = 8, .ra_rule = UNW_RA_REG, .ra_reg = 5 } },
		{ 0x300d, { .cfa_rule = UNW_CFA_NONE } },
		{ 0x3011, { .cfa_rule = UNW_CFA_NONE } },
		{ 0x3015, { .cfa_rule = UNW_CFA_SP, .cfa_off = 8, .ra_off = -8 } },
		{ 0x3019, { .cfa_rule = UNW_CFA_REG, .cfa_reg = 5, .ra_rule = UNW_RA_REG, .ra_reg = 1 } },
	};
	struct eh e = { 0 };
	struct cfi_table t;

	assert_programs_alike(program_registers, "registers");
	program_registers(&e);
	cr_assert_eq(eh_build(&e, NULL, &t), 0);
	cr_assert_eq(t.by_libdw, 0, "%llu FDEs by libdw", (unsigned long long)t.by_libdw);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		const struct unwind_row *r = cfi_table__find(&t, want[i].pc);

		cr_assert_not_null(r);
		cr_assert(!memcmp((const char *)r + 4, (const char *)&want[i].r + 4, sizeof(*r) - 4),
			  "%#x: rule %u reg %u off %d fp %u%+d ra %u/%d", want[i].pc, r->cfa_rule,
			  r->cfa_reg, r->cfa_off, r->fp_rule, r->fp_off, r->ra_rule, r->ra_off);
	}
	cr_assert_eq(t.stats.unsupported, 5);
	cfi_table__release(&t);
}

/* The rules a frame-pointer walk cannot follow are the ones the table has. */
Test(cfi_table, fixture_has_rsp_rbp_plt_and_root_rows)
{
	struct cfi_table t;
	bool seen[UNW_CFA_END + 1] = { 0 };

	cr_assert_eq(cfi_table__build_file(FIXTURE_UNWIND, NULL, &t), 0);
	for (size_t i = 0; i < t.nr; i++)
		seen[t.rows[i].cfa_rule] = true;
	cr_assert(seen[UNW_CFA_SP] && seen[UNW_CFA_FP] && seen[UNW_CFA_PLT] && seen[UNW_CFA_END],
		  "sp %d fp %d plt %d end %d", seen[UNW_CFA_SP], seen[UNW_CFA_FP], seen[UNW_CFA_PLT],
		  seen[UNW_CFA_END]);
	cr_assert_eq(t.stats.unsupported, 0);
	cfi_table__release(&t);
}

Test(cfi_table, a_file_without_eh_frame_has_no_table)
{
	char *dir = make_tmpdir(), path[4200], cmd[8500];
	struct cfi_table t;

	snprintf(path, sizeof(path), "%s/noeh", dir);
	snprintf(cmd, sizeof(cmd), "objcopy -R .eh_frame -R .eh_frame_hdr '%s' '%s'",
		 FIXTURE_UNWIND, path);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	cr_assert_eq(cfi_table__build_file(path, NULL, &t), -ENOENT);
	cr_assert_eq(t.nr, 0);
	cr_assert_eq(cfi_table__build_file("/nonexistent/file", NULL, &t), -ENOENT);
	rm_rf(dir);
}

Test(cfi_table, an_fde_past_4_gib_is_refused_with_a_reason)
{
	struct eh e = { 0 };
	struct cfi_table t;

	eh_cie(&e);
	eh_fde(&e, 0x1000, 0x10, NULL, 0);
	eh_fde(&e, 0xfffffff0, 0x100, NULL, 0);
	cr_assert_eq(eh_build(&e, NULL, &t), -EFBIG);
	cr_assert_neq(budget__why()[0], 0, "-EFBIG, yet no reason");
	cr_assert_eq(t.nr, 0);
}

/* Fails without its fix under SANITIZE=1: UBSan saw qsort(NULL, 0, ...). */
Test(cfi_table, an_eh_frame_without_fdes_has_an_empty_table)
{
	struct eh e = { 0 };
	struct cfi_table t;

	eh_cie(&e);
	cr_assert_eq(eh_build(&e, NULL, &t), 0);
	cr_assert_eq(t.nr, 0);
	cr_assert_eq(t.stats.fdes, 0);
}

/* Alike and side by side they make two rows; libdw would keep them all. */
Test(cfi_table, more_fdes_than_rows_are_refused_while_listed, .timeout = 60)
{
	struct eh e = { 0 };
	struct cfi_table t;

	eh_cie(&e);
	for (uint32_t i = 0; i <= CFI_TABLE_MAX_ROWS; i++)
		eh_fde(&e, 0x100000 + i, 1, NULL, 0);
	cr_assert_eq(eh_build(&e, NULL, &t), -EFBIG);
	cr_assert(strstr(budget__why(), "FDEs"), "%s", budget__why());
}

/*
 * libdw runs a program from its start for each row: 30000 advances cost
 * 30000 runs of up to 30 KB (2 s), and a 1 MB program hours. It runs
 * the FDEs the linear interpreter hands it: here for DW_CFA_register.
 */
Test(cfi_table, an_fde_too_long_to_run_for_each_row_is_refused)
{
	enum { N = 30000 };
	static uint8_t ins[N];
	struct eh e = { 0 };
	struct cfi_table t;

	memset(ins, DW_CFA_advance_loc | 1, sizeof(ins));
	ins[0] = DW_CFA_register, ins[1] = 6, ins[2] = 3;
	eh_cie(&e);
	eh_fde(&e, 0x1000, N + 1, ins, N);
	cr_assert_eq(eh_build(&e, NULL, &t), -EFBIG);
	cr_assert(strstr(budget__why(), "too long"), "%s", budget__why());
}

/* The same advances in instructions the linear interpreter follows: one run. */
Test(cfi_table, an_fde_of_many_rows_is_run_once)
{
	enum { N = 30000 };
	static uint8_t ins[N];
	struct eh e = { 0 };
	struct cfi_table t;

	/* rsp+16 for a byte, rsp+8 for a byte, ...: a row each */
	for (size_t i = 0; i + 6 <= N; i += 6) {
		static const uint8_t two[] = {
			DW_CFA_def_cfa_offset, 16, DW_CFA_advance_loc | 1,
			DW_CFA_def_cfa_offset, 8, DW_CFA_advance_loc | 1,
		};

		memcpy(ins + i, two, sizeof(two));
	}
	eh_cie(&e);
	eh_fde(&e, 0x1000, N / 3, ins, N);
	cr_assert_eq(eh_build(&e, NULL, &t), 0, "%s", budget__why());
	cr_assert_eq(t.by_libdw, 0);
	cr_assert_eq(t.nr, N / 3 + 1, "%zu rows", t.nr);
	cfi_table__release(&t);
}

Test(cfi_table, a_cancelled_build_stops_between_the_rows_of_one_fde)
{
	enum { N = 2000 };
	static uint8_t ins[N];
	struct budget b = *budget__default();
	struct eh e = { 0 };
	struct cfi_table t;

	memset(ins, DW_CFA_advance_loc | 1, sizeof(ins));
	ins[0] = DW_CFA_register, ins[1] = 6, ins[2] = 3;	/* libdw's to run */
	eh_cie(&e);
	eh_fde(&e, 0x1000, N + 1, ins, N);
	/* the flag is the low half of the row count: set once the first row is in */
	b.cancel = (const int *)&t.nr;
	cr_assert_eq(eh_build(&e, &b, &t), -ECANCELED);
	cr_assert_eq(t.nr, 0);
}

/* src compiled by cc with flags into dir/name; its path. */
static char *compile(const char *dir, const char *name, const char *cc, const char *flags,
		     const char *src)
{
	char *c = write_in(dir, "src.c", src), *out = path_in(dir, name), cmd[9000];

	snprintf(cmd, sizeof(cmd), "%s %s '%s' -o '%s'", cc, flags, c, out);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	free(c);
	return out;
}

/*
 * gcc realigns a stack that has an over-aligned local and a VLA with a
 * DRAP register: r10 holds the CFA in the prologue and epilogue, the body
 * reads it from the frame (*(rbp - 16)), and rbp is saved where rbp
 * points. Every row of it is held, the same as libdw and readelf say.
 */
Test(cfi_table, gcc_stack_realignment_has_rows)
{
	static const char src[] =
		"#include <stdalign.h>\n"
		"#include <string.h>\n"
		"__attribute__((noinline)) void sink(char *p) { __asm__ volatile(\"\" :: \"r\"(p) : \"memory\"); }\n"
		"__attribute__((noinline)) int realigned(int n) {\n"
		"	alignas(64) char big[128];\n"
		"	char vla[n];\n"
		"	memset(big, n, sizeof(big)); memset(vla, n, n);\n"
		"	sink(big); sink(vla);\n"
		"	return big[n & 127] + vla[0];\n"
		"}\n"
		"int main(int argc, char **argv) { (void)argv; return realigned(argc + 40); }\n";
	char *dir = make_tmpdir(), *prog;
	bool seen_reg = false, seen_deref = false;
	uint64_t lo, size;
	struct cfi_table t;

	prog = compile(dir, "drap", "gcc", "-O2 -fomit-frame-pointer", src);
	assert_table_matches(prog);
	assert_linear_is_libdw(prog, false);
	nm_symbol(prog, "realigned", &lo, &size);
	cr_assert_eq(cfi_table__build_file(prog, NULL, &t), 0);
	for (uint64_t pc = lo; pc < lo + size; pc++) {
		const struct unwind_row *r = cfi_table__find(&t, (uint32_t)pc);

		cr_assert(r && r->cfa_rule != UNW_CFA_NONE, "%#llx: no rule", (unsigned long long)pc);
		seen_reg |= r->cfa_rule == UNW_CFA_REG && r->cfa_reg == 10;
		if (r->cfa_rule == UNW_CFA_DEREF) {
			cr_assert(r->cfa_reg == UNW_REG_FP && r->deref_off < 0 && !r->deref_add &&
				  r->fp_rule == UNW_FP_AT_FP && !r->fp_off,
				  "%#llx: cfa *(r%u%+d)%+d, fp rule %u%+d", (unsigned long long)pc,
				  r->cfa_reg, r->deref_off, r->deref_add, r->fp_rule, r->fp_off);
			seen_deref = true;
		}
	}
	cr_assert(seen_reg && seen_deref, "r10 %d, *(rbp - N) %d: not gcc's DRAP", seen_reg, seen_deref);
	cr_assert_eq(t.stats.unsupported, 0);
	cfi_table__release(&t);
	free(prog);
	rm_rf(dir);
}
