/* SPDX-License-Identifier: GPL-2.0 */
/*
 * proc_stat.h - a process's state from /proc/PID/stat: whether the -p
 * targets can still run, so that sampling stops once none can.
 */
#ifndef PROC_STAT_H
#define PROC_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Gone, or a zombie: it will not run again. */
bool proc_stat__ended(pid_t pid);
/* Every one of pids has ended; false for none. */
bool proc_stat__all_ended(const pid_t *pids, size_t nr);

#endif /* PROC_STAT_H */
