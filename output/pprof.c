// SPDX-License-Identifier: GPL-2.0
/*
 * pprof.c - the pprof writer: intern strings, mappings, functions and
 * locations while encoding the samples, then the tables they refer to,
 * then gzip the whole message onto the stream.
 *
 * Field numbers are those of github.com/google/pprof/proto/profile.proto.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "keymap.h"
#include "pprof.h"
#include "trace_helpers.h"
#include "protobuf.h"

enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13,

	VALUE_TYPE_TYPE = 1,
	VALUE_TYPE_UNIT = 2,

	SAMPLE_LOCATION_ID = 1,
	SAMPLE_VALUE = 2,
	SAMPLE_LABEL = 3,

	LABEL_KEY = 1,
	LABEL_STR = 2,
	LABEL_NUM = 3,

	MAPPING_ID = 1,
	MAPPING_FILENAME = 5,
	MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7,

	LOCATION_ID = 1,
	LOCATION_MAPPING_ID = 2,
	LOCATION_ADDRESS = 3,
	LOCATION_LINE = 4,

	LINE_FUNCTION_ID = 1,

	FUNCTION_ID = 1,
	FUNCTION_NAME = 2,
	FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4,
};

/* perf's name for the kernel image; pprof leaves "[...]" files alone. */
#define KERNEL_MAPPING "[kernel.kallsyms]"

#define GZIP_WINDOW_BITS 31	/* 15 (32 KiB window) + 16: gzip wrapper */
#define GZIP_CHUNK 65536

struct pprof_location {
	uint64_t mapping_id;	/* 0: no mapping */
	uint64_t addr;
	uint64_t function_id;
};

struct pprof_function {
	int64_t name;		/* string table indices */
	int64_t filename;
};

struct pprof_mapping {
	int64_t filename;
	int64_t build_id;	/* 0 ("") until a frame tells it */
};

struct pprof_builder {
	struct pb_buf pb;
	struct keymap *strings, *locations, *functions, *mappings;
	struct pprof_location *loc;
	size_t cap_loc;
	struct pprof_function *func;
	size_t cap_func;
	struct pprof_mapping *map;
	size_t cap_map;
	uint64_t *ids;		/* the location ids of the sample being written */
	size_t cap_ids;
	struct key key;
};

static int builder__init(struct pprof_builder *b)
{
	size_t idx;

	memset(b, 0, sizeof(*b));
	pb_init(&b->pb);
	b->strings = keymap__new();
	b->locations = keymap__new();
	b->functions = keymap__new();
	b->mappings = keymap__new();
	if (!b->strings || !b->locations || !b->functions || !b->mappings)
		return -ENOMEM;
	/* the string table starts with "" */
	return keymap__intern(b->strings, "", 0, &idx) < 0 ? -ENOMEM : 0;
}

static void builder__release(struct pprof_builder *b)
{
	pb_release(&b->pb);
	keymap__free(b->strings);
	keymap__free(b->locations);
	keymap__free(b->functions);
	keymap__free(b->mappings);
	free(b->loc);
	free(b->func);
	free(b->map);
	free(b->ids);
	key__release(&b->key);
}

/* The string table index of s, added if new; -ENOMEM. */
static int64_t builder__str(struct pprof_builder *b, const char *s)
{
	size_t idx;

	if (keymap__intern(b->strings, s, strlen(s), &idx) < 0)
		return -ENOMEM;
	return (int64_t)idx;
}

