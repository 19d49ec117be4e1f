// SPDX-License-Identifier: GPL-2.0
/*
 * test_pprof.c - pprof output, read back the way pprof reads it: gunzip
 * with zlib, decode profile.proto with the test decoder (pb_decode.h),
 * then check samples, values, labels and that every id refers to
 * something that exists.
 */
#include <zlib.h>

#include "output/pprof.h"
#include "output_util.h"
#include "pb_decode.h"

/* --- a profile to write ---------------------------------------------------- */

#define APP "/usr/bin/app"
#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"

static const struct pf_frame f_main = { "main", APP, "abcd01", 0x401000, false };
static const struct pf_frame f_hot_a = { "hot_a", APP, "abcd01", 0x401100, false };
static const struct pf_frame f_hot_b = { "hot_b", APP, "abcd01", 0x401200, false };
static const struct pf_frame f_unknown = { "[unknown]", NULL, NULL, 0, false };
static const struct pf_frame f_read = { "read", LIBC, "ef0123", 0x7f0000001000, false };
static const struct pf_frame f_syscall = { "do_syscall_64", NULL, NULL, 0xffffffff81000000, true };
static const struct pf_frame f_ext4 = { "ext4_file_read_iter", "ext4", NULL, 0xffffffffc0000000, true };

static const struct pf_frame s0[] = { f_main, f_hot_a };
static const struct pf_frame s1[] = { f_main, f_hot_b };
static const struct pf_frame s2[] = { f_unknown, f_read, f_syscall, f_ext4 };
static const struct pf_frame s3[] = { f_main, f_hot_a, f_syscall };

static const struct pf_sample samples[] = {
	{ "app", 100, 101, s0, ARRAY_SIZE(s0), 5 },
	{ "app", 100, 102, s1, ARRAY_SIZE(s1), 3 },
	{ "cat", 200, 200, s2, ARRAY_SIZE(s2), 2 },
	{ "app", 100, 101, s3, ARRAY_SIZE(s3), 1 },
};

/* Distinct frames, functions and modules above. */
#define NR_LOCATIONS 7
#define NR_MAPPINGS 3	/* app, libc, the kernel */

static struct pf_profile test_profile(void)
{
	return (struct pf_profile){
		.start_ns = 1700000000123456789ULL,
		.duration_ns = 5000000000ULL,
		.frequency = 99,
		.event = "cpu-clock",
		.title = "profile -F 99 on test",
		.of_targets = true,	/* -p 100,200: app is the one program both start in */
		.samples = samples,
		.nr_samples = ARRAY_SIZE(samples),
	};
}

/* --- reading it back -------------------------------------------------------- */

#define MAX 64

struct d_label {
	int64_t key, str, num;
	bool has_str, has_num;
};

struct d_sample {
	uint64_t locs[MAX], values[MAX];
	size_t nr_locs, nr_values;
	struct d_label labels[8];
	size_t nr_labels;
};

struct d_mapping {
	uint64_t id;
	int64_t filename, build_id;
	bool has_functions;
};

struct d_location {
	uint64_t id, mapping_id, address;
	uint64_t function_ids[4];
	size_t nr_lines;
};

struct d_function {
	uint64_t id;
	int64_t name, system_name, filename, start_line;
};

struct d_profile {
	int64_t sample_type[4][2];
	size_t nr_sample_types;
	struct d_sample samples[MAX];
	size_t nr_samples;
	struct d_mapping mappings[MAX];
	size_t nr_mappings;
	struct d_location locations[MAX];
	size_t nr_locations;
	struct d_function functions[MAX];
	size_t nr_functions;
	char *strings[256];
	size_t nr_strings;
	int64_t time_nanos, duration_nanos, period;
	int64_t period_type[2];
	uint64_t comments[4];
	size_t nr_comments;
};

