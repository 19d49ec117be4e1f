// SPDX-License-Identifier: GPL-2.0
/*
 * profile - sample stack traces on every CPU at a fixed rate, count them in
 * the kernel, and print them sorted by count or folded for flame graphs.
 * A libbpf take on BCC's profile(8), with the same options and output.
 *
 * main() is a list of steps: parse -> load -> attach -> run (drain the
 * maps, note new processes, print intervals) -> collect -> print -> report.
 *
 * Past 600 lines on purpose: this is the one file that knows every stage,
 * and holds only the glue between them (each stage's settings from the
 * options, the callbacks that hand one stage's news to another, the event
 * loop); what a stage does is in its folder. Kept whole so that a run
 * reads top to bottom.
 */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "common/clock.h"
#include "collect/aggregate.h"
#include "symbols/budget.h"
#include "cli.h"
#include "collect/command.h"
#include "symbols/debuginfod_child.h"
#include "symbols/debuginfod_fetch.h"
#include "symbols/dpkg_owner.h"
#include "common/escape.h"
#include "output/emit.h"
#include "symbols/proc_maps.h"
#include "output/from_input.h"
#include "output/loss_report.h"
#include "collect/map_config.h"
#include "output/progress.h"
#include "common/proc_stat.h"
#include "python/py_run.h"
#include "output/report.h"
#include "collect/sampler.h"
#include "trace_helpers.h"
#include "unwind/unwind_jobs.h"
#include "output/walk_tally.h"
#include "symbols/usyms.h"

#define EXIT_USAGE 2
/*
 * After SIGINT/TERM/HUP, symbol files still being read get this long
 * before the profile is printed without them: a signal is answered
 * within a second, whatever the files cost.
 */
#define SIGNAL_GRACE_MS 500

struct run {
	const struct profile_env *env;
	struct report_opts report_opts;	/* the report's settings, from env */
	struct sampler *sampler;
	struct usyms *usyms;
	struct unwind_jobs *unwind;	/* NULL: user stacks by frame pointers */
	struct py_run *py;		/* NULL: no Python frames */
	struct report *report;
	struct agg *agg;
	struct progress *progress;	/* NULL: no status line */
	struct walk_tally *walks;	/* with unwind tables: how stacks were walked */
	struct command *cmd;		/* -- CMD; NULL: none */
	int exit_code;			/* set when the command could not be run */
	int sigfd, epfd;
	uint64_t start_ns;		/* CLOCK_REALTIME */
	double start, next_drain, next_interval, next_check;	/* CLOCK_MONOTONIC s */
	double interval_start_wall;
	uint64_t printed;
	bool signalled;			/* the run ends for a signal: print now */
};

static int verbose;

/* --- each stage's settings, from the command line ------------------------ */

static void sampler_opts_of(const struct profile_env *env, struct sampler_opts *o)
{
	*o = (struct sampler_opts){
		.frequency = env->frequency,
		.period = env->period,
		.event = env->event,
		.cpu = env->cpu,
		.pids = env->pids,
		.nr_pids = env->nr_pids,
		.tids = env->tids,
		.nr_tids = env->nr_tids,
		.command_pid = env->command ? env->command_pid : 0,
		.cgroups = env->cgroups,
		.nr_cgroups = env->nr_cgroups,
		.include_self = env->include_self,
		.include_idle = env->include_idle,
		.by_container = env->by_container,
		.off_cpu = env->off_cpu,
		.wall = env->wall,
		.include_runnable = env->include_runnable,
		.min_block = env->min_block,
		.max_block = env->max_block,
		.user_only = env->user_only,
		.kernel_only = env->kernel_only,
		.max_stack_depth = env->max_stack_depth,
		.dwarf = env->dwarf,
		.unwind_storage_size = env->unwind_storage_size,
		.python = env->python,
		.python_lines = env->lines,
		.duration = env->duration,
		.interval = env->interval,
		.stack_storage_size = env->stack_storage_size,
		.hash_storage_size = env->hash_storage_size,
		.stack_storage_given = env->stack_storage_given,
		.hash_storage_given = env->hash_storage_given,
		.quiet = env->quiet,
	};
}

static void report_opts_of(const struct profile_env *env, struct report_opts *o)
{
	*o = (struct report_opts){
		.format = env->format,
		.delimited = env->delimited,
		.annotations = env->annotations,
		.offsets = env->offsets,
		.by_container = env->by_container,
		.max_stack_depth = env->max_stack_depth,
		.quiet = env->quiet,
		.to_file = env->output != NULL,
		.user_only = env->user_only,
		.kernel_only = env->kernel_only,
		.off_cpu = env->off_cpu,
		.wall = env->wall,
		.frequency = env->frequency,
		.period = env->period,
		.duration = env->duration,
		.pid_arg = env->pid_arg,
		.tid_arg = env->tid_arg,
		.nr_pids = env->nr_pids,
		.nr_tids = env->nr_tids,
		.command = env->command ? env->command[0] : NULL,
		.cgroups = env->cgroups,
		.nr_cgroups = env->nr_cgroups,
	};
}

