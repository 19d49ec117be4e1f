/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli_options.h - profile(8)'s options as one table (cli_options.c), for
 * cli*.c only. A row per option gives its names, its argument, its help
 * and what it sets; getopt_long()'s tables, --help, "did you mean" and the
 * options --from refuses are all made from the table, so an option is
 * added by adding its row (and its field in struct profile_env).
 */
#ifndef CLI_OPTIONS_H
#define CLI_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli.h"

/* What one cli__parse() call has seen so far. */
struct parser {
	struct profile_env *env;
	FILE *out, *err;
	bool format_set;	/* -f or --format given */
	bool folded_flag;	/* as -f */
	bool event_set;		/* -e given */
	/* the first option given that only sampling takes (CLI_SAMPLING), or NULL */
	const struct cli_option *sampling_opt;
};

/* The row says how to sample, unwind or name frames: --from refuses it. */
#define CLI_SAMPLING (1u << 0)

struct cli_option {
	const char *name;	/* the long name */
	int key;		/* the short letter, or 0: a long name only */
	const char *arg;	/* the argument as --help names it ("HZ"); NULL: none */
	unsigned int flags;	/* CLI_* */
	const char *help;	/* --help's text, its lines split by '\n' */
	/* Take the option (arg NULL when it takes none): 0, CLI_DONE, or -errno after one line. */
	int (*set)(struct parser *p, const struct cli_option *o, const char *arg);
	/* what the generic setters set: a field of struct profile_env by offset */
	size_t field;
	size_t given;		/* a bool set when the option is given (cli_number_given) */
	long min, max;		/* a number's range */
	bool value;		/* a flag's value */
	const char *empty;	/* a string's message when it is empty */
};

/* A long name only is known to getopt_long() by CLI_LONG_ONLY + its row. */
#define CLI_LONG_ONLY 256

/* getopt_long()'s long options (ended by a zeroed entry) and short ones. */
void cli_options__getopt(const struct option **longs, const char **shorts);

/* The row of what getopt_long() returned; NULL for '?' and ':'. */
const struct cli_option *cli_options__find(int val);

/* "-F/--frequency" or "--lines": the option as --help spells it. */
void cli_options__print_name(FILE *f, const struct cli_option *o);

/* --help */
void cli_options__print_help(FILE *f);

/*
 * A whole number in [min, max], what naming it in the message: 0, or
 * -errno after "profile: invalid what 'arg'" or "... out of range".
 */
int cli_options__number(struct parser *p, const char *what, const char *arg, long min, long max,
			long *out);

/* --from FILE, and the operands after it: one more file to read. */
int cli_options__add_from(struct parser *p, const char *path);

#endif /* CLI_OPTIONS_H */
