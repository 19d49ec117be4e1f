// SPDX-License-Identifier: GPL-2.0
/*
 * loss_report.c - the lines on stderr at the end of a run that say what
 * the profile lacks: samples and stacks the BPF maps could not keep, and
 * frames left without symbols; under -v, the run's statistics.
 */
#include <stdlib.h>
#include <string.h>

#include "symbols/dpkg_owner.h"
#include "common/escape.h"
#include "output/loss_report.h"
#include "python/py_bpf.h"
#include "python/py_files.h"
#include "unwind/unwind_row.h"

/* The stripped files named in the hint: the first, those of the most frames. */
#define HINT_FILES 3

struct unresolved_sum {
	FILE *f;
	const char *unit;	/* "samples", or "us" of a profile of time */
	uint64_t frames;
	size_t modules;
	bool list;
	/* stripped files with no debug file found, paths usyms holds until freed */
	const char *stripped[HINT_FILES];
	size_t nr_stripped;
};

static int note_unresolved(const struct usyms_unresolved *e, void *ctx)
{
	struct unresolved_sum *sum = ctx;

	sum->frames += e->count;
	sum->modules++;
	/* "[other files]", "[vdso]": no file whose debug file could be had */
	if (e->reason == USYM_NO_DEBUGINFO && e->module && e->module[0] == '/')
		if (sum->nr_stripped++ < HINT_FILES)	/* they come by count, the most first */
			sum->stripped[sum->nr_stripped - 1] = e->module;
	if (sum->list) {
		/* a path any user can choose: no escape sequences to the terminal */
		fputs("profile: ", sum->f);
		escape__text(sum->f, e->module ? e->module : "[unknown]");
		fprintf(sum->f, ": %llu %s without symbols (%s)\n", (unsigned long long)e->count,
			sum->unit, usym_reason__str(e->reason));
	}
	return 0;
}

/* ", liblzma5-dbgsym" for each file a package installed; whether there was one. */
static bool print_dbgsym(FILE *f, char *const *owners, size_t n)
{
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		bool again = false;

		for (size_t j = 0; j < i && !again; j++)
			again = owners[j] && owners[i] && !strcmp(owners[i], owners[j]);
		if (!owners[i] || again)
			continue;
		fputs(any ? ", " : " (", f);
		escape__text(f, owners[i]);
		fputs("-dbgsym", f);
		any = true;
	}
	if (any)
		fputs(")", f);
	return any;
}

/*
 * What would name the frames of stripped files: their debug files, from
 * the distribution's debug packages (named where dpkg's lists in
 * dpkg_info_dir say which package installed the file), a debuginfod
 * server, or a directory.
 */
static void print_stripped_hint(const struct unresolved_sum *sum, const char *dpkg_info_dir)
{
	size_t shown = sum->nr_stripped < HINT_FILES ? sum->nr_stripped : HINT_FILES;
	char *owners[HINT_FILES] = { NULL };

	if (!sum->nr_stripped)
		return;
	if (dpkg_info_dir)
		(void)dpkg_owner__find(dpkg_info_dir, sum->stripped, shown, owners);	/* none: no names */
	fputs("profile: no debug file found for ", sum->f);
	for (size_t i = 0; i < shown; i++) {
		if (i)
			fputs(i + 1 == shown && shown == sum->nr_stripped ? " and " : ", ", sum->f);
		escape__text(sum->f, sum->stripped[i]);
	}
	if (sum->nr_stripped > shown)
		fprintf(sum->f, " and %zu more", sum->nr_stripped - shown);
	fputs(": to name their frames, install their -dbgsym (or -dbg) packages", sum->f);
	print_dbgsym(sum->f, owners, shown);
	fputs(", set DEBUGINFOD_URLS to a debuginfod server, or give --debug-dir DIR where their debug files are\n",
	      sum->f);
	for (size_t i = 0; i < shown; i++)
		free(owners[i]);
}