/* gunzip, asserting a single well-formed gzip member and nothing after it. */
static uint8_t *gunzip(const uint8_t *in, size_t len, size_t *out_len)
{
	z_stream zs = { 0 };
	size_t cap = 1 << 16;
	uint8_t *out = malloc(cap);
	int ret;

	cr_assert_gt(len, 18, "too short for gzip");
	cr_assert(in[0] == 0x1f && in[1] == 0x8b, "no gzip magic: %02x %02x", in[0], in[1]);
	cr_assert_eq(inflateInit2(&zs, 16 + MAX_WBITS), Z_OK);
	zs.next_in = (uint8_t *)in;
	zs.avail_in = len;
	*out_len = 0;
	do {
		if (*out_len == cap) {
			cap *= 2;
			out = realloc(out, cap);
			cr_assert_not_null(out);
		}
		zs.next_out = out + *out_len;
		zs.avail_out = cap - *out_len;
		ret = inflate(&zs, Z_NO_FLUSH);
		cr_assert(ret == Z_OK || ret == Z_STREAM_END, "inflate: %d %s", ret, zs.msg ? zs.msg : "");
		*out_len = cap - zs.avail_out;
	} while (ret != Z_STREAM_END);
	cr_assert_eq(zs.avail_in, 0, "bytes after the gzip member");
	inflateEnd(&zs);
	return out;
}

static void decode_value_type(const struct pbd_field *f, int64_t vt[2])
{
	const uint8_t *p = f->data, *end = f->data + f->len;
	struct pbd_field g;

	vt[0] = vt[1] = 0;
	while (pbd_next(&p, end, &g)) {
		if (g.field == 1 || g.field == 2)
			vt[g.field - 1] = (int64_t)g.v;
	}
}

static void decode_label(const struct pbd_field *f, struct d_label *l)
{
	const uint8_t *p = f->data, *end = f->data + f->len;
	struct pbd_field g;

	*l = (struct d_label){ 0 };
	while (pbd_next(&p, end, &g)) {
		if (g.field == 1)
			l->key = (int64_t)g.v;
		else if (g.field == 2)
			l->str = (int64_t)g.v, l->has_str = true;
		else if (g.field == 3)
			l->num = (int64_t)g.v, l->has_num = true;
	}
}

static void decode_sample(const struct pbd_field *f, struct d_sample *s)
{
	const uint8_t *p = f->data, *end = f->data + f->len;
	struct pbd_field g;

	memset(s, 0, sizeof(*s));
	while (pbd_next(&p, end, &g)) {
		if (g.field == 1) {
			pbd_repeated(&g, s->locs, &s->nr_locs, MAX);
		} else if (g.field == 2) {
			pbd_repeated(&g, s->values, &s->nr_values, MAX);
		} else if (g.field == 3) {
			cr_assert_lt(s->nr_labels, ARRAY_SIZE(s->labels));
			decode_label(&g, &s->labels[s->nr_labels++]);
		}
	}
}

static void decode_mapping(const struct pbd_field *f, struct d_mapping *m)
{
	const uint8_t *p = f->data, *end = f->data + f->len;
	struct pbd_field g;

	*m = (struct d_mapping){ 0 };
	while (pbd_next(&p, end, &g)) {
		if (g.field == 1)
			m->id = g.v;
		else if (g.field == 5)
			m->filename = (int64_t)g.v;
		else if (g.field == 6)
			m->build_id = (int64_t)g.v;
		else if (g.field == 7)
			m->has_functions = g.v;
	}
}

static void decode_location(const struct pbd_field *f, struct d_location *l)
{
	const uint8_t *p = f->data, *end = f->data + f->len;
	struct pbd_field g, h;

	*l = (struct d_location){ 0 };
	while (pbd_next(&p, end, &g)) {
		if (g.field == 1) {
			l->id = g.v;
		} else if (g.field == 2) {
			l->mapping_id = g.v;
		} else if (g.field == 3) {
			l->address = g.v;
		} else if (g.field == 4) {
			const uint8_t *q = g.data;

			cr_assert_lt(l->nr_lines, ARRAY_SIZE(l->function_ids));
			l->function_ids[l->nr_lines] = 0;
			while (pbd_next(&q, g.data + g.len, &h)) {
				if (h.field == 1)
					l->function_ids[l->nr_lines] = h.v;
			}
			l->nr_lines++;
		}
	}
}

