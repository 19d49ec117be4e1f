// SPDX-License-Identifier: GPL-2.0
/*
 * cfi_code.c - rows from an ELF file's code where its CFI has none or the
 * wrong ones: signal trampolines and a program's entry point (cfi_code.h).
 */
#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/cfi_code.h"
#include "unwind/cfi_rows.h"
#include "symbols/elf_read.h"

/* mov $15 (rt_sigreturn), %rax; syscall: glibc's and musl's __restore_rt, Go's sigreturn */
static const uint8_t sigreturn[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };

/* The first row of t at or past pc. */
static size_t first_at(const struct cfi_table *t, uint64_t pc)
{
	size_t lo = 0, hi = t->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int cfi_code__set_range(struct cfi_table *t, uint64_t lo, uint64_t hi,
			const struct unwind_row *r)
{
	struct unwind_row after = { .cfa_rule = UNW_CFA_NONE }, *rows;
	const struct unwind_row *at_hi;
	size_t i, j, n, k = 0;
	bool row_at_hi;

	if (lo >= hi || hi > UINT32_MAX)
		return -EINVAL;
	at_hi = cfi_table__find(t, (uint32_t)hi);
	if (at_hi)
		after = *at_hi;
	i = first_at(t, lo);
	j = first_at(t, hi);
	row_at_hi = j < t->nr && t->rows[j].pc == hi;
	n = i + 1 + !row_at_hi + (t->nr - j);
	if (n > CFI_TABLE_MAX_ROWS)
		return budget__refuse("unwind table over %u rows", CFI_TABLE_MAX_ROWS);
	rows = calloc(n, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	/* before lo, [lo, hi), from hi: each row kept unless it repeats the one before */
	for (size_t s = 0; s < n; s++) {
		struct unwind_row x;

		if (s < i) {
			x = t->rows[s];
		} else if (s == i) {
			x = *r;
			x.pc = (uint32_t)lo;
		} else if (s == i + 1 && !row_at_hi) {
			x = after;
			x.pc = (uint32_t)hi;
		} else {
			x = t->rows[j + (s - i - 1 - !row_at_hi)];
		}
		if (!k || !same_rules(&rows[k - 1], &x))
			rows[k++] = x;
	}
	free(t->rows);
	t->rows = rows;
	t->nr = k;
	return 0;
}

/* Whether a section holds code that runs. */
static bool is_code(const GElf_Shdr *shdr)
{
	return shdr->sh_type == SHT_PROGBITS && (shdr->sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) ==
						(SHF_ALLOC | SHF_EXECINSTR);
}

/* What the search of one file has: its code sections, the bytes it may still read, its finds. */
struct search {
	Elf *elf;
	const struct budget *b;
	GElf_Shdr code[16];
	size_t nr_code;
	uint64_t left;			/* bytes that may still be read */
	uint64_t found[CFI_CODE_MAX_TRAMPOLINES][2];	/* [lo, hi) of each trampoline */
	unsigned nr_found;
};

/*
 * The trampolines in [lo, hi) of the code sections, with the byte before
 * it when the same section has it (the padding a trampoline follows).
 */
static void search_range(struct search *s, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < s->nr_code && s->nr_found < CFI_CODE_MAX_TRAMPOLINES; i++) {
		const GElf_Shdr *sh = &s->code[i];
		uint64_t a = lo > sh->sh_addr ? lo : sh->sh_addr;
		uint64_t z = hi < sh->sh_addr + sh->sh_size ? hi : sh->sh_addr + sh->sh_size;
		const uint8_t *buf, *p, *end;
		Elf_Data *d;

		if (a >= z || z - a < sizeof(sigreturn))
			continue;
		if (a > sh->sh_addr)
			a--;
		if (z - a > s->left)
			return;
		s->left -= z - a;
		d = elf_getdata_rawchunk(s->elf, (int64_t)(sh->sh_offset + (a - sh->sh_addr)),
					 (size_t)(z - a), ELF_T_BYTE);
		if (!d || !d->d_buf)
			continue;
		buf = d->d_buf;
		end = buf + d->d_size;
		/* 0xc7 is rarer in code than the REX prefix before it: memchr is fast */
		for (p = buf + 1; p + sizeof(sigreturn) - 1 <= end &&
				  (p = memchr(p, sigreturn[1], (size_t)(end - p))); p++) {
			uint64_t at = a + (uint64_t)(p - 1 - buf);
			bool pad = p - 1 > buf && (p[-2] == 0x90 || p[-2] == 0xcc);

			if (p + sizeof(sigreturn) - 1 > end || memcmp(p - 1, sigreturn, sizeof(sigreturn)))
				continue;
			if (s->nr_found == CFI_CODE_MAX_TRAMPOLINES)
				break;
			s->found[s->nr_found][0] = at - pad;
			s->found[s->nr_found][1] = at + sizeof(sigreturn);
			s->nr_found++;
		}
	}
}

/*
 * The trampolines: in code no FDE covers (musl's libc has none), or
 * whose FDE covers it alone (musl's with CFI: 9 bytes, 10 with the nop).
 * Only those ranges are read, not every byte of code, and not the
 * padding between two functions' FDEs (under CFI_CODE_GAP_BYTES: cc1 has
 * 40,000 such gaps).
 */
static int trampolines(struct search *s, struct cfi_table *t)
{
	static const struct unwind_row signal = { .cfa_rule = UNW_CFA_SIGNAL };
	int err = 0;

	/* before the first row, every row's range, after the last (NONE) */
	for (size_t k = 0; k <= t->nr && s->nr_found < CFI_CODE_MAX_TRAMPOLINES; k++) {
		uint64_t lo = k ? t->rows[k - 1].pc : 0, hi = k < t->nr ? t->rows[k].pc : UINT64_MAX;
		bool none = !k || t->rows[k - 1].cfa_rule == UNW_CFA_NONE;
		/* an FDE of the trampoline alone: between two ranges of none */
		bool alone = !none && (k < 2 || t->rows[k - 2].cfa_rule == UNW_CFA_NONE) &&
			     k < t->nr && t->rows[k].cfa_rule == UNW_CFA_NONE &&
			     (hi - lo == sizeof(sigreturn) || hi - lo == sizeof(sigreturn) + 1);

		if (budget__cancelled(s->b))
			return -ECANCELED;
		if ((none && hi - lo >= CFI_CODE_GAP_BYTES) || alone)
			search_range(s, lo, hi);
	}
	for (unsigned i = 0; !err && i < s->nr_found; i++) {
		err = cfi_code__set_range(t, s->found[i][0], s->found[i][1], &signal);
		if (err == -EINVAL)	/* past the 4 GiB a table addresses */
			err = 0;
		else if (!err)
			t->from_code++;
	}
	return err;
}

/* Whether elf is a program (its entry point is where it starts), not a library. */
static bool is_program(Elf *elf, const GElf_Ehdr *ehdr)
{
	Elf_Scn *scn = NULL;
	size_t n = 0;
	GElf_Phdr ph;
	GElf_Shdr shdr;

	if (ehdr->e_type == ET_EXEC)
		return true;
	if (ehdr->e_type != ET_DYN || elf_getphdrnum(elf, &n))
		return false;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP)
			return true;
	/* a static PIE: DF_1_PIE among its dynamic flags */
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Dyn dyn;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_DYNAMIC || !shdr.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < shdr.sh_size / shdr.sh_entsize && gelf_getdyn(data, (int)i, &dyn); i++)
			if (dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE))
				return true;
	}
	return false;
}

