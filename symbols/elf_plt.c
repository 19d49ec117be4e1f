// SPDX-License-Identifier: GPL-2.0
/*
 * elf_plt.c - find the PLT stubs of an x86-64 file by decoding their
 * jumps, and name each by the relocation of the GOT slot it jumps
 * through, as binutils names them (its synthetic "@plt" symbols). The
 * order of .rela.plt is not relied on: in libc, for one, the IFUNC
 * relocations come last and their stubs first.
 */
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/elf_plt.h"
#include "symbols/elf_read.h"
#include "trace_helpers.h"

/* As elf_symtab.c: longer names are not kept. */
#define MAX_NAME 65536
#define SUFFIX "@plt"

static const char *const plt_names[] = { ".plt", ".plt.sec", ".plt.got" };
#define NR_PLT_SECTIONS (sizeof(plt_names) / sizeof(plt_names[0]))

struct plt_section {
	uint64_t addr, size;	/* size 0: the file has none */
};

struct stub {
	uint64_t addr;
	uint64_t slot;		/* the GOT slot its jump reads */
	uint64_t addend;	/* of the slot's relocation (an IFUNC resolver's address) */
	uint32_t sym;		/* of the slot's relocation: its .dynsym index */
	uint32_t type;		/* of the slot's relocation; R_X86_64_NONE: none found */
	uint8_t size;
	uint8_t section;	/* index in plt_names */
};

/* A symbol being made: its name is an offset in the pool, which moves as it grows. */
struct plt_sym {
	uint64_t addr, size;
	size_t name;
	bool gap;		/* a section's unnamed part, not a stub */
};

struct plt_scan {
	Elf *elf;
	const struct budget *b;
	struct plt_section secs[NR_PLT_SECTIONS];
	struct stub *stubs;
	size_t nr_stubs, cap_stubs;
	/* .dynsym, where relocations name their symbols; NULL when unusable */
	Elf_Data *dynsym;
	size_t dynsym_index, nr_dynsym, dynstr_index;
	struct plt_sym *syms;
	size_t nr_syms, cap_syms;
	char *pool;
	size_t pool_len, cap_pool;
};

static const unsigned char endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };

/*
 * The GOT slot that a stub of n bytes at vaddr jumps through, when its
 * code is [endbr64] [bnd] jmp *disp32(%rip): the jump's end plus disp32,
 * sign-extended (the GOT may lie below the PLT).
 */
static bool stub_slot(const unsigned char *p, size_t n, uint64_t vaddr, uint64_t *slot)
{
	size_t i = 0;
	uint32_t disp;

	if (n >= sizeof(endbr64) && !memcmp(p, endbr64, sizeof(endbr64)))
		i = sizeof(endbr64);
	if (i < n && p[i] == 0xf2)
		i++;
	if (n - i < 6 || p[i] != 0xff || p[i + 1] != 0x25)
		return false;
	disp = p[i + 2] | p[i + 3] << 8 | p[i + 4] << 16 | (uint32_t)p[i + 5] << 24;
	*slot = vaddr + i + 6 + (uint64_t)(int64_t)(int32_t)disp;
	return true;
}

static int plt_section_index(Elf *elf, size_t shstrndx, const GElf_Shdr *shdr)
{
	const char *name = elf_strptr(elf, shstrndx, shdr->sh_name);

	for (size_t i = 0; name && i < NR_PLT_SECTIONS; i++)
		if (!strcmp(name, plt_names[i]))
			return i;
	return -1;
}

/* The stubs of one PLT section: each entry whose code decodes (stub_slot). */
static int scan_section(struct plt_scan *s, Elf_Scn *scn, GElf_Shdr *shdr, int sec)
{
	/* lld leaves sh_entsize 0; GNU ld's .plt.got without IBT has 8-byte entries */
	uint64_t entsize = shdr->sh_entsize == 8 || shdr->sh_entsize == 16 ? shdr->sh_entsize : 16;
	const unsigned char *p;
	Elf_Data *data;
	uint64_t len;

	if (shdr->sh_size / entsize > s->b->max_symbols - s->nr_stubs)
		return budget__refuse("section %s of %llu entries, over the budget of %llu",
				      plt_names[sec], (unsigned long long)(shdr->sh_size / entsize),
				      (unsigned long long)s->b->max_symbols);
	data = elf_read__section(scn, shdr, plt_names[sec], s->b);
	if (!data)
		return errno == EFBIG || errno == ECANCELED ? -errno : 0;
	s->secs[sec] = (struct plt_section){ .addr = shdr->sh_addr, .size = shdr->sh_size };
	p = data->d_buf;
	len = data->d_size < shdr->sh_size ? data->d_size : shdr->sh_size;
	for (uint64_t off = 0; off + entsize <= len; off += entsize) {
		uint64_t slot;

		if (!(off & 0xfffff) && budget__cancelled(s->b))
			return -ECANCELED;
		if (!stub_slot(p + off, entsize, shdr->sh_addr + off, &slot))
			continue;
		if (array_reserve((void **)&s->stubs, &s->cap_stubs, s->nr_stubs, sizeof(*s->stubs)))
			return -ENOMEM;
		s->stubs[s->nr_stubs++] = (struct stub){
			.addr = shdr->sh_addr + off, .slot = slot, .size = entsize, .section = sec,
		};
	}
	return 0;
}

