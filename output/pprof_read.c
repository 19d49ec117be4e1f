// SPDX-License-Identifier: GPL-2.0
/*
 * pprof_read.c - a pprof file into a pf_build: gunzip within the budget,
 * read the tables (strings, mappings, functions, locations) in one pass,
 * sort them by id, then turn each sample into a stack. Every id and
 * string index the file holds is looked up, never trusted.
 *
 * Past 600 lines on purpose: one reader of one format, every function of
 * which works on one reading state (struct pp: the tables, the budget,
 * the error it reports); the checks that no id or index is trusted read best
 * in one place. The wire format itself is pb_read.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "output/pb_read.h"
#include "output/pprof_read.h"
#include "output/protobuf.h"
#include "trace_helpers.h"
#include "output/whole_read.h"

/* profile.proto's field numbers */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
	LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3,
	MAPPING_ID = 1, MAPPING_FILENAME = 5, MAPPING_BUILD_ID = 6,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1, LINE_LINE = 2,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_FILENAME = 4, FUNCTION_START_LINE = 5,
};

struct mapping {
	uint64_t id, filename, build_id;	/* string indices */
};

/* start_line and line are int64 on the wire: cast where used */
struct function {
	uint64_t id, name, filename, start_line;
};

struct line {
	uint64_t function_id, line;
};

struct location {
	uint64_t id, mapping_id, address;
	size_t first_line, nr_lines;	/* in pp.lines */
};

struct value_type {
	uint64_t type, unit;
};

struct pp {
	struct pf_build *b;
	struct pf_read_error *err;
	const uint8_t *msg;
	size_t len;
	struct pb_field *strings;	/* the string table's fields */
	const char **interned;		/* each string once interned, or NULL */
	size_t nr_strings, cap_strings;
	struct mapping *maps;
	size_t nr_maps, cap_maps;
	struct function *funcs;
	size_t nr_funcs, cap_funcs;
	struct location *locs;
	size_t nr_locs, cap_locs;
	struct line *lines;
	size_t nr_lines, cap_lines;
	struct value_type types[16];
	size_t nr_types;
	size_t table_bytes;		/* taken by the tables, of max_bytes */
	struct value_type period_type;
	int64_t period, time_ns, duration_ns;
	const char *measure;	/* the counts are ns of "off_cpu" or "wall" (ours); NULL: samples */
	/* one sample's */
	uint64_t *loc_ids;
	size_t nr_loc_ids, cap_loc_ids;
	int64_t *values;
	size_t nr_values, cap_values;
	struct pf_frame *frames;
	size_t cap_frames;
};

static int refuse(struct pp *pp, int ret, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int refuse(struct pp *pp, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pp->err->why, sizeof(pp->err->why), fmt, ap);
	va_end(ap);
	return ret;
}

/* pf_build refused what the file holds (ret, or errno of pf_build__str()): its words for why. */
static int build_failed(struct pp *pp, int ret)
{
	if (!ret)
		ret = errno == E2BIG ? -E2BIG : -ENOMEM;
	pf_build__why(pp->b, ret, pp->err->why, sizeof(pp->err->why));
	return ret;
}

static int malformed(struct pp *pp, const char *what)
{
	return refuse(pp, -EINVAL, "not a pprof profile: malformed %s", what);
}

/* String idx, interned: NULL when out of range (err set) or out of memory. */
static const char *string_at(struct pp *pp, uint64_t idx, int *ret)
{
	const struct pb_field *f;

	if (idx >= pp->nr_strings) {
		*ret = refuse(pp, -EINVAL, "string index %" PRIu64 " past the string table (%zu)", idx,
			      pp->nr_strings);
		return NULL;
	}
	if (pp->interned[idx])
		return pp->interned[idx];
	f = &pp->strings[idx];
	pp->interned[idx] = pf_build__str(pp->b, (const char *)f->data, f->len);
	if (!pp->interned[idx])
		*ret = build_failed(pp, 0);
	return pp->interned[idx];
}

static bool string_is(struct pp *pp, uint64_t idx, const char *s)
{
	return idx < pp->nr_strings && pp->strings[idx].len == strlen(s) &&
	       !memcmp(pp->strings[idx].data, s, pp->strings[idx].len);
}