/* The mapping id of the module f is in; 0 when not known. */
static int64_t builder__mapping(struct pprof_builder *b, const struct pf_frame *f)
{
	const char *file = f->kernel ? KERNEL_MAPPING : f->module;
	/* a kernel module's build-id is not the kernel image's */
	bool own_build_id = f->build_id && (!f->kernel || !f->module);
	int64_t name;
	size_t idx;
	int ret;

	if (!file)
		return 0;
	ret = keymap__intern(b->mappings, file, strlen(file), &idx);
	if (ret < 0)
		return -ENOMEM;
	if (ret > 0) {
		if (array_reserve((void **)&b->map, &b->cap_map, idx, sizeof(*b->map)))
			return -ENOMEM;
		if ((name = builder__str(b, file)) < 0)
			return name;
		b->map[idx] = (struct pprof_mapping){ .filename = name };
	}
	if (own_build_id && !b->map[idx].build_id) {
		int64_t id = builder__str(b, f->build_id);

		if (id < 0)
			return id;
		b->map[idx].build_id = id;
	}
	return (int64_t)idx + 1;
}

/* The file a frame's function is in: its module, or the kernel. */
static const char *frame_file(const struct pf_frame *f)
{
	if (f->module)
		return f->module;
	return f->kernel ? KERNEL_MAPPING : "";
}

static int64_t builder__function(struct pprof_builder *b, const struct pf_frame *f)
{
	const char *file = frame_file(f);
	int64_t name, filename;
	size_t idx;
	int ret;

	key__reset(&b->key);
	key__add_str(&b->key, f->name);
	key__add_str(&b->key, file);
	if (b->key.err)
		return b->key.err;
	ret = keymap__intern(b->functions, b->key.buf, b->key.len, &idx);
	if (ret < 0)
		return ret;
	if (ret > 0) {
		if (array_reserve((void **)&b->func, &b->cap_func, idx, sizeof(*b->func)))
			return -ENOMEM;
		if ((name = builder__str(b, f->name)) < 0 ||
		    (filename = builder__str(b, file)) < 0)
			return -ENOMEM;
		b->func[idx] = (struct pprof_function){ .name = name, .filename = filename };
	}
	return (int64_t)idx + 1;
}

/*
 * The location id of a frame. The name is part of the key with the module
 * and address: the same address in the same path can be different code in
 * two processes (a binary replaced in between), and a Location has one
 * function. Markers have address 0, so they are told apart by name.
 */
static int64_t builder__location(struct pprof_builder *b, const struct pf_frame *f)
{
	int64_t mapping_id, function_id;
	size_t idx;
	int ret;

	key__reset(&b->key);
	key__add_u64(&b->key, f->kernel);
	key__add_str(&b->key, f->module);
	key__add_u64(&b->key, f->addr);
	key__add_str(&b->key, f->name);
	if (b->key.err)
		return b->key.err;
	ret = keymap__intern(b->locations, b->key.buf, b->key.len, &idx);
	if (ret < 0)
		return ret;
	if (ret > 0) {
		if (array_reserve((void **)&b->loc, &b->cap_loc, idx, sizeof(*b->loc)))
			return -ENOMEM;
		/* the key buffer is reused below: it was copied into the map */
		if ((mapping_id = builder__mapping(b, f)) < 0)
			return mapping_id;
		if ((function_id = builder__function(b, f)) < 0)
			return function_id;
		b->loc[idx] = (struct pprof_location){
			.mapping_id = (uint64_t)mapping_id,
			.addr = f->addr,
			.function_id = (uint64_t)function_id,
		};
	}
	return (int64_t)idx + 1;
}

static int builder__value_type(struct pprof_builder *b, uint32_t field,
			       const char *type, const char *unit)
{
	int64_t t = builder__str(b, type), u = builder__str(b, unit);
	size_t start;

	if (t < 0 || u < 0)
		return -ENOMEM;
	start = pb_begin(&b->pb);
	pb_put_int64(&b->pb, VALUE_TYPE_TYPE, t);
	pb_put_int64(&b->pb, VALUE_TYPE_UNIT, u);
	return pb_end(&b->pb, field, start);
}

static int builder__label(struct pprof_builder *b, const char *key, const char *str, int64_t num)
{
	int64_t k = builder__str(b, key), s = str ? builder__str(b, str) : 0;
	size_t start;

	if (k < 0 || s < 0)
		return -ENOMEM;
	start = pb_begin(&b->pb);
	pb_put_int64(&b->pb, LABEL_KEY, k);
	/* a label has either a string or a number, never both */
	if (str)
		pb_put_int64(&b->pb, LABEL_STR, s);
	else
		pb_put_int64(&b->pb, LABEL_NUM, num);
	return pb_end(&b->pb, SAMPLE_LABEL, start);
}

