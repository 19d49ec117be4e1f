// SPDX-License-Identifier: GPL-2.0
/*
 * test_aggregate.c - the process generations of an aggregate, whose
 * mappings name its user frames: each once, by pid then generation, and
 * only those with user stacks.
 */
#include "collect/aggregate.h"
#include "test_util.h"

struct seen_gens {
	uint32_t pid[8], gen[8];
	int nr;
	int stop_at;		/* fn fails at this call (1-based); 0: never */
};

static int note(uint32_t pid, uint32_t gen, void *ctx)
{
	struct seen_gens *s = ctx;

	cr_assert_lt(s->nr, 8);
	s->pid[s->nr] = pid;
	s->gen[s->nr] = gen;
	return ++s->nr == s->stop_at ? -EINTR : 0;
}

static void add(struct agg *a, uint32_t pid, uint32_t gen, uint64_t ip, bool user)
{
	uint64_t ips[] = { ip };
	struct agg_stack kern = { .ips = ips, .nr = 1 }, none = { .err = AGG_NO_STACK };
	struct agg_key key = { .pid = pid, .tid = pid, .gen = gen, .comm = "t" };

	cr_assert_eq(agg__add(a, &key, user ? &none : &kern, user ? &kern : &none, 1), 0);
}

Test(aggregate, each_generation_with_user_stacks_once_in_order)
{
	struct agg *a = agg__new();
	struct seen_gens s = { 0 };

	cr_assert_not_null(a);
	add(a, 300, 2, 0x1000, true);
	add(a, 20, 1, 0x1000, true);
	add(a, 300, 1, 0x2000, true);
	/* more stacks of the same generations, in between */
	for (uint64_t ip = 0x3000; ip < 0x3010; ip++) {
		add(a, 300, 2, ip, true);
		add(a, 20, 1, ip, true);
	}
	add(a, 7, 1, 0xffffffff81000000, false);	/* kernel stacks only: no mappings to read */
	cr_assert_eq(agg__for_each_gen(a, note, &s), 0);
	cr_assert_eq(s.nr, 3);
	cr_assert(s.pid[0] == 20 && s.gen[0] == 1);
	cr_assert(s.pid[1] == 300 && s.gen[1] == 1);
	cr_assert(s.pid[2] == 300 && s.gen[2] == 2);

	/* what fn returns stops it */
	s = (struct seen_gens){ .stop_at = 2 };
	cr_assert_eq(agg__for_each_gen(a, note, &s), -EINTR);
	cr_assert_eq(s.nr, 2);
	agg__free(a);
}
