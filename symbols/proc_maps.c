// SPDX-License-Identifier: GPL-2.0
/*
 * proc_maps.c - /proc/PID/maps parser: one line into a map_entry, a whole
 * file into the sorted list of executable mappings.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	if (len >= sizeof(DELETED_SUFFIX) - 1 &&
	    !memcmp(p + len - (sizeof(DELETED_SUFFIX) - 1), DELETED_SUFFIX,
		    sizeof(DELETED_SUFFIX) - 1)) {
		e->deleted = true;
		len -= sizeof(DELETED_SUFFIX) - 1;
	}
	e->path = strndup(p, len);
	return e->path ? 0 : -ENOMEM;
}

void map_entry__release(struct map_entry *e)
{
	free(e->path);
	e->path = NULL;
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
		if (m->nr == cap) {
			size_t ncap = cap ? cap * 2 : 32;
			struct map_entry *n = realloc(m->entries, ncap * sizeof(*n));

			if (!n) {
				map_entry__release(&e);
				err = -ENOMEM;
				break;
			}
			m->entries = n;
			cap = ncap;
		}
		m->entries[m->nr++] = e;
	}
	free(line);
	if (err)
		proc_maps__release(m);
	return err;
}

int proc_maps__load_file(const char *path, struct proc_maps *m)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f, *mem;
	char chunk[8192];
	size_t n;
	int err = 0;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	mem = open_memstream(&buf, &size);
	if (!mem) {
		fclose(f);
		return -ENOMEM;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (fwrite(chunk, 1, n, mem) != n) {
			err = -ENOMEM;
			break;
		}
	}
	if (!err && ferror(f))
		err = -EIO;
	fclose(f);
	if (fclose(mem) && !err)
		err = -ENOMEM;
	if (!err)
		err = proc_maps__load_buf(buf, size, m);
	free(buf);
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
