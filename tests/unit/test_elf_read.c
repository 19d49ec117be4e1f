// SPDX-License-Identifier: GPL-2.0
/*
 * test_elf_read.c - the budgets of untrusted ELF files: header counts
 * checked before libelf allocates, compressed sections before they are
 * inflated, symbol tables before they are read; files truncated under
 * the reader; a run that ends while a file is read.
 */
#include <elf.h>
#include <fcntl.h>

#include "symbols/elf_read.h"
#include "symbols/elf_symtab.h"
#include "sym_fixtures.h"

static char *tmp;

static void setup(void)
{
	tmp = make_tmpdir();
}

static void teardown(void)
{
	rm_rf(tmp);
}

TestSuite(elf_read, .init = setup, .fini = teardown);

/* An ELF header whose section count (extended numbering) claims 10 M. */
static size_t fake_many_sections(unsigned char *buf, size_t size)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Shdr *sh0 = (Elf64_Shdr *)(buf + sizeof(*eh));

	cr_assert_geq(size, sizeof(*eh) + sizeof(*sh0));
	memset(buf, 0, size);
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(*eh);
	eh->e_shentsize = sizeof(*sh0);
	eh->e_shoff = sizeof(*eh);
	eh->e_shnum = 0;		/* the count is in sh0.sh_size */
	sh0->sh_size = 10u << 20;
	return sizeof(*eh) + sizeof(*sh0);
}

Test(elf_read, section_count_over_budget_is_refused_before_libelf_sees_it)
{
	unsigned char buf[256];
	size_t len = fake_many_sections(buf, sizeof(buf));
	char *path = path_in(tmp, "many");
	int fd;

	cr_assert_null(elf_read__memory((char *)buf, len, NULL));
	cr_assert_eq(errno, EFBIG);
	cr_assert(strstr(budget__why(), "10485760 section headers"), "why: %s", budget__why());
	write_bytes(path, buf, len);
	/* a sparse tail as big as the headers claim: libelf would believe it */
	cr_assert_eq(truncate(path, (off_t)(10u << 20) * sizeof(Elf64_Shdr) + 4096), 0);
	fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0);
	budget__clear();
	cr_assert_null(elf_read__begin(fd, NULL));
	cr_assert_eq(errno, EFBIG);
	cr_assert_null(elf_symtab__load_fd(fd));
	cr_assert_eq(errno, EFBIG);
	close(fd);
	free(path);
}

Test(elf_read, not_elf_is_enoexec)
{
	char junk[128] = "#!/bin/sh\necho not an ELF file\n";

	cr_assert_null(elf_read__memory(junk, sizeof(junk), NULL));
	cr_assert_eq(errno, ENOEXEC);
}

static struct elf_symtab *load_with(const char *path, const struct budget *b)
{
	int fd = open(path, O_RDONLY);
	struct elf_symtab *st;
	int err;

	cr_assert_geq(fd, 0, "open '%s'", path);
	st = elf_symtab__load_fd_budget(fd, b);
	err = errno;
	close(fd);
	errno = err;
	return st;
}

Test(elf_read, compressed_symtab_over_its_size_is_refused)
{
	struct budget b = BUDGET_DEFAULT_INIT;
	struct elf_symtab *st;

	st = load_with(FIXTURE_ZSYMTAB, &b);
	cr_assert_not_null(st, "default budget: %s", strerror(errno));
	cr_assert_gt(elf_symtab__count(st), 0);
	elf_symtab__free(st);
	b.max_inflate_bytes = 64;
	cr_assert_null(load_with(FIXTURE_ZSYMTAB, &b));
	cr_assert_eq(errno, EFBIG);
	cr_assert(strstr(budget__why(), "inflates to"), "why: %s", budget__why());
}

/* 8 MiB of zeros in a few KiB: under the size budget, far over the ratio. */
Test(elf_read, compressed_symtab_over_its_ratio_is_refused)
{
	char *path = path_in(tmp, "bomb"), cmd[4200];

	copy_file(FIXTURE_PIE, path);
	snprintf(cmd, sizeof(cmd), "python3 tests/integration/tools/zbomb.py '%s' 8 > /dev/null", path);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	cr_assert_null(load_with(path, NULL));
	cr_assert_eq(errno, EFBIG);
	cr_assert(strstr(budget__why(), "inflates to 8388608"), "why: %s", budget__why());
	free(path);
}

Test(elf_read, symbol_table_over_budget_is_refused)
{
	struct budget b = BUDGET_DEFAULT_INIT;
	struct elf_symtab *st;

	b.max_symbols = 5;
	cr_assert_null(load_with(FIXTURE_PIE, &b));
	cr_assert_eq(errno, EFBIG);
	cr_assert(strstr(budget__why(), "symbol table of"), "why: %s", budget__why());
	b.max_symbols = 1u << 20;
	b.max_section_bytes = 256;
	cr_assert_null(load_with(FIXTURE_PIE, &b));
	cr_assert_eq(errno, EFBIG);
	b.max_section_bytes = 64u << 20;
	st = load_with(FIXTURE_PIE, &b);
	cr_assert_not_null(st);
	elf_symtab__free(st);
}

Test(elf_read, cancelled_load_stops)
{
	struct budget b = BUDGET_DEFAULT_INIT;
	int stop = 1;

	b.cancel = &stop;
	cr_assert_null(load_with(FIXTURE_PIE, &b));
	cr_assert_eq(errno, ECANCELED);
}

/*
 * The file shrinks between opening and reading its symbols (its owner
 * truncates it): a mapped read would raise SIGBUS; ours fails cleanly.
 */
Test(elf_read, file_truncated_while_read_is_no_crash)
{
	char *path = path_in(tmp, "shrinking");
	struct elf_symtab *st;
	Elf *elf;
	int fd;

	copy_file(FIXTURE_PIE, path);
	fd = open(path, O_RDWR);
	cr_assert_geq(fd, 0);
	elf = elf_read__begin(fd, NULL);
	cr_assert_not_null(elf);
	cr_assert_eq(ftruncate(fd, 512), 0);
	st = elf_symtab__load_elf(elf);
	cr_assert(!st || elf_symtab__count(st) == 0, "symbols read from a truncated file");
	elf_symtab__free(st);
	elf_end(elf);
	close(fd);
	free(path);
}
