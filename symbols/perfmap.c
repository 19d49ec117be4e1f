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

#include "common/file_stamp.h"
#include "common/proc_stat.h"
#include "symbols/budget.h"
#include "symbols/perfmap.h"
#include "trace_helpers.h"
#include "symbols/rootfs.h"

/* Read this much at a time; a longer line is skipped. */
#define CHUNK (1u << 20)

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
	struct file_stamp id;
};

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->sym.start != y->sym.start)
		return (x->sym.start > y->sym.start) - (x->sym.start < y->sym.start);
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Hex number with optional 0x; advances *p. Returns false when none. */
static bool parse_hex_0x(const char **p, const char *end, uint64_t *v)
{
	if (end - *p > 2 && (*p)[0] == '0' && ((*p)[1] == 'x' || (*p)[1] == 'X'))
		*p += 2;
	return !parse_hex(p, end, v);
}

/* "START SIZE name" -> e (name as offset into buf). False when malformed. */
static bool parse_line(const char *line, const char *end, struct entry *e,
		       const char **name, size_t *name_len)
{
	const char *p = line;

	if (!parse_hex_0x(&p, end, &e->sym.start) || p == end || (*p != ' ' && *p != '\t'))
		return false;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (!parse_hex_0x(&p, end, &e->sym.size) || p == end || (*p != ' ' && *p != '\t'))
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

struct parser {
	struct perfmap *pm;
	size_t cap, pool_len, pool_cap;
	const struct budget *b;
};

static int parser__line(struct parser *ps, const char *line, const char *eol)
{
	struct perfmap *pm = ps->pm;
	struct entry e = { .seq = pm->nr };
	const char *name;
	size_t name_len;

	if (!parse_line(line, eol, &e, &name, &name_len))
		return 0;
	if (pm->nr >= ps->b->max_perfmap_entries)
		return budget__refuse("perf map of more than %llu entries, over the budget",
				      (unsigned long long)ps->b->max_perfmap_entries);
	if (array_reserve((void **)&pm->entries, &ps->cap, pm->nr, sizeof(*pm->entries)))
		return -ENOMEM;
	while (ps->pool_len + name_len + 1 > ps->pool_cap) {
		size_t ncap = ps->pool_cap ? ps->pool_cap * 2 : 4096;
		char *np = realloc(pm->pool, ncap);

		if (!np)
			return -ENOMEM;
		pm->pool = np;
		ps->pool_cap = ncap;
	}
	memcpy(pm->pool + ps->pool_len, name, name_len);
	pm->pool[ps->pool_len + name_len] = '\0';
	e.sym.name = (const char *)(uintptr_t)ps->pool_len;	/* pointer after the last line */
	ps->pool_len += name_len + 1;
	pm->entries[pm->nr++] = e;
	return 0;
}

/* The complete lines of buf; returns how many bytes were used, or -errno. */
static ssize_t parser__feed(struct parser *ps, const char *buf, size_t len, bool last)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		int err;

		if (!nl && !last)
			break;
		err = parser__line(ps, p, nl ? nl : end);
		if (err)
			return err;
		p = nl ? nl + 1 : end;
	}
	return p - buf;
}

static struct perfmap *parser__finish(struct parser *ps)
{
	struct perfmap *pm = ps->pm;

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
}

struct perfmap *perfmap__load_buf(const char *buf, size_t len)
{
	struct parser ps = { .b = budget__default() };
	ssize_t n;

	ps.pm = calloc(1, sizeof(*ps.pm));
	if (!ps.pm)
		return NULL;
	n = parser__feed(&ps, buf, len, true);
	if (n < 0) {
		perfmap__free(ps.pm);
		errno = -n;
		return NULL;
	}
	return parser__finish(&ps);
}

struct perfmap *perfmap__load_fd(int fd, const struct stat *sb, const struct budget *b)
{
	struct parser ps = { .b = b ? b : budget__default() };
	size_t have = 0, total = 0;
	bool skipping = false;	/* inside a line longer than the buffer */
	char *buf;
	int err = 0;

