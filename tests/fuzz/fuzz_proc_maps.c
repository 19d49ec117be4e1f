// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_proc_maps.c - proc_maps__load_buf on an arbitrary /proc/PID/maps
 * buffer, then proc_maps__find on addresses from the input: only
 * executable entries are kept, and a hit covers its address.
 */
#include <errno.h>

#include "fuzz.h"
#include "symbols/proc_maps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proc_maps m;
	int err;

	err = proc_maps__load_buf((const char *)data, size, &m);
	if (err) {
		FUZZ_CHECK(err == -ENOMEM);	/* malformed lines are skipped, not errors */
		FUZZ_CHECK(!m.entries && !m.nr);
		return 0;
	}
	for (size_t i = 0; i < m.nr; i++) {
		FUZZ_CHECK(map_entry__is_exec(&m.entries[i]));
		fuzz_touch(m.entries[i].path);
	}
	for (size_t i = 0; i < 8 + m.nr; i++) {
		uint64_t q = i < 8 ? fuzz_u64_from_end(data, size, i) : m.entries[i - 8].start;
		const struct map_entry *e = proc_maps__find(&m, q);

		if (e)
			FUZZ_CHECK(e->start <= q && q < e->end);
	}
	proc_maps__release(&m);
	FUZZ_CHECK(!m.entries && !m.nr);
	return 0;
}
