// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_from_input.c - the readers of --from: the first byte picks folded
 * stacks (even) or pprof (odd) and small limits, the rest is the file.
 * What is read stays within the limits and adds up (the total is the sum
 * of the stacks' counts); written as pprof and read back, it is the same
 * number of samples.
 */
#include <errno.h>

#include "output/folded_read.h"
#include "fuzz.h"
#include "output/pf_build.h"
#include "output/pprof.h"
#include "output/pprof_read.h"

static struct pf_limits limits(uint8_t sel)
{
	struct pf_limits l = PF_LIMITS_DEFAULT_INIT;

	/* the budget itself is fuzzed: small ones are hit, not just read about */
	l.max_line = 16 + (sel >> 1 & 7) * 64;
	l.max_frames = 1 + (sel >> 4 & 3) * 16;
	l.max_stacks = 1 + (sel >> 6) * 40;
	l.max_bytes = 1 << 20;
	l.max_file = 1 << 20;
	return l;
}

static uint64_t check(struct pf_build *b, const struct pf_limits *l, struct pf_profile *p)
{
	uint64_t sum = 0;

	FUZZ_CHECK(!pf_build__profile(b, "fuzz", p));
	FUZZ_CHECK(p->nr_samples == pf_build__nr_stacks(b) && p->nr_samples <= l->max_stacks);
	for (size_t i = 0; i < p->nr_samples; i++) {
		const struct pf_sample *s = &p->samples[i];

		FUZZ_CHECK(s->comm && s->nr_frames <= l->max_frames && s->count);
		for (size_t k = 0; k < s->nr_frames; k++)
			fuzz_touch(s->frames[k].name);
		sum += s->count;
	}
	FUZZ_CHECK(sum == pf_build__total(b));
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pf_profile p, again;
	struct pf_read_error err;
	struct pf_limits l, big = PF_LIMITS_DEFAULT_INIT;
	struct pf_build *b, *b2;
	char *out = NULL;
	size_t out_len = 0;
	uint64_t total;
	FILE *f;
	int ret;

	if (!size)
		return 0;
	l = limits(data[0]);
	b = pf_build__new(&l);
	if (!b)
		return 0;
	if (data[0] & 1)
		ret = pprof_read__buf(b, data + 1, size - 1, &err);
	else
		ret = folded_read__buf(b, (const char *)data + 1, size - 1, &err);
	FUZZ_CHECK(ret <= 0 && (!ret || err.why[0]));
	if (ret) {
		pf_build__free(b);
		return 0;
	}
	total = check(b, &l, &p);
	f = open_memstream(&out, &out_len);
	if (!f) {
		pf_build__free(b);
		return 0;
	}
	ret = pprof__write(&p, f);
	FUZZ_CHECK(!fclose(f) && (!ret || ret == -ENOMEM));
	/* pprof's values are int64: a larger total is saturated there */
	if (!ret && total <= INT64_MAX) {
		b2 = pf_build__new(&big);
		FUZZ_CHECK(b2);
		ret = pprof_read__buf(b2, out, out_len, &err);
		FUZZ_CHECK(!ret);
		FUZZ_CHECK(check(b2, &big, &again) == total);
		pf_build__free(b2);
	}
	free(out);
	pf_build__free(b);
	return 0;
}
