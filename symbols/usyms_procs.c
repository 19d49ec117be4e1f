// SPDX-License-Identifier: GPL-2.0
/*
 * usyms_procs.c - the process generations usyms knows: reading a
 * generation's executable mappings (checked against the generation the
 * sampler saw, before and after), the throttled re-reading of -p targets,
 * and freeing the generations whose samples are printed.
 */
#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "symbols/proc_maps.h"
#include "trace_helpers.h"
#include "symbols/usyms_internal.h"

static int proc_cmp(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->gen > y->gen) - (x->gen < y->gen);
}

/* Perf maps are freed with their list (shared_perfmap__put, usyms__free). */
void proc__free(void *p)
{
	struct proc *proc = p;

	map_history__release(&proc->maps);
	free(proc);
}

static struct proc *usyms_find_proc(struct usyms *u, pid_t pid, uint32_t gen)
{
	struct proc key = { .pid = pid, .gen = gen };
	void *node = tfind(&key, &u->procs, proc_cmp);

	return node ? *(struct proc **)node : NULL;
}

static bool map_entry__is_file(const struct map_entry *e)
{
	return e->inode && e->path[0] == '/';
}

/* Add a reading of pid's maps to proc's history, loading their files now. */
static int proc__fill(struct usyms *u, struct proc *proc, const struct proc_maps *maps)
{
	size_t nr = maps->nr;
	struct umap *um;
	bool has_anon = false;
	int err;

	if (nr > u->budget.max_mappings) {
		nr = u->budget.max_mappings;
		if (!proc->mappings_cut) {
			char name[64], why[160];

			proc->mappings_cut = true;
			snprintf(name, sizeof(name), "/proc/%d/maps", (int)proc->pid);
			snprintf(why, sizeof(why), "%zu executable mappings, over the budget of %llu: the first %zu kept",
				 maps->nr, (unsigned long long)u->budget.max_mappings, nr);
			usyms_notice(u, name, why);
		}
	}
	um = calloc(nr ? nr : 1, sizeof(*um));
	if (!um)
		return -ENOMEM;
	u->readings++;
	for (size_t i = 0; i < nr; i++) {
		const struct map_entry *e = &maps->entries[i];

		um[i].start = e->start;
		um[i].end = e->end;
		um[i].offset = e->offset;
		if (!strcmp(e->path, "[vdso]")) {
			um[i].kind = UMAP_VDSO;
			um[i].mod = &u->vdso;
			usyms_load_vdso(u);
		} else if (map_entry__is_file(e)) {
			um[i].kind = UMAP_FILE;
			um[i].mod = usyms_queue_module(u, proc->pid, e);
			if (!um[i].mod) {
				free(um);
				return -ENOMEM;
			}
			has_anon |= um[i].mod->not_elf;
		} else {
			um[i].kind = UMAP_ANON;
			/* the kernel's own pages are no JIT code: no perf map for them */
			has_anon |= strcmp(e->path, "[vsyscall]") && strcmp(e->path, "[uprobes]");
		}
	}
	err = map_history__update(&proc->maps, um, nr, monotonic_ns());
	/* once JIT code, always: its perf map names samples of earlier readings */
	proc->has_anon |= has_anon;
	return err;
}

/*
 * Whether maps holds just what proc's latest reading did: the same ranges
 * at the same offsets of the same files, by the device and inode the maps
 * print (a file rewritten in place keeps them: its symbols are checked
 * again by the next process generation that maps it, not by this one).
 */
static bool proc__same_reading(const struct usyms *u, const struct proc *proc,
			       const struct proc_maps *maps)
{
	const struct map_history *h = &proc->maps;
	size_t nr = maps->nr < u->budget.max_mappings ? maps->nr : u->budget.max_mappings;

	if (!h->nr_cur || h->nr_cur != nr)
		return false;
	for (size_t i = 0; i < nr; i++) {
		const struct map_entry *e = &maps->entries[i];
		const struct umap *um = &h->cur[i];
		enum umap_kind kind = !strcmp(e->path, "[vdso]") ? UMAP_VDSO :
				      map_entry__is_file(e) ? UMAP_FILE : UMAP_ANON;

		if (um->start != e->start || um->end != e->end || um->offset != e->offset ||
		    um->kind != kind)
			return false;
		if (kind == UMAP_FILE && (um->mod->inode != e->inode ||
					  um->mod->dev_major != e->dev_major ||
					  um->mod->dev_minor != e->dev_minor))
			return false;
	}
	return true;
}

/* Is gen still what pid runs (always, when generations are not checked)? */
static bool gen_current(const struct usyms *u, pid_t pid, uint32_t gen)
{
	return !gen || !u->gen_fn || u->gen_fn(pid, u->gen_ctx) == gen;
}

