// SPDX-License-Identifier: GPL-2.0
/*
 * attach.c - attach the loaded BPF program: the sampling perf event on
 * every CPU, the exec and exit tracepoints of the generations, and the
 * uprobes on interpreters' code_dealloc() that Python frames use.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "common/clock.h"
#include "collect/diagnose.h"
#include "collect/sample_event.h"
#include "collect/sampler_state.h"
#include "trace_helpers.h"

/*
 * The exec and exit tracepoints that keep the generations (profile.h).
 * Without them sampling still works, but a process that execs or a pid
 * that is reused is resolved against its latest image: say so, go on.
 */
void sampler__attach_gens(struct sampler *s)
{
	struct bpf_program *progs[] = { s->obj->progs.on_exec, s->obj->progs.on_exit };
	struct bpf_link **links[] = { &s->exec_link, &s->exit_link };

	if (s->opts.kernel_only)
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
 * -- CMD: the fork tracepoint, and the exit one that forgets what exits
 * (sampler__attach_gens() attached it, unless -K). Without them only the
 * command's own process is sampled: say so, go on.
 */
void sampler__attach_follow(struct sampler *s)
{
	const char *tp = "sched_process_fork";
	int err = 0;

	if (!s->opts.command_pid)
		return;
	if (!s->exit_link) {
		s->follow_exit_link = bpf_program__attach(s->obj->progs.on_exit);
		if (!s->follow_exit_link) {
			err = errno;
			tp = "sched_process_exit";
		}
	}
	if (!err) {
		s->fork_link = bpf_program__attach(s->obj->progs.on_fork);
		if (!s->fork_link)
			err = errno;
	}
	if (err)
		fprintf(stderr, "profile: cannot attach to tracepoint %s: %s; the command's children are not profiled\n",
			tp, strerror(err));
}

static void print_open_error(const struct cpu_events *ce, int err)
{
	const char *hint = diagnose__event_hint(ce->event, err);

	if (ce->failed_cpu < 0 && err == -ENODEV)
		fprintf(stderr, "profile: no online CPU to sample\n");
	else if (ce->failed_cpu < 0)
		fprintf(stderr, "profile: cannot open perf events: %s\n", strerror(-err));
	else if (err == -EACCES || err == -EPERM)
		fprintf(stderr, "profile: cannot open %s event on cpu %d: %s (%s; kernel.perf_event_paranoid=%ld)\n",
			sample_event__name(ce->event), ce->failed_cpu, strerror(-err), hint,
			diagnose__sysctl("perf_event_paranoid"));
	else
		fprintf(stderr, "profile: cannot open %s event on cpu %d: %s%s%s%s\n",
			sample_event__name(ce->event), ce->failed_cpu, strerror(-err),
			hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
}

/* The sampling program on every event; an attached event's fd belongs to its link. */
static int attach_events(struct sampler *s, struct cpu_events *ce)
{
	s->links = calloc(ce->nr, sizeof(*s->links));
	if (!s->links) {
		fprintf(stderr, "profile: out of memory\n");
		return -ENOMEM;
	}
	for (int i = 0; i < ce->nr; i++) {
		s->links[i] = bpf_program__attach_perf_event(sampler__prog(s), ce->fds[i]);
		if (!s->links[i]) {
			int err = -errno;

			fprintf(stderr, "profile: cannot attach to perf event on cpu %d: %s\n",
				ce->cpus[i], strerror(-err));
			return err;
		}
		ce->fds[i] = -1;
		s->nr_links++;
	}
	return 0;
}

/*
 * One system-wide event per online CPU (per-task events are filtered in
 * BPF instead), of the event -e chose: the same on every CPU.
 */
int sampler__attach(struct sampler *s)
{
	int nr_cpus = libbpf_num_possible_cpus();
	struct cpu_events ce;
	bool *online;
	int err;

	s->last_flip_ns = monotonic_ns();	/* the first window opens with the first event */
	if (s->opts.off_cpu)
		return sampler__attach_switch(s);
	if (nr_cpus <= 0) {
		fprintf(stderr, "profile: cannot count the possible CPUs\n");
		return -EINVAL;
	}
	online = calloc(nr_cpus, sizeof(*online));
	if (!online) {
		fprintf(stderr, "profile: out of memory\n");
		return -ENOMEM;
	}
	if (read_online_cpus(online, nr_cpus) < 0)
		memset(online, 1, nr_cpus * sizeof(*online));
	err = cpu_events__open(&ce, &s->opts, online, nr_cpus, sample_event__open_cpu, NULL);
	free(online);
	if (err) {
		print_open_error(&ce, err);
		return err;
	}
	s->event = ce.event;
	err = attach_events(s, &ce);
	cpu_events__close(&ce);
	/* --wall: the waits of the same threads */
	return err ? err : sampler__attach_switch(s);
}

const char *sampler__event(const struct sampler *s)
{
	return s->opts.off_cpu ? "sched_switch" : sample_event__name(s->event);
}

/*
 * The probe that counts a process's frees of code objects
 * (python/py_codes.bpf.h) on the function at offset in the file open at
 * fd, for every process that maps that file: called by the Python
 * worker, kept until the sampler is freed. 0 or -errno.
 */
int sampler__watch_code_frees(struct sampler *s, int fd, uint64_t offset)
{
	char path[64];
	struct bpf_link *l;
	int err = 0;

	if (!s->python)
		return -ENOTSUP;
	/* the kernel resolves the link to the file the caller opened and checked */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	pthread_mutex_lock(&s->watch_lock);
	if (s->nr_watch == SAMPLER_MAX_WATCHED) {
		err = -E2BIG;
	} else {
		l = bpf_program__attach_uprobe(s->obj->progs.py_code_freed, false, -1, path,
					       (size_t)offset);
		if (l)
			s->watch[s->nr_watch++] = l;
		else
			err = -errno;
	}
	pthread_mutex_unlock(&s->watch_lock);
	return err;
}

void sampler__detach(struct sampler *s)
{
	for (int i = 0; i < s->nr_links; i++)
		bpf_link__destroy(s->links[i]);	/* closes the perf event too */
	free(s->links);
	s->links = NULL;
	s->nr_links = 0;
	bpf_link__destroy(s->switch_link);
	s->switch_link = NULL;
}