static void decode_function(const struct pbd_field *f, struct d_function *fn)
{
	const uint8_t *p = f->data, *end = f->data + f->len;
	struct pbd_field g;

	*fn = (struct d_function){ 0 };
	while (pbd_next(&p, end, &g)) {
		if (g.field == 1)
			fn->id = g.v;
		else if (g.field == 2)
			fn->name = (int64_t)g.v;
		else if (g.field == 3)
			fn->system_name = (int64_t)g.v;
		else if (g.field == 4)
			fn->filename = (int64_t)g.v;
		else if (g.field == 5)
			fn->start_line = (int64_t)g.v;
	}
}

static void decode_profile(const uint8_t *data, size_t len, struct d_profile *d)
{
	const uint8_t *p = data, *end = data + len;
	struct pbd_field f;

	memset(d, 0, sizeof(*d));
	while (pbd_next(&p, end, &f)) {
		switch (f.field) {
		case 1:
			cr_assert_lt(d->nr_sample_types, ARRAY_SIZE(d->sample_type));
			decode_value_type(&f, d->sample_type[d->nr_sample_types++]);
			break;
		case 2:
			cr_assert_lt(d->nr_samples, MAX);
			decode_sample(&f, &d->samples[d->nr_samples++]);
			break;
		case 3:
			cr_assert_lt(d->nr_mappings, MAX);
			decode_mapping(&f, &d->mappings[d->nr_mappings++]);
			break;
		case 4:
			cr_assert_lt(d->nr_locations, MAX);
			decode_location(&f, &d->locations[d->nr_locations++]);
			break;
		case 5:
			cr_assert_lt(d->nr_functions, MAX);
			decode_function(&f, &d->functions[d->nr_functions++]);
			break;
		case 6:
			cr_assert_eq(f.wire, 2);
			cr_assert_lt(d->nr_strings, ARRAY_SIZE(d->strings));
			d->strings[d->nr_strings++] = strndup((const char *)f.data, f.len);
			break;
		case 9:
			d->time_nanos = (int64_t)f.v;
			break;
		case 10:
			d->duration_nanos = (int64_t)f.v;
			break;
		case 11:
			decode_value_type(&f, d->period_type);
			break;
		case 12:
			d->period = (int64_t)f.v;
			break;
		case 13:
			pbd_repeated(&f, d->comments, &d->nr_comments, ARRAY_SIZE(d->comments));
			break;
		default:
			cr_assert_fail("unexpected Profile field %u", f.field);
		}
	}
}

static void free_profile(struct d_profile *d)
{
	for (size_t i = 0; i < d->nr_strings; i++)
		free(d->strings[i]);
}

static const char *str(const struct d_profile *d, int64_t idx)
{
	cr_assert(idx >= 0 && (size_t)idx < d->nr_strings, "string index %" PRId64 " of %zu",
		  idx, d->nr_strings);
	return d->strings[idx];
}

static const struct d_location *location(const struct d_profile *d, uint64_t id)
{
	for (size_t i = 0; i < d->nr_locations; i++) {
		if (d->locations[i].id == id)
			return &d->locations[i];
	}
	cr_assert_fail("sample refers to location %" PRIu64 ", which does not exist", id);
	return NULL;
}

static const struct d_function *function(const struct d_profile *d, uint64_t id)
{
	for (size_t i = 0; i < d->nr_functions; i++) {
		if (d->functions[i].id == id)
			return &d->functions[i];
	}
	cr_assert_fail("line refers to function %" PRIu64 ", which does not exist", id);
	return NULL;
}

