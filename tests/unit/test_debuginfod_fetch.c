// SPDX-License-Identifier: GPL-2.0
/*
 * test_debuginfod_fetch.c - the fetch pool with a fake server in place of
 * libdebuginfod: requests run in parallel up to the pool's size, stop at
 * the deadline and on cancel, every request is handed back once, and the
 * counts the -v line gives; the bounds on how many are asked for; a
 * refused file leaving the cache; the cache directory libdebuginfod uses
 * and when it is safe for root; DEBUGINFOD_MAXSIZE within the budget.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "symbols/debuginfod_fetch.h"
#include "test_util.h"

/* The fake server: what find() does for a build-id's first byte. */
enum fake_kind {
	FAKE_FOUND = 1,		/* an fd of /dev/null, after the network */
	FAKE_CACHED,		/* the same, from the cache */
	FAKE_MISSING,		/* -ENOENT */
	FAKE_HANG,		/* until stop() */
	FAKE_TOO_BIG,		/* -EFBIG: stopped at max_bytes */
	FAKE_IN_CACHE,		/* the file at fake_cache/<hex>/debuginfo */
};

static const char *fake_cache;	/* FAKE_IN_CACHE's directory */

static struct {
	pthread_mutex_t lock;
	unsigned int inside, most_inside;
	unsigned int landed, landed_fd, refused;
	int refuse;		/* landed() returns this for files */
} fake = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	nanosleep(&ts, NULL);
}

static int fake_find(void *ctx, const uint8_t *id, size_t len, uint64_t max_bytes,
		     bool (*stop)(void *), void *stop_ctx, bool *cached)
{
	int ret;

	(void)ctx;
	(void)max_bytes;
	pthread_mutex_lock(&fake.lock);
	if (++fake.inside > fake.most_inside)
		fake.most_inside = fake.inside;
	pthread_mutex_unlock(&fake.lock);
	switch (id[0]) {
	case FAKE_HANG:
		while (!stop(stop_ctx))
			sleep_ms(5);
		ret = -ECANCELED;
		break;
	case FAKE_MISSING:
		ret = -ENOENT;
		break;
	case FAKE_TOO_BIG:
		ret = -EFBIG;
		break;
	case FAKE_IN_CACHE: {
		char path[4096];
		int n = snprintf(path, sizeof(path), "%s/", fake_cache);

		for (size_t i = 0; i < len; i++)
			n += snprintf(path + n, sizeof(path) - n, "%02x", id[i]);
		snprintf(path + n, sizeof(path) - n, "/debuginfo");
		ret = open(path, O_RDONLY | O_CLOEXEC);
		ret = ret < 0 ? -errno : ret;
		break;
	}
	default:
		sleep_ms(50);	/* long enough for the others to come in */
		*cached = id[0] == FAKE_CACHED;
		ret = open("/dev/null", O_RDONLY | O_CLOEXEC);
		break;
	}
	pthread_mutex_lock(&fake.lock);
	fake.inside--;
	pthread_mutex_unlock(&fake.lock);
	return ret;
}

static const struct debuginfod_backend fake_backend = { .find = fake_find };

static int fake_landed(int fd, void *item, void *ctx)
{
	(void)item;
	(void)ctx;
	pthread_mutex_lock(&fake.lock);
	fake.landed++;
	if (fd >= 0) {
		fake.landed_fd++;
		close(fd);
		if (fake.refuse)
			fake.refused++;
	}
	pthread_mutex_unlock(&fake.lock);
	return fd >= 0 ? fake.refuse : fd;
}

static struct debuginfod_fetch *new_fetch_opts(struct debuginfod_fetch_opts opts)
{
	struct debuginfod_fetch *f;

	opts.backend = &fake_backend;
	opts.landed = fake_landed;

	pthread_mutex_lock(&fake.lock);
	fake.inside = fake.most_inside = fake.landed = fake.landed_fd = fake.refused = 0;
	fake.refuse = 0;
	pthread_mutex_unlock(&fake.lock);
	f = debuginfod_fetch__new(&opts);
	cr_assert_not_null(f);
	return f;
}