/* The PLT sections of the file, the first of each name, and their stubs. */
static int find_stubs(struct plt_scan *s)
{
	bool seen[NR_PLT_SECTIONS] = { false };
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int err;

	if (elf_getshdrstrndx(s->elf, &shstrndx))
		return -ENOENT;
	while ((scn = elf_nextscn(s->elf, scn)) != NULL) {
		GElf_Shdr shdr;
		int sec;

		/*
		 * A debug file's PLT is NOBITS: the binary's is read instead.
		 * Nothing is at address 0 (the ELF header is), as for symbols.
		 */
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_PROGBITS ||
		    (shdr.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR) ||
		    !shdr.sh_size || !shdr.sh_addr || shdr.sh_addr + shdr.sh_size < shdr.sh_addr)
			continue;
		sec = plt_section_index(s->elf, shstrndx, &shdr);
		if (sec < 0 || seen[sec])
			continue;
		seen[sec] = true;
		err = scan_section(s, scn, &shdr, sec);
		if (err)
			return err;
	}
	for (size_t i = 0; i < NR_PLT_SECTIONS; i++)
		if (s->secs[i].size)
			return 0;
	return -ENOENT;
}

/* .dynsym and its names, read within the budget; none usable is not an error. */
static int read_dynsym(struct plt_scan *s)
{
	GElf_Shdr shdr, strshdr;
	Elf_Scn *scn = NULL, *strscn;

	while ((scn = elf_nextscn(s->elf, scn)) != NULL)
		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_DYNSYM)
			break;
	if (!scn || shdr.sh_entsize != sizeof(Elf64_Sym))
		return 0;
	strscn = elf_getscn(s->elf, shdr.sh_link);
	if (!strscn || !gelf_getshdr(strscn, &strshdr) || strshdr.sh_type != SHT_STRTAB)
		return 0;
	if (!elf_read__section(strscn, &strshdr, "of dynamic symbol names", s->b) ||
	    !(s->dynsym = elf_read__section(scn, &shdr, "of dynamic symbols", s->b)))
		return errno == EFBIG || errno == ECANCELED ? -errno : 0;
	s->dynsym_index = elf_ndxscn(scn);
	s->dynstr_index = shdr.sh_link;
	s->nr_dynsym = s->dynsym->d_size / sizeof(Elf64_Sym);
	return 0;
}

static int slot_cmp(const void *a, const void *b)
{
	const struct stub *x = a, *y = b;

	if (x->slot != y->slot)
		return (x->slot > y->slot) - (x->slot < y->slot);
	return (x->addr > y->addr) - (x->addr < y->addr);
}

