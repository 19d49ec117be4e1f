/* SPDX-License-Identifier: GPL-2.0 */
/*
 * maps_handoff.h - readings of processes' mappings handed from the main
 * thread to a worker (unwind tables, Python): the main thread reads
 * /proc/PID/maps once, for the symbols, and puts the reading here; the
 * pid's job takes it on the worker. One reading waits per pid, the newest:
 * a worker only ever needs the mappings of now. Thread-safe (a mutex
 * inside); what waits is bounded by the pids the caller queues, since it
 * takes a reading back when the pid could not be queued.
 */
#ifndef MAPS_HANDOFF_H
#define MAPS_HANDOFF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "symbols/proc_maps.h"

/* A uid not known: whose the process is, is read where it matters. */
#define MAPS_UID_UNKNOWN UINT32_MAX

/*
 * A reading of pid's mappings, made while it ran generation gen
 * (profile.h), whose sampled task had uid (the sampler's notice says).
 */
struct maps_reading {
	pid_t pid;
	uint32_t gen;
	uint32_t uid;
	struct proc_maps maps;
};

struct maps_handoff;

/* NULL with errno. */
struct maps_handoff *maps_handoff__new(void);
/*
 * Hand over pid's reading of generation gen (uid: its user, or
 * MAPS_UID_UNKNOWN), taking maps (emptied, on
 * failure too), in place of one waiting: 0, or -ENOMEM (nothing waits
 * for pid then).
 */
int maps_handoff__put(struct maps_handoff *h, pid_t pid, uint32_t gen, uint32_t uid,
		      struct proc_maps *maps);
/* pid's reading waiting, taken out (maps_reading__free() it), or NULL: none. */
struct maps_reading *maps_handoff__take(struct maps_handoff *h, pid_t pid);
/* Readings waiting now. */
size_t maps_handoff__waiting(struct maps_handoff *h);
/* NULL: nothing. */
void maps_reading__free(struct maps_reading *r);
/* With the readings still waiting. NULL: nothing. */
void maps_handoff__free(struct maps_handoff *h);

#endif /* MAPS_HANDOFF_H */
