// SPDX-License-Identifier: GPL-2.0
/*
 * test_elf_plt_corrupt.c - PLT stubs of files made corrupt (elf_plt.c):
 * the lazy-binding program of plt_fixtures.h with its relocations cut
 * short or past the end of the file, symbol indices past .dynsym, names
 * past .dynstr, a .plt shorter than its relocations, another machine, a
 * small budget, and random bytes. Each must load and name no stub with a
 * name that is not its own.
 */
#include <elf.h>

#include "symbols/elf_plt.h"
#include "symbols/elf_read.h"
#include "plt_fixtures.h"

static const struct variant lazy = { "lazy", "gcc -fcf-protection=none -Wl,-z,lazy", ".plt" };

TestSuite(elf_plt_corrupt, .init = make_tmp, .fini = drop_tmp);

struct image {
	unsigned char *p;
	size_t len;
};

static struct image read_image(const char *path)
{
	struct image im;

	im.p = (unsigned char *)read_whole(path, &im.len);
	cr_assert_geq(im.len, sizeof(Elf64_Ehdr));
	return im;
}

static Elf64_Shdr *shdr_named(struct image *im, const char *name)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)im->p;
	Elf64_Shdr *sh = (Elf64_Shdr *)(im->p + eh->e_shoff);
	const char *names = (const char *)im->p + sh[eh->e_shstrndx].sh_offset;

	for (size_t i = 0; i < eh->e_shnum; i++)
		if (!strcmp(names + sh[i].sh_name, name))
			return &sh[i];
	cr_assert_fail("no section %s", name);
	return NULL;
}

/* The image written to tmp/name and loaded as the profiler loads it: it must load. */
static struct elf_symtab *load_image(const struct image *im, const char *name)
{
	char *path = path_in(tmp, name);
	struct elf_symtab *st;

	write_bytes(path, im->p, im->len);
	st = load(path, NULL);
	free(path);
	return st;
}

/*
 * No stub of the intact file (labels) has a name that is not its own.
 * Returns how many have their own.
 */
static size_t assert_none_misnamed(const struct elf_symtab *st, const struct label *labels,
				   size_t n)
{
	size_t named = 0;
	char want[600];

	for (size_t i = 0; i < n; i++) {
		const struct elf_sym *s = elf_symtab__find(st, labels[i].addr);

		if (!s || !ends_with(s->name, "@plt"))
			continue;
		expected_name(st, &labels[i], want, sizeof(want));
		cr_assert_str_eq(s->name, want, "stub at %#" PRIx64, labels[i].addr);
		named++;
	}
	return named;
}

/* The lazy program, its stubs as objdump labels them, and its image. */
static char *corrupt_setup(struct label **labels, size_t *n, struct image *im)
{
	char *bin = build(&lazy);

	*n = objdump_stubs(bin, labels);
	cr_assert_gt(*n, 4);
	*im = read_image(bin);
	return bin;
}

Test(elf_plt_corrupt, truncated_rela_plt)
{
	struct label *labels;
	struct image im;
	size_t n;
	char *bin = corrupt_setup(&labels, &n, &im);
	Elf64_Shdr *rela = shdr_named(&im, ".rela.plt");
	uint64_t size = rela->sh_size, off = rela->sh_offset;
	struct elf_symtab *st;
	size_t named;

	/* half of its relocations */
	rela->sh_size = size / sizeof(Elf64_Rela) / 2 * sizeof(Elf64_Rela);
	st = load_image(&im, "half");
	named = assert_none_misnamed(st, labels, n);
	cr_assert_lt(named, n);
	elf_symtab__free(st);
	/* and part of one more (libelf refuses the section) */
	rela->sh_size += 7;
	st = load_image(&im, "ragged");
	assert_none_misnamed(st, labels, n);
	elf_symtab__free(st);
	/* running past the end of the file: none of its stubs named */
	rela->sh_size = size;
	rela->sh_offset = im.len - 8;
	st = load_image(&im, "past_eof");
	cr_assert_lt(assert_none_misnamed(st, labels, n), named);
	elf_symtab__free(st);
	rela->sh_offset = off;
	free(im.p);
	free(labels);
	free(bin);
}

