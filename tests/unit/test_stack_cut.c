// SPDX-License-Identifier: GPL-2.0
/* test_stack_cut.c - a user stack ends at its first return address in no mapping. */
#include "output/stack_cut.h"
#include "test_util.h"

Test(stack_cut, a_return_address_in_no_mapping_ends_the_stack)
{
	struct usym sym = { .reason = USYM_NO_MAPPING };

	cr_assert(stack_cut__ends_at(1, &sym));
	cr_assert(stack_cut__ends_at(7, &sym));
}

Test(stack_cut, the_leaf_never_ends_it)
{
	struct usym sym = { .reason = USYM_NO_MAPPING };

	cr_assert_not(stack_cut__ends_at(0, &sym));
}

Test(stack_cut, other_unresolved_frames_do_not_end_it)
{
	const enum usym_reason other[] = {
		USYM_PROCESS_GONE, USYM_UNREADABLE, USYM_NO_DEBUGINFO, USYM_NO_SYMBOL,
		USYM_NO_PERFMAP,
	};

	for (size_t i = 0; i < ARRAY_SIZE(other); i++) {
		struct usym sym = { .reason = other[i] };

		cr_assert_not(stack_cut__ends_at(3, &sym), "reason %d", other[i]);
	}
}

Test(stack_cut, a_named_frame_does_not_end_it)
{
	struct usym sym = { .name = "perf_map_symbol", .reason = USYM_NO_MAPPING };

	cr_assert_not(stack_cut__ends_at(3, &sym));
}

/* Kernel frames by name, leaf first, for stack_cut__tracing_frames(). */
static const struct ksym *sym_at(size_t i, void *ctx)
{
	const struct ksym *const *syms = ctx;

	return syms[i];
}

static const struct ksym prog = { .name = "bpf_prog_6edd927e08a7a288_on_switch", .module = "bpf" },
			 sub = { .name = "bpf_prog_bcfafbf6d1a0786f_count_in_switch", .module = "bpf" },
			 run4 = { .name = "bpf_trace_run4" },
			 glue = { .name = "__bpf_trace_sched_switch" },
			 iter = { .name = "__traceiter_sched_switch" },
			 sched = { .name = "__schedule" }, schedule = { .name = "schedule" },
			 modfn = { .name = "bpf_trace_run4", .module = "evil" };

/* The program's frames and the glue that ran it lead the stack, as the kernel has them. */
Test(stack_cut, a_tracepoints_program_and_glue_are_the_profilers)
{
	const struct ksym *a[] = { &sub, &prog, &run4, &sched, &schedule };
	const struct ksym *b[] = { &prog, &run4, &glue, &iter, &sched };

	cr_assert_eq(stack_cut__tracing_frames(ARRAY_SIZE(a), sym_at, (void *)a), 3);
	cr_assert_eq(stack_cut__tracing_frames(ARRAY_SIZE(b), sym_at, (void *)b), 4);
}

/*
 * Anything else is the thread's: a stack that does not start in a BPF
 * program, one whose program no glue ran (a sample in another tool's
 * program), glue of a module's, a stack of the program alone.
 */
Test(stack_cut, other_stacks_are_left_whole)
{
	const struct ksym *a[] = { &sched, &run4, &schedule };
	const struct ksym *b[] = { &prog, &sched, &schedule };
	const struct ksym *c[] = { &prog, &modfn, &sched };
	const struct ksym *d[] = { &prog, &sub };
	const struct ksym *e[] = { NULL, &run4, &sched };

	cr_assert_eq(stack_cut__tracing_frames(ARRAY_SIZE(a), sym_at, (void *)a), 0);
	cr_assert_eq(stack_cut__tracing_frames(ARRAY_SIZE(b), sym_at, (void *)b), 0);
	cr_assert_eq(stack_cut__tracing_frames(ARRAY_SIZE(c), sym_at, (void *)c), 0);
	cr_assert_eq(stack_cut__tracing_frames(ARRAY_SIZE(d), sym_at, (void *)d), 0);
	cr_assert_eq(stack_cut__tracing_frames(ARRAY_SIZE(e), sym_at, (void *)e), 0);
	cr_assert_eq(stack_cut__tracing_frames(0, sym_at, NULL), 0);
}
