/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debuginfod_fetch.h - debug files fetched by build-id from debuginfod
 * servers (libdebuginfod), on a few threads of their own, so that no
 * network work runs on the thread that reads signals and drains the maps.
 *
 *	f = debuginfod_fetch__new(&opts);	threads start, nothing fetched yet
 *	debuginfod_fetch__submit(f, id, len, item);	queued; opts.landed(fd, item) later
 *	debuginfod_fetch__wait(f, deadline_ns, sigfd);	until idle, the deadline, or a signal
 *	debuginfod_fetch__cancel(f);		queued requests dropped, running ones stopped
 *	debuginfod_fetch__free(f, timeout_ms);
 *
 * Up to opts.threads requests run at once, one libdebuginfod client each.
 * A request runs until it succeeds or fails, or the deadline set with
 * debuginfod_fetch__set_deadline() passes, or the fetcher is cancelled:
 * libdebuginfod asks its progress callback about once a second, and ours
 * then stops the download. libdebuginfod's own settings apply as for any
 * other client: DEBUGINFOD_URLS, DEBUGINFOD_CACHE_PATH (else
 * $XDG_CACHE_HOME/debuginfod_client, else $HOME/.cache/debuginfod_client),
 * DEBUGINFOD_TIMEOUT, DEBUGINFOD_MAXTIME, DEBUGINFOD_MAXSIZE.
 *
 * What comes back is untrusted: opts.landed decides whether a file is
 * used (and counts it as failed when it is not).
 */
#ifndef DEBUGINFOD_FETCH_H
#define DEBUGINFOD_FETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define DEBUGINFOD_FETCH_THREADS 4

/*
 * How one request is carried out: libdebuginfod unless tests give their
 * own. find() returns an open descriptor of the debug file or -errno;
 * *cached says it came from the local cache without network work. It
 * calls stop(stop_ctx) now and then, and gives up (-ECANCELED) once that
 * returns true.
 */
struct debuginfod_backend {
	void *(*begin)(void);
	void (*end)(void *client);
	int (*find)(void *client, const uint8_t *id, size_t len, bool (*stop)(void *),
		    void *stop_ctx, bool *cached);
};

/*
 * Called once for every request submitted: on a fetch thread with the
 * descriptor of the file that came back (the callee closes it), or with
 * -errno when none did (also on the thread that cancels, for requests
 * that never started). Returns 0 when the file was used, or -errno when
 * it was refused: then it counts as failed.
 */
typedef int (*debuginfod_landed_fn)(int fd, void *item, void *ctx);

struct debuginfod_fetch_opts {
	unsigned int threads;			/* 0: DEBUGINFOD_FETCH_THREADS */
	const struct debuginfod_backend *backend;	/* NULL: libdebuginfod */
	debuginfod_landed_fn landed;
	void *ctx;
};

struct debuginfod_fetch_stats {
	unsigned int fetched;		/* downloaded, and used */
	unsigned int cached;		/* from the local cache, and used */
	unsigned int failed;		/* no server had it, an error, or refused when it came */
	unsigned int timed_out;		/* stopped, or never started, for the deadline or a signal */
	unsigned int pending;		/* still queued or running */
	uint64_t busy_ns;		/* from the first request started to the last one ended */
};

struct debuginfod_fetch;

/* Start the threads. NULL with errno set. */
struct debuginfod_fetch *debuginfod_fetch__new(const struct debuginfod_fetch_opts *opts);

/*
 * Queue a request for the debug file of build-id id (len bytes); item is
 * handed to opts.landed. 0, -ECANCELED after a cancel or past the
 * deadline, -EINVAL, -ENOMEM.
 */
int debuginfod_fetch__submit(struct debuginfod_fetch *f, const uint8_t *id, size_t len,
			     void *item);

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
 * Cancel, and join the threads. A request still running after timeout_ms
 * (a server that holds the connection between two progress calls) is left
 * to run: the threads are detached, f is not freed and -EBUSY returned
 * (the process is about to exit). Accepts NULL.
 */
int debuginfod_fetch__free(struct debuginfod_fetch *f, int timeout_ms);

/* -v: "debuginfod: 2 debug files fetched, 1 cached, 0 failed, 1 timed out, in 1.3 s" */
void debuginfod_fetch_stats__format(const struct debuginfod_fetch_stats *st, char *buf,
				    size_t size);

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

/*
 * libdebuginfod's environment for this run, set before any thread reads
 * it: DEBUGINFOD_URLS to the servers (urls, else the environment's), the
 * cache (debuginfod_fetch__cache_dir()) checked and made (cache_dir.h), and
 * DEBUGINFOD_MAXSIZE within max_bytes. Returns 0 when debug files may be
 * fetched; -ENOENT with no servers; -EPERM when the cache is not safe for
 * us, why saying so; -errno.
 */
int debuginfod_fetch__setup_env(const char *const *urls, size_t nr, uint64_t max_bytes,
				char *why, size_t size);

#endif /* DEBUGINFOD_FETCH_H */
