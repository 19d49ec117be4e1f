/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eh_frame_image.h - hand-made .eh_frame for the shapes a compiler never
 * writes, in an ELF file of nothing else (test_cfi_table.c,
 * test_cfi_check.c). The usual CIE ("zR", FDE pointers absolute udata4;
 * cfa = rsp + 8, ra at cfa - 8) sits at offset 0 unless a test says
 * otherwise; the section is at EH_VADDR, and may have an .eh_frame_hdr
 * whose search table says where libdw is to look.
 */
#ifndef EH_FRAME_IMAGE_H
#define EH_FRAME_IMAGE_H

#include <criterion/criterion.h>
#include <dwarf.h>
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/cfi_table.h"
#include "symbols/elf_read.h"

#define EH_VADDR 0x10000
#define EH_HDR_VADDR 0x8000

struct eh {
	uint8_t *buf;
	size_t len, cap;
	/* an .eh_frame_hdr with one search entry: hdr_pc is in the FDE at hdr_fde */
	bool hdr;
	uint32_t hdr_pc, hdr_fde;
};

static inline void eh_put(struct eh *e, const void *p, size_t n)
{
	if (e->len + n > e->cap) {
		e->cap = (e->len + n) * 2;
		e->buf = realloc(e->buf, e->cap);
		cr_assert_not_null(e->buf);
	}
	if (n)	/* p may be NULL then, which memcpy must not be given */
		memcpy(e->buf + e->len, p, n);
	e->len += n;
}

static inline void eh_u32(struct eh *e, uint32_t v)
{
	eh_put(e, &v, 4);
}

/* The usual CIE, then ins among its initial instructions; its offset. */
static inline uint32_t eh_cie_with(struct eh *e, const uint8_t *ins, size_t n)
{
	static const uint8_t body[] = {
		0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78 /* -8 */, 16, 1, DW_EH_PE_udata4,
		0x0c, 7, 8 /* def_cfa rsp+8 */, 0x90, 1 /* ra at cfa-8 */, 0, 0,
	};
	uint32_t off = (uint32_t)e->len;

	eh_u32(e, sizeof(body) + n);
	eh_put(e, body, sizeof(body));
	eh_put(e, ins, n);
	return off;
}

static inline void eh_cie(struct eh *e)
{
	eh_cie_with(e, NULL, 0);
}

/* An FDE of [lo, lo + len) with instructions ins, its CIE at offset cie. */
static inline void eh_fde_of(struct eh *e, uint32_t cie, uint32_t lo, uint32_t len,
			     const uint8_t *ins, size_t n)
{
	eh_u32(e, 4 + 8 + 1 + n);
	eh_u32(e, e->len - cie);	/* back to the CIE */
	eh_u32(e, lo);
	eh_u32(e, len);
	eh_put(e, "", 1);	/* no augmentation data */
	eh_put(e, ins, n);
}

static inline void eh_fde(struct eh *e, uint32_t lo, uint32_t len, const uint8_t *ins, size_t n)
{
	eh_fde_of(e, 0, lo, len, ins, n);
}

/* .eh_frame_hdr: version 1, absolute udata4 pointers, one search entry. */
static inline void eh_hdr(const struct eh *e, uint8_t out[20])
{
	uint32_t v[3] = { EH_VADDR, 1, e->hdr_pc }, fde = EH_VADDR + e->hdr_fde;

	out[0] = 1;
	out[1] = out[2] = out[3] = DW_EH_PE_udata4;
	memcpy(out + 4, v, sizeof(v));
	memcpy(out + 16, &fde, 4);
}

/*
 * Build the table of an ELF file holding e (then its terminator) at
 * EH_VADDR, after an .eh_frame_hdr if e->hdr (libdw only uses one that
 * comes first).
 */
typedef int (*eh_builder)(Elf *elf, const struct budget *b, struct cfi_table *t);

/* e's .eh_frame in an ELF image, its table made by build; e is freed. */
static inline int eh_build_with(struct eh *e, const struct budget *b, struct cfi_table *t,
				eh_builder build)
{
	static const char names[] = "\0.eh_frame\0.shstrtab\0.eh_frame_hdr";
	size_t hdr_off = sizeof(Elf64_Ehdr), eh_off = hdr_off + 20;
	size_t names_off = eh_off + e->len + 4;
	size_t sh_off = (names_off + sizeof(names) + 7) & ~7ul;
	size_t size = sh_off + 4 * sizeof(Elf64_Shdr);
	char *img = calloc(1, size);
	Elf64_Ehdr *h = (Elf64_Ehdr *)img;
	Elf64_Shdr *sh = (Elf64_Shdr *)(img + sh_off);
	Elf *elf;
	int err;

	cr_assert_not_null(img);
	memcpy(h->e_ident, ELFMAG, SELFMAG);
	h->e_ident[EI_CLASS] = ELFCLASS64;
	h->e_ident[EI_DATA] = ELFDATA2LSB;
	h->e_ident[EI_VERSION] = EV_CURRENT;
	h->e_type = ET_DYN;
	h->e_machine = EM_X86_64;
	h->e_version = EV_CURRENT;
	h->e_shoff = sh_off;
	h->e_ehsize = sizeof(*h);
	h->e_shentsize = sizeof(*sh);
	h->e_shnum = 4;
	h->e_shstrndx = 3;
	eh_hdr(e, (uint8_t *)img + hdr_off);
	if (e->len)	/* the zero terminator follows */
		memcpy(img + eh_off, e->buf, e->len);
	memcpy(img + names_off, names, sizeof(names));
	/* no .eh_frame_hdr: a section of another name */
	sh[1] = (Elf64_Shdr){ .sh_name = e->hdr ? 21 : 34, .sh_type = SHT_PROGBITS,
			      .sh_flags = SHF_ALLOC, .sh_addr = EH_HDR_VADDR, .sh_offset = hdr_off,
			      .sh_size = 20, .sh_addralign = 4 };
	sh[2] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC,
			      .sh_addr = EH_VADDR, .sh_offset = eh_off, .sh_size = e->len + 4,
			      .sh_addralign = 4 };
	sh[3] = (Elf64_Shdr){ .sh_name = 11, .sh_type = SHT_STRTAB, .sh_offset = names_off,
			      .sh_size = sizeof(names), .sh_addralign = 1 };
	cr_assert(elf_read__ready());
	elf = elf_read__memory(img, size, b);
	cr_assert_not_null(elf, "%s", strerror(errno));
	budget__clear();
	err = build(elf, b, t);
	elf_end(elf);
	free(img);
	free(e->buf);
	return err;
}

static inline int eh_build(struct eh *e, const struct budget *b, struct cfi_table *t)
{
	return eh_build_with(e, b, t, cfi_table__build);
}

#endif /* EH_FRAME_IMAGE_H */