void loss_report__unresolved(FILE *f, const struct usyms *u, bool verbose, bool in_us,
			     const char *dpkg_info_dir)
{
	struct unresolved_sum sum = { .f = f, .list = verbose, .unit = in_us ? "us" : "samples" };

	usyms__for_each_unresolved(u, note_unresolved, &sum);
	if (sum.frames && !verbose)
		fprintf(f, "profile: frames without symbols: %llu%s, in %zu files or regions (-v lists them)\n",
			(unsigned long long)sum.frames, in_us ? " us" : "", sum.modules);
	print_stripped_hint(&sum, dpkg_info_dir);
}

/* -v: how user stacks were walked, and what the tables cost. */
static void print_unwind(FILE *f, const struct run_totals *rt)
{
	const struct unwind_procs_stats *u = rt->unwind;
	const uint64_t *t = rt->stats;

	fprintf(f, "profile: unwind tables: %llu user stacks walked by them (%llu ended before the thread's root, %llu stopped at the depth limit), %llu by frame pointers while their process had none yet (%llu while it was being published)\n",
		(unsigned long long)t[STAT_UNWIND_TABLES], (unsigned long long)t[STAT_UNWIND_CUT],
		(unsigned long long)t[STAT_UNWIND_TRUNCATED],
		(unsigned long long)t[STAT_UNWIND_NO_TABLES], (unsigned long long)t[STAT_UNWIND_NO_BIG]);
	fprintf(f, "profile: unwind tables on demand: %llu files met in %llu readings of processes' mappings, %llu tables asked for by walks, %llu files never asked for (no table built); %llu frames walked by their frame pointers while their file's table was not built yet\n",
		(unsigned long long)u->met, (unsigned long long)u->readings,
		(unsigned long long)u->asked, (unsigned long long)u->waiting,
		(unsigned long long)t[STAT_UNWIND_WAITED]);
	fprintf(f, "profile: unwind tables: %llu readings found the mappings unchanged; %llu entries of processes gone deleted by the sweep; %llu records of processes kept at the end, %llu let go as their processes went; %llu mappings whose file /proc/PID/map_files refused; %llu processes' [vdso] given the vDSO's table\n",
		(unsigned long long)u->unchanged, (unsigned long long)u->swept,
		(unsigned long long)u->records, (unsigned long long)u->records_gone,
		(unsigned long long)u->denied, (unsigned long long)u->vdso);
	fprintf(f, "profile: unwind tables: files took %.3f s of the worker's CPU, %.3f s the most one took; %llu given up at the cap of %.2f s a file; %llu jobs left tables asked for to their process's next turn\n",
		u->file_cpu_ns / 1e9, u->file_cpu_max_ns / 1e9, (unsigned long long)u->over_cpu,
		UNWIND_FILE_CPU_NS / 1e9, (unsigned long long)u->put_off);
	fprintf(f, "profile: unwind tables: %llu process readings, %llu files, %llu of %llu rows (%llu KiB) loaded at the end, %llu tables' %llu rows reclaimed for others; %llu built in %.3f s (%llu with rows of a .debug_frame), %llu from the cache, %llu stored, %llu evicted from the cache (%llu over its cap alone), %llu copies sharing rows; %llu files without a usable .eh_frame, %llu over --unwind-storage-size, %llu over a uid's quota of rows, %llu processes not queued\n",
		(unsigned long long)u->procs, (unsigned long long)u->files,
		(unsigned long long)u->rows, (unsigned long long)u->max_rows,
		(unsigned long long)(u->rows * sizeof(struct unwind_row) / 1024),
		(unsigned long long)u->reclaimed, (unsigned long long)u->reclaimed_rows,
		(unsigned long long)u->built, u->build_ns / 1e9, (unsigned long long)u->debug_frame,
		(unsigned long long)u->from_cache, (unsigned long long)u->stored,
		(unsigned long long)u->evicted, (unsigned long long)u->over_cap,
		(unsigned long long)u->shared,
		(unsigned long long)u->no_table, (unsigned long long)u->no_room,
		(unsigned long long)u->over_quota, (unsigned long long)rt->unwind_dropped);
}

