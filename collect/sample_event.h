/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sample_event.h - the perf event that drives sampling, opened on one CPU.
 */
#ifndef SAMPLE_EVENT_H
#define SAMPLE_EVENT_H

#include <stdbool.h>

#include "cli.h"

/* One system-wide event on cpu, by env's -F or -c. An fd or -errno. */
int sample_event__open(const struct profile_env *env, bool hardware, int cpu);

#endif /* SAMPLE_EVENT_H */
