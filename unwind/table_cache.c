// SPDX-License-Identifier: GPL-2.0
/*
 * table_cache.c - unwind tables kept on disk between runs: the format, the
 * checks a file passes before its rows are used, the atomic store, and the
 * cap on what the entries take (table_cache.h).
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cache_dir.h"
#include "common/fnv.h"
#include "unwind/table_cache.h"

_Static_assert(sizeof(struct unwind_row) == 16, "the checksum reads a row as two words");
_Static_assert(sizeof(struct table_cache_header) == 64 + SHA256_LEN,
	       "the header has hidden padding");

struct table_cache {
	int dirfd;
	uint64_t max_bytes;
	/* the entries' bytes as last counted, and stored since; counted at the first store */
	uint64_t used;
	bool counted;
	struct table_cache_stats stats;
};

int table_key__name(const struct table_key *key, char *buf, size_t size)
{
	char hex[2 * SHA256_LEN + 1];
	int n;

	for (size_t i = 0; i < SHA256_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", key->digest[i]);
	n = snprintf(buf, size, "%s.v%d", hex, TABLE_CACHE_VERSION);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Only its owner, the caller, may change what it holds. */
static bool owned_and_private(const struct stat *st)
{
	return st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

int table_cache__open(const char *dir, uint64_t max_bytes, struct table_cache **out, char *why,
		      size_t why_size)
{
	struct table_cache *c;
	struct stat st;
	int fd, err;

	*out = NULL;
	snprintf(why, why_size, "%s", "");
	err = cache_dir__check(dir, geteuid(), why, why_size);
	if (err)
		return err;
	err = cache_dir__make(dir, 0755, 0700);
	if (err) {
		snprintf(why, why_size, "cannot make it: %s", strerror(-err));
		return err;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* a symlink fails with ENOTDIR here (O_DIRECTORY), ELOOP elsewhere */
	if (fd < 0) {
		err = errno == ELOOP || errno == ENOTDIR ? -EPERM : -errno;
		snprintf(why, why_size, "%s", err == -EPERM ? "a symlink or not a directory"
							     : strerror(-err));
		return err;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		snprintf(why, why_size, "%s", strerror(-err));
	} else if (!S_ISDIR(st.st_mode) || !owned_and_private(&st)) {
		err = -EPERM;
		snprintf(why, why_size, "not root's alone (owner or mode)");
	} else if (!(c = calloc(1, sizeof(*c)))) {
		err = -ENOMEM;
		snprintf(why, why_size, "%s", strerror(ENOMEM));
	} else {
		c->dirfd = fd;
		c->max_bytes = max_bytes;
		*out = c;
		return 0;
	}
	close(fd);
	return err;
}

void table_cache__stats(const struct table_cache *c, struct table_cache_stats *st)
{
	*st = c->stats;
}

void table_cache__free(struct table_cache *c)
{
	if (!c)
		return;
	close(c->dirfd);
	free(c);
}

static uint64_t checksum(uint64_t nr, const struct cfi_table_stats *s,
			 const struct unwind_row *rows)
{
	uint64_t h = FNV64_OFFSET, w[2];

	h = fnv64_step(h, nr);
	h = fnv64_step(h, s->fdes);
	h = fnv64_step(h, s->bad_fdes);
	h = fnv64_step(h, s->unsupported);
	for (uint64_t i = 0; i < nr; i++) {
		memcpy(w, &rows[i], sizeof(w));
		h = fnv64_step(fnv64_step(h, w[0]), w[1]);
	}
	return h;
}

static void header_init(struct table_cache_header *h, const struct table_key *key,
			const struct cfi_table *t)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, TABLE_CACHE_MAGIC, sizeof(h->magic));
	h->version = TABLE_CACHE_VERSION;
	h->row_size = sizeof(struct unwind_row);
	h->machine = EM_X86_64;
	h->header_size = sizeof(*h);
	h->nr_rows = t->nr;
	h->stats = t->stats;
	h->checksum = checksum(t->nr, &t->stats, t->rows);
	h->key = *key;
}

/* Everything in the header but the row count, the stats and the checksum is as we write it. */
static bool header_matches(const struct table_cache_header *h, const struct table_key *key)
{
	return !memcmp(h->magic, TABLE_CACHE_MAGIC, sizeof(h->magic)) &&
	       h->version == TABLE_CACHE_VERSION && h->row_size == sizeof(struct unwind_row) &&
	       h->machine == EM_X86_64 && h->header_size == sizeof(*h) &&
	       !memcmp(&h->key, key, sizeof(*key)) && h->nr_rows <= CFI_TABLE_MAX_ROWS;
}

/* Strictly sorted by pc, and every rule one this build knows. */
static bool rows_valid(const struct unwind_row *rows, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		if (i && rows[i].pc <= rows[i - 1].pc)
			return false;
		if (!unwind_row__valid(&rows[i]))
			return false;
	}
	return true;
}

/* len bytes at off; -EINVAL when the file ends first. */
static int read_full(int fd, void *buf, size_t len, off_t off)
{
	char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EINVAL;
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

/* The open file is ours, private, and exactly as long as a header and its rows. */
static int check_file(int fd, struct table_cache_header *h, const struct table_key *key)
{
	struct stat st;
	int err;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || !owned_and_private(&st))
		return -EPERM;
	if ((uint64_t)st.st_size < sizeof(*h))
		return -EINVAL;
	err = read_full(fd, h, sizeof(*h), 0);
	if (err)
		return err;
	if (!header_matches(h, key) ||
	    (uint64_t)st.st_size != sizeof(*h) + h->nr_rows * sizeof(struct unwind_row))
		return -EINVAL;
	return 0;
}

int table_cache__load(struct table_cache *c, const struct table_key *key, struct cfi_table *t)
{
	char name[TABLE_KEY_NAME_MAX];
	struct table_cache_header h;
	int fd, err;

	memset(t, 0, sizeof(*t));
	err = table_key__name(key, name, sizeof(name));
	if (err)
		return err;
	/* O_NONBLOCK: a FIFO must not hang us before fstat() refuses it */
	fd = openat(c->dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = check_file(fd, &h, key);
	if (!err && h.nr_rows) {
		t->rows = malloc(h.nr_rows * sizeof(*t->rows));
		err = t->rows ? read_full(fd, t->rows, h.nr_rows * sizeof(*t->rows), sizeof(h))
			      : -ENOMEM;
	}
	if (!err && (checksum(h.nr_rows, &h.stats, t->rows) != h.checksum ||
		     !rows_valid(t->rows, h.nr_rows)))
		err = -EINVAL;
	/* used now: the last entries the cap evicts (a failure only makes it look older) */
	if (!err)
		futimens(fd, (const struct timespec[2]){ { .tv_nsec = UTIME_NOW },
							 { .tv_nsec = UTIME_OMIT } });
	close(fd);
	if (err) {
		cfi_table__release(t);
		return err;
	}
	t->nr = h.nr_rows;
	t->stats = h.stats;
	return 0;
}

static int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= n;
	}
	return 0;
}

