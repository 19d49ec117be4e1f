// SPDX-License-Identifier: GPL-2.0
/*
 * test_protobuf.c - the protobuf encoder: exact bytes for the examples of
 * the wire-format specification, round trips through an independent
 * decoder (pb_decode.h), and protoc --decode_raw as an outside oracle.
 */
#include "output/protobuf.h"
#include "pb_decode.h"
#include "test_util.h"

static void assert_bytes(const struct pb_buf *pb, const uint8_t *want, size_t len)
{
	cr_assert_eq(pb->err, 0);
	cr_assert_eq(pb->len, len, "encoded %zu bytes, want %zu", pb->len, len);
	for (size_t i = 0; i < len; i++)
		cr_assert_eq(pb->data[i], want[i], "byte %zu: %02x, want %02x", i, pb->data[i], want[i]);
}

Test(protobuf, varint_bytes)
{
	static const struct {
		uint64_t v;
		uint8_t bytes[PB_VARINT_MAX];
		size_t len;
	} cases[] = {
		{ 0, { 0x00 }, 1 },
		{ 1, { 0x01 }, 1 },
		{ 127, { 0x7f }, 1 },
		{ 128, { 0x80, 0x01 }, 2 },
		{ 150, { 0x96, 0x01 }, 2 },
		{ 300, { 0xac, 0x02 }, 2 },
		{ 16383, { 0xff, 0x7f }, 2 },
		{ 16384, { 0x80, 0x80, 0x01 }, 3 },
		{ 1ULL << 63, { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 }, 10 },
		{ UINT64_MAX, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 }, 10 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct pb_buf pb = PB_BUF_INIT;

		cr_assert_eq(pb_put_varint(&pb, cases[i].v), 0);
		assert_bytes(&pb, cases[i].bytes, cases[i].len);
		cr_assert_eq(pb_varint_size(cases[i].v), cases[i].len, "size of %" PRIu64, cases[i].v);
		pb_release(&pb);
	}
}

Test(protobuf, varint_round_trip)
{
	struct pb_buf pb = PB_BUF_INIT;
	uint64_t values[200];
	const uint8_t *p, *end;
	size_t n = 0;

	/* every length from 1 to 10 bytes, on both sides of each boundary */
	for (int bits = 0; bits <= 64; bits += 7) {
		uint64_t edge = bits == 63 ? 1ULL << 63 : bits ? (1ULL << bits) : 0;

		values[n++] = edge;
		if (edge)
			values[n++] = edge - 1;
		values[n++] = edge + 1;
	}
	values[n++] = UINT64_MAX;
	values[n++] = 0x0123456789abcdefULL;
	for (size_t i = 0; i < n; i++)
		pb_put_varint(&pb, values[i]);
	cr_assert_eq(pb.err, 0);

	p = pb.data;
	end = pb.data + pb.len;
	for (size_t i = 0; i < n; i++) {
		uint64_t v;

		cr_assert(pbd_varint(&p, end, &v));
		cr_assert_eq(v, values[i], "value %zu: %" PRIu64 ", want %" PRIu64, i, v, values[i]);
	}
	cr_assert_eq(p, end, "trailing bytes");
	pb_release(&pb);
}

Test(protobuf, negative_int64_is_ten_bytes_twos_complement)
{
	static const uint8_t minus_one[] = {
		0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
	};
	struct pb_buf pb = PB_BUF_INIT;
	struct pbd_field f;
	const uint8_t *p;
	int64_t values[] = { -1, -2, INT64_MIN, INT64_MAX, -150 };

	pb_put_int64(&pb, 1, -1);
	assert_bytes(&pb, minus_one, sizeof(minus_one));
	pb_release(&pb);

	for (size_t i = 0; i < ARRAY_SIZE(values); i++)
		pb_put_int64(&pb, 7, values[i]);
	p = pb.data;
	for (size_t i = 0; i < ARRAY_SIZE(values); i++) {
		cr_assert_eq(pbd_next(&p, pb.data + pb.len, &f), 1);
		cr_assert_eq(f.field, 7);
		cr_assert_eq(f.wire, 0);
		cr_assert_eq((int64_t)f.v, values[i]);
	}
	cr_assert_eq(pbd_next(&p, pb.data + pb.len, &f), 0);
	pb_release(&pb);
}