/*
 * Room for entry nr of a table, its size counted against max_bytes with
 * the tables read so far: a file of empty entries takes many times its
 * size in memory. 0, or -E2BIG / -ENOMEM through refuse().
 */
static int table_entry(struct pp *pp, void **arr, size_t *cap, size_t nr, size_t elem, size_t cost)
{
	size_t max = pf_build__limits(pp->b)->max_bytes;

	if (cost > max || pp->table_bytes > max - cost)
		return refuse(pp, -E2BIG, "its tables take more than %zu MiB", max >> 20);
	pp->table_bytes += cost;
	if (array_reserve(arr, cap, nr, elem))
		return refuse(pp, -ENOMEM, "out of memory");
	return 0;
}

/*
 * The varint fields of message m: field nums[i] into *out[i], the last one
 * given winning; other fields are left alone. 0 or -EINVAL.
 */
static int read_varints(const struct pb_field *m, size_t n, const uint32_t *nums, uint64_t **out)
{
	struct pb_reader r = pb_reader(m->data, m->len);
	struct pb_field f;
	int ret;

	while ((ret = pb_read_field(&r, &f)) > 0) {
		for (size_t i = 0; i < n && f.wire == PB_WIRE_VARINT; i++)
			if (f.field == nums[i])
				*out[i] = f.v;
	}
	return ret;
}

static int read_value_type(const struct pb_field *m, struct value_type *vt)
{
	static const uint32_t nums[] = { VALUE_TYPE_TYPE, VALUE_TYPE_UNIT };

	*vt = (struct value_type){ 0 };
	return read_varints(m, 2, nums, (uint64_t *[]){ &vt->type, &vt->unit });
}

static int read_mapping(struct pp *pp, const struct pb_field *m)
{
	static const uint32_t nums[] = { MAPPING_ID, MAPPING_FILENAME, MAPPING_BUILD_ID };
	struct mapping *mp;
	int err;

	if ((err = table_entry(pp, (void **)&pp->maps, &pp->cap_maps, pp->nr_maps, sizeof(*mp), sizeof(*mp))))
		return err;
	mp = &pp->maps[pp->nr_maps++];
	*mp = (struct mapping){ 0 };
	if (read_varints(m, 3, nums, (uint64_t *[]){ &mp->id, &mp->filename, &mp->build_id }))
		return malformed(pp, "mapping");
	return 0;
}

static int read_function(struct pp *pp, const struct pb_field *m)
{
	static const uint32_t nums[] = { FUNCTION_ID, FUNCTION_NAME, FUNCTION_FILENAME, FUNCTION_START_LINE };
	struct function *fn;
	int err;

	if ((err = table_entry(pp, (void **)&pp->funcs, &pp->cap_funcs, pp->nr_funcs, sizeof(*fn), sizeof(*fn))))
		return err;
	fn = &pp->funcs[pp->nr_funcs++];
	*fn = (struct function){ 0 };
	if (read_varints(m, 4, nums, (uint64_t *[]){ &fn->id, &fn->name, &fn->filename, &fn->start_line }))
		return malformed(pp, "function");
	return 0;
}

static int read_line(struct pp *pp, const struct pb_field *m)
{
	static const uint32_t nums[] = { LINE_FUNCTION_ID, LINE_LINE };
	struct line *ln;
	int err;

	if ((err = table_entry(pp, (void **)&pp->lines, &pp->cap_lines, pp->nr_lines, sizeof(*ln), sizeof(*ln))))
		return err;
	ln = &pp->lines[pp->nr_lines++];
	*ln = (struct line){ 0 };
	if (read_varints(m, 2, nums, (uint64_t *[]){ &ln->function_id, &ln->line }))
		return malformed(pp, "line");
	return 0;
}

