// SPDX-License-Identifier: GPL-2.0
/*
 * debuginfod_child.c - one child process per debug file fetched from
 * debuginfod servers, limited by RLIMIT_FSIZE (debuginfod_child.h): the
 * parent's side spawns it and waits for its answer, the child's loads
 * libdebuginfod and fetches.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "symbols/debuginfod_child.h"

extern char **environ;

/* The child's end of the socket, as it finds it. */
#define CHILD_FD 3
/* How often the parent asks whether to stop. */
#define POLL_MS 100
/* libdebuginfod calls back at least once a second: time to clean up, then killed. */
#define STOP_GRACE_MS 1500
#define MAX_ID_LEN 64

/* What the child says; the file's descriptor comes with err 0. */
struct child_answer {
	int32_t err;
	uint8_t cached;
};

/* --- libdebuginfod, dlopen()ed ------------------------------------------- */

static struct {
	debuginfod_client *(*begin)(void);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
	void (*set_verbose_fd)(debuginfod_client *, int);
	int (*add_http_header)(debuginfod_client *, const char *);
} ldi;
static pthread_once_t ldi_once = PTHREAD_ONCE_INIT;
static bool ldi_loaded;

static void ldi_load(void)
{
	void *h = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return;
	ldi.begin = (debuginfod_client *(*)(void))dlsym(h, "debuginfod_begin");
	ldi.find_debuginfo = (int (*)(debuginfod_client *, const unsigned char *, int, char **))
		dlsym(h, "debuginfod_find_debuginfo");
	ldi.set_progressfn = (void (*)(debuginfod_client *, debuginfod_progressfn_t))
		dlsym(h, "debuginfod_set_progressfn");
	ldi.set_verbose_fd = (void (*)(debuginfod_client *, int))dlsym(h, "debuginfod_set_verbose_fd");
	ldi.add_http_header = (int (*)(debuginfod_client *, const char *))
		dlsym(h, "debuginfod_add_http_header");
	/* never dlclose()d: libcurl's state lives until exit */
	ldi_loaded = ldi.begin && ldi.find_debuginfo && ldi.set_progressfn && ldi.set_verbose_fd &&
		     ldi.add_http_header;
}

bool debuginfod_child__available(void)
{
	pthread_once(&ldi_once, ldi_load);
	return ldi_loaded;
}

/* --- the parent's side ----------------------------------------------------- */

static void to_hex(const uint8_t *id, size_t len, char *hex)
{
	for (size_t i = 0; i < len; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	hex[2 * len] = '\0';
}

/*
 * profile DEBUGINFOD_CHILD_ARG hex max, with sock as its CHILD_FD, stdin
 * and stdout /dev/null, no signal blocked (ours are, on the fetch
 * threads), in a process group of its own.
 */
static int spawn_child(const char *hex, uint64_t max_bytes, int sock, pid_t *pid)
{
	char max[24], arg0[] = "profile", arg1[] = DEBUGINFOD_CHILD_ARG, *argv[5];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none;
	int err;

	snprintf(max, sizeof(max), "%" PRIu64, max_bytes);
	argv[0] = arg0;
	argv[1] = arg1;
	argv[2] = (char *)hex;
	argv[3] = max;
	argv[4] = NULL;
	sigemptyset(&none);
	if (posix_spawn_file_actions_init(&fa))
		return -ENOMEM;
	if (posix_spawnattr_init(&attr)) {
		posix_spawn_file_actions_destroy(&fa);
		return -ENOMEM;
	}
	err = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	err = err ?: posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	/* onto itself too: glibc (2.29) then clears close-on-exec */
	err = err ?: posix_spawn_file_actions_adddup2(&fa, sock, CHILD_FD);
	err = err ?: posix_spawnattr_setsigmask(&attr, &none);
	err = err ?: posix_spawnattr_setpgroup(&attr, 0);
	err = err ?: posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
	err = err ?: posix_spawn(pid, "/proc/self/exe", &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	return -err;
}

/* The child's answer on sock: the file's descriptor, or -errno. */
static int read_answer(int sock, bool *cached)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct child_answer ans;
	struct iovec iov = { .iov_base = &ans, .iov_len = sizeof(ans) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
		.msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *c;
	struct stat sb;
	ssize_t n;
	int fd = -1;

	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	c = CMSG_FIRSTHDR(&msg);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
	    c->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(c), sizeof(fd));
	if (n == 0)
		return -ECHILD;		/* it ended without a word: killed */
	if (n != sizeof(ans) || ans.err > 0 || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    (ans.err == 0) != (fd >= 0)) {
		if (fd >= 0)
			close(fd);
		return -EPROTO;
	}
	if (ans.err)
		return ans.err;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		return -EPROTO;
	}
	*cached = ans.cached;
	return fd;
}

