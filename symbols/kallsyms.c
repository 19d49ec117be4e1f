// SPDX-License-Identifier: GPL-2.0
/*
 * kallsyms.c - the running kernel's symbol table over time: the first
 * reading on a thread (the image's symbols from the cache of this boot
 * where there is one), re-readings on a miss, and the table they replace
 * kept until its names are no longer in use.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/kallsyms.h"
#include "symbols/kallsyms_cache.h"

#define PROC_KALLSYMS "/proc/kallsyms"

struct kallsyms {
	char *path;
	struct ksyms *ks;
	struct ksyms *retired;	/* replaced by a re-reading; its names may still be printed */
	int err;		/* -errno of the first reading */
	bool waited;		/* the first reading is done */
	bool reading;		/* the thread runs the first reading */
	bool may_reread;
	unsigned int nr_reads;
	pthread_t thread;
	/* kallsyms_cache.h; cache_dir NULL: none */
	char *cache_dir, boot_id[KALLSYMS_BOOT_ID_LEN];
	bool from_cache;	/* ks is the cache's: the image's symbols only */
	struct ksyms *image;	/* the cache's, replaced by a whole reading, kept till the end */
};

struct kallsyms *kallsyms__new(const char *path)
{
	struct kallsyms *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->path = strdup(path ? path : PROC_KALLSYMS);
	if (!k->path) {
		free(k);
		errno = ENOMEM;
		return NULL;
	}
	return k;
}

int kallsyms__set_cache(struct kallsyms *k, const char *dir, const char *boot_id)
{
	char *d;

	if (strlen(boot_id) >= sizeof(k->boot_id))
		return -ENAMETOOLONG;
	d = strdup(dir);
	if (!d)
		return -ENOMEM;
	free(k->cache_dir);
	k->cache_dir = d;
	strcpy(k->boot_id, boot_id);
	return 0;
}

/*
 * Whether the file's head agrees with cached, the image's symbols kept:
 * the file shows us addresses (the cache must not name for a reader
 * without CAP_SYSLOG what the kernel hides from it), and at the addresses
 * of the text symbols it starts with, the cache has symbols too. HEAD
 * bytes, past the absolute per-CPU symbols some kernels list first: the
 * kernel formats 1% of the file, not all of it.
 */
#define HEAD (32 * 1024)

static bool head_agrees(const struct kallsyms *k, const struct ksyms *cached)
{
	char *buf = malloc(HEAD);
	struct ksyms *head;
	ssize_t n = 0, r;
	bool ok;
	int fd = buf ? open(k->path, O_RDONLY | O_CLOEXEC) : -1;

	if (fd < 0) {
		free(buf);
		return false;
	}
	/* /proc gives a page a read */
	while (n < HEAD && ((r = read(fd, buf + n, HEAD - n)) > 0 || (r < 0 && errno == EINTR)))
		n += r > 0 ? r : 0;
	close(fd);
	/* the last line may be cut: parse the whole ones */
	while (n > 0 && buf[n - 1] != '\n')
		n--;
	head = n > 0 ? ksyms__load_buf(buf, n) : NULL;
	ok = head && ksyms__count(head);
	for (size_t i = 0; ok && i < ksyms__count(head); i++) {
		const struct ksym *s = ksyms__at(head, i), *c;

		if (s->module)
			continue;
		c = ksyms__find(cached, s->addr);
		ok = c && c->addr == s->addr;
	}
	ksyms__free(head);
	free(buf);
	return ok;
}

/* The image's symbols from the cache, or the whole file read (and the image's kept). */
static void read_first(struct kallsyms *k)
{
	if (k->cache_dir) {
		k->ks = kallsyms_cache__load(k->cache_dir, k->boot_id);
		if (k->ks && head_agrees(k, k->ks)) {
			k->from_cache = true;
			return;
		}
		ksyms__free(k->ks);
	}
	k->ks = ksyms__load_file(k->path);
	k->err = k->ks ? 0 : -errno;
	k->nr_reads++;
	/* a cache that cannot be written is only slower next time */
	if (k->ks && k->cache_dir)
		(void)kallsyms_cache__store(k->cache_dir, k->boot_id, k->ks);
}

static void *reader(void *arg)
{
	read_first(arg);
	return NULL;
}

/*
 * /proc/kallsyms takes the kernel ~50 ms to produce and us ~30 ms to parse:
 * read it while sampling runs, so that printing need not wait.
 */
void kallsyms__prefetch(struct kallsyms *k)
{
	if (k->waited || k->reading)
		return;
	k->reading = !pthread_create(&k->thread, NULL, reader, k);
}

int kallsyms__wait(struct kallsyms *k)
{
	if (!k->waited) {
		if (k->reading) {
			pthread_join(k->thread, NULL);
		} else {
			read_first(k);
			k->may_reread = false;	/* read just now: a miss is no news */
		}
		k->reading = false;
		k->waited = true;
	}
	return k->err;
}

void kallsyms__allow_reread(struct kallsyms *k)
{
	ksyms__free(k->retired);
	k->retired = NULL;
	k->may_reread = true;
}

/* A failed re-reading keeps the table there is. */
static void reread(struct kallsyms *k)
{
	struct ksyms *ks = ksyms__load_file(k->path);

	k->may_reread = false;
	k->nr_reads++;
	if (!ks)
		return;
	ksyms__free(k->retired);
	k->retired = k->ks;
	k->ks = ks;
}

const struct ksym *kallsyms__find(struct kallsyms *k, unsigned long addr)
{
	const struct ksym *s;

	if (!k->waited)
		return NULL;
	s = ksyms__find(k->ks, addr);
	if (!s && k->from_cache) {
		/* not in the image: a module's or a BPF program's, in the whole file */
		struct ksyms *ks = ksyms__load_file(k->path);

		k->from_cache = false;
		k->may_reread = false;
		k->nr_reads++;
		if (!ks)
			return NULL;
		k->image = k->ks;
		k->ks = ks;
		return ksyms__find(k->ks, addr);
	}
	if (!s && k->may_reread && k->ks) {
		reread(k);
		s = ksyms__find(k->ks, addr);
	}
	return s;
}

unsigned int kallsyms__nr_reads(const struct kallsyms *k)
{
	return k->nr_reads;
}

bool kallsyms__image_cached(const struct kallsyms *k)
{
	return k->from_cache || k->image;
}

void kallsyms__free(struct kallsyms *k)
{
	if (!k)
		return;
	if (k->reading)
		pthread_join(k->thread, NULL);
	ksyms__free(k->ks);
	ksyms__free(k->retired);
	ksyms__free(k->image);
	free(k->cache_dir);
	free(k->path);
	free(k);
}
