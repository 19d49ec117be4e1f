// SPDX-License-Identifier: GPL-2.0
/*
 * diagnose.c - hints for the kernel's refusals (diagnose.h).
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "collect/diagnose.h"
#include "trace_helpers.h"

const char *diagnose__privilege_hint(void)
{
	return geteuid() ? "run as root, or with CAP_BPF and CAP_PERFMON"
			 : "missing CAP_BPF/CAP_PERFMON, or BPF is restricted here";
}

const char *diagnose__event_hint(enum sample_event ev, int err)
{
	if (err == -EACCES || err == -EPERM)
		return diagnose__privilege_hint();
	/* no PMU takes the event: ENOENT, or EOPNOTSUPP for sampling */
	if (ev == SAMPLE_EVENT_CYCLES && (err == -ENOENT || err == -EOPNOTSUPP))
		return "no hardware PMU counts cycles there; the default cpu-clock needs none";
	return NULL;
}

void diagnose__load_error(int err, char *buf, size_t size)
{
	char why[128];

	/* libbpf_strerror knows libbpf's own codes, which strerror calls unknown */
	if (libbpf_strerror(err, why, sizeof(why)))
		snprintf(why, sizeof(why), "unknown error");
	/* as root, EACCES is the verifier's refusal */
	if (err == -EPERM || (err == -EACCES && geteuid()))
		snprintf(buf, size, "%s (%s)", why, diagnose__privilege_hint());
	else
		snprintf(buf, size, "%s (libbpf error %d; -v shows libbpf's log and the verifier's)",
			 why, err);
}

long diagnose__sysctl(const char *name)
{
	char path[256];
	long v;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	return read_long_file(path, &v) ? -1 : v;
}
