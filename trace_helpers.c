// SPDX-License-Identifier: GPL-2.0
/* trace_helpers.c - checked number parsing, sysctl and CPU-list reading. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "trace_helpers.h"

int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end != '\0')
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int hex_digit_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int parse_hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int digits = 0;

	for (; !end || s < end; s++, digits++) {
		int d = hex_digit_value(*s);

		if (d < 0)
			break;
		if (digits == 16)
			return -ERANGE;
		v = v << 4 | d;
	}
	if (!digits)
		return -EINVAL;
	*p = s;
	*out = v;
	return 0;
}

int array_reserve(void **arr, size_t *cap, size_t idx, size_t elem)
{
	size_t n = *cap ? *cap : 64;
	void *p;

	if (idx < *cap)
		return 0;
	while (n <= idx)
		n *= 2;
	p = realloc(*arr, n * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

static ssize_t read_small_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n;
}

int read_long_file(const char *path, long *out)
{
	char buf[64];
	ssize_t n;

	n = read_small_file(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return parse_long(buf, LONG_MIN, LONG_MAX, out);
}

int parse_cpu_list(const char *list, bool *mask, int nr)
{
	const char *p = list;
	int highest = 0;

	memset(mask, 0, nr * sizeof(*mask));
	while (*p && *p != '\n') {
		char *end;
		long a, b;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		a = strtol(p, &end, 10);
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			b = strtol(p, &end, 10);
			p = end;
		}
		if (a > b || b >= INT_MAX)
			return -EINVAL;
		for (long c = a; c <= b && c < nr; c++)
			mask[c] = true;
		if (b + 1 > highest)
			highest = b + 1;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	return highest;
}

int read_online_cpus_file(const char *path, bool *mask, int nr)
{
	char buf[4096];
	ssize_t n;

	n = read_small_file(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	return parse_cpu_list(buf, mask, nr);
}

int read_online_cpus(bool *mask, int nr)
{
	return read_online_cpus_file("/sys/devices/system/cpu/online", mask, nr);
}
