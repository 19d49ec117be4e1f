/* SPDX-License-Identifier: GPL-2.0 */
/*
 * protobuf.h - a minimal protocol buffers encoder: varint and
 * length-delimited fields appended to a growable buffer, enough to write
 * pprof's profile.proto without a protobuf library.
 *
 * Nested messages are written in place: pb_begin() notes where the body
 * starts, pb_end() inserts the field tag and body length in front of it.
 *
 * Errors are sticky: after the first failure (-ENOMEM) every later call
 * returns it again and leaves the buffer alone, so a writer can emit a
 * whole message and check the result of the last call (or pb->err) once.
 */
#ifndef PROTOBUF_H
#define PROTOBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pb_wire_type {
	PB_WIRE_VARINT = 0,
	PB_WIRE_FIXED64 = 1,
	PB_WIRE_LEN = 2,
	PB_WIRE_FIXED32 = 5,
};

/* The longest varint: 64 bits in 7-bit groups. */
#define PB_VARINT_MAX 10

struct pb_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
	int err;	/* first error, 0 while all went well */
};

#define PB_BUF_INIT { 0 }

void pb_init(struct pb_buf *pb);
/* Free the bytes; pb can be used again after pb_init(). */
void pb_release(struct pb_buf *pb);

/* How many bytes v takes as a varint (1..10). */
size_t pb_varint_size(uint64_t v);
/* Encode v into out (at least PB_VARINT_MAX bytes); returns the length. */
size_t pb_encode_varint(uint64_t v, uint8_t *out);

/* Raw pieces. */
int pb_put_raw(struct pb_buf *pb, const void *data, size_t len);
int pb_put_varint(struct pb_buf *pb, uint64_t v);
int pb_put_tag(struct pb_buf *pb, uint32_t field, enum pb_wire_type wire);

/*
 * Fields. int64 is the protobuf "int64" type: negative values take ten
 * bytes, as two's complement. sint64 is zigzag-encoded. Scalars are
 * always written, even when zero (proto3 readers accept that).
 */
int pb_put_uint64(struct pb_buf *pb, uint32_t field, uint64_t v);
int pb_put_int64(struct pb_buf *pb, uint32_t field, int64_t v);
int pb_put_sint64(struct pb_buf *pb, uint32_t field, int64_t v);
int pb_put_bool(struct pb_buf *pb, uint32_t field, bool v);
int pb_put_bytes(struct pb_buf *pb, uint32_t field, const void *data, size_t len);
int pb_put_string(struct pb_buf *pb, uint32_t field, const char *s);
/* Packed repeated fields: one length-delimited field; nothing when n is 0. */
int pb_put_packed_uint64(struct pb_buf *pb, uint32_t field, const uint64_t *v, size_t n);
int pb_put_packed_int64(struct pb_buf *pb, uint32_t field, const int64_t *v, size_t n);

/* Zigzag mapping of sint64: 0, -1, 1, -2... to 0, 1, 2, 3... */
uint64_t pb_zigzag64(int64_t v);

/*
 * A nested message: start = pb_begin(pb); write its fields; then
 * pb_end(pb, field, start). Messages nest to any depth.
 */
size_t pb_begin(struct pb_buf *pb);
int pb_end(struct pb_buf *pb, uint32_t field, size_t start);

#endif /* PROTOBUF_H */