static int read_location(struct pp *pp, const struct pb_field *m)
{
	struct pb_reader r = pb_reader(m->data, m->len);
	struct location loc = { .first_line = pp->nr_lines };
	struct pb_field f;
	int n, err;

	while ((n = pb_read_field(&r, &f)) > 0) {
		if (f.field == LOCATION_LINE && f.wire == PB_WIRE_LEN) {
			if ((err = read_line(pp, &f)))
				return err;
			loc.nr_lines++;
		} else if (f.wire == PB_WIRE_VARINT) {
			if (f.field == LOCATION_ID)
				loc.id = f.v;
			else if (f.field == LOCATION_MAPPING_ID)
				loc.mapping_id = f.v;
			else if (f.field == LOCATION_ADDRESS)
				loc.address = f.v;
		}
	}
	if (n)
		return malformed(pp, "location");
	if ((err = table_entry(pp, (void **)&pp->locs, &pp->cap_locs, pp->nr_locs, sizeof(loc), sizeof(loc))))
		return err;
	pp->locs[pp->nr_locs++] = loc;
	return 0;
}

/* The tables, in one pass over the message; samples are for later. */
static int read_tables(struct pp *pp)
{
	struct pb_reader r = pb_reader(pp->msg, pp->len);
	struct pb_field f;
	int n, err = 0;

	while (!err && (n = pb_read_field(&r, &f)) > 0) {
		bool len = f.wire == PB_WIRE_LEN, var = f.wire == PB_WIRE_VARINT;

		if (f.field == PROFILE_STRING_TABLE && len) {
			/* and its interned pointer */
			if ((err = table_entry(pp, (void **)&pp->strings, &pp->cap_strings, pp->nr_strings,
					       sizeof(*pp->strings), sizeof(*pp->strings) + sizeof(*pp->interned))))
				return err;
			pp->strings[pp->nr_strings++] = f;
		} else if (f.field == PROFILE_SAMPLE_TYPE && len) {
			if (pp->nr_types == sizeof(pp->types) / sizeof(pp->types[0]))
				return refuse(pp, -E2BIG, "more than %zu sample types", pp->nr_types);
			if (read_value_type(&f, &pp->types[pp->nr_types++]))
				return malformed(pp, "sample type");
		} else if (f.field == PROFILE_PERIOD_TYPE && len) {
			if (read_value_type(&f, &pp->period_type))
				return malformed(pp, "period type");
		} else if (f.field == PROFILE_MAPPING && len) {
			err = read_mapping(pp, &f);
		} else if (f.field == PROFILE_LOCATION && len) {
			err = read_location(pp, &f);
		} else if (f.field == PROFILE_FUNCTION && len) {
			err = read_function(pp, &f);
		} else if (f.field == PROFILE_PERIOD && var) {
			pp->period = (int64_t)f.v;
		} else if (f.field == PROFILE_TIME_NANOS && var) {
			pp->time_ns = (int64_t)f.v;
		} else if (f.field == PROFILE_DURATION_NANOS && var) {
			pp->duration_ns = (int64_t)f.v;
		}
	}
	if (err == -ENOMEM)
		return refuse(pp, -ENOMEM, "out of memory");
	if (err)
		return err;
	if (n)
		return malformed(pp, "message");
	pp->interned = calloc(pp->nr_strings ? pp->nr_strings : 1, sizeof(*pp->interned));
	return pp->interned ? 0 : refuse(pp, -ENOMEM, "out of memory");
}

