// SPDX-License-Identifier: GPL-2.0
/*
 * debuginfo_xz.c - inflate MiniDebugInfo's xz stream (debuginfo__unxz,
 * declared in debuginfo.h) under a cap on what it may grow to, and on the
 * decoder's own memory: the stream comes from the file, untrusted.
 */
#include <errno.h>
#include <lzma.h>
#include <stdlib.h>

#include "symbols/debuginfo.h"

int debuginfo__unxz(const void *in, size_t len, size_t cap, void **out, size_t *out_len)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	size_t size = len * 4 < cap ? len * 4 : cap;
	unsigned char *buf = NULL;
	lzma_ret ret;
	int err = 0;

	if (!size)
		size = cap ? cap : 1;
	/* the decoder's own memory is bounded too, not just its output */
	if (lzma_stream_decoder(&strm, 256u << 20, LZMA_CONCATENATED) != LZMA_OK)
		return -ENOMEM;
	buf = malloc(size);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}
	strm.next_in = in;
	strm.avail_in = len;
	strm.next_out = buf;
	strm.avail_out = size;
	for (;;) {
		ret = lzma_code(&strm, LZMA_FINISH);
		if (ret == LZMA_STREAM_END)
			break;
		if (ret != LZMA_OK && ret != LZMA_BUF_ERROR) {
			err = ret == LZMA_MEM_ERROR ? -ENOMEM :
			      ret == LZMA_MEMLIMIT_ERROR ? -EFBIG : -EINVAL;
			goto out;
		}
		if (strm.avail_out) {
			err = -EINVAL;	/* input ended before the stream did */
			goto out;
		}
		if (size >= cap) {
			err = -EFBIG;
			goto out;
		}
		{
			size_t nsize = size * 2 < cap ? size * 2 : cap;
			unsigned char *nb = realloc(buf, nsize);

			if (!nb) {
				err = -ENOMEM;
				goto out;
			}
			buf = nb;
			strm.next_out = buf + size;
			strm.avail_out = nsize - size;
			size = nsize;
		}
	}
	*out = buf;
	*out_len = size - strm.avail_out;
	buf = NULL;
out:
	free(buf);
	lzma_end(&strm);
	return err;
}