static const struct d_mapping *mapping(const struct d_profile *d, uint64_t id)
{
	for (size_t i = 0; i < d->nr_mappings; i++) {
		if (d->mappings[i].id == id)
			return &d->mappings[i];
	}
	cr_assert_fail("location refers to mapping %" PRIu64 ", which does not exist", id);
	return NULL;
}

/* The function name at a location. */
static const char *location_name(const struct d_profile *d, uint64_t id)
{
	const struct d_location *l = location(d, id);

	cr_assert_eq(l->nr_lines, 1, "location %" PRIu64 " has %zu lines", id, l->nr_lines);
	return str(d, function(d, l->function_ids[0])->name);
}

/* The label of a sample with this key, or NULL. */
static const struct d_label *label(const struct d_profile *d, const struct d_sample *s,
				   const char *key)
{
	const struct d_label *found = NULL;

	for (size_t i = 0; i < s->nr_labels; i++) {
		if (!strcmp(str(d, s->labels[i].key), key)) {
			cr_assert_null(found, "label '%s' twice", key);
			found = &s->labels[i];
		}
	}
	return found;
}

/* Write p and decode what came out. */
static void round_trip(const struct pf_profile *p, struct d_profile *d)
{
	struct memout m;
	size_t raw_len;
	uint8_t *raw;
	char *buf;

	cr_assert_eq(pprof__write(p, memout__open(&m)), 0);
	buf = memout__text(&m);
	raw = gunzip((const uint8_t *)buf, m.len, &raw_len);
	decode_profile(raw, raw_len, d);
	free(raw);
	free(buf);
}

/* Ids unique and non-zero, and every reference resolves. */
static void assert_references(const struct d_profile *d)
{
	for (size_t i = 0; i < d->nr_mappings; i++) {
		cr_assert_neq(d->mappings[i].id, 0);
		for (size_t j = 0; j < i; j++)
			cr_assert_neq(d->mappings[i].id, d->mappings[j].id, "mapping id twice");
		str(d, d->mappings[i].filename);
		str(d, d->mappings[i].build_id);
	}
	for (size_t i = 0; i < d->nr_functions; i++) {
		cr_assert_neq(d->functions[i].id, 0);
		for (size_t j = 0; j < i; j++)
			cr_assert_neq(d->functions[i].id, d->functions[j].id, "function id twice");
		str(d, d->functions[i].name);
		str(d, d->functions[i].system_name);
		str(d, d->functions[i].filename);
	}
	for (size_t i = 0; i < d->nr_locations; i++) {
		const struct d_location *l = &d->locations[i];

		cr_assert_neq(l->id, 0);
		for (size_t j = 0; j < i; j++)
			cr_assert_neq(l->id, d->locations[j].id, "location id twice");
		if (l->mapping_id)
			mapping(d, l->mapping_id);
		for (size_t j = 0; j < l->nr_lines; j++)
			function(d, l->function_ids[j]);
	}
	for (size_t i = 0; i < d->nr_samples; i++) {
		cr_assert_eq(d->samples[i].nr_values, d->nr_sample_types,
			     "sample %zu: %zu values for %zu types", i, d->samples[i].nr_values,
			     d->nr_sample_types);
		for (size_t j = 0; j < d->samples[i].nr_locs; j++)
			location(d, d->samples[i].locs[j]);
	}
}

/* --- tests ------------------------------------------------------------------ */

Test(pprof, string_table_starts_empty_and_header_fields)
{
	struct pf_profile p = test_profile();
	struct d_profile d;

	round_trip(&p, &d);
	cr_assert_gt(d.nr_strings, 1);
	cr_assert_str_eq(d.strings[0], "");
	cr_assert_eq(d.nr_sample_types, 2);
	cr_assert_str_eq(str(&d, d.sample_type[0][0]), "samples");
	cr_assert_str_eq(str(&d, d.sample_type[0][1]), "count");
	cr_assert_str_eq(str(&d, d.sample_type[1][0]), "cpu");
	cr_assert_str_eq(str(&d, d.sample_type[1][1]), "nanoseconds");
	cr_assert_str_eq(str(&d, d.period_type[0]), "cpu");
	cr_assert_str_eq(str(&d, d.period_type[1]), "nanoseconds");
	cr_assert_eq(d.period, 1000000000 / 99);
	cr_assert_eq(d.time_nanos, (int64_t)p.start_ns);
	cr_assert_eq(d.duration_nanos, (int64_t)p.duration_ns);
	cr_assert_eq(d.nr_comments, 1);
	cr_assert_str_eq(str(&d, (int64_t)d.comments[0]), p.title);
	free_profile(&d);
}