/* Python frames: what was lost always, the statistics under -v. */
static void print_python(FILE *f, const struct loss_report_opts *o, const struct run_totals *rt)
{
	const struct py_procs_stats *p = rt->python;
	const struct py_names_stats *n = rt->py_names;
	const uint64_t *t = rt->stats;

	if (t[STAT_PY_NAMES_LOST] && o->verbose)
		fprintf(f, "profile: python: %llu frames' names not sent at once (ring buffer full): sent at their next sample\n",
			(unsigned long long)t[STAT_PY_NAMES_LOST]);
	if (n->dropped)
		fprintf(f, "profile: python: %llu frames' names not kept: %u kept at once, %u of one process; they print as %s\n",
			(unsigned long long)n->dropped, PY_NAMES_MAX, PY_NAMES_MAX_PER_PID, PY_UNNAMED);
	if (p->full)
		fprintf(f, "profile: python: %llu processes got no Python frames: %d had them at once\n",
			(unsigned long long)p->full, PY_MAX_PROCS);
	if (!o->verbose)
		return;
	fprintf(f, "profile: python: %llu processes walked (%llu files looked at, %llu with an interpreter, %llu forgotten for room (%u with one and %u without kept at once), %llu looks cut at %d files, %llu skipped (no interpreter last time, nothing mapped since), %llu processes of a version we cannot read, %llu not queued, %llu entries swept); %llu user stacks with Python frames (%llu cut at %d Python frames, %llu at %d activations of the eval loop, %llu with a frame unreadable, %llu with frames after the end of the native walk), %llu samples of threads without a thread state; %llu names of %llu records (%llu malformed)\n",
		(unsigned long long)p->procs, (unsigned long long)p->files,
		(unsigned long long)p->interpreters, (unsigned long long)p->forgotten,
		PY_FILES_MAX_INTERPS, PY_FILES_MAX_OTHERS, (unsigned long long)p->cut,
		PY_FILES_PER_LOOK, (unsigned long long)p->unchanged, (unsigned long long)p->unknown,
		(unsigned long long)rt->python_dropped, (unsigned long long)p->swept,
		(unsigned long long)t[STAT_PY_STACKS], (unsigned long long)t[STAT_PY_TRUNCATED],
		PY_MAX_FRAMES, (unsigned long long)t[STAT_PY_RUNS_CUT], PY_MAX_RUNS,
		(unsigned long long)t[STAT_PY_BAD_FRAME],
		(unsigned long long)t[STAT_PY_UNPLACED], (unsigned long long)t[STAT_PY_NO_THREAD],
		(unsigned long long)n->names, (unsigned long long)n->records,
		(unsigned long long)n->malformed);
	fprintf(f, "profile: python: %llu looks at the mappings the symbols read (handed over), %llu at mappings read again for the look; %llu files opened (the others known by their map_files link's stamp)\n",
		(unsigned long long)p->given, (unsigned long long)p->read_self,
		(unsigned long long)p->opened);
	fprintf(f, "profile: python: frees of code objects counted in %llu interpreter files (%llu could not be: their frames are known by reads of the code object alone)\n",
		(unsigned long long)p->watched, (unsigned long long)p->unwatched);
}

