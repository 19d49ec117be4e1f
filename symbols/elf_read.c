// SPDX-License-Identifier: GPL-2.0
/*
 * elf_read.c - bounded opening and section reading of untrusted ELF files.
 *
 * libelf allocates per section header at elf_begin(), and inflates a
 * compressed section to whatever size its header claims: both numbers come
 * from the file, so they are read here first, with pread, and checked.
 */
#include <byteswap.h>
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "symbols/elf_read.h"

static bool libelf_ok;

static void libelf_init(void)
{
	libelf_ok = elf_version(EV_CURRENT) != EV_NONE;
}

/* Once, whichever thread (the loader's, the main one) gets here first. */
bool elf_read__ready(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, libelf_init);
	return libelf_ok;
}

static const struct budget *budget_or_default(const struct budget *b)
{
	return b ? b : budget__default();
}

/* Header fields in the file's byte order. */
struct raw_header {
	bool is64, swap;
	const unsigned char *p;
};

static uint64_t field(const struct raw_header *h, size_t off, size_t size)
{
	uint64_t v = 0;

	if (size == 2) {
		uint16_t x;

		memcpy(&x, h->p + off, 2);
		v = h->swap ? bswap_16(x) : x;
	} else if (size == 4) {
		uint32_t x;

		memcpy(&x, h->p + off, 4);
		v = h->swap ? bswap_32(x) : x;
	} else {
		memcpy(&v, h->p + off, 8);
		v = h->swap ? bswap_64(v) : v;
	}
	return v;
}

#define EH_FIELD(h, name) \
	field(h, (h)->is64 ? offsetof(Elf64_Ehdr, name) : offsetof(Elf32_Ehdr, name), \
	      (h)->is64 ? sizeof(((Elf64_Ehdr *)0)->name) : sizeof(((Elf32_Ehdr *)0)->name))
#define SH_FIELD(h, name) \
	field(h, (h)->is64 ? offsetof(Elf64_Shdr, name) : offsetof(Elf32_Shdr, name), \
	      (h)->is64 ? sizeof(((Elf64_Shdr *)0)->name) : sizeof(((Elf32_Shdr *)0)->name))

typedef ssize_t (*read_at_fn)(void *src, void *buf, size_t len, uint64_t off);

/*
 * Section and program header counts, extended numbering included (a
 * count of 0 or PN_XNUM is in the first section header), against b.
 */
static int check_header(read_at_fn read_at, void *src, const struct budget *b,
			size_t *nr_sections)
{
	unsigned char eh[sizeof(Elf64_Ehdr)], sh0[sizeof(Elf64_Shdr)];
	struct raw_header h = { .p = eh };
	uint64_t shnum, phnum, shoff;
	ssize_t n;

	n = read_at(src, eh, sizeof(eh), 0);
	if (n < (ssize_t)sizeof(Elf32_Ehdr) || memcmp(eh, ELFMAG, SELFMAG))
		return -ENOEXEC;
	if (eh[EI_CLASS] != ELFCLASS32 && eh[EI_CLASS] != ELFCLASS64)
		return -ENOEXEC;
	if (eh[EI_DATA] != ELFDATA2LSB && eh[EI_DATA] != ELFDATA2MSB)
		return -ENOEXEC;
	h.is64 = eh[EI_CLASS] == ELFCLASS64;
	if (h.is64 && n < (ssize_t)sizeof(Elf64_Ehdr))
		return -ENOEXEC;
	h.swap = (eh[EI_DATA] == ELFDATA2LSB) != (__BYTE_ORDER == __LITTLE_ENDIAN);
	shnum = EH_FIELD(&h, e_shnum);
	phnum = EH_FIELD(&h, e_phnum);
	shoff = EH_FIELD(&h, e_shoff);
	if (shoff && (shnum == 0 || phnum == PN_XNUM)) {
		size_t len = h.is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);

		if (read_at(src, sh0, len, shoff) != (ssize_t)len)
			return -ENOEXEC;
		h.p = sh0;
		if (shnum == 0)
			shnum = SH_FIELD(&h, sh_size);
		if (phnum == PN_XNUM)
			phnum = SH_FIELD(&h, sh_info);
	}
	if (shnum > b->max_sections)
		return budget__refuse("%llu section headers, over the budget of %llu",
				      (unsigned long long)shnum,
				      (unsigned long long)b->max_sections);
	if (phnum > b->max_sections)
		return budget__refuse("%llu program headers, over the budget of %llu",
				      (unsigned long long)phnum,
				      (unsigned long long)b->max_sections);
	*nr_sections = shnum;
	return 0;
}

static ssize_t fd_read_at(void *src, void *buf, size_t len, uint64_t off)
{
	ssize_t n;

	do {
		n = pread(*(int *)src, buf, len, off);
	} while (n < 0 && errno == EINTR);
	return n;
}

struct mem_src {
	const char *image;
	size_t size;
};

static ssize_t mem_read_at(void *src, void *buf, size_t len, uint64_t off)
{
	const struct mem_src *m = src;

	if (off >= m->size)
		return 0;
	if (len > m->size - off)
		len = m->size - off;
	memcpy(buf, m->image + off, len);
	return len;
}

