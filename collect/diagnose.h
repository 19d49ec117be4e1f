/* SPDX-License-Identifier: GPL-2.0 */
/*
 * diagnose.h - what to tell the user when the kernel refuses to load the
 * BPF program or to open a perf event.
 */
#ifndef DIAGNOSE_H
#define DIAGNOSE_H

#include <stddef.h>

#include "collect/sample_event.h"

/* What is missing when the kernel says EPERM or EACCES. */
const char *diagnose__privilege_hint(void);

/*
 * Why perf_event_open(2) of ev failed with err (-errno), when the errno
 * alone does not say it; NULL when it does.
 */
const char *diagnose__event_hint(enum sample_event ev, int err);

/*
 * Why loading the BPF program failed with err (a -errno or one of
 * libbpf's own -LIBBPF_ERRNO__ codes), as libbpf words it, and what to
 * do: "Invalid argument (libbpf error -22; -v shows libbpf's log and the
 * verifier's)". Truncated to size.
 */
void diagnose__load_error(int err, char *buf, size_t size);

/* /proc/sys/kernel/NAME, -1 when it cannot be read. */
long diagnose__sysctl(const char *name);

#endif /* DIAGNOSE_H */
