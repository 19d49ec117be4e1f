/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sampler_state.h - struct sampler, shared by the two halves of the tool
 * side of collecting: sampler.c (load, flip and drain, processes) and
 * attach.c (the perf events and tracepoints). Includes the BPF skeleton:
 * for objects of the tool only.
 */
#ifndef SAMPLER_STATE_H
#define SAMPLER_STATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "collect/map_config.h"
#include "collect/map_drain.h"
#include "collect/offcpu_drain.h"
#include "profile.skel.h"
#include "collect/sampler.h"

/* interpreter files whose frees of code objects are counted, at most */
#define SAMPLER_MAX_WATCHED 64

struct sampler {
	struct sampler_opts opts;
	struct profile_bpf *obj;
	struct bpf_link **links;
	int nr_links;
	struct bpf_link *exec_link, *exit_link;	/* generations: kept until freed */
	struct bpf_link *fork_link, *follow_exit_link;	/* -- CMD's children; exit if -K */
	struct bpf_link *switch_link;	/* --off-cpu, --wall: sched_switch */
	struct offcpu_drain *offcpu;	/* ... and its waits settled at drains */
	uint64_t last_flip_ns;	/* CLOCK_MONOTONIC: since then, samples go to the active set */
	enum sample_event event;	/* what the perf events count, once attached */
	bool dwarf;		/* user stacks by unwind tables (the kernel can) */
	bool python;		/* Python frames in user stacks (the kernel can) */
	struct map_set sets[2];
	struct ring_buffer *rb;
	sampler_new_pid_fn new_pid_fn;
	void *new_pid_ctx;
	int (*py_name_fn)(const void *data, size_t size, void *ctx);
	void *py_name_ctx;
	struct map_drain drain;
	uint64_t load_ns;	/* what loading the object took (the verifier, mostly) */
	/* the probes on interpreters' code_dealloc() (sampler__watch_code_frees()) */
	pthread_mutex_t watch_lock;
	struct bpf_link *watch[SAMPLER_MAX_WATCHED];
	int nr_watch;
};

/* attach.c: the tracepoints that keep the generations (sampler__load()). */
void sampler__attach_gens(struct sampler *s);
/* attach.c: -- CMD, the fork tracepoint that adds its children to pids. */
void sampler__attach_follow(struct sampler *s);

/* offcpu_attach.c: whether the run counts off-CPU time (--off-cpu, --wall). */
bool sampler__off_cpu(const struct sampler *s);
/* Its program, its maps and rodata, between open and load. 0 or -errno. */
int sampler__offcpu_configure(struct sampler *s, bool prealloc);
/* After load: what settles its waits at drains. 0 or -errno. */
int sampler__offcpu_setup(struct sampler *s);
/* Attach it (sampler__attach()). Prints one line on failure. */
int sampler__attach_switch(struct sampler *s);

#endif /* SAMPLER_STATE_H */