Test(pprof, samples_are_leaf_first_with_values_and_labels)
{
	struct pf_profile p = test_profile();
	struct d_profile d;

	round_trip(&p, &d);
	assert_references(&d);
	cr_assert_eq(d.nr_samples, ARRAY_SIZE(samples));
	for (size_t i = 0; i < d.nr_samples; i++) {
		const struct d_sample *s = &d.samples[i];
		const struct pf_sample *want = &samples[i];
		const struct d_label *l;

		cr_assert_eq(s->nr_locs, want->nr_frames);
		for (size_t j = 0; j < s->nr_locs; j++) {
			const char *name = location_name(&d, s->locs[j]);
			const char *want_name = want->frames[want->nr_frames - 1 - j].name;

			cr_assert_str_eq(name, want_name, "sample %zu location %zu", i, j);
		}
		cr_assert_eq(s->values[0], want->count);
		cr_assert_eq(s->values[1], want->count * (1000000000 / 99));

		l = label(&d, s, "pid");
		cr_assert_not_null(l, "no pid label");
		cr_assert(l->has_num && !l->has_str);
		cr_assert_eq(l->num, want->pid);
		l = label(&d, s, "comm");
		cr_assert_not_null(l, "no comm label");
		cr_assert(l->has_str && !l->has_num);
		cr_assert_str_eq(str(&d, l->str), want->comm);
		/* not per thread: the tid means nothing */
		cr_assert_null(label(&d, s, "tid"));
	}
	free_profile(&d);
}

Test(pprof, container_labels_when_asked_for)
{
	struct pf_sample s[ARRAY_SIZE(samples)];
	struct pf_profile p = test_profile();
	struct d_profile d;

	memcpy(s, samples, sizeof(s));
	for (size_t i = 0; i < ARRAY_SIZE(s); i++) {
		s[i].container_id = i % 2 ? "box" : "/user.slice";
		s[i].cgroup = i % 2 ? "/system.slice/docker-box.scope" : "/user.slice";
	}
	p.samples = s;
	round_trip(&p, &d);
	assert_references(&d);
	for (size_t i = 0; i < d.nr_samples; i++) {
		const struct d_label *id = label(&d, &d.samples[i], "container_id");
		const struct d_label *cg = label(&d, &d.samples[i], "cgroup");

		cr_assert_not_null(id, "sample %zu: no container_id label", i);
		cr_assert_not_null(cg, "sample %zu: no cgroup label", i);
		cr_assert(id->has_str && !id->has_num && cg->has_str && !cg->has_num);
		cr_assert_str_eq(str(&d, id->str), s[i].container_id);
		cr_assert_str_eq(str(&d, cg->str), s[i].cgroup);
		/* a label, not a frame */
		cr_assert_eq(d.samples[i].nr_locs, s[i].nr_frames);
	}
	free_profile(&d);
	/* not asked for: no such labels */
	p.samples = samples;
	round_trip(&p, &d);
	for (size_t i = 0; i < d.nr_samples; i++) {
		cr_assert_null(label(&d, &d.samples[i], "container_id"));
		cr_assert_null(label(&d, &d.samples[i], "cgroup"));
	}
	free_profile(&d);
}

