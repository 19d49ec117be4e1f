/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fnv.h - FNV-1a, the hash of the BPF program's overflow keys and of the
 * tables in userspace: start from the offset basis, then for each value
 * xor it in and multiply by the prime. A step takes a byte (the classic
 * FNV-1a of a string) or a whole 64-bit word (stacks, hashed per frame).
 *
 * Fast and good enough for keys nobody picks on purpose; easy to invert,
 * so whoever controls the input can make collisions (profile.bpf.c and
 * tests/workloads/fnvcollide.c). The BPF program includes this file too:
 * no libc, kernel types.
 */
#ifndef FNV_H
#define FNV_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define FNV64_OFFSET 0xcbf29ce484222325ULL
#define FNV64_PRIME 0x100000001b3ULL
#define FNV32_OFFSET 2166136261u
#define FNV32_PRIME 16777619u

static inline __u64 fnv64_step(__u64 h, __u64 v)
{
	return (h ^ v) * FNV64_PRIME;
}

static inline __u64 fnv64_bytes(const void *buf, unsigned long len)
{
	const unsigned char *p = buf;
	__u64 h = FNV64_OFFSET;

	for (unsigned long i = 0; i < len; i++)
		h = fnv64_step(h, p[i]);
	return h;
}

static inline __u32 fnv32_str(const char *s)
{
	__u32 h = FNV32_OFFSET;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * FNV32_PRIME;
	return h;
}

#endif /* FNV_H */
