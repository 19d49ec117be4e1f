/*
 * cmdburn - a command for profile -- CMD (tests/integration/command.sh):
 *   startup        burn 200 ms in startup_burn, then 300 ms in steady_burn
 *   fork           fork a child (comm "cmdchild") that forks a grandchild
 *                  (comm "cmdgrandchild") at once; they burn 400 ms in
 *                  child_burn and grandchild_burn, the parent 400 ms in
 *                  parent_burn, then waits for them
 *   exit CODE      burn 100 ms, exit CODE
 *   signal SIG     burn 100 ms, die of signal SIG
 *   spin SECS      burn SECS seconds in spin_burn, Ctrl-C-able (SIGINT default)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "burn.h"

__attribute__((noinline)) static void startup_burn(void) { BURN_FOR(0.2); }
__attribute__((noinline)) static void steady_burn(void) { BURN_FOR(0.3); }
__attribute__((noinline)) static void parent_burn(void) { BURN_FOR(0.4); }
__attribute__((noinline)) static void child_burn(void) { BURN_FOR(0.4); }
__attribute__((noinline)) static void grandchild_burn(void) { BURN_FOR(0.4); }
__attribute__((noinline)) static void short_burn(void) { BURN_FOR(0.1); }
__attribute__((noinline)) static void spin_burn(double secs) { BURN_FOR(secs); }

static int forks(void)
{
	pid_t child = fork();

	if (child < 0)
		return 1;
	if (!child) {
		pid_t grandchild = fork();

		if (!grandchild) {
			prctl(PR_SET_NAME, "cmdgrandchild");
			grandchild_burn();
			_exit(0);
		}
		prctl(PR_SET_NAME, "cmdchild");
		child_burn();
		if (grandchild > 0)
			waitpid(grandchild, NULL, 0);
		_exit(0);
	}
	parent_burn();
	waitpid(child, NULL, 0);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "startup")) {
		startup_burn();
		steady_burn();
		return 0;
	}
	if (!strcmp(mode, "fork"))
		return forks();
	if (!strcmp(mode, "exit") && argc > 2) {
		short_burn();
		return atoi(argv[2]);
	}
	if (!strcmp(mode, "signal") && argc > 2) {
		short_burn();
		signal(atoi(argv[2]), SIG_DFL);
		raise(atoi(argv[2]));
		return 1;
	}
	if (!strcmp(mode, "spin") && argc > 2) {
		/* a background job of a script starts with SIGINT ignored */
		signal(SIGINT, SIG_DFL);
		spin_burn(atof(argv[2]));
		return 0;
	}
	fprintf(stderr, "usage: cmdburn startup|fork|exit CODE|signal SIG|spin SECS\n");
	return 2;
}
