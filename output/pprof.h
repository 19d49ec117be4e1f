/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pprof.h - write a resolved profile as pprof's gzip-compressed
 * profile.proto (github.com/google/pprof/proto/profile.proto), readable by
 * `go tool pprof`, pprof's web UI and the many tools that import it.
 *
 * What the file holds:
 *  - sample types: [samples/count, cpu/nanoseconds] when sampling by
 *    frequency (each sample weighs 1e9/frequency ns, rounded down), and
 *    with -c N either [samples/count, cpu/nanoseconds] for the cpu-clock
 *    event (its count is nanoseconds) or [samples/count, <event>/count]
 *    (e.g. cycles/count) for a hardware event, each sample weighing N;
 *    period_type and period say the same; a profile that counts samples
 *    only (pf_profile__counts_only()) has [samples/count] alone;
 *  - one Sample per pf_sample, locations leaf first (pprof's order),
 *    values [count, count * period], labels pid and comm, and tid when the
 *    profile is per thread;
 *  - one Location per distinct frame (module, address and name; a marker
 *    such as [unknown] by its name and module), with one Line to a
 *    Function (name and module); one Mapping per module with its build-id,
 *    all kernel frames in "[kernel.kallsyms]". Mappings claim
 *    has_functions so that pprof does not try to symbolize again;
 *  - time_nanos, duration_nanos and the title as a comment.
 */
#ifndef PPROF_H
#define PPROF_H

#include <stdio.h>

#include "output/profile_data.h"

/*
 * Write p to out. Returns 0, -ENOMEM, or -errno of a failed write.
 */
int pprof__write(const struct pf_profile *p, FILE *out);

#endif /* PPROF_H */
