// SPDX-License-Identifier: GPL-2.0
/*
 * test_pprof_read.c - pprof files read back (pprof_read.h): what
 * pprof__write() wrote comes back as the same stacks, gzip'd or not;
 * a hand-built profile with inlined lines; merged inputs; and malformed
 * or oversized files refused with a reason.
 */
#include <errno.h>
#include <zlib.h>

#include "output/folded_read.h"
#include "output/pprof.h"
#include "output/pprof_read.h"
#include "output/protobuf.h"
#include "output/whole_read.h"
#include "output_util.h"

#define APP "/usr/bin/app"

static const struct pf_frame f_main = { "main", APP, "abcd01", 0x401000, false };
static const struct pf_frame f_hot = { "hot_a", APP, "abcd01", 0x401100, false };
static const struct pf_frame f_sys = { "do_syscall_64", PF_KERNEL_IMAGE, NULL, 0xffffffff81000000, true };
static const struct pf_frame f_ext4 = { "ext4_read", "ext4", NULL, 0xffffffffc0000000, true };
static const struct pf_frame f_py = { "work (/srv/a.py:12)", NULL, NULL, 0, false, "work", "/srv/a.py", 10, 12 };

static const struct pf_frame s0[] = { f_main, f_hot };
static const struct pf_frame s1[] = { f_main, f_sys, f_ext4 };
static const struct pf_frame s2[] = { f_py };

static const struct pf_sample samples[] = {
	{ "app", 100, 101, s0, ARRAY_SIZE(s0), 5 },
	{ "app", 100, 102, s1, ARRAY_SIZE(s1), 3 },
	{ "python3", 200, 200, s2, ARRAY_SIZE(s2), 2 },
};

static struct pf_profile written(long frequency, long period)
{
	return (struct pf_profile){
		.start_ns = 1700000000000000000ULL, .duration_ns = 2000000000ULL,
		.frequency = frequency, .period = period, .event = "cpu-clock", .title = "t",
		.per_thread = true, .samples = samples, .nr_samples = ARRAY_SIZE(samples),
	};
}

/* p as pprof__write() writes it: gzip'd bytes in *len. */
static char *pprof_bytes(const struct pf_profile *p, size_t *len)
{
	struct memout m;

	cr_assert_eq(pprof__write(p, memout__open(&m)), 0);
	memout__text(&m);
	*len = m.len;
	return m.text;
}

static struct pf_build *new_build(void)
{
	struct pf_limits l = PF_LIMITS_DEFAULT_INIT;
	struct pf_build *b = pf_build__new(&l);

	cr_assert_not_null(b);
	return b;
}

static const struct pf_sample *find(const struct pf_profile *p, uint32_t tid)
{
	for (size_t i = 0; i < p->nr_samples; i++)
		if (p->samples[i].tid == tid)
			return &p->samples[i];
	cr_assert_fail("no sample of tid %u", tid);
	return NULL;
}

static void same_frame(const struct pf_frame *got, const struct pf_frame *want)
{
	cr_assert_str_eq(got->name, want->name);
	cr_assert_eq(got->kernel, want->kernel, "%s", want->name);
	cr_assert_eq(got->addr, want->addr, "%s", want->name);
	if (want->module)
		cr_assert_str_eq(got->module, want->module);
	else
		cr_assert_null(got->module, "%s: %s", want->name, got->module);
	if (want->build_id)
		cr_assert_str_eq(got->build_id, want->build_id);
	if (want->func) {
		cr_assert_str_eq(got->func, want->func);
		cr_assert_str_eq(got->src_file, want->src_file);
		cr_assert_eq(got->start_line, want->start_line);
		cr_assert_eq(got->line, want->line);
	}
}

static void check_round_trip(const struct pf_profile *p)
{
	for (size_t i = 0; i < ARRAY_SIZE(samples); i++) {
		const struct pf_sample *got = find(p, samples[i].tid), *want = &samples[i];

		cr_assert_str_eq(got->comm, want->comm);
		cr_assert_eq(got->pid, want->pid);
		cr_assert_eq(got->count, want->count);
		cr_assert_eq(got->nr_frames, want->nr_frames, "tid %u: %zu frames", want->tid, got->nr_frames);
		for (size_t k = 0; k < want->nr_frames; k++)
			same_frame(&got->frames[k], &want->frames[k]);
	}
}