static int64_t mul_sat(uint64_t a, uint64_t b)
{
	if (b && a > (uint64_t)INT64_MAX / b)
		return INT64_MAX;
	return (int64_t)(a * b);
}

static int builder__sample(struct pprof_builder *b, const struct pf_profile *p,
			   const struct pf_sample *s, int64_t period)
{
	int64_t values[2] = { mul_sat(s->count, 1), mul_sat(s->count, (uint64_t)period) };
	size_t start;
	int err;

	if (s->nr_frames && array_reserve((void **)&b->ids, &b->cap_ids, s->nr_frames - 1, sizeof(*b->ids)))
		return -ENOMEM;
	/* pf_sample is root first, pprof leaf first */
	for (size_t i = 0; i < s->nr_frames; i++) {
		int64_t id = builder__location(b, &s->frames[s->nr_frames - 1 - i]);

		if (id < 0)
			return (int)id;
		b->ids[i] = (uint64_t)id;
	}
	start = pb_begin(&b->pb);
	pb_put_packed_uint64(&b->pb, SAMPLE_LOCATION_ID, b->ids, s->nr_frames);
	pb_put_packed_int64(&b->pb, SAMPLE_VALUE, values, 2);
	if ((err = builder__label(b, "pid", NULL, s->pid)))
		return err;
	if (p->per_thread && (err = builder__label(b, "tid", NULL, s->tid)))
		return err;
	if ((err = builder__label(b, "comm", s->comm ? s->comm : "", 0)))
		return err;
	return pb_end(&b->pb, PROFILE_SAMPLE, start);
}

static int builder__tables(struct pprof_builder *b)
{
	size_t start, start2;

	for (size_t i = 0; i < keymap__count(b->mappings); i++) {
		start = pb_begin(&b->pb);
		pb_put_uint64(&b->pb, MAPPING_ID, i + 1);
		pb_put_int64(&b->pb, MAPPING_FILENAME, b->map[i].filename);
		if (b->map[i].build_id)
			pb_put_int64(&b->pb, MAPPING_BUILD_ID, b->map[i].build_id);
		pb_put_bool(&b->pb, MAPPING_HAS_FUNCTIONS, true);
		pb_end(&b->pb, PROFILE_MAPPING, start);
	}
	for (size_t i = 0; i < keymap__count(b->locations); i++) {
		start = pb_begin(&b->pb);
		pb_put_uint64(&b->pb, LOCATION_ID, i + 1);
		if (b->loc[i].mapping_id)
			pb_put_uint64(&b->pb, LOCATION_MAPPING_ID, b->loc[i].mapping_id);
		if (b->loc[i].addr)
			pb_put_uint64(&b->pb, LOCATION_ADDRESS, b->loc[i].addr);
		start2 = pb_begin(&b->pb);
		pb_put_uint64(&b->pb, LINE_FUNCTION_ID, b->loc[i].function_id);
		pb_end(&b->pb, LOCATION_LINE, start2);
		pb_end(&b->pb, PROFILE_LOCATION, start);
	}
	for (size_t i = 0; i < keymap__count(b->functions); i++) {
		start = pb_begin(&b->pb);
		pb_put_uint64(&b->pb, FUNCTION_ID, i + 1);
		pb_put_int64(&b->pb, FUNCTION_NAME, b->func[i].name);
		/* we only have one name: nothing is demangled */
		pb_put_int64(&b->pb, FUNCTION_SYSTEM_NAME, b->func[i].name);
		pb_put_int64(&b->pb, FUNCTION_FILENAME, b->func[i].filename);
		pb_end(&b->pb, PROFILE_FUNCTION, start);
	}
	return b->pb.err;
}

