// SPDX-License-Identifier: GPL-2.0
/*
 * cfi_check.c - every CIE and FDE of an .eh_frame read as libdw reads them
 * (elfutils' cie.c, fde.c, cfi.c), before libdw runs any; then libdw
 * opened over a copy of the section alone (cfi_check.h).
 */
#include <dwarf.h>
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/cfi_check.h"
#include "unwind/dwarf_bytes.h"

/*
 * A LEB128 operand takes at most this many bytes here: libdw reads up to
 * 10 (9 signed) and then decodes differently, so where both stop must be
 * the same byte. Compilers write 1 to 5.
 */
#define LEB_MAX_BYTES 8

/* What a DW_CFA opcode's operands are: maybe a register, then one of ARG_*. */
#define REG 0x80
enum arg { ARG_BAD, ARG_NONE, ARG_LEB, ARG_REG, ARG_BLOCK, ARG_ADDR, ARG_U1, ARG_U2, ARG_U4,
	   ARG_PUSH, ARG_POP };

/* The extended opcodes (below DW_CFA_advance_loc) libdw runs on x86-64. */
static const uint8_t shapes[] = {
	[DW_CFA_nop] = ARG_NONE,
	[DW_CFA_set_loc] = ARG_ADDR,
	[DW_CFA_advance_loc1] = ARG_U1,
	[DW_CFA_advance_loc2] = ARG_U2,
	[DW_CFA_advance_loc4] = ARG_U4,
	[DW_CFA_offset_extended] = REG | ARG_LEB,
	[DW_CFA_restore_extended] = REG | ARG_NONE,
	[DW_CFA_undefined] = REG | ARG_NONE,
	[DW_CFA_same_value] = REG | ARG_NONE,
	[DW_CFA_register] = REG | ARG_REG,
	[DW_CFA_remember_state] = ARG_PUSH,
	[DW_CFA_restore_state] = ARG_POP,
	[DW_CFA_def_cfa] = REG | ARG_LEB,
	[DW_CFA_def_cfa_register] = REG | ARG_NONE,
	[DW_CFA_def_cfa_offset] = ARG_LEB,
	[DW_CFA_def_cfa_expression] = ARG_BLOCK,
	[DW_CFA_expression] = REG | ARG_BLOCK,
	[DW_CFA_offset_extended_sf] = REG | ARG_LEB,
	[DW_CFA_def_cfa_sf] = REG | ARG_LEB,
	[DW_CFA_def_cfa_offset_sf] = ARG_LEB,
	[DW_CFA_val_offset] = REG | ARG_LEB,
	[DW_CFA_val_offset_sf] = REG | ARG_LEB,
	[DW_CFA_val_expression] = REG | ARG_BLOCK,
	[DW_CFA_GNU_args_size] = ARG_LEB,
	[DW_CFA_GNU_negative_offset_extended] = REG | ARG_LEB,
};

/* What an FDE needs of its CIE, by the CIE's section offset. */
struct cfi_check_cie {
	uint64_t off;
	uint8_t enc;	/* FDE pointer encoding */
	bool sized;	/* 'z': FDEs carry augmentation data behind a length */
};

struct walk {
	struct cfi_check_cie *cies;	/* in section order: sorted by offset */
	size_t nr, cap;
	uint64_t at;			/* the entry being read, for budget__why() */
	bool eh;			/* .eh_frame, else .debug_frame */
};

static const char *section_name(bool eh)
{
	return eh ? ".eh_frame" : ".debug_frame";
}

/* A LEB128 value at *p (its sign does not matter here), or false. */
static bool leb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	return uleb_n(p, end, LEB_MAX_BYTES, v);
}

/*
 * The bytes of a pointer encoded as enc, 0 when not a fixed size or of an
 * application libdw would not read here: LEB128 pointers, DW_EH_PE_aligned
 * and DW_EH_PE_omit are not read.
 */
