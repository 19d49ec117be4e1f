// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_container_id.c - container ids from cgroup paths, whose names any
 * user with a delegated subtree chooses: container_id__of on the input
 * as a path, into buffers of the size report.c gives and the smallest
 * one accepted. What it returns is a string within the buffer, no longer
 * than the path (as long when the path is a bare id: the kernel's start
 * with '/', a fuzzer's need not): 64 hex digits, or a machine's name.
 */
#include "fuzz.h"
#include "output/container_id.h"

static bool is_hex_id(const char *s)
{
	if (strlen(s) != 64)
		return false;
	for (size_t i = 0; i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static void check(const char *path, size_t size)
{
	char *buf = malloc(size);
	bool found;

	if (!buf)
		return;
	memset(buf, 'x', size);
	found = container_id__of(path, buf, size);
	FUZZ_CHECK(memchr(buf, '\0', size));
	if (!found)
		FUZZ_CHECK(!*buf);
	else
		FUZZ_CHECK(strlen(buf) <= strlen(path) &&
			   (is_hex_id(buf) || (strstr(path, "machine.slice/") && strstr(path, "/machine-"))));
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *path = malloc(size + 1);

	if (!path)
		return 0;
	memcpy(path, data, size);
	path[size] = '\0';	/* a path stops at its first NUL */
	check(path, 256);
	check(path, 65);
	free(path);
	return 0;
}
