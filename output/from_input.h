/* SPDX-License-Identifier: GPL-2.0 */
/*
 * from_input.h - profile --from FILE: profiles read back from files
 * (folded stacks or pprof) into one pf_build, and written in any output
 * format by the writers a sampled profile goes through.
 *
 * Which reader a file gets: pprof when its name ends in .pb.gz, .pb or
 * .pprof, or its first bytes are gzip's; folded stacks otherwise. "-" is
 * standard input (folded, or gzip'd pprof).
 */
#ifndef FROM_INPUT_H
#define FROM_INPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "output/emit.h"
#include "output/output_format.h"
#include "output/pf_build.h"

/*
 * Add the stacks of path to b. Returns 0, or -errno with err->why saying
 * what (err->line the line of a folded file, 0 for none): -ENOENT and
 * the like when it cannot be opened, -EINVAL when malformed, -E2BIG past
 * b's limits.
 */
int from_input__read(struct pf_build *b, const char *path, struct pf_read_error *err);

/* How to write what was read: the options of a sampled profile's output that apply. */
struct from_output {
	enum output_format format;
	bool delimited;		/* -d */
	bool annotations;	/* -a */
};

/*
 * Write p to out in o->format. Text and folded stacks have their user
 * frames first and their kernel frames after (a kernel frame amid user
 * frames is printed as a user one). Returns 0, or -errno of the write
 * (-EPIPE when the reader went away), -ENOMEM.
 */
int from_input__write(const struct pf_profile *p, const struct from_output *o, FILE *out);

/* What --from reads and how it is written; profile.c fills it from the command line. */
struct from_opts {
	const char *const *files;	/* read in this order, merged */
	size_t nr_files;
	struct from_output out;		/* the format and its options */
	struct emit_opts emit;		/* -o and --keep */
	bool quiet;			/* no line on what was read */
};

/* from_input__convert(): a file could not be read or was refused (an exit status of 2). */
#define FROM_INPUT_REFUSED 1

/*
 * Read every file of o into one profile and write it as a sampled one is
 * written (emit.h): to out, or to -o's file. Unless quiet, then one line
 * on err of what was read. Returns 0; FROM_INPUT_REFUSED after one line
 * naming the file and why; or -errno of the write (said in one line,
 * but -EPIPE: the reader went away) or -ENOMEM.
 */
int from_input__convert(const struct from_opts *o, FILE *out, FILE *err);

#endif /* FROM_INPUT_H */