Test(elf_plt_corrupt, symbol_index_past_dynsym)
{
	struct label *labels;
	struct image im;
	size_t n;
	char *bin = corrupt_setup(&labels, &n, &im);
	Elf64_Shdr *rela = shdr_named(&im, ".rela.plt"), *dynsym = shdr_named(&im, ".dynsym");
	Elf64_Rela *r = (Elf64_Rela *)(im.p + rela->sh_offset);
	uint32_t nr_dynsym = dynsym->sh_size / sizeof(Elf64_Sym);
	size_t jump_slots = 0;
	struct elf_symtab *st;

	for (size_t i = 0; i < rela->sh_size / sizeof(Elf64_Rela); i++) {
		if (ELF64_R_TYPE(r[i].r_info) != R_X86_64_JUMP_SLOT)
			continue;
		/* one past the end, and as far past as it goes */
		r[i].r_info = ELF64_R_INFO(i % 2 ? nr_dynsym : UINT32_MAX, R_X86_64_JUMP_SLOT);
		jump_slots++;
	}
	cr_assert_gt(jump_slots, 3);
	st = load_image(&im, "badsym");
	/* the rest still named: the IFUNC, and .plt.got's stubs by .rela.dyn */
	cr_assert_eq(assert_none_misnamed(st, labels, n), n - jump_slots);
	for (size_t i = 0; i < n; i++) {
		const struct elf_sym *s = elf_symtab__find(st, labels[i].addr);

		cr_assert(strcmp(s->name, "puts@plt") && strcmp(s->name, "strlen@plt"));
	}
	elf_symtab__free(st);
	free(im.p);
	free(labels);
	free(bin);
}

Test(elf_plt_corrupt, names_past_the_string_table)
{
	struct label *labels;
	struct image im;
	size_t n;
	char *bin = corrupt_setup(&labels, &n, &im);
	Elf64_Shdr *dynsym = shdr_named(&im, ".dynsym");
	Elf64_Sym *sym = (Elf64_Sym *)(im.p + dynsym->sh_offset);
	struct elf_symtab *st;

	for (size_t i = 1; i < dynsym->sh_size / sizeof(Elf64_Sym); i++)
		sym[i].st_name = i % 2 ? UINT32_MAX : shdr_named(&im, ".dynstr")->sh_size;
	st = load_image(&im, "badname");
	/* only the IFUNC's, by the program's own .symtab */
	cr_assert_eq(assert_none_misnamed(st, labels, n), 1);
	elf_symtab__free(st);
	free(im.p);
	free(labels);
	free(bin);
}

Test(elf_plt_corrupt, plt_smaller_than_its_relocations)
{
	struct label *labels;
	struct image im;
	size_t n, in_plt = 0;
	char *bin = corrupt_setup(&labels, &n, &im);
	Elf64_Shdr *plt = shdr_named(&im, ".plt");
	uint64_t start = plt->sh_addr, end = plt->sh_addr + plt->sh_size;
	struct elf_symtab *st;

	/* the header and one stub */
	plt->sh_size = 32;
	st = load_image(&im, "shortplt");
	assert_none_misnamed(st, labels, n);
	for (uint64_t a = start + 32; a < end; a++) {
		const struct elf_sym *s = elf_symtab__find(st, a);

		cr_assert(!s || !ends_with(s->name, "@plt"), "%#" PRIx64 " past .plt is %s", a,
			  s->name);
	}
	for (size_t i = 0; i < n; i++) {
		const struct elf_sym *s = elf_symtab__find(st, labels[i].addr);

		if (labels[i].addr >= start && labels[i].addr < end && s &&
		    ends_with(s->name, "@plt"))
			in_plt++;
	}
	cr_assert_eq(in_plt, 1);
	elf_symtab__free(st);
	free(im.p);
	free(labels);
	free(bin);
}

