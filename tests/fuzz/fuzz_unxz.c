// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_unxz.c - debuginfo__unxz, the xz decoder for MiniDebugInfo, on
 * arbitrary streams: the output never exceeds the cap, failures own no
 * memory. The first input byte picks the cap, small caps included, so the
 * buffer growth and the -EFBIG edge are exercised.
 */
#include <errno.h>

#include "symbols/debuginfo.h"
#include "fuzz.h"

static volatile unsigned int sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cap, out_len = 0;
	void *out = NULL;
	int err;

	if (!size)
		return 0;
	cap = (size_t)1 << (data[0] % 24);	/* 1 B .. 8 MiB */
	err = debuginfo__unxz(data + 1, size - 1, cap, &out, &out_len);
	if (err) {
		FUZZ_CHECK(err == -EFBIG || err == -EINVAL || err == -ENOMEM);
		return 0;
	}
	FUZZ_CHECK(out && out_len <= cap);
	/* out_len bytes are ours to read: ASan checks them against the allocation */
	for (size_t i = 0; i < out_len; i++)
		sink += ((const uint8_t *)out)[i];
	free(out);
	return 0;
}
