// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_fault.c - an LD_PRELOAD shim that makes this kernel look like an
 * older one: bpf(BPF_MAP_CREATE) of the map type numbered in
 * $BPF_FAULT_MAP_TYPE fails with EINVAL, as a kernel that does not know
 * the type answers. libbpf makes its bpf() calls through syscall(3),
 * which the shim takes the place of; every other call goes through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/syscall.h>

#include <linux/bpf.h>

long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	const char *type = getenv("BPF_FAULT_MAP_TYPE");
	long a[6];
	va_list ap;

	/* the callee cannot know how many were passed: take the most a syscall has */
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == __NR_bpf && a[0] == BPF_MAP_CREATE && type &&
	    ((const union bpf_attr *)a[1])->map_type == strtoul(type, NULL, 0)) {
		errno = EINVAL;
		return -1;
	}
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
