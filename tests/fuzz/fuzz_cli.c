// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_cli.c - cli__parse on an argument vector built from the input
 * (arguments separated by NUL bytes, "profile" as argv[0]), output and
 * errors to /dev/null. A successful parse is consistent: no conflicting
 * options, numbers in range, lists non-empty, the format -o's extension
 * names, a command after "--" within argv.
 */
#include "cli.h"
#include "fuzz.h"

#define MAX_ARGS 64

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_ARGS + 2];
	struct profile_env env;
	int res;
	size_t off = 0;
	int argc = 0;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (!devnull)
		return 0;
	argv[argc++] = strdup("profile");
	/* each argument its own allocation: ASan sees reads past its end */
	while (off < size && argc <= MAX_ARGS) {
		const uint8_t *nul = memchr(data + off, '\0', size - off);
		size_t len = nul ? (size_t)(nul - (data + off)) : size - off;

		argv[argc++] = fuzz_strndup(data + off, len);
		off += len + 1;
	}
	argv[argc] = NULL;
	for (int i = 0; i < argc; i++)
		if (!argv[i])
			goto out;

	res = cli__parse(argc, argv, &env, devnull, devnull);
	FUZZ_CHECK(res == 0 || res == CLI_DONE || (res < 0 && res > -4096));
	if (res == 0) {
		FUZZ_CHECK(!(env.user_only && env.kernel_only));
		FUZZ_CHECK(!(env.nr_pids && env.nr_tids));
		FUZZ_CHECK((env.frequency > 0) != (env.period > 0));
		FUZZ_CHECK(env.duration >= 0 && env.interval >= 0 && env.cpu >= -1);
		FUZZ_CHECK(env.stack_storage_size > 0 && env.hash_storage_size > 0 &&
			   env.max_stack_depth > 0);
		FUZZ_CHECK(env.folded == (env.format == FORMAT_FOLDED));
		FUZZ_CHECK(!env.nr_pids || env.pids);
		FUZZ_CHECK(!env.nr_tids || env.tids);
		for (size_t i = 0; i < env.nr_pids; i++)
			FUZZ_CHECK(env.pids[i] > 0);
		for (size_t i = 0; i < env.nr_tids; i++)
			FUZZ_CHECK(env.tids[i] > 0);
		for (size_t i = 0; i < env.nr_debug_dirs; i++)
			fuzz_touch(env.debug_dirs[i]);
		FUZZ_CHECK(!env.output || fuzz_touch(env.output) > 0);
		/* -o's extension, where it names a format, is the format */
		if (env.output && output_format__from_path(env.output, NULL) >= 0)
			FUZZ_CHECK(output_format__from_path(env.output, NULL) == (int)env.format);
		/* -- CMD: a non-empty name, NULL-terminated, never with -p or -L */
		if (env.command) {
			FUZZ_CHECK(!env.nr_pids && !env.nr_tids);
			FUZZ_CHECK(fuzz_touch(env.command[0]) > 0);
			for (char **a = env.command + 1; *a; a++)
				fuzz_touch(*a);
		}
	}
	if (res < 0)
		FUZZ_CHECK(!env.pids && !env.tids && !env.debug_dirs);
	/*
	 * cli__release after every result: after an error it is a no-op, and
	 * after CLI_DONE (--help, --version) it frees what options before
	 * those parsed (-p 1 --help).
	 */
	cli__release(&env);
out:
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	return 0;
}