static void loss_report_opts_of(const struct profile_env *env, struct loss_report_opts *o)
{
	*o = (struct loss_report_opts){
		.verbose = env->verbose,
		.quiet = env->quiet,
		.stack_storage_size = env->stack_storage_size,
		.hash_storage_size = env->hash_storage_size,
		.unwind_storage_size = env->unwind_storage_size,
		.debuginfod_max_files = env->debuginfod_max_files,
		.debuginfod_max_user_files = env->debuginfod_max_user_files,
		.off_cpu = env->off_cpu,
	};
}

static void progress_opts_of(const struct profile_env *env, struct progress_opts *o)
{
	*o = (struct progress_opts){
		.duration = env->duration,
		.quiet = env->quiet,
		.verbose = env->verbose,
		.command = env->command != NULL,
		.folded_to_stdout = env->format == FORMAT_FOLDED && !env->output,
	};
}

/*
 * Failures are reported by us, in one line; libbpf's warnings under -v,
 * its debug chatter (hundreds of lines a load) only under -vv.
 */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	return verbose >= (level == LIBBPF_DEBUG ? 2 : 1) ? vfprintf(stderr, fmt, args) : 0;
}

/* Never runs (the signals stay blocked and are read from a signalfd);
 * installing it undoes an inherited SIG_IGN, e.g. SIGINT in a background
 * job of a script. */
static void on_signal(int sig)
{
	(void)sig;
}

/*
 * Under -v: a file skipped or cut for its budget, a debug file refused, a
 * file left without an unwind table.
 */
static void on_notice(const char *path, const char *why, void *ctx)
{
	(void)ctx;
	/* from the loader thread: one line, not mixed with the main thread's */
	flockfile(stderr);
	/* a path any user can choose: no escape sequences to the terminal */
	fputs("profile: ", stderr);
	escape__text(stderr, path);
	fputs(": ", stderr);
	escape__text(stderr, why);
	fputc('\n', stderr);
	funlockfile(stderr);
}

/*
 * Let the loader finish the symbol files found so far, so the profile
 * names them; after a signal only for SIGNAL_GRACE_MS, and a signal that
 * comes while we wait ends the wait. Then, for the last profile of a run
 * not ended by a signal, debug files still being fetched from debuginfod
 * get --debuginfod-deadline seconds; earlier intervals, and a run that
 * must print now, take what has landed. What is left unread or unfetched
 * is cancelled: its frames print as "[file]".
 */
static void wait_for_symbols(struct run *run, bool last)
{
	int err;

	if (run->signalled) {
		err = usyms__wait(run->usyms, SIGNAL_GRACE_MS, -1);
	} else {
		err = usyms__wait(run->usyms, -1, run->sigfd);
		if (!err && last)
			err = usyms__wait_fetches(run->usyms, monotonic_ns() +
						  run->env->debuginfod_deadline * 1000000000ULL,
						  run->sigfd);
		if (err == -EINTR)
			run->signalled = true;
	}
	if (err || run->signalled)
		usyms__cancel(run->usyms);
}

/*
 * Read pid's mappings now, while they are the ones generation gen was
 * sampled in: one reading for its symbols, its unwind tables (the worker
 * publishes them; until then, frame pointers) and whether it runs Python
 * (the Python worker's look, a copy: each worker frees its own). Returns
 * whether the Python worker was handed it, or had it already (a reading
 * with nothing new: USYMS_SAME_READING).
 */
static bool read_mappings(struct run *run, pid_t pid, uint32_t gen, uint32_t uid, bool reread)
{
	struct proc_maps maps, copy;
	bool py = false, same;

	if (!run->unwind && !run->py) {
		usyms__add_gen(run->usyms, pid, gen);
		return false;
	}
	same = usyms__add_gen_shared(run->usyms, pid, gen, &maps) == USYMS_SAME_READING;
	/* the same mappings again: the workers had them, the unwinder unless it asks */
	if (same && !(reread && run->unwind)) {
		proc_maps__release(&maps);
		return true;
	}
	if (run->py && maps.nr && !same) {
		if (!run->unwind) {
			py_run__queue_maps(run->py, pid, gen, &maps);
			return true;
		}
		/* without memory for the copy, the look reads the mappings itself */
		py = !proc_maps__copy(&copy, &maps);
		if (py)
			py_run__queue_maps(run->py, pid, gen, &copy);
	}
	if (run->unwind)
		unwind_jobs__queue_maps(run->unwind, pid, gen, uid, reread, &maps);
	else
		proc_maps__release(&maps);
	return py || same;
}

