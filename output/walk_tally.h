/* SPDX-License-Identifier: GPL-2.0 */
/*
 * walk_tally.h - how each process's user stacks were walked over the
 * whole run, every profile printed: with unwind tables, or by frame
 * pointers because its tables were not loaded (KEY_USER_NO_TABLES). A
 * process most of whose stacks went without tables is said in one line
 * at the end, with why, even without -v: its stacks are likely cut short.
 */
#ifndef WALK_TALLY_H
#define WALK_TALLY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "collect/aggregate.h"
#include "unwind/unwind_procs.h"

/* A process is named when at least this many of its stacks, and this share, lacked tables. */
#define WALK_TALLY_MIN_STACKS 20
#define WALK_TALLY_MIN_PCT 20
/* Named at most; the others are counted. */
#define WALK_TALLY_MAX_LINES 5

struct walk_tally;

/*
 * distinct: count each distinct stack once, not by its samples (a profile
 * whose counts are time: --off-cpu, --wall).
 */
struct walk_tally *walk_tally__new(bool distinct);
/* Count the samples (or stacks) of a with user stacks, by process. 0 or -ENOMEM. */
int walk_tally__add(struct walk_tally *t, const struct agg *a);
/* What became of pid's unwind tables (unwind_jobs__status()). */
typedef void (*walk_status_fn)(pid_t pid, struct unwind_pid_status *st, void *ctx);
/* One line per process over the bounds above, the most samples first, with why in words. */
void walk_tally__report(const struct walk_tally *t, FILE *f, walk_status_fn status, void *ctx);
void walk_tally__free(struct walk_tally *t);

#endif /* WALK_TALLY_H */
