/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sampler_opts.h - what one run samples, as the collect stage takes it:
 * the rate, whom, which stacks, how big the maps. profile.c fills it from
 * the command line; the arrays stay the caller's while the sampler lives.
 */
#ifndef SAMPLER_OPTS_H
#define SAMPLER_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "collect/sample_event.h"

struct sampler_opts {
	/* how often: per second per CPU, or once every period events; the other is 0 */
	long frequency, period;
	enum sample_event event;
	int cpu;			/* the one CPU sampled; -1: every online one */
	/* whom; none of them: the whole system */
	const pid_t *pids;		/* these processes */
	size_t nr_pids;
	const pid_t *tids;		/* these threads, told apart */
	size_t nr_tids;
	pid_t command_pid;		/* a command and its children; 0: none */
	const char *const *cgroups;	/* the tasks in these cgroup v2 subtrees */
	size_t nr_cgroups;
	bool include_self;		/* the whole system's samples of profile too */
	bool include_idle;		/* the idle task's samples too */
	bool by_container;		/* samples told apart by cgroup */
	/* what is counted: samples (neither), waits off the CPU, or both in ns */
	bool off_cpu;			/* ns threads wait off the CPU, not samples (no perf event) */
	bool wall;			/* samples weighted by their period, plus every wait */
	bool include_runnable;		/* off_cpu: the time waiting for a CPU too */
	long min_block, max_block;	/* us; a wait outside is not counted; max 0: no bound */
	/* which stacks */
	bool user_only, kernel_only;
	long max_stack_depth;		/* frames kept per stack */
	bool dwarf;			/* user stacks by unwind tables, where the kernel can */
	long unwind_storage_size;	/* rows of unwind tables the BPF side holds */
	bool python;			/* Python frames in user stacks, where the kernel can */
	bool python_lines;		/* and their lines */
	/* seconds a map set takes samples for: the run's (0: until stopped), or -i's interval */
	long duration, interval;
	/* the maps: these sizes, or less where the run's samples need less unless given */
	long stack_storage_size, hash_storage_size;
	bool stack_storage_given, hash_storage_given;
	bool quiet;			/* no line on stderr about what the kernel lacks */
};

#endif /* SAMPLER_OPTS_H */