static void on_new_pid(pid_t pid, uint32_t gen, uint32_t kind, uint32_t uid, void *ctx)
{
	struct run *run = ctx;
	bool py_given = false;

	/* a walk met a file whose table is not built yet: the worker builds it */
	if (kind == NEW_PID_TABLES) {
		if (run->unwind)
			unwind_jobs__queue_asked(run->unwind, pid, uid);
		return;
	}
	/* the unwinder met code in no mapping it knows: the generation of now */
	if (kind == NEW_PID_REREAD)
		gen = sampler__pid_gen(run->sampler, pid);
	if (gen)
		py_given = read_mappings(run, pid, gen, uid, kind == NEW_PID_REREAD);
	/*
	 * and whether it runs Python: from that reading, else the look reads
	 * its own; not when the generation noticed is gone (exit, or exec:
	 * the new one is noticed at its own first sample, with its reading)
	 */
	if (run->py && !py_given && !(gen && sampler__pid_gen(run->sampler, pid) != gen))
		py_run__queue(run->py, pid);
}

/*
 * -v: what the verifier went through to accept the program (bench/oneshot.sh
 * reads it), and the entries the maps were made with.
 */
static void tell_loaded(const struct sampler *s)
{
	struct map_set_sizes sz;
	uint64_t ns;
	uint32_t insns, rows;

	struct bpf_program *progs[] = { sampler__prog(s), sampler__switch_prog(s) };

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
		if (!sampler__verified(s, progs[i], &insns, &ns))
			fprintf(stderr, "profile: BPF program %s: %u instructions verified; loaded in %.3f s\n",
				bpf_program__name(progs[i]), insns, ns / 1e9);
	sampler__map_entries(s, &sz, &rows);
	fprintf(stderr, "profile: BPF maps: two sets of %u stacks, %u counts and %u overflow stacks; %u unwind rows\n",
		sz.stacks, sz.counts, sz.overflow, rows);
}

static uint32_t current_gen(pid_t pid, void *ctx)
{
	return sampler__pid_gen(ctx, pid);
}

static int setup_events(struct run *run, const sigset_t *sigs)
{
	struct epoll_event ev = { .events = EPOLLIN };

	run->sigfd = signalfd(-1, sigs, SFD_CLOEXEC);
	run->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (run->sigfd < 0 || run->epfd < 0)
		return -errno;
	ev.data.fd = run->sigfd;
	if (epoll_ctl(run->epfd, EPOLL_CTL_ADD, run->sigfd, &ev))
		return -errno;
	ev.data.fd = sampler__new_pids_fd(run->sampler);
	if (epoll_ctl(run->epfd, EPOLL_CTL_ADD, ev.data.fd, &ev))
		return -errno;
	/* without a pidfd (before 5.3) the run loop looks once a second */
	if (run->cmd && run->cmd->pidfd >= 0) {
		ev.data.fd = run->cmd->pidfd;
		if (epoll_ctl(run->epfd, EPOLL_CTL_ADD, ev.data.fd, &ev))
			return -errno;
	}
	return 0;
}

/* One profile of the aggregate, as emit__profile() writes it. */
struct report_write {
	struct run *run;
	const struct report_meta *meta;
	uint64_t printed;
};

static int write_report(FILE *out, void *ctx)
{
	struct report_write *w = ctx;
	struct run *run = w->run;

	if (run->walks && walk_tally__add(run->walks, run->agg))
		fprintf(stderr, "profile: cannot count how stacks were walked: %s\n", strerror(ENOMEM));
	return report__write(run->report, run->agg, w->meta, out, &w->printed);
}

/*
 * Write the aggregate to stdout, or to -o FILE (its strftime patterns
 * expanded with the start of what it covers), then --keep (emit.h).
 */
static int emit(struct run *run, const char *time_root, uint64_t start_ns, uint64_t duration_ns)
{
	const struct profile_env *env = run->env;
	const struct emit_opts eo = { .output = env->output, .keep = env->keep };
	char title[512] = "profile";
	struct report_meta meta = {
		.start_ns = start_ns,
		.duration_ns = duration_ns,
		.event = sampler__event(run->sampler),
		.title = title,
		.time_root = time_root,
	};
	struct report_write w = { .run = run, .meta = &meta };
	int err;

	progress__clear(run->progress);
	report__title(&run->report_opts, title, sizeof(title));
	err = emit__profile(&eo, start_ns / 1000000000ULL, stdout, write_report, &w, stderr);
	if (!err)
		run->printed += w.printed;
	return err;
}

/*
 * --from: every file read into one profile, then written as a sampled one
 * is (from_input.h). Exit status: 2 for input that cannot be read or is
 * refused, 1 for a failed write.
 */