/* --off-cpu, --wall: the time not counted always, the statistics under -v. */
static void print_offcpu(FILE *f, const struct loss_report_opts *opts,
			 const struct run_totals *rt, long counts)
{
	const struct offcpu_drain_stats *o = rt->offcpu;
	const uint64_t *t = rt->stats;

	if (t[STAT_OFFCPU_UNTIMED])
		fprintf(f, "profile: %llu waits off CPU not timed: more than %d threads waited at once\n",
			(unsigned long long)t[STAT_OFFCPU_UNTIMED], OFFCPU_MAX_WAITS);
	if (t[STAT_OFFCPU_LOST_NS])
		fprintf(f, "profile: %.6f s off CPU not counted, count hash full (or more than %d waits ended between two drains); raise --hash-storage-size (now %ld)\n",
			t[STAT_OFFCPU_LOST_NS] / 1e9, OFFCPU_MAX_WAITS, counts);
	if (o->lost)
		fprintf(f, "profile: %llu waits (%.6f s off CPU) not counted: they ended after a drain and their stacks were not kept (more than %d waits carried at once)\n",
			(unsigned long long)o->lost, o->lost_ns / 1e9, OFFCPU_MAX_WAITS);
	if (opts->off_cpu && !t[STAT_OFFCPU_BLOCKS])
		fprintf(f, "profile: no off-CPU time collected (did the targets wait?)\n");
	if (opts->verbose)
		fprintf(f, "profile: off CPU: %llu waits began, %.6f s in those that ended (%llu waits, %.6f s, outside --min-block and --max-block; %llu ended after a drain, %llu carried past one)\n",
			(unsigned long long)t[STAT_OFFCPU_BLOCKS], t[STAT_OFFCPU_NS] / 1e9,
			(unsigned long long)t[STAT_OFFCPU_FILTERED], t[STAT_OFFCPU_FILTERED_NS] / 1e9,
			(unsigned long long)t[STAT_OFFCPU_LATE], (unsigned long long)o->carried);
}

