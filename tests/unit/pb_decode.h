/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pb_decode.h - a protocol buffers wire-format reader for the unit tests
 * of protobuf.c and pprof.c. Written from the wire-format specification,
 * independently of the encoder, and strict: a truncated or malformed
 * input fails the test rather than being read past.
 */
#ifndef PB_DECODE_H
#define PB_DECODE_H

#include <criterion/criterion.h>
#include <stddef.h>
#include <stdint.h>

struct pbd_field {
	uint32_t field;
	unsigned int wire;
	uint64_t v;		/* varint, fixed64 and fixed32 */
	const uint8_t *data;	/* length-delimited */
	size_t len;
};

/* Read a varint at *p; false when it runs past end or over ten bytes. */
static inline bool pbd_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;

	for (unsigned int shift = 0; shift < 70; shift += 7) {
		uint8_t b;

		if (*p >= end)
			return false;
		b = *(*p)++;
		/* the tenth byte may only hold the top bit */
		if (shift == 63 && b > 1)
			return false;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			return true;
		}
	}
	return false;
}

/* The next field of a message in [*p, end): 1, 0 at the end; asserts on garbage. */
static inline int pbd_next(const uint8_t **p, const uint8_t *end, struct pbd_field *f)
{
	uint64_t key;

	if (*p == end)
		return 0;
	cr_assert(pbd_varint(p, end, &key), "bad field key");
	*f = (struct pbd_field){ .field = (uint32_t)(key >> 3), .wire = key & 7 };
	cr_assert_neq(f->field, 0, "field number 0");
	switch (f->wire) {
	case 0:
		cr_assert(pbd_varint(p, end, &f->v), "bad varint in field %u", f->field);
		break;
	case 1:
		cr_assert_geq(end - *p, 8, "truncated fixed64");
		memcpy(&f->v, *p, 8);
		*p += 8;
		break;
	case 2:
		cr_assert(pbd_varint(p, end, &f->v), "bad length in field %u", f->field);
		cr_assert_leq(f->v, (uint64_t)(end - *p), "field %u overruns its message", f->field);
		f->data = *p;
		f->len = f->v;
		*p += f->len;
		break;
	case 5:
		cr_assert_geq(end - *p, 4, "truncated fixed32");
		f->v = 0;
		memcpy(&f->v, *p, 4);
		*p += 4;
		break;
	default:
		cr_assert_fail("wire type %u in field %u", f->wire, f->field);
	}
	return 1;
}

/*
 * The values of a repeated varint field, packed (one length-delimited
 * field) or not (one varint): appended to v[*n] (at most max).
 */
static inline void pbd_repeated(const struct pbd_field *f, uint64_t *v, size_t *n, size_t max)
{
	if (f->wire == 0) {
		cr_assert_lt(*n, max);
		v[(*n)++] = f->v;
		return;
	}
	cr_assert_eq(f->wire, 2, "repeated field %u is neither varint nor packed", f->field);
	for (const uint8_t *p = f->data, *end = f->data + f->len; p < end;) {
		cr_assert_lt(*n, max);
		cr_assert(pbd_varint(&p, end, &v[(*n)++]), "bad packed varint");
	}
}

#endif /* PB_DECODE_H */
