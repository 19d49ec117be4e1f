// SPDX-License-Identifier: GPL-2.0
/*
 * test_py_elf.c - finding a CPython interpreter in an ELF file
 * (python/py_elf.c): on a stand-in libpython built by the Makefile and on
 * Debian's python3.11, with nm and readelf as the oracle.
 */
#include <fcntl.h>

#include "python/py_elf.h"
#include "test_util.h"

#define FIXTURE_PYTHON FIXTURE_DIR "/libfixture_python.so"
#define PYTHON311 "/usr/bin/python3.11"

static int read_file(const char *path, struct py_elf *pe)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	cr_assert_geq(fd, 0, "open '%s'", path);
	err = py_elf__read_fd(fd, NULL, pe);
	close(fd);
	return err;
}

Test(py_elf, finds_the_interpreter_of_a_libpython)
{
	uint64_t addr, size;
	struct py_elf pe;

	cr_assert_eq(read_file(FIXTURE_PYTHON, &pe), 0);
	nm_lookup(FIXTURE_PYTHON, "-D", "_PyRuntime", &addr, &size);
	cr_expect_eq(pe.runtime, addr);
	cr_expect_eq(pe.version, 0x030b05f0);
	nm_lookup(FIXTURE_PYTHON, "-D", "_PyEval_EvalFrameDefault", &addr, &size);
	cr_expect_eq(pe.eval_start, addr);
	cr_expect_eq(pe.eval_end, addr + size);
	nm_symbol(FIXTURE_PYTHON, "_PyEval_EvalFrameDefault.cold", &addr, &size);
	cr_expect_eq(pe.cold_start, addr);
	cr_expect_eq(pe.cold_end, addr + size);
	cr_expect_gt(pe.nr_segs, 0);
}

Test(py_elf, a_library_without_an_interpreter_is_none)
{
	struct py_elf pe;

	cr_expect_eq(read_file(FIXTURE_LIB, &pe), -ENOENT);
}

Test(py_elf, not_elf_is_refused)
{
	char *dir = make_tmpdir(), *path = write_in(dir, "x", "#!/bin/sh\necho not ELF\n");
	struct py_elf pe;

	cr_expect_eq(read_file(path, &pe), -ENOEXEC);
	free(path);
	rm_rf(dir);
}

/* Debian's python3.11, statically linked: _PyRuntime and the eval loop in .dynsym. */
Test(py_elf, debian_python311)
{
	uint64_t addr, size;
	struct py_elf pe;

	if (access(PYTHON311, R_OK))
		skip_unless_ci("no " PYTHON311);
	cr_assert_eq(read_file(PYTHON311, &pe), 0);
	nm_lookup(PYTHON311, "-D", "_PyRuntime", &addr, &size);
	cr_expect_eq(pe.runtime, addr);
	cr_expect_eq(pe.version >> 16, 0x030b, "Py_Version %#x", pe.version);
	nm_lookup(PYTHON311, "-D", "_PyEval_EvalFrameDefault", &addr, &size);
	cr_expect_eq(pe.eval_start, addr);
	cr_expect_eq(pe.eval_end, addr + size);
}

/* Where a mapping puts the file: as readelf's segments and the mapping say. */
Test(py_elf, bias_of_a_mapping)
{
	struct load_seg segs[8];
	size_t n = readelf_loads(FIXTURE_PYTHON, segs, 8);
	struct py_elf pe;
	uint64_t bias;

	cr_assert_eq(read_file(FIXTURE_PYTHON, &pe), 0);
	for (size_t i = 0; i < n; i++) {
		if (!segs[i].exec)
			continue;
		/* mapped at 0x7f0000000000 + the page of its offset, as ld.so maps it */
		cr_assert(py_elf__bias(&pe, 0x7f0000000000 + (segs[i].offset & ~4095ull),
				       segs[i].offset & ~4095ull, &bias));
		cr_expect_eq(bias + segs[i].vaddr, 0x7f0000000000 + segs[i].offset);
	}
	cr_expect_not(py_elf__bias(&pe, 0x7f0000000000, 1ull << 40, &bias));
}
