// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_elf_fd.c - elf_symtab__load_fd on arbitrary bytes in a memfd (the
 * path the symbolizer takes: libelf preads the file), under the default
 * budget and a tiny one (whatever is over it is refused whole, never read
 * in part), and elf_symtab__merge of what load_mem reads from the same
 * bytes, as debug symbols are merged into a stripped file's.
 */
#include <errno.h>

#include "fuzz_elf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_symtab *st, *other;
	size_t before;
	int fd;

	struct budget tiny = BUDGET_DEFAULT_INIT;

	fd = fuzz_memfd(data, size);
	if (fd < 0)
		return 0;
	tiny.max_sections = 8;
	tiny.max_section_bytes = 256;
	tiny.max_inflate_bytes = 512;
	tiny.max_inflate_ratio = 4;
	tiny.max_symbols = 4;
	st = elf_symtab__load_fd_budget(fd, &tiny);
	if (st) {
		FUZZ_CHECK(elf_symtab__count(st) <= tiny.max_symbols);
		elf_symtab__free(st);
	} else {
		FUZZ_CHECK(errno == ENOEXEC || errno == ENOMEM || errno == EFBIG);
	}
	st = elf_symtab__load_fd(fd);
	if (!st) {
		FUZZ_CHECK(errno == ENOEXEC || errno == ENOMEM || errno == EFBIG);
		return 0;
	}
	fuzz_elf_queries(st, data, size);
	other = elf_symtab__load_mem(data, size);
	if (other) {
		before = elf_symtab__count(st);
		if (!elf_symtab__merge(st, other)) {
			/* the same symbols twice: no address twice */
			FUZZ_CHECK(elf_symtab__count(st) == before);
			FUZZ_CHECK(elf_symtab__kind(st) >= elf_symtab__kind(other));
		}
		elf_symtab__free(other);
		fuzz_elf_queries(st, data, size);
	}
	elf_symtab__free(st);
	return 0;
}
