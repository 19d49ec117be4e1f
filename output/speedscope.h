/* SPDX-License-Identifier: GPL-2.0 */
/*
 * speedscope.h - write a resolved profile in speedscope's JSON file format
 * (https://www.speedscope.app/file-format-schema.json), for
 * https://www.speedscope.app and the speedscope command.
 *
 * The frames are shared: one entry per distinct name and file (the module,
 * "[kernel.kallsyms]" for the kernel image). There is one "sampled"
 * profile per process, named "comm (pid)" (per thread with -L: "comm
 * (pid/tid)"), heaviest first; each distinct stack is one sample, root
 * first, weighed by time when the samples measure time — count * 1e9 /
 * frequency, or count * period for the cpu-clock event, unit
 * "nanoseconds" — and otherwise by events, count * period, unit "none" (by samples when
 * the profile counts them only). The file's name, the page's title, is the profile's
 * title and which of speedscope's views show counted samples (the file cannot choose one).
 */
#ifndef SPEEDSCOPE_H
#define SPEEDSCOPE_H

#include <stdio.h>

#include "output/profile_data.h"

/*
 * Write p to out. Returns 0, -ENOMEM, or -errno of a failed write.
 */
int speedscope__write(const struct pf_profile *p, FILE *out);

#endif /* SPEEDSCOPE_H */