/*
 * libelf's handle for what was checked. The file's owner can rewrite the
 * header between our read and libelf's (libelf may then allocate for a
 * count we did not see; that window is all it gets): a count that differs
 * now, or a section name table over budget, and the handle is refused.
 */
static Elf *checked(Elf *elf, size_t nr_sections, const struct budget *b)
{
	size_t n, shstrndx;
	GElf_Shdr shdr;
	Elf_Scn *scn;

	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrnum(elf, &n) || n != nr_sections) {
		elf_end(elf);
		errno = ENOEXEC;
		return NULL;
	}
	if (!elf_getshdrstrndx(elf, &shstrndx) && (scn = elf_getscn(elf, shstrndx)) &&
	    gelf_getshdr(scn, &shdr) && shdr.sh_size > b->max_section_bytes) {
		elf_end(elf);
		budget__refuse("section names of %llu bytes, over the budget of %llu",
			       (unsigned long long)shdr.sh_size,
			       (unsigned long long)b->max_section_bytes);
		errno = EFBIG;
		return NULL;
	}
	return elf;
}

/* libelf usable, and the header within b: 0, or -1 with errno set. */
static int precheck(read_at_fn read_at, void *src, const struct budget *b, size_t *nr_sections)
{
	int err;

	if (!elf_read__ready()) {
		errno = ENOSYS;
		return -1;
	}
	err = check_header(read_at, src, b, nr_sections);
	if (err) {
		errno = -err;
		return -1;
	}
	return 0;
}

Elf *elf_read__begin(int fd, const struct budget *b)
{
	size_t nr_sections;

	b = budget_or_default(b);
	if (precheck(fd_read_at, &fd, b, &nr_sections))
		return NULL;
	return checked(elf_begin(fd, ELF_C_READ, NULL), nr_sections, b);
}

Elf *elf_read__memory(char *image, size_t size, const struct budget *b)
{
	struct mem_src m = { .image = image, .size = size };
	size_t nr_sections;

	b = budget_or_default(b);
	if (precheck(mem_read_at, &m, b, &nr_sections))
		return NULL;
	return checked(elf_memory(image, size), nr_sections, b);
}

/*
 * The size a section costs in memory once read: its inflated size when
 * compressed, as its compression header claims (and within the ratio).
 */
static int section_cost(Elf_Scn *scn, const GElf_Shdr *shdr, const char *what,
			const struct budget *b, uint64_t *cost)
{
	GElf_Chdr ch;

	*cost = shdr->sh_type == SHT_NOBITS ? 0 : shdr->sh_size;
	if (*cost > b->max_section_bytes)
		return budget__refuse("section %s of %llu bytes, over the budget of %llu", what,
				      (unsigned long long)*cost,
				      (unsigned long long)b->max_section_bytes);
	if (!(shdr->sh_flags & SHF_COMPRESSED) || shdr->sh_type == SHT_NOBITS)
		return 0;
	if (!gelf_getchdr(scn, &ch))
		return -ENOEXEC;
	/* small sections inflate by large ratios honestly: the ratio is for big ones */
	if (ch.ch_size > b->max_inflate_bytes ||
	    (ch.ch_size > (1u << 20) && b->max_inflate_ratio &&
	     ch.ch_size / b->max_inflate_ratio > shdr->sh_size))
		return budget__refuse("compressed section %s of %llu bytes inflates to %llu, over the budget of %llu (or %llux)",
				      what, (unsigned long long)shdr->sh_size,
				      (unsigned long long)ch.ch_size,
				      (unsigned long long)b->max_inflate_bytes,
				      (unsigned long long)b->max_inflate_ratio);
	/* libelf holds the compressed bytes too while it inflates */
	*cost = shdr->sh_size + ch.ch_size;
	return 0;
}

Elf_Data *elf_read__section(Elf_Scn *scn, GElf_Shdr *shdr, const char *what,
			    const struct budget *b)
{
	uint64_t cost;
	Elf_Data *data;
	int err;

	b = budget_or_default(b);
	if (budget__cancelled(b)) {
		errno = ECANCELED;
		return NULL;
	}
	err = section_cost(scn, shdr, what, b, &cost);
	if (err) {
		errno = -err;
		return NULL;
	}
	if (shdr->sh_flags & SHF_COMPRESSED) {
		if (elf_compress(scn, 0, 0) < 0 || !gelf_getshdr(scn, shdr)) {
			errno = ENOEXEC;
			return NULL;
		}
	}
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf) {
		errno = ENOEXEC;
		return NULL;
	}
	return data;
}

int elf_read__check_sections(Elf *elf, const char *prefix, const struct budget *b)
{
	size_t shstrndx, plen = strlen(prefix);
	uint64_t total = 0, cost;
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	int err;

	b = budget_or_default(b);
	if (elf_getshdrstrndx(elf, &shstrndx))
		return -ENOEXEC;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (!name || strncmp(name, prefix, plen))
			continue;
		err = section_cost(scn, &shdr, name, b, &cost);
		if (err)
			return err;
		total += cost;
		if (total > b->max_section_bytes)
			return budget__refuse("%s sections of %llu bytes and more, over the budget of %llu",
					      prefix, (unsigned long long)total,
					      (unsigned long long)b->max_section_bytes);
	}
	return 0;
}

Elf_Scn *elf_read__find_section(Elf *elf, const char *name, GElf_Shdr *shdr)
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
