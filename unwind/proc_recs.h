/* SPDX-License-Identifier: GPL-2.0 */
/*
 * proc_recs.h - what the tables worker knows of each pid it gave tables
 * (unwind_procs.c's; not for users of unwind_procs.h): a record while
 * the process lives, and once it is gone only how its tables went, for
 * the last PROC_RECS_GONE_KEPT of them. A run next to process churn
 * keeps as many records as there are live processes, not one per pid
 * ever met.
 */
#ifndef PROC_RECS_H
#define PROC_RECS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "unwind/unwind_procs_internal.h"

/*
 * What the worker knows of a pid it gave tables: which process it was
 * (its generation, else its start time: a reused pid is another), the
 * reading its entry is made from, what was published for it, and how the
 * last update went.
 */
struct proc_rec {
	pid_t pid;
	uint32_t pub_gen;	/* the generation its entry was published in; 0: by start_time */
	uint64_t start_time;	/* /proc/PID/stat, clock ticks since boot; 0: not known */
	uint64_t fingerprint;	/* of the entry published; 0: none */
	int status;		/* the last update: 0 or -errno */
	uint64_t published_ns;	/* CLOCK_MONOTONIC: first published, or 0 */
	struct unwind_held held;	/* the files its entry points at */
	struct unwind_reading reading;	/* none once the entry is gone (the sweep) */
	uint32_t uid, uid_gen;	/* the uid a reading of generation uid_gen came with; 0: none */
};

/* pid's record, made when missing (NULL: no memory). */
struct proc_rec *proc_recs__of(struct proc_recs *r, pid_t pid);
/* pid's record, or NULL. */
struct proc_rec *proc_recs__find(const struct proc_recs *r, pid_t pid);
/*
 * Every record, for a walk that may let some go: an array of nr (the
 * caller frees it), or NULL (no memory, or none).
 */
struct proc_rec **proc_recs__gather(const struct proc_recs *r, size_t *nr);
/*
 * rec's process is gone: rec freed, with its reading (the caller let go
 * of the files it held), its outcome kept among the last gone.
 */
void proc_recs__let_go(struct proc_recs *r, struct proc_rec *rec);
/* How pid's tables went: its record's, or the last outcome kept of a process gone at pid. */
void proc_recs__status(const struct proc_recs *r, pid_t pid, struct unwind_pid_status *st);
void proc_recs__free(struct proc_recs *r);

/* (unwind_procs.c) pid key's entries deleted, and the files rec (if any) held let go. */
void unwind_procs__forget(struct unwind_procs *u, __u32 key, struct proc_rec *rec);
/* rec's process is gone: its entries deleted (if any is left), its record let go. */
void unwind_procs__let_go(struct unwind_procs *u, struct proc_rec *rec);

#endif /* PROC_RECS_H */
