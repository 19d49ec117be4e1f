// SPDX-License-Identifier: GPL-2.0
/*
 * offcpu_attach.c - the sampler's side of --off-cpu and --wall
 * (collect/offcpu.bpf.h): the sched_switch program and its maps set up
 * before load, attached, and its late waits settled at each drain
 * (offcpu_drain.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "collect/sampler_state.h"

bool sampler__off_cpu(const struct sampler *s)
{
	return s->opts.off_cpu || s->opts.wall;
}

struct bpf_program *sampler__switch_prog(const struct sampler *s)
{
	if (s->dwarf)
		return s->obj->progs.on_switch_unwind;
	return s->python ? s->obj->progs.on_switch_python : s->obj->progs.on_switch;
}

int sampler__offcpu_configure(struct sampler *s, bool prealloc)
{
	const struct sampler_opts *o = &s->opts;
	struct profile_bpf *obj = s->obj;
	bool on = sampler__off_cpu(s);
	struct bpf_map *maps[] = { obj->maps.offcpu_start, obj->maps.offcpu_late };
	int err = 0;

	obj->rodata->offcpu_enabled = on;
	obj->rodata->offcpu_runnable = o->include_runnable || o->wall;
	obj->rodata->min_block_ns = (__u64)o->min_block * 1000;
	obj->rodata->max_block_ns = o->max_block ? (__u64)o->max_block * 1000 : ~0ULL;
	bpf_program__set_autoload(obj->progs.on_switch, false);
	bpf_program__set_autoload(obj->progs.on_switch_python, false);
	bpf_program__set_autoload(obj->progs.on_switch_unwind, false);
	bpf_program__set_autoload(sampler__switch_prog(s), on);
	/* --off-cpu samples nothing */
	bpf_program__set_autoload(sampler__prog(s), !o->off_cpu);
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]) && !err; i++) {
		err = bpf_map__set_max_entries(maps[i], on ? OFFCPU_MAX_WAITS : 1);
		if (!err && prealloc)
			err = bpf_map__set_map_flags(maps[i], 0);
	}
	return err;
}

int sampler__offcpu_setup(struct sampler *s)
{
	if (!sampler__off_cpu(s))
		return 0;
	s->offcpu = offcpu_drain__new(s->opts.max_stack_depth, OFFCPU_MAX_WAITS);
	if (!s->offcpu)
		return -errno;
	offcpu_drain__set_maps(s->offcpu, bpf_map__fd(s->obj->maps.offcpu_start),
			       bpf_map__fd(s->obj->maps.offcpu_late));
	/* --wall: a sample is its period of CPU time; cpu-clock's is in ns (cli.c) */
	if (s->opts.wall)
		s->drain.sample_ns = s->opts.period ? (uint64_t)s->opts.period :
						      1000000000ULL / (uint64_t)s->opts.frequency;
	return 0;
}

int sampler__attach_switch(struct sampler *s)
{
	int err;

	if (!sampler__off_cpu(s))
		return 0;
	s->switch_link = bpf_program__attach(sampler__switch_prog(s));
	if (s->switch_link)
		return 0;
	err = -errno;
	/* the kernel refuses a program reading an argument the tracepoint lacks */
	if (err == -EINVAL)
		fprintf(stderr, "profile: cannot attach to tracepoint sched_switch: %s (%s needs Linux 5.18 or later, whose sched_switch passes prev_state)\n",
			strerror(-err), s->opts.off_cpu ? "--off-cpu" : "--wall");
	else
		fprintf(stderr, "profile: cannot attach to tracepoint sched_switch: %s\n",
			strerror(-err));
	return err;
}

void sampler__offcpu_stats(const struct sampler *s, struct offcpu_drain_stats *st)
{
	if (s->offcpu)
		offcpu_drain__stats(s->offcpu, st);
	else
		memset(st, 0, sizeof(*st));
}
