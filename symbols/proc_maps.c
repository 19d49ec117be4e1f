// SPDX-License-Identifier: GPL-2.0
/*
 * proc_maps.c - a process's executable mappings: asked of the kernel one
 * by one (PROCMAP_QUERY, Linux 6.11), or parsed from /proc/PID/maps' text
 * (one line into a map_entry, a whole file into the sorted list).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/proc_maps.h"
#include "trace_helpers.h"

#define DELETED_SUFFIX " (deleted)"

static const char *parse_dec(const char *p, uint64_t *out)
{
	uint64_t v = 0;
	int n = 0;

	for (; *p >= '0' && *p <= '9'; p++, n++) {
		if (n >= 19)
			return NULL;
		v = v * 10 + (*p - '0');
	}
	if (!n)
		return NULL;
	*out = v;
	return p;
}

/* e's path from the len bytes at p, the kernel's " (deleted)" taken off. 0 or -ENOMEM. */
static int set_path(struct map_entry *e, const char *p, size_t len)
{
	const size_t suffix = sizeof(DELETED_SUFFIX) - 1;

	if (len >= suffix && !memcmp(p + len - suffix, DELETED_SUFFIX, suffix)) {
		e->deleted = true;
		len -= suffix;
	}
	e->path = strndup(p, len);
	return e->path ? 0 : -ENOMEM;
}

/* "start-end perms offset major:minor inode   path" */
int map_entry__parse(const char *line, struct map_entry *e)
{
	const char *p = line;
	uint64_t major, minor;
	size_t len;

	memset(e, 0, sizeof(*e));
	if (parse_hex(&p, NULL, &e->start) || *p++ != '-' ||
	    parse_hex(&p, NULL, &e->end) || *p++ != ' ')
		return -EINVAL;
	for (int i = 0; i < 4; i++, p++) {
		if (!*p || *p == ' ')
			return -EINVAL;
		e->perms[i] = *p;
	}
	if (*p++ != ' ' || parse_hex(&p, NULL, &e->offset) || *p++ != ' ' ||
	    parse_hex(&p, NULL, &major) || *p++ != ':' ||
	    parse_hex(&p, NULL, &minor) || *p++ != ' ' ||
	    !(p = parse_dec(p, &e->inode)))
		return -EINVAL;
	if (e->end < e->start || major > 0xfff || minor > 0xfffff)
		return -EINVAL;
	e->dev_major = major;
	e->dev_minor = minor;
	while (*p == ' ')
		p++;
	len = strcspn(p, "\n");
	/* file paths may contain spaces; only the kernel's suffix is special */
	return set_path(e, p, len);
}

void map_entry__release(struct map_entry *e)
{
	free(e->path);
	e->path = NULL;
}

