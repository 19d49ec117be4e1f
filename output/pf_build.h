/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pf_build.h - build a struct pf_profile (profile_data.h) from stacks read
 * out of files (--from): the folded and pprof readers add samples here,
 * and the output writers take the profile it holds.
 *
 * Strings are interned (one copy each), identical stacks are merged and
 * their counts summed, so that several inputs add up. Everything read is
 * the file's, not ours: the builder holds at most limits->max_stacks
 * distinct stacks and limits->max_bytes of memory, and refuses what would
 * go past them (-E2BIG) rather than grow without bound.
 */
#ifndef PF_BUILD_H
#define PF_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "output/profile_data.h"

/* What one run of --from takes at most, whatever its files say. */
struct pf_limits {
	size_t max_line;	/* folded: bytes in a line, newline included */
	size_t max_frames;	/* frames in a stack */
	size_t max_stacks;	/* distinct stacks, all inputs together */
	size_t max_bytes;	/* memory the builder holds: strings, stacks, keys */
	size_t max_file;	/* pprof: bytes of a file, and of it decompressed */
};

#define PF_LIMITS_DEFAULT_INIT {					\
	.max_line = 1 << 20,						\
	.max_frames = 4096,						\
	.max_stacks = 1 << 20,						\
	.max_bytes = (size_t)1 << 30,					\
	.max_file = (size_t)1 << 30,					\
}

struct pf_build;

/*
 * Why a reader refused its input, for the caller's one line
 * "'FILE' line N: why" (line 0: no line, as in a pprof file).
 */
struct pf_read_error {
	uint64_t line;
	char why[160];
};

/* NULL with errno set. limits is copied. */
struct pf_build *pf_build__new(const struct pf_limits *limits);
void pf_build__free(struct pf_build *b);

const struct pf_limits *pf_build__limits(const struct pf_build *b);

/*
 * The builder's copy of s[0, len) (NUL-terminated), the same pointer for
 * the same bytes; NULL with errno ENOMEM or E2BIG (past max_bytes).
 */
const char *pf_build__str(struct pf_build *b, const char *s, size_t len);

/*
 * Add s (frames root first); its strings must come from pf_build__str(),
 * its frames are copied. A stack already added (same comm, pid, tid and
 * frames) gets s->count added to its count. Returns 0, -E2BIG past
 * max_frames, max_stacks or max_bytes, -EOVERFLOW when a count would pass
 * UINT64_MAX, or -ENOMEM.
 */
int pf_build__add(struct pf_build *b, const struct pf_sample *s);

/*
 * What err, a failure of pf_build__add() or pf_build__str() (-E2BIG,
 * -EOVERFLOW, -ENOMEM), means, in words for a pf_read_error: "more than
 * 1048576 distinct stacks", "the stacks take more than 1024 MiB"...
 */
void pf_build__why(const struct pf_build *b, int err, char *buf, size_t size);

/* Distinct stacks so far, and the sum of their counts. */
size_t pf_build__nr_stacks(const struct pf_build *b);
uint64_t pf_build__total(const struct pf_build *b);

/*
 * What the samples measure, as the writers take it (profile_data.h):
 * every input says its own and the builder keeps one rate only when
 * they all agree. pf_build__rate() records one input's: frequency and
 * period 0 for an input that says none (folded files), which makes the
 * profile count samples only.
 */
void pf_build__rate(struct pf_build *b, long period, const char *event);
/* (An input whose counts are ns of "off_cpu" or "wall" says period 0 and that as event.) */
/* An input's time span (0, 0: not known); the profile covers them all. */
void pf_build__span(struct pf_build *b, uint64_t start_ns, uint64_t duration_ns);
/* Any tid is meaningful (a per-thread input). */
void pf_build__per_thread(struct pf_build *b);

/*
 * The profile built, title as given (may be NULL). Valid until the next
 * add or pf_build__free(); -ENOMEM.
 */
int pf_build__profile(struct pf_build *b, const char *title, struct pf_profile *p);

#endif /* PF_BUILD_H */
