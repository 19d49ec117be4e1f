// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_map_entry.c - map_entry__parse on one arbitrary line of
 * /proc/PID/maps: a parsed entry is well formed, a failed parse owns no
 * memory.
 */
#include <errno.h>

#include "fuzz.h"
#include "symbols/proc_maps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct map_entry e;
	char *line;
	int err;

	line = fuzz_strndup(data, size);
	if (!line)
		return 0;
	err = map_entry__parse(line, &e);
	if (!err) {
		FUZZ_CHECK(e.start <= e.end);
		FUZZ_CHECK(e.dev_major <= 0xfff && e.dev_minor <= 0xfffff);
		FUZZ_CHECK(strlen(e.perms) == 4);
		FUZZ_CHECK(e.path && fuzz_touch(e.path) <= size);
		FUZZ_CHECK(!strchr(e.path, '\n'));
		map_entry__release(&e);
		FUZZ_CHECK(!e.path);
	} else {
		FUZZ_CHECK(err == -EINVAL || err == -ENOMEM);
	}
	free(line);
	return 0;
}