Test(pprof_read, what_we_write_reads_back)
{
	struct pf_profile in = written(0, 10000000), out;
	struct pf_build *b = new_build();
	struct pf_read_error err;
	size_t len;
	char *bytes = pprof_bytes(&in, &len);

	cr_assert_eq(pprof_read__buf(b, bytes, len, &err), 0, "%s", err.why);
	cr_assert_eq(pf_build__profile(b, "t", &out), 0);
	cr_assert_eq(out.nr_samples, ARRAY_SIZE(samples));
	check_round_trip(&out);
	cr_assert(out.per_thread);
	cr_assert_eq(out.period, 10000000);
	cr_assert_str_eq(out.event, "cpu-clock");
	cr_assert_eq(out.start_ns, in.start_ns);
	cr_assert_eq(out.duration_ns, in.duration_ns);
	free(bytes);
	pf_build__free(b);
}

Test(pprof_read, uncompressed_and_from_a_stream)
{
	struct pf_profile in = written(99, 0), out;
	struct pf_build *b = new_build();
	struct pf_read_error err;
	uint8_t *plain;
	size_t len, plen;
	char *bytes = pprof_bytes(&in, &len);
	FILE *f;

	cr_assert_eq(whole_read__gunzip(bytes, len, 1 << 20, &plain, &plen), 0);
	f = fmemopen(plain, plen, "r");
	cr_assert_eq(pprof_read__stream(b, f, &err), 0, "%s", err.why);
	fclose(f);
	cr_assert_eq(pf_build__profile(b, NULL, &out), 0);
	check_round_trip(&out);
	/* 99 Hz: each sample 1e9 / 99 ns of the cpu-clock */
	cr_assert_eq(out.period, 1000000000 / 99);
	free(plain);
	free(bytes);
	pf_build__free(b);
}

Test(pprof_read, merged_inputs_sum_and_keep_a_common_rate)
{
	struct pf_profile in = written(0, 10000000), in2 = written(0, 20000000), out;
	struct pf_build *b = new_build();
	struct pf_read_error err;
	size_t len, len2;
	char *bytes = pprof_bytes(&in, &len), *bytes2 = pprof_bytes(&in2, &len2);

	cr_assert_eq(pprof_read__buf(b, bytes, len, &err), 0);
	cr_assert_eq(pprof_read__buf(b, bytes, len, &err), 0);
	cr_assert_eq(pf_build__profile(b, NULL, &out), 0);
	cr_assert_eq(out.nr_samples, ARRAY_SIZE(samples));
	cr_assert_eq(find(&out, 101)->count, 10);
	cr_assert_eq(out.period, 10000000, "the same rate twice is kept");
	cr_assert_eq(pprof_read__buf(b, bytes2, len2, &err), 0);
	cr_assert_eq(pf_build__profile(b, NULL, &out), 0);
	cr_assert_eq(find(&out, 101)->count, 15);
	cr_assert(pf_profile__counts_only(&out), "two rates: samples alone");
	free(bytes);
	free(bytes2);
	pf_build__free(b);
}

/*
 * A pprof file of --off-cpu (one sample type, off_cpu/nanoseconds) reads
 * back as nanoseconds off the CPU, and is written again as such; merged
 * with a profile of samples, the counts are only counts.
 */
Test(pprof_read, off_cpu_nanoseconds_read_back)
{
	struct pf_profile in = written(0, 0), samp = written(99, 0), out;
	struct pf_build *b = new_build();
	struct pf_read_error err;
	size_t len, slen;
	char *bytes, *sbytes;

	in.measure = "off_cpu";
	bytes = pprof_bytes(&in, &len);
	sbytes = pprof_bytes(&samp, &slen);
	cr_assert_eq(pprof_read__buf(b, bytes, len, &err), 0, "%s", err.why);
	cr_assert_eq(pf_build__profile(b, NULL, &out), 0);
	check_round_trip(&out);
	cr_assert_str_eq(out.measure, "off_cpu");
	cr_assert_eq(out.period, 0);
	cr_assert_eq(pprof_read__buf(b, sbytes, slen, &err), 0, "%s", err.why);
	cr_assert_eq(pf_build__profile(b, NULL, &out), 0);
	cr_assert_null(out.measure, "ns and samples: counts alone");
	cr_assert(pf_profile__counts_only(&out));
	free(bytes);
	free(sbytes);
	pf_build__free(b);
}