/*
 * Read pid's maps, if they are gen's: the generation is checked before and
 * after, so a reading is never taken for another image (an exec, a reused
 * pid, in between). -ESRCH when the process is gone or no longer gen.
 * Unless same (it holds just what the last reading did), the reading's
 * files are stamped before the second check: one look at each for
 * symbols, unwind tables and Python alike.
 */
static int read_gen_maps(struct usyms *u, const struct proc *proc, struct proc_maps *maps,
			 bool *same)
{
	pid_t pid = proc->pid;
	uint32_t gen = proc->gen;
	char path[4096];
	int err;

	if (!gen_current(u, pid, gen))
		return -ESRCH;
	snprintf(path, sizeof(path), "%s/%d/maps", u->proc_root, (int)pid);
	err = proc_maps__load_file(path, maps);
	if (err)
		return err == -ENOENT ? -ESRCH : err;
	*same = proc__same_reading(u, proc, maps);
	if (!*same)
		proc_maps__stamp(maps, u->proc_root, pid);
	/* a zombie's maps are empty: keep what was read while it ran */
	if (!maps->nr || !gen_current(u, pid, gen)) {
		proc_maps__release(maps);
		return -ESRCH;
	}
	return 0;
}

/*
 * Add a reading to proc; on failure proc keeps what it had. With keep,
 * the reading is handed over there (empty on failure).
 */
static int proc__read_maps(struct usyms *u, struct proc *proc, struct proc_maps *keep)
{
	uint64_t start = monotonic_ns();
	struct proc_maps maps;
	bool same;
	int err;

	err = read_gen_maps(u, proc, &maps, &same);
	if (err)
		return err;
	if (same) {
		map_history__seen_again(&proc->maps, monotonic_ns());
		u->same_readings++;
		err = USYMS_SAME_READING;
	} else {
		err = proc__fill(u, proc, &maps);
	}
	if (err >= 0 && keep)
		*keep = maps;
	else
		proc_maps__release(&maps);
	if (!err && proc->has_anon)
		usyms_queue_perfmap(u, proc);
	proc->read_ns = monotonic_ns();
	proc->read_cost_ns = proc->read_ns - start;
	return err;
}

/*
 * How much of one CPU re-reading a process's maps may take: a process with
 * tens of thousands of mappings is re-read less often.
 */
#define REFRESH_COST_SHARE 20

/* What re-reads on a miss may take before their share of the run applies: 50 ms. */
#define REREAD_ALLOWANCE_NS (REFRESH_COST_SHARE * 50000000ULL)

/* Has proc's last reading been paid for in time, REFRESH_COST_SHARE times over? */
static bool proc__rested(const struct proc *proc, uint64_t now)
{
	return now >= proc->read_ns +
		      REFRESH_COST_SHARE * (proc->read_cost_ns + proc->perfmap_cost_ns);
}

/*
 * An address sampled by sampled_ns (CLOCK_MONOTONIC) is in none of the
 * mappings of proc read so far: a library dlopen()ed since, or the
 * garbage of a bad frame pointer. Read its maps again, unless the last
 * reading came after the sample (it would have seen the library), at
 * most once an epoch (until the next usyms__prune(): in interval mode, an
 * interval), when proc__rested(), and while the re-reads of every process
 * have taken under 1/REFRESH_COST_SHARE of the run: garbage in every
 * stack of many processes costs little. Under u->lock. Returns 0 when a
 * reading was added, -EAGAIN when none was due, or why the reading failed
 * (-ESRCH: the process is gone).
 */
int proc__reread_on_miss(struct usyms *u, struct proc *proc, uint64_t sampled_ns)
{
	uint64_t now = monotonic_ns();
	int err;

	if (proc->read_ns > sampled_ns || proc->reread_epoch == u->epoch ||
	    !proc__rested(proc, now) ||
	    u->reread_ns * REFRESH_COST_SHARE > now - u->start_ns + REREAD_ALLOWANCE_NS)
		return -EAGAIN;
	proc->reread_epoch = u->epoch;
	err = proc__read_maps(u, proc, NULL);
	u->reread_ns += monotonic_ns() - now;
	return err;
}

static int add_gen(struct usyms *u, pid_t pid, uint32_t gen, struct proc_maps *keep)
{
	struct proc *proc;
	int err;

	proc = usyms_find_proc(u, pid, gen);
	if (proc) {
		err = proc__read_maps(u, proc, keep);
		if (err >= 0)
			proc->err = 0;
		return err == USYMS_SAME_READING ? err : proc->err;
	}
	proc = calloc(1, sizeof(*proc));
	if (!proc)
		return -ENOMEM;
	proc->pid = pid;
	proc->gen = gen;
	/* in the tree first: a queued perf map read points at it */
	if (!tsearch(proc, &u->procs, proc_cmp)) {
		proc__free(proc);
		return -ENOMEM;
	}
	u->nr_procs++;
	proc->err = proc__read_maps(u, proc, keep);
	return proc->err;
}