/* A new file of our own in the directory: ".tmp-<pid>-<n>", never a table's name. */
static int create_temp(struct table_cache *c, char *name, size_t size)
{
	static unsigned int counter;

	for (int tries = 0; tries < 16; tries++) {
		unsigned int n = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
		int fd;

		snprintf(name, size, ".tmp-%d-%u", (int)getpid(), n);
		fd = openat(c->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd >= 0 || errno != EEXIST)
			return fd < 0 ? -errno : fd;
	}
	return -EEXIST;
}

/*
 * Whether name is an entry's, of any version: "<64 hex>.vN", or the
 * "id-..." and "st-..." of versions 1 and 2. Nothing else in the
 * directory is counted or removed.
 */
static bool is_entry_name(const char *name)
{
	const char *v = strrchr(name, '.');
	size_t hex = strspn(name, "0123456789abcdef");

	if (!v || v[1] != 'v' || !v[2] || v[2 + strspn(v + 2, "0123456789")])
		return false;
	return (hex == 2 * SHA256_LEN && name + hex == v) || !strncmp(name, "id-", 3) ||
	       !strncmp(name, "st-", 3);
}

struct entry {
	char *name;
	uint64_t bytes;
	struct timespec used;
};

static int cmp_entry_age(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return (x->used.tv_sec > y->used.tv_sec) - (x->used.tv_sec < y->used.tv_sec);
	if (x->used.tv_nsec != y->used.tv_nsec)
		return (x->used.tv_nsec > y->used.tv_nsec) - (x->used.tv_nsec < y->used.tv_nsec);
	return strcmp(x->name, y->name);
}

