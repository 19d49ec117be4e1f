/* SPDX-License-Identifier: GPL-2.0 */
/*
 * command.h - profile -- CMD ARGS: the command is forked first and waits,
 * so that sampling is attached, with its pid in the filter, before it
 * execs; then it runs, and its end ends the run. Prints nothing.
 */
#ifndef COMMAND_H
#define COMMAND_H

#include <sys/types.h>

struct command {
	pid_t pid;		/* 0: not forked, or reaped */
	int go_fd;		/* a byte lets it exec; closed unwritten, it exits */
	int err_fd;		/* exec's errno, or end of file once it exec'd */
	int pidfd;		/* readable once it exits; -1 if the kernel has none */
	int status;		/* waitpid()'s, once reaped */
};

/* Exit status 127 (not found) and 126 (found, cannot be executed), as the shell's. */
#define COMMAND_NOT_FOUND 127
#define COMMAND_NOT_EXECUTABLE 126

/*
 * Whether name can be executed, as execvp() would look for it: with a
 * slash, that file; else in the directories of path (PATH; NULL: the
 * default). 0, -ENOENT (exit 127) or another -errno (exit 126).
 */
int command__check(const char *name, const char *path);

/*
 * Fork argv[0] stopped: it waits for command__start(). Before the
 * profiler changes its signals: the command gets them as they were.
 * 0 or -errno.
 */
int command__spawn(struct command *c, char *const argv[]);

/* Let it exec: 0, or -errno when exec failed (it has exited 126/127). */
int command__start(struct command *c);

/* Reap it if it has exited: 1 (c->status set), 0 still running, -errno. */
int command__poll(struct command *c);

/*
 * End it: sig now, SIGKILL after grace_ms if still running; reaped.
 * 0 or -errno.
 */
int command__stop(struct command *c, int sig, int grace_ms);

/* Its exit status as the shell gives it: the code, or 128 + the signal. */
int command__exit_code(int status);

/* Close the fds; a command never started exits, and is reaped. */
void command__release(struct command *c);

#endif /* COMMAND_H */