/*
 * Until the child answers. Once stop() says so, the child is told (a
 * byte on the socket) and has STOP_GRACE_MS to clean up and answer.
 */
static int await_answer(int sock, pid_t pid, bool (*stop)(void *), void *stop_ctx, bool *cached)
{
	struct pollfd p = { .fd = sock, .events = POLLIN };
	uint64_t told = 0;
	int n;

	for (;;) {
		n = poll(&p, 1, POLL_MS);
		if (n > 0)
			return read_answer(sock, cached);
		if (n < 0 && errno != EINTR) {
			n = -errno;
			kill(pid, SIGKILL);
			return n;
		}
		if (!told && stop(stop_ctx)) {
			send(sock, "s", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
			told = monotonic_ns() / 1000000;
		} else if (told && monotonic_ns() / 1000000 - told >= STOP_GRACE_MS) {
			kill(pid, SIGKILL);
			return -ECANCELED;
		}
	}
}

int debuginfod_child__find(const uint8_t *id, size_t len, uint64_t max_bytes,
			   bool (*stop)(void *), void *stop_ctx, bool *cached)
{
	char hex[2 * MAX_ID_LEN + 1];
	int sv[2], fd;
	pid_t pid;

	*cached = false;
	if (!len || len > MAX_ID_LEN || !max_bytes)
		return -EINVAL;
	to_hex(id, len, hex);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	fd = spawn_child(hex, max_bytes, sv[1], &pid);
	close(sv[1]);
	if (fd == 0) {
		fd = await_answer(sv[0], pid, stop, stop_ctx, cached);
		/* it ends right after its answer, or was killed */
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	close(sv[0]);
	if (fd == -ECANCELED || (fd < 0 && stop(stop_ctx)))
		return -ECANCELED;
	return fd;
}

/* --- the child's side ------------------------------------------------------ */

static struct {
	uint64_t max_bytes;
	char tmp_infix[2 * MAX_ID_LEN + 16];	/* "/<hex>/debuginfo.": libdebuginfod's partial file */
	bool networked;			/* called back at all: not a cache hit */
	bool over;			/* the body passed max_bytes */
	bool stopped;			/* the parent said stop, or went away */
	volatile sig_atomic_t xfsz;	/* a write at RLIMIT_FSIZE */
} child;

static void on_xfsz(int sig)
{
	(void)sig;
	child.xfsz = 1;		/* the write then fails with EFBIG */
}

/*
 * The size of the file libdebuginfod is writing (<cache>/<hex>/
 * debuginfo.XXXXXX), found among our few descriptors; 0 when none. The
 * write that reaches RLIMIT_FSIZE is cut short without a signal, and
 * libcurl gives up: this is how that is told from other failures.
 */
static uint64_t partial_size(void)
{
	char target[4096];
	struct dirent *d;
	uint64_t size = 0;
	struct stat sb;
	ssize_t n;
	DIR *dir;

	dir = opendir("/proc/self/fd");
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		n = readlinkat(dirfd(dir), d->d_name, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strstr(target, child.tmp_infix) && !fstat(atoi(d->d_name), &sb) &&
		    S_ISREG(sb.st_mode) && (uint64_t)sb.st_size > size)
			size = sb.st_size;
	}
	closedir(dir);
	return size;
}

/*
 * a: the bytes of the body so far as received, before any decoding (a
 * count of calls before a server is chosen); b: its announced size.
 * Called after every read libcurl makes, and once more after the last.
 */
static int child_progress(debuginfod_client *c, long a, long b)
{
	struct pollfd p = { .fd = CHILD_FD, .events = POLLIN };

	(void)c;
	(void)b;
	child.networked = true;
	if ((a > 0 && (uint64_t)a > child.max_bytes) || partial_size() >= child.max_bytes) {
		child.over = true;
		return 1;	/* non-zero: libdebuginfod stops, removes what it wrote */
	}
	if (poll(&p, 1, 0) > 0) {
		child.stopped = true;
		return 1;
	}
	return 0;
}

static int parse_hex(const char *s, uint8_t *id, size_t *len)
{
	size_t n = strlen(s);

	if (!n || n % 2 || n / 2 > MAX_ID_LEN || s[strspn(s, "0123456789abcdef")])
		return -EINVAL;
	for (size_t i = 0; i < n / 2; i++)
		sscanf(s + 2 * i, "%2hhx", &id[i]);
	*len = n / 2;
	return 0;
}

/* Ours alone: bounded, cleaned up, told to stop by the parent only. */
static int child_limits(uint64_t max_bytes)
{
	struct sigaction sa = { .sa_handler = on_xfsz };
	struct rlimit rl;

	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGXFSZ, &sa, NULL) || getrlimit(RLIMIT_FSIZE, &rl))
		return -errno;
	/* lowering needs no privilege */
	if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > max_bytes)
		rl.rlim_max = max_bytes;
	rl.rlim_cur = rl.rlim_max;
	return setrlimit(RLIMIT_FSIZE, &rl) ? -errno : 0;
}

