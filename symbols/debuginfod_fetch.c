// SPDX-License-Identifier: GPL-2.0
/*
 * debuginfod_fetch.c - a small pool of threads that fetch debug files by
 * build-id through libdebuginfod, under a deadline and a cancel flag.
 *
 * libdebuginfod (and with it libcurl and its TLS libraries) is dlopen()ed
 * when the first fetcher is made: a run without servers loads none of it,
 * and its constructor (curl_global_init, not thread-safe) runs before our
 * fetch threads start.
 */
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
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

#include "cache_dir.h"
#include "debuginfod_fetch.h"
#include "loader.h"

struct request {
	struct loader_job job;		/* first: the pool's link */
	uint8_t id[64];
	size_t len;
	void *item;
};

struct debuginfod_fetch {
	struct debuginfod_backend backend;
	debuginfod_landed_fn landed;
	void *ctx;
	struct loader *pool;
	pthread_mutex_t lock;		/* the figures below */
	unsigned int running;
	int cancelled;			/* atomic: read by the progress callback without lock */
	uint64_t deadline_ns;		/* atomic; 0: none */
	uint64_t first_ns, last_ns;	/* first start, last end */
	struct debuginfod_fetch_stats stats;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* --- libdebuginfod, dlopen()ed ------------------------------------------- */

static struct {
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
	void (*set_user_data)(debuginfod_client *, void *);
	void *(*get_user_data)(debuginfod_client *);
	void (*set_verbose_fd)(debuginfod_client *, int);
} ldi;
static pthread_once_t ldi_once = PTHREAD_ONCE_INIT;
static bool ldi_loaded;

static void ldi_load(void)
{
	void *h = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return;
	ldi.begin = (debuginfod_client *(*)(void))dlsym(h, "debuginfod_begin");
	ldi.end = (void (*)(debuginfod_client *))dlsym(h, "debuginfod_end");
	ldi.find_debuginfo = (int (*)(debuginfod_client *, const unsigned char *, int, char **))
		dlsym(h, "debuginfod_find_debuginfo");
	ldi.set_progressfn = (void (*)(debuginfod_client *, debuginfod_progressfn_t))
		dlsym(h, "debuginfod_set_progressfn");
	ldi.set_user_data = (void (*)(debuginfod_client *, void *))
		dlsym(h, "debuginfod_set_user_data");
	ldi.get_user_data = (void *(*)(debuginfod_client *))dlsym(h, "debuginfod_get_user_data");
	ldi.set_verbose_fd = (void (*)(debuginfod_client *, int))dlsym(h, "debuginfod_set_verbose_fd");
	/* never dlclose()d: libcurl's state lives until exit */
	ldi_loaded = ldi.begin && ldi.end && ldi.find_debuginfo && ldi.set_progressfn &&
		     ldi.set_user_data && ldi.get_user_data && ldi.set_verbose_fd;
}

struct progress_ctx {
	bool (*stop)(void *);
	void *stop_ctx;
	bool networked;			/* called at all: not a cache hit */
};

static int ldi_progress(debuginfod_client *c, long a, long b)
{
	struct progress_ctx *p = ldi.get_user_data(c);

	(void)a;
	(void)b;
	p->networked = true;
	return p->stop(p->stop_ctx);	/* non-zero: libdebuginfod stops the transfer */
}

static void *ldi_begin(void)
{
	static int devnull = -2;
	debuginfod_client *c = ldi.begin();

	/*
	 * libdebuginfod 0.188 dprintf()s to its verbose fd in places without
	 * checking that there is one: to -1, glibc leaks the stream buffer
	 * it made (8 KiB a query, reported by LeakSanitizer). /dev/null is
	 * one. Its messages are never ours to print: -v has its own line.
	 */
	if (__atomic_load_n(&devnull, __ATOMIC_RELAXED) == -2) {
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC), expected = -2;

		if (!__atomic_compare_exchange_n(&devnull, &expected, fd, false, __ATOMIC_RELAXED,
						 __ATOMIC_RELAXED) && fd >= 0)
			close(fd);
	}
	if (c && __atomic_load_n(&devnull, __ATOMIC_RELAXED) >= 0)
		ldi.set_verbose_fd(c, devnull);
	return c;
}

static void ldi_end(void *client)
{
	ldi.end(client);
}

static int ldi_find(void *client, const uint8_t *id, size_t len, bool (*stop)(void *),
		    void *stop_ctx, bool *cached)
{
	struct progress_ctx p = { .stop = stop, .stop_ctx = stop_ctx };
	int fd;

	ldi.set_user_data(client, &p);
	ldi.set_progressfn(client, ldi_progress);
	fd = ldi.find_debuginfo(client, id, (int)len, NULL);
	/* a cache hit returns before any transfer, so before any progress call */
	*cached = fd >= 0 && !p.networked;
	if (fd < 0 && stop(stop_ctx))
		fd = -ECANCELED;
	return fd;
}

static const struct debuginfod_backend ldi_backend = {
	.begin = ldi_begin,
	.end = ldi_end,
	.find = ldi_find,
};

/* --- the pool ------------------------------------------------------------ */

