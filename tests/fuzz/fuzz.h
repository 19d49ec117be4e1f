/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz.h - helpers shared by the libFuzzer harnesses in tests/fuzz: input
 * handed to a loader through a file descriptor, and query values taken
 * from the input so the fuzzer steers the lookups too.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* An invariant of the API that the input broke: a crash libFuzzer keeps. */
#define FUZZ_CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			abort();					\
		}							\
	} while (0)

/*
 * One memfd per process, rewritten with each input: loaders that read a
 * file descriptor (read(2) or libelf's mmap) see exactly the input bytes.
 * Returns the fd, at offset 0, or -1.
 */
static inline int fuzz_memfd(const uint8_t *data, size_t size)
{
	static int fd = -1;
	size_t off = 0;

	if (fd < 0)
		fd = memfd_create("fuzz-input", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET))
		return -1;
	while (off < size) {
		ssize_t n = write(fd, data + off, size - off);

		if (n <= 0)
			return -1;
		off += n;
	}
	return lseek(fd, 0, SEEK_SET) ? -1 : fd;
}

/* The i-th 64-bit value counted from the end of the input, or 0 past its start. */
static inline uint64_t fuzz_u64_from_end(const uint8_t *data, size_t size, size_t i)
{
	uint64_t v = 0;

	if (size < 8 * (i + 1))
		return 0;
	memcpy(&v, data + size - 8 * (i + 1), 8);
	return v;
}

/* A NUL-terminated heap copy, so reads past the input's end are ASan errors. */
static inline char *fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

/* Touch every byte of a string the library returned: ASan checks it is live. */
static inline size_t fuzz_touch(const char *s)
{
	return s ? strlen(s) : 0;
}

#endif /* FUZZ_H */