static int child_fetch(const uint8_t *id, size_t len, bool *cached)
{
	debuginfod_client *c;
	int fd, devnull;

	if (!debuginfod_child__available())
		return -ELIBACC;
	c = ldi.begin();
	if (!c)
		return -ENOMEM;
	/*
	 * libdebuginfod 0.188 dprintf()s to its verbose fd in places without
	 * checking there is one; its messages are not ours to print.
	 */
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (devnull >= 0)
		ldi.set_verbose_fd(c, devnull);
	/* libcurl sends this in place of its own list; it decodes any answer all the same */
	ldi.add_http_header(c, "Accept-Encoding: identity");
	ldi.set_progressfn(c, child_progress);
	fd = ldi.find_debuginfo(c, id, (int)len, NULL);
	/* a cache hit returns before any transfer, so before any progress call */
	*cached = fd >= 0 && !child.networked;
	if (fd < 0 && (child.over || child.xfsz))
		fd = -EFBIG;
	else if (fd < 0 && child.stopped)
		fd = -ECANCELED;
	return fd;
}

static void child_answer(int err, int fd, bool cached)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct child_answer ans = { .err = err, .cached = cached };
	struct iovec iov = { .iov_base = &ans, .iov_len = sizeof(ans) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (fd >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(fd));
	}
	while (sendmsg(CHILD_FD, &msg, MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

int debuginfod_child__main(int argc, char **argv)
{
	uint8_t id[MAX_ID_LEN];
	socklen_t tl = sizeof(int);
	size_t len = 0;
	bool cached = false;
	char *end = NULL;
	int type = 0, fd;

	if (argc != 4 || parse_hex(argv[2], id, &len) ||
	    getsockopt(CHILD_FD, SOL_SOCKET, SO_TYPE, &type, &tl) || type != SOCK_SEQPACKET)
		return -EINVAL;
	errno = 0;
	child.max_bytes = strtoull(argv[3], &end, 10);
	if (errno || *end || !child.max_bytes || argv[3][0] == '-')
		return -EINVAL;
	snprintf(child.tmp_infix, sizeof(child.tmp_infix), "/%s/debuginfo.", argv[2]);
	/* what profile's own parent left open without close-on-exec is not ours to hold */
	close_range(CHILD_FD + 1, ~0U, 0);
	fd = child_limits(child.max_bytes);
	if (!fd)
		fd = child_fetch(id, len, &cached);
	child_answer(fd < 0 ? fd : 0, fd, cached);
	return 0;
}
