// SPDX-License-Identifier: GPL-2.0
/*
 * speedscope.c - the speedscope JSON writer: intern the frames, group the
 * samples by process, then write the shared frame table and one sampled
 * profile per process.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "keymap.h"
#include "speedscope.h"
#include "trace_helpers.h"

#define SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"
#define KERNEL_FILE "[kernel.kallsyms]"

struct ss_group {
	const char *comm;	/* of its first sample */
	uint32_t pid, tid;
	uint64_t weight;
	size_t nr_samples;
	size_t first;		/* into the samples ordered by group */
};

struct ss_state {
	struct keymap *frames;		/* (name, file) -> frame index */
	const struct pf_frame **frame;	/* the first frame seen for each index */
	size_t cap_frame;
	size_t *frame_idx;		/* every sample's frame indices, in turn */
	size_t *frame_off;		/* where sample i's start in frame_idx */
	struct keymap *groups;		/* pid or (pid, tid) -> group */
	struct ss_group *group;
	size_t cap_group;
	size_t *group_of;		/* sample -> group */
	size_t *by_group;		/* sample indices, grouped */
	size_t *group_order;		/* groups, heaviest first */
	struct key key;
	FILE *f;
	int err;			/* first write error */
};

static void out_printf(struct ss_state *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void out_printf(struct ss_state *s, const char *fmt, ...)
{
	va_list ap;

	if (s->err)
		return;
	errno = 0;
	va_start(ap, fmt);
	if (vfprintf(s->f, fmt, ap) < 0)
		s->err = errno ? -errno : -EIO;
	va_end(ap);
}

static void out_json(struct ss_state *s, const char *str)
{
	if (!s->err)
		s->err = escape__json(s->f, str);
}

static const char *frame_file(const struct pf_frame *f)
{
	if (f->module)
		return f->module;
	return f->kernel ? KERNEL_FILE : NULL;
}

static int intern_frame(struct ss_state *s, const struct pf_frame *f, size_t *idx)
{
	int ret;

	key__reset(&s->key);
	key__add_str(&s->key, f->name);
	key__add_str(&s->key, frame_file(f));
	if (s->key.err)
		return s->key.err;
	ret = keymap__intern(s->frames, s->key.buf, s->key.len, idx);
	if (ret <= 0)
		return ret;
	if (array_reserve((void **)&s->frame, &s->cap_frame, *idx, sizeof(*s->frame)))
		return -ENOMEM;
	s->frame[*idx] = f;
	return 0;
}

static int intern_group(struct ss_state *s, const struct pf_profile *p,
			const struct pf_sample *smp, size_t *idx)
{
	int ret;

	key__reset(&s->key);
	key__add_u64(&s->key, smp->pid);
	if (p->per_thread)
		key__add_u64(&s->key, smp->tid);
	if (s->key.err)
		return s->key.err;
	ret = keymap__intern(s->groups, s->key.buf, s->key.len, idx);
	if (ret <= 0)
		return ret;
	if (array_reserve((void **)&s->group, &s->cap_group, *idx, sizeof(*s->group)))
		return -ENOMEM;
	s->group[*idx] = (struct ss_group){
		.comm = smp->comm ? smp->comm : "",
		.pid = smp->pid,
		.tid = p->per_thread ? smp->tid : 0,
	};
	return 0;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	if (b && a > UINT64_MAX / b)
		return UINT64_MAX;
	return a * b;
}

/* What one sample weighs and in which unit. */
static int sample_weight(const struct pf_profile *p, uint64_t *weight, const char **unit)
{
	if (p->frequency > 0) {
		*weight = 1000000000ULL / (uint64_t)p->frequency;
		if (!*weight)
			*weight = 1;
		*unit = "nanoseconds";
	} else if (p->period > 0) {
		*weight = (uint64_t)p->period;
		/* the cpu-clock event counts nanoseconds, hardware events do not */
		*unit = p->event && !strcmp(p->event, "cpu-clock") ? "nanoseconds" : "none";
	} else {
		return -EINVAL;
	}
	return 0;
}

static struct ss_group *sort_groups;

/* Heaviest first, then by pid and tid so that the order is stable. */
static int cmp_groups(const void *a, const void *b)
{
	const struct ss_group *x = &sort_groups[*(const size_t *)a];
	const struct ss_group *y = &sort_groups[*(const size_t *)b];

	if (x->weight != y->weight)
		return (x->weight < y->weight) - (x->weight > y->weight);
	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int collect(struct ss_state *s, const struct pf_profile *p, uint64_t weight)
{
	size_t nr_frames = 0, n, idx;
	int err;

	s->frames = keymap__new();
	s->groups = keymap__new();
	if (!s->frames || !s->groups)
		return -ENOMEM;
	for (size_t i = 0; i < p->nr_samples; i++)
		nr_frames += p->samples[i].nr_frames;
	s->frame_idx = malloc((nr_frames ? nr_frames : 1) * sizeof(*s->frame_idx));
	s->frame_off = malloc((p->nr_samples + 1) * sizeof(*s->frame_off));
	s->group_of = malloc((p->nr_samples ? p->nr_samples : 1) * sizeof(*s->group_of));
	s->by_group = malloc((p->nr_samples ? p->nr_samples : 1) * sizeof(*s->by_group));
	if (!s->frame_idx || !s->frame_off || !s->group_of || !s->by_group)
		return -ENOMEM;

	nr_frames = 0;
	for (size_t i = 0; i < p->nr_samples; i++) {
		const struct pf_sample *smp = &p->samples[i];

		s->frame_off[i] = nr_frames;
		for (size_t j = 0; j < smp->nr_frames; j++) {
			if ((err = intern_frame(s, &smp->frames[j], &idx)))
				return err;
			s->frame_idx[nr_frames++] = idx;
		}
		if ((err = intern_group(s, p, smp, &idx)))
			return err;
		s->group_of[i] = idx;
		s->group[idx].nr_samples++;
		s->group[idx].weight += mul_sat(smp->count, weight);
	}
	s->frame_off[p->nr_samples] = nr_frames;

	/* samples grouped, in their original order within a group */
	n = keymap__count(s->groups);
	idx = 0;
	for (size_t g = 0; g < n; g++) {
		s->group[g].first = idx;
		idx += s->group[g].nr_samples;
		s->group[g].nr_samples = 0;
	}
	for (size_t i = 0; i < p->nr_samples; i++) {
		struct ss_group *g = &s->group[s->group_of[i]];

		s->by_group[g->first + g->nr_samples++] = i;
	}

	s->group_order = malloc((n ? n : 1) * sizeof(*s->group_order));
	if (!s->group_order)
		return -ENOMEM;
	for (size_t g = 0; g < n; g++)
		s->group_order[g] = g;
	sort_groups = s->group;
	qsort(s->group_order, n, sizeof(*s->group_order), cmp_groups);
	return 0;
}

static void write_frames(struct ss_state *s)
{
	size_t n = keymap__count(s->frames);

	out_printf(s, "\"shared\":{\"frames\":[");
	for (size_t i = 0; i < n; i++) {
		const char *file = frame_file(s->frame[i]);

		out_printf(s, "%s\n{\"name\":", i ? "," : "");
		out_json(s, s->frame[i]->name);
		if (file) {
			out_printf(s, ",\"file\":");
			out_json(s, file);
		}
		out_printf(s, "}");
	}
	out_printf(s, "]},\n");
}

static void write_profile(struct ss_state *s, const struct pf_profile *p,
			  const struct ss_group *g, uint64_t weight, const char *unit)
{
	char *name;
	int ret;

	if (p->per_thread)
		ret = asprintf(&name, "%s (%" PRIu32 "/%" PRIu32 ")", g->comm, g->pid, g->tid);
	else
		ret = asprintf(&name, "%s (%" PRIu32 ")", g->comm, g->pid);
	if (ret < 0) {
		if (!s->err)
			s->err = -ENOMEM;
		return;
	}
	out_printf(s, "{\"type\":\"sampled\",\"name\":");
	out_json(s, name);
	free(name);
	out_printf(s, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64 ",\n\"samples\":[",
		   unit, g->weight);
	for (size_t k = 0; k < g->nr_samples; k++) {
		size_t i = s->by_group[g->first + k];

		out_printf(s, "%s[", k ? ",\n" : "");
		for (size_t j = s->frame_off[i]; j < s->frame_off[i + 1]; j++)
			out_printf(s, "%s%zu", j > s->frame_off[i] ? "," : "", s->frame_idx[j]);
		out_printf(s, "]");
	}
	out_printf(s, "],\n\"weights\":[");
	for (size_t k = 0; k < g->nr_samples; k++) {
		size_t i = s->by_group[g->first + k];

		out_printf(s, "%s%" PRIu64, k ? "," : "", mul_sat(p->samples[i].count, weight));
	}
	out_printf(s, "]}");
}

static void state__release(struct ss_state *s)
{
	keymap__free(s->frames);
	keymap__free(s->groups);
	free(s->frame);
	free(s->frame_idx);
	free(s->frame_off);
	free(s->group);
	free(s->group_of);
	free(s->by_group);
	free(s->group_order);
	key__release(&s->key);
}

int speedscope__write(const struct pf_profile *p, FILE *out)
{
	struct ss_state s = { .f = out };
	const char *unit;
	uint64_t weight;
	size_t n;
	int err;

	err = sample_weight(p, &weight, &unit);
	if (!err)
		err = collect(&s, p, weight);
	if (err)
		goto out;

	out_printf(&s, "{\"$schema\":\"%s\",\n\"name\":", SPEEDSCOPE_SCHEMA);
	out_json(&s, p->title && *p->title ? p->title : "profile");
	out_printf(&s, ",\n\"exporter\":\"profile\",\n\"activeProfileIndex\":0,\n");
	write_frames(&s);
	out_printf(&s, "\"profiles\":[");
	n = keymap__count(s.groups);
	for (size_t g = 0; g < n; g++) {
		out_printf(&s, "%s\n", g ? "," : "");
		write_profile(&s, p, &s.group[s.group_order[g]], weight, unit);
	}
	out_printf(&s, "]}\n");
	err = s.err;
out:
	state__release(&s);
	return err;
}
