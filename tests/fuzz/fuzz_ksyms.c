// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_ksyms.c - ksyms__load_buf on an arbitrary kallsyms buffer, and
 * ksyms__load_file (line by line) on the same bytes in a memfd: both read
 * the same symbols. Then ksyms__find on addresses from the input and
 * around what it finds: a hit is at or below its address, and its strings
 * are live.
 */
#include <errno.h>
#include <fcntl.h>

#include "fuzz.h"
#include "symbols/ksyms.h"

static void check_find(const struct ksyms *ks, unsigned long addr)
{
	const struct ksym *s = ksyms__find(ks, addr);

	if (!s)
		return;
	FUZZ_CHECK(s->addr && s->addr <= addr);
	fuzz_touch(s->name);	/* may be "": NUL bytes in a line are not rejected */
	fuzz_touch(s->module);
}

/* The same bytes through ksyms__load_file: the same symbols, or the same failure. */
static void check_file(const uint8_t *data, size_t size, const struct ksyms *from_buf)
{
	char path[64];
	struct ksyms *ks;
	int fd;

	fd = fuzz_memfd(data, size);
	if (fd < 0)
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ks = ksyms__load_file(path);
	FUZZ_CHECK(!ks == !from_buf);
	FUZZ_CHECK(ksyms__count(ks) == ksyms__count(from_buf));
	ksyms__free(ks);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksyms *ks;

	ks = ksyms__load_buf((const char *)data, size);
	/* EPERM: text symbols, every address 0 (kptr_restrict, no CAP_SYSLOG) */
	if (!ks)
		FUZZ_CHECK(errno == ENOENT || errno == ENOMEM || errno == EPERM);
	check_file(data, size, ks);
	if (!ks)
		return 0;
	FUZZ_CHECK(ksyms__count(ks) > 0);
	check_find(ks, 0);
	check_find(ks, ~0UL);
	for (size_t i = 0; i < 16; i++) {
		unsigned long q = fuzz_u64_from_end(data, size, i);
		const struct ksym *s;

		check_find(ks, q);
		s = ksyms__find(ks, q);
		if (s) {
			check_find(ks, s->addr - 1);
			check_find(ks, s->addr + 1);
		}
	}
	ksyms__free(ks);
	return 0;
}