/* The tables sorted by id, for bsearch; ids are the first member of each. */
static int by_id(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* An empty table is NULL, which qsort() and bsearch() must not be given. */
static void sort_ids(void *base, size_t nr, size_t size)
{
	if (nr)
		qsort(base, nr, size, by_id);
}

static void *find_id(void *base, size_t nr, size_t size, uint64_t id)
{
	return id && nr ? bsearch(&id, base, nr, size, by_id) : NULL;
}

static int push_loc_id(uint64_t v, void *ctx)
{
	struct pp *pp = ctx;

	if (pp->nr_loc_ids >= pf_build__limits(pp->b)->max_frames)
		return -E2BIG;
	if (array_reserve((void **)&pp->loc_ids, &pp->cap_loc_ids, pp->nr_loc_ids, sizeof(v)))
		return -ENOMEM;
	pp->loc_ids[pp->nr_loc_ids++] = v;
	return 0;
}

static int push_value(uint64_t v, void *ctx)
{
	struct pp *pp = ctx;

	if (pp->nr_values >= pp->nr_types)
		return -EINVAL;
	if (array_reserve((void **)&pp->values, &pp->cap_values, pp->nr_values, sizeof(int64_t)))
		return -ENOMEM;
	pp->values[pp->nr_values++] = (int64_t)v;
	return 0;
}

/* A sample's label: comm, pid and tid are taken, the rest left. */
static int read_label(struct pp *pp, const struct pb_field *m, struct pf_sample *s)
{
	static const uint32_t nums[] = { LABEL_KEY, LABEL_STR, LABEL_NUM };
	uint64_t key = 0, str = 0, num = 0;
	int ret = 0;

	if (read_varints(m, 3, nums, (uint64_t *[]){ &key, &str, &num }))
		return malformed(pp, "label");
	if (string_is(pp, key, "comm") && str) {
		s->comm = string_at(pp, str, &ret);
	} else if (string_is(pp, key, "pid") || string_is(pp, key, "tid")) {
		if (num > UINT32_MAX)
			return refuse(pp, -EINVAL, "label %s %" PRId64 " out of range",
				      string_is(pp, key, "pid") ? "pid" : "tid", (int64_t)num);
		if (string_is(pp, key, "pid")) {
			s->pid = (uint32_t)num;
		} else {
			s->tid = (uint32_t)num;
			pf_build__per_thread(pp->b);
		}
	}
	return ret;
}

/* "func (file)" or "func (file:line)", as profile names Python frames. */
static const char *python_name(struct pp *pp, const char *func, const char *file, int64_t line,
			       int *ret)
{
	char *s = NULL;
	const char *name;
	int n = line > 0 ? asprintf(&s, "%s (%s:%" PRId64 ")", func, file, line)
			 : asprintf(&s, "%s (%s)", func, file);

	if (n < 0) {
		*ret = refuse(pp, -ENOMEM, "out of memory");
		return NULL;
	}
	name = pf_build__str(pp->b, s, n);
	free(s);
	if (!name)
		*ret = build_failed(pp, 0);
	return name;
}

/* Frame f from line ln of location loc (ln NULL: a location with no lines). */
static int make_frame(struct pp *pp, const struct location *loc, const struct line *ln,
		      struct pf_frame *f)
{
	const struct mapping *mp = find_id(pp->maps, pp->nr_maps, sizeof(*mp), loc->mapping_id);
	const struct function *fn = ln ? find_id(pp->funcs, pp->nr_funcs, sizeof(*fn), ln->function_id) : NULL;
	const char *file = NULL, *mfile = NULL;
	int ret = 0;

	*f = (struct pf_frame){ .addr = loc->address };
	if (loc->mapping_id && !mp)
		return refuse(pp, -EINVAL, "location %" PRIu64 ": no mapping %" PRIu64, loc->id, loc->mapping_id);
	if (ln && !fn)
		return refuse(pp, -EINVAL, "location %" PRIu64 ": no function %" PRIu64, loc->id, ln->function_id);
	if (mp && mp->filename && !(mfile = string_at(pp, mp->filename, &ret)))
		return ret;
	if (fn && fn->filename && !(file = string_at(pp, fn->filename, &ret)))
		return ret;
	if (fn && !(f->name = string_at(pp, fn->name, &ret)))
		return ret;
	if (!fn || !*f->name) {
		char hex[32];

		snprintf(hex, sizeof(hex), loc->address ? "0x%" PRIx64 : "[unknown]", loc->address);
		f->name = pf_build__str(pp->b, hex, strlen(hex));
		if (!f->name)
			return build_failed(pp, 0);
	}
	if (mfile && !strcmp(mfile, PF_KERNEL_IMAGE)) {
		f->kernel = true;
		f->module = file && *file ? file : mfile;
	} else if (mfile && *mfile) {
		f->module = mfile;
		if (mp->build_id && !(f->build_id = string_at(pp, mp->build_id, &ret)))
			return ret;
		if (f->build_id && !*f->build_id)
			f->build_id = NULL;
	} else if (fn && file && *file) {
		/* no mapping, a source file: an interpreted function */
		f->func = f->name;
		f->src_file = file;
		f->start_line = (int64_t)fn->start_line;
		f->line = (int64_t)ln->line;
		f->name = python_name(pp, f->func, file, f->line, &ret);
	}
	return ret;
}

/* The frames of the sample's locations, root first, in pp->frames; their number or -errno. */
static long sample_frames(struct pp *pp)
{
	size_t max = pf_build__limits(pp->b)->max_frames, nr = 0;

	for (size_t i = pp->nr_loc_ids; i-- > 0;) {
		const struct location *loc = find_id(pp->locs, pp->nr_locs, sizeof(*loc), pp->loc_ids[i]);
		size_t nl;

		if (!loc)
			return refuse(pp, -EINVAL, "sample: no location %" PRIu64, pp->loc_ids[i]);
		nl = loc->nr_lines ? loc->nr_lines : 1;
		if (nl > max || nr > max - nl)
			return refuse(pp, -E2BIG, "a stack of more than %zu frames", max);
		if (array_reserve((void **)&pp->frames, &pp->cap_frames, nr + nl - 1, sizeof(*pp->frames)))
			return refuse(pp, -ENOMEM, "out of memory");
		/* the last line is the caller the ones before were inlined into */
		for (size_t k = nl; k-- > 0; nr++) {
			const struct line *ln = loc->nr_lines ? &pp->lines[loc->first_line + k] : NULL;
			int ret = make_frame(pp, loc, ln, &pp->frames[nr]);

			if (ret)
				return ret;
		}
	}
	return (long)nr;
}

static int read_sample(struct pp *pp, const struct pb_field *m, size_t count_idx)
{
	struct pb_reader r = pb_reader(m->data, m->len);
	struct pf_sample s = { 0 };
	struct pb_field f;
	long nr;
	int n, ret = 0;

	pp->nr_loc_ids = pp->nr_values = 0;
	while (!ret && (n = pb_read_field(&r, &f)) > 0) {
		if (f.field == SAMPLE_LOCATION_ID)
			ret = pb_read_repeated(&f, push_loc_id, pp);
		else if (f.field == SAMPLE_VALUE)
			ret = pb_read_repeated(&f, push_value, pp);
		else if (f.field == SAMPLE_LABEL && f.wire == PB_WIRE_LEN)
			ret = read_label(pp, &f, &s);
	}
	if (ret == -E2BIG)
		return refuse(pp, ret, "a stack of more than %zu frames", pf_build__limits(pp->b)->max_frames);
	if (ret == -ENOMEM)
		return refuse(pp, ret, "out of memory");
	if (ret == -EINVAL && !pp->err->why[0])
		return refuse(pp, ret, "a sample with more values than the %zu sample types", pp->nr_types);
	if (ret)
		return ret;
	if (n)
		return malformed(pp, "sample");
	if (pp->nr_values != pp->nr_types)
		return refuse(pp, -EINVAL, "a sample with %zu values for %zu sample types", pp->nr_values,
			      pp->nr_types);
	if (pp->values[count_idx] < 0)
		return refuse(pp, -EINVAL, "a sample counted %" PRId64, pp->values[count_idx]);
	if (!pp->values[count_idx])
		return 0;
	nr = sample_frames(pp);
	if (nr < 0)
		return (int)nr;
	if (!s.comm && !(s.comm = pf_build__str(pp->b, "[unknown]", 9)))
		return build_failed(pp, 0);
	s.frames = pp->frames;
	s.nr_frames = (size_t)nr;
	s.count = (uint64_t)pp->values[count_idx];
	ret = pf_build__add(pp->b, &s);
	return ret ? build_failed(pp, ret) : 0;
}

/*
 * The sample type "samples/count": its index; else the only one, in
 * nanoseconds of off_cpu or wall (--off-cpu, --wall), which is the
 * count then (pp->measure); or -EINVAL.
 */
static int count_index(struct pp *pp)
{
	static const char *const measures[] = { "off_cpu", "wall" };

	for (size_t i = 0; i < pp->nr_types; i++)
		if (string_is(pp, pp->types[i].type, "samples") && string_is(pp, pp->types[i].unit, "count"))
			return (int)i;
	for (size_t m = 0; pp->nr_types == 1 && m < sizeof(measures) / sizeof(measures[0]); m++) {
		if (string_is(pp, pp->types[0].type, measures[m]) &&
		    string_is(pp, pp->types[0].unit, "nanoseconds")) {
			pp->measure = measures[m];
			return 0;
		}
	}
	return refuse(pp, -EINVAL, "no sample type samples/count: the samples cannot be counted");
}

/* What a sample weighs, from period_type and period (pprof_read.h). */
static int note_rate(struct pp *pp)
{
	const struct value_type *pt = &pp->period_type;
	const char *event;
	int ret = 0;

	if (pp->measure) {
		pf_build__rate(pp->b, 0, pp->measure);
	} else if (pp->period > 0 && string_is(pp, pt->type, "cpu") && string_is(pp, pt->unit, "nanoseconds")) {
		pf_build__rate(pp->b, (long)pp->period, "cpu-clock");
	} else if (pp->period > 0 && string_is(pp, pt->unit, "count") && !string_is(pp, pt->type, "samples") &&
		   pt->type) {
		if (!(event = string_at(pp, pt->type, &ret)))
			return ret;
		pf_build__rate(pp->b, (long)pp->period, event);
	} else {
		pf_build__rate(pp->b, 0, NULL);
	}
	if (pp->time_ns > 0)
		pf_build__span(pp->b, (uint64_t)pp->time_ns, pp->duration_ns > 0 ? (uint64_t)pp->duration_ns : 0);
	return 0;
}

static int read_profile(struct pp *pp)
{
	struct pb_reader r;
	struct pb_field f;
	int n, idx, ret;

	if ((ret = read_tables(pp)))
		return ret;
	sort_ids(pp->maps, pp->nr_maps, sizeof(*pp->maps));
	sort_ids(pp->funcs, pp->nr_funcs, sizeof(*pp->funcs));
	sort_ids(pp->locs, pp->nr_locs, sizeof(*pp->locs));
	if ((idx = count_index(pp)) < 0)
		return idx;
	if ((ret = note_rate(pp)))
		return ret;
	r = pb_reader(pp->msg, pp->len);
	while ((n = pb_read_field(&r, &f)) > 0) {
		if (f.field == PROFILE_SAMPLE && f.wire == PB_WIRE_LEN && (ret = read_sample(pp, &f, idx)))
			return ret;
	}
	return n ? malformed(pp, "message") : 0;
}

static void pp__release(struct pp *pp)
{
	free(pp->strings);
	free(pp->interned);
	free(pp->maps);
	free(pp->funcs);
	free(pp->locs);
	free(pp->lines);
	free(pp->loc_ids);
	free(pp->values);
	free(pp->frames);
}

int pprof_read__buf(struct pf_build *b, const void *buf, size_t len, struct pf_read_error *err)
{
	struct pp pp = { .b = b, .err = err, .msg = buf, .len = len };
	size_t max = pf_build__limits(b)->max_file;
	uint8_t *plain = NULL;
	int ret;

	*err = (struct pf_read_error){ 0 };
	if (len > max)
		return refuse(&pp, -E2BIG, "larger than %zu MiB", max >> 20);
	if (whole_read__is_gzip(buf, len)) {
		ret = whole_read__gunzip(buf, len, max, &plain, &pp.len);
		if (ret == -E2BIG)
			return refuse(&pp, ret, "decompresses to more than %zu MiB", max >> 20);
		if (ret == -EINVAL)
			return refuse(&pp, ret, "not a pprof profile: corrupt or truncated gzip data");
		if (ret)
			return refuse(&pp, ret, "out of memory");
		pp.msg = plain;
	}
	ret = read_profile(&pp);
	pp__release(&pp);
	free(plain);
	return ret;
}

int pprof_read__stream(struct pf_build *b, FILE *f, struct pf_read_error *err)
{
	size_t max = pf_build__limits(b)->max_file, len;
	uint8_t *data;
	int ret;

	*err = (struct pf_read_error){ 0 };
	ret = whole_read__stream(f, max, &data, &len);
	if (ret == -E2BIG)
		snprintf(err->why, sizeof(err->why), "larger than %zu MiB", max >> 20);
	else if (ret)
		snprintf(err->why, sizeof(err->why), "read error: %s", strerror(-ret));
	if (ret)
		return ret;
	ret = pprof_read__buf(b, data, len, err);
	free(data);
	return ret;
}
