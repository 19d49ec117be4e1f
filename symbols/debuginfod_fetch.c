// SPDX-License-Identifier: GPL-2.0
/*
 * debuginfod_fetch.c - a small pool of threads that fetch debug files by
 * build-id, each through a child process (debuginfod_child.h), under a
 * deadline, a cancel flag and bounds on how many; what is refused leaves
 * the cache.
 *
 * libdebuginfod (and with it libcurl and its TLS libraries) is dlopen()ed
 * when the first fetcher is made, to know it is there: a run without
 * servers loads none of it, and its constructor (curl_global_init, not
 * thread-safe) runs before our fetch threads start.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cache_dir.h"
#include "common/clock.h"
#include "common/file_stamp.h"
#include "symbols/budget.h"
#include "symbols/debuginfod_child.h"
#include "symbols/debuginfod_fetch.h"
#include "symbols/loader.h"

#define MAX_ID_LEN 64

struct request {
	struct loader_job job;		/* first: the pool's link */
	uint8_t id[MAX_ID_LEN];
	size_t len;
	void *item;
};

/* Requests made for the files of one owner. */
struct owner_count {
	uid_t uid;
	unsigned int n;
};

struct debuginfod_fetch {
	struct debuginfod_backend backend;
	debuginfod_landed_fn landed;
	void *ctx;
	uint64_t max_bytes;
	unsigned int max_files, max_user_files;
	int cache_fd;			/* O_PATH, or -1 */
	struct loader *pool;
	pthread_mutex_t lock;		/* the figures below */
	unsigned int running;
	unsigned int asked;		/* requests submitted */
	struct owner_count *owners;	/* of files not root's */
	size_t nr_owners;
	int cancelled;			/* atomic: read by the progress callback without lock */
	uint64_t deadline_ns;		/* atomic; 0: none */
	uint64_t first_ns, last_ns;	/* first start, last end */
	struct debuginfod_fetch_stats stats;
};

static int child_find(void *ctx, const uint8_t *id, size_t len, uint64_t max_bytes,
		      bool (*stop)(void *), void *stop_ctx, bool *cached)
{
	(void)ctx;
	return debuginfod_child__find(id, len, max_bytes, stop, stop_ctx, cached);
}

static const struct debuginfod_backend child_backend = { .find = child_find };

/* --- the pool ------------------------------------------------------------ */

static bool past_deadline(void *arg)
{
	struct debuginfod_fetch *f = arg;
	uint64_t deadline = __atomic_load_n(&f->deadline_ns, __ATOMIC_RELAXED);

	return __atomic_load_n(&f->cancelled, __ATOMIC_RELAXED) ||
	       (deadline && monotonic_ns() >= deadline);
}

/* A refusal of the file itself, not of the moment: the file leaves the cache. */
static bool refused_for_good(int used)
{
	return used < 0 && used != -ECANCELED && used != -ENOMEM && used != -EINTR;
}

/* One request, on a fetch thread: its outcome into the stats. */
static void run_request(struct loader_job *job, void *ctx)
{
	struct debuginfod_fetch *f = ctx;
	struct request *r = (struct request *)job;
	int fd = -ECANCELED, used = -1;
	bool cached = false, got = false;
	struct stat sb;

	pthread_mutex_lock(&f->lock);
	f->running++;
	if (!f->first_ns)
		f->first_ns = monotonic_ns();
	pthread_mutex_unlock(&f->lock);
	if (!past_deadline(f))
		fd = f->backend.find(f->backend.ctx, r->id, r->len, f->max_bytes, past_deadline, f,
				     &cached);
	got = fd >= 0 && !fstat(fd, &sb);
	used = f->landed(fd, r->item, f->ctx);
	if (got && f->cache_fd >= 0 && refused_for_good(used))
		debuginfod_fetch__forget(f->cache_fd, r->id, r->len, &sb);
	pthread_mutex_lock(&f->lock);
	if (fd >= 0 && !used)
		cached ? f->stats.cached++ : f->stats.fetched++;
	else if (fd == -EFBIG)
		f->stats.too_big++;
	else if (fd == -ECANCELED || fd == -ETIME || fd == -ETIMEDOUT)
		f->stats.timed_out++;
	else
		f->stats.failed++;
	f->running--;
	f->last_ns = monotonic_ns();
	pthread_mutex_unlock(&f->lock);
	free(r);
}

/* A request cancelled before it started: the run ended first. */
static void drop_request(struct loader_job *job, void *ctx)
{
	struct debuginfod_fetch *f = ctx;
	struct request *r = (struct request *)job;

	pthread_mutex_lock(&f->lock);
	f->stats.timed_out++;
	pthread_mutex_unlock(&f->lock);
	f->landed(-ECANCELED, r->item, f->ctx);
	free(r);
}

