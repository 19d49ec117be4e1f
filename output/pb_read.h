/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pb_read.h - a protocol buffers wire-format reader for untrusted bytes:
 * fields one at a time out of a message, packed and unpacked repeated
 * scalars alike. Nothing is read past the message's end; a truncated or
 * malformed field is an error, not a guess.
 */
#ifndef PB_READ_H
#define PB_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pb_reader {
	const uint8_t *p, *end;
};

struct pb_field {
	uint32_t field;
	unsigned int wire;	/* enum pb_wire_type (protobuf.h) */
	uint64_t v;		/* a varint, fixed64 or fixed32 */
	const uint8_t *data;	/* a length-delimited field's bytes */
	size_t len;
};

static inline struct pb_reader pb_reader(const void *data, size_t len)
{
	return (struct pb_reader){ data, (const uint8_t *)data + len };
}

/* A varint at r->p: 0, or -EINVAL when it runs past the end or over ten bytes. */
int pb_read_varint(struct pb_reader *r, uint64_t *v);

/* The next field of the message: 1, 0 at its end, -EINVAL when malformed (groups too). */
int pb_read_field(struct pb_reader *r, struct pb_field *f);

/*
 * A repeated scalar field, packed (one length-delimited field) or not
 * (one varint): calls fn on each value; 0, fn's non-zero return, or
 * -EINVAL for another wire type or a packed run that is malformed.
 */
int pb_read_repeated(const struct pb_field *f, int (*fn)(uint64_t v, void *ctx), void *ctx);

#endif /* PB_READ_H */
