// SPDX-License-Identifier: GPL-2.0
/*
 * py_dealloc.c - where an interpreter frees its code objects
 * (py_dealloc.h).
 */
#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <string.h>

#include "python/py_dealloc.h"
#include "python/py_elf.h"
#include "symbols/elf_read.h"

/* The .eh_frame_hdr encodings read: what GNU ld, gold and lld write. */
#define EH_UDATA4 0x03
#define EH_UDATA8 0x04
#define EH_SDATA4 0x0b
#define EH_SDATA8 0x0c
#define EH_FORMAT 0x0f
#define EH_DATAREL 0x30
#define EH_OMIT 0xff

static uint32_t relative_type(const GElf_Ehdr *eh)
{
	switch (eh->e_machine) {
	case EM_X86_64:
		return R_X86_64_RELATIVE;
	case EM_AARCH64:
		return R_AARCH64_RELATIVE;
	default:
		return 0;
	}
}

/*
 * The pointer at ELF address addr as a loaded image has it: a RELATIVE
 * relocation's addend where one applies there (a shared object, a PIE),
 * else the file's bytes (a fixed address; RELR keeps the addend in
 * place). A relocation to a symbol is refused: code_dealloc() is static.
 */
static int pointer_at(Elf *elf, const GElf_Ehdr *eh, const struct budget *b, uint64_t addr,
		      uint64_t *v)
{
	uint32_t relative = relative_type(eh);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (!relative || eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return -ENOTSUP;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		size_t nr;

		if (!gelf_getshdr(scn, &sh))
			return -ENOEXEC;
		if (sh.sh_type != SHT_RELA || !(sh.sh_flags & SHF_ALLOC))
			continue;
		d = elf_read__section(scn, &sh, "dynamic relocations", b);
		if (!d)
			return -errno;
		if (sh.sh_entsize != sizeof(Elf64_Rela))
			return -ENOEXEC;
		nr = d->d_size / sh.sh_entsize;
		for (size_t i = 0; i < nr; i++) {
			GElf_Rela r;

			if (!gelf_getrela(d, (int)i, &r))
				return -ENOEXEC;
			if (r.r_offset != addr)
				continue;
			if (GELF_R_TYPE(r.r_info) != relative || GELF_R_SYM(r.r_info))
				return -ENOENT;
			*v = (uint64_t)r.r_addend;
			return 0;
		}
	}
	return py_elf__read_at(elf, addr, v, sizeof(*v));
}

/* The file offset of ELF address addr where an executable segment of pe loads it. */
static int exec_offset(const struct py_elf *pe, uint64_t addr, uint64_t *off)
{
	for (int i = 0; i < pe->nr_segs; i++) {
		const struct py_elf_seg *s = &pe->segs[i];

		if (s->exec && addr >= s->vaddr && addr - s->vaddr < s->filesz) {
			*off = addr - s->vaddr + s->off;
			return 0;
		}
	}
	return -ENOEXEC;
}

/* Bytes of a value of encoding enc in .eh_frame_hdr's header; 0: not one read here. */
static size_t enc_size(uint8_t enc)
{
	switch (enc & EH_FORMAT) {
	case EH_UDATA4:
	case EH_SDATA4:
		return 4;
	case EH_UDATA8:
	case EH_SDATA8:
		return 8;
	default:
		return 0;
	}
}

/*
 * Whether ELF address addr starts a function whose unwind entry the
 * .eh_frame_hdr's sorted table lists: 0 yes, -ENOEXEC no (or no table
 * read here).
 */
static int starts_function(Elf *elf, const struct budget *b, uint64_t addr)
{
	const uint8_t *p;
	size_t size, pos = 4, lo = 0, hi;
	uint64_t count = 0;
	Elf_Data *d;
	GElf_Shdr sh;
	Elf_Scn *scn = elf_read__find_section(elf, ".eh_frame_hdr", &sh);
	int64_t want;

	if (!scn)
		return -ENOEXEC;
	d = elf_read__section(scn, &sh, ".eh_frame_hdr", b);
	if (!d)
		return -errno;
	p = d->d_buf;
	size = d->d_size;
	/* version 1; the table's entries: two signed 4-byte offsets from the header */
	if (size < 4 || p[0] != 1 || p[2] == EH_OMIT || p[3] != (EH_DATAREL | EH_SDATA4) ||
	    !enc_size(p[1]) || !enc_size(p[2]))
		return -ENOEXEC;
	pos += enc_size(p[1]);
	if (size < pos + enc_size(p[2]))
		return -ENOEXEC;
	memcpy(&count, p + pos, enc_size(p[2]));
	if (enc_size(p[2]) == 4)
		count = (uint32_t)count;
	pos += enc_size(p[2]);
	if (count > (size - pos) / 8)
		return -ENOEXEC;
	want = (int64_t)(addr - sh.sh_addr);
	hi = count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int32_t loc;

		memcpy(&loc, p + pos + mid * 8, sizeof(loc));
		if (loc == want)
			return 0;
		if (loc < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOEXEC;
}

int py_dealloc__find(Elf *elf, const struct budget *b, const struct py_elf *pe, uint64_t *offset)
{
	uint64_t fn, off;
	GElf_Ehdr eh;
	int err;

	if (!pe->code_type || !gelf_getehdr(elf, &eh))
		return -ENOENT;
	err = pointer_at(elf, &eh, b, pe->code_type + PY_TP_DEALLOC, &fn);
	if (err)
		return err;
	if (!fn)
		return -ENOENT;
	err = exec_offset(pe, fn, &off);
	if (!err)
		err = starts_function(elf, b, fn);
	if (!err)
		*offset = off;
	return err;
}