Test(protobuf, sint64_is_zigzag)
{
	static const struct {
		int64_t v;
		uint64_t zz;
	} cases[] = {
		{ 0, 0 }, { -1, 1 }, { 1, 2 }, { -2, 3 }, { 2147483647, 4294967294ULL },
		{ -2147483648LL, 4294967295ULL }, { INT64_MAX, UINT64_MAX - 1 }, { INT64_MIN, UINT64_MAX },
	};
	struct pb_buf pb = PB_BUF_INIT;
	struct pbd_field f;
	const uint8_t *p;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		cr_assert_eq(pb_zigzag64(cases[i].v), cases[i].zz, "zigzag(%" PRId64 ")", cases[i].v);
		pb_put_sint64(&pb, 2, cases[i].v);
	}
	p = pb.data;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		cr_assert_eq(pbd_next(&p, pb.data + pb.len, &f), 1);
		cr_assert_eq(f.v, cases[i].zz);
	}
	pb_release(&pb);
}

/* The examples of protobuf.dev/programming-guides/encoding, byte for byte. */
Test(protobuf, specification_examples)
{
	static const uint8_t test1[] = { 0x08, 0x96, 0x01 };
	static const uint8_t test2[] = { 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g' };
	static const uint8_t test3[] = { 0x1a, 0x03, 0x08, 0x96, 0x01 };
	static const uint8_t test5[] = { 0x32, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05 };
	static const uint64_t packed[] = { 3, 270, 86942 };
	struct pb_buf pb = PB_BUF_INIT;
	size_t start;

	pb_put_uint64(&pb, 1, 150);
	assert_bytes(&pb, test1, sizeof(test1));
	pb_release(&pb);

	pb_put_string(&pb, 2, "testing");
	assert_bytes(&pb, test2, sizeof(test2));
	pb_release(&pb);

	start = pb_begin(&pb);
	pb_put_uint64(&pb, 1, 150);
	cr_assert_eq(pb_end(&pb, 3, start), 0);
	assert_bytes(&pb, test3, sizeof(test3));
	pb_release(&pb);

	pb_put_packed_uint64(&pb, 6, packed, ARRAY_SIZE(packed));
	assert_bytes(&pb, test5, sizeof(test5));
	pb_release(&pb);
}

/* Decode the message built by nested_message(). */
static void check_nested(const uint8_t *p, const uint8_t *end, int depth, size_t filler)
{
	struct pbd_field f;
	bool seen_id = false, seen_name = false, seen_child = false, seen_filler = false;

	while (pbd_next(&p, end, &f)) {
		switch (f.field) {
		case 1:
			cr_assert_eq(f.v, (uint64_t)depth * 1000);
			seen_id = true;
			break;
		case 2:
			cr_assert_eq(f.len, 5);
			cr_assert(!memcmp(f.data, "depth", 5));
			seen_name = true;
			break;
		case 3:
			cr_assert_eq(f.len, filler);
			for (size_t i = 0; i < f.len; i++)
				cr_assert_eq(f.data[i], (uint8_t)i);
			seen_filler = true;
			break;
		case 4:
			check_nested(f.data, f.data + f.len, depth + 1, filler);
			seen_child = true;
			break;
		default:
			cr_assert_fail("unexpected field %u", f.field);
		}
	}
	cr_assert(seen_id && seen_name && seen_filler);
	cr_assert_eq(seen_child, depth < 4, "depth %d", depth);
}

static void nested_message(struct pb_buf *pb, int depth, size_t filler)
{
	uint8_t bytes[20000];
	size_t start;

	for (size_t i = 0; i < filler; i++)
		bytes[i] = (uint8_t)i;
	pb_put_uint64(pb, 1, (uint64_t)depth * 1000);
	if (depth < 4) {
		start = pb_begin(pb);
		nested_message(pb, depth + 1, filler);
		pb_end(pb, 4, start);
	}
	pb_put_string(pb, 2, "depth");
	pb_put_bytes(pb, 3, bytes, filler);
}

/* Bodies of under 128 bytes, over 127 and over 16383 take 1, 2 and 3 length bytes. */
Test(protobuf, nested_messages_round_trip)
{
	static const size_t fillers[] = { 0, 10, 130, 5000 };

	for (size_t i = 0; i < ARRAY_SIZE(fillers); i++) {
		struct pb_buf pb = PB_BUF_INIT;
		size_t start = pb_begin(&pb);

		nested_message(&pb, 1, fillers[i]);
		cr_assert_eq(pb_end(&pb, 9, start), 0);
		/* one field 9 holding the whole tree */
		{
			const uint8_t *p = pb.data;
			struct pbd_field f;

			cr_assert_eq(pbd_next(&p, pb.data + pb.len, &f), 1);
			cr_assert_eq(f.field, 9);
			cr_assert_eq(f.wire, 2);
			cr_assert_eq(p, pb.data + pb.len);
			check_nested(f.data, f.data + f.len, 1, fillers[i]);
		}
		pb_release(&pb);
	}
}

Test(protobuf, empty_nested_message_and_packed_field)
{
	static const uint8_t want[] = { 0x2a, 0x00 };
	struct pb_buf pb = PB_BUF_INIT;
	size_t start = pb_begin(&pb);

	/* nothing is written for an empty packed field, the message is empty */
	pb_put_packed_uint64(&pb, 1, NULL, 0);
	pb_end(&pb, 5, start);
	assert_bytes(&pb, want, sizeof(want));
	pb_release(&pb);
}

Test(protobuf, packed_int64_round_trip)
{
	static const int64_t v[] = { 0, -1, 1, INT64_MIN, INT64_MAX, 300 };
	struct pb_buf pb = PB_BUF_INIT;
	uint64_t got[16];
	size_t n = 0;
	struct pbd_field f;
	const uint8_t *p;

	pb_put_packed_int64(&pb, 2, v, ARRAY_SIZE(v));
	p = pb.data;
	cr_assert_eq(pbd_next(&p, pb.data + pb.len, &f), 1);
	cr_assert_eq(f.wire, 2);
	pbd_repeated(&f, got, &n, ARRAY_SIZE(got));
	cr_assert_eq(n, ARRAY_SIZE(v));
	for (size_t i = 0; i < n; i++)
		cr_assert_eq((int64_t)got[i], v[i]);
	pb_release(&pb);
}

Test(protobuf, invalid_field_number_is_a_sticky_error)
{
	struct pb_buf pb = PB_BUF_INIT;

	cr_assert_eq(pb_put_uint64(&pb, 0, 1), -EINVAL);
	/* later calls change nothing and report the first error */
	cr_assert_eq(pb_put_uint64(&pb, 1, 1), -EINVAL);
	cr_assert_eq(pb.len, 0);
	pb_release(&pb);

	cr_assert_eq(pb_put_uint64(&pb, 1U << 29, 1), -EINVAL);
	pb_release(&pb);
	cr_assert_eq(pb_put_uint64(&pb, (1U << 29) - 1, 1), 0);
	pb_release(&pb);
	cr_assert_eq(pb_end(&pb, 1, 5), -EINVAL, "a start past the end");
	pb_release(&pb);
}

/* What protoc, which has its own decoder, makes of our bytes. */
static char *protoc_decode_raw(const struct pb_buf *pb)
{
	char *dir = make_tmpdir(), *in = path_in(dir, "msg.bin"), cmd[8192], *text = NULL;
	size_t len = 0, n;
	char chunk[4096];
	FILE *p, *mem;

	write_bytes(in, pb->data, pb->len);
	snprintf(cmd, sizeof(cmd), "protoc --decode_raw < '%s'", in);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	mem = open_memstream(&text, &len);
	cr_assert_not_null(mem);
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		fwrite(chunk, 1, n, mem);
	cr_assert_eq(pclose(p), 0, "protoc --decode_raw failed (is protobuf-compiler installed?)");
	fclose(mem);
	free(in);
	rm_rf(dir);
	return text;
}

Test(protobuf, protoc_reads_what_we_write)
{
	struct pb_buf pb = PB_BUF_INIT;
	size_t outer, inner;
	char *text;
	const char *want =
		"1: 150\n"
		"2: \"testing\"\n"
		"3 {\n"
		"  1: 0\n"
		"  2: 18446744073709551615\n"
		"  3 {\n"
		"    4: 9223372036854775808\n"
		"  }\n"
		"}\n"
		"5: 1\n";

	pb_put_uint64(&pb, 1, 150);
	pb_put_string(&pb, 2, "testing");
	outer = pb_begin(&pb);
	pb_put_uint64(&pb, 1, 0);
	pb_put_int64(&pb, 2, -1);
	inner = pb_begin(&pb);
	pb_put_uint64(&pb, 4, 1ULL << 63);
	pb_end(&pb, 3, inner);
	pb_end(&pb, 3, outer);
	pb_put_bool(&pb, 5, true);
	cr_assert_eq(pb.err, 0);

	text = protoc_decode_raw(&pb);
	cr_assert_str_eq(text, want, "\n--- protoc:\n%s--- want:\n%s", text, want);
	free(text);
	pb_release(&pb);
}
