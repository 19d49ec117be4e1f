// SPDX-License-Identifier: GPL-2.0
/*
 * test_offcpu_drain.c - off-CPU time at the drains (collect/offcpu_drain.h,
 * the weights of collect/map_drain.c): waits carried past a drain and
 * counted when they end, with the stacks of the set they began in; on
 * real BPF maps made here (root, CAP_BPF) for the drain itself.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collect/map_drain.h"
#include "collect/offcpu_drain.h"
#include "test_util.h"

#define DEPTH 4

struct seen {
	uint64_t total;
	size_t entries;
	/* the entry of pid want_pid: its count and first kernel and user frames */
	uint32_t want_pid;
	uint64_t count, kip, uip;
	uint32_t flags;
};

static int note(const struct agg_entry *e, void *ctx)
{
	struct seen *s = ctx;

	s->total += e->count;
	s->entries++;
	if (e->pid == s->want_pid) {
		s->count = e->count;
		s->kip = !e->kerr && e->nr_kips ? e->ips[0] : 0;
		s->uip = !e->uerr && e->nr_uips ? e->ips[e->nr_kips] : 0;
		s->flags = e->flags;
	}
	return 0;
}

static struct seen seen_pid(const struct agg *agg, uint32_t pid)
{
	struct seen s = { .want_pid = pid };

	cr_assert_eq(agg__for_each(agg, note, &s), 0);
	return s;
}

/* A key of pid whose stacks are overflow keys kern and user. */
static struct profile_key key_of(uint32_t pid, __u64 kern, __u64 user)
{
	return (struct profile_key){ .pid = pid, .kern_stack_id = STACK_ID_OVERFLOW,
				     .kern_overflow = kern, .user_stack_id = STACK_ID_OVERFLOW,
				     .user_overflow = user, .flags = KEY_OFF_CPU, .comm = "w" };
}

/* A wait carried with its stacks is counted with them once, when it ends. */
Test(offcpu_drain, a_carried_wait_is_counted_once_with_its_stacks)
{
	struct offcpu_drain *o = offcpu_drain__new(DEPTH, 8);
	struct agg *agg = agg__new();
	uint64_t kips[] = { 0xaa, 0xab }, uips[] = { 0xbb, 0xbc, 0xbd };
	struct agg_stack kern = { .ips = kips, .nr = 2 }, user = { .ips = uips, .nr = 3 };
	struct profile_key k = key_of(7, 1, 3);
	struct offcpu_drain_stats st;
	struct seen s;

	cr_assert(o && agg);
	cr_assert_eq(offcpu_drain__carry(o, 0xffff1000, 100, &k, &kern, &user), 0);
	cr_assert_eq(offcpu_drain__carry(o, 0xffff1000, 100, &k, &kern, &user), -EEXIST);
	/* the same task's next wait is another */
	cr_assert_eq(offcpu_drain__carry(o, 0xffff1000, 200, &k, &kern, &user), 0);
	cr_assert_eq(offcpu_drain__nr_carried(o), 2);
	/* the stacks were copied: what they were read into may change */
	kips[0] = uips[0] = 0;

	cr_assert_eq(offcpu_drain__count(o, 0xffff1000, 100, 5000, agg), 0);
	cr_assert_eq(offcpu_drain__count(o, 0xffff1000, 100, 5000, agg), -ENOENT);
	cr_assert_eq(offcpu_drain__count(o, 0xffff2000, 200, 5000, agg), -ENOENT, "another task");
	s = seen_pid(agg, 7);
	cr_assert_eq(s.count, 5000);
	cr_assert_eq(s.kip, 0xaa);
	cr_assert_eq(s.uip, 0xbb);
	cr_assert_eq(s.flags, 0, "KEY_OFF_CPU is no part of an entry");
	cr_assert_eq(offcpu_drain__nr_carried(o), 1);
	offcpu_drain__stats(o, &st);
	cr_assert_eq(st.carried, 2);
	cr_assert_eq(st.late, 1);
	agg__free(agg);
	offcpu_drain__free(o);
}

/* The carry is bounded: one past it is refused and counted, never grown. */
Test(offcpu_drain, the_carry_is_bounded)
{
	struct offcpu_drain *o = offcpu_drain__new(DEPTH, 1);
	struct agg_stack none = { .err = -EFAULT };
	struct profile_key k = key_of(7, 1, 3);
	struct offcpu_drain_stats st;

	cr_assert_not_null(o);
	cr_assert_eq(offcpu_drain__carry(o, 1, 1, &k, &none, &none), 0);
	cr_assert_eq(offcpu_drain__carry(o, 2, 1, &k, &none, &none), -ENOSPC);
	offcpu_drain__stats(o, &st);
	cr_assert_eq(st.not_carried, 1);
	cr_assert_eq(offcpu_drain__nr_carried(o), 1);
	offcpu_drain__free(o);
}

