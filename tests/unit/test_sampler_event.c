// SPDX-License-Identifier: GPL-2.0
/*
 * test_sampler_event.c - which perf event sampling uses, and that every CPU
 * uses the same one: cpu_events__open against a fake perf_event_open that
 * plays a machine with or without a PMU, at the rate and on the CPUs of
 * the sampler's options.
 */
#include <fcntl.h>

#include "collect/diagnose.h"
#include "collect/sample_event.h"
#include "collect/sampler_opts.h"
#include "test_util.h"

#define NR_CPUS 4

/* What the fake perf_event_open was asked, and what it answers. */
struct fake_pmu {
	int hw_err[NR_CPUS];	/* 0: cycles open on that CPU, else -errno */
	int sw_err[NR_CPUS];
	int calls;
	struct perf_event_attr attr[16];
	int cpu[16], fd[16];
};

static int fake_open(const struct perf_event_attr *attr, int cpu, void *ctx)
{
	struct fake_pmu *f = ctx;
	int err, fd;

	cr_assert_lt(f->calls, 16);
	cr_assert(cpu >= 0 && cpu < NR_CPUS, "cpu %d", cpu);
	f->attr[f->calls] = *attr;
	f->cpu[f->calls] = cpu;
	f->fd[f->calls] = -1;
	err = attr->type == PERF_TYPE_HARDWARE ? f->hw_err[cpu] : f->sw_err[cpu];
	f->calls++;
	if (err)
		return err;
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	f->fd[f->calls - 1] = fd;
	return fd;
}

/* A machine whose cycles event opens on no CPU (a VM without PMU). */
static void no_pmu(struct fake_pmu *f)
{
	for (int i = 0; i < NR_CPUS; i++)
		f->hw_err[i] = -ENOENT;
}

/* What -F 49 (the default) on every CPU asks of the sampler. */
#define RUN_AT_49HZ { .frequency = 49, .cpu = -1 }

static const bool all_online[NR_CPUS] = { true, true, true, true };

static bool is_cpu_clock(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_CPU_CLOCK;
}

static bool is_cycles(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_HARDWARE && a->config == PERF_COUNT_HW_CPU_CYCLES;
}

/* One event per CPU, each of them the kind is() accepts: no fallback, no mix. */
static void assert_all_cpus_on(const struct fake_pmu *f, const struct cpu_events *ce,
			       bool (*is)(const struct perf_event_attr *a))
{
	cr_assert_eq(ce->nr, NR_CPUS);
	cr_assert_eq(f->calls, NR_CPUS, "tried %d events for %d CPUs", f->calls, NR_CPUS);
	for (int i = 0; i < f->calls; i++)
		cr_assert(is(&f->attr[i]), "cpu %d: type %u config %llu", f->cpu[i],
			  f->attr[i].type, (unsigned long long)f->attr[i].config);
}

static void assert_closed(const struct fake_pmu *f)
{
	for (int i = 0; i < f->calls; i++)
		if (f->fd[i] >= 0)
			cr_assert_eq(fcntl(f->fd[i], F_GETFD), -1, "fd of cpu %d left open", f->cpu[i]);
}

/* BCC's profile samples cpu-clock: -F and -c count time, PMU or not. */
Test(sample_event, default_is_cpu_clock_where_cycles_would_open)
{
	struct sampler_opts o = RUN_AT_49HZ;
	struct fake_pmu f = { 0 };
	struct cpu_events ce;

	o.frequency = 99;
	cr_assert_eq(cpu_events__open(&ce, &o, all_online, NR_CPUS, fake_open, &f), 0);
	cr_assert_eq(ce.event, SAMPLE_EVENT_CPU_CLOCK);
	cr_assert_str_eq(sample_event__name(ce.event), "cpu-clock");
	assert_all_cpus_on(&f, &ce, is_cpu_clock);
	for (int i = 0; i < f.calls; i++)
		cr_assert(f.attr[i].freq && f.attr[i].sample_freq == 99);
	cpu_events__close(&ce);
	assert_closed(&f);
}

/* A PMU on CPU 0 only must not leave CPU 0 on cycles and the rest on cpu-clock. */
Test(sample_event, default_never_mixes_events)
{
	struct sampler_opts o = RUN_AT_49HZ;
	struct fake_pmu f = { 0 };
	struct cpu_events ce;

	no_pmu(&f);
	f.hw_err[0] = 0;
	o.frequency = 0;
	o.period = 1000000;
	cr_assert_eq(cpu_events__open(&ce, &o, all_online, NR_CPUS, fake_open, &f), 0);
	assert_all_cpus_on(&f, &ce, is_cpu_clock);
	for (int i = 0; i < f.calls; i++)
		cr_assert(!f.attr[i].freq && f.attr[i].sample_period == 1000000);
	cpu_events__close(&ce);
}

Test(sample_event, cycles_on_request)
{
	struct sampler_opts o = RUN_AT_49HZ;
	struct fake_pmu f = { 0 };
	struct cpu_events ce;

	o.event = SAMPLE_EVENT_CYCLES;
	cr_assert_eq(cpu_events__open(&ce, &o, all_online, NR_CPUS, fake_open, &f), 0);
	cr_assert_eq(ce.event, SAMPLE_EVENT_CYCLES);
	cr_assert_str_eq(sample_event__name(ce.event), "cycles");
	assert_all_cpus_on(&f, &ce, is_cycles);
	cpu_events__close(&ce);
}