static unsigned enc_size(uint8_t enc)
{
	return (enc & 0x70) > DW_EH_PE_funcrel ? 0 : eh_pe_size(enc);
}

/* cie's FDE pointer encoding, and whether its FDEs' augmentation is sized. */
static int augmentation(const Dwarf_CIE *cie, uint8_t *enc, bool *sized)
{
	const uint8_t *p = cie->augmentation_data, *end = p + cie->augmentation_data_size;
	const char *a = cie->augmentation;
	unsigned n;

	*enc = DW_EH_PE_absptr;
	*sized = a[0] == 'z';
	if (!a[0])
		return 0;
	/* without 'z' an unknown letter hides where the instructions start */
	if (!*sized)
		return -ENOEXEC;
	for (a++; *a; a++) {
		if (*a == 'S')
			continue;
		if (p >= end)
			return -ENOEXEC;
		switch (*a) {
		case 'R':
			*enc = *p++;
			/* an FDE's range through a pointer: libdw would read it anywhere */
			if (!enc_size(*enc) || (*enc & DW_EH_PE_indirect))
				return -ENOEXEC;
			break;
		case 'L':
			p++;	/* the FDEs' own data, skipped by its length */
			break;
		case 'P':
			n = enc_size(*p++);
			if (!n || (size_t)(end - p) < n)
				return -ENOEXEC;
			p += n;
			break;
		default:
			/* libdw reads on, misplaced: so would its 'R' be */
			return -ENOEXEC;
		}
	}
	return 0;
}

static int check_reg(const struct walk *w, uint64_t reg)
{
	if (reg <= CFI_CHECK_MAX_REG)
		return 0;
	return budget__refuse("%s entry at %#llx names register %llu, over %u",
			      section_name(w->eh), (unsigned long long)w->at, (unsigned long long)reg, CFI_CHECK_MAX_REG);
}

/* One operand of kind arg at *p; depth counts the states saved. */
static int check_arg(const struct walk *w, enum arg arg, uint8_t enc, const uint8_t **p,
		     const uint8_t *end, unsigned *depth)
{
	static const unsigned fixed[] = { [ARG_U1] = 1, [ARG_U2] = 2, [ARG_U4] = 4 };
	uint64_t v;

	switch (arg) {
	case ARG_NONE:
		return 0;
	case ARG_LEB:
		return leb(p, end, &v) ? 0 : -ENOEXEC;
	case ARG_REG:
		return leb(p, end, &v) ? check_reg(w, v) : -ENOEXEC;
	case ARG_BLOCK:
		if (!leb(p, end, &v) || v > (uint64_t)(end - *p))
			return -ENOEXEC;
		*p += v;
		return 0;
	case ARG_ADDR: case ARG_U1: case ARG_U2: case ARG_U4:
		v = arg == ARG_ADDR ? enc_size(enc) : fixed[arg];
		if (v > (uint64_t)(end - *p))
			return -ENOEXEC;
		*p += v;
		return 0;
	case ARG_PUSH:
		if (++*depth <= CFI_CHECK_MAX_DEPTH)
			return 0;
		return budget__refuse("%s entry at %#llx saves over %u states at once",
				      section_name(w->eh), (unsigned long long)w->at, CFI_CHECK_MAX_DEPTH);
	case ARG_POP:
		return (*depth)-- ? 0 : -ENOEXEC;
	default:
		return -ENOEXEC;
	}
}

/*
 * The instructions [p, end) of a CIE or an FDE whose CIE gives enc; what
 * libdw's run of them costs into cost, unless NULL.
 */
static int check_program(const struct walk *w, const uint8_t *p, const uint8_t *end, uint8_t enc,
			 struct cfi_check_cost *cost)
{
	unsigned depth = 0;
	int err = 0;

