// SPDX-License-Identifier: GPL-2.0
/*
 * proc_stat.c - a process's state from /proc/PID/stat: whether the -p
 * targets can still run, so that sampling stops once none can.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "proc_stat.h"

/* Gone, or a zombie: it will not run again. */
bool proc_stat__ended(pid_t pid)
{
	char path[64], buf[512], *paren;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT || errno == ESRCH;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	paren = strrchr(buf, ')');	/* comm may hold anything, even ')' */
	return paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

bool proc_stat__all_ended(const pid_t *pids, size_t nr)
{
	if (!nr)
		return false;
	for (size_t i = 0; i < nr; i++)
		if (!proc_stat__ended(pids[i]))
			return false;
	return true;
}
