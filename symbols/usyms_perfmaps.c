// SPDX-License-Identifier: GPL-2.0
/*
 * usyms_perfmaps.c - the JIT perf maps of processes with anonymous
 * executable memory (perfmap.h): read on the loader thread, shared by the
 * processes that name one file, read again only when it changed, and
 * freed only between profiles, since printed names point into them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/clock.h"
#include "symbols/perfmap.h"
#include "symbols/usyms_internal.h"

static bool shared_perfmap__is(const struct shared_perfmap *sp, const struct stat *sb)
{
	return sp && file_stamp__is(&sp->id, sb);
}

/*
 * Drop a process's reference. A map nobody uses moves to the retired
 * list, freed by shared_perfmap__free_retired(): names from it may be
 * in a profile being printed right now. Under u->lock.
 */
void shared_perfmap__put(struct usyms *u, struct shared_perfmap *sp)
{
	struct shared_perfmap **pp;

	if (!sp || --sp->refs)
		return;
	for (pp = &u->perfmaps; *pp; pp = &(*pp)->next) {
		if (*pp == sp) {
			*pp = sp->next;
			break;
		}
	}
	sp->next = u->retired_perfmaps;
	u->retired_perfmaps = sp;
}

void shared_perfmap__free_list(struct shared_perfmap *sp)
{
	while (sp) {
		struct shared_perfmap *next = sp->next;

		perfmap__free(sp->pm);
		free(sp);
		sp = next;
	}
}

/*
 * Free the perf maps no process uses any more. Only from the public calls
 * made between profiles (adding or refreshing a process, pruning), never
 * while one is printed: its names may come from them.
 */
void shared_perfmap__free_retired(struct usyms *u)
{
	shared_perfmap__free_list(u->retired_perfmaps);
	u->retired_perfmaps = NULL;
}

/*
 * Read the perf map open at fd (sb its stat) for proc, or share the one
 * already read from the same file (processes can name one file, by
 * links): on the loader thread, or on the caller's without one. Ends the
 * read proc__open_perfmap() made pending.
 */
void proc__read_perfmap(struct usyms *u, struct proc *proc, int fd, const struct stat *sb)
{
	struct shared_perfmap *sp;
	struct perfmap *pm = NULL;
	uint64_t cost = 0;
	char name[128];
	bool fresh = false;

	usyms_lock(u);
	for (sp = u->perfmaps; sp && !shared_perfmap__is(sp, sb); sp = sp->next)
		;
	if (sp)
		sp->refs++;
	usyms_unlock(u);
	if (!sp) {
		uint64_t start = monotonic_ns();
		int err;

		budget__clear();
		pm = perfmap__load_fd(fd, sb, &u->budget);
		err = pm ? 0 : errno;
		cost = monotonic_ns() - start;
		if (err == EFBIG) {
			snprintf(name, sizeof(name), "/tmp/perf-%d.map", (int)proc->pid);
			usyms_notice(u, name, budget__why());
		}
		/* a refusal is kept as well: the same file is not read again */
		sp = pm || err == EFBIG ? calloc(1, sizeof(*sp)) : NULL;
		if (sp) {
			*sp = (struct shared_perfmap){ .pm = pm, .refs = 1 };
			file_stamp__init(&sp->id, sb);
			fresh = true;
		} else {
			perfmap__free(pm);
		}
	}
	usyms_lock(u);
	if (fresh) {
		sp->next = u->perfmaps;
		u->perfmaps = sp;
	}
	if (sp) {
		shared_perfmap__put(u, proc->perfmap);
		proc->perfmap = sp;
	}
	proc->perfmap_cost_ns = cost;
	proc->pending--;
	usyms_unlock(u);
}

/*
 * proc's perf map, opened when it is to be read (proc__read_perfmap()):
 * not while a read of it is pending, nor when it is the file read
 * already. A descriptor and *sb, else -errno (-EALREADY: no read due).
 * The caller counts the read in proc->pending.
 */
int proc__open_perfmap(struct usyms *u, const struct proc *proc, struct stat *sb)
{
	int fd;

	if (proc->pending)
		return -EALREADY;
	fd = perfmap__open_pid(u->proc_root, proc->pid, sb);
	if (fd >= 0 && shared_perfmap__is(proc->perfmap, sb)) {
		close(fd);
		return -EALREADY;
	}
	return fd;
}

/* JIT code: the process's perf map, if it names addr. */
int proc__resolve_perfmap(struct proc *proc, uint64_t addr, struct usym *out)
{
	const struct perfmap_sym *ps = proc->perfmap && proc->perfmap->pm ?
				       perfmap__find(proc->perfmap->pm, addr) : NULL;

	if (!ps)
		return -ENOENT;
	out->name = ps->name;
	out->offset = addr - ps->start;
	out->reason = USYM_RESOLVED;
	return 0;
}