static int convert(const struct profile_env *env)
{
	const struct from_opts o = {
		.files = env->from,
		.nr_files = env->nr_from,
		.out = { env->format, env->delimited, env->annotations },
		.emit = { .output = env->output, .keep = env->keep },
		.quiet = env->quiet,
	};
	int err = from_input__convert(&o, stdout, stderr);

	return err == FROM_INPUT_REFUSED ? EXIT_USAGE : err && err != -EPIPE ? 1 : 0;
}

static int read_gen(uint32_t pid, uint32_t gen, void *ctx)
{
	usyms__add_gen(ctx, pid, gen);
	return 0;
}

static int read_gen_once(uint32_t pid, uint32_t gen, void *ctx)
{
	usyms__add_gen_once(ctx, pid, gen);
	return 0;
}

/*
 * Read the mappings of every generation with user stacks in the
 * aggregate: all of them again (libraries loaded since), or only those
 * never read (their announcement was lost), so their files are queued
 * before the loader is waited for.
 */
static int read_gens(struct run *run, bool only_new)
{
	int err = agg__for_each_gen(run->agg, only_new ? read_gen_once : read_gen, run->usyms);

	if (err)
		fprintf(stderr, "profile: cannot list the processes seen: %s\n", strerror(-err));
	return err;
}

/*
 * Free the symbols of processes gone, and give the pages of the tables
 * freed back to the system: the loader read them on its thread, into an
 * arena of its own, and glibc returns only what ends a heap; a long -i
 * run's RSS then follows what it holds, not the most it ever held.
 */
static void prune_symbols(struct run *run)
{
	struct usyms_held before, after;

	usyms__held(run->usyms, &before);
	usyms__prune(run->usyms);
	usyms__held(run->usyms, &after);
#ifdef __GLIBC__
	if (after.files_freed != before.files_freed)
		malloc_trim(0);
#endif
}

/*
 * After a drain: the generations of processes reaped go, and with them
 * what the unwind worker's notices kept of processes gone.
 */
static void forget_exited(struct run *run)
{
	sampler__forget_exited(run->sampler);
	if (run->unwind)
		unwind_jobs__prune(run->unwind);
}

static int emit_interval(struct run *run, bool last)
{
	uint64_t end_ns = realtime_ns();
	time_t t = run->interval_start_wall;
	char stamp[64];
	struct tm tm;
	int err;

	err = sampler__drain(run->sampler, run->agg);
	if (err) {
		fprintf(stderr, "profile: cannot read the BPF maps: %s\n", strerror(-err));
		return err;
	}
	forget_exited(run);
	read_gens(run, true);
	wait_for_symbols(run, last);
	localtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d_%H:%M:%S", &tm);
	if (run->env->format == FORMAT_TEXT && !run->env->output)
		printf("\n%s\n", stamp);
	err = emit(run, stamp, (uint64_t)(run->interval_start_wall * 1e9),
		   end_ns - (uint64_t)(run->interval_start_wall * 1e9));
	agg__reset(run->agg);
	/* the mappings of processes that are gone have nothing left to name */
	prune_symbols(run);
	if (run->py)
		py_run__prune(run->py);
	run->interval_start_wall = end_ns / 1e9;
	return err;
}

/*
 * Sample until the duration ends, SIGINT/SIGTERM/SIGHUP arrives, or every -p
 * target has exited; meanwhile read the mappings of new processes, drain
 * the maps and print interval profiles.
 */
/* The status line, from the per-CPU stats: one map read a second. */
static void show_progress(struct run *run, double now)
{
	uint64_t stats[STAT_MAX];

	if (run->progress && !sampler__stats(run->sampler, stats))
		progress__show(run->progress, now - run->start, stats, usyms__nr_gens(run->usyms));
}

/*
 * -- CMD: a signal read while it runs. Ctrl-C is the command's (the
 * terminal sent it to both): the run goes on until it ends. SIGTERM and
 * SIGHUP are passed on to it. Returns whether the run ends now.
 */
static bool command_signal(struct run *run)
{
	struct signalfd_siginfo si;

	if (read(run->sigfd, &si, sizeof(si)) != sizeof(si))
		return false;
	if (si.ssi_signo != SIGINT && run->cmd->pid)
		kill(run->cmd->pid, si.ssi_signo);
	return false;
}

/* -- CMD: whether it has ended (and is reaped); an error ends the run too. */
static bool command_ended(struct run *run)
{
	int r = command__poll(run->cmd);

	if (r < 0)
		fprintf(stderr, "profile: cannot wait for the command: %s\n", strerror(-r));
	return r != 0;
}