	while (!err && p < end) {
		uint8_t op = *p++, shape;
		uint64_t reg;

		/* the primary opcodes name registers below 64 in their low bits */
		if (op >= DW_CFA_advance_loc)
			shape = (op & 0xc0) == DW_CFA_offset ? ARG_LEB : ARG_NONE;
		else
			shape = op < sizeof(shapes) ? shapes[op] : ARG_BAD;
		if (cost && (op & 0xc0) && (op & 0xc0) != DW_CFA_advance_loc &&
		    (uint64_t)(op & 0x3f) > cost->max_reg)
			cost->max_reg = op & 0x3f;
		if (shape & REG) {
			if (!leb(&p, end, &reg))
				return -ENOEXEC;
			err = check_reg(w, reg);
			if (cost && reg > cost->max_reg)
				cost->max_reg = reg;
		}
		if (cost && (shape & ~REG) == ARG_PUSH)
			cost->remembers++;
		if (!err)
			err = check_arg(w, shape & ~REG, enc, &p, end, &depth);
	}
	return err;
}

int cfi_check__cost(const uint8_t *p, const uint8_t *end, uint8_t enc, struct cfi_check_cost *cost)
{
	struct walk w = { .eh = true };

	return check_program(&w, p, end, enc, cost);
}

static int check_cie(struct walk *w, const Dwarf_CIE *cie)
{
	struct cfi_check_cie r = { .off = w->at, .enc = DW_EH_PE_absptr };
	int err;

	/*
	 * .debug_frame's pointers are absolute and as wide as an address;
	 * compilers write its CIEs without augmentation, assemblers "S" for
	 * a signal frame, and one with more (pc-relative to what?) is not read.
	 */
	if (w->eh)
		err = augmentation(cie, &r.enc, &r.sized);
	else
		err = cie->augmentation[0] && strcmp(cie->augmentation, "S") ? -ENOEXEC : 0;

	if (!err)
		err = check_reg(w, cie->return_address_register);
	if (!err)
		err = check_program(w, cie->initial_instructions, cie->initial_instructions_end, r.enc,
				    NULL);
	if (err)
		return err;
	if (w->nr == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 16;
		struct cfi_check_cie *v = reallocarray(w->cies, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		w->cies = v;
		w->cap = cap;
	}
	w->cies[w->nr++] = r;
	return 0;
}

static const struct cfi_check_cie *find_cie(const struct cfi_check_cie *cies, size_t nr,
					     uint64_t off)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cies[mid].off == off)
			return &cies[mid];
		if (cies[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int check_fde(const struct walk *w, const Dwarf_FDE *fde)
{
	/* libdw reads the CIE at any offset an FDE points to: only checked ones here */
	const struct cfi_check_cie *cie = find_cie(w->cies, w->nr, fde->CIE_pointer);
	const uint8_t *p = fde->start, *end = fde->end;
	uint64_t len;

	if (!cie)
		return -ENOEXEC;
	/* its range, two pointers, then (with 'z') augmentation data */
	len = 2 * enc_size(cie->enc);
	if (len > (uint64_t)(end - p))
		return -ENOEXEC;
	p += len;
	if (cie->sized && (!leb(&p, end, &len) || len > (uint64_t)(end - p)))
		return -ENOEXEC;
	return check_program(w, cie->sized ? p + len : p, end, cie->enc, NULL);
}

/* Every entry libdw's linear walk (fde.c) reads, in its order; c keeps the CIEs. */
static int check_entries(struct cfi_check *c, const unsigned char *ident, Elf_Data *data,
			 bool eh, const struct budget *b)
{
	struct walk w = { .eh = eh };
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry e;
	int rc, err = 0;

	while (!err) {
		if (budget__cancelled(b)) {
			err = -ECANCELED;
			break;
		}
		next = off;
		rc = dwarf_next_cfi(ident, data, eh, off, &next, &e);
		/* an entry libdw cannot read it skips, as long as it can */
		if (rc > 0 || (rc < 0 && next == off))
			break;
		w.at = off;
		if (!rc)
			err = dwarf_cfi_cie_p(&e) ? check_cie(&w, &e.cie) : check_fde(&w, &e.fde);
		off = next;
	}
	c->cies = w.cies;
	c->nr_cies = w.nr;
	return err;
}

/*
 * An ELF image holding data alone, as .eh_frame at vaddr (libdw finds no
 * search table) or as .debug_frame.
 */
static char *image_of(const unsigned char *ident, const Elf_Data *data, bool eh, uint64_t vaddr,
		      size_t *size)
{
	static const char eh_names[] = "\0.eh_frame\0.shstrtab";
	static const char debug_names[] = "\0.debug_frame\0.shstrtab";
	const char *names = eh ? eh_names : debug_names;
	size_t names_size = eh ? sizeof(eh_names) : sizeof(debug_names);
	size_t names_off = sizeof(Elf64_Ehdr) + data->d_size;
	size_t sh_off = (names_off + names_size + 7) & ~(size_t)7;
	char *img;
	Elf64_Ehdr *h;
	Elf64_Shdr *sh;

	*size = sh_off + 3 * sizeof(*sh);
	img = calloc(1, *size);
	if (!img)
		return NULL;
	h = (Elf64_Ehdr *)img;
	sh = (Elf64_Shdr *)(img + sh_off);
	memcpy(h->e_ident, ident, EI_NIDENT);
	h->e_type = ET_DYN;
	h->e_machine = EM_X86_64;
	h->e_version = EV_CURRENT;
	h->e_shoff = sh_off;
	h->e_ehsize = sizeof(*h);
	h->e_shentsize = sizeof(*sh);
	h->e_shnum = 3;
	h->e_shstrndx = 2;
	if (data->d_size)
		memcpy(img + sizeof(*h), data->d_buf, data->d_size);
	memcpy(img + names_off, names, names_size);
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = eh ? SHF_ALLOC : 0,
			      .sh_addr = eh ? vaddr : 0, .sh_offset = sizeof(*h),
			      .sh_size = data->d_size, .sh_addralign = 1 };
	sh[2] = (Elf64_Shdr){ .sh_name = names_size - sizeof(".shstrtab"), .sh_type = SHT_STRTAB,
			      .sh_offset = names_off, .sh_size = names_size, .sh_addralign = 1 };
	return img;
}

int cfi_check__open(struct cfi_check *c, Elf *elf, Elf_Data *data, bool eh, uint64_t vaddr,
		    const struct budget *b)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	size_t size;
	int err;

	memset(c, 0, sizeof(*c));
	if (!ident || ident[EI_CLASS] != ELFCLASS64)
		return -ENOEXEC;
	err = check_entries(c, ident, data, eh, b);
	if (err) {
		cfi_check__close(c);
		return err;
	}
	c->image = image_of(ident, data, eh, vaddr, &size);
	if (!c->image)
		return -ENOMEM;
	c->elf = elf_memory(c->image, size);
	/* .eh_frame is read from the ELF file, .debug_frame as DWARF */
	if (c->elf && eh) {
		c->cfi = dwarf_getcfi_elf(c->elf);
	} else if (c->elf) {
		c->dwarf = dwarf_begin_elf(c->elf, DWARF_C_READ, NULL);
		c->cfi = c->dwarf ? dwarf_getcfi(c->dwarf) : NULL;
	}
	if (!c->cfi) {
		cfi_check__close(c);
		return -ENOEXEC;
	}
	return 0;
}

void cfi_check__close(struct cfi_check *c)
{
	/* the Dwarf owns its CFI */
	if (c->dwarf)
		dwarf_end(c->dwarf);
	else if (c->cfi)
		dwarf_cfi_end(c->cfi);
	elf_end(c->elf);
	free(c->image);
	free(c->cies);
	memset(c, 0, sizeof(*c));
}

bool cfi_check__fde_encoding(const struct cfi_check *c, uint64_t cie, uint8_t *enc)
{
	const struct cfi_check_cie *r = find_cie(c->cies, c->nr_cies, cie);

	if (r)
		*enc = r->enc;
	return r;
}
