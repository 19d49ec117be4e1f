/* SPDX-License-Identifier: GPL-2.0 */
/*
 * emit.h - one profile to where it goes: stdout, or -o FILE with its
 * strftime patterns expanded at the time the profile covers (outfile.h: a
 * regular file replaced atomically, a device, FIFO or /dev/stdout written
 * in place), then --keep's retention in the directory it was written to
 * (retention.h). For a sampled profile and one read with --from alike.
 */
#ifndef EMIT_H
#define EMIT_H

#include <stdio.h>
#include <time.h>

struct outfile_diag;

/* Where profiles go; profile.c fills it from the command line. */
struct emit_opts {
	const char *output;	/* -o's pattern; NULL: stdout */
	long keep;		/* --keep N: the newest N files of the pattern stay; 0: all */
};

/*
 * Write a profile with write_fn(f, ctx), which returns 0 or -errno, to
 * out (stdout) or to o->output expanded at when; a file is committed only when
 * write_fn succeeded, and then --keep applied. Returns 0 or -errno;
 * every failure but -EPIPE (the reader went away: no error) is said in
 * one line on err, naming the file.
 */
int emit__profile(const struct emit_opts *o, time_t when, FILE *out,
		  int (*write_fn)(FILE *f, void *ctx), void *ctx, FILE *err);

/* "profile: cannot write 'FILE': why", one line, control characters defused. */
void emit__print_outfile_error(FILE *err, const struct outfile_diag *diag);

#endif /* EMIT_H */