static int run_loop(struct run *run)
{
	const struct profile_env *env = run->env;
	double end = env->duration ? run->start + env->duration : 0;

	for (;;) {
		struct epoll_event evs[4];
		double now = monotonic_ns() / 1e9, wake = run->next_check;
		int n, timeout_ms;

		if (end && now >= end)
			return 0;
		if (env->interval && now >= run->next_interval) {
			int err = emit_interval(run, false);

			if (err || run->signalled)
				return err;	/* a signal while symbols were read: done */
			run->next_interval += env->interval;
			continue;
		}
		if (!env->interval && now >= run->next_drain) {
			int err = sampler__drain(run->sampler, run->agg);

			if (err) {
				progress__clear(run->progress);
				fprintf(stderr, "profile: cannot read the BPF maps: %s\n", strerror(-err));
				return err;
			}
			forget_exited(run);
			/* while the cgroups are there to be named: containers come and go */
			report__note_cgroups(run->report, run->agg);
			run->next_drain += MAP_DRAIN_SECS;
			continue;
		}
		if (now >= run->next_check) {
			/* keep the latest mappings of the targets, in case they exit */
			for (size_t i = 0; i < env->nr_pids; i++)
				usyms__refresh_pid(run->usyms, env->pids[i]);
			if (run->cmd && command_ended(run))
				return 0;
			if (proc_stat__all_ended("/proc", env->pids, env->nr_pids)) {
				progress__clear(run->progress);
				if (!env->quiet)
					fprintf(stderr, "profile: every target process exited; stopping after %.1f secs\n",
						now - run->start);
				return 0;
			}
			show_progress(run, now);
			run->next_check += 1;
			continue;
		}
		if (end && end < wake)
			wake = end;
		if (env->interval && run->next_interval < wake)
			wake = run->next_interval;
		if (!env->interval && run->next_drain < wake)
			wake = run->next_drain;
		timeout_ms = (wake - now) * 1000 + 1;
		n = epoll_wait(run->epfd, evs, 4, timeout_ms);
		if (n < 0 && errno != EINTR)
			return -errno;
		for (int i = 0; i < n; i++) {
			if (evs[i].data.fd == run->sigfd && run->cmd) {
				command_signal(run);
				continue;
			}
			if (evs[i].data.fd == run->sigfd) {
				run->signalled = true;
				return 0;
			}
			if (run->cmd && evs[i].data.fd == run->cmd->pidfd) {
				if (command_ended(run))
					return 0;
				continue;
			}
			sampler__consume_new_pids(run->sampler, on_new_pid, run);
		}
	}
}

static void unwind_status(pid_t pid, struct unwind_pid_status *st, void *ctx)
{
	unwind_jobs__status(ctx, pid, st);
}

/* What the profile lacks, and under -v the run's statistics. */
static void report_losses(const struct run *run)
{
	struct run_totals t = {
		.event = sampler__event(run->sampler),
		.printed = run->printed,
		.nr_files = usyms__nr_files(run->usyms),
		.nr_gens = usyms__nr_gens(run->usyms),
	};

	struct unwind_procs_stats unwind;
	struct debuginfod_fetch_stats fetched;
	struct py_procs_stats py;
	struct py_names_stats names;

	struct map_set_sizes sz;
	struct loss_report_opts lopts;
	struct offcpu_drain_stats offcpu;
	uint32_t rows;

	t.nr_readings = usyms__nr_readings(run->usyms, &t.nr_same_readings);
	loss_report_opts_of(run->env, &lopts);
	sampler__map_entries(run->sampler, &sz, &rows);
	if (run->env->off_cpu || run->env->wall) {
		sampler__offcpu_stats(run->sampler, &offcpu);
		t.offcpu = &offcpu;
	}
	t.stack_entries = sz.stacks;
	t.count_entries = sz.counts;
	usyms__held(run->usyms, &t.held);
	if (run->unwind) {
		unwind_jobs__stats(run->unwind, &unwind, &t.unwind_dropped);
		t.unwind = &unwind;
	}
	loss_report__unresolved(stderr, run->usyms, run->env->verbose,
				run->env->off_cpu || run->env->wall, DPKG_INFO_DIR);
	if (run->unwind)
		walk_tally__report(run->walks, stderr, unwind_status, run->unwind);
	if (run->py) {
		py_run__stats(run->py, &py, &t.python_dropped, &names);
		t.python = &py;
		t.py_names = &names;
	}
	if (!sampler__stats(run->sampler, t.stats))
		loss_report__print(stderr, &lopts, &t);
	if (run->env->verbose && !run->env->user_only) {
		bool cached;
		unsigned int reads;

		report__kallsyms_stats(run->report, &cached, &reads);
		fprintf(stderr, "profile: kernel symbols: the image's from %s; /proc/kallsyms read %u times\n",
			cached ? "the cache of this boot" : "/proc/kallsyms", reads);
	}
	if (!usyms__fetch_stats(run->usyms, &fetched))
		loss_report__fetches(stderr, &lopts, &fetched);
}

