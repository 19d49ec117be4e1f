// SPDX-License-Identifier: GPL-2.0
/*
 * table_cache.c - unwind tables kept on disk between runs: the format, the
 * checks a file passes before its rows are used, and the atomic store
 * (table_cache.h).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debuginfo.h"
#include "fnv.h"
#include "table_cache.h"

_Static_assert(sizeof(struct unwind_row) == 16, "the checksum reads a row as two words");
_Static_assert(sizeof(struct table_key) == 128, "struct table_key has hidden padding");
_Static_assert(sizeof(struct table_cache_header) == 64 + 128, "the header has hidden padding");
_Static_assert(TABLE_KEY_ID_MAX == BUILD_ID_MAX, "a build-id must fit a key");

struct table_cache {
	int dirfd;
};

int table_key__init(struct table_key *key, const void *build_id, size_t build_id_len,
		    const struct stat *st)
{
	memset(key, 0, sizeof(*key));
	if (build_id_len > TABLE_KEY_ID_MAX)
		return -EINVAL;
	key->uid = st->st_uid;
	if (build_id_len) {
		key->kind = TABLE_KEY_BUILD_ID;
		key->id_len = build_id_len;
		memcpy(key->id, build_id, build_id_len);
		return 0;
	}
	key->kind = TABLE_KEY_STAT;
	key->dev = st->st_dev;
	key->ino = st->st_ino;
	key->size = st->st_size;
	key->mtime_sec = st->st_mtim.tv_sec;
	key->mtime_nsec = st->st_mtim.tv_nsec;
	key->ctime_sec = st->st_ctim.tv_sec;
	key->ctime_nsec = st->st_ctim.tv_nsec;
	return 0;
}

int table_key__from_fd(int fd, struct table_key *key)
{
	uint8_t id[TABLE_KEY_ID_MAX];
	struct stat st;
	int len;

	if (fstat(fd, &st))
		return -errno;
	len = debuginfo__build_id_fd(fd, id, sizeof(id));
	if (len == -ENOENT)
		len = 0;
	if (len < 0)
		return len;
	return table_key__init(key, id, len, &st);
}

int table_key__name(const struct table_key *key, char *buf, size_t size)
{
	char hex[2 * TABLE_KEY_ID_MAX + 1] = "";
	const char *debug = key->flags & TABLE_KEY_DEBUG_FILE ? "-d" : "";
	int n;

	if (key->kind == TABLE_KEY_BUILD_ID) {
		for (size_t i = 0; i < key->id_len && i < TABLE_KEY_ID_MAX; i++)
			snprintf(hex + 2 * i, 3, "%02x", key->id[i]);
		n = snprintf(buf, size, "id-%s-u%" PRIu32 "%s.v%d", hex, key->uid, debug,
			     TABLE_CACHE_VERSION);
	} else {
		n = snprintf(buf, size,
			     "st-%" PRIu64 "-%" PRIu64 "-%" PRIu64 "-%" PRId64 ".%09" PRId64
			     "-%" PRId64 ".%09" PRId64 "%s.v%d",
			     key->dev, key->ino, key->size, key->mtime_sec, key->mtime_nsec,
			     key->ctime_sec, key->ctime_nsec, debug, TABLE_CACHE_VERSION);
	}
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Only its owner, the caller, may change what it holds. */
static bool owned_and_private(const struct stat *st)
{
	return st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* mkdir -p of dir's parents (0755), then dir itself (0700). */
static int make_dirs(const char *dir)
{
	char *path = strdup(dir);
	size_t len;
	int err = 0;

	if (!path)
		return -ENOMEM;
	/* "a/b/" is "a/b": the last name is the one made private */
	for (len = strlen(path); len > 1 && path[len - 1] == '/'; len--)
		path[len - 1] = '\0';
	for (char *p = path + 1; (p = strchr(p, '/')); p++) {
		if (p[-1] == '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			err = -errno;
		*p = '/';
		if (err)
			break;
	}
	if (!err && mkdir(path, 0700) && errno != EEXIST)
		err = -errno;
	free(path);
	return err;
}

int table_cache__open(const char *dir, struct table_cache **out)
{
	struct table_cache *c;
	struct stat st;
	int fd, err;

	*out = NULL;
	err = make_dirs(dir);
	if (err)
		return err;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* a symlink fails with ENOTDIR here (O_DIRECTORY), ELOOP elsewhere */
	if (fd < 0)
		return errno == ELOOP || errno == ENOTDIR ? -EPERM : -errno;
	if (fstat(fd, &st)) {
		err = -errno;
	} else if (!S_ISDIR(st.st_mode) || !owned_and_private(&st)) {
		err = -EPERM;
	} else if (!(c = malloc(sizeof(*c)))) {
		err = -ENOMEM;
	} else {
		c->dirfd = fd;
		*out = c;
		return 0;
	}
	close(fd);
	return err;
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
	close(fd);
	if (!err && (checksum(h.nr_rows, &h.stats, t->rows) != h.checksum ||
		     !rows_valid(t->rows, h.nr_rows)))
		err = -EINVAL;
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

int table_cache__store(struct table_cache *c, const struct table_key *key,
		       const struct cfi_table *t)
{
	char name[TABLE_KEY_NAME_MAX], tmp[64];
	struct table_cache_header h;
	int fd, err;

	if (t->nr > CFI_TABLE_MAX_ROWS)
		return -EFBIG;
	err = table_key__name(key, name, sizeof(name));
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
	return err;
}