static int bpf_hash(const char *name, unsigned int key, unsigned int value, unsigned int max)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, name, key, value, max, &opts);

	if (fd < 0 && (errno == EPERM || errno == EACCES))
		skip_unless_ci("root (CAP_BPF) to create a BPF map");
	cr_assert_geq(fd, 0, "bpf_map_create %s: %s", name, strerror(errno));
	return fd;
}

/* A map set whose overflow map holds stacks 1 (0x10...) to 4 (0x40...). */
static struct map_set_fds make_set(void)
{
	struct map_set_fds set = { .pending = -1 };

	set.overflow = bpf_hash("test_ovf", sizeof(__u64), DEPTH * sizeof(__u64), 16);
	set.counts = bpf_hash("test_counts", sizeof(struct profile_key), sizeof(__u64), 64);
	set.stackmap = bpf_map_create(BPF_MAP_TYPE_STACK_TRACE, "test_stacks", sizeof(__u32),
				      DEPTH * sizeof(__u64), 16, NULL);
	cr_assert_geq(set.stackmap, 0, "stack map: %s", strerror(errno));
	return set;
}

static void fill_stacks(const struct map_set_fds *set)
{
	for (__u64 k = 1; k <= 4; k++) {
		__u64 frames[DEPTH] = { k << 4, (k << 4) + 1, 0, 0 };

		cr_assert_eq(bpf_map_update_elem(set->overflow, &k, frames, BPF_ANY), 0);
	}
}

static void close_set(struct map_set_fds *set)
{
	close(set->counts);
	close(set->stackmap);
	close(set->overflow);
}

static void start(int fd, __u64 task, __u64 ns, __u32 seq, struct profile_key key)
{
	struct offcpu_start s = { .key = key, .ns = ns, .seq = seq };

	cr_assert_eq(bpf_map_update_elem(fd, &task, &s, BPF_NOEXIST), 0);
}

static void late(int fd, __u64 task, __u64 ns, __u32 seq, __u64 off_ns, struct profile_key key)
{
	struct offcpu_late_key k = { .task = task, .ns = ns };
	struct offcpu_late l = { .key = key, .off_ns = off_ns, .seq = seq };

	cr_assert_eq(bpf_map_update_elem(fd, &k, &l, BPF_NOEXIST), 0);
}

/*
 * Drain of the set of flip 5: the wait under way that began in it is
 * carried, the one begun after the flip is not; a late wait of flip 5 is
 * counted with the set's stacks, one of flip 3 with the stacks carried at
 * its drain, and one of flip 2 that nothing carried is lost, and counted.
 * At the next drain the carried wait ends, and is counted with the stacks
 * of a set cleared since.
 */
Test(offcpu_drain, late_waits_are_counted_with_the_stacks_they_began_with)
{
	struct map_set_fds set = make_set();
	int start_fd = bpf_hash("test_start", sizeof(__u64), sizeof(struct offcpu_start), 16);
	int late_fd = bpf_hash("test_late", sizeof(struct offcpu_late_key),
			       sizeof(struct offcpu_late), 16);
	struct offcpu_drain *o = offcpu_drain__new(DEPTH, 16);
	struct agg *agg = agg__new();
	struct offcpu_drain_stats st;
	uint64_t kip[] = { 0x77 }, uip[] = { 0x78 };
	struct agg_stack kern = { .ips = kip, .nr = 1 }, user = { .ips = uip, .nr = 1 };
	struct profile_key k4;
	struct map_drain d;
	struct seen s;

	cr_assert(o && agg);
	cr_assert_eq(map_drain__init(&d, DEPTH), 0);
	fill_stacks(&set);
	offcpu_drain__set_maps(o, start_fd, late_fd);
	set.settle = offcpu_drain__settle;
	set.settle_ctx = o;
	start(start_fd, 0x1000, 10, 5, key_of(1, 1, 2));	/* under way, of flip 5 */
	start(start_fd, 0x2000, 20, 6, key_of(2, 3, 4));	/* begun after the flip */
	late(late_fd, 0x3000, 30, 5, 3000, key_of(3, 3, 4));
	late(late_fd, 0x4000, 40, 3, 4000, key_of(4, 1, 1));
	late(late_fd, 0x5000, 50, 2, 5000, key_of(5, 1, 1));
	k4 = key_of(4, 9, 9);
	cr_assert_eq(offcpu_drain__carry(o, 0x4000, 40, &k4, &kern, &user), 0);

	offcpu_drain__next(o, 5, true);
	cr_assert_eq(map_drain__set(&d, &set, agg), 0);
	s = seen_pid(agg, 3);
	cr_assert_eq(s.count, 3000);
	cr_assert_eq(s.kip, 0x30, "the set's stack 3");
	cr_assert_eq(s.uip, 0x40, "the set's stack 4");
	s = seen_pid(agg, 4);
	cr_assert_eq(s.count, 4000);
	cr_assert_eq(s.kip, 0x77, "the carried stacks, not the set's stack 1");
	cr_assert_eq(s.uip, 0x78);
	cr_assert_eq(seen_pid(agg, 5).entries, 2, "the lost wait is no entry");
	offcpu_drain__stats(o, &st);
	cr_assert_eq(st.lost, 1);
	cr_assert_eq(st.lost_ns, 5000);
	cr_assert_eq(offcpu_drain__nr_carried(o), 1, "only the wait of flip 5 carried");

	/* the set was cleared: the carried wait ends at flip 6 */
	agg__reset(agg);
	bpf_map_delete_elem(start_fd, &(__u64){ 0x1000 });
	late(late_fd, 0x1000, 10, 5, 9000, key_of(1, 1, 2));
	offcpu_drain__next(o, 6, true);
	cr_assert_eq(map_drain__set(&d, &set, agg), 0);
	s = seen_pid(agg, 1);
	cr_assert_eq(s.count, 9000);
	cr_assert_eq(s.kip, 0x10);
	cr_assert_eq(s.uip, 0x20);
	cr_assert_eq(offcpu_drain__nr_carried(o), 1, "the wait of flip 6 now");

	map_drain__release(&d);
	agg__free(agg);
	offcpu_drain__free(o);
	close(start_fd);
	close(late_fd);
	close_set(&set);
}

