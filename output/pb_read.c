// SPDX-License-Identifier: GPL-2.0
/*
 * pb_read.c - the wire format, read strictly (pb_read.h).
 */
#include <errno.h>
#include <string.h>

#include "output/pb_read.h"
#include "output/protobuf.h"

int pb_read_varint(struct pb_reader *r, uint64_t *v)
{
	uint64_t out = 0;

	for (unsigned int shift = 0; shift < 64; shift += 7) {
		uint8_t b;

		if (r->p >= r->end)
			return -EINVAL;
		b = *r->p++;
		/* the tenth byte holds bit 63 alone */
		if (shift == 63 && b > 1)
			return -EINVAL;
		out |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = out;
			return 0;
		}
	}
	return -EINVAL;
}

static int take(struct pb_reader *r, size_t n, const uint8_t **data)
{
	if ((size_t)(r->end - r->p) < n)
		return -EINVAL;
	*data = r->p;
	r->p += n;
	return 0;
}

int pb_read_field(struct pb_reader *r, struct pb_field *f)
{
	const uint8_t *d;
	uint64_t key;

	if (r->p >= r->end)
		return 0;
	if (pb_read_varint(r, &key) || key >> 3 == 0 || key >> 3 > UINT32_MAX)
		return -EINVAL;
	*f = (struct pb_field){ .field = (uint32_t)(key >> 3), .wire = key & 7 };
	switch (f->wire) {
	case PB_WIRE_VARINT:
		return pb_read_varint(r, &f->v) ? -EINVAL : 1;
	case PB_WIRE_FIXED64:
		if (take(r, 8, &d))
			return -EINVAL;
		for (int i = 7; i >= 0; i--)
			f->v = f->v << 8 | d[i];
		return 1;
	case PB_WIRE_FIXED32:
		if (take(r, 4, &d))
			return -EINVAL;
		for (int i = 3; i >= 0; i--)
			f->v = f->v << 8 | d[i];
		return 1;
	case PB_WIRE_LEN:
		if (pb_read_varint(r, &f->v) || f->v > (uint64_t)(r->end - r->p))
			return -EINVAL;
		f->len = (size_t)f->v;
		return take(r, f->len, &f->data) ? -EINVAL : 1;
	default:
		return -EINVAL;	/* groups (3, 4) and the undefined 6, 7 */
	}
}

int pb_read_repeated(const struct pb_field *f, int (*fn)(uint64_t v, void *ctx), void *ctx)
{
	struct pb_reader r;
	uint64_t v;
	int err;

	if (f->wire == PB_WIRE_VARINT)
		return fn(f->v, ctx);
	if (f->wire != PB_WIRE_LEN)
		return -EINVAL;
	r = pb_reader(f->data, f->len);
	while (r.p < r.end) {
		if (pb_read_varint(&r, &v))
			return -EINVAL;
		if ((err = fn(v, ctx)))
			return err;
	}
	return 0;
}
