// SPDX-License-Identifier: GPL-2.0
/*
 * test_py_elf.c - finding a CPython interpreter in an ELF file
 * (python/py_elf.c): on a stand-in libpython built by the Makefile and on
 * Debian's python3.11, with nm and readelf as the oracle.
 */
#include <fcntl.h>

#include "python/py_dealloc.h"
#include "python/py_elf.h"
#include "symbols/elf_read.h"
#include "test_util.h"

#define FIXTURE_PYTHON FIXTURE_DIR "/libfixture_python.so"
#define FIXTURE_PYTHON_SKEW FIXTURE_DIR "/libfixture_python_skew.so"
#define FIXTURE_PYTHON_GLOBAL FIXTURE_DIR "/libfixture_python_global.so"
#define FIXTURE_PYTHON_LLD FIXTURE_DIR "/libfixture_python_lld.so"
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

/* The file offset of ELF address addr, by readelf's executable segments; 0: none. */
static uint64_t exec_offset_of(const char *path, uint64_t addr)
{
	struct load_seg segs[8];
	size_t n = readelf_loads(path, segs, 8);

	for (size_t i = 0; i < n; i++)
		if (segs[i].exec && addr >= segs[i].vaddr && addr < segs[i].vaddr + segs[i].filesz)
			return addr - segs[i].vaddr + segs[i].offset;
	return 0;
}

/* Whether readelf lists an unwind entry (FDE) that starts at file offset off. */
static bool starts_fde(const char *path, uint64_t off)
{
	struct load_seg segs[8];
	size_t n = readelf_loads(path, segs, 8);
	char cmd[4200], line[512], want[64];
	bool found = false;
	FILE *p;

	want[0] = '\0';
	for (size_t i = 0; i < n; i++)
		if (off && segs[i].exec && off >= segs[i].offset &&
		    off < segs[i].offset + segs[i].filesz)
			snprintf(want, sizeof(want), "pc=%016llx..",
				 (unsigned long long)(off - segs[i].offset + segs[i].vaddr));
	if (!want[0])
		return false;
	snprintf(cmd, sizeof(cmd), "readelf -wf '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p, "unable to run readelf");
	while (fgets(line, sizeof(line), p))
		found |= strstr(line, " FDE ") && strstr(line, want);
	pclose(p);
	return found;
}

/* What py_dealloc__find() says of the interpreter in path. */
static int find_dealloc(const char *path, uint64_t *off)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	struct py_elf pe;
	Elf *elf;

	cr_assert_geq(fd, 0, "open '%s'", path);
	elf = elf_read__begin(fd, budget__default());
	cr_assert_not_null(elf, "elf_read__begin '%s'", path);
	cr_assert_eq(py_elf__read(elf, NULL, &pe), 0);
	cr_assert_neq(pe.code_type, 0);
	err = py_dealloc__find(elf, budget__default(), &pe, off);
	elf_end(elf);
	close(fd);
	return err;
}

/* PyCode_Type's tp_dealloc, by its RELATIVE relocation in a shared object (0 in the file) */
Test(py_elf, finds_where_code_objects_are_freed)
{
	uint64_t addr, size;
	struct py_elf pe;

	cr_assert_eq(read_file(FIXTURE_PYTHON_LLD, &pe), 0);
	nm_lookup(FIXTURE_PYTHON_LLD, "-D", "fixture_code_dealloc", &addr, &size);
	cr_assert_neq(exec_offset_of(FIXTURE_PYTHON_LLD, addr), 0);
	cr_expect_eq(pe.dealloc, exec_offset_of(FIXTURE_PYTHON_LLD, addr), "dealloc %#llx, nm %#llx",
		     (unsigned long long)pe.dealloc, (unsigned long long)addr);
}

/* a pointer into a function is no place for a probe: none, and the interpreter still found */
Test(py_elf, a_dealloc_that_starts_no_function_is_refused)
{
	struct py_elf pe;
	uint64_t off;

	cr_expect_eq(find_dealloc(FIXTURE_PYTHON_SKEW, &off), -ENOEXEC);
	cr_assert_eq(read_file(FIXTURE_PYTHON_SKEW, &pe), 0);
	cr_expect_eq(pe.dealloc, 0);
}

/* one another library could interpose: not the code the file's processes run */
Test(py_elf, a_dealloc_by_symbol_is_refused)
{
	uint64_t off;

	cr_expect_eq(find_dealloc(FIXTURE_PYTHON_GLOBAL, &off), -ENOENT);
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
	/* code_dealloc(), static: found through PyCode_Type, where readelf says a function starts */
	cr_expect(starts_fde(PYTHON311, pe.dealloc), "dealloc at offset %#llx",
		  (unsigned long long)pe.dealloc);
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