/*
 * A carried wait that ends without a late entry (outside --min-block and
 * --max-block, or the late map full) is let go at the second drain that
 * finds it neither under way nor counted; one still under way stays.
 */
Test(offcpu_drain, a_carried_wait_that_ended_uncounted_is_let_go)
{
	struct map_set_fds set = make_set();
	int start_fd = bpf_hash("test_start", sizeof(__u64), sizeof(struct offcpu_start), 16);
	int late_fd = bpf_hash("test_late", sizeof(struct offcpu_late_key),
			       sizeof(struct offcpu_late), 16);
	struct offcpu_drain *o = offcpu_drain__new(DEPTH, 16);
	struct agg *agg = agg__new();
	struct offcpu_drain_stats st;
	struct map_drain d;

	cr_assert(o && agg);
	cr_assert_eq(map_drain__init(&d, DEPTH), 0);
	fill_stacks(&set);
	offcpu_drain__set_maps(o, start_fd, late_fd);
	set.settle = offcpu_drain__settle;
	set.settle_ctx = o;
	start(start_fd, 0x1000, 10, 5, key_of(1, 1, 2));	/* ends, filtered */
	start(start_fd, 0x2000, 20, 5, key_of(2, 3, 4));	/* goes on */
	offcpu_drain__next(o, 5, true);
	cr_assert_eq(map_drain__set(&d, &set, agg), 0);
	cr_assert_eq(offcpu_drain__nr_carried(o), 2);

	bpf_map_delete_elem(start_fd, &(__u64){ 0x1000 });
	for (__u32 flip = 6; flip <= 8; flip++) {
		agg__reset(agg);
		offcpu_drain__next(o, flip, true);
		cr_assert_eq(map_drain__set(&d, &set, agg), 0);
		cr_assert_eq(offcpu_drain__nr_carried(o), flip == 6 ? 2 : 1, "at flip %u", flip);
	}
	offcpu_drain__stats(o, &st);
	cr_assert_eq(st.ended_uncounted, 1);
	cr_assert_eq(st.lost, 0, "nothing counted as lost");

	map_drain__release(&d);
	agg__free(agg);
	offcpu_drain__free(o);
	close(start_fd);
	close(late_fd);
	close_set(&set);
}

/*
 * --wall: a sample's count is made ns by the period, off-CPU counts are ns
 * already; a key counted with nothing yet (its thread still off the CPU)
 * is no entry.
 */
Test(offcpu_drain, wall_counts_samples_by_their_period)
{
	struct map_set_fds set = make_set();
	struct profile_key on = key_of(1, 1, 2), off = key_of(2, 1, 2), idle = key_of(3, 1, 2);
	__u64 three = 3, ns = 500, zero = 0;
	struct agg *agg = agg__new();
	struct map_drain d;

	on.flags = 0;
	fill_stacks(&set);
	cr_assert_eq(bpf_map_update_elem(set.counts, &on, &three, BPF_ANY), 0);
	cr_assert_eq(bpf_map_update_elem(set.counts, &off, &ns, BPF_ANY), 0);
	cr_assert_eq(bpf_map_update_elem(set.counts, &idle, &zero, BPF_ANY), 0);
	cr_assert_eq(map_drain__init(&d, DEPTH), 0);
	d.sample_ns = 1000000;
	cr_assert_eq(map_drain__set(&d, &set, agg), 0);
	cr_assert_eq(seen_pid(agg, 1).count, 3000000);
	cr_assert_eq(seen_pid(agg, 2).count, 500);
	cr_assert_eq(seen_pid(agg, 3).entries, 2);
	map_drain__release(&d);
	agg__free(agg);
	close_set(&set);
}