Test(pprof, tid_label_when_per_thread)
{
	struct pf_profile p = test_profile();
	struct d_profile d;

	p.per_thread = true;
	round_trip(&p, &d);
	for (size_t i = 0; i < d.nr_samples; i++) {
		const struct d_label *l = label(&d, &d.samples[i], "tid");

		cr_assert_not_null(l, "sample %zu: no tid label", i);
		cr_assert(l->has_num);
		cr_assert_eq(l->num, samples[i].tid);
	}
	free_profile(&d);
}

/*
 * Mapping 1 is pprof's main binary ("File:" in go tool pprof -top): the
 * program, not the file of the first frame written (a kernel leaf here,
 * a thread started in libc); none for processes of several programs or
 * the whole system.
 */
Test(pprof, main_mapping_is_the_program_or_none)
{
	static const struct pf_frame f_clone = { "clone3", LIBC, "ef0123", 0x7f0000002000, false };
	static const struct pf_frame f_other = { "main", "/usr/bin/other", NULL, 0x401000, false };
	static const struct pf_frame thread[] = { f_clone, f_hot_b };
	static const struct pf_frame other[] = { f_other, f_syscall };
	const struct pf_sample one[] = {
		{ "app", 100, 101, thread, ARRAY_SIZE(thread), 4 },
		{ "app", 100, 101, s3, ARRAY_SIZE(s3), 1 },
	};
	const struct pf_sample two[] = {
		{ "app", 100, 101, s3, ARRAY_SIZE(s3), 1 },
		{ "other", 300, 300, other, ARRAY_SIZE(other), 1 },
	};
	struct pf_profile p = test_profile();
	struct d_profile d;

	p.samples = one;
	p.nr_samples = ARRAY_SIZE(one);
	p.of_targets = true;
	round_trip(&p, &d);
	assert_references(&d);
	cr_assert_eq(d.mappings[0].id, 1);
	cr_assert_str_eq(str(&d, d.mappings[0].filename), APP);
	free_profile(&d);

	/* the whole system, though one program's stacks were all it caught */
	p.of_targets = false;
	round_trip(&p, &d);
	cr_assert_str_eq(str(&d, d.mappings[0].filename), "");
	free_profile(&d);
	p.of_targets = true;

	p.samples = two;
	p.nr_samples = ARRAY_SIZE(two);
	round_trip(&p, &d);
	assert_references(&d);
	cr_assert_eq(d.mappings[0].id, 1);
	cr_assert_str_eq(str(&d, d.mappings[0].filename), "");
	for (size_t i = 0; i < d.nr_locations; i++)
		cr_assert_neq(d.locations[i].mapping_id, 1, "a frame in the mapping of no file");
	free_profile(&d);
}

Test(pprof, one_location_function_and_mapping_per_distinct_frame_and_module)
{
	struct pf_profile p = test_profile();
	struct d_profile d;
	const struct d_location *hot_a_0, *hot_a_3;

	round_trip(&p, &d);
	assert_references(&d);
	cr_assert_eq(d.nr_locations, NR_LOCATIONS);
	cr_assert_eq(d.nr_functions, NR_LOCATIONS);
	cr_assert_eq(d.nr_mappings, NR_MAPPINGS);
	/* hot_a is the leaf of sample 0 and second from the leaf in sample 3 */
	hot_a_0 = location(&d, d.samples[0].locs[0]);
	hot_a_3 = location(&d, d.samples[3].locs[1]);
	cr_assert_eq(hot_a_0, hot_a_3);
	cr_assert_eq(hot_a_0->address, f_hot_a.addr);

	for (size_t i = 0; i < d.nr_locations; i++) {
		const struct d_location *l = &d.locations[i];
		const struct d_function *fn = function(&d, l->function_ids[0]);
		const char *name = str(&d, fn->name);

		cr_assert_str_eq(str(&d, fn->system_name), name);
		if (!strcmp(name, "[unknown]")) {
			/* a marker without a module: no mapping, no address */
			cr_assert_eq(l->mapping_id, 0);
			cr_assert_eq(l->address, 0);
			cr_assert_str_eq(str(&d, fn->filename), "");
			continue;
		}
		const struct d_mapping *m = mapping(&d, l->mapping_id);
		const char *file = str(&d, m->filename);

		cr_assert(m->has_functions);
		if (!strcmp(name, "do_syscall_64") || !strcmp(name, "ext4_file_read_iter")) {
			cr_assert_str_eq(file, "[kernel.kallsyms]", "kernel frame %s in '%s'", name, file);
			cr_assert_str_eq(str(&d, m->build_id), "");
			cr_assert_str_eq(str(&d, fn->filename),
					 !strcmp(name, "do_syscall_64") ? "[kernel.kallsyms]" : "ext4");
		} else if (!strcmp(name, "read")) {
			cr_assert_str_eq(file, LIBC);
			cr_assert_str_eq(str(&d, m->build_id), "ef0123");
			cr_assert_str_eq(str(&d, fn->filename), LIBC);
		} else {
			cr_assert_str_eq(file, APP, "%s in '%s'", name, file);
			cr_assert_str_eq(str(&d, m->build_id), "abcd01");
			cr_assert_str_eq(str(&d, fn->filename), APP);
		}
	}
	free_profile(&d);
}