/* Folded stacks say no rate: merged with a pprof file, the profile counts samples alone. */
Test(pprof_read, merged_with_folded_counts_samples_only)
{
	struct pf_profile in = written(0, 10000000), out;
	struct pf_build *b = new_build();
	struct pf_read_error err;
	size_t len;
	char *bytes = pprof_bytes(&in, &len), *bytes2 = NULL;

	cr_assert_eq(pprof_read__buf(b, bytes, len, &err), 0);
	cr_assert_eq(folded_read__buf(b, "app;main;hot_a 1\n", 17, &err), 0);
	cr_assert_eq(pf_build__profile(b, NULL, &out), 0);
	cr_assert(pf_profile__counts_only(&out));
	free(bytes);
	free(bytes2);
	pf_build__free(b);
}

/* --- profiles built by hand, as other tools write them ----------------------- */

static void value_type(struct pb_buf *pb, uint32_t field, int64_t type, int64_t unit)
{
	size_t start = pb_begin(pb);

	pb_put_int64(pb, 1, type);
	pb_put_int64(pb, 2, unit);
	pb_end(pb, field, start);
}

/*
 * strings: "", samples, count, f_leaf, f_mid, f_root, /bin/x. One
 * location (id 7) at 0x10 with lines leaf_inlined, mid_inlined, root
 * (the last the caller), in mapping 3; a sample of count 4 at it; and
 * with bad set, a sample at location 8, which does not exist.
 */
/* Function fn's name is string name_base + fn. */
static int64_t name_base = 2;

static void hand_built(struct pb_buf *pb, bool bad, bool samples_type)
{
	static const char *const strs[] = { "", "samples", "count", "f_leaf", "f_mid", "f_root", "/bin/x", "cpu" };
	uint64_t loc = 7, missing = 8;
	int64_t value = 4;
	size_t start, s2;

	pb_init(pb);
	value_type(pb, 1, samples_type ? 1 : 7, 2);
	start = pb_begin(pb);
	pb_put_packed_uint64(pb, 1, &loc, 1);
	pb_put_packed_int64(pb, 2, &value, 1);
	pb_end(pb, 2, start);
	if (bad) {
		start = pb_begin(pb);
		pb_put_packed_uint64(pb, 1, &missing, 1);
		pb_put_packed_int64(pb, 2, &value, 1);
		pb_end(pb, 2, start);
	}
	start = pb_begin(pb);
	pb_put_uint64(pb, 1, 3);
	pb_put_int64(pb, 5, 6);
	pb_end(pb, 3, start);
	start = pb_begin(pb);
	pb_put_uint64(pb, 1, 7);
	pb_put_uint64(pb, 2, 3);
	pb_put_uint64(pb, 3, 0x10);
	for (uint64_t fn = 1; fn <= 3; fn++) {
		s2 = pb_begin(pb);
		pb_put_uint64(pb, 1, fn);
		pb_end(pb, 4, s2);
	}
	pb_end(pb, 4, start);
	for (uint64_t fn = 1; fn <= 3; fn++) {
		start = pb_begin(pb);
		pb_put_uint64(pb, 1, fn);
		pb_put_int64(pb, 2, name_base + fn);
		pb_end(pb, 5, start);
	}
	for (size_t i = 0; i < ARRAY_SIZE(strs); i++)
		pb_put_string(pb, 6, strs[i]);
	cr_assert_eq(pb->err, 0);
}