static int stub_addr_cmp(const void *a, const void *b)
{
	const struct stub *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* The first stub (sorted by slot) that jumps through slot, or NULL. */
static struct stub *stub_at_slot(struct plt_scan *s, uint64_t slot)
{
	size_t lo = 0, hi = s->nr_stubs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->stubs[mid].slot < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nr_stubs && s->stubs[lo].slot == slot ? &s->stubs[lo] : NULL;
}

/*
 * A relocation that may name a stub: the first one of a slot does. One
 * whose symbol is not in the .dynsym it links to names nothing.
 */
static void note_reloc(struct plt_scan *s, const GElf_Rela *r, bool dynsym)
{
	uint32_t type = GELF_R_TYPE(r->r_info), sym = GELF_R_SYM(r->r_info);
	struct stub *st;

	if (type == R_X86_64_IRELATIVE)
		sym = 0;
	else if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
		return;
	else if (!dynsym || !sym || sym >= s->nr_dynsym)
		return;
	st = stub_at_slot(s, r->r_offset);
	if (!st || st->type != R_X86_64_NONE)
		return;
	st->type = type;
	st->sym = sym;
	st->addend = r->r_addend;
}

/* The relocations of one section that name stubs. */
static int read_section_relocs(struct plt_scan *s, Elf_Scn *scn, GElf_Shdr *shdr)
{
	bool dynsym = s->dynsym && shdr->sh_link == s->dynsym_index;
	Elf_Data *data;
	size_t n;

	data = elf_read__section(scn, shdr, "of dynamic relocations", s->b);
	if (!data)
		return errno == EFBIG || errno == ECANCELED ? -errno : 0;
	/* the count comes from what was read, never from the header alone */
	n = data->d_size / sizeof(Elf64_Rela);
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;

		if (!(i & 0xffff) && budget__cancelled(s->b))
			return -ECANCELED;
		if (!gelf_getrela(data, i, &r))
			break;
		note_reloc(s, &r, dynsym);
	}
	return 0;
}

static bool all_named(const struct plt_scan *s)
{
	for (size_t i = 0; i < s->nr_stubs; i++)
		if (s->stubs[i].type == R_X86_64_NONE)
			return false;
	return true;
}

/*
 * The dynamic relocations of the stubs' slots: .rela.plt's, then, for
 * stubs still unnamed (.plt.got's), the others'. .rela.dyn can be tens of
 * MB of relative relocations (a browser's), read only when needed.
 */
static int read_relocs(struct plt_scan *s)
{
	size_t shstrndx;
	int err = 0;

	if (elf_getshdrstrndx(s->elf, &shstrndx))
		return 0;
	qsort(s->stubs, s->nr_stubs, sizeof(*s->stubs), slot_cmp);
	for (int pass = 0; pass < 2 && !err && !all_named(s); pass++) {
		Elf_Scn *scn = NULL;

		while (!err && (scn = elf_nextscn(s->elf, scn)) != NULL) {
			GElf_Shdr shdr;
			const char *name;

			if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_RELA ||
			    !(shdr.sh_flags & SHF_ALLOC) || shdr.sh_entsize != sizeof(Elf64_Rela))
				continue;
			name = elf_strptr(s->elf, shstrndx, shdr.sh_name);
			if ((name && !strcmp(name, ".rela.plt")) == !pass)
				err = read_section_relocs(s, scn, &shdr);
		}
	}
	/* stubs that share a slot share its name */
	for (size_t i = 1; i < s->nr_stubs; i++)
		if (s->stubs[i].slot == s->stubs[i - 1].slot) {
			s->stubs[i].type = s->stubs[i - 1].type;
			s->stubs[i].sym = s->stubs[i - 1].sym;
			s->stubs[i].addend = s->stubs[i - 1].addend;
		}
	qsort(s->stubs, s->nr_stubs, sizeof(*s->stubs), stub_addr_cmp);
	return err;
}

/* Append name (len bytes) and suffix to the pool; its offset in *off. */
static int pool_add(struct plt_scan *s, const char *name, size_t len, const char *suffix,
		    size_t *off)
{
	size_t slen = strlen(suffix);

	if (s->pool_len + len + slen + 1 > s->b->max_section_bytes)
		return budget__refuse("PLT names of more than %llu bytes, over the budget",
				      (unsigned long long)s->b->max_section_bytes);
	if (array_reserve((void **)&s->pool, &s->cap_pool, s->pool_len + len + slen, 1))
		return -ENOMEM;
	*off = s->pool_len;
	memcpy(s->pool + s->pool_len, name, len);
	memcpy(s->pool + s->pool_len + len, suffix, slen + 1);
	s->pool_len += len + slen + 1;
	return 0;
}

static int add_sym(struct plt_scan *s, uint64_t addr, uint64_t size, const char *name,
		   size_t len, const char *suffix, bool gap)
{
	size_t off = 0;
	int err;

	err = pool_add(s, name, len, suffix, &off);
	if (err)
		return err;
	if (array_reserve((void **)&s->syms, &s->cap_syms, s->nr_syms, sizeof(*s->syms)))
		return -ENOMEM;
	s->syms[s->nr_syms++] = (struct plt_sym){
		.addr = addr, .size = size, .name = off, .gap = gap,
	};
	return 0;
}

/*
 * The name of the function a stub jumps to, in buf when it is made here;
 * NULL when its relocation names none.
 */
