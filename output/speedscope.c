// SPDX-License-Identifier: GPL-2.0
/*
 * speedscope.c - the speedscope JSON writer: intern the frames, group the
 * samples by process, then write the shared frame table and one sampled
 * profile per process.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/escape.h"
#include "output/keymap.h"
#include "output/speedscope.h"
#include "trace_helpers.h"

#define SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"
/*
 * speedscope opens a file in its Time Order view, and nothing in the file
 * format chooses another (only its URL can: #view=left-heavy). Our samples
 * are counts of distinct stacks, in no order of time: there a stack looks
 * like one long call. The name, the page's title, says where to look.
 */
#define SPEEDSCOPE_VIEW_HINT \
	" [counted samples, not a timeline: view Left Heavy (key 2) or Sandwich (key 3)]"

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
	struct sink out;
};

static int intern_frame(struct ss_state *s, const struct pf_frame *f, size_t *idx)
{
	int ret;

	key__reset(&s->key);
	key__add_str(&s->key, f->name);
	key__add_str(&s->key, pf_frame__file(f));
	ret = keymap__intern_key(s->frames, &s->key, idx);
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
	ret = keymap__intern_key(s->groups, &s->key, idx);
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
		s->group[idx].weight += pf_weigh(smp->count, weight);
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
	struct sink *o = &s->out;

	sink__printf(o, "\"shared\":{\"frames\":[");
	for (size_t i = 0; i < n; i++) {
		const char *file = pf_frame__file(s->frame[i]);

		sink__printf(o, "%s\n{\"name\":", i ? "," : "");
		sink__json(o, s->frame[i]->name);
		if (file) {
			sink__printf(o, ",\"file\":");
			sink__json(o, file);
		}
		if (s->frame[i]->line > 0)
			sink__printf(o, ",\"line\":%lld", (long long)s->frame[i]->line);
		sink__printf(o, "}");
	}
	sink__printf(o, "]},\n");
}

static void write_profile(struct ss_state *s, const struct pf_profile *p,
			  const struct ss_group *g, uint64_t weight, const char *unit)
{
	struct sink *o = &s->out;
	char *name;
	int ret;

	if (p->per_thread)
		ret = asprintf(&name, "%s (%" PRIu32 "/%" PRIu32 ")", g->comm, g->pid, g->tid);
	else
		ret = asprintf(&name, "%s (%" PRIu32 ")", g->comm, g->pid);
	if (ret < 0) {
		sink__fail(o, -ENOMEM);
		return;
	}
	sink__printf(o, "{\"type\":\"sampled\",\"name\":");
	sink__json(o, name);
	free(name);
	sink__printf(o, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64 ",\n\"samples\":[",
		     unit, g->weight);
	for (size_t k = 0; k < g->nr_samples; k++) {
		size_t i = s->by_group[g->first + k];

		sink__printf(o, "%s[", k ? ",\n" : "");
		for (size_t j = s->frame_off[i]; j < s->frame_off[i + 1]; j++)
			sink__printf(o, "%s%zu", j > s->frame_off[i] ? "," : "", s->frame_idx[j]);
		sink__printf(o, "]");
	}
	sink__printf(o, "],\n\"weights\":[");
	for (size_t k = 0; k < g->nr_samples; k++) {
		size_t i = s->by_group[g->first + k];

		sink__printf(o, "%s%" PRIu64, k ? "," : "", pf_weigh(p->samples[i].count, weight));
	}
	sink__printf(o, "]}");
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
	struct ss_state s = { .out = { .f = out } };
	const char *unit;
	uint64_t weight;
	char *name;
	bool in_ns;
	size_t n;
	int err;

	err = pf_profile__sample_weight(p, &weight, &in_ns);
	if (!err)
		err = collect(&s, p, weight);
	if (err)
		goto out;
	unit = in_ns ? "nanoseconds" : "none";

	if (asprintf(&name, "%s" SPEEDSCOPE_VIEW_HINT, p->title && *p->title ? p->title : "profile") < 0) {
		err = -ENOMEM;
		goto out;
	}
	sink__printf(&s.out, "{\"$schema\":\"%s\",\n\"name\":", SPEEDSCOPE_SCHEMA);
	sink__json(&s.out, name);
	free(name);
	sink__printf(&s.out, ",\n\"exporter\":\"profile\",\n\"activeProfileIndex\":0,\n");
	write_frames(&s);
	sink__printf(&s.out, "\"profiles\":[");
	n = keymap__count(s.groups);
	for (size_t g = 0; g < n; g++) {
		sink__printf(&s.out, "%s\n", g ? "," : "");
		write_profile(&s, p, &s.group[s.group_order[g]], weight, unit);
	}
	sink__printf(&s.out, "]}\n");
	err = s.out.err;
out:
	state__release(&s);
	return err;
}