/* Cycles asked for but one CPU has no PMU for them: fail, no cpu-clock anywhere. */
Test(sample_event, cycles_refused_on_one_cpu_fails_whole)
{
	struct sampler_opts o = RUN_AT_49HZ;
	struct fake_pmu f = { 0 };
	struct cpu_events ce;

	f.hw_err[2] = -ENOENT;
	o.event = SAMPLE_EVENT_CYCLES;
	cr_assert_eq(cpu_events__open(&ce, &o, all_online, NR_CPUS, fake_open, &f), -ENOENT);
	cr_assert_eq(ce.failed_cpu, 2);
	cr_assert_eq(ce.nr, 0);
	for (int i = 0; i < f.calls; i++)
		cr_assert(is_cycles(&f.attr[i]), "fell back to type %u on cpu %d", f.attr[i].type,
			  f.cpu[i]);
	assert_closed(&f);
	cpu_events__close(&ce);
}

Test(sample_event, cycles_without_pmu_fails_on_first_cpu)
{
	struct sampler_opts o = RUN_AT_49HZ;
	struct fake_pmu f = { 0 };
	struct cpu_events ce;

	no_pmu(&f);
	o.event = SAMPLE_EVENT_CYCLES;
	cr_assert_eq(cpu_events__open(&ce, &o, all_online, NR_CPUS, fake_open, &f), -ENOENT);
	cr_assert_eq(ce.failed_cpu, 0);
	cr_assert_eq(f.calls, 1);
	cpu_events__close(&ce);
}

/* -C and offline CPUs: only the CPUs that are there; gone meanwhile (ENODEV) skipped. */
Test(sample_event, online_cpus_and_cpu_filter)
{
	static const bool online[NR_CPUS] = { true, false, true, true };
	struct sampler_opts o = RUN_AT_49HZ;
	struct fake_pmu f = { 0 };
	struct cpu_events ce;

	f.sw_err[3] = -ENODEV;
	cr_assert_eq(cpu_events__open(&ce, &o, online, NR_CPUS, fake_open, &f), 0);
	cr_assert_eq(ce.nr, 2);
	cr_assert_eq(ce.cpus[0], 0);
	cr_assert_eq(ce.cpus[1], 2);
	cr_assert_eq(f.calls, 3);	/* 0, 2, 3 */
	cpu_events__close(&ce);

	memset(&f, 0, sizeof(f));
	o.cpu = 2;
	cr_assert_eq(cpu_events__open(&ce, &o, online, NR_CPUS, fake_open, &f), 0);
	cr_assert_eq(ce.nr, 1);
	cr_assert_eq(ce.cpus[0], 2);
	cr_assert_eq(f.calls, 1);
	cpu_events__close(&ce);
}

Test(sample_event, no_cpu_left_is_enodev)
{
	struct sampler_opts o = RUN_AT_49HZ;
	struct fake_pmu f = { 0 };
	struct cpu_events ce;

	for (int i = 0; i < NR_CPUS; i++)
		f.sw_err[i] = -ENODEV;
	cr_assert_eq(cpu_events__open(&ce, &o, all_online, NR_CPUS, fake_open, &f), -ENODEV);
	cr_assert_eq(ce.failed_cpu, -1);
	cpu_events__close(&ce);
}

Test(sample_event, names)
{
	cr_assert_eq(sample_event__parse("cpu-clock"), SAMPLE_EVENT_CPU_CLOCK);
	cr_assert_eq(sample_event__parse("cycles"), SAMPLE_EVENT_CYCLES);
	cr_assert_eq(sample_event__parse("cpu-cycles"), SAMPLE_EVENT_CYCLES);	/* perf's alias */
	cr_assert_eq(sample_event__parse("Cycles"), -EINVAL);
	cr_assert_eq(sample_event__parse(""), -EINVAL);
	cr_assert_eq(sample_event__parse(sample_event__name(SAMPLE_EVENT_CYCLES)), SAMPLE_EVENT_CYCLES);
	cr_assert_eq(sample_event__parse(sample_event__name(SAMPLE_EVENT_CPU_CLOCK)),
		     SAMPLE_EVENT_CPU_CLOCK);
}

/* The one line of a refused cycles event says what to do; cpu-clock's errno speaks for itself. */
Test(sample_event, hint_for_cycles_without_pmu)
{
	const char *h = diagnose__event_hint(SAMPLE_EVENT_CYCLES, -ENOENT);

	cr_assert_not_null(h);
	cr_assert_not_null(strstr(h, "PMU"), "'%s'", h);
	cr_assert_not_null(strstr(h, "cpu-clock"), "'%s'", h);
	cr_assert_not_null(diagnose__event_hint(SAMPLE_EVENT_CYCLES, -EOPNOTSUPP));
	cr_assert_null(diagnose__event_hint(SAMPLE_EVENT_CPU_CLOCK, -ENOENT));
	cr_assert_null(diagnose__event_hint(SAMPLE_EVENT_CYCLES, -EMFILE));
	cr_assert_not_null(diagnose__event_hint(SAMPLE_EVENT_CPU_CLOCK, -EACCES));
}
