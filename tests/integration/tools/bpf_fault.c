// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_fault.c - an LD_PRELOAD shim that makes this kernel look like an
 * older one: bpf(BPF_MAP_CREATE) of the map type numbered in
 * $BPF_FAULT_MAP_TYPE, and bpf(BPF_PROG_LOAD) of a program that calls the
 * helper numbered in $BPF_FAULT_HELPER, fail with EINVAL, as a kernel
 * that does not know them answers. libbpf makes its bpf() calls through
 * syscall(3), which the shim takes the place of; every other call goes
 * through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>

#include <linux/bpf.h>

/* Whether the program calls the helper $BPF_FAULT_HELPER names. */
static int calls_helper(const union bpf_attr *attr)
{
	const char *helper = getenv("BPF_FAULT_HELPER");
	const struct bpf_insn *insns = (const struct bpf_insn *)(unsigned long)attr->insns;

	if (!helper)
		return 0;
	for (__u32 i = 0; i < attr->insn_cnt; i++)
		if (insns[i].code == (BPF_JMP | BPF_CALL) && insns[i].src_reg == 0 &&
		    insns[i].imm == (int)strtol(helper, NULL, 0))
			return 1;
	return 0;
}

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
	if (nr == __NR_bpf && a[0] == BPF_PROG_LOAD && calls_helper((const union bpf_attr *)a[1])) {
		const union bpf_attr *attr = (const union bpf_attr *)a[1];

		/* what the verifier logs: libbpf's probe looks for it */
		if (attr->log_buf && attr->log_size)
			snprintf((char *)(unsigned long)attr->log_buf, attr->log_size,
				 "invalid func unknown#%s\n", getenv("BPF_FAULT_HELPER"));
		errno = EINVAL;
		return -1;
	}
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