Test(pprof, same_address_with_another_name_is_another_location)
{
	static const struct pf_frame a = { "old_fn", APP, NULL, 0x1000, false };
	static const struct pf_frame b = { "new_fn", APP, NULL, 0x1000, false };
	const struct pf_sample s[] = {
		{ "x", 1, 1, &a, 1, 1 },
		{ "x", 2, 2, &b, 1, 1 },
	};
	struct pf_profile p = test_profile();
	struct d_profile d;

	p.samples = s;
	p.nr_samples = ARRAY_SIZE(s);
	round_trip(&p, &d);
	cr_assert_eq(d.nr_locations, 2);
	cr_assert_str_eq(location_name(&d, d.samples[0].locs[0]), "old_fn");
	cr_assert_str_eq(location_name(&d, d.samples[1].locs[0]), "new_fn");
	free_profile(&d);
}

/*
 * A Python frame: its Function is the function alone, in its source file,
 * from its first line; two of one name and file on other lines are two.
 */
Test(pprof, python_frames_have_file_and_start_line)
{
	static const struct pf_frame a = { .name = "work (app/w.py)", .func = "work",
					   .src_file = "app/w.py", .start_line = 12 };
	static const struct pf_frame b = { .name = "work (app/w.py)", .func = "work",
					   .src_file = "app/w.py", .start_line = 40 };
	const struct pf_sample s[] = {
		{ "x", 1, 1, &a, 1, 1 },
		{ "x", 1, 1, &b, 1, 1 },
	};
	struct pf_profile p = test_profile();
	const struct d_function *fa, *fb;
	struct d_profile d;

	p.samples = s;
	p.nr_samples = ARRAY_SIZE(s);
	round_trip(&p, &d);
	cr_assert_eq(d.nr_locations, 2);
	cr_assert_eq(d.nr_functions, 2);
	fa = function(&d, location(&d, d.samples[0].locs[0])->function_ids[0]);
	fb = function(&d, location(&d, d.samples[1].locs[0])->function_ids[0]);
	cr_expect_str_eq(str(&d, fa->name), "work");
	cr_expect_str_eq(str(&d, fa->filename), "app/w.py");
	cr_expect_eq(fa->start_line, 12);
	cr_expect_eq(fb->start_line, 40);
	/* no mapping: the frame is in no file mapped */
	cr_expect_eq(location(&d, d.samples[0].locs[0])->mapping_id, 0);
	free_profile(&d);
}