/* After sampling: the last counts, then the mappings of every process seen. */
static int collect(struct run *run)
{
	int err;

	sampler__consume_new_pids(run->sampler, on_new_pid, run);
	err = sampler__drain(run->sampler, run->agg);
	if (err) {
		fprintf(stderr, "profile: cannot read the BPF maps: %s\n", strerror(-err));
		return err;
	}
	/*
	 * Read each generation still running once more: libraries loaded
	 * since it was first seen. Earlier readings are kept (dlclose).
	 */
	err = read_gens(run, false);
	wait_for_symbols(run, true);
	return err;
}

/*
 * Files queued for the loader, and DWARF kept open for --lines, each hold
 * a descriptor: a host with thousands of libraries needs more than 1024.
 */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * SIGINT, SIGTERM and SIGHUP (the terminal went away, ssh: print what we
 * have) are blocked, to be read from a signalfd (setup_events()).
 */
static void block_signals(sigset_t *sigs)
{
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	sigemptyset(sigs);
	sigaddset(sigs, SIGINT);
	sigaddset(sigs, SIGTERM);
	sigaddset(sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, sigs, NULL);
}

/*
 * The most -p waits for its targets' entries to be published before
 * sampling (no table is built then: walks ask for them): a file slow to
 * open must not hold it.
 */
#define PRELOAD_WAIT_NS 2000000000ull

/*
 * Unwind tables for user stacks, where the sampler walks with them, loaded
 * on a worker thread (their files are other users'): a process's
 * mappings are published when it is first sampled (the targets of -p
 * before sampling starts: a signal ends that wait, the run loop reads
 * it), and a file's table is built when a walk first meets the file.
 * Without them (an error here, said in one line), user stacks are walked
 * by frame pointers.
 */
static void setup_unwind(struct run *run)
{
	const struct profile_env *env = run->env;
	const struct unwind_jobs_opts opts = {
		.cache_dir = env->unwind_cache_dir,
		.cache_max_bytes = (uint64_t)env->unwind_cache_size << 20,
		.debug_dirs = env->debug_dirs,
		.nr_debug_dirs = env->nr_debug_dirs,
		.notice = env->verbose ? on_notice : NULL,
		.no_row_quota = env->nr_pids || env->command,
		.gen = current_gen,
		.gen_ctx = run->sampler,
	};
	struct unwind_map_fds fds;

	if (sampler__unwind_maps(run->sampler, &fds.rows, &fds.procs, &fds.big))
		return;
	fds.rows_epoch = sampler__unwind_rows_epoch(run->sampler);
	run->unwind = unwind_jobs__open(&fds, &opts, stderr);
	if (!run->unwind)
		return;
	run->walks = walk_tally__new(run->env->off_cpu || run->env->wall);	/* NULL: not counted */
	/* the targets have their generation from the load on: their entries published now */
	for (size_t i = 0; i < env->nr_pids; i++) {
		uint32_t gen = sampler__pid_gen(run->sampler, env->pids[i]);

		if (gen)
			read_mappings(run, env->pids[i], gen, MAPS_UID_UNKNOWN, false);
	}
	if (unwind_jobs__wait_idle(run->unwind, run->sigfd, PRELOAD_WAIT_NS) == -ETIMEDOUT &&
	    env->verbose)
		fprintf(stderr, "profile: the targets' unwind entries still being published after %.0f s: sampling now, their stacks walked by frame pointers until they are\n",
			PRELOAD_WAIT_NS / 1e9);
}

/* py_watch_fn: the sampler's probe on an interpreter's code_dealloc(). */
static int watch_code_frees(int fd, uint64_t offset, void *ctx)
{
	return sampler__watch_code_frees(ctx, fd, offset);
}

/*
 * Python frames, where the sampler walks them (python/py_run.h): the
 * targets of -p are looked at before sampling starts (a signal ends that
 * wait). Without them (an error here, said in one line), user stacks
 * show the interpreter's C frames only.
 */
static void setup_python(struct run *run)
{
	const struct profile_env *env = run->env;
	struct py_run_opts opts = {
		.gen = current_gen,
		.gen_ctx = run->sampler,
		.notice = env->verbose ? on_notice : NULL,
		.watch = watch_code_frees,
		.watch_ctx = run->sampler,
	};

	if (sampler__python_maps(run->sampler, &opts.procs_fd, &opts.procs_epoch))
		return;
	run->py = py_run__start(&opts);
	if (!run->py) {
		fprintf(stderr, "profile: cannot look for Python processes (%s): no Python frames\n",
			strerror(errno));
		return;
	}
	sampler__on_py_names(run->sampler, py_run__take_names, run->py);
	report__set_python(run->report, py_run__names(run->py));
	py_run__preload(run->py, env->pids, env->nr_pids, run->sigfd);
}

/*
 * debuginfod: the servers of --debuginfod-url, else of DEBUGINFOD_URLS;
 * with none, or --no-debuginfod, nothing is fetched and libdebuginfod is
 * not even loaded. A cache not safe for root is said in one line. Before
 * any thread reads the environment. Returns whether to fetch.
 */