static void entries_free(struct entry *v, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(v[i].name);
	free(v);
}

/* The entries in the directory (regular files by their names), their bytes summed. */
static int list_entries(struct table_cache *c, struct entry **out, size_t *nr, uint64_t *total)
{
	struct entry *v = NULL;
	size_t cap = 0;
	struct dirent *d;
	int fd, err = 0;
	DIR *dir;

	*out = NULL;
	*nr = 0;
	*total = 0;
	fd = openat(c->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		return err;
	}
	while (!err && (d = readdir(dir))) {
		struct stat st;

		if (!is_entry_name(d->d_name) ||
		    fstatat(c->dirfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (*nr == cap) {
			struct entry *n = realloc(v, (cap ? 2 * cap : 64) * sizeof(*v));

			if (!n) {
				err = -ENOMEM;
				break;
			}
			v = n;
			cap = cap ? 2 * cap : 64;
		}
		v[*nr] = (struct entry){
			.name = strdup(d->d_name), .bytes = st.st_size, .used = st.st_atim,
		};
		if (!v[*nr].name) {
			err = -ENOMEM;
			break;
		}
		*total += st.st_size;
		(*nr)++;
	}
	closedir(dir);
	if (err) {
		entries_free(v, *nr);
		*nr = 0;
		return err;
	}
	*out = v;
	return 0;
}

/*
 * Room for need bytes more: the least recently used entries removed until
 * the rest and need fill at most 7/8 of the cap (not at every store).
 * Returns 0, or -errno when the entries could not be listed.
 */
static int evict(struct table_cache *c, uint64_t need)
{
	uint64_t target = c->max_bytes - c->max_bytes / 8, total;
	struct entry *v;
	size_t nr;
	int err;

	err = list_entries(c, &v, &nr, &total);
	if (err)
		return err;	/* the count as it was: listed again at the next store */
	c->used = total;
	if (c->used + need > c->max_bytes) {
		qsort(v, nr, sizeof(*v), cmp_entry_age);
		for (size_t i = 0; i < nr && c->used + need > target; i++) {
			bool gone = !unlinkat(c->dirfd, v[i].name, 0);

			/* ENOENT: another run evicted it first */
			if (!gone && errno != ENOENT)
				continue;
			c->used -= v[i].bytes;
			if (gone) {
				c->stats.evicted++;
				c->stats.evicted_bytes += v[i].bytes;
			}
		}
	}
	entries_free(v, nr);
	return 0;
}

/* Room for a file of bytes within the cap, by evicting as needed; -ENOSPC when it alone is over. */
static int make_room(struct table_cache *c, uint64_t bytes)
{
	if (bytes > c->max_bytes) {
		c->stats.over_cap++;
		return -ENOSPC;
	}
	/* counted again: other runs store and evict too */
	if (!c->counted || c->used + bytes > c->max_bytes)
		c->counted = !evict(c, bytes);
	return 0;
}

int table_cache__store(struct table_cache *c, const struct table_key *key,
		       const struct cfi_table *t)
{
	char name[TABLE_KEY_NAME_MAX], tmp[64];
	struct table_cache_header h;
	int fd, err;

	if (t->nr > CFI_TABLE_MAX_ROWS)
		return -EFBIG;
	err = table_key__name(key, name, sizeof(name));
	if (!err)
		err = make_room(c, sizeof(h) + t->nr * sizeof(*t->rows));
	if (err)
		return err;
	header_init(&h, key, t);
	fd = create_temp(c, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	err = write_full(fd, &h, sizeof(h));
	if (!err)
		err = write_full(fd, t->rows, t->nr * sizeof(*t->rows));
	/* the data on disk before the name: never a short file after a crash */
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && renameat(c->dirfd, tmp, c->dirfd, name))
		err = -errno;
	if (err)
		unlinkat(c->dirfd, tmp, 0);
	else
		c->used += sizeof(h) + t->nr * sizeof(*t->rows);
	return err;
}
