/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gen_seen.h - the last generation (profile.h) of each pid whose mappings
 * were handed to the unwind worker, and when the pid was first noticed:
 * a generation's mappings are published once (unwind_jobs.c), and the
 * report says how long a process waited for its tables. Pruned to the
 * pids running the generation noted, so that it follows the live
 * processes, not every process the run saw. One thread only.
 */
#ifndef GEN_SEEN_H
#define GEN_SEEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct gen_seen {
	void *tree;	/* tsearch: by pid */
	size_t nr;
};

/*
 * Whether generation gen of pid is news: never noted, or another than the
 * one noted (then noted; a pid's first notice at now_ns). Without memory:
 * news, not noted.
 */
bool gen_seen__news(struct gen_seen *s, pid_t pid, uint32_t gen, uint64_t now_ns);
/* pid's next notice is news again (what it was handed could not be queued). */
void gen_seen__forget(struct gen_seen *s, pid_t pid);
/* When pid was first noticed (CLOCK_MONOTONIC ns), 0: not noted. */
uint64_t gen_seen__first_ns(const struct gen_seen *s, pid_t pid);
/*
 * Let go of the pids that run no generation now, or another than the
 * one noted (exit, exec: the next notice of the new one is news anyway);
 * gen(pid, ctx) says which they run, 0 for none. A pid forgotten
 * (gen_seen__forget) is kept while it runs one: its first notice still
 * counts. Returns how many went.
 */
size_t gen_seen__prune(struct gen_seen *s, uint32_t (*gen)(pid_t pid, void *ctx), void *ctx);
void gen_seen__release(struct gen_seen *s);

#endif /* GEN_SEEN_H */