Test(pprof_read, inlined_lines_are_frames_caller_first)
{
	struct pf_build *b = new_build();
	struct pf_read_error err;
	struct pf_profile out;
	struct pb_buf pb;

	hand_built(&pb, false, true);
	cr_assert_eq(pprof_read__buf(b, pb.data, pb.len, &err), 0, "%s", err.why);
	cr_assert_eq(pf_build__profile(b, NULL, &out), 0);
	cr_assert_eq(out.nr_samples, 1);
	cr_assert_eq(out.samples[0].count, 4);
	cr_assert_str_eq(out.samples[0].comm, "[unknown]");
	cr_assert_eq(out.samples[0].nr_frames, 3);
	cr_assert_str_eq(out.samples[0].frames[0].name, "f_root");
	cr_assert_str_eq(out.samples[0].frames[1].name, "f_mid");
	cr_assert_str_eq(out.samples[0].frames[2].name, "f_leaf");
	cr_assert_str_eq(out.samples[0].frames[2].module, "/bin/x");
	cr_assert(pf_profile__counts_only(&out));
	pb_release(&pb);
	pf_build__free(b);
}

static void refused(const void *data, size_t len, int ret, const char *why, const struct pf_limits *l)
{
	struct pf_limits def = PF_LIMITS_DEFAULT_INIT;
	struct pf_build *b = pf_build__new(l ? l : &def);
	struct pf_read_error err;

	cr_assert_eq(pprof_read__buf(b, data, len, &err), ret, "%s", err.why);
	cr_assert(strstr(err.why, why), "'%s' has no '%s'", err.why, why);
	pf_build__free(b);
}

Test(pprof_read, malformed_refused_with_a_reason)
{
	struct pf_profile in = written(99, 0);
	struct pb_buf pb;
	size_t len;
	char *bytes = pprof_bytes(&in, &len);

	refused(bytes, len / 2, -EINVAL, "gzip", NULL);
	refused("a;b 1\n", 6, -EINVAL, "not a pprof profile", NULL);
	hand_built(&pb, true, true);
	refused(pb.data, pb.len, -EINVAL, "no location 8", NULL);
	pb_release(&pb);
	hand_built(&pb, false, false);
	refused(pb.data, pb.len, -EINVAL, "no sample type samples/count", NULL);
	pb_release(&pb);
	/* the last byte cut off: the string table's last string runs past the end */
	hand_built(&pb, false, true);
	refused(pb.data, pb.len - 1, -EINVAL, "malformed", NULL);
	pb_release(&pb);
	name_base = 90;
	hand_built(&pb, false, true);
	refused(pb.data, pb.len, -EINVAL, "string index 93 past the string table (8)", NULL);
	name_base = 2;
	pb_release(&pb);
	free(bytes);
}

Test(pprof_read, limits)
{
	struct pf_limits l = PF_LIMITS_DEFAULT_INIT;
	struct pf_profile in = written(99, 0);
	uint8_t zeros[4096] = { 0 }, z[8192];
	size_t len, zlen;
	char *bytes = pprof_bytes(&in, &len);
	z_stream zs = { 0 };

	l.max_frames = 2;
	refused(bytes, len, -E2BIG, "more than 2 frames", &l);
	l = (struct pf_limits)PF_LIMITS_DEFAULT_INIT;
	l.max_file = len - 1;
	refused(bytes, len, -E2BIG, "larger than", &l);
	/* 4 KiB of zeros gzip'd to a few bytes: past 1 KiB decompressed */
	cr_assert_eq(deflateInit2(&zs, 9, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = zeros;
	zs.avail_in = sizeof(zeros);
	zs.next_out = z;
	zs.avail_out = sizeof(z);
	cr_assert_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
	zlen = sizeof(z) - zs.avail_out;
	deflateEnd(&zs);
	l.max_file = 1024;
	refused(z, zlen, -E2BIG, "decompresses to more than", &l);
	{
		/* 4000 empty strings, 8 KB of file: many times that in tables */
		struct pb_buf pb;

		pb_init(&pb);
		for (int i = 0; i < 4000; i++)
			pb_put_string(&pb, 6, "");
		l = (struct pf_limits)PF_LIMITS_DEFAULT_INIT;
		l.max_bytes = 64 << 10;
		refused(pb.data, pb.len, -E2BIG, "its tables take more than", &l);
		pb_release(&pb);
	}
	free(bytes);
}