Test(pprof, count_mode_with_a_hardware_event_counts_events)
{
	struct pf_profile p = test_profile();
	struct d_profile d;

	p.frequency = 0;
	p.period = 1000000;
	p.event = "cycles";
	round_trip(&p, &d);
	cr_assert_str_eq(str(&d, d.sample_type[1][0]), "cycles");
	cr_assert_str_eq(str(&d, d.sample_type[1][1]), "count");
	cr_assert_str_eq(str(&d, d.period_type[0]), "cycles");
	cr_assert_str_eq(str(&d, d.period_type[1]), "count");
	cr_assert_eq(d.period, 1000000);
	for (size_t i = 0; i < d.nr_samples; i++)
		cr_assert_eq(d.samples[i].values[1], samples[i].count * 1000000);
	free_profile(&d);
}

Test(pprof, count_mode_with_cpu_clock_counts_nanoseconds)
{
	struct pf_profile p = test_profile();
	struct d_profile d;

	p.frequency = 0;
	p.period = 250000;
	p.event = "cpu-clock";
	round_trip(&p, &d);
	cr_assert_str_eq(str(&d, d.sample_type[1][0]), "cpu");
	cr_assert_str_eq(str(&d, d.sample_type[1][1]), "nanoseconds");
	cr_assert_eq(d.period, 250000);
	cr_assert_eq(d.samples[0].values[1], 5 * 250000);
	free_profile(&d);
}

/*
 * --off-cpu and --wall: the counts are nanoseconds of that time, one
 * value per sample, named [off_cpu, nanoseconds] or [wall, nanoseconds].
 */
Test(pprof, a_measure_is_one_value_in_nanoseconds)
{
	const char *measures[] = { "off_cpu", "wall" };

	for (size_t m = 0; m < ARRAY_SIZE(measures); m++) {
		struct pf_profile p = test_profile();
		struct d_profile *d = calloc(1, sizeof(*d));

		cr_assert_not_null(d);
		p.measure = measures[m];
		p.frequency = m ? 49 : 0;	/* --wall samples at a rate too: no matter */
		round_trip(&p, d);
		cr_assert_eq(d->nr_sample_types, 1);
		cr_assert_str_eq(str(d, d->sample_type[0][0]), measures[m]);
		cr_assert_str_eq(str(d, d->sample_type[0][1]), "nanoseconds");
		cr_assert_str_eq(str(d, d->period_type[0]), measures[m]);
		cr_assert_str_eq(str(d, d->period_type[1]), "nanoseconds");
		for (size_t i = 0; i < d->nr_samples; i++) {
			cr_assert_eq(d->samples[i].nr_values, 1);
			cr_assert_eq(d->samples[i].values[0], samples[i].count);
		}
		free_profile(d);
		free(d);
	}
}

Test(pprof, empty_profile)
{
	struct pf_profile p = test_profile();
	struct d_profile d;

	p.nr_samples = 0;
	round_trip(&p, &d);
	cr_assert_eq(d.nr_samples, 0);
	cr_assert_eq(d.nr_locations, 0);
	cr_assert_eq(d.nr_sample_types, 2);
	free_profile(&d);
}

/* Neither frequency nor period (folded stacks read back): samples counted, nothing else. */
Test(pprof, neither_frequency_nor_period_counts_samples_only)
{
	struct pf_profile p = test_profile();
	struct d_profile *d = calloc(1, sizeof(*d));

	cr_assert_not_null(d);
	p.frequency = 0;
	round_trip(&p, d);
	cr_assert_eq(d->nr_sample_types, 1);
	cr_assert_str_eq(str(d, d->sample_type[0][0]), "samples");
	cr_assert_str_eq(str(d, d->sample_type[0][1]), "count");
	cr_assert_eq(d->nr_samples, ARRAY_SIZE(samples));
	for (size_t i = 0; i < d->nr_samples; i++) {
		cr_assert_eq(d->samples[i].nr_values, 1);
		cr_assert_eq(d->samples[i].values[0], samples[i].count);
	}
	free_profile(d);
	free(d);
}

Test(pprof, write_error_is_returned)
{
	struct pf_profile p = test_profile();
	FILE *f = full_stream();

	cr_assert_eq(pprof__write(&p, f), -ENOSPC);
	fclose(f);
}
