// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_perfmap.c - perf map files (/tmp/perf-PID.map, written by any JIT):
 * perfmap__load_buf on the input, and perfmap__load_file on the same bytes
 * in a real file (the read loop and partial-last-line handling), then
 * perfmap__find: a hit covers its address.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "symbols/perfmap.h"

static void check_queries(const struct perfmap *pm, const uint8_t *data, size_t size)
{
	for (size_t i = 0; i < 16; i++) {
		uint64_t q = fuzz_u64_from_end(data, size, i);
		const struct perfmap_sym *s = perfmap__find(pm, q);

		if (!s)
			continue;
		FUZZ_CHECK(s->size && s->start <= q && q - s->start < s->size);
		fuzz_touch(s->name);	/* may be "": NUL bytes in a line are not rejected */
		perfmap__find(pm, s->start - 1);
		perfmap__find(pm, s->start + s->size);
	}
}

/*
 * The bytes in a file of their own, removed again right after the load:
 * load_file opens paths with O_NOFOLLOW, so no /proc/self/fd/N. Returns
 * its fd, or -1.
 */
static int write_file(const uint8_t *data, size_t size, char *path)
{
	size_t off = 0;
	int fd;

	strcpy(path, "/tmp/fuzz-perfmap.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	while (off < size) {
		ssize_t n = write(fd, data + off, size - off);

		if (n <= 0) {
			unlink(path);
			close(fd);
			return -1;
		}
		off += n;
	}
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfmap *pm, *from_file;
	char path[32];
	int fd;

	pm = perfmap__load_buf((const char *)data, size);
	if (!pm)
		return 0;	/* ENOMEM only */
	check_queries(pm, data, size);
	fd = write_file(data, size, path);
	if (fd >= 0) {
		struct budget tiny = BUDGET_DEFAULT_INIT;
		struct perfmap *small;
		struct stat sb;

		tiny.max_perfmap_entries = 3;
		tiny.max_perfmap_bytes = 4096;
		if (!fstat(fd, &sb) && !lseek(fd, 0, SEEK_SET)) {
			small = perfmap__load_fd(fd, &sb, &tiny);
			/* within budget all of it, or refused whole */
			FUZZ_CHECK(small ? perfmap__count(small) == perfmap__count(pm) : errno == EFBIG);
			perfmap__free(small);
		}
		from_file = perfmap__load_file(path);
		unlink(path);
		close(fd);
		FUZZ_CHECK(from_file);
		/* a partial last line is dropped from files only */
		FUZZ_CHECK(perfmap__count(from_file) <= perfmap__count(pm));
		check_queries(from_file, data, size);
		perfmap__free(from_file);
	}
	perfmap__free(pm);
	return 0;
}