static bool setup_debuginfod(const struct profile_env *env, struct debuginfod_setup *setup)
{
	char why[PATH_MAX + 128];
	int err;

	if (!env->debuginfod)
		return false;
	err = debuginfod_fetch__setup_env(env->debuginfod_urls, env->nr_debuginfod_urls,
					  budget__default()->max_fetch_bytes, setup, why,
					  sizeof(why));
	if (err == -EPERM && !env->quiet) {
		fputs("profile: debuginfod: ", stderr);
		escape__text(stderr, why);
		fputs("; not fetching debug files\n", stderr);
	} else if (err && err != -ENOENT && !env->quiet) {
		/* no servers (-ENOENT) is no news; a failure to set them up is */
		fprintf(stderr, "profile: debuginfod: %s; not fetching debug files\n", strerror(-err));
	}
	return !err;
}

/* Symbols, aggregate and report; the BPF program loaded; the event loop's fds. */
static int run__setup(struct run *run, const sigset_t *sigs)
{
	const struct profile_env *env = run->env;
	struct debuginfod_setup setup;
	struct debuginfod_fetch_opts fetch = {
		.cache_dir = setup.cache_dir,
		.max_files = env->debuginfod_max_files,
		.max_user_files = env->debuginfod_max_user_files,
	};
	struct usyms_opts uopts = {
		.debug_dirs = env->debug_dirs,
		.nr_debug_dirs = env->nr_debug_dirs,
		.demangle = env->demangle,
		.lines = env->lines,
		.async = true,
		.fetch = setup_debuginfod(env, &setup) ? &fetch : NULL,
		.notice = env->verbose ? on_notice : NULL,
	};
	struct sampler_opts sopts;
	int err;

	fetch.max_bytes = uopts.fetch ? setup.max_bytes : 0;

	run->usyms = usyms__new_opts(&uopts);
	if (!run->usyms && uopts.fetch && errno == ENOENT) {
		/* libdebuginfod is not installed: profile without it */
		if (!env->quiet)
			fprintf(stderr, "profile: debuginfod: cannot load libdebuginfod; not fetching debug files\n");
		uopts.fetch = NULL;
		run->usyms = usyms__new_opts(&uopts);
	}
	run->agg = agg__new();
	report_opts_of(env, &run->report_opts);
	run->report = run->usyms ? report__new(&run->report_opts, run->usyms) : NULL;
	if (!run->usyms || !run->agg || !run->report) {
		fprintf(stderr, "profile: out of memory\n");
		return -ENOMEM;
	}
	sampler_opts_of(env, &sopts);
	run->sampler = sampler__load(&sopts);
	if (!run->sampler)
		return -EINVAL;
	if (env->verbose)
		tell_loaded(run->sampler);
	usyms__set_gen_fn(run->usyms, current_gen, run->sampler);
	err = setup_events(run, sigs);
	if (err) {
		fprintf(stderr, "profile: cannot set up event handling: %s\n", strerror(-err));
		return err;
	}
	setup_unwind(run);
	setup_python(run);
	return 0;
}

/* Attach, and set the clocks the run loop goes by. */
static int run__start(struct run *run)
{
	const struct profile_env *env = run->env;
	struct progress_opts popts;
	int err;

	err = sampler__attach(run->sampler);
	if (err)
		return err;
	if (!env->user_only) {
		/* a directory that is not safe keeps none (the table cache says why) */
		if (env->unwind_cache_dir)
			(void)report__cache_kallsyms(run->report, env->unwind_cache_dir);
		report__prefetch_kernel_symbols(run->report);
	}
	report__print_header(&run->report_opts, stdout);
	if (run->cmd) {
		err = command__start(run->cmd);
		if (err) {
			fprintf(stderr, "profile: cannot run '%s': %s\n", env->command[0], strerror(-err));
			run->exit_code = err == -ENOENT ? COMMAND_NOT_FOUND : COMMAND_NOT_EXECUTABLE;
			return err;
		}
	}
	progress_opts_of(env, &popts);
	run->progress = progress__new(&popts, stderr, STDOUT_FILENO);
	run->start_ns = realtime_ns();
	run->interval_start_wall = run->start_ns / 1e9;
	run->start = monotonic_ns() / 1e9;
	run->next_drain = run->start + MAP_DRAIN_SECS;
	run->next_interval = run->start + env->interval;
	run->next_check = run->start + 1;
	return 0;
}

/*
 * -- CMD, after the run loop: a command still running (the duration
 * ended, or an error) gets SIGTERM, as perf does when it stops first,
 * and SIGKILL COMMAND_GRACE_MS later. Then the Ctrl-C that ended it is
 * dropped: it must not cut the wait for symbols; SIGTERM or SIGHUP
 * after its end mean print now.
 */
