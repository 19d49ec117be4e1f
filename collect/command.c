// SPDX-License-Identifier: GPL-2.0
/*
 * command.c - fork the command of profile -- CMD stopped on a pipe, let it
 * exec once sampling is attached, and reap it (command.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collect/command.h"

/* execvp()'s search path when PATH is unset */
#define DEFAULT_PATH "/bin:/usr/bin"

/* 0 for an executable regular file, else why not. */
static int check_file(const char *file)
{
	struct stat st;

	if (stat(file, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode) || access(file, X_OK))
		return -EACCES;
	return 0;
}

int command__check(const char *name, const char *path)
{
	char file[PATH_MAX];
	int found = -ENOENT;

	if (!*name)
		return -ENOENT;
	if (strchr(name, '/'))
		return check_file(name);
	if (!path)
		path = DEFAULT_PATH;
	for (const char *dir = path;; ) {
		size_t len = strcspn(dir, ":");
		int n, e;

		/* an empty element is the current directory */
		n = len ? snprintf(file, sizeof(file), "%.*s/%s", (int)len, dir, name)
			: snprintf(file, sizeof(file), "%s", name);
		if (n > 0 && (size_t)n < sizeof(file)) {
			e = check_file(file);
			if (!e)
				return 0;
			/* one that is there but cannot run: 126, unless another can */
			if (e != -ENOENT && e != -ENOTDIR)
				found = e;
		}
		if (!dir[len])
			break;
		dir += len + 1;
	}
	return found;
}

static void child(struct command *c, char *const argv[])
{
	ssize_t n;
	char go;
	int e;

	/*
	 * the name it takes, before the wait: its first samples (the read's
	 * return in the kernel, the exec) are under it, not the profiler's
	 */
	prctl(PR_SET_NAME, strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0]);
	do
		n = read(c->go_fd, &go, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(COMMAND_NOT_EXECUTABLE);	/* the profiler gave up: never ran */
	execvp(argv[0], argv);
	e = errno;
	if (write(c->err_fd, &e, sizeof(e)) != sizeof(e))
		e = ENOENT;
	_exit(e == ENOENT ? COMMAND_NOT_FOUND : COMMAND_NOT_EXECUTABLE);
}

int command__spawn(struct command *c, char *const argv[])
{
	int go[2], err[2];

	memset(c, 0, sizeof(*c));
	c->go_fd = c->err_fd = c->pidfd = -1;
	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC)) {
		int e = -errno;

		close(go[0]);
		close(go[1]);
		return e;
	}
	c->pid = fork();
	if (c->pid < 0) {
		int e = -errno;

		c->pid = 0;
		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		return e;
	}
	if (!c->pid) {
		close(go[1]);
		close(err[0]);
		c->go_fd = go[0];
		c->err_fd = err[1];
		child(c, argv);
	}
	close(go[0]);
	close(err[1]);
	c->go_fd = go[1];
	c->err_fd = err[0];
#ifdef SYS_pidfd_open
	c->pidfd = syscall(SYS_pidfd_open, c->pid, 0);
	if (c->pidfd >= 0)
		fcntl(c->pidfd, F_SETFD, FD_CLOEXEC);
#endif
	return 0;
}

int command__start(struct command *c)
{
	ssize_t n;
	int e = 0;

	if (write(c->go_fd, "x", 1) != 1)
		return -errno;
	close(c->go_fd);
	c->go_fd = -1;
	/* end of file: exec closed it (O_CLOEXEC) */
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	return n == sizeof(e) ? -e : 0;
}

int command__poll(struct command *c)
{
	pid_t r;

	if (!c->pid)
		return 1;
	r = waitpid(c->pid, &c->status, WNOHANG);
	if (r < 0)
		return -errno;
	if (!r)
		return 0;
	c->pid = 0;
	return 1;
}

int command__stop(struct command *c, int sig, int grace_ms)
{
	int r = command__poll(c);

	if (r)
		return r < 0 ? r : 0;
	kill(c->pid, sig);
	for (int waited = 0; waited < grace_ms; waited += 10) {
		r = command__poll(c);
		if (r)
			return r < 0 ? r : 0;
		usleep(10000);
	}
	kill(c->pid, SIGKILL);
	if (waitpid(c->pid, &c->status, 0) < 0)
		return -errno;
	c->pid = 0;
	return 0;
}

int command__exit_code(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

void command__release(struct command *c)
{
	bool started = c->go_fd < 0;

	if (c->go_fd >= 0)
		close(c->go_fd);	/* never started: it exits now */
	if (c->err_fd >= 0)
		close(c->err_fd);
	if (c->pidfd >= 0)
		close(c->pidfd);
	if (c->pid && !started)
		waitpid(c->pid, &c->status, 0);
	c->go_fd = c->err_fd = c->pidfd = -1;
}