	if ((uint64_t)sb->st_size > ps.b->max_perfmap_bytes) {
		budget__refuse("perf map of %llu bytes, over the budget of %llu",
			       (unsigned long long)sb->st_size,
			       (unsigned long long)ps.b->max_perfmap_bytes);
		errno = EFBIG;
		return NULL;
	}
	ps.pm = calloc(1, sizeof(*ps.pm));
	buf = malloc(CHUNK);
	if (!ps.pm || !buf) {
		err = -ENOMEM;
		goto out;
	}
	for (;;) {
		ssize_t n = read(fd, buf + have, CHUNK - have), used;
		size_t start = 0;
		bool eof;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			goto out;
		}
		eof = n == 0;
		total += n;
		/* it may grow while we read: the budget holds for what is read */
		if (total > ps.b->max_perfmap_bytes) {
			err = budget__refuse("perf map grew past the budget of %llu bytes",
					     (unsigned long long)ps.b->max_perfmap_bytes);
			goto out;
		}
		if (budget__cancelled(ps.b)) {
			err = -ECANCELED;
			goto out;
		}
		have += n;
		if (skipping) {
			char *nl = memchr(buf, '\n', have);

			if (!nl) {
				have = 0;
				if (eof)
					break;
				continue;
			}
			start = nl + 1 - buf;
			skipping = false;
		}
		used = parser__feed(&ps, buf + start, have - start, eof);
		if (used < 0) {
			err = used;
			goto out;
		}
		start += used;
		memmove(buf, buf + start, have - start);
		have -= start;
		if (eof)
			break;
		if (have == CHUNK) {
			have = 0;	/* one line fills the buffer: not a symbol, skip it */
			skipping = true;
		}
	}
	file_stamp__init(&ps.pm->id, sb);
out:
	free(buf);
	if (err) {
		perfmap__free(ps.pm);
		errno = -err;
		return NULL;
	}
	return parser__finish(&ps);
}

struct perfmap *perfmap__load_file(const char *path)
{
	struct perfmap *pm;
	struct stat sb;
	int fd, err;

	fd = rootfs__open_regular(NULL, path, ROOTFS_NOFOLLOW, &sb);
	if (fd < 0) {
		errno = fd == -ELOOP ? EPERM : -fd;
		return NULL;
	}
	pm = perfmap__load_fd(fd, &sb, NULL);
	err = errno;
	close(fd);
	errno = err;
	return pm;
}

/*
 * Written by the process itself: owned by one of its uids. A root-owned
 * map only for a process running with uid 0 somewhere, or in our own user
 * namespace: another user's process could otherwise show any root file
 * bind-mounted over its map (in a user namespace of its own) as symbol
 * names. And only with one name, as for a symlink we follow
 * (pathwalk__trusted_link()): a second one is a hard link, which anyone
 * can make to a root file where /proc/sys/fs/protected_hardlinks is 0.
 */
static bool owner_ok(const struct stat *sb, const struct proc_status *ids, bool our_userns)
{
	if (sb->st_uid == 0 && sb->st_nlink != 1)
		return false;
	for (int i = 0; i < ids->nr_uids; i++)
		if (sb->st_uid == ids->uids[i])
			return true;
	/*
	 * Tools such as FlameGraph's jmaps chown the map to root, as perf
	 * wants. A process in our own user namespace cannot mount anything
	 * over its map, so root's file there is one root put there.
	 */
	return sb->st_uid == 0 && our_userns;
}

/* Is pid in the user namespace we are in? Not when it cannot be told. */
static bool same_userns(const char *proc_root, pid_t pid)
{
	struct stat theirs, ours;
	char path[4096];

	snprintf(path, sizeof(path), "%s/%d/ns/user", proc_root, (int)pid);
	return !stat(path, &theirs) && !stat("/proc/self/ns/user", &ours) &&
	       file_stamp__same_file(&theirs, &ours);
}

int perfmap__open_pid(const char *proc_root, pid_t pid, struct stat *sb)
{
	char root[4096], path[64];
	struct proc_status ids = {};
	int fd, err;

	if (!proc_root)
		proc_root = "/proc";
	err = proc_stat__status(proc_root, pid, &ids);
	if (err)
		return err == -ENOENT || err == -EINVAL ? -ESRCH : err;
	snprintf(root, sizeof(root), "%s/%d/root", proc_root, (int)pid);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)ids.nspid);
	fd = rootfs__open_regular(root, path, ROOTFS_NOFOLLOW, sb);
	if (fd < 0)
		return fd == -ELOOP ? -EPERM : fd;
	if (!owner_ok(sb, &ids, sb->st_uid == 0 && same_userns(proc_root, pid))) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

bool perfmap__same_file(const struct perfmap *pm, const struct stat *sb)
{
	return pm && file_stamp__is(&pm->id, sb);
}

int perfmap__refresh_pid(struct perfmap **pm, const char *proc_root, pid_t pid)
{
	struct perfmap *fresh;
	struct stat sb;
	int fd, err;

	fd = perfmap__open_pid(proc_root, pid, &sb);
	if (fd < 0)
		return fd;
	if (perfmap__same_file(*pm, &sb)) {
		close(fd);
		return 0;
	}
	fresh = perfmap__load_fd(fd, &sb, NULL);
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
