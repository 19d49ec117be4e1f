// SPDX-License-Identifier: GPL-2.0
/*
 * debug_ids.c - the marks that tie a stripped ELF file to its debug file
 * (debuginfo.c searches by them): the build-id note, and .gnu_debuglink's
 * name with the CRC32 of the file it names. Everything read is untrusted
 * and bounded.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "symbols/debuginfo.h"
#include "symbols/elf_read.h"

/* Notes are read whole to find the build-id: real ones are a few KiB. */
#define MAX_NOTES (1u << 20)

static int note_build_id(Elf_Data *data, uint8_t *id, size_t cap)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	if (!data || !data->d_buf)
		return -ENOENT;
	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4))
			continue;
		if (!nh.n_descsz || nh.n_descsz > cap)
			return -ENOENT;
		memcpy(id, (const char *)data->d_buf + desc_off, nh.n_descsz);
		return nh.n_descsz;
	}
	return -ENOENT;
}

int debuginfo__build_id(Elf *elf, uint8_t *id, size_t cap)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	size_t nr_phdrs;
	int len;

	/* sections first: a debug file's program headers point at nothing */
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE ||
		    shdr.sh_size > MAX_NOTES)
			continue;
		len = note_build_id(elf_getdata(scn, NULL), id, cap);
		if (len > 0)
			return len;
	}
	if (elf_getphdrnum(elf, &nr_phdrs))
		return -ENOENT;
	for (size_t i = 0; i < nr_phdrs; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_NOTE || ph.p_filesz > MAX_NOTES)
			continue;
		len = note_build_id(elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz, ELF_T_NHDR),
				    id, cap);
		if (len > 0)
			return len;
	}
	return -ENOENT;
}

int debuginfo__build_id_fd(int fd, uint8_t *id, size_t cap)
{
	Elf *elf;
	int len;

	elf = elf_read__begin(fd, NULL);
	if (!elf)
		return -errno;
	len = debuginfo__build_id(elf, id, cap);
	elf_end(elf);
	return len;
}

int debuginfo__debuglink(Elf *elf, const char **name, uint32_t *crc)
{
	const unsigned char *p;
	GElf_Shdr shdr;
	Elf_Data *data;
	Elf_Scn *scn;
	size_t len, crc_off;
	GElf_Ehdr eh;

	scn = elf_read__find_section(elf, ".gnu_debuglink", &shdr);
	if (!scn || shdr.sh_type == SHT_NOBITS || shdr.sh_size > PATH_MAX + 8 ||
	    !gelf_getehdr(elf, &eh))
		return -ENOENT;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf)
		return -ENOENT;
	p = data->d_buf;
	/* "name\0", padding to 4 bytes, CRC32 in the file's byte order */
	len = strnlen((const char *)p, data->d_size);
	crc_off = (len + 4) & ~(size_t)3;
	if (!len || len == data->d_size || crc_off + 4 > data->d_size ||
	    memchr(p, '/', len))
		return -ENOENT;
	if (eh.e_ident[EI_DATA] == ELFDATA2MSB)
		*crc = (uint32_t)p[crc_off] << 24 | p[crc_off + 1] << 16 | p[crc_off + 2] << 8 |
		       p[crc_off + 3];
	else
		*crc = (uint32_t)p[crc_off + 3] << 24 | p[crc_off + 2] << 16 |
		       p[crc_off + 1] << 8 | p[crc_off];
	*name = (const char *)p;
	return 0;
}

int debuginfo__crc32_fd(int fd, const struct budget *b, uint32_t *crc)
{
	unsigned char buf[1 << 16];
	uLong c = crc32(0L, Z_NULL, 0);
	unsigned int reads = 0;
	struct stat sb;
	off_t off = 0;

	if (!b)
		b = budget__default();
	if (fstat(fd, &sb))
		return -errno;
	if (!S_ISREG(sb.st_mode))
		return -EPERM;
	if ((uint64_t)sb.st_size > b->max_crc_bytes)
		return budget__refuse("%llu bytes to checksum, over the budget of %llu",
				      (unsigned long long)sb.st_size,
				      (unsigned long long)b->max_crc_bytes);
	for (;;) {
		ssize_t n;

		/* a file that grows while we read it stays within the budget too */
		if ((uint64_t)off > b->max_crc_bytes)
			return budget__refuse("file grew past the checksum budget of %llu bytes",
					      (unsigned long long)b->max_crc_bytes);
		if (!(++reads & 0xff) && budget__cancelled(b))	/* every 16 MiB */
			return -ECANCELED;
		n = pread(fd, buf, sizeof(buf), off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		c = crc32(c, buf, n);
		off += n;
	}
	*crc = c;
	return 0;
}
