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

#include "common/escape.h"
#include "output/keymap.h"
#include "output/pprof.h"
#include "trace_helpers.h"
#include "output/protobuf.h"

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
	LINE_LINE = 2,

	FUNCTION_ID = 1,
	FUNCTION_NAME = 2,
	FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4,
	FUNCTION_START_LINE = 5,
};

#define GZIP_WINDOW_BITS 31	/* 15 (32 KiB window) + 16: gzip wrapper */
#define GZIP_CHUNK 65536

struct pprof_location {
	uint64_t mapping_id;	/* 0: no mapping */
	uint64_t addr;
	uint64_t function_id;
	int64_t line;		/* 0: not known */
};

struct pprof_function {
	int64_t name;		/* string table indices */
	int64_t filename;
	int64_t start_line;	/* 0: not known */
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

/* The string table index of s, added if new, in *idx; 0 or -ENOMEM. */
static int builder__str(struct pprof_builder *b, const char *s, int64_t *idx)
{
	size_t i;
	int ret = keymap__intern(b->strings, s, strlen(s), &i);

	if (ret < 0)
		return ret;
	*idx = (int64_t)i;
	return 0;
}

/*
 * The id of the mapping of the module f is in, 0 when not known, in *id;
 * 0 or -ENOMEM. All kernel frames are in the kernel image's.
 */
static int builder__mapping(struct pprof_builder *b, const struct pf_frame *f, uint64_t *id)
{
	const char *file = f->kernel ? PF_KERNEL_IMAGE : f->module;
	/* a kernel module's build-id is not the kernel image's */
	bool own_build_id = f->build_id && (!f->kernel || !f->module);
	size_t idx;
	int ret;

	*id = 0;
	if (!file)
		return 0;
	ret = keymap__intern(b->mappings, file, strlen(file), &idx);
	if (ret < 0)
		return ret;
	if (ret > 0) {
		if (array_reserve((void **)&b->map, &b->cap_map, idx, sizeof(*b->map)))
			return -ENOMEM;
		b->map[idx] = (struct pprof_mapping){ 0 };
		if ((ret = builder__str(b, file, &b->map[idx].filename)))
			return ret;
	}
	if (own_build_id && !b->map[idx].build_id &&
	    (ret = builder__str(b, f->build_id, &b->map[idx].build_id)))
		return ret;
	*id = idx + 1;
	return 0;
}

/*
 * The id of f's function (name, file and first line) in *id; 0 or
 * -ENOMEM. A Python frame's function is its name alone, in its source
 * file.
 */
static int builder__function(struct pprof_builder *b, const struct pf_frame *f, uint64_t *id)
{
	const char *file = pf_frame__file(f), *name = f->func ? f->func : f->name;
	struct pprof_function *fn;
	size_t idx;
	int ret;

	key__reset(&b->key);
	key__add_str(&b->key, name);
	key__add_str(&b->key, file);
	key__add_u64(&b->key, (uint64_t)f->start_line);
	ret = keymap__intern_key(b->functions, &b->key, &idx);
	if (ret < 0)
		return ret;
	if (ret > 0) {
		if (array_reserve((void **)&b->func, &b->cap_func, idx, sizeof(*b->func)))
			return -ENOMEM;
		fn = &b->func[idx];
		fn->start_line = f->start_line;
		if ((ret = builder__str(b, name, &fn->name)) ||
		    (ret = builder__str(b, file ? file : "", &fn->filename)))
			return ret;
	}
	*id = idx + 1;
	return 0;
}

/*
 * The location id of a frame in *id; 0 or -ENOMEM. The name is part of
 * the key with the module and address: the same address in the same path
 * can be different code in two processes (a binary replaced in between),
 * and a Location has one function. Markers have address 0, so they are
 * told apart by name.
 */
static int builder__location(struct pprof_builder *b, const struct pf_frame *f, uint64_t *id)
{
	struct pprof_location *loc;
	size_t idx;
	int ret;

	key__reset(&b->key);
	key__add_u64(&b->key, f->kernel);
	key__add_str(&b->key, f->module);
	key__add_u64(&b->key, f->addr);
	key__add_str(&b->key, f->name);
	key__add_u64(&b->key, (uint64_t)f->start_line);
	key__add_u64(&b->key, (uint64_t)f->line);
	ret = keymap__intern_key(b->locations, &b->key, &idx);
	if (ret < 0)
		return ret;
	if (ret > 0) {
		if (array_reserve((void **)&b->loc, &b->cap_loc, idx, sizeof(*b->loc)))
			return -ENOMEM;
		loc = &b->loc[idx];
		loc->addr = f->addr;
		loc->line = f->line;
		/* the key buffer is reused below: it was copied into the map */
		if ((ret = builder__mapping(b, f, &loc->mapping_id)) ||
		    (ret = builder__function(b, f, &loc->function_id)))
			return ret;
	}
	*id = idx + 1;
	return 0;
}

static int builder__value_type(struct pprof_builder *b, uint32_t field,
			       const char *type, const char *unit)
{
	int64_t t, u;
	size_t start;
	int err;

	if ((err = builder__str(b, type, &t)) || (err = builder__str(b, unit, &u)))
		return err;
	start = pb_begin(&b->pb);
	pb_put_int64(&b->pb, VALUE_TYPE_TYPE, t);
	pb_put_int64(&b->pb, VALUE_TYPE_UNIT, u);
	return pb_end(&b->pb, field, start);
}

static int builder__label(struct pprof_builder *b, const char *key, const char *str, int64_t num)
{
	int64_t k, s = 0;
	size_t start;
	int err;

	if ((err = builder__str(b, key, &k)) || (str && (err = builder__str(b, str, &s))))
		return err;
	start = pb_begin(&b->pb);
	pb_put_int64(&b->pb, LABEL_KEY, k);
	/* a label has either a string or a number, never both */
	if (str)
		pb_put_int64(&b->pb, LABEL_STR, s);
	else
		pb_put_int64(&b->pb, LABEL_NUM, num);
	return pb_end(&b->pb, SAMPLE_LABEL, start);
}

/* pprof's values are int64: saturated there too. */
static int64_t to_int64(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

static int builder__sample(struct pprof_builder *b, const struct pf_profile *p,
			   const struct pf_sample *s, uint64_t weight)
{
	int64_t values[2] = { to_int64(s->count), to_int64(pf_weigh(s->count, weight)) };
	/* counts only, or nanoseconds of a measure: one value */
	size_t nr_values = pf_profile__counts_only(p) || p->measure ? 1 : 2;
	size_t start;
	int err;

	if (s->nr_frames && array_reserve((void **)&b->ids, &b->cap_ids, s->nr_frames - 1, sizeof(*b->ids)))
		return -ENOMEM;
	/* pf_sample is root first, pprof leaf first */
	for (size_t i = 0; i < s->nr_frames; i++) {
		if ((err = builder__location(b, &s->frames[s->nr_frames - 1 - i], &b->ids[i])))
			return err;
	}
	start = pb_begin(&b->pb);
	pb_put_packed_uint64(&b->pb, SAMPLE_LOCATION_ID, b->ids, s->nr_frames);
	pb_put_packed_int64(&b->pb, SAMPLE_VALUE, values, nr_values);
	if ((err = builder__label(b, "pid", NULL, s->pid)))
		return err;
	if (p->per_thread && (err = builder__label(b, "tid", NULL, s->tid)))
		return err;
	if ((err = builder__label(b, "comm", s->comm ? s->comm : "", 0)))
		return err;
	if (s->container_id && (err = builder__label(b, "container_id", s->container_id, 0)))
		return err;
	if (s->cgroup && (err = builder__label(b, "cgroup", s->cgroup, 0)))
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
		if (b->loc[i].line)
			pb_put_int64(&b->pb, LINE_LINE, b->loc[i].line);
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
		if (b->func[i].start_line)
			pb_put_int64(&b->pb, FUNCTION_START_LINE, b->func[i].start_line);
		pb_end(&b->pb, PROFILE_FUNCTION, start);
	}
	return b->pb.err;
}

/*
 * The second sample type, [cpu, nanoseconds] when the samples measure time;
 * the only one, [off_cpu, nanoseconds] or [wall, nanoseconds], for a measure.
 */
static void sample_type(const struct pf_profile *p, bool in_ns, const char **type,
			const char **unit)
{
	if (p->measure) {
		*type = p->measure;
		*unit = "nanoseconds";
	} else if (in_ns) {
		*type = "cpu";
		*unit = "nanoseconds";
	} else {
		/* hardware events count events */
		*type = p->event && *p->event ? p->event : "events";
		*unit = "count";
	}
}

/*
 * The program the targets ran: the file of the root-most user frame of
 * every stack that starts in a program rather than in a shared library
 * (threads start in libc), when they all agree; NULL for the whole
 * system (even when one program's stacks were all it caught), or
 * processes of several programs.
 */
static const char *main_program(const struct pf_profile *p)
{
	const char *main = NULL;

	if (!p->of_targets)
		return NULL;
	for (size_t i = 0; i < p->nr_samples; i++) {
		const struct pf_sample *s = &p->samples[i];
		const char *file, *base;

		if (!s->nr_frames || s->frames[0].kernel)
			continue;
		file = s->frames[0].module;
		if (!file || file[0] != '/')
			continue;	/* "[vdso]", anonymous memory */
		base = strrchr(file, '/') + 1;
		if (strstr(base, ".so"))
			continue;
		if (main && strcmp(main, file))
			return NULL;
		main = file;
	}
	return main;
}

/*
 * Mapping 1 is the main program's (pprof's "File:"), or one of no file
 * when there is none: not the file of whichever frame came first, such
 * as the kernel image.
 */
static int builder__main_mapping(struct pprof_builder *b, const struct pf_profile *p)
{
	const struct pf_frame main = { .module = main_program(p) };
	uint64_t id;
	size_t idx;

	if (main.module)
		return builder__mapping(b, &main, &id);
	if (keymap__intern(b->mappings, "", 0, &idx) < 0 ||
	    array_reserve((void **)&b->map, &b->cap_map, idx, sizeof(*b->map)))
		return -ENOMEM;
	b->map[idx] = (struct pprof_mapping){ 0 };	/* filename "": string 0 */
	return 0;
}

static int builder__profile(struct pprof_builder *b, const struct pf_profile *p)
{
	const char *type, *unit;
	uint64_t weight;
	int64_t title;
	bool in_ns;
	int err;

	if ((err = pf_profile__sample_weight(p, &weight, &in_ns)))
		return err;
	sample_type(p, in_ns, &type, &unit);
	if (pf_profile__counts_only(p)) {
		type = "samples";
		unit = "count";
	}
	if ((err = builder__main_mapping(b, p)) ||
	    (!p->measure && (err = builder__value_type(b, PROFILE_SAMPLE_TYPE, "samples", "count"))) ||
	    (!pf_profile__counts_only(p) && (err = builder__value_type(b, PROFILE_SAMPLE_TYPE, type, unit))))
		return err;
	for (size_t i = 0; i < p->nr_samples; i++) {
		if ((err = builder__sample(b, p, &p->samples[i], weight)))
			return err;
	}
	if ((err = builder__tables(b)))
		return err;
	pb_put_int64(&b->pb, PROFILE_TIME_NANOS, (int64_t)p->start_ns);
	pb_put_int64(&b->pb, PROFILE_DURATION_NANOS, (int64_t)p->duration_ns);
	if ((err = builder__value_type(b, PROFILE_PERIOD_TYPE, type, unit)))
		return err;
	pb_put_int64(&b->pb, PROFILE_PERIOD, to_int64(weight));
	if (p->title && *p->title) {
		if ((err = builder__str(b, p->title, &title)))
			return err;
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

/* data as one gzip member onto out. */
static int gzip_write(const uint8_t *data, size_t len, FILE *out)
{
	unsigned char chunk[GZIP_CHUNK];
	struct sink sink = { .f = out };
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
			sink__write(&sink, chunk, sizeof(chunk) - zs.avail_out);
			if ((err = sink.err))
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
