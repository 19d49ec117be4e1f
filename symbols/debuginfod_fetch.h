/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debuginfod_fetch.h - debug files fetched by build-id from debuginfod
 * servers (libdebuginfod), on a few threads of their own, so that no
 * network work runs on the thread that reads signals and drains the maps.
 *
 *	f = debuginfod_fetch__new(&opts);	threads start, nothing fetched yet
 *	debuginfod_fetch__submit(f, id, len, owner, item);	queued; opts.landed(fd, item) later
 *	debuginfod_fetch__wait(f, deadline_ns, sigfd);	until idle, the deadline, or a signal
 *	debuginfod_fetch__cancel(f);		queued requests dropped, running ones stopped
 *	debuginfod_fetch__free(f, timeout_ms);
 *
 * Up to opts.threads requests run at once, each in a child process of
 * its own (debuginfod_child.h: libdebuginfod there, its writes stopped by
 * the kernel at opts.max_bytes, whatever encoding the server chose). A
 * request runs until it succeeds or fails, or the deadline set with
 * debuginfod_fetch__set_deadline() passes, or the fetcher is cancelled:
 * the child is told, and libdebuginfod, which calls back about once a
 * second, stops the download and removes what it wrote. libdebuginfod's
 * own settings apply as for any other client: DEBUGINFOD_URLS,
 * DEBUGINFOD_CACHE_PATH (else $XDG_CACHE_HOME/debuginfod_client, else
 * $HOME/.cache/debuginfod_client), DEBUGINFOD_TIMEOUT, DEBUGINFOD_MAXTIME,
 * DEBUGINFOD_MAXSIZE.
 *
 * Any local user can make us ask: the build-ids are those of the files
 * their processes map. So a run asks for at most opts.max_files, and at
 * most opts.max_user_files for the files of any one owner but root; the
 * requests over either are not made, and counted.
 *
 * What comes back is untrusted: opts.landed decides whether a file is
 * used (and counts it as failed when it is not); a file refused is
 * removed from the cache (opts.cache_dir), leaving libdebuginfod's mark
 * of a file no server has, so that it is not fetched again at once.
 */
#ifndef DEBUGINFOD_FETCH_H
#define DEBUGINFOD_FETCH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct stat;

#define DEBUGINFOD_FETCH_THREADS 4

/*
 * How one request is carried out: debuginfod_child__find() unless tests
 * give their own. find() returns an open descriptor of the debug file or
 * -errno (-EFBIG: over max_bytes, nothing kept); *cached says it came
 * from the local cache without network work. It calls stop(stop_ctx) now
 * and then, and gives up (-ECANCELED) once that returns true.
 */
struct debuginfod_backend {
	int (*find)(void *ctx, const uint8_t *id, size_t len, uint64_t max_bytes,
		    bool (*stop)(void *), void *stop_ctx, bool *cached);
	void *ctx;
};

/*
 * Called once for every request submitted: on a fetch thread with the
 * descriptor of the file that came back (the callee closes it), or with
 * -errno when none did (also on the thread that cancels, for requests
 * that never started). Returns 0 when the file was used, or -errno when
 * it was refused: then it counts as failed, and unless the refusal is
 * -ECANCELED (the run is ending) or -ENOMEM, it leaves the cache.
 */
typedef int (*debuginfod_landed_fn)(int fd, void *item, void *ctx);

struct debuginfod_fetch_opts {
	unsigned int threads;			/* 0: DEBUGINFOD_FETCH_THREADS */
	const struct debuginfod_backend *backend;	/* NULL: a child process each */
	debuginfod_landed_fn landed;
	void *ctx;
	uint64_t max_bytes;		/* one file, at most; 0: the default budget's */
	unsigned int max_files;		/* requests a run; 0: no bound */
	unsigned int max_user_files;	/* of them for the files of one owner but root; 0: no bound */
	const char *cache_dir;		/* libdebuginfod's, to remove refused files from; NULL: none */
};

struct debuginfod_fetch_stats {
	unsigned int fetched;		/* downloaded, and used */
	unsigned int cached;		/* from the local cache, and used */
	unsigned int failed;		/* no server had it, an error, or refused when it came */
	unsigned int too_big;		/* stopped at max_bytes */
	unsigned int timed_out;		/* stopped, or never started, for the deadline or a signal */
	unsigned int pending;		/* still queued or running */
	unsigned int over_files;	/* not asked for: over max_files */
	unsigned int over_user_files;	/* not asked for: over max_user_files */
	uint64_t busy_ns;		/* from the first request started to the last one ended */
};

struct debuginfod_fetch;

/* Start the threads. NULL with errno set. */
struct debuginfod_fetch *debuginfod_fetch__new(const struct debuginfod_fetch_opts *opts);

