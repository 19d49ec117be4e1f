// SPDX-License-Identifier: GPL-2.0
/*
 * report_header.c - what a run samples, in words: the line profile(8)
 * prints before a text profile, and the title of SVG and pprof output
 * (report.h).
 */
#include <stdio.h>
#include <unistd.h>

#include "output/report.h"

void report__print_header(const struct report_opts *o, FILE *f)
{
	const char *stacks = o->user_only ? "user" : o->kernel_only ? "kernel" : "user + kernel";
	char who[256] = "all threads";

	/* folded output says its unit too, but not among its lines */
	if (o->format == FORMAT_FOLDED && (o->off_cpu || o->wall))
		f = stderr;
	else if (o->format != FORMAT_TEXT)
		return;
	if (o->quiet || o->to_file)
		return;
	if (o->pid_arg)
		snprintf(who, sizeof(who), "PID %s", o->pid_arg);
	else if (o->tid_arg)
		snprintf(who, sizeof(who), "TID %s", o->tid_arg);
	else if (o->command)
		snprintf(who, sizeof(who), "%s and its children", o->command);
	else if (o->nr_cgroups == 1)
		snprintf(who, sizeof(who), "all threads in cgroup %s", o->cgroups[0]);
	else if (o->nr_cgroups)
		snprintf(who, sizeof(who), "all threads in %zu cgroups", o->nr_cgroups);
	if (o->off_cpu)
		fprintf(f, "Tracing off-CPU time (us) of %s by %s stack", who, stacks);
	else if (o->wall && o->period)
		fprintf(f, "Wall-clock time (us): on-CPU sampled at every %ld ns plus off-CPU time, of %s by %s stack",
			o->period, who, stacks);
	else if (o->wall)
		fprintf(f, "Wall-clock time (us): on-CPU sampled at %ld Hertz plus off-CPU time, of %s by %s stack",
			o->frequency, who, stacks);
	else if (o->period)
		fprintf(f, "Sampling at every %ld events of %s by %s stack", o->period, who, stacks);
	else
		fprintf(f, "Sampling at %ld Hertz of %s by %s stack", o->frequency, who, stacks);
	/* -p stops when its processes have exited: the duration is a bound */
	if (o->command && o->duration)
		fprintf(f, " until it exits, for at most %ld secs.\n", o->duration);
	else if (o->command)
		fprintf(f, " until it exits.\n");
	else if (o->nr_pids && o->duration)
		fprintf(f, " until %s, for at most %ld secs.\n",
			o->nr_pids > 1 ? "they exit" : "it exits", o->duration);
	else if (o->nr_pids)
		fprintf(f, " until %s... Hit Ctrl-C to end.\n",
			o->nr_pids > 1 ? "they exit" : "it exits");
	else if (o->duration)
		fprintf(f, " for %ld secs.\n", o->duration);
	else
		fprintf(f, "... Hit Ctrl-C to end.\n");
	fflush(f);
}

void report__title(const struct report_opts *o, char *buf, size_t size)
{
	char host[256] = "";
	int n;

	gethostname(host, sizeof(host) - 1);
	if (o->off_cpu)
		n = snprintf(buf, size, "profile --off-cpu");
	else if (o->period)
		n = snprintf(buf, size, "profile%s -c %ld", o->wall ? " --wall" : "", o->period);
	else
		n = snprintf(buf, size, "profile%s -F %ld", o->wall ? " --wall" : "", o->frequency);
	if (n < 0 || (size_t)n >= size)
		return;
	/* which, as the header says them: -p 185 is "PID 185" */
	if (o->nr_pids && o->pid_arg)
		n += snprintf(buf + n, size - n, " of PID %s", o->pid_arg);
	else if (o->nr_tids && o->tid_arg)
		n += snprintf(buf + n, size - n, " of TID %s", o->tid_arg);
	else if (o->command)
		n += snprintf(buf + n, size - n, " of %s and its children", o->command);
	else if (o->nr_cgroups)
		n += snprintf(buf + n, size - n, " of all threads in %zu cgroup%s", o->nr_cgroups,
			      o->nr_cgroups > 1 ? "s" : "");
	else
		n += snprintf(buf + n, size - n, " of all threads");
	if (n > 0 && (size_t)n < size)
		snprintf(buf + n, size - n, ", %s stacks on %s",
			 o->user_only ? "user" : o->kernel_only ? "kernel" : "user + kernel", host);
}