/* The second sample type, and what one sample weighs in it. */
static int sample_unit(const struct pf_profile *p, const char **type, const char **unit,
		       int64_t *period)
{
	if (p->frequency > 0) {
		*type = "cpu";
		*unit = "nanoseconds";
		*period = 1000000000L / p->frequency;
		if (!*period)
			*period = 1;
	} else if (p->period > 0) {
		/* cpu-clock counts nanoseconds; hardware events count events */
		if (p->event && !strcmp(p->event, "cpu-clock")) {
			*type = "cpu";
			*unit = "nanoseconds";
		} else {
			*type = p->event && *p->event ? p->event : "events";
			*unit = "count";
		}
		*period = p->period;
	} else {
		return -EINVAL;
	}
	return 0;
}

static int builder__profile(struct pprof_builder *b, const struct pf_profile *p)
{
	const char *type, *unit;
	int64_t period, title;
	int err;

	if ((err = sample_unit(p, &type, &unit, &period)))
		return err;
	if ((err = builder__value_type(b, PROFILE_SAMPLE_TYPE, "samples", "count")) ||
	    (err = builder__value_type(b, PROFILE_SAMPLE_TYPE, type, unit)))
		return err;
	for (size_t i = 0; i < p->nr_samples; i++) {
		if ((err = builder__sample(b, p, &p->samples[i], period)))
			return err;
	}
	if ((err = builder__tables(b)))
		return err;
	pb_put_int64(&b->pb, PROFILE_TIME_NANOS, (int64_t)p->start_ns);
	pb_put_int64(&b->pb, PROFILE_DURATION_NANOS, (int64_t)p->duration_ns);
	if ((err = builder__value_type(b, PROFILE_PERIOD_TYPE, type, unit)))
		return err;
	pb_put_int64(&b->pb, PROFILE_PERIOD, period);
	if (p->title && *p->title) {
		if ((title = builder__str(b, p->title)) < 0)
			return -ENOMEM;
		pb_put_int64(&b->pb, PROFILE_COMMENT, title);
	}
	/* last: everything above added its strings */
	for (size_t i = 0; i < keymap__count(b->strings); i++) {
		size_t len;
		const char *s = keymap__key(b->strings, i, &len);

		pb_put_bytes(&b->pb, PROFILE_STRING_TABLE, s, len);
	}
	return b->pb.err;
}

static int write_all(FILE *out, const void *data, size_t len)
{
	errno = 0;
	if (fwrite(data, 1, len, out) != len)
		return errno ? -errno : -EIO;
	return 0;
}

/* data as one gzip member onto out. */
static int gzip_write(const uint8_t *data, size_t len, FILE *out)
{
	unsigned char chunk[GZIP_CHUNK];
	z_stream zs = { 0 };
	int ret, err = 0;

	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, GZIP_WINDOW_BITS, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	zs.next_in = (unsigned char *)data;
	do {
		/* avail_in is 32 bits: feed larger buffers in slices */
		size_t in = len > UINT_MAX ? UINT_MAX : len;
		int flush = in == len ? Z_FINISH : Z_NO_FLUSH;

		zs.avail_in = (uInt)in;
		do {
			zs.next_out = chunk;
			zs.avail_out = sizeof(chunk);
			ret = deflate(&zs, flush);
			if (ret == Z_STREAM_ERROR) {
				err = -EINVAL;
				goto out;
			}
			err = write_all(out, chunk, sizeof(chunk) - zs.avail_out);
			if (err)
				goto out;
		} while (zs.avail_out == 0);
		len -= in;
	} while (len);
	if (ret != Z_STREAM_END)
		err = -EIO;
out:
	deflateEnd(&zs);
	return err;
}

int pprof__write(const struct pf_profile *p, FILE *out)
{
	struct pprof_builder b;
	int err;

	err = builder__init(&b);
	if (!err)
		err = builder__profile(&b, p);
	if (!err)
		err = gzip_write(b.pb.data, b.pb.len, out);
	builder__release(&b);
	return err;
}
