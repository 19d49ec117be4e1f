// SPDX-License-Identifier: GPL-2.0
/*
 * The status line on a terminal (output/progress.c): its words, and when
 * it is not drawn at all.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>

#include "output/progress.h"

Test(progress, elapsed_of_the_duration_samples_processes)
{
	uint64_t st[STAT_MAX] = { [STAT_SAMPLES] = 2345 };
	char buf[160];

	progress__format(buf, sizeof(buf), 12.4, 30, st, 17);
	cr_assert_str_eq(buf, "profile: 12 of 30 s, 2345 samples, 17 processes");
	progress__format(buf, sizeof(buf), 3.0, 0, st, 1);
	cr_assert_str_eq(buf, "profile: 3 s, 2345 samples, 1 process");
}

Test(progress, losses_only_when_there_are_some)
{
	uint64_t st[STAT_MAX] = { [STAT_SAMPLES] = 10, [STAT_KSTACK_LOST] = 1,
				  [STAT_USTACK_LOST] = 2, [STAT_HASH_FULL] = 4,
				  [STAT_KSTACK_OVERFLOW] = 100 };
	char buf[160];

	progress__format(buf, sizeof(buf), 1, 5, st, 2);
	cr_assert_str_eq(buf, "profile: 1 of 5 s, 10 samples, 2 processes, 7 lost");
}

/* --off-cpu counts waits, not samples; --wall both; waits not timed are lost. */
Test(progress, waits_off_the_cpu)
{
	uint64_t st[STAT_MAX] = { [STAT_OFFCPU_BLOCKS] = 321, [STAT_OFFCPU_UNTIMED] = 2 };
	char buf[160];

	progress__format(buf, sizeof(buf), 1, 5, st, 2);
	cr_assert_str_eq(buf, "profile: 1 of 5 s, 321 waits, 2 processes, 2 lost");
	st[STAT_SAMPLES] = 10;
	progress__format(buf, sizeof(buf), 1, 5, st, 2);
	cr_assert_str_eq(buf, "profile: 1 of 5 s, 10 samples, 321 waits, 2 processes, 2 lost");
}

Test(progress, a_short_buffer_is_cut_not_overrun)
{
	uint64_t st[STAT_MAX] = { [STAT_SAMPLES] = 123456789, [STAT_HASH_FULL] = 5 };
	char buf[24];

	progress__format(buf, sizeof(buf), 100, 200, st, 99999);
	cr_assert_eq(strlen(buf), sizeof(buf) - 1);
	cr_assert_str_eq(buf, "profile: 100 of 200 s, ");
}

/* A terminal of our own (a pty): stderr may be a pipe under make. */
static FILE *open_terminal(int *master)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY), s;
	FILE *f;

	cr_assert_geq(m, 0);
	cr_assert_eq(grantpt(m), 0);
	cr_assert_eq(unlockpt(m), 0);
	s = open(ptsname(m), O_RDWR | O_NOCTTY);
	cr_assert_geq(s, 0);
	f = fdopen(s, "w");
	cr_assert_not_null(f);
	cr_assert(isatty(fileno(f)));
	*master = m;	/* closed after the terminal's end */
	return f;
}

/* A file, -q, -v, folded lines onto the same terminal: no line; else one. */
Test(progress, none_where_it_would_be_noise)
{
	struct progress_opts o = { .duration = 5 };
	int master;
	FILE *f = tmpfile(), *tty = open_terminal(&master);
	struct progress *p;

	cr_assert_not_null(f);
	cr_assert_null(progress__new(&o, f, STDOUT_FILENO), "drawn into a file");
	fclose(f);
	p = progress__new(&o, tty, -1);
	cr_assert_not_null(p, "no line on a terminal");
	progress__free(p);
	o.quiet = true;
	cr_assert_null(progress__new(&o, tty, -1));
	o.quiet = false;
	o.verbose = true;
	cr_assert_null(progress__new(&o, tty, -1));
	o.verbose = false;
	/* folded output onto that terminal too */
	o.folded_to_stdout = true;
	cr_assert_null(progress__new(&o, tty, fileno(tty)));
	o.folded_to_stdout = false;	/* -o out.folded */
	p = progress__new(&o, tty, fileno(tty));
	cr_assert_not_null(p, "folded into a file: the line stays");
	progress__free(p);
	fclose(tty);
	close(master);
}
