// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_elf_mem.c - elf_symtab__load_mem on arbitrary bytes, then the
 * lookups the symbolizer makes on what it loaded: file offset to vaddr,
 * vaddr to symbol. Lookups must only return symbols that cover the address.
 */
#include <errno.h>

#include "fuzz_elf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_symtab *st;
	void *copy;

	/* a heap copy: ASan sees reads past the image's end */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	st = elf_symtab__load_mem(copy, size);
	if (st) {
		FUZZ_CHECK(elf_symtab__kind(st) != ELF_SYMTAB_NONE || !elf_symtab__count(st));
		fuzz_elf_queries(st, data, size);
		elf_symtab__free(st);
	} else {
		FUZZ_CHECK(errno == ENOEXEC || errno == ENOMEM || errno == EFBIG);	/* EFBIG: over budget */
	}
	FUZZ_CHECK(!memcmp(copy, data, size));	/* the loader takes a const image */
	free(copy);
	return 0;
}