/* Room for one more entry in m. 0 or -ENOMEM. */
static int reserve(struct proc_maps *m, size_t *cap)
{
	size_t ncap;
	struct map_entry *n;

	if (m->nr < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 32;
	n = realloc(m->entries, ncap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	m->entries = n;
	*cap = ncap;
	return 0;
}

int proc_maps__load_buf(const char *buf, size_t len, struct proc_maps *m)
{
	const char *p = buf, *end = buf + len;
	size_t cap = 0;
	char *line = NULL;
	int err = 0;

	memset(m, 0, sizeof(*m));
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct map_entry e;
		char *nline;

		nline = realloc(line, l + 1);
		if (!nline) {
			err = -ENOMEM;
			break;
		}
		line = nline;
		memcpy(line, p, l);
		line[l] = '\0';
		p += l + 1;

		err = map_entry__parse(line, &e);
		if (err == -EINVAL) {
			err = 0;	/* a line we do not understand costs only itself */
			continue;
		}
		if (err)
			break;
		if (!map_entry__is_exec(&e)) {
			map_entry__release(&e);
			continue;
		}
		err = reserve(m, &cap);
		if (err) {
			map_entry__release(&e);
			break;
		}
		m->entries[m->nr++] = e;
	}
	free(line);
	if (err)
		proc_maps__release(m);
	return err;
}

/*
 * The kernel's PROCMAP_QUERY ioctl on an open /proc/PID/maps (Linux 6.11,
 * include/uapi/linux/fs.h), declared here as the kernel defines it: the
 * system's headers may predate it.
 */
struct procmap_query {
	uint64_t size;		/* of this struct: the version of the call */
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start, vma_end;	/* out */
	uint64_t vma_flags;	/* out: QUERY_VMA_* */
	uint64_t vma_page_size;	/* out */
	uint64_t vma_offset;	/* out: the file offset of vma_start */
	uint64_t inode;		/* out */
	uint32_t dev_major, dev_minor;	/* out */
	uint32_t vma_name_size;	/* in: the buffer's size; out: the name's, with its NUL, or 0 */
	uint32_t build_id_size;	/* in/out; 0: not asked */
	uint64_t vma_name_addr;	/* in: the buffer */
	uint64_t build_id_addr;	/* in */
};

#define PROCMAP_QUERY _IOWR('f', 17, struct procmap_query)
#define QUERY_VMA_READABLE 0x01
#define QUERY_VMA_WRITABLE 0x02
#define QUERY_VMA_EXECUTABLE 0x04
#define QUERY_VMA_SHARED 0x08
#define QUERY_COVERING_OR_NEXT_VMA 0x10

/* The entry of the mapping q describes, named name (its size in q). */
static int entry_of_query(const struct procmap_query *q, const char *name, struct map_entry *e)
{
	size_t len = q->vma_name_size ? strnlen(name, q->vma_name_size) : 0;

	*e = (struct map_entry){
		.start = q->vma_start,
		.end = q->vma_end,
		.offset = q->vma_offset,
		.inode = q->inode,
		.dev_major = q->dev_major,
		.dev_minor = q->dev_minor,
		.perms = {
			q->vma_flags & QUERY_VMA_READABLE ? 'r' : '-',
			q->vma_flags & QUERY_VMA_WRITABLE ? 'w' : '-',
			q->vma_flags & QUERY_VMA_EXECUTABLE ? 'x' : '-',
			q->vma_flags & QUERY_VMA_SHARED ? 's' : 'p',
		},
	};
	/* the name is d_path()'s, as the text's is: the same suffix for a file unlinked */
	return set_path(e, name, len);
}

/*
 * The executable mappings of the maps file open at fd, asked of the
 * kernel: it skips the others and formats nothing, a third of the text's
 * cost for a small process. -ENOTTY (a kernel before 6.11, a file that is
 * not /proc's), -ENAMETOOLONG (a path over PATH_MAX): the text holds them.
 * A process gone has none, as its text has no lines.
 */
int proc_maps__query_fd(int fd, struct proc_maps *m)
{
	char name[PATH_MAX];
	uint64_t addr = 0;
	size_t cap = 0;
	int err = 0;

	memset(m, 0, sizeof(*m));
	for (;;) {
		struct procmap_query q = {
			.size = sizeof(q),
			.query_flags = QUERY_COVERING_OR_NEXT_VMA | QUERY_VMA_EXECUTABLE,
			.query_addr = addr,
			.vma_name_size = sizeof(name),
			.vma_name_addr = (uintptr_t)name,
		};

		if (ioctl(fd, PROCMAP_QUERY, &q)) {
			/* ENOENT: no mapping at or above addr; ESRCH: no memory left to ask of */
			if (errno != ENOENT && errno != ESRCH)
				err = -errno;
			break;
		}
		if (q.vma_end <= addr || q.vma_end <= q.vma_start) {
			err = -EINVAL;	/* never: the kernel walks up */
			break;
		}
		addr = q.vma_end;
		err = reserve(m, &cap);
		if (!err)
			err = entry_of_query(&q, name, &m->entries[m->nr]);
		if (err)
			break;
		m->nr++;
	}
	if (err)
		proc_maps__release(m);
	return err;
}

/* The whole text of the file open at fd, parsed. */
static int load_text(int fd, struct proc_maps *m)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *mem;
	char chunk[8192];
	ssize_t n;
	int err = 0;

	mem = open_memstream(&buf, &size);
	if (!mem)
		return -ENOMEM;
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (fwrite(chunk, 1, n, mem) != (size_t)n) {
			err = -ENOMEM;
			break;
		}
	}
	if (fclose(mem) && !err)
		err = -ENOMEM;
	if (!err)
		err = proc_maps__load_buf(buf, size, m);
	free(buf);
	return err;
}

