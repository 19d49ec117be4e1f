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

#endif /* FROM_INPUT_H */
