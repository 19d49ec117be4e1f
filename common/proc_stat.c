// SPDX-License-Identifier: GPL-2.0
/*
 * proc_stat.c - a process's state from /proc/PID/stat: whether the -p
 * targets can still run, so that sampling stops once none can; whose it
 * is, from /proc/PID/status.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/proc_stat.h"

/* The state, and the start time where need_start says so. */
static int read_stat(const char *proc_root, pid_t pid, struct proc_stat_info *info, bool need_start)
{
	char path[4096], buf[512], *paren, *p, *end;
	unsigned long long v = 0;
	size_t n = 0;
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "%s/%d/stat", proc_root, (int)pid);
	/* read twice for each process published: no stdio buffer, no fstat(2) */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ESRCH ? -ENOENT : -errno;
	while (n < sizeof(buf) - 1 &&
	       ((r = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0 || (r < 0 && errno == EINTR)))
		n += r > 0 ? r : 0;
	close(fd);
	buf[n] = '\0';
	/* "pid (comm) S ...": comm may hold anything, even ") Z " */
	paren = strrchr(buf, ')');
	if (!paren || paren[1] != ' ' || !paren[2])
		return -EINVAL;
	info->state = paren[2];
	info->ended = info->state == 'Z' || info->state == 'X';
	info->start_time = 0;
	info->vsize = 0;
	if (!need_start)
		return 0;
	/* starttime is the 22nd field, the 20th after the state; vsize the 23rd */
	p = paren + 3;
	for (int field = 4; field <= 23; field++) {
		errno = 0;
		v = strtoull(p, &end, 10);
		if (end == p || errno)
			return -EINVAL;
		p = end;
		if (field == 22)
			info->start_time = v;
	}
	info->vsize = v;
	return 0;
}

int proc_stat__read(const char *proc_root, pid_t pid, struct proc_stat_info *info)
{
	return read_stat(proc_root, pid, info, true);
}

int proc_stat__state(const char *proc_root, pid_t pid, char *state)
{
	struct proc_stat_info info;
	int err = read_stat(proc_root, pid, &info, false);

	if (!err)
		*state = info.state;
	return err;
}

bool proc_stat__ended(const char *proc_root, pid_t pid)
{
	char state;
	int err = proc_stat__state(proc_root, pid, &state);

	if (err)
		return err == -ENOENT;
	return state == 'Z' || state == 'X';
}

/* The uids of a "Uid:" line's rest: how many read, 0 for none. */
static int parse_uids(const char *s, uid_t uids[4])
{
	unsigned int v[4];
	int n = sscanf(s, "%u %u %u %u", &v[0], &v[1], &v[2], &v[3]);

	for (int i = 0; i < n; i++)
		uids[i] = v[i];
	return n > 0 ? n : 0;
}

/* An "NSpid:" line's rest, outermost first: the last is the process's own view. */
static void parse_nspid(char *s, pid_t *nspid)
{
	char *save = NULL, *tok = strtok_r(s, " \t\n", &save);

	for (; tok; tok = strtok_r(NULL, " \t\n", &save)) {
		char *end;
		long v = strtol(tok, &end, 10);

		if (*end || v <= 0 || v > INT_MAX)
			break;
		*nspid = (pid_t)v;
	}
}

int proc_stat__status(const char *proc_root, pid_t pid, struct proc_status *st)
{
	char path[4096], line[512];
	bool uids_seen = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/status", proc_root, (int)pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ESRCH ? -ENOENT : -errno;
	st->nr_uids = 0;
	st->nspid = pid;
	while (fgets(line, sizeof(line), f)) {
		if (!uids_seen && !strncmp(line, "Uid:", 4)) {
			uids_seen = true;
			st->nr_uids = parse_uids(line + 4, st->uids);
		} else if (!strncmp(line, "NSpid:", 6)) {
			parse_nspid(line + 6, &st->nspid);
		}
	}
	fclose(f);
	return st->nr_uids ? 0 : -EINVAL;
}

int proc_stat__uid(const char *proc_root, pid_t pid, uid_t *uid)
{
	struct proc_status st;
	int err = proc_stat__status(proc_root, pid, &st);

	if (!err)
		*uid = st.uids[0];
	return err;
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
