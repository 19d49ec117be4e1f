/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sampler.h - the BPF side seen from userspace: load the program with the
 * configuration of one run, attach it to a perf event on every CPU, drain
 * the counts into an aggregate while it runs, report new processes.
 */
#ifndef SAMPLER_H
#define SAMPLER_H

#include <stdint.h>
#include <sys/types.h>

#include "collect/aggregate.h"
#include "collect/sampler_opts.h"
#include "profile.h"

struct map_set_sizes;

struct sampler;
struct bpf_program;

/*
 * Open, configure and load for opts (copied; its arrays stay the
 * caller's until sampler__free()); the -p targets given their generation, and
 * the exec and exit tracepoints that keep generations attached (what is
 * looked at in a target before sampling is then told apart from what it
 * execs next). Prints one line and returns NULL with errno set on failure.
 */
struct sampler *sampler__load(const struct sampler_opts *opts);
/*
 * One perf event per online CPU (or -C's), and with --off-cpu (then no
 * perf event) or --wall the sched_switch tracepoint. Prints one line on failure.
 */
int sampler__attach(struct sampler *s);
/* Stop sampling; the maps stay readable. */
void sampler__detach(struct sampler *s);
void sampler__free(struct sampler *s);

/*
 * The maps unwind tables go to (unwind_procs.h), when user stacks are
 * walked with them: 0, or -ENOTSUP (--call-graph fp, -K, an old kernel).
 */
int sampler__unwind_maps(struct sampler *s, int *rows_fd, int *procs_fd, int *big_fd);

/*
 * The map Python processes go to (python/py_procs.h), when user stacks
 * carry Python frames: 0, or -ENOTSUP (-K, an old kernel).
 */
/*
 * The BPF side's rows_epoch (row_find.bpf.h), moved on when rows are
 * written again for another table; NULL without unwind tables.
 */
volatile uint64_t *sampler__unwind_rows_epoch(struct sampler *s);
int sampler__python_maps(struct sampler *s, int *procs_fd, volatile uint64_t **procs_epoch);
int sampler__watch_code_frees(struct sampler *s, int fd, uint64_t offset);
/*
 * fn(data, size, ctx) for each record of the names of Python frames
 * (python/py_names.h), called from sampler__consume_new_pids().
 */
void sampler__on_py_names(struct sampler *s, int (*fn)(const void *data, size_t size, void *ctx),
			  void *ctx);
/*
 * How many instructions the verifier went through to accept prog (0
 * before Linux 5.16), and how long loading the object took, in ns. 0 or
 * -errno (-EBADF: prog was not loaded).
 */
int sampler__verified(const struct sampler *s, const struct bpf_program *prog, uint32_t *insns,
		      uint64_t *load_ns);
/* The entries of one map set as loaded, and of the unwind rows array (1: none). */
void sampler__map_entries(const struct sampler *s, struct map_set_sizes *sz, uint32_t *rows);
/* The program that takes the samples: the one loaded of the three. */
struct bpf_program *sampler__prog(const struct sampler *s);
/* The one that times waits off the CPU (--off-cpu, --wall). */
struct bpf_program *sampler__switch_prog(const struct sampler *s);
/* What the drains settled of off-CPU waits (zero without --off-cpu or --wall). */
struct offcpu_drain_stats;
void sampler__offcpu_stats(const struct sampler *s, struct offcpu_drain_stats *st);

/* "cycles" or "cpu-clock", once attached. */
const char *sampler__event(const struct sampler *s);

/*
 * Move everything counted so far into agg and clear the maps: samples that
 * arrive meanwhile go to the other map set, so nothing is lost. Returns 0
 * or -errno.
 */
int sampler__drain(struct sampler *s, struct agg *agg);

/* Sum of the per-CPU statistics (enum profile_stat). */
int sampler__stats(struct sampler *s, uint64_t totals[STAT_MAX]);

/* The ring buffers' epoll fd, and a call that handles what they have:
 * fn(pid, gen, kind, uid, ctx) for each notice of a process (profile.h's
 * new_pid_event: a generation sampled, or the unwinder's requests), and
 * the names of Python frames to sampler__on_py_names()'s. */
typedef void (*sampler_new_pid_fn)(pid_t pid, uint32_t gen, uint32_t kind, uint32_t uid,
				   void *ctx);
int sampler__new_pids_fd(struct sampler *s);
int sampler__consume_new_pids(struct sampler *s, sampler_new_pid_fn fn, void *ctx);

/*
 * The current generation of pid's mappings (profile.h), 0 when it has none
 * (never sampled, or exited). The targets of -p have one from
 * sampler__load() on. Valid after sampling stops, too: the exec and exit
 * tracepoints stay attached until sampler__free().
 */
uint32_t sampler__pid_gen(struct sampler *s, pid_t pid);

/*
 * Drop the generations of processes that are gone. The BPF side drops a
 * process's entry when its leader exits; a sample of another of its
 * threads after that (exit_group, pthread_exit in main) makes a new one
 * that only this removes, before the pid can be reused. 0 or -ENOMEM.
 */
int sampler__forget_exited(struct sampler *s);

#endif /* SAMPLER_H */
