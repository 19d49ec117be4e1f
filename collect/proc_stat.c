// SPDX-License-Identifier: GPL-2.0
/*
 * proc_stat.c - a process's state from /proc/PID/stat: whether the -p
 * targets can still run, so that sampling stops once none can.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "proc_stat.h"

int proc_stat__state(const char *proc_root, pid_t pid, char *state)
{
	char path[4096], buf[512], *paren;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%d/stat", proc_root, (int)pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ESRCH ? -ENOENT : -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "pid (comm) S ...": comm may hold anything, even ") Z " */
	paren = strrchr(buf, ')');
	if (!paren || paren[1] != ' ' || !paren[2])
		return -EINVAL;
	*state = paren[2];
	return 0;
}

bool proc_stat__ended(const char *proc_root, pid_t pid)
{
	char state;
	int err = proc_stat__state(proc_root, pid, &state);

	if (err)
		return err == -ENOENT;
	return state == 'Z' || state == 'X';
}

bool proc_stat__all_ended(const char *proc_root, const pid_t *pids, size_t nr)
{
	if (!nr)
		return false;
	for (size_t i = 0; i < nr; i++)
		if (!proc_stat__ended(proc_root, pids[i]))
			return false;
	return true;
}