int proc_maps__load_file(const char *path, struct proc_maps *m)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = proc_maps__query_fd(fd, m);
	if (err == -ENOTTY || err == -ENAMETOOLONG || err == -EINVAL)
		err = load_text(fd, m);
	close(fd);
	return err;
}

int proc_maps__load_pid(pid_t pid, struct proc_maps *m)
{
	char path[64];
	int err;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	err = proc_maps__load_file(path, m);
	return err == -ENOENT ? -ESRCH : err;
}

/* An order of mappings by the file they name (the maps line's), for proc_maps__stamp(). */
static int cmp_file(const void *a, const void *b)
{
	const struct map_entry *x = *(const struct map_entry *const *)a;
	const struct map_entry *y = *(const struct map_entry *const *)b;

	if (x->inode != y->inode)
		return (x->inode > y->inode) - (x->inode < y->inode);
	if (x->dev_major != y->dev_major)
		return (x->dev_major > y->dev_major) - (x->dev_major < y->dev_major);
	if (x->dev_minor != y->dev_minor)
		return (x->dev_minor > y->dev_minor) - (x->dev_minor < y->dev_minor);
	if (x->deleted != y->deleted)
		return x->deleted - y->deleted;
	return strcmp(x->path, y->path);
}

void proc_maps__stamp(struct proc_maps *m, const char *proc_root, pid_t pid)
{
	struct map_entry **by_file = malloc(m->nr * sizeof(*by_file));
	char dir[PATH_MAX];
	size_t nr = 0;
	int dfd;

	for (size_t i = 0; i < m->nr; i++)
		m->entries[i].stamped = false;
	/* each link looked up in the directory: no walk from the root per file */
	snprintf(dir, sizeof(dir), "%s/%d/map_files", proc_root, (int)pid);
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (!by_file || dfd < 0) {
		free(by_file);
		if (dfd >= 0)
			close(dfd);
		return;
	}
	for (size_t i = 0; i < m->nr; i++) {
		if (m->entries[i].path[0] == '/')
			by_file[nr++] = &m->entries[i];
	}
	qsort(by_file, nr, sizeof(*by_file), cmp_file);
	/*
	 * One stat for the mappings that name one file: the same device,
	 * inode and path (btrfs prints one device for all its subvolumes,
	 * whose inode numbers are their own: the path tells them apart)
	 */
	for (size_t i = 0, next; i < nr; i = next) {
		struct map_entry *e = by_file[i];
		char name[40];
		struct stat st;

		for (next = i + 1; next < nr && !cmp_file(&by_file[next], &by_file[i]); next++)
			;
		snprintf(name, sizeof(name), "%llx-%llx", (unsigned long long)e->start,
			 (unsigned long long)e->end);
		if (fstatat(dfd, name, &st, 0) || !S_ISREG(st.st_mode))
			continue;
		for (size_t j = i; j < next; j++) {
			file_stamp__init(&by_file[j]->stamp, &st);
			by_file[j]->stamped = true;
		}
	}
	close(dfd);
	free(by_file);
}

const struct map_entry *proc_maps__find(const struct proc_maps *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct map_entry *e = &m->entries[mid];

		if (addr < e->start)
			hi = mid;
		else if (addr >= e->end)
			lo = mid + 1;
		else
			return e;
	}
	return NULL;
}

void proc_maps__release(struct proc_maps *m)
{
	for (size_t i = 0; i < m->nr; i++)
		map_entry__release(&m->entries[i]);
	free(m->entries);
	m->entries = NULL;
	m->nr = 0;
}

int proc_maps__copy(struct proc_maps *dst, const struct proc_maps *src)
{
	struct proc_maps c = { 0 };

	*dst = c;
	if (!src->nr)
		return 0;
	c.entries = calloc(src->nr, sizeof(*c.entries));
	if (!c.entries)
		return -ENOMEM;
	for (; c.nr < src->nr; c.nr++) {
		c.entries[c.nr] = src->entries[c.nr];
		c.entries[c.nr].path = strdup(src->entries[c.nr].path);
		if (!c.entries[c.nr].path) {
			proc_maps__release(&c);
			return -ENOMEM;
		}
	}
	*dst = c;
	return 0;
}
