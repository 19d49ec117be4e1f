/* SPDX-License-Identifier: GPL-2.0 */
/*
 * proc_stat.h - a process's state from /proc/PID/stat: whether the -p
 * targets can still run, so that sampling stops once none can, and which
 * process a pid is (its start time); and whose it is and its pid in its
 * own namespace (/proc/PID/status), read in one place.
 */
#ifndef PROC_STAT_H
#define PROC_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The state letter of PROC_ROOT/PID/stat ('R', 'S', 'Z'...) in *state:
 * 0, -ENOENT when there is no such process, -EINVAL when the file is not
 * one, or another -errno. proc_root is "/proc" except in tests.
 */
int proc_stat__state(const char *proc_root, pid_t pid, char *state);
struct proc_stat_info {
	char state;		/* 'R', 'S', 'Z'... */
	bool ended;		/* a zombie or dead: it will not run again */
	uint64_t start_time;	/* clock ticks after boot: with the pid, one process */
	uint64_t vsize;		/* bytes of address space: changes with most mappings */
};

/* The state and start time of PROC_ROOT/PID/stat; errors as proc_stat__state(). */
int proc_stat__read(const char *proc_root, pid_t pid, struct proc_stat_info *info);
/* Gone, or a zombie or dead: it will not run again. */
bool proc_stat__ended(const char *proc_root, pid_t pid);
/* Whose a process is, and its pid as it sees itself: from /proc/PID/status. */
struct proc_status {
	uid_t uids[4];		/* real, effective, saved, filesystem */
	int nr_uids;		/* how many of them the Uid: line gave, from 1 */
	pid_t nspid;		/* the pid in the process's own namespace (NSpid:'s last) */
};

/*
 * The Uid: and NSpid: lines of PROC_ROOT/PID/status (nspid is pid where
 * there is no NSpid:). 0, -ENOENT when there is no such process, -EINVAL
 * when it has no Uid: line that reads, or another -errno.
 */
int proc_stat__status(const char *proc_root, pid_t pid, struct proc_status *st);
/*
 * The real uid of PROC_ROOT/PID/status (whose process it is: not the
 * owner of /proc/PID, root's for a process that made itself non-dumpable).
 * Errors as proc_stat__status().
 */
int proc_stat__uid(const char *proc_root, pid_t pid, uid_t *uid);
/* Every one of pids has ended; false for none. */
bool proc_stat__all_ended(const char *proc_root, const pid_t *pids, size_t nr);

#endif /* PROC_STAT_H */
