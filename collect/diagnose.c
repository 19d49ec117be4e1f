// SPDX-License-Identifier: GPL-2.0
/*
 * diagnose.c - hints for the kernel's refusals (diagnose.h).
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "diagnose.h"
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

long diagnose__sysctl(const char *name)
{
	char path[256];
	long v;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	return read_long_file(path, &v) ? -1 : v;
}
