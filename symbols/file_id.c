// SPDX-License-Identifier: GPL-2.0
/*
 * file_id.c - the digests of what is read from a file (file_id.h).
 */
#include <errno.h>
#include <string.h>

#include "symbols/debuginfo.h"
#include "symbols/elf_read.h"
#include "symbols/file_id.h"
#include "symbols/go_symbols.h"

int file_id__add_section(struct sha256 *s, Elf_Scn *scn, const char *what, const struct budget *b)
{
	GElf_Shdr shdr;
	Elf_Data *data;

	if (!gelf_getshdr(scn, &shdr))
		return -ENOEXEC;
	data = elf_read__section(scn, &shdr, what, b);
	if (!data)
		return -errno;
	sha256__u64(s, shdr.sh_type);
	sha256__u64(s, shdr.sh_addr);
	sha256__u64(s, shdr.sh_entsize);
	sha256__u64(s, data->d_size);
	sha256__update(s, data->d_buf, data->d_size);
	return 0;
}

/* Stands for what is not there, in place of a field or a section. */
#define NONE UINT64_MAX

static int add_phdrs(struct sha256 *s, Elf *elf)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return -ENOEXEC;
	sha256__u64(s, n);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph)) {
			sha256__u64(s, NONE);
			continue;
		}
		sha256__u64(s, ph.p_type);
		sha256__u64(s, ph.p_flags);
		sha256__u64(s, ph.p_offset);
		sha256__u64(s, ph.p_vaddr);
		sha256__u64(s, ph.p_filesz);
	}
	return 0;
}

/* A symbol table and the string table it names (elf_symtab.c reads both). */
static int add_symbol_table(struct sha256 *s, Elf *elf, Elf_Scn *scn, const GElf_Shdr *shdr,
			    const struct budget *b)
{
	Elf_Scn *strscn;
	GElf_Shdr strshdr;
	int err;

	sha256__u64(s, elf_ndxscn(scn));
	/* what elf_symtab.c does not read */
	if (!shdr->sh_entsize || shdr->sh_type == SHT_NOBITS) {
		sha256__u64(s, NONE);
		return 0;
	}
	err = file_id__add_section(s, scn, "of symbols", b);
	if (err)
		return err;
	strscn = elf_getscn(elf, shdr->sh_link);
	if (!strscn || !gelf_getshdr(strscn, &strshdr) || strshdr.sh_type == SHT_NOBITS) {
		sha256__u64(s, NONE);
		return 0;
	}
	return file_id__add_section(s, strscn, "of symbol names", b);
}

/* Every .gnu_debugdata, raw (debuginfo.c inflates it itself), within b. */
static void add_debugdata(struct sha256 *s, Elf_Scn *scn, const GElf_Shdr *shdr,
			  const struct budget *b)
{
	Elf_Data *data;

	sha256__u64(s, elf_ndxscn(scn));
	data = shdr->sh_type == SHT_NOBITS || shdr->sh_size > b->max_section_bytes
		       ? NULL : elf_rawdata(scn, NULL);
	if (!data || !data->d_buf) {
		sha256__u64(s, NONE);
		return;
	}
	sha256__u64(s, data->d_size);
	sha256__update(s, data->d_buf, data->d_size);
}

static int add_sections(struct sha256 *s, Elf *elf, const struct budget *b)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr shdr;
	int err = 0;

	if (elf_getshdrstrndx(elf, &shstrndx))
		shstrndx = SHN_UNDEF;
	while (!err && (scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		if (shdr.sh_type == SHT_SYMTAB || shdr.sh_type == SHT_DYNSYM) {
			err = add_symbol_table(s, elf, scn, &shdr, b);
			continue;
		}
		name = shstrndx != SHN_UNDEF ? elf_strptr(elf, shstrndx, shdr.sh_name) : NULL;
		if (name && !strcmp(name, ".gnu_debugdata"))
			add_debugdata(s, scn, &shdr, b);
	}
	return err;
}

/* A Go file's function table as go_symbols.c finds it, to its section's end. */
static int add_go_table(struct sha256 *s, Elf *elf, const struct budget *b)
{
	const uint8_t *data;
	uint64_t addr;
	size_t size;
	int err = go_symbols__table(elf, b, &data, &size, &addr);

	if (err == -ECANCELED)
		return err;
	if (err) {
		sha256__u64(s, NONE);
		return 0;
	}
	sha256__u64(s, addr);
	sha256__u64(s, size);
	sha256__update(s, data, size);
	return 0;
}

int file_id__symbols(Elf *elf, const struct budget *b, uint8_t out[SHA256_LEN])
{
	static const char tag[] = "profile: the symbols of an ELF file, 2";
	uint8_t id[BUILD_ID_MAX];
	const char *link;
	struct sha256 s;
	uint32_t crc;
	GElf_Ehdr eh;
	int len, err;

	if (!b)
		b = budget__default();
	if (!gelf_getehdr(elf, &eh))
		return -ENOEXEC;
	sha256__init(&s);
	sha256__update(&s, tag, sizeof(tag));
	sha256__update(&s, eh.e_ident, EI_NIDENT);
	sha256__u64(&s, eh.e_type);
	err = add_phdrs(&s, elf);
	if (!err)
		err = add_sections(&s, elf, b);
	if (!err)
		err = add_go_table(&s, elf, b);
	if (err)
		return err;
	/* the build-id and debug link as debuginfo.c takes them: what a debug file must match */
	len = debuginfo__build_id(elf, id, sizeof(id));
	sha256__u64(&s, len > 0 ? (uint64_t)len : NONE);
	if (len > 0)
		sha256__update(&s, id, len);
	if (debuginfo__debuglink(elf, &link, &crc)) {
		sha256__u64(&s, NONE);
	} else {
		sha256__u64(&s, strlen(link));
		sha256__update(&s, link, strlen(link));
		sha256__u64(&s, crc);
	}
	sha256__final(&s, out);
	return 0;
}
