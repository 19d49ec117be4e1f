// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_py_elf.c - py_elf__read_fd on arbitrary bytes in a memfd, as a
 * Python process's mapped file is read (python/py_elf.c), under the
 * default budget and a tiny one; what it finds is consistent.
 */
#include <errno.h>

#include "fuzz.h"
#include "python/py_elf.h"

static void check(int err, const struct py_elf *pe)
{
	uint64_t bias;

	if (err) {
		FUZZ_CHECK(err == -ENOENT || err == -ENOEXEC || err == -EFBIG || err == -ENOMEM);
		return;
	}
	FUZZ_CHECK(pe->nr_segs >= 0 && pe->nr_segs <= PY_ELF_MAX_SEGS);
	/* ranges that do not wrap: the BPF side compares pc - start with end - start */
	FUZZ_CHECK(pe->eval_start < pe->eval_end || (!pe->eval_start && !pe->eval_end));
	FUZZ_CHECK(pe->cold_start < pe->cold_end || (!pe->cold_start && !pe->cold_end));
	/* a mapping at any offset: a bias or none, never a crash */
	for (int i = 0; i < pe->nr_segs; i++)
		(void)py_elf__bias(pe, 0x7f0000000000, pe->segs[i].off, &bias);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct budget tiny = BUDGET_DEFAULT_INIT;
	struct py_elf pe;
	int fd = fuzz_memfd(data, size);

	if (fd < 0)
		return 0;
	tiny.max_sections = 8;
	tiny.max_section_bytes = 512;
	tiny.max_symbols = 8;
	check(py_elf__read_fd(fd, &tiny, &pe), &pe);
	check(py_elf__read_fd(fd, NULL, &pe), &pe);
	return 0;
}