static const char *stub_target(const struct plt_scan *s, const struct stub *st,
			       const struct elf_symtab *names, char *buf, size_t size)
{
	const struct elf_sym *f;
	const char *name;
	GElf_Sym sym;

	if (st->type == R_X86_64_NONE)
		return NULL;
	if (st->type == R_X86_64_IRELATIVE) {
		f = elf_symtab__find(names, st->addend);
		if (f && f->addr == st->addend)
			return f->name;
		snprintf(buf, size, "*ABS*+%#" PRIx64, st->addend);
		return buf;
	}
	/* note_reloc() kept only indices below nr_dynsym */
	if (!gelf_getsym(s->dynsym, st->sym, &sym))
		return NULL;
	name = elf_strptr(s->elf, s->dynstr_index, sym.st_name);
	return name && *name ? name : NULL;
}

/* One symbol per named stub; the rest of each section takes the section's name. */
static int name_stubs(struct plt_scan *s, const struct elf_symtab *names)
{
	uint64_t cursor[NR_PLT_SECTIONS];
	char buf[64];
	int err;

	for (size_t i = 0; i < NR_PLT_SECTIONS; i++)
		cursor[i] = s->secs[i].addr;
	for (size_t i = 0; i < s->nr_stubs; i++) {
		const struct stub *st = &s->stubs[i];
		const char *name = stub_target(s, st, names, buf, sizeof(buf));
		size_t len = name ? strnlen(name, MAX_NAME) : 0;
		uint64_t *c = &cursor[st->section];

		if (!len || len == MAX_NAME)
			continue;
		if (st->addr > *c) {
			err = add_sym(s, *c, st->addr - *c, plt_names[st->section],
				      strlen(plt_names[st->section]), "", true);
			if (err)
				return err;
		}
		err = add_sym(s, st->addr, st->size, name, len, SUFFIX, false);
		if (err)
			return err;
		*c = st->addr + st->size;
	}
	for (size_t i = 0; i < NR_PLT_SECTIONS; i++) {
		uint64_t end = s->secs[i].addr + s->secs[i].size;

		if (cursor[i] < end) {
			err = add_sym(s, cursor[i], end - cursor[i], plt_names[i],
				      strlen(plt_names[i]), "", true);
			if (err)
				return err;
		}
	}
	return 0;
}

static int plt_sym_cmp(const void *a, const void *b)
{
	const struct plt_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return (x->addr > y->addr) - (x->addr < y->addr);
	return (x->gap > y->gap) - (x->gap < y->gap);
}

/* The table: sorted, one symbol per address (a stub over a gap, where crafted sections overlap). */
static struct elf_symtab *make_table(struct plt_scan *s)
{
	struct elf_sym *syms;
	char *pool = s->pool;
	size_t nr = 0;

	qsort(s->syms, s->nr_syms, sizeof(*s->syms), plt_sym_cmp);
	syms = calloc(s->nr_syms ? s->nr_syms : 1, sizeof(*syms));
	if (!syms) {
		errno = ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < s->nr_syms; i++) {
		if (nr && syms[nr - 1].addr == s->syms[i].addr)
			continue;
		syms[nr++] = (struct elf_sym){
			.addr = s->syms[i].addr, .size = s->syms[i].size,
			.name = pool + s->syms[i].name,
		};
	}
	s->pool = NULL;		/* the table's now, freed with it on failure too */
	return elf_symtab__adopt(syms, nr, pool);
}

static bool is_x86_64(Elf *elf)
{
	GElf_Ehdr eh;

	return gelf_getehdr(elf, &eh) && eh.e_machine == EM_X86_64 &&
	       eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_ident[EI_DATA] == ELFDATA2LSB;
}

struct elf_symtab *elf_plt__load(Elf *elf, const struct elf_symtab *names,
				 const struct budget *b)
{
	struct plt_scan s = { .elf = elf, .b = b ? b : budget__default() };
	struct elf_symtab *st = NULL;
	int err;

	if (!is_x86_64(elf)) {
		errno = ENOENT;
		return NULL;
	}
	err = find_stubs(&s);
	if (!err && s.nr_stubs)
		err = read_dynsym(&s);
	if (!err && s.nr_stubs)
		err = read_relocs(&s);
	if (!err)
		err = name_stubs(&s, names);
	if (!err && !(st = make_table(&s)))
		err = -errno;
	free(s.stubs);
	free(s.syms);
	free(s.pool);
	errno = -err;
	return st;
}
