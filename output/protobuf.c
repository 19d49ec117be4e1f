// SPDX-License-Identifier: GPL-2.0
/*
 * protobuf.c - the protocol buffers encoder behind pprof output: base-128
 * varints, field tags, length-delimited fields and nested messages.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "output/protobuf.h"

/* Field numbers are 29 bits; 0 is not a field. */
#define PB_FIELD_MAX ((1U << 29) - 1)

void pb_init(struct pb_buf *pb)
{
	*pb = (struct pb_buf)PB_BUF_INIT;
}

void pb_release(struct pb_buf *pb)
{
	free(pb->data);
	*pb = (struct pb_buf)PB_BUF_INIT;
}

size_t pb_varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

size_t pb_encode_varint(uint64_t v, uint8_t *out)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

uint64_t pb_zigzag64(int64_t v)
{
	/* shift as unsigned: left-shifting a negative value is undefined */
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

/* Room for len more bytes at the end. */
static int pb_reserve(struct pb_buf *pb, size_t len)
{
	size_t cap;
	uint8_t *data;

	if (pb->err)
		return pb->err;
	if (len <= pb->cap - pb->len)
		return 0;
	if (len > SIZE_MAX / 2 - pb->len)
		return pb->err = -ENOMEM;
	cap = pb->cap ? pb->cap : 256;
	while (cap - pb->len < len)
		cap *= 2;
	data = realloc(pb->data, cap);
	if (!data)
		return pb->err = -ENOMEM;
	pb->data = data;
	pb->cap = cap;
	return 0;
}

int pb_put_raw(struct pb_buf *pb, const void *data, size_t len)
{
	int err = pb_reserve(pb, len);

	if (err)
		return err;
	if (len)
		memcpy(pb->data + pb->len, data, len);
	pb->len += len;
	return 0;
}

int pb_put_varint(struct pb_buf *pb, uint64_t v)
{
	int err = pb_reserve(pb, PB_VARINT_MAX);

	if (err)
		return err;
	pb->len += pb_encode_varint(v, pb->data + pb->len);
	return 0;
}

int pb_put_tag(struct pb_buf *pb, uint32_t field, enum pb_wire_type wire)
{
	if (pb->err)
		return pb->err;
	if (field == 0 || field > PB_FIELD_MAX)
		return pb->err = -EINVAL;
	return pb_put_varint(pb, (uint64_t)field << 3 | wire);
}

int pb_put_uint64(struct pb_buf *pb, uint32_t field, uint64_t v)
{
	pb_put_tag(pb, field, PB_WIRE_VARINT);
	return pb_put_varint(pb, v);
}

int pb_put_int64(struct pb_buf *pb, uint32_t field, int64_t v)
{
	return pb_put_uint64(pb, field, (uint64_t)v);
}

int pb_put_sint64(struct pb_buf *pb, uint32_t field, int64_t v)
{
	return pb_put_uint64(pb, field, pb_zigzag64(v));
}

int pb_put_bool(struct pb_buf *pb, uint32_t field, bool v)
{
	return pb_put_uint64(pb, field, v);
}

int pb_put_bytes(struct pb_buf *pb, uint32_t field, const void *data, size_t len)
{
	pb_put_tag(pb, field, PB_WIRE_LEN);
	pb_put_varint(pb, len);
	return pb_put_raw(pb, data, len);
}

int pb_put_string(struct pb_buf *pb, uint32_t field, const char *s)
{
	return pb_put_bytes(pb, field, s, strlen(s));
}

int pb_put_packed_uint64(struct pb_buf *pb, uint32_t field, const uint64_t *v, size_t n)
{
	size_t len = 0;

	if (!n)
		return pb->err;
	for (size_t i = 0; i < n; i++)
		len += pb_varint_size(v[i]);
	pb_put_tag(pb, field, PB_WIRE_LEN);
	pb_put_varint(pb, len);
	for (size_t i = 0; i < n; i++)
		pb_put_varint(pb, v[i]);
	return pb->err;
}

int pb_put_packed_int64(struct pb_buf *pb, uint32_t field, const int64_t *v, size_t n)
{
	size_t len = 0;

	if (!n)
		return pb->err;
	for (size_t i = 0; i < n; i++)
		len += pb_varint_size((uint64_t)v[i]);
	pb_put_tag(pb, field, PB_WIRE_LEN);
	pb_put_varint(pb, len);
	for (size_t i = 0; i < n; i++)
		pb_put_varint(pb, (uint64_t)v[i]);
	return pb->err;
}

size_t pb_begin(struct pb_buf *pb)
{
	return pb->len;
}

int pb_end(struct pb_buf *pb, uint32_t field, size_t start)
{
	uint8_t head[2 * PB_VARINT_MAX];
	size_t body, n;

	if (pb->err)
		return pb->err;
	if (start > pb->len || field == 0 || field > PB_FIELD_MAX)
		return pb->err = -EINVAL;
	/*
	 * The length is known only now: move the body up by the size of the
	 * tag and length varints, then write them in the gap.
	 */
	body = pb->len - start;
	n = pb_encode_varint((uint64_t)field << 3 | PB_WIRE_LEN, head);
	n += pb_encode_varint(body, head + n);
	if (pb_reserve(pb, n))
		return pb->err;
	memmove(pb->data + start + n, pb->data + start, body);
	memcpy(pb->data + start, head, n);
	pb->len += n;
	return 0;
}