static void fetch__destroy(struct debuginfod_fetch *f)
{
	if (f->cache_fd >= 0)
		close(f->cache_fd);
	pthread_mutex_destroy(&f->lock);
	free(f->owners);
	free(f);
}

struct debuginfod_fetch *debuginfod_fetch__new(const struct debuginfod_fetch_opts *opts)
{
	struct debuginfod_fetch *f;
	int err;

	if (!opts->landed) {
		errno = EINVAL;
		return NULL;
	}
	if (!opts->backend && !debuginfod_child__available()) {
		errno = ENOENT;		/* no libdebuginfod installed */
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->backend = opts->backend ? *opts->backend : child_backend;
	f->landed = opts->landed;
	f->ctx = opts->ctx;
	f->max_bytes = opts->max_bytes ? opts->max_bytes : budget__default()->max_fetch_bytes;
	f->max_files = opts->max_files;
	f->max_user_files = opts->max_user_files;
	/* checked as safe for root by debuginfod_fetch__setup_env() */
	f->cache_fd = opts->cache_dir ?
		open(opts->cache_dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
	pthread_mutex_init(&f->lock, NULL);
	/* signals stay with the main thread: the pool's threads block them */
	f->pool = loader__new_pool(run_request, drop_request, f,
				   opts->threads ? opts->threads : DEBUGINFOD_FETCH_THREADS);
	if (!f->pool) {
		err = errno;
		fetch__destroy(f);
		errno = err;
		return NULL;
	}
	return f;
}

/*
 * Count a request for a file of owner, under f->lock: -EDQUOT (counted)
 * when it is over a bound.
 */
static int count_request(struct debuginfod_fetch *f, uid_t owner)
{
	struct owner_count *o = NULL, *n;

	if (f->max_files && f->asked >= f->max_files) {
		f->stats.over_files++;
		return -EDQUOT;
	}
	if (owner != 0 && f->max_user_files) {
		for (size_t i = 0; i < f->nr_owners && !o; i++)
			if (f->owners[i].uid == owner)
				o = &f->owners[i];
		if (o && o->n >= f->max_user_files) {
			f->stats.over_user_files++;
			return -EDQUOT;
		}
		if (!o) {
			n = reallocarray(f->owners, f->nr_owners + 1, sizeof(*n));
			if (!n)
				return -ENOMEM;
			f->owners = n;
			o = &f->owners[f->nr_owners++];
			*o = (struct owner_count){ .uid = owner };
		}
		o->n++;
	}
	f->asked++;
	return 0;
}

int debuginfod_fetch__submit(struct debuginfod_fetch *f, const uint8_t *id, size_t len,
			     uid_t owner, void *item)
{
	struct request *r;
	int err;

	if (!len || len > sizeof(r->id))
		return -EINVAL;
	if (past_deadline(f))
		return -ECANCELED;
	pthread_mutex_lock(&f->lock);
	err = count_request(f, owner);
	pthread_mutex_unlock(&f->lock);
	if (err)
		return err;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	memcpy(r->id, id, len);
	r->len = len;
	r->item = item;
	err = loader__submit(f->pool, &r->job);
	if (err)
		free(r);
	return err;
}

void debuginfod_fetch__set_deadline(struct debuginfod_fetch *f, uint64_t deadline_ns)
{
	__atomic_store_n(&f->deadline_ns, deadline_ns, __ATOMIC_RELAXED);
}

int debuginfod_fetch__wait(struct debuginfod_fetch *f, uint64_t until_ns, int watch_fd)
{
	uint64_t now = monotonic_ns();
	int ms = -1;

	if (until_ns)
		ms = until_ns <= now ? 0 : (int)((until_ns - now + 999999) / 1000000);
	return loader__wait(f->pool, ms, watch_fd);
}

void debuginfod_fetch__cancel(struct debuginfod_fetch *f)
{
	__atomic_store_n(&f->cancelled, 1, __ATOMIC_RELAXED);
	loader__cancel(f->pool);
}

void debuginfod_fetch__stats(struct debuginfod_fetch *f, struct debuginfod_fetch_stats *st)
{
	unsigned int pending = loader__pending(f->pool);

	pthread_mutex_lock(&f->lock);
	*st = f->stats;
	st->pending = pending;
	st->busy_ns = 0;
	if (f->first_ns)
		st->busy_ns = (f->running ? monotonic_ns() : f->last_ns) - f->first_ns;
	pthread_mutex_unlock(&f->lock);
}

int debuginfod_fetch__free(struct debuginfod_fetch *f, int timeout_ms)
{
	if (!f)
		return 0;
	__atomic_store_n(&f->cancelled, 1, __ATOMIC_RELAXED);
	/* a request waiting for its child: the exit that follows ends the wait */
	if (loader__free(f->pool, timeout_ms) == -EBUSY)
		return -EBUSY;
	fetch__destroy(f);
	return 0;
}

void debuginfod_fetch_stats__format(const struct debuginfod_fetch_stats *st, char *buf,
				    size_t size)
{
	uint64_t ms = st->busy_ns / 1000000;

	snprintf(buf, size,
		 "debuginfod: %u debug file%s fetched, %u cached, %u failed, %u too big, %u timed out, %u not asked for, in %" PRIu64
		 ".%" PRIu64 " s",
		 st->fetched, st->fetched == 1 ? "" : "s", st->cached, st->failed, st->too_big,
		 st->timed_out + st->pending, st->over_files + st->over_user_files, ms / 1000,
		 ms % 1000 / 100);
}

int debuginfod_fetch__forget(int cache_fd, const uint8_t *id, size_t len, const struct stat *sb)
{
	char hex[2 * MAX_ID_LEN + 1];
	struct stat here;
	int dfd, fd, err = 0;

	if (!len || len > MAX_ID_LEN)
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	dfd = openat(cache_fd, hex, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	if (fstatat(dfd, "debuginfo", &here, AT_SYMLINK_NOFOLLOW))
		err = -errno;
	else if (!S_ISREG(here.st_mode) || !file_stamp__same_file(&here, sb))
		err = -ESTALE;
	else if (unlinkat(dfd, "debuginfo", 0))
		err = -errno;
	if (!err) {
		fd = openat(dfd, "debuginfo", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0400);
		if (fd >= 0)
			close(fd);
	}
	close(dfd);
	return err;
}

/* --- configuration -------------------------------------------------------- */

static bool blank(const char *s)
{
	return !s || !s[strspn(s, " \t\n")];
}

char *debuginfod_fetch__urls(const char *const *urls, size_t nr, const char *env_urls)
{
	size_t len = 0;
	char *s;

	if (!nr)
		return blank(env_urls) ? NULL : strdup(env_urls);
	for (size_t i = 0; i < nr; i++)
		len += strlen(urls[i]) + 1;
	s = malloc(len + 1);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (size_t i = 0; i < nr; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, urls[i]);
	}
	if (blank(s)) {
		free(s);
		return NULL;
	}
	return s;
}

int debuginfod_fetch__cache_dir(const char *cache_path, const char *xdg, const char *home,
				char *buf, size_t size)
{
	struct stat sb;
	int n;

	if (cache_path && *cache_path)
		n = snprintf(buf, size, "%s", cache_path);
	else if (xdg && *xdg)
		n = snprintf(buf, size, "%s/debuginfod_client", xdg);
	else if (home && *home) {
		/* the old place, used only where it is there already */
		n = snprintf(buf, size, "%s/.debuginfod_client_cache", home);
		if (n >= 0 && (size_t)n < size && stat(buf, &sb) == 0 && S_ISDIR(sb.st_mode))
			return 0;
		n = snprintf(buf, size, "%s/.cache/debuginfod_client", home);
	} else {
		return -ENOENT;
	}
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

void debuginfod_fetch__max_size(const char *user, uint64_t max_bytes, char *buf, size_t size)
{
	unsigned long long v = 0;
	char *end = NULL;

	if (user && *user) {
		errno = 0;
		v = strtoull(user, &end, 10);
		if (errno || *end || user[0] == '-')
			v = 0;
	}
	if (!v || v > max_bytes)
		v = max_bytes;
	snprintf(buf, size, "%llu", v);
}

int debuginfod_fetch__setup_env(const char *const *urls, size_t nr, uint64_t max_bytes,
				struct debuginfod_setup *out, char *why, size_t size)
{
	char *dir = out->cache_dir, max_size[32];
	char *servers;
	int err;

	servers = debuginfod_fetch__urls(urls, nr, getenv("DEBUGINFOD_URLS"));
	if (!servers)
		return -ENOENT;
	err = debuginfod_fetch__cache_dir(getenv("DEBUGINFOD_CACHE_PATH"), getenv("XDG_CACHE_HOME"),
					  getenv("HOME"), dir, sizeof(out->cache_dir));
	if (err)
		snprintf(why, size, "no cache directory (set DEBUGINFOD_CACHE_PATH)");
	else
		err = cache_dir__check(dir, geteuid(), why, size);
	if (!err && (err = cache_dir__make(dir, 0700, 0700)))
		snprintf(why, size, "cannot make the cache '%s': %s", dir, strerror(-err));
	if (err) {
		free(servers);
		return -EPERM;
	}
	debuginfod_fetch__max_size(getenv("DEBUGINFOD_MAXSIZE"), max_bytes, max_size,
				   sizeof(max_size));
	out->max_bytes = strtoull(max_size, NULL, 10);
	/* the very directory checked, whatever libdebuginfod would have chosen */
	err = setenv("DEBUGINFOD_URLS", servers, 1) || setenv("DEBUGINFOD_MAXSIZE", max_size, 1) ||
	      setenv("DEBUGINFOD_CACHE_PATH", dir, 1);
	free(servers);
	return err ? -errno : 0;
}
