// SPDX-License-Identifier: GPL-2.0
/*
 * whole_read.c - read and inflate within a bound: the buffer doubles up
 * to max + 1 bytes, and one byte past max is the proof of too much.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <zlib.h>

#include "output/whole_read.h"

#define GZIP_WINDOW_BITS 31	/* 15 + 16: a gzip wrapper, nothing else */
#define FIRST_CHUNK 65536

bool whole_read__is_gzip(const void *buf, size_t len)
{
	const uint8_t *p = buf;

	return len >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

/* Room past *have in *data (*cap bytes), never more than max + 1 in all: 0, -E2BIG, -ENOMEM. */
static int grow(uint8_t **data, size_t *cap, size_t have, size_t max)
{
	size_t ncap = *cap ? *cap * 2 : FIRST_CHUNK;
	uint8_t *n;

	if (have < *cap)
		return 0;
	if (*cap > max)
		return -E2BIG;
	if (ncap > max + 1 || ncap < *cap)
		ncap = max + 1;
	n = realloc(*data, ncap);
	if (!n)
		return -ENOMEM;
	*data = n;
	*cap = ncap;
	return 0;
}

int whole_read__stream(FILE *f, size_t max, uint8_t **out, size_t *len)
{
	size_t cap = 0, have = 0, got;
	uint8_t *data = NULL;
	int err = 0;

	do {
		if ((err = grow(&data, &cap, have, max)))
			break;
		got = fread(data + have, 1, cap - have, f);
		have += got;
		if (have > max)
			err = -E2BIG;
		else if (!got && ferror(f))
			err = errno ? -errno : -EIO;
	} while (!err && got);
	if (err) {
		free(data);
		return err;
	}
	*out = data;
	*len = have;
	return 0;
}

int whole_read__gunzip(const void *buf, size_t len, size_t max, uint8_t **out, size_t *out_len)
{
	z_stream zs = { 0 };
	size_t cap = 0, have = 0;
	uint8_t *data = NULL;
	int ret = Z_OK, err = 0;

	if (len > UINT_MAX)
		return -E2BIG;
	if (inflateInit2(&zs, GZIP_WINDOW_BITS) != Z_OK)
		return -ENOMEM;
	zs.next_in = (Bytef *)buf;
	zs.avail_in = (uInt)len;
	while (!err && ret != Z_STREAM_END) {
		if ((err = grow(&data, &cap, have, max)))
			break;
		zs.next_out = data + have;
		zs.avail_out = (uInt)(cap - have > UINT_MAX ? UINT_MAX : cap - have);
		ret = inflate(&zs, Z_NO_FLUSH);
		have = (size_t)(zs.next_out - data);
		if (have > max)
			err = -E2BIG;
		else if (ret == Z_MEM_ERROR)
			err = -ENOMEM;
		else if (ret != Z_OK && ret != Z_STREAM_END)
			err = -EINVAL;	/* corrupt, or Z_BUF_ERROR: no input left before its end */
		else if (ret == Z_OK && !zs.avail_in && zs.avail_out)
			err = -EINVAL;	/* ends early */
	}
	inflateEnd(&zs);
	if (err) {
		free(data);
		return err;
	}
	*out = data;
	*out_len = have;
	return 0;
}