#define COMMAND_GRACE_MS 5000

static void run__end_command(struct run *run)
{
	struct signalfd_siginfo si;
	struct pollfd pfd = { .fd = run->sigfd, .events = POLLIN };
	int err;

	if (!run->cmd)
		return;
	err = command__stop(run->cmd, SIGTERM, COMMAND_GRACE_MS);
	if (err)
		fprintf(stderr, "profile: cannot stop the command: %s\n", strerror(-err));
	while (poll(&pfd, 1, 0) == 1 && read(run->sigfd, &si, sizeof(si)) == sizeof(si))
		if (si.ssi_signo != SIGINT)
			run->signalled = true;
}

/*
 * After the run loop (which returned err): the last profile, then what it
 * lacks. A reader that went away (| head) has what it wanted: no error.
 */
static int run__finish(struct run *run, int err)
{
	const struct profile_env *env = run->env;

	sampler__detach(run->sampler);	/* stop sampling: the maps are read as they are now */
	progress__clear(run->progress);
	if (run->unwind)
		unwind_jobs__stop(run->unwind);
	if (run->py)
		py_run__stop(run->py);
	if (err)
		return err == -EPIPE ? 0 : err;
	if (env->interval) {
		/* the last, partial interval */
		err = emit_interval(run, true);
	} else {
		err = collect(run);
		if (!err)
			err = emit(run, NULL, run->start_ns, realtime_ns() - run->start_ns);
	}
	if (err)
		return err == -EPIPE ? 0 : err;
	if (!env->quiet || env->verbose)
		report_losses(run);
	return 0;
}

static void run__release(struct run *run)
{
	progress__free(run->progress);
	walk_tally__free(run->walks);
	unwind_jobs__free(run->unwind);
	py_run__free(run->py);
	sampler__free(run->sampler);
	report__free(run->report);
	agg__free(run->agg);
	usyms__free(run->usyms);
	if (run->sigfd >= 0)
		close(run->sigfd);
	if (run->epfd >= 0)
		close(run->epfd);
}

/*
 * -- CMD: checked as the shell would (one line, 127 or 126), then forked
 * waiting, before the profiler's signals change: 0, or the exit status.
 */
static int spawn_command(struct profile_env *env, struct command *cmd)
{
	int err = command__check(env->command[0], getenv("PATH"));

	if (!err)
		err = command__spawn(cmd, env->command);
	if (err) {
		fputs("profile: ", stderr);
		escape__text(stderr, env->command[0]);
		fprintf(stderr, ": %s\n", err == -ENOENT && !strchr(env->command[0], '/') ?
			"command not found" : strerror(-err));
		return err == -ENOENT ? COMMAND_NOT_FOUND : COMMAND_NOT_EXECUTABLE;
	}
	env->command_pid = cmd->pid;
	return 0;
}

int main(int argc, char **argv)
{
	struct profile_env env = {};
	struct run run = { .env = &env, .sigfd = -1, .epfd = -1 };
	struct command cmd = { .go_fd = -1, .err_fd = -1, .pidfd = -1 };
	sigset_t sigs;
	int err;

	/* profile's own child that fetches one debug file (debuginfod_child.h) */
	if (argc > 1 && !strcmp(argv[1], DEBUGINFOD_CHILD_ARG)) {
		if (debuginfod_child__main(argc, argv)) {
			fprintf(stderr, "profile: %s is for profile's own use\n", DEBUGINFOD_CHILD_ARG);
			_exit(EXIT_USAGE);
		}
		_exit(0);	/* no exit handlers: libcurl's state goes with the process */
	}
	err = cli__parse(argc, argv, &env, stdout, stderr);
	if (err)
		return err == CLI_DONE ? 0 : EXIT_USAGE;
	if (cli__validate(&env, "/proc", "/sys", stderr)) {
		cli__release(&env);
		return EXIT_USAGE;
	}
	if (env.nr_from) {
		err = convert(&env);
		cli__release(&env);
		return err;
	}
	if (env.command) {
		err = spawn_command(&env, &cmd);
		if (err) {
			cli__release(&env);
			return err;
		}
		run.cmd = &cmd;
	}
	verbose = env.verbose;
	libbpf_set_print(libbpf_print);
	block_signals(&sigs);
	raise_fd_limit();
	err = run__setup(&run, &sigs);
	if (!err)
		err = run__start(&run);
	if (!err) {
		err = run_loop(&run);
		run__end_command(&run);
		err = run__finish(&run, err);
	}
	run__release(&run);
	if (run.cmd)
		command__release(&cmd);
	cli__release(&env);
	if (run.exit_code)
		return run.exit_code;
	/* the command's status, as perf record and time pass it on */
	return err ? 1 : run.cmd ? command__exit_code(cmd.status) : 0;
}
