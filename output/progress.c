// SPDX-License-Identifier: GPL-2.0
/*
 * progress.c - the status line on a terminal while sampling (progress.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "output/progress.h"

/* Back to the start of the line, and erase to its end. */
#define ERASE_LINE "\r\033[K"

struct progress {
	FILE *f;
	long duration;
	bool shown;
};

struct progress *progress__new(const struct progress_opts *o, FILE *err, int out_fd)
{
	struct progress *p;

	/* -- CMD: the terminal is the command's */
	if (o->quiet || o->verbose || o->command || !isatty(fileno(err)))
		return NULL;
	/* folded lines onto the terminal the line is drawn on: no */
	if (o->folded_to_stdout && isatty(out_fd))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->f = err;
	p->duration = o->duration;
	return p;
}

void progress__format(char *buf, size_t size, double elapsed, long duration,
		      const uint64_t stats[STAT_MAX], size_t procs)
{
	uint64_t lost = stats[STAT_KSTACK_LOST] + stats[STAT_USTACK_LOST] + stats[STAT_HASH_FULL] +
			stats[STAT_OFFCPU_UNTIMED];
	uint64_t waits = stats[STAT_OFFCPU_BLOCKS];
	int n;

	if (elapsed < 0)
		elapsed = 0;
	if (duration)
		n = snprintf(buf, size, "profile: %.0f of %ld s", elapsed, duration);
	else
		n = snprintf(buf, size, "profile: %.0f s", elapsed);
	if (n < 0 || (size_t)n >= size)
		return;
	/* --off-cpu counts waits, --wall both */
	if (stats[STAT_SAMPLES] || !waits)
		n += snprintf(buf + n, size - n, ", %llu samples", (unsigned long long)stats[STAT_SAMPLES]);
	if (waits && n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - n, ", %llu waits", (unsigned long long)waits);
	if (n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - n, ", %zu process%s", procs, procs == 1 ? "" : "es");
	if (lost && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - n, ", %llu lost", (unsigned long long)lost);
}

void progress__show(struct progress *p, double elapsed, const uint64_t stats[STAT_MAX],
		    size_t procs)
{
	struct winsize ws;
	char line[160];

	if (!p)
		return;
	progress__format(line, sizeof(line), elapsed, p->duration, stats, procs);
	/* a line that wraps would not be erased whole: cut to the width */
	if (!ioctl(fileno(p->f), TIOCGWINSZ, &ws) && ws.ws_col > 1 && strlen(line) >= ws.ws_col)
		line[ws.ws_col - 1] = 0;
	fprintf(p->f, ERASE_LINE "%s", line);
	fflush(p->f);
	p->shown = true;
}

void progress__clear(struct progress *p)
{
	if (!p || !p->shown)
		return;
	fputs(ERASE_LINE, p->f);
	fflush(p->f);
	p->shown = false;
}

void progress__free(struct progress *p)
{
	progress__clear(p);
	free(p);
}
