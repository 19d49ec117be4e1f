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
