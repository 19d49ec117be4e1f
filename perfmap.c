// SPDX-License-Identifier: GPL-2.0
/*
 * perfmap.c - /tmp/perf-PID.map parser and the checks that make a file
 * written by an untrusted process safe to read: regular file, right owner,
 * no symlink, bounded size.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfmap.h"
#include "trace_helpers.h"
#include "rootfs.h"

/* A JVM's map reaches tens of MB; past this we read the first part only. */
#define PERFMAP_MAX_BYTES (256u << 20)

struct entry {
	struct perfmap_sym sym;
	size_t seq;		/* line order: later lines win */
	uint64_t max_end;	/* highest end among this and all earlier entries */
};

struct perfmap {
	struct entry *entries;	/* sorted by start */
	size_t nr;
	char *pool;
	/* what was read, to tell whether the file changed */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->sym.start != y->sym.start)
		return (x->sym.start > y->sym.start) - (x->sym.start < y->sym.start);
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Hex number with optional 0x; advances *p. Returns false when none. */
static bool parse_hex(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	int digits = 0;

	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	*v = 0;
	for (; s < end; s++, digits++) {
		int d = hex_digit_value(*s);

		if (d < 0)
			break;
		if (digits >= 16)
			return false;
		*v = *v << 4 | d;
	}
	*p = s;
	return digits > 0;
}

/* "START SIZE name" -> e (name as offset into buf). False when malformed. */
static bool parse_line(const char *line, const char *end, struct entry *e,
		       const char **name, size_t *name_len)
{
	const char *p = line;

	if (!parse_hex(&p, end, &e->sym.start) || p == end || (*p != ' ' && *p != '\t'))
		return false;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (!parse_hex(&p, end, &e->sym.size) || p == end || (*p != ' ' && *p != '\t'))
		return false;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	/* the name is the rest of the line: C++ and Java names hold spaces */
	while (end > p && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (p == end || !e->sym.size || e->sym.start + e->sym.size < e->sym.start)
		return false;
	*name = p;
	*name_len = end - p;
	return true;
}

struct perfmap *perfmap__load_buf(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	size_t cap = 0, pool_len = 0;
	struct perfmap *pm;

	pm = calloc(1, sizeof(*pm));
	if (!pm)
		return NULL;
	/* at most one name byte per input byte, plus NULs: one allocation */
	pm->pool = malloc(len + 1);
	if (!pm->pool)
		goto nomem;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *eol = nl ? nl : end;
		const char *name;
		size_t name_len;
		struct entry e = { .seq = pm->nr };

		if (parse_line(p, eol, &e, &name, &name_len)) {
			if (pm->nr == cap) {
				size_t ncap = cap ? cap * 2 : 256;
				struct entry *ne = realloc(pm->entries, ncap * sizeof(*ne));

				if (!ne)
					goto nomem;
				pm->entries = ne;
				cap = ncap;
			}
			memcpy(pm->pool + pool_len, name, name_len);
			pm->pool[pool_len + name_len] = '\0';
			e.sym.name = (const char *)(uintptr_t)pool_len;	/* pointer after the loop */
			pool_len += name_len + 1;
			pm->entries[pm->nr++] = e;
		}
		p = eol + 1;
	}
	for (size_t i = 0; i < pm->nr; i++)
		pm->entries[i].sym.name = pm->pool + (uintptr_t)pm->entries[i].sym.name;
	if (pm->nr)
		qsort(pm->entries, pm->nr, sizeof(*pm->entries), entry_cmp);
	for (size_t i = 0; i < pm->nr; i++) {
		struct entry *e = &pm->entries[i];
		uint64_t end_addr = e->sym.start + e->sym.size;

		e->max_end = i && pm->entries[i - 1].max_end > end_addr ? pm->entries[i - 1].max_end
									 : end_addr;
	}
	return pm;
nomem:
	perfmap__free(pm);
	errno = ENOMEM;
	return NULL;
}

static struct perfmap *load_fd(int fd, const struct stat *sb)
{
	size_t cap = sb->st_size > 0 && (uint64_t)sb->st_size < PERFMAP_MAX_BYTES ?
		     (size_t)sb->st_size + 1 : 1 << 16;
	struct perfmap *pm;
	size_t len = 0;
	char *buf;
	int err;

	buf = malloc(cap);
	if (!buf)
		return NULL;
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *nb;

			if (cap >= PERFMAP_MAX_BYTES)
				break;
			nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			free(buf);
			errno = err;
			return NULL;
		}
		if (n == 0)
			break;
		len += n;
	}
	pm = perfmap__load_buf(buf, len);
	err = errno;
	free(buf);
	if (pm) {
		pm->dev = sb->st_dev;
		pm->ino = sb->st_ino;
		pm->size = sb->st_size;
		pm->mtime = sb->st_mtim;
	}
	errno = err;
	return pm;
}