/* Not x86-64 (the header says): no PLT symbols, rather than garbage. */
Test(elf_plt_corrupt, other_machines_have_none)
{
	struct label *labels;
	struct image im;
	size_t n;
	char *bin = corrupt_setup(&labels, &n, &im);
	struct plt_section secs[8];
	size_t nr = plt_sections(bin, secs, ARRAY_SIZE(secs));
	struct elf_symtab *st;

	((Elf64_Ehdr *)im.p)->e_machine = EM_AARCH64;
	st = load_image(&im, "aarch64");
	for (size_t i = 0; i < nr; i++)
		for (uint64_t a = secs[i].addr; a < secs[i].addr + secs[i].size; a++) {
			const struct elf_sym *s = elf_symtab__find(st, a);

			cr_assert(!s || (!ends_with(s->name, "@plt") && !is_plt_section_name(s->name)),
				  "%#" PRIx64 " is %s", a, s->name);
		}
	elf_symtab__free(st);
	free(im.p);
	free(labels);
	free(bin);
}

/* elf_plt__load() on a copy of im; NULL, errno ENOEXEC, too where libelf refuses it. */
static struct elf_symtab *plt_of_image(const struct image *im, const struct budget *b)
{
	char *copy = malloc(im->len);
	struct elf_symtab *st;
	Elf *elf;
	int err;

	cr_assert_not_null(copy);
	memcpy(copy, im->p, im->len);
	elf = elf_read__memory(copy, im->len, NULL);
	if (!elf) {
		free(copy);
		errno = ENOEXEC;
		return NULL;
	}
	st = elf_plt__load(elf, NULL, b);
	err = errno;
	elf_end(elf);
	free(copy);
	errno = err;
	return st;
}

Test(elf_plt_corrupt, over_budget_or_cancelled)
{
	struct label *labels;
	struct image im;
	size_t n;
	char *bin = corrupt_setup(&labels, &n, &im);
	struct budget b = BUDGET_DEFAULT_INIT;
	int cancel = 1;

	b.max_symbols = 2;
	budget__clear();
	cr_assert_null(plt_of_image(&im, &b));
	cr_assert_eq(errno, EFBIG);
	cr_assert(strstr(budget__why(), ".plt"), "%s", budget__why());
	b = (struct budget)BUDGET_DEFAULT_INIT;
	b.cancel = &cancel;
	cr_assert_null(plt_of_image(&im, &b));
	cr_assert_eq(errno, ECANCELED);
	free(im.p);
	free(labels);
	free(bin);
}

/*
 * Bytes changed at random in the PLT, its relocations, .dynsym, .dynstr
 * and the section headers: it never crashes (the sanitized build checks
 * every access), and what it names lies in a section named .plt*.
 */
Test(elf_plt_corrupt, random_bytes_in_what_it_reads)
{
	static const char *const parts[] = { ".plt", ".plt.got", ".rela.plt", ".rela.dyn", ".dynsym",
					     ".dynstr" };
	struct label *labels;
	struct image im, orig;
	size_t n, loaded = 0;
	char *bin = corrupt_setup(&labels, &n, &orig);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)orig.p;
	struct { uint64_t off, len; } where[ARRAY_SIZE(parts) + 1];

	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		Elf64_Shdr *sh = shdr_named(&orig, parts[i]);

		where[i].off = sh->sh_offset;
		where[i].len = sh->sh_size;
	}
	where[ARRAY_SIZE(parts)].off = eh->e_shoff;
	where[ARRAY_SIZE(parts)].len = (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr);
	im.len = orig.len;
	im.p = malloc(orig.len);
	cr_assert_not_null(im.p);
	srandom(7);
	for (int round = 0; round < 3000; round++) {
		struct elf_symtab *st;

		memcpy(im.p, orig.p, orig.len);
		for (int k = 0; k < 1 + round % 4; k++) {
			size_t w = random() % ARRAY_SIZE(where);

			im.p[where[w].off + random() % where[w].len] = random();
		}
		st = plt_of_image(&im, NULL);
		if (!st)
			continue;
		loaded++;
		for (size_t i = 0; i < n; i++) {
			const struct elf_sym *s = elf_symtab__find(st, labels[i].addr);

			cr_assert(!s || ends_with(s->name, "@plt") || is_plt_section_name(s->name));
		}
		elf_symtab__free(st);
	}
	cr_assert_gt(loaded, 1000);
	free(im.p);
	free(orig.p);
	free(labels);
	free(bin);
}
