/* SPDX-License-Identifier: GPL-2.0 */
/*
 * progress.h - one status line on a terminal while sampling: elapsed of
 * the duration, samples so far, processes seen, losses if any, redrawn
 * about once a second and cleared before a profile is printed. Only where
 * a person watches it: stderr a terminal, not -q, not -v (its lines would
 * break it), not folded output onto the same terminal. Nothing per
 * sample: the caller reads the per-CPU stats map once a tick.
 */
#ifndef PROGRESS_H
#define PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/types.h>

#include "profile.h"

struct progress;

/* Whether a person watches the terminal; profile.c fills it from the command line. */
struct progress_opts {
	long duration;			/* seconds; 0: until stopped */
	bool quiet, verbose;		/* -q, -v: no line (-v's lines would break it) */
	bool command;			/* -- CMD: the terminal is the command's */
	bool folded_to_stdout;		/* folded lines on stdout (no -o): not onto the same terminal */
};

/* NULL when the line would be noise, or out of memory (then none either). */
struct progress *progress__new(const struct progress_opts *o, FILE *err, int out_fd);

/* "profile: 12 of 30 s, 2345 samples, 17 processes, 3 lost" into buf. */
void progress__format(char *buf, size_t size, double elapsed, long duration,
		      const uint64_t stats[STAT_MAX], size_t procs);

/* Draw the line over the last one. p may be NULL. */
void progress__show(struct progress *p, double elapsed, const uint64_t stats[STAT_MAX],
		    size_t procs);

/* Erase the line, if shown, before anything else is written. p may be NULL. */
void progress__clear(struct progress *p);

void progress__free(struct progress *p);

#endif /* PROGRESS_H */