/*
 * Queue a request for the debug file of build-id id (len bytes), of a file
 * owned by owner; item is handed to opts.landed. 0, -EDQUOT over
 * max_files or max_user_files (counted), -ECANCELED after a cancel or past
 * the deadline, -EINVAL, -ENOMEM.
 */
int debuginfod_fetch__submit(struct debuginfod_fetch *f, const uint8_t *id, size_t len,
			     uid_t owner, void *item);

/* From deadline_ns on (CLOCK_MONOTONIC), nothing is fetched: running requests stop. */
void debuginfod_fetch__set_deadline(struct debuginfod_fetch *f, uint64_t deadline_ns);

/*
 * Wait until no request is queued or running. 0; -ETIMEDOUT at until_ns
 * (CLOCK_MONOTONIC; 0: no limit); -EINTR as soon as watch_fd (>= 0) is
 * readable.
 */
int debuginfod_fetch__wait(struct debuginfod_fetch *f, uint64_t until_ns, int watch_fd);

/* Drop queued requests (timed out) and stop running ones; later submits fail. */
void debuginfod_fetch__cancel(struct debuginfod_fetch *f);

void debuginfod_fetch__stats(struct debuginfod_fetch *f, struct debuginfod_fetch_stats *st);

/*
 * Cancel, and join the threads. A request still waiting for its child to
 * clean up after timeout_ms is left to run: the threads are detached, f
 * is not freed and -EBUSY returned (the process is about to exit; the
 * child then sees its socket close, and cleans up all the same). Accepts
 * NULL.
 */
int debuginfod_fetch__free(struct debuginfod_fetch *f, int timeout_ms);

/*
 * -v: "debuginfod: 2 debug files fetched, 1 cached, 1 failed, 1 too big,
 * 1 timed out, 3 not asked for, in 1.3 s"
 */
void debuginfod_fetch_stats__format(const struct debuginfod_fetch_stats *st, char *buf,
				    size_t size);

/*
 * Remove the file libdebuginfod keeps for build-id id under the cache dir
 * cache_fd (<hex>/debuginfo) if it is the file sb describes (fstat() of
 * what was fetched), and leave an empty one in its place: libdebuginfod's
 * mark of a file no server has, which it does not ask for again for a
 * while (cache_miss_s, 10 minutes). Nothing is followed: the directory
 * and the file are taken as they are in cache_fd, a symlink is left
 * alone. 0, -ESTALE when another file is there, -errno.
 */
int debuginfod_fetch__forget(int cache_fd, const uint8_t *id, size_t len, const struct stat *sb);

/*
 * Setting up, before any thread starts (they change the environment
 * libdebuginfod reads).
 */

/*
 * The servers to ask: urls (the command line's, joined by spaces) if any,
 * else env_urls (DEBUGINFOD_URLS). NULL when there are none: no network
 * work at all. The string returned is malloc'ed.
 */
char *debuginfod_fetch__urls(const char *const *urls, size_t nr, const char *env_urls);

/*
 * The cache directory libdebuginfod uses, from its variables as it reads
 * them (any may be NULL): cache_path, else <xdg>/debuginfod_client, else
 * <home>/.debuginfod_client_cache if it exists, else
 * <home>/.cache/debuginfod_client. -ENOENT when none can be made,
 * -ENAMETOOLONG.
 */
int debuginfod_fetch__cache_dir(const char *cache_path, const char *xdg, const char *home,
				char *buf, size_t size);

/*
 * DEBUGINFOD_MAXSIZE to set: the user's value (user, may be NULL) when it
 * is a positive number no larger than max_bytes, else max_bytes, in
 * decimal into buf.
 */
void debuginfod_fetch__max_size(const char *user, uint64_t max_bytes, char *buf, size_t size);

/* What debuginfod_fetch__setup_env() settled on: for debuginfod_fetch_opts. */
struct debuginfod_setup {
	char cache_dir[PATH_MAX];
	uint64_t max_bytes;
};

/*
 * libdebuginfod's environment for this run, set before any thread reads
 * it: DEBUGINFOD_URLS to the servers (urls, else the environment's),
 * DEBUGINFOD_CACHE_PATH to the cache (debuginfod_fetch__cache_dir())
 * checked and made (cache_dir.h), and DEBUGINFOD_MAXSIZE within
 * max_bytes; both into *out. Returns 0 when debug files may be fetched;
 * -ENOENT with no servers; -EPERM when the cache is not safe for us, why
 * saying so; -errno.
 */
int debuginfod_fetch__setup_env(const char *const *urls, size_t nr, uint64_t max_bytes,
				struct debuginfod_setup *out, char *why, size_t size);

#endif /* DEBUGINFOD_FETCH_H */
