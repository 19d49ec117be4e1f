// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_elf_mem.c - elf_symtab__load_mem on arbitrary bytes, then the
 * lookups the symbolizer makes on what it loaded: file offset to vaddr,
 * vaddr to symbol. Lookups must only return symbols that cover the address.
 * And the digest of what the symbol reader takes (file_id__symbols): a
 * documented error or the same digest from two fresh handles.
 */
#include <errno.h>

#include "symbols/elf_read.h"
#include "symbols/file_id.h"
#include "fuzz_elf.h"

static int symbols_digest(const uint8_t *data, size_t size, uint8_t out[SHA256_LEN])
{
	char *image = malloc(size ? size : 1);
	Elf *elf;
	int err = -ENOMEM;

	if (!image)
		return err;
	memcpy(image, data, size);
	elf = elf_read__memory(image, size, NULL);
	err = elf ? file_id__symbols(elf, NULL, out) : -ENOEXEC;
	elf_end(elf);
	free(image);
	return err;
}

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
	{
		uint8_t a[SHA256_LEN], b[SHA256_LEN];
		int err = symbols_digest(data, size, a);

		FUZZ_CHECK(!err || err == -ENOEXEC || err == -EFBIG || err == -ENOMEM);
		if (!err)
			FUZZ_CHECK(!symbols_digest(data, size, b) && !memcmp(a, b, SHA256_LEN));
	}
	return 0;
}
