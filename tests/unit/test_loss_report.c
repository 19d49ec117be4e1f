// SPDX-License-Identifier: GPL-2.0
/*
 * test_loss_report.c - the end-of-run lines: each loss names the option
 * that avoids it, nothing is said when nothing was lost, -v adds the
 * statistics and lists the frames without symbols.
 */
#include "output/loss_report.h"
#include "test_util.h"

static struct loss_report_opts opts = {
	.stack_storage_size = 16384,
	.hash_storage_size = 40960,
};

/* loss_report__print() of t into a string the caller frees. */
static char *print(const struct run_totals *t)
{
	char *text;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	loss_report__print(f, &opts, t);
	cr_assert_eq(fclose(f), 0);
	return text;
}

Test(loss_report, nothing_lost_nothing_said)
{
	struct run_totals t = { .stats = { [STAT_SAMPLES] = 100 }, .event = "cpu-clock" };
	char *text = print(&t);

	cr_assert_str_empty(text);
	free(text);
}

Test(loss_report, each_loss_names_its_option)
{
	struct run_totals t = { .event = "cpu-clock" };
	char *text;

	t.stats[STAT_SAMPLES] = 100;
	t.stats[STAT_USTACK_LOST] = 3;
	t.stats[STAT_HASH_FULL] = 7;
	text = print(&t);
	cr_assert_str_eq(text,
		"profile: 0 kernel and 3 user stacks lost, stack map and overflow map full; raise --stack-storage-size (now 16384) or --hash-storage-size (now 40960)\n"
		"profile: 7 samples dropped, count hash full; raise --hash-storage-size (now 40960)\n");
	free(text);
}

/* The maps sized from the run's rate and length: the sizes they had. */
Test(loss_report, losses_name_the_sizes_the_maps_had)
{
	struct run_totals t = { .event = "cpu-clock", .stack_entries = 8192, .count_entries = 1024 };
	char *text;

	t.stats[STAT_SAMPLES] = 100;
	t.stats[STAT_KSTACK_LOST] = 1;
	t.stats[STAT_HASH_FULL] = 2;
	text = print(&t);
	cr_assert_str_eq(text,
		"profile: 1 kernel and 0 user stacks lost, stack map and overflow map full; raise --stack-storage-size (now 8192) or --hash-storage-size (now 1024)\n"
		"profile: 2 samples dropped, count hash full; raise --hash-storage-size (now 1024)\n");
	free(text);
}

Test(loss_report, no_samples_is_said)
{
	struct run_totals t = { .event = "cpu-clock" };
	char *text = print(&t);

	cr_assert_str_eq(text, "profile: no samples collected (were the targets on CPU?)\n");
	free(text);
}

Test(loss_report, verbose_adds_the_statistics)
{
	struct run_totals t = { .event = "cycles", .printed = 90, .nr_files = 4, .nr_gens = 2,
				.nr_readings = 5, .nr_same_readings = 2, .held = { .files = 3, .files_freed = 1 } };
	char *text;

	t.stats[STAT_SAMPLES] = 100;
	t.stats[STAT_HASH_FULL] = 10;
	t.stats[STAT_NEW_PID_LOST] = 1;
	opts.verbose = true;
	text = print(&t);
	opts.verbose = false;
	cr_assert_not_null(strstr(text, "profile: 1 new-process notices lost"), "%s", text);
	cr_assert_not_null(strstr(text, "profile: event cycles, 100 samples, 90 printed, 10 dropped, 0 of profile itself left out (--include-self keeps them), 0+0 kernel+user stacks kept in the overflow map, 4 ELF files read (3 symbol tables held at the end, 1 freed with the last process mapping them), 2 process generations held, /proc/PID/maps read 5 times (for symbols, unwind tables and Python; 2 of them found nothing new), 0 execs of sampled processes\n"),
			   "%s", text);
	free(text);
}

/*
 * --off-cpu: the time that could not be counted is said, in seconds, and
 * the waits that could not be timed; no word of samples, which it takes none of.
 */
