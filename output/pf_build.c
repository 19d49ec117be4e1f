// SPDX-License-Identifier: GPL-2.0
/*
 * pf_build.c - the profile --from builds: interned strings, frames
 * numbered by their interned pointers and numbers, stacks merged by a key
 * of their frames' numbers, and a running count of the memory all of it
 * takes, checked before each addition.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "output/keymap.h"
#include "output/pf_build.h"
#include "trace_helpers.h"

/* What a keymap entry costs beside its key: the entry, a slot or two, malloc's header. */
#define ENTRY_OVERHEAD 64

struct stack {
	const char *comm;
	uint32_t pid, tid;
	struct pf_frame *frames;
	size_t nr_frames;
	uint64_t count;
};

struct pf_build {
	struct pf_limits limits;
	struct keymap *strings, *frames, *stacks;	/* frames: the distinct ones, for stack keys */
	struct stack *stack;
	size_t cap_stack;
	struct key key;		/* a frame's */
	uint8_t *skey;		/* a stack's */
	size_t len_skey, cap_skey;
	size_t bytes;		/* held, as counted against limits.max_bytes */
	size_t nr_stacks;	/* with a record in stack[] */
	bool broken;		/* an addition failed half-way: no more */
	uint64_t total;
	/* the rate every input agreed on so far */
	bool rate_set, rate_mixed;
	long period;
	const char *event;
	uint64_t start_ns, end_ns;
	bool per_thread;
	struct pf_sample *samples;	/* pf_build__profile()'s */
};

struct pf_build *pf_build__new(const struct pf_limits *limits)
{
	struct pf_build *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->limits = *limits;
	b->strings = keymap__new();
	b->stacks = keymap__new();
	b->frames = keymap__new();
	if (!b->strings || !b->stacks || !b->frames) {
		pf_build__free(b);
		errno = ENOMEM;
		return NULL;
	}
	return b;
}

void pf_build__free(struct pf_build *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nr_stacks; i++)
		free(b->stack[i].frames);
	free(b->stack);
	keymap__free(b->strings);
	keymap__free(b->stacks);
	keymap__free(b->frames);
	key__release(&b->key);
	free(b->skey);
	free(b->samples);
	free(b);
}

const struct pf_limits *pf_build__limits(const struct pf_build *b)
{
	return &b->limits;
}

/* Take n more bytes of the budget: 0, or -E2BIG when they do not fit. */
static int take(struct pf_build *b, size_t n)
{
	if (n > b->limits.max_bytes || b->bytes > b->limits.max_bytes - n)
		return -E2BIG;
	b->bytes += n;
	return 0;
}

const char *pf_build__str(struct pf_build *b, const char *s, size_t len)
{
	size_t before = keymap__count(b->strings), idx;
	int ret;

	if (len > b->limits.max_bytes) {
		errno = E2BIG;
		return NULL;
	}
	ret = keymap__intern(b->strings, s, len, &idx);
	if (ret < 0) {
		errno = -ret;
		return NULL;
	}
	/* a new string was copied: count it, and take it back out of reach when over */
	if (keymap__count(b->strings) > before && take(b, len + 1 + ENTRY_OVERHEAD)) {
		errno = E2BIG;
		return NULL;
	}
	return keymap__key(b->strings, idx, &len);
}

/* The index of frame f among the distinct frames, its strings by address: 0 or -errno. */
static int frame_index(struct pf_build *b, const struct pf_frame *f, uint32_t *idx)
{
	struct key *k = &b->key;
	size_t i;
	int ret;

	key__reset(k);
	key__add_u64(k, (uintptr_t)f->name);
	key__add_u64(k, (uintptr_t)f->module);
	key__add_u64(k, (uintptr_t)f->build_id);
	key__add_u64(k, f->addr);
	key__add_u64(k, f->kernel);
	key__add_u64(k, (uintptr_t)f->func);
	key__add_u64(k, (uintptr_t)f->src_file);
	key__add_u64(k, (uint64_t)f->start_line);
	key__add_u64(k, (uint64_t)f->line);
	if (k->err)
		return k->err;
	if (keymap__find(b->frames, k->buf, k->len, &i)) {
		if ((ret = take(b, k->len + ENTRY_OVERHEAD)))
			return ret;
		if ((ret = keymap__intern_key(b->frames, k, &i)) < 0)
			return ret;
	}
	if (i > UINT32_MAX)
		return -E2BIG;
	*idx = (uint32_t)i;
	return 0;
}

/*
 * The key of a stack in b->skey: comm (interned: by its address), pid,
 * tid, then its frames' indices, all of fixed width. 0 or -errno.
 */
static int stack_key(struct pf_build *b, const struct pf_sample *s)
{
	size_t len = sizeof(uintptr_t) + 2 * sizeof(uint32_t) + s->nr_frames * sizeof(uint32_t);
	uintptr_t comm = (uintptr_t)s->comm;
	uint8_t *p;
	int ret;

	if (len > b->cap_skey) {
		p = realloc(b->skey, len);
		if (!p)
			return -ENOMEM;
		b->skey = p;
		b->cap_skey = len;
	}
	p = b->skey;
	memcpy(p, &comm, sizeof(comm));
	memcpy(p + sizeof(comm), &s->pid, sizeof(s->pid));
	memcpy(p + sizeof(comm) + 4, &s->tid, sizeof(s->tid));
	p += sizeof(comm) + 8;
	for (size_t i = 0; i < s->nr_frames; i++, p += sizeof(uint32_t)) {
		uint32_t idx;

		if ((ret = frame_index(b, &s->frames[i], &idx)))
			return ret;
		memcpy(p, &idx, sizeof(idx));
	}
	b->len_skey = len;
	return 0;
}