void loss_report__print(FILE *f, const struct loss_report_opts *o, const struct run_totals *rt)
{
	const uint64_t *t = rt->stats;
	/* the sizes the maps had: by default, what the run's rate and length need */
	long stacks = rt->stack_entries ? (long)rt->stack_entries : o->stack_storage_size;
	long counts = rt->count_entries ? (long)rt->count_entries : o->hash_storage_size;

	if (rt->python)
		print_python(f, o, rt);

	if (t[STAT_KSTACK_LOST] || t[STAT_USTACK_LOST])
		fprintf(f, "profile: %llu kernel and %llu user stacks lost, stack map and overflow map full; raise --stack-storage-size (now %ld) or --hash-storage-size (now %ld)\n",
			(unsigned long long)t[STAT_KSTACK_LOST], (unsigned long long)t[STAT_USTACK_LOST],
			stacks, counts);
	if (t[STAT_HASH_FULL])
		fprintf(f, "profile: %llu samples dropped, count hash full; raise --hash-storage-size (now %ld)\n",
			(unsigned long long)t[STAT_HASH_FULL], counts);
	if (t[STAT_NEW_PID_LOST] && o->verbose)
		fprintf(f, "profile: %llu new-process notices lost (ring buffer full); their mappings were read at the end\n",
			(unsigned long long)t[STAT_NEW_PID_LOST]);
	if (t[STAT_GEN_FULL])
		fprintf(f, "profile: %llu samples of processes beyond the %d tracked at once; their mappings were read at the end\n",
			(unsigned long long)t[STAT_GEN_FULL], MAX_PID_GENS);
	if (t[STAT_FOLLOW_LOST])
		fprintf(f, "profile: %llu forks of the command's processes not followed, their processes not sampled: the maps hold %d of its processes and %d new tasks at once\n",
			(unsigned long long)t[STAT_FOLLOW_LOST], FOLLOW_MAX_PROCS, FOLLOW_MAX_FORKED);
	if (rt->offcpu)
		print_offcpu(f, o, rt, counts);
	if (!t[STAT_SAMPLES] && !o->off_cpu)
		fprintf(f, "profile: no samples collected (were the targets on CPU?)\n");
	if (rt->unwind && rt->unwind->no_room)
		fprintf(f, "profile: %llu files' unwind tables did not fit, the rows held by live processes' tables (or free in smaller ranges only): their stacks walked by frame pointers; raise --unwind-storage-size (now %ld)\n",
			(unsigned long long)rt->unwind->no_room, o->unwind_storage_size);
	/* raising the size only raises the quota with it: a user who fills one fills the other */
	if (rt->unwind && rt->unwind->over_quota)
		fprintf(f, "profile: %llu files got no unwind table, their user's quota of rows reached (%llu rows a user but root, half of --unwind-storage-size; uid %u the last): their stacks walked by frame pointers\n",
			(unsigned long long)rt->unwind->over_quota,
			(unsigned long long)rt->unwind->row_quota,
			(unsigned int)rt->unwind->over_quota_uid);
	if (rt->unwind && rt->unwind->over_cpu)
		fprintf(f, "profile: %llu files' unwind tables given up after %.2f s of CPU each (the most a file may take): their stacks walked by frame pointers\n",
			(unsigned long long)rt->unwind->over_cpu, UNWIND_FILE_CPU_NS / 1e9);
	if (rt->unwind && rt->unwind->partial_procs)
		fprintf(f, "profile: %llu processes had executable mappings left out of their unwind entries (more than %d, more than %d of one file, or %llu times no room for %d big entries): their stacks may end early there\n",
			(unsigned long long)rt->unwind->partial_procs, UNWIND_MAX_MAPS_BIG,
			UNWIND_MAPS_PER_FILE, (unsigned long long)rt->unwind->big_full,
			UNWIND_MAX_BIG_PROCS);
	if (rt->unwind && rt->unwind->procs_full)
		fprintf(f, "profile: %llu processes got no unwind tables: %d had them at once; their stacks were walked by frame pointers\n",
			(unsigned long long)rt->unwind->procs_full, UNWIND_MAX_PROCS);
	if (rt->unwind && o->verbose)
		print_unwind(f, rt);
	if (o->verbose)
		fprintf(f, "profile: event %s, %llu samples, %llu printed, %llu dropped, %llu of profile itself left out (--include-self keeps them), %llu+%llu kernel+user stacks kept in the overflow map, %zu ELF files read (%zu symbol tables held at the end, %llu freed with the last process mapping them), %zu process generations held, /proc/PID/maps read %llu times (for symbols, unwind tables and Python; %llu of them found nothing new), %llu execs of sampled processes\n",
			rt->event, (unsigned long long)t[STAT_SAMPLES],
			(unsigned long long)rt->printed, (unsigned long long)t[STAT_HASH_FULL],
			(unsigned long long)t[STAT_SELF],
			(unsigned long long)t[STAT_KSTACK_OVERFLOW], (unsigned long long)t[STAT_USTACK_OVERFLOW],
			rt->nr_files, rt->held.files, (unsigned long long)rt->held.files_freed, rt->nr_gens,
			(unsigned long long)rt->nr_readings, (unsigned long long)rt->nr_same_readings,
			(unsigned long long)t[STAT_EXECS]);
}

void loss_report__fetches(FILE *f, const struct loss_report_opts *o,
			  const struct debuginfod_fetch_stats *st)
{
	char line[256];

	if (o->verbose) {
		debuginfod_fetch_stats__format(st, line, sizeof(line));
		fprintf(f, "profile: %s\n", line);
	}
	if (o->quiet)
		return;
	if (st->over_files)
		fprintf(f, "profile: debuginfod: %u debug file%s not asked for: over --debuginfod-max-files (%ld a run)\n",
			st->over_files, st->over_files == 1 ? "" : "s", o->debuginfod_max_files);
	if (st->over_user_files)
		fprintf(f, "profile: debuginfod: %u debug file%s not asked for: over --debuginfod-max-user-files (%ld for the files of one user)\n",
			st->over_user_files, st->over_user_files == 1 ? "" : "s",
			o->debuginfod_max_user_files);
}
