/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debuginfod_child.h - each debug file asked of debuginfod servers is
 * fetched by a child process of its own: profile's own binary run again
 * (/proc/self/exe DEBUGINFOD_CHILD_ARG HEX-BUILD-ID MAX-BYTES), which
 * calls libdebuginfod under RLIMIT_FSIZE = MAX-BYTES and passes the file
 * back over a socket.
 *
 * Why a process: libdebuginfod has libcurl decode whatever Content-Encoding
 * a server sends, asked for or not, and counts the bytes of the body
 * before decoding; libcurl decodes a whole read of up to 1.6 MB at a time,
 * ahead of any callback (a gzip body grows a thousandfold, zstd more).
 * Only the kernel can stop a write at the budget: RLIMIT_FSIZE, which is
 * the whole process's.
 *
 * In the child, the progress callback stops the transfer once the body
 * passes MAX-BYTES (the same count libdebuginfod gives, undecoded), or
 * once the parent says stop or goes away (a byte on, or the end of, the
 * socket): libdebuginfod then removes its partial file itself. The child
 * asks for "Accept-Encoding: identity", which libcurl then sends in place
 * of its own list. It ignores SIGINT, SIGTERM and SIGHUP and runs in a
 * process group of its own: the parent's end, not a terminal's, stops it,
 * so a download cut short is always cleaned up.
 */
#ifndef DEBUGINFOD_CHILD_H
#define DEBUGINFOD_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* argv[1] of the child: main() hands such a run to debuginfod_child__main(). */
#define DEBUGINFOD_CHILD_ARG "--debuginfod-child"

/*
 * Whether libdebuginfod can be loaded: dlopen()ed here once (its
 * constructor, curl_global_init, is not thread-safe: before any fetch
 * thread starts).
 */
bool debuginfod_child__available(void);

/*
 * Fetch the debug file of build-id id (len bytes) in a child process, at
 * most max_bytes of it, asking stop(stop_ctx) every 100 ms. Returns a
 * descriptor of the file (in the cache), or -errno: -EFBIG when the body
 * passed max_bytes (nothing kept), -ECANCELED once stop() said so,
 * -ELIBACC when the child cannot load libdebuginfod, the child's -errno
 * otherwise (-ENOENT: no server has it). *cached: from the local cache,
 * with no network work. A child that has not answered 1.5 s after being
 * told to stop is killed.
 */
int debuginfod_child__find(const uint8_t *id, size_t len, uint64_t max_bytes,
			   bool (*stop)(void *), void *stop_ctx, bool *cached);

/* The child: argv as debuginfod_child__find() spawns it. The exit status. */
int debuginfod_child__main(int argc, char **argv);

#endif /* DEBUGINFOD_CHILD_H */