/* A program's entry point in code no FDE covers: a root over its first bytes. */
static int entry_root(Elf *elf, const GElf_Shdr *code, size_t nr_code, struct cfi_table *t)
{
	static const struct unwind_row end = { .cfa_rule = UNW_CFA_END };
	const struct unwind_row *r;
	uint64_t entry, hi = 0;
	GElf_Ehdr ehdr;
	size_t next;
	int err;

	if (!gelf_getehdr(elf, &ehdr) || !ehdr.e_entry || !is_program(elf, &ehdr))
		return 0;
	entry = ehdr.e_entry;
	if (entry > UINT32_MAX)
		return 0;
	for (size_t i = 0; i < nr_code; i++)
		if (entry >= code[i].sh_addr && entry - code[i].sh_addr < code[i].sh_size)
			hi = code[i].sh_addr + code[i].sh_size;
	r = cfi_table__find(t, (uint32_t)entry);
	if (!hi || (r && r->cfa_rule != UNW_CFA_NONE))
		return 0;
	if (hi - entry > CFI_CODE_ENTRY_BYTES)
		hi = entry + CFI_CODE_ENTRY_BYTES;
	next = first_at(t, entry + 1);
	if (next < t->nr && t->rows[next].pc < hi)
		hi = t->rows[next].pc;
	err = cfi_code__set_range(t, entry, hi, &end);
	if (!err)
		t->from_code++;
	return err == -EINVAL ? 0 : err;
}

int cfi_code__apply(Elf *elf, const struct budget *b, struct cfi_table *t)
{
	struct search s = { .elf = elf, .b = b };
	Elf_Scn *scn = NULL;
	int err;

	b = b ? b : budget__default();
	s.left = b->max_section_bytes;
	while ((scn = elf_nextscn(elf, scn)) && s.nr_code < sizeof(s.code) / sizeof(s.code[0]))
		if (gelf_getshdr(scn, &s.code[s.nr_code]) && is_code(&s.code[s.nr_code]))
			s.nr_code++;
	err = trampolines(&s, t);
	if (!err)
		err = entry_root(elf, s.code, s.nr_code, t);
	return err;
}