/* Regular files only: a FIFO would block us, a device would be worse. */
static int open_regular(const char *root, const char *path, struct stat *sb)
{
	int fd = rootfs__open(root, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	if (fd < 0)
		return fd == -ELOOP ? -EPERM : fd;
	if (fstat(fd, sb) || !S_ISREG(sb->st_mode)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

struct perfmap *perfmap__load_file(const char *path)
{
	struct perfmap *pm;
	struct stat sb;
	int fd, err;

	fd = open_regular(NULL, path, &sb);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	pm = load_fd(fd, &sb);
	err = errno;
	close(fd);
	errno = err;
	return pm;
}

struct proc_ids {
	uid_t uids[4];		/* real, effective, saved, filesystem */
	int nr_uids;
	pid_t nspid;		/* the pid in the process's own namespace */
};

/* Uid: and NSpid: from /proc/PID/status. */
static int read_status(const char *proc_root, pid_t pid, struct proc_ids *ids)
{
	char path[4096], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/status", proc_root, (int)pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	ids->nr_uids = 0;
	ids->nspid = pid;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Uid:", 4)) {
			unsigned int u[4];

			ids->nr_uids = sscanf(line + 4, "%u %u %u %u", &u[0], &u[1], &u[2], &u[3]);
			if (ids->nr_uids < 0)
				ids->nr_uids = 0;
			for (int i = 0; i < ids->nr_uids; i++)
				ids->uids[i] = u[i];
		} else if (!strncmp(line, "NSpid:", 6)) {
			/* outermost first: the last one is the process's own view */
			char *save = NULL, *tok = strtok_r(line + 6, " \t\n", &save);

			for (; tok; tok = strtok_r(NULL, " \t\n", &save)) {
				char *endp;
				long v = strtol(tok, &endp, 10);

				if (*endp || v <= 0)
					break;
				ids->nspid = v;
			}
		}
	}
	fclose(f);
	return ids->nr_uids ? 0 : -ESRCH;
}

static bool owner_ok(const struct stat *sb, const struct proc_ids *ids)
{
	if (sb->st_uid == 0)
		return true;
	for (int i = 0; i < ids->nr_uids; i++)
		if (sb->st_uid == ids->uids[i])
			return true;
	return false;
}

int perfmap__refresh_pid(struct perfmap **pm, const char *proc_root, pid_t pid)
{
	char root[4096], path[64];
	struct proc_ids ids = {};
	struct perfmap *fresh;
	struct stat sb;
	int fd, err;

	if (!proc_root)
		proc_root = "/proc";
	err = read_status(proc_root, pid, &ids);
	if (err)
		return err;
	snprintf(root, sizeof(root), "%s/%d/root", proc_root, (int)pid);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)ids.nspid);
	fd = open_regular(root, path, &sb);
	if (fd < 0)
		return fd;
	if (!owner_ok(&sb, &ids)) {
		close(fd);
		return -EPERM;
	}
	if (*pm && (*pm)->dev == sb.st_dev && (*pm)->ino == sb.st_ino &&
	    (*pm)->size == sb.st_size && (*pm)->mtime.tv_sec == sb.st_mtim.tv_sec &&
	    (*pm)->mtime.tv_nsec == sb.st_mtim.tv_nsec) {
		close(fd);
		return 0;
	}
	fresh = load_fd(fd, &sb);
	err = errno;
	close(fd);
	if (!fresh)
		return -err;
	perfmap__free(*pm);
	*pm = fresh;
	return 0;
}

const struct perfmap_sym *perfmap__find(const struct perfmap *pm, uint64_t addr)
{
	const struct entry *best = NULL;
	size_t lo = 0, hi;

	if (!pm || !pm->nr || addr < pm->entries[0].sym.start)
		return NULL;
	hi = pm->nr;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (pm->entries[mid].sym.start <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/*
	 * Entries starting at or below addr, going down while one of them
	 * could still reach addr; of those covering it, the newest wins.
	 */
	for (size_t i = lo + 1; i-- > 0 && pm->entries[i].max_end > addr;) {
		const struct entry *e = &pm->entries[i];

		if (addr - e->sym.start < e->sym.size && (!best || e->seq > best->seq))
			best = e;
	}
	return best ? &best->sym : NULL;
}

size_t perfmap__count(const struct perfmap *pm)
{
	return pm ? pm->nr : 0;
}

void perfmap__free(struct perfmap *pm)
{
	if (!pm)
		return;
	free(pm->entries);
	free(pm->pool);
	free(pm);
}