/* A new stack, at index idx of the stacks' keymap: its record, and its frames copied. */
static int add_new(struct pf_build *b, size_t idx, const struct pf_sample *s)
{
	struct stack *st;

	if (array_reserve((void **)&b->stack, &b->cap_stack, idx, sizeof(*b->stack)))
		return -ENOMEM;
	st = &b->stack[idx];
	*st = (struct stack){ .comm = s->comm, .pid = s->pid, .tid = s->tid,
			      .nr_frames = s->nr_frames, .count = s->count };
	if (s->nr_frames) {
		st->frames = malloc(s->nr_frames * sizeof(*st->frames));
		if (!st->frames)
			return -ENOMEM;
		memcpy(st->frames, s->frames, s->nr_frames * sizeof(*st->frames));
	}
	b->nr_stacks++;
	return 0;
}

int pf_build__add(struct pf_build *b, const struct pf_sample *s)
{
	size_t idx;
	int ret;

	if (b->broken)
		return -ENOMEM;
	if (s->nr_frames > b->limits.max_frames)
		return -E2BIG;
	if (s->count > UINT64_MAX - b->total)
		return -EOVERFLOW;
	if ((ret = stack_key(b, s)))
		return ret;
	if (!keymap__find(b->stacks, b->skey, b->len_skey, &idx)) {
		b->stack[idx].count += s->count;
		b->total += s->count;
		return 0;
	}
	if (b->nr_stacks >= b->limits.max_stacks)
		return -E2BIG;
	ret = take(b, b->len_skey + ENTRY_OVERHEAD + sizeof(struct stack) +
		      s->nr_frames * sizeof(*s->frames));
	if (ret)
		return ret;
	ret = keymap__intern(b->stacks, b->skey, b->len_skey, &idx);
	if (ret >= 0)
		ret = add_new(b, idx, s);
	if (ret < 0) {
		/* a key without its stack, or none at all: no more adding */
		b->broken = true;
		return ret;
	}
	b->total += s->count;
	return 0;
}

void pf_build__why(const struct pf_build *b, int err, char *buf, size_t size)
{
	const struct pf_limits *l = &b->limits;

	if (err == -EOVERFLOW)
		snprintf(buf, size, "the counts add up to more than %" PRIu64, UINT64_MAX);
	else if (err == -E2BIG && b->nr_stacks >= l->max_stacks)
		snprintf(buf, size, "more than %zu distinct stacks", l->max_stacks);
	else if (err == -E2BIG)
		snprintf(buf, size, "the stacks take more than %zu MiB", l->max_bytes >> 20);
	else
		snprintf(buf, size, "%s", strerror(-err));
}

size_t pf_build__nr_stacks(const struct pf_build *b)
{
	return b->nr_stacks;
}

uint64_t pf_build__total(const struct pf_build *b)
{
	return b->total;
}

void pf_build__rate(struct pf_build *b, long period, const char *event)
{
	if (!b->rate_set) {
		b->rate_set = true;
		b->period = period;
		b->event = event;
		return;
	}
	if (b->period != period || !b->event != !event || (event && strcmp(b->event, event)))
		b->rate_mixed = true;
}

void pf_build__span(struct pf_build *b, uint64_t start_ns, uint64_t duration_ns)
{
	uint64_t end = start_ns + duration_ns < start_ns ? UINT64_MAX : start_ns + duration_ns;

	if (!start_ns)
		return;
	if (!b->start_ns || start_ns < b->start_ns)
		b->start_ns = start_ns;
	if (end > b->end_ns)
		b->end_ns = end;
}

void pf_build__per_thread(struct pf_build *b)
{
	b->per_thread = true;
}

int pf_build__profile(struct pf_build *b, const char *title, struct pf_profile *p)
{
	struct pf_sample *samples = realloc(b->samples, (b->nr_stacks ? b->nr_stacks : 1) * sizeof(*samples));

	if (!samples)
		return -ENOMEM;
	b->samples = samples;
	for (size_t i = 0; i < b->nr_stacks; i++) {
		const struct stack *st = &b->stack[i];

		samples[i] = (struct pf_sample){ .comm = st->comm, .pid = st->pid, .tid = st->tid,
						 .frames = st->frames, .nr_frames = st->nr_frames,
						 .count = st->count };
	}
	/* inputs of ns off the CPU or of wall time (no period, the measure as event) */
	bool measure = !b->rate_mixed && !b->period && b->event &&
		       (!strcmp(b->event, "off_cpu") || !strcmp(b->event, "wall"));

	*p = (struct pf_profile){
		.start_ns = b->start_ns,
		.duration_ns = b->end_ns - b->start_ns,
		/* a rate in common, or samples counted alone */
		.period = b->rate_mixed ? 0 : b->period,
		.event = b->rate_mixed || measure ? NULL : b->event,
		.measure = measure ? b->event : NULL,
		.title = title,
		.per_thread = b->per_thread,
		.samples = samples,
		.nr_samples = b->nr_stacks,
	};
	return 0;
}
