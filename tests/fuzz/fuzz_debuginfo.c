// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_debuginfo.c - what debuginfo reads from a stripped ELF file:
 * NT_GNU_BUILD_ID notes (in sections and in PT_NOTE segments),
 * .gnu_debuglink, and .gnu_debugdata (MiniDebugInfo, xz inside ELF), the
 * last through debuginfo__load_fd on the input in a memfd (with a Go
 * file's function table, where nothing else names it). The debug-file
 * search runs too, in a directory that does not exist, so the result does
 * not depend on the machine.
 */
#include <errno.h>

#include "symbols/debuginfo.h"
#include "fuzz_elf.h"

static const char *const no_dirs[] = { "/nonexistent/fuzz-debug" };

static void notes_and_link(const uint8_t *data, size_t size)
{
	uint8_t id[BUILD_ID_MAX];
	const char *name;
	uint32_t crc;
	void *copy;
	Elf *elf;
	int len;

	copy = malloc(size ? size : 1);
	if (!copy)
		return;
	memcpy(copy, data, size);
	elf = elf_memory(copy, size);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		len = debuginfo__build_id(elf, id, sizeof(id));
		FUZZ_CHECK(len == -ENOENT || (len > 0 && len <= BUILD_ID_MAX));
		if (!debuginfo__debuglink(elf, &name, &crc)) {
			size_t n = fuzz_touch(name);

			FUZZ_CHECK(n > 0 && !memchr(name, '/', n));
		}
	}
	elf_end(elf);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct debuginfo_opts opts = {
		.debug_dirs = no_dirs,
		.nr_debug_dirs = 1,
		.max_debugdata = 16u << 20,
	};
	struct debuginfo_info info;
	struct elf_symtab *st;
	uint8_t id[BUILD_ID_MAX];
	uint32_t crc;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	notes_and_link(data, size);
	fd = fuzz_memfd(data, size);
	if (fd < 0)
		return 0;
	FUZZ_CHECK(!debuginfo__crc32_fd(fd, NULL, &crc));
	debuginfo__build_id_fd(fd, id, sizeof(id));
	st = debuginfo__load_fd(fd, "/nonexistent/fuzz-bin/prog", &opts, &info);
	if (!st) {
		FUZZ_CHECK(errno == ENOEXEC || errno == ENOMEM || errno == EFBIG);	/* EFBIG: over budget */
		return 0;
	}
	FUZZ_CHECK(info.build_id_len <= BUILD_ID_MAX);
	FUZZ_CHECK(info.source == DEBUGINFO_NONE || info.source == DEBUGINFO_SYMTAB ||
		   info.source == DEBUGINFO_MINIDEBUGINFO || info.source == DEBUGINFO_GOPCLNTAB);
	FUZZ_CHECK(!info.debug_path[0]);
	fuzz_elf_queries(st, data, size);
	elf_symtab__free(st);
	return 0;
}