static bool past_deadline(void *arg)
{
	struct debuginfod_fetch *f = arg;
	uint64_t deadline = __atomic_load_n(&f->deadline_ns, __ATOMIC_RELAXED);

	return __atomic_load_n(&f->cancelled, __ATOMIC_RELAXED) ||
	       (deadline && mono_ns() >= deadline);
}

/*
 * Each fetch thread's client, made for its first request and ended with
 * the thread (a pthread key's destructor, as the pool joins it).
 */
struct thread_client {
	void (*end)(void *client);
	void *client;
};
static pthread_key_t client_key;
static pthread_once_t client_key_once = PTHREAD_ONCE_INIT;
static bool client_key_made;

static void client_free(void *p)
{
	struct thread_client *tc = p;

	tc->end(tc->client);
	free(tc);
}

static void client_key_make(void)
{
	client_key_made = !pthread_key_create(&client_key, client_free);
}

/* This thread's client; *own: the caller ends it (no key to keep it by). */
static void *thread_client(struct debuginfod_fetch *f, bool *own)
{
	struct thread_client *tc = client_key_made ? pthread_getspecific(client_key) : NULL;
	void *client;

	*own = false;
	if (tc)
		return tc->client;
	client = f->backend.begin();
	if (!client)
		return NULL;
	tc = client_key_made ? malloc(sizeof(*tc)) : NULL;
	if (tc) {
		*tc = (struct thread_client){ .end = f->backend.end, .client = client };
		if (!pthread_setspecific(client_key, tc))
			return client;
		free(tc);
	}
	*own = true;
	return client;
}

/* One request, on a fetch thread: its outcome into the stats. */
static void run_request(struct loader_job *job, void *ctx)
{
	struct debuginfod_fetch *f = ctx;
	struct request *r = (struct request *)job;
	bool cached = false, own = false;
	int fd = -ECANCELED, used = -1;
	void *client = NULL;

	pthread_mutex_lock(&f->lock);
	f->running++;
	if (!f->first_ns)
		f->first_ns = mono_ns();
	pthread_mutex_unlock(&f->lock);
	if (!past_deadline(f)) {
		client = thread_client(f, &own);
		fd = client ? -ECANCELED : -ENOMEM;
	}
	if (client && !past_deadline(f))
		fd = f->backend.find(client, r->id, r->len, past_deadline, f, &cached);
	if (own)
		f->backend.end(client);
	used = f->landed(fd, r->item, f->ctx);
	pthread_mutex_lock(&f->lock);
	if (fd >= 0 && !used)
		cached ? f->stats.cached++ : f->stats.fetched++;
	else if (fd == -ECANCELED || fd == -ETIME || fd == -ETIMEDOUT)
		f->stats.timed_out++;
	else
		f->stats.failed++;
	f->running--;
	f->last_ns = mono_ns();
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
	pthread_mutex_destroy(&f->lock);
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
	if (!opts->backend) {
		pthread_once(&ldi_once, ldi_load);
		if (!ldi_loaded) {
			errno = ENOENT;		/* no libdebuginfod installed */
			return NULL;
		}
	}
	pthread_once(&client_key_once, client_key_make);
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->backend = opts->backend ? *opts->backend : ldi_backend;
	f->landed = opts->landed;
	f->ctx = opts->ctx;
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

int debuginfod_fetch__submit(struct debuginfod_fetch *f, const uint8_t *id, size_t len,
			     void *item)
{
	struct request *r;
	int err;

	if (!len || len > sizeof(r->id))
		return -EINVAL;
	if (past_deadline(f))
		return -ECANCELED;
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
	uint64_t now = mono_ns();
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
		st->busy_ns = (f->running ? mono_ns() : f->last_ns) - f->first_ns;
	pthread_mutex_unlock(&f->lock);
}

int debuginfod_fetch__free(struct debuginfod_fetch *f, int timeout_ms)
{
	if (!f)
		return 0;
	__atomic_store_n(&f->cancelled, 1, __ATOMIC_RELAXED);
	/* a request between two progress calls: the exit that follows ends it */
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
		 "debuginfod: %u debug file%s fetched, %u cached, %u failed, %u timed out, in %" PRIu64
		 ".%" PRIu64 " s",
		 st->fetched, st->fetched == 1 ? "" : "s", st->cached, st->failed,
		 st->timed_out + st->pending, ms / 1000, ms % 1000 / 100);
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
				char *why, size_t size)
{
	char dir[PATH_MAX], max_size[32];
	char *servers;
	int err;

	servers = debuginfod_fetch__urls(urls, nr, getenv("DEBUGINFOD_URLS"));
	if (!servers)
		return -ENOENT;
	err = debuginfod_fetch__cache_dir(getenv("DEBUGINFOD_CACHE_PATH"), getenv("XDG_CACHE_HOME"),
					  getenv("HOME"), dir, sizeof(dir));
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
	err = setenv("DEBUGINFOD_URLS", servers, 1) || setenv("DEBUGINFOD_MAXSIZE", max_size, 1);
	free(servers);
	return err ? -errno : 0;
}
