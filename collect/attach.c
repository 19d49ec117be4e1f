// SPDX-License-Identifier: GPL-2.0
/*
 * attach.c - attach the loaded BPF program: the sampling perf event on
 * every CPU, and the exec and exit tracepoints of the generations.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "diagnose.h"
#include "sample_event.h"
#include "sampler_state.h"
#include "trace_helpers.h"

/*
 * The exec and exit tracepoints that keep the generations (profile.h).
 * Without them sampling still works, but a process that execs or a pid
 * that is reused is resolved against its latest image: say so, go on.
 */
static void attach_gen_tracking(struct sampler *s)
{
	struct bpf_program *progs[] = { s->obj->progs.on_exec, s->obj->progs.on_exit };
	struct bpf_link **links[] = { &s->exec_link, &s->exit_link };

	if (s->env->kernel_only)
		return;
	for (size_t i = 0; i < 2; i++) {
		*links[i] = bpf_program__attach(progs[i]);
		if (!*links[i]) {
			int err = errno;

			fprintf(stderr, "profile: cannot attach to tracepoint %s: %s; processes that exec or reuse a pid are named from their latest image\n",
				bpf_program__section_name(progs[i]) + strlen("raw_tp/"), strerror(err));
			/* half of them would leave stale generations: none at all */
			bpf_link__destroy(s->exec_link);
			s->exec_link = NULL;
			return;
		}
	}
}

/*
 * One system-wide event per online CPU (per-task events are filtered in
 * BPF instead). Hardware cycles where the machine has a PMU, else the
 * cpu-clock software event.
 */
int sampler__attach(struct sampler *s)
{
	const struct profile_env *env = s->env;
	int nr_cpus = libbpf_num_possible_cpus();
	bool *online;
	int err = 0;

	/* first, so that no exec after the first sample goes unseen */
	attach_gen_tracking(s);
	if (nr_cpus <= 0) {
		fprintf(stderr, "profile: cannot count the possible CPUs\n");
		return -EINVAL;
	}
	online = calloc(nr_cpus, sizeof(*online));
	s->links = calloc(nr_cpus, sizeof(*s->links));
	if (!online || !s->links) {
		free(online);
		fprintf(stderr, "profile: out of memory\n");
		return -ENOMEM;
	}
	if (read_online_cpus(online, nr_cpus) < 0)
		memset(online, 1, nr_cpus * sizeof(*online));

	s->hardware = true;
	s->last_flip_ns = monotonic_ns();	/* the first window opens with the first event */
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		int fd;

		if (!online[cpu] || (env->cpu >= 0 && cpu != env->cpu))
			continue;
		fd = sample_event__open(env, s->hardware, cpu);
		if (fd < 0 && s->hardware && fd != -ENODEV && fd != -EACCES && fd != -EPERM) {
			s->hardware = false;	/* no PMU (e.g. a VM): fall back for every CPU */
			fd = sample_event__open(env, s->hardware, cpu);
		}
		if (fd == -ENODEV)
			continue;	/* went offline meanwhile */
		if (fd < 0) {
			err = fd;
			if (err == -EACCES || err == -EPERM)
				fprintf(stderr, "profile: cannot open perf event on cpu %d: %s (%s; kernel.perf_event_paranoid=%ld)\n",
					cpu, strerror(-err), diagnose__privilege_hint(),
					diagnose__sysctl("perf_event_paranoid"));
			else
				fprintf(stderr, "profile: cannot open perf event on cpu %d: %s\n",
					cpu, strerror(-err));
			break;
		}
		s->links[s->nr_links] = bpf_program__attach_perf_event(s->obj->progs.do_sample, fd);
		if (!s->links[s->nr_links]) {
			err = -errno;
			fprintf(stderr, "profile: cannot attach to perf event on cpu %d: %s\n",
				cpu, strerror(-err));
			close(fd);
			break;
		}
		s->nr_links++;
	}
	free(online);
	if (!err && !s->nr_links) {
		fprintf(stderr, "profile: no online CPU to sample\n");
		err = -ENODEV;
	}
	return err;
}

const char *sampler__event(const struct sampler *s)
{
	return s->hardware ? "cycles" : "cpu-clock";
}

void sampler__detach(struct sampler *s)
{
	for (int i = 0; i < s->nr_links; i++)
		bpf_link__destroy(s->links[i]);	/* closes the perf event too */
	free(s->links);
	s->links = NULL;
	s->nr_links = 0;
}