static struct debuginfod_fetch *new_fetch(unsigned int threads)
{
	return new_fetch_opts((struct debuginfod_fetch_opts){ .threads = threads });
}

static void submit(struct debuginfod_fetch *f, enum fake_kind kind, uint8_t n)
{
	uint8_t id[20] = { kind, n };

	cr_assert_eq(debuginfod_fetch__submit(f, id, sizeof(id), 0, NULL), 0);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

Test(debuginfod_fetch, requests_run_in_parallel_up_to_the_pool)
{
	struct debuginfod_fetch *f = new_fetch(4);
	struct debuginfod_fetch_stats st;

	for (uint8_t i = 0; i < 10; i++)
		submit(f, FAKE_FOUND, i);
	cr_assert_eq(debuginfod_fetch__wait(f, now_ns() + 10000000000ULL, -1), 0);
	debuginfod_fetch__stats(f, &st);
	cr_assert_eq(fake.most_inside, 4, "%u at once", fake.most_inside);
	cr_assert_eq(st.fetched, 10);
	cr_assert_eq(st.pending, 0);
	cr_assert_eq(fake.landed_fd, 10);
	cr_assert_gt(st.busy_ns, 0);
	cr_assert_eq(debuginfod_fetch__free(f, 1000), 0);
}

Test(debuginfod_fetch, outcomes_are_counted_apart)
{
	struct debuginfod_fetch *f = new_fetch(2);
	struct debuginfod_fetch_stats st;
	char line[256];

	submit(f, FAKE_FOUND, 0);
	submit(f, FAKE_CACHED, 0);
	submit(f, FAKE_CACHED, 1);
	submit(f, FAKE_MISSING, 0);
	cr_assert_eq(debuginfod_fetch__wait(f, 0, -1), 0);
	debuginfod_fetch__stats(f, &st);
	cr_assert_eq(st.fetched, 1);
	cr_assert_eq(st.cached, 2);
	cr_assert_eq(st.failed, 1);
	cr_assert_eq(st.timed_out, 0);
	cr_assert_eq(fake.landed, 4, "every request is handed back once");
	debuginfod_fetch_stats__format(&st, line, sizeof(line));
	cr_assert(!strncmp(line, "debuginfod: 1 debug file fetched, 2 cached, 1 failed, 0 too big, "
			   "0 timed out, 0 not asked for, in ", 97), "%s", line);
	debuginfod_fetch__free(f, 1000);
}

Test(debuginfod_fetch, a_file_refused_when_it_lands_counts_as_failed)
{
	struct debuginfod_fetch *f = new_fetch(1);
	struct debuginfod_fetch_stats st;

	fake.refuse = -EBADMSG;
	submit(f, FAKE_FOUND, 0);
	submit(f, FAKE_CACHED, 0);
	debuginfod_fetch__wait(f, 0, -1);
	debuginfod_fetch__stats(f, &st);
	cr_assert_eq(fake.refused, 2);
	cr_assert_eq(st.fetched + st.cached, 0);
	cr_assert_eq(st.failed, 2);
	debuginfod_fetch__free(f, 1000);
}

Test(debuginfod_fetch, the_deadline_stops_a_hanging_server)
{
	struct debuginfod_fetch *f = new_fetch(2);
	struct debuginfod_fetch_stats st;
	uint64_t t0 = now_ns();

	for (uint8_t i = 0; i < 5; i++)
		submit(f, FAKE_HANG, i);
	debuginfod_fetch__set_deadline(f, t0 + 200000000ULL);
	cr_assert_eq(debuginfod_fetch__wait(f, t0 + 5000000000ULL, -1), 0);
	cr_assert_lt(now_ns() - t0, 1000000000ULL, "%llu ms",
		     (unsigned long long)(now_ns() - t0) / 1000000);
	debuginfod_fetch__stats(f, &st);
	cr_assert_eq(st.timed_out, 5, "the queued ones too: %u", st.timed_out);
	cr_assert_eq(fake.landed, 5);
	cr_assert_eq(fake.landed_fd, 0);
	/* and nothing more is taken once it has passed */
	cr_assert_eq(debuginfod_fetch__submit(f, (const uint8_t *)"x", 1, 0, NULL), -ECANCELED);
	debuginfod_fetch__free(f, 1000);
}

Test(debuginfod_fetch, wait_ends_at_its_time_and_cancel_drops_the_rest)
{
	struct debuginfod_fetch *f = new_fetch(1);
	struct debuginfod_fetch_stats st;
	uint64_t t0 = now_ns();

	for (uint8_t i = 0; i < 3; i++)
		submit(f, FAKE_HANG, i);
	cr_assert_eq(debuginfod_fetch__wait(f, t0 + 100000000ULL, -1), -ETIMEDOUT);
	debuginfod_fetch__stats(f, &st);
	cr_assert_eq(st.pending, 3);
	debuginfod_fetch__cancel(f);
	cr_assert_eq(debuginfod_fetch__wait(f, now_ns() + 1000000000ULL, -1), 0);
	debuginfod_fetch__stats(f, &st);
	cr_assert_eq(st.timed_out, 3);
	cr_assert_eq(fake.landed, 3, "the dropped ones are handed back too");
	cr_assert_eq(debuginfod_fetch__free(f, 1000), 0);
}

Test(debuginfod_fetch, free_cancels_what_is_running)
{
	struct debuginfod_fetch *f = new_fetch(2);

	submit(f, FAKE_HANG, 0);
	submit(f, FAKE_HANG, 1);
	submit(f, FAKE_HANG, 2);
	sleep_ms(20);
	cr_assert_eq(debuginfod_fetch__free(f, 1000), 0);
	cr_assert_eq(fake.landed, 3);
}

Test(debuginfod_fetch, wait_ends_when_its_fd_is_readable)
{
	struct debuginfod_fetch *f = new_fetch(1);
	int p[2];

	cr_assert_eq(pipe(p), 0);
	submit(f, FAKE_HANG, 0);
	cr_assert_eq(write(p[1], "x", 1), 1);
	cr_assert_eq(debuginfod_fetch__wait(f, 0, p[0]), -EINTR);
	close(p[0]);
	close(p[1]);
	debuginfod_fetch__free(f, 1000);
}

Test(debuginfod_fetch, servers_from_the_command_line_else_the_environment)
{
	const char *urls[] = { "http://a:8002", "https://b/x" };
	char *s;

	s = debuginfod_fetch__urls(urls, 2, "http://env");
	cr_assert_str_eq(s, "http://a:8002 https://b/x");
	free(s);
	s = debuginfod_fetch__urls(NULL, 0, "http://env");
	cr_assert_str_eq(s, "http://env");
	free(s);
	cr_assert_null(debuginfod_fetch__urls(NULL, 0, NULL), "no servers: no fetching");
	cr_assert_null(debuginfod_fetch__urls(NULL, 0, ""));
	cr_assert_null(debuginfod_fetch__urls(NULL, 0, "  \t"));
}

Test(debuginfod_fetch, cache_dir_as_libdebuginfod_chooses_it)
{
	char *tmp = make_tmpdir(), *legacy = path_in(tmp, ".debuginfod_client_cache");
	char buf[4096];

	cr_assert_eq(debuginfod_fetch__cache_dir("/c", "/x", "/h", buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "/c");
	cr_assert_eq(debuginfod_fetch__cache_dir(NULL, "/x", "/h", buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "/x/debuginfod_client");
	cr_assert_eq(debuginfod_fetch__cache_dir("", "", "/h", buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "/h/.cache/debuginfod_client");
	cr_assert_eq(mkdir(legacy, 0700), 0);
	cr_assert_eq(debuginfod_fetch__cache_dir(NULL, NULL, tmp, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, legacy, "the old place, where it exists");
	cr_assert_eq(debuginfod_fetch__cache_dir(NULL, NULL, NULL, buf, sizeof(buf)), -ENOENT);
	cr_assert_eq(debuginfod_fetch__cache_dir("/a/long/path", NULL, NULL, buf, 5), -ENAMETOOLONG);
	free(legacy);
	rm_rf(tmp);
}

Test(debuginfod_fetch, max_size_within_the_budget)
{
	char buf[32];

	debuginfod_fetch__max_size(NULL, 1000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "1000");
	debuginfod_fetch__max_size("500", 1000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "500", "the user's smaller limit");
	debuginfod_fetch__max_size("5000", 1000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "1000");
	debuginfod_fetch__max_size("0", 1000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "1000", "0 means no limit to libdebuginfod: ours then");
	debuginfod_fetch__max_size("-1", 1000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "1000");
	debuginfod_fetch__max_size("12x", 1000, buf, sizeof(buf));
	cr_assert_str_eq(buf, "1000");
}

/*
 * Any user picks the build-ids we ask for (those of the files their
 * processes map): at most max_files a run, at most max_user_files for the
 * files of one owner but root. What is over is not asked for, and counted.
 */
Test(debuginfod_fetch, requests_are_bounded_a_run_and_a_user)
{
	struct debuginfod_fetch *f = new_fetch_opts((struct debuginfod_fetch_opts){
		.threads = 2, .max_files = 8, .max_user_files = 2 });
	struct debuginfod_fetch_stats st;
	uint8_t id[20] = { FAKE_MISSING };
	char line[256];
	int ok = 0;

	for (uint8_t i = 0; i < 3; i++) {	/* uid 1000: 2 asked, 1 not */
		id[1] = i;
		ok += !debuginfod_fetch__submit(f, id, sizeof(id), 1000, NULL);
	}
	cr_assert_eq(ok, 2);
	id[1] = 10;
	cr_assert_eq(debuginfod_fetch__submit(f, id, sizeof(id), 1000, NULL), -EDQUOT);
	for (uint8_t i = 20; i < 22; i++) {	/* uid 1001: a count of its own */
		id[1] = i;
		cr_assert_eq(debuginfod_fetch__submit(f, id, sizeof(id), 1001, NULL), 0);
	}
	for (uint8_t i = 30; i < 36; i++) {	/* root's: only the run's bound, 8 */
		id[1] = i;
		ok += !debuginfod_fetch__submit(f, id, sizeof(id), 0, NULL);
	}
	cr_assert_eq(ok, 2 + 4, "8 a run: 4 of root's after 4 of the users'");
	cr_assert_eq(debuginfod_fetch__wait(f, 0, -1), 0);
	debuginfod_fetch__stats(f, &st);
	cr_assert_eq(fake.landed, 8, "only what was asked for is handed back");
	cr_assert_eq(st.failed, 8);
	cr_assert_eq(st.over_user_files, 2);
	cr_assert_eq(st.over_files, 2);
	debuginfod_fetch_stats__format(&st, line, sizeof(line));
	cr_assert(strstr(line, ", 4 not asked for, "), "%s", line);
	debuginfod_fetch__free(f, 1000);
}

Test(debuginfod_fetch, a_file_stopped_at_the_size_bound_is_too_big)
{
	struct debuginfod_fetch *f = new_fetch(1);
	struct debuginfod_fetch_stats st;
	char line[256];

	submit(f, FAKE_TOO_BIG, 0);
	submit(f, FAKE_MISSING, 0);
	debuginfod_fetch__wait(f, 0, -1);
	debuginfod_fetch__stats(f, &st);
	cr_assert_eq(st.too_big, 1);
	cr_assert_eq(st.failed, 1);
	debuginfod_fetch_stats__format(&st, line, sizeof(line));
	cr_assert(strstr(line, " 1 failed, 1 too big, "), "%s", line);
	debuginfod_fetch__free(f, 1000);
}

/* A cache with the file libdebuginfod keeps for build-id { FAKE_IN_CACHE, n }. */
static char *cached_file(const char *cache, uint8_t n, const char *contents)
{
	char rel[128];
	int k = 0;
	uint8_t id[20] = { FAKE_IN_CACHE, n };

	for (size_t i = 0; i < sizeof(id); i++)
		k += snprintf(rel + k, sizeof(rel) - k, "%02x", id[i]);
	snprintf(rel + k, sizeof(rel) - k, "/debuginfo");
	return write_in(cache, rel, contents);
}

static off_t size_of(const char *path)
{
	struct stat sb;

	cr_assert_eq(lstat(path, &sb), 0, "%s: %s", path, strerror(errno));
	return sb.st_size;
}

/*
 * A file refused when it lands leaves the cache (an empty one, the mark
 * of a file no server has, in its place); not one refused because the
 * run is ending.
 */
Test(debuginfod_fetch, a_refused_file_leaves_the_cache)
{
	char *cache = make_tmpdir(), *bad, *kept;
	struct debuginfod_fetch *f;

	fake_cache = cache;
	bad = cached_file(cache, 1, "garbage");
	f = new_fetch_opts((struct debuginfod_fetch_opts){ .threads = 1, .cache_dir = cache });
	fake.refuse = -EBADMSG;
	submit(f, FAKE_IN_CACHE, 1);
	debuginfod_fetch__wait(f, 0, -1);
	debuginfod_fetch__free(f, 1000);
	cr_assert_eq(size_of(bad), 0, "the refused file stayed");

	kept = cached_file(cache, 2, "good, but the run ended");
	f = new_fetch_opts((struct debuginfod_fetch_opts){ .threads = 1, .cache_dir = cache });
	fake.refuse = -ECANCELED;
	submit(f, FAKE_IN_CACHE, 2);
	debuginfod_fetch__wait(f, 0, -1);
	debuginfod_fetch__free(f, 1000);
	cr_assert_gt(size_of(kept), 0, "removed for a cancel");
	free(bad);
	free(kept);
	rm_rf(cache);
}

/*
 * forget() takes the cache as it is: a build-id directory or a file that
 * is a symlink is left alone (what it names is someone else's), and so is
 * another file than the one fetched.
 */
Test(debuginfod_fetch, forget_follows_no_symlink_and_removes_only_what_was_fetched)
{
	char *cache = make_tmpdir(), *other = make_tmpdir(), *target, *file, *link, *path;
	uint8_t id[20] = { FAKE_IN_CACHE, 3 };
	struct stat sb;
	int cfd;

	fake_cache = cache;
	cfd = open(cache, O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(cfd, 0);
	/* <hex> a symlink to another directory with a debuginfo in it */
	target = write_in(other, "d/debuginfo", "theirs");
	cr_assert_eq(stat(target, &sb), 0);
	file = cached_file(cache, 3, "x");
	path = strdup(file);
	*strrchr(path, '/') = '\0';
	cr_assert_eq(unlink(file), 0);
	cr_assert_eq(rmdir(path), 0);
	link = path_in(other, "d");
	cr_assert_eq(symlink(link, path), 0);
	cr_assert_lt(debuginfod_fetch__forget(cfd, id, sizeof(id), &sb), 0);
	cr_assert_eq(size_of(target), 6, "removed through a symlinked directory");
	/* debuginfo itself a symlink to that file */
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(mkdir(path, 0700), 0);
	cr_assert_eq(symlink(target, file), 0);
	cr_assert_lt(debuginfod_fetch__forget(cfd, id, sizeof(id), &sb), 0);
	cr_assert_eq(size_of(target), 6, "removed through a symlink");
	/* another file than the one fetched: -ESTALE */
	cr_assert_eq(unlink(file), 0);
	write_text(file, "new");
	cr_assert_eq(debuginfod_fetch__forget(cfd, id, sizeof(id), &sb), -ESTALE);
	cr_assert_eq(size_of(file), 3);
	/* the very file: gone, an empty mark in its place */
	cr_assert_eq(stat(file, &sb), 0);
	cr_assert_eq(debuginfod_fetch__forget(cfd, id, sizeof(id), &sb), 0);
	cr_assert_eq(size_of(file), 0);
	close(cfd);
	free(target);
	free(file);
	free(link);
	free(path);
	rm_rf(other);
	rm_rf(cache);
}
