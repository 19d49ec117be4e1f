// SPDX-License-Identifier: GPL-2.0
/*
 * diagnose.c - hints for the kernel's refusals (diagnose.h).
 */
#include <stdio.h>
#include <unistd.h>

#include "diagnose.h"
#include "trace_helpers.h"

const char *diagnose__privilege_hint(void)
{
	return geteuid() ? "run as root, or with CAP_BPF and CAP_PERFMON"
			 : "missing CAP_BPF/CAP_PERFMON, or BPF is restricted here";
}

long diagnose__sysctl(const char *name)
{
	char path[256];
	long v;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	return read_long_file(path, &v) ? -1 : v;
}
