// SPDX-License-Identifier: GPL-2.0
/*
 * test_cfi_cost.c - what a table may cost the thread that builds it: each
 * DW_CFA_remember_state that libdw runs is charged as the frame it copies
 * (a CIE that names register 128 makes every copy 129 rules), and a cap
 * on the thread's CPU stops a build that passes every other budget.
 */
#include <time.h>

#include "eh_frame_image.h"
#include "test_util.h"

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * An FDE libdw runs (rbp in r3 at its start), over rows rows a byte each,
 * whose program first has pad bytes: remember/restore pairs, or DW_CFA_nop;
 * its CIE names register 128 when wide.
 */
static int build_padded(bool pairs, size_t pad, size_t rows, bool wide, const struct budget *b,
			struct cfi_table *t)
{
	static const uint8_t same_128[] = { DW_CFA_same_value, 0x80, 0x01 };
	size_t n = 3 + pad + 3 * rows;
	uint8_t *ins = malloc(n), *p = ins;
	struct eh e = { 0 };
	int err;

	cr_assert_not_null(ins);
	*p++ = DW_CFA_register, *p++ = 6, *p++ = 3;
	for (size_t i = 0; i < pad; i++)
		*p++ = !pairs ? DW_CFA_nop : i % 2 ? DW_CFA_restore_state : DW_CFA_remember_state;
	for (size_t i = 0; i < rows; i++) {
		*p++ = DW_CFA_advance_loc | 1;
		*p++ = DW_CFA_def_cfa_offset;
		*p++ = i % 2 ? 8 : 16;
	}
	if (wide)
		eh_cie_with(&e, same_128, sizeof(same_128));
	else
		eh_cie(&e);
	eh_fde(&e, 0x1000, rows + 1, ins, n);
	err = eh_build(&e, b, t);
	free(ins);
	return err;
}

/*
 * 100,000 remember/restore pairs before each of 600 rows, a frame of 129
 * registers: 3 ms of libdw a row, refused after a few dozen rows, the
 * section's budget spent (when only the bytes were charged, 120 MB of the
 * 166 MB it may run, every row was run: 2 s); the same bytes as
 * DW_CFA_nop are run.
 */
Test(cfi_cost, remembers_are_charged_as_the_frames_libdw_copies)
{
	struct cfi_table t;

	cr_assert_eq(build_padded(true, 200000, 600, true, NULL, &t), -EFBIG,
		     "the remembers were run, not charged");
	cr_assert(strstr(budget__why(), "too long"), "%s", budget__why());
	cr_assert_eq(build_padded(false, 200000, 600, true, NULL, &t), 0, "%s", budget__why());
	cr_assert_eq(t.by_libdw, 1);
	cfi_table__release(&t);
}

/*
 * 400,000 pairs (800 KB) of a 129-register frame cost 19 Mi a row, past
 * what one row may: refused before libdw runs any (when only the bytes
 * were charged, all 50 rows were run, 12 ms each).
 */
Test(cfi_cost, a_row_that_costs_too_much_is_never_run)
{
	struct cfi_table t;
	uint64_t t0 = cpu_ns();

	cr_assert_eq(build_padded(true, 800000, 50, true, NULL, &t), -EFBIG,
		     "the remembers were run, not charged");
	cr_assert(strstr(budget__why(), "for each row"), "%s", budget__why());
	cr_assert_lt(cpu_ns() - t0, 100000000ull, "refused after %llu ns",
		     (unsigned long long)(cpu_ns() - t0));
}

/* A frame of libdw's 17 registers costs less a copy: a few of them are run. */
Test(cfi_cost, a_few_remembers_of_a_narrow_frame_are_run)
{
	struct cfi_table t;

	cr_assert_eq(build_padded(true, 2000, 50, false, NULL, &t), 0, "%s", budget__why());
	cr_assert_eq(t.by_libdw, 1);
	cfi_table__release(&t);
}

/*
 * 1 MB of DW_CFA_nop run for each of 400 rows passes the bytes' budget
 * (0.4 GB of the 1 GiB a table may run) and costs libdw most of a
 * second: a cap of 20 ms of CPU stops it within a few ms of the cap.
 */
Test(cfi_cost, a_build_past_its_cpu_cap_is_stopped)
{
	struct budget_cpu cpu = { .cap_ns = 20000000ull };
	struct budget b = *budget__default();
	struct cfi_table t;
	uint64_t took;

	b.cpu = &cpu;
	budget_cpu__start(&cpu);
	cr_assert_eq(build_padded(false, 1000000, 400, false, &b, &t), -ECANCELED);
	took = budget_cpu__stop(&cpu);
	cr_assert(cpu.over);
	cr_assert_lt(took, 80000000ull, "stopped after %llu ns", (unsigned long long)took);
	/* no cap started: none applies */
	cpu.over = false;
	cr_assert_eq(build_padded(false, 1000, 400, false, &b, &t), 0, "%s", budget__why());
	cfi_table__release(&t);
}