Test(loss_report, off_cpu_time_not_counted_is_said)
{
	struct offcpu_drain_stats o = { .lost = 2, .lost_ns = 1500000000 };
	struct run_totals t = { .event = "sched_switch", .offcpu = &o };
	char *text;

	t.stats[STAT_OFFCPU_BLOCKS] = 100;
	t.stats[STAT_OFFCPU_UNTIMED] = 3;
	t.stats[STAT_OFFCPU_LOST_NS] = 250000000;
	opts.off_cpu = true;
	text = print(&t);
	cr_assert_str_eq(text,
		"profile: 3 waits off CPU not timed: more than 16384 threads waited at once\n"
		"profile: 0.250000 s off CPU not counted, count hash full (or more than 16384 waits ended between two drains); raise --hash-storage-size (now 40960)\n"
		"profile: 2 waits (1.500000 s off CPU) not counted: they ended after a drain and their stacks were not kept (more than 16384 waits carried at once)\n");
	free(text);
	/* nothing waited */
	memset(t.stats, 0, sizeof(t.stats));
	o = (struct offcpu_drain_stats){ 0 };
	text = print(&t);
	opts.off_cpu = false;
	cr_assert_str_eq(text, "profile: no off-CPU time collected (did the targets wait?)\n");
	free(text);
}

/* loss_report__unresolved() over a usyms that failed on pid 4444 (no such process). */
static char *unresolved(bool verbose)
{
	char *proc = make_tmpdir(), *text;
	struct usyms *u = usyms__new(proc);
	struct usym sym;
	size_t len;
	FILE *f;

	cr_assert_not_null(u);
	cr_assert_eq(usyms__resolve_weighted(u, 4444, 0x1000, 7, &sym), -ENOENT);
	f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	loss_report__unresolved(f, u, verbose, false, NULL);
	cr_assert_eq(fclose(f), 0);
	usyms__free(u);
	rm_rf(proc);
	return text;
}

Test(loss_report, frames_without_symbols_one_line_or_a_list)
{
	char *text = unresolved(false);

	cr_assert_str_eq(text, "profile: frames without symbols: 7, in 1 files or regions (-v lists them)\n");
	free(text);
	text = unresolved(true);
	cr_assert_str_eq(text, "profile: [unknown]: 7 samples without symbols (process exited or exec'd before its mappings were read)\n");
	free(text);
}

/* loss_report__fetches() of st with the options given, into a string the caller frees. */
static char *print_fetches(const struct loss_report_opts *e, const struct debuginfod_fetch_stats *st)
{
	char *text;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	loss_report__fetches(f, e, st);
	cr_assert_eq(fclose(f), 0);
	return text;
}

/*
 * Debug files not asked for, for the bounds on what a run and a user may
 * make us fetch, are a loss: said without -v (not with -q), each bound
 * by its option.
 */
Test(loss_report, debug_files_not_asked_for_are_said)
{
	struct loss_report_opts e = { .debuginfod_max_files = 256, .debuginfod_max_user_files = 16 };
	struct debuginfod_fetch_stats st = { .fetched = 2 };
	const char *vline = "profile: debuginfod: 2 debug files fetched, 0 cached, 0 failed, "
			    "0 too big, 0 timed out, 4 not asked for, in 0.0 s\n";
	char *text;

	text = print_fetches(&e, &st);
	cr_assert_str_empty(text, "nothing lost: %s", text);
	free(text);
	st.over_user_files = 3;
	st.over_files = 1;
	text = print_fetches(&e, &st);
	cr_assert_str_eq(text,
			 "profile: debuginfod: 1 debug file not asked for: over --debuginfod-max-files (256 a run)\n"
			 "profile: debuginfod: 3 debug files not asked for: over --debuginfod-max-user-files (16 for the files of one user)\n");
	free(text);
	e.verbose = true;
	text = print_fetches(&e, &st);
	cr_assert(!strncmp(text, vline, strlen(vline)), "-v: %s", text);
	cr_assert(strstr(text, "\nprofile: debuginfod: 1 debug file not asked for: "), "-v: %s", text);
	free(text);
	e.verbose = false;
	e.quiet = true;
	text = print_fetches(&e, &st);
	cr_assert_str_empty(text, "-q: %s", text);
	free(text);
}

/* -- CMD: the forks of its processes that could not be followed are counted. */
Test(loss_report, children_not_followed_are_said)
{
	struct run_totals t = { .event = "cpu-clock" };
	char *text;

	t.stats[STAT_SAMPLES] = 100;
	t.stats[STAT_FOLLOW_LOST] = 4;
	text = print(&t);
	cr_assert_str_eq(text,
		"profile: 4 forks of the command's processes not followed, their processes not sampled: the maps hold 16384 of its processes and 16384 new tasks at once\n");
	free(text);
}