/* add_gen() without the reading; nothing new is no news (0). */
static int usyms_add_gen(struct usyms *u, pid_t pid, uint32_t gen)
{
	int err = add_gen(u, pid, gen, NULL);

	return err == USYMS_SAME_READING ? 0 : err;
}

/*
 * The generation (pid, gen), read now when it was never announced, if it
 * is still the same image; NULL when it cannot be. Under u->lock.
 */
struct proc *usyms_proc_of(struct usyms *u, pid_t pid, uint32_t gen)
{
	struct proc *proc = usyms_find_proc(u, pid, gen);

	if (proc)
		return proc;
	usyms_add_gen(u, pid, gen);
	return usyms_find_proc(u, pid, gen);
}

int usyms__add_gen(struct usyms *u, pid_t pid, uint32_t gen)
{
	int err = usyms__add_gen_shared(u, pid, gen, NULL);

	return err == USYMS_SAME_READING ? 0 : err;
}

int usyms__add_gen_shared(struct usyms *u, pid_t pid, uint32_t gen, struct proc_maps *reading)
{
	int err;

	if (reading)
		*reading = (struct proc_maps){ 0 };
	usyms_lock(u);
	shared_perfmap__free_retired(u);
	err = add_gen(u, pid, gen, reading);
	usyms_unlock(u);
	return err;
}

uint64_t usyms__nr_readings(const struct usyms *u, uint64_t *same)
{
	uint64_t n;

	usyms_lock((struct usyms *)u);
	n = u->readings + u->same_readings;
	*same = u->same_readings;
	usyms_unlock((struct usyms *)u);
	return n;
}

int usyms__add_gen_once(struct usyms *u, pid_t pid, uint32_t gen)
{
	int err = 0;

	usyms_lock(u);
	if (!usyms_find_proc(u, pid, gen)) {
		shared_perfmap__free_retired(u);
		err = usyms_add_gen(u, pid, gen);
	}
	usyms_unlock(u);
	return err;
}

int usyms__add_pid(struct usyms *u, pid_t pid)
{
	return usyms__add_gen(u, pid, 0);
}

int usyms__refresh_pid(struct usyms *u, pid_t pid)
{
	uint32_t gen = u->gen_fn ? u->gen_fn(pid, u->gen_ctx) : 0;
	struct proc *proc;
	int err;

	if (u->gen_fn && !gen)
		return -ESRCH;	/* not sampled yet, or exited */
	usyms_lock(u);
	proc = usyms_find_proc(u, pid, gen);
	shared_perfmap__free_retired(u);
	if (proc && !proc->err && !proc__rested(proc, monotonic_ns()))
		err = 0;
	else
		err = usyms_add_gen(u, pid, gen);
	usyms_unlock(u);
	return err;
}

size_t usyms__nr_gens(const struct usyms *u)
{
	size_t n;

	usyms_lock((struct usyms *)u);
	n = u->nr_procs;
	usyms_unlock((struct usyms *)u);
	return n;
}

struct prune {
	struct usyms *u;
	struct proc **doomed;
	size_t nr, cap;
};

static void prune_one(const void *node, VISIT which, void *ctx)
{
	struct proc *proc = *(struct proc *const *)node;
	struct prune *p = ctx;

	/* generation 0 is never checked: re-read on demand once freed */
	if ((which != postorder && which != leaf) || proc->pending ||
	    (proc->gen && gen_current(p->u, proc->pid, proc->gen)))
		return;
	if (!proc->retired) {
		proc->retired = true;	/* samples of it may still be on their way */
		return;
	}
	if (!array_reserve((void **)&p->doomed, &p->cap, p->nr, sizeof(*p->doomed)))
		p->doomed[p->nr++] = proc;
}

void usyms__prune(struct usyms *u)
{
	struct prune p = { .u = u };

	usyms_lock(u);
	u->epoch++;
	/* without generations nothing ends: every module stays mapped */
	if (u->gen_fn)
		twalk_r(u->procs, prune_one, &p);
	for (size_t i = 0; i < p.nr; i++) {
		tdelete(p.doomed[i], &u->procs, proc_cmp);
		shared_perfmap__put(u, p.doomed[i]->perfmap);
		proc__free(p.doomed[i]);
		u->nr_procs--;
	}
	usyms_sweep_modules(u);
	usyms_free_retired_files(u);
	shared_perfmap__free_retired(u);
	usyms_unlock(u);
	free(p.doomed);
}
