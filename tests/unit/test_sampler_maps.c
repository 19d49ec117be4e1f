// SPDX-License-Identifier: GPL-2.0
/*
 * test_sampler_maps.c - the BPF maps seen from userspace, on real maps
 * made here (root, CAP_BPF): the filter maps of -p and -L (every id goes
 * in, the first that does not is reported with its errno), the overflow
 * index, the drain of one map set; and the line a failed load prints.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collect/diagnose.h"
#include "collect/map_config.h"
#include "collect/map_drain.h"
#include "collect/overflow_index.h"
#include "test_util.h"

/* A hash like profile.bpf.c's pids map, of max entries; skipped without BPF. */
static int filter_map(unsigned int max)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "test_pids", sizeof(__u32), sizeof(__u8), max,
				NULL);

	if (fd < 0 && (errno == EPERM || errno == EACCES))
		skip_unless_ci("root (CAP_BPF) to create a BPF map");
	cr_assert_geq(fd, 0, "bpf_map_create: %s", strerror(errno));
	return fd;
}

Test(sampler_maps, every_id_in_the_filter)
{
	pid_t ids[] = { 1, 42, 4194304 }, failed = -1;
	int fd = filter_map(4);

	cr_assert_eq(id_filter__fill(fd, ids, ARRAY_SIZE(ids), &failed), 0);
	cr_assert_eq(failed, -1);
	for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
		__u32 key = ids[i];
		__u8 v = 0;

		cr_assert_eq(bpf_map_lookup_elem(fd, &key, &v), 0, "id %d missing", ids[i]);
		cr_assert_eq(v, 1);
	}
	close(fd);
}

/* The map is full before the last id: that id and E2BIG, not silence. */
Test(sampler_maps, full_filter_names_the_id)
{
	pid_t ids[] = { 10, 11, 12 }, failed = -1;
	int fd = filter_map(2);

	cr_assert_eq(id_filter__fill(fd, ids, ARRAY_SIZE(ids), &failed), -E2BIG);
	cr_assert_eq(failed, 12);
	close(fd);
}

/* No map at all (the fd is not one): the first id fails. Needs no root. */
Test(sampler_maps, bad_map_fails_on_first_id)
{
	pid_t ids[] = { 7, 8 }, failed = -1;
	int err = id_filter__fill(-1, ids, ARRAY_SIZE(ids), &failed);

	cr_assert_lt(err, 0);
	cr_assert(err == -EBADF || err == -EPERM, "err %d", err);
	cr_assert_eq(failed, 7);
}

Test(sampler_maps, no_ids_touch_nothing)
{
	pid_t failed = -1;

	cr_assert_eq(id_filter__fill(-1, NULL, 0, &failed), 0);
	cr_assert_eq(failed, -1);
}

/* The load error says what libbpf says, with its code; no stale BTF hint. */
Test(sampler_maps, load_error_is_libbpfs)
{
	char buf[256], verify[128];

	diagnose__load_error(-EINVAL, buf, sizeof(buf));
	cr_assert(!strncmp(buf, "Invalid argument (libbpf error -22;", 35), "'%s'", buf);
	cr_assert_null(strstr(buf, "BTF"), "'%s'", buf);

	/* libbpf's own codes: strerror() would say "Unknown error 4007" */
	cr_assert_eq(libbpf_strerror(-LIBBPF_ERRNO__VERIFY, verify, sizeof(verify)), 0);
	diagnose__load_error(-LIBBPF_ERRNO__VERIFY, buf, sizeof(buf));
	cr_assert(!strncmp(buf, verify, strlen(verify)), "'%s'", buf);
	cr_assert_null(strstr(buf, "Unknown error"), "'%s'", buf);

	diagnose__load_error(-EPERM, buf, sizeof(buf));
	cr_assert_not_null(strstr(buf, "CAP_BPF"), "'%s'", buf);
	cr_assert_null(strchr(buf, '\n'));
}

#define DEPTH 4

static int bpf_hash(const char *name, unsigned int key, unsigned int value, unsigned int max)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, name, key, value, max, &opts);

	if (fd < 0 && (errno == EPERM || errno == EACCES))
		skip_unless_ci("root (CAP_BPF) to create a BPF map");
	cr_assert_geq(fd, 0, "bpf_map_create %s: %s", name, strerror(errno));
	return fd;
}

/* An overflow map as profile.bpf.c fills it: key -> DEPTH frames, 0-padded. */
static int overflow_map(void)
{
	int fd = bpf_hash("test_ovf", sizeof(__u64), DEPTH * sizeof(__u64), 16);
	__u64 stacks[][DEPTH] = { { 0x10, 0x11, 0x12, 0 }, { 0x20, 0, 0, 0 },
				  { 0x30, 0x31, 0x32, 0x33 } };
	__u64 keys[] = { 900, 5, 77 };

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		cr_assert_eq(bpf_map_update_elem(fd, &keys[i], stacks[i], BPF_ANY), 0);
	return fd;
}

static size_t map_entries(int fd, size_t key_size)
{
	char key[64], next[64];
	void *prev = NULL;
	size_t n = 0;

	cr_assert_leq(key_size, sizeof(key));
	while (!bpf_map_get_next_key(fd, prev, next)) {
		memcpy(key, next, key_size);
		prev = key;
		n++;
	}
	return n;
}

/* Taken: every stack found by its key, none by another, and the map empty. */
Test(sampler_maps, overflow_index_takes_and_finds)
{
	struct ovf_index x;
	int fd = overflow_map();
	const uint64_t *ips;

	ovf_index__init(&x, DEPTH);
	cr_assert_eq(ovf_index__take(&x, fd), 0);
	cr_assert_eq(x.nr, 3);
	cr_assert_eq(map_entries(fd, sizeof(__u64)), 0, "overflow map not emptied");
	ips = ovf_index__find(&x, 77);
	cr_assert_not_null(ips);
	cr_assert(ips[0] == 0x30 && ips[3] == 0x33);
	ips = ovf_index__find(&x, 900);
	cr_assert(ips && ips[0] == 0x10 && ips[2] == 0x12 && ips[3] == 0);
	ips = ovf_index__find(&x, 5);
	cr_assert(ips && ips[0] == 0x20);
	cr_assert_null(ovf_index__find(&x, 6));
	/* taken again from an empty map: nothing left to find */
	cr_assert_eq(ovf_index__take(&x, fd), 0);
	cr_assert_null(ovf_index__find(&x, 77));
	ovf_index__release(&x);
	close(fd);
}

struct seen {
	uint64_t total;
	int stacks;
};

static int check_entry(const struct agg_entry *e, void *ctx)
{
	struct seen *seen = ctx;

	seen->total += e->count;
	if (e->pid == 1) {
		/* kernel stack 900 (3 frames), user stack not taken */
		cr_assert_eq(e->kerr, 0);
		cr_assert_eq(e->nr_kips, 3);
		cr_assert(e->ips[0] == 0x10 && e->ips[2] == 0x12);
		cr_assert_eq(e->uerr, -EFAULT);
		seen->stacks++;
	} else if (e->pid == 2) {
		/* user stack 77, kernel stack referenced but gone, shown as missed */
		cr_assert_eq(e->kerr, -ENOENT);
		cr_assert_eq(e->uerr, 0);
		cr_assert_eq(e->nr_uips, DEPTH);
		cr_assert_eq(e->ips[e->nr_kips], 0x30);
		seen->stacks++;
	}
	return 0;
}

/* A set drained: its counts in the aggregate with their stacks, the set empty. */
Test(sampler_maps, drain_moves_a_set_into_the_aggregate)
{
	struct map_set_fds set = { .overflow = overflow_map(), .pending = -1 };
	struct profile_key k1 = { .pid = 1, .kern_stack_id = STACK_ID_OVERFLOW,
				  .kern_overflow = 900, .user_stack_id = -1, .comm = "one" };
	struct profile_key k2 = { .pid = 2, .kern_stack_id = STACK_ID_OVERFLOW,
				  .kern_overflow = 12345, .user_stack_id = STACK_ID_OVERFLOW,
				  .user_overflow = 77, .comm = "two" };
	__u64 c1 = 5, c2 = 7;
	struct seen seen = { 0 };
	struct map_drain d;
	struct agg *agg = agg__new();

	set.counts = bpf_hash("test_counts", sizeof(struct profile_key), sizeof(__u64), 64);
	set.stackmap = bpf_map_create(BPF_MAP_TYPE_STACK_TRACE, "test_stacks", sizeof(__u32),
				      DEPTH * sizeof(__u64), 16, NULL);
	cr_assert_geq(set.stackmap, 0, "stack map: %s", strerror(errno));
	cr_assert_eq(bpf_map_update_elem(set.counts, &k1, &c1, BPF_ANY), 0);
	cr_assert_eq(bpf_map_update_elem(set.counts, &k2, &c2, BPF_ANY), 0);
	cr_assert_not_null(agg);
	cr_assert_eq(map_drain__init(&d, DEPTH), 0);

	cr_assert_eq(map_drain__set(&d, &set, agg), 0);
	cr_assert_eq(agg__for_each(agg, check_entry, &seen), 0);
	cr_assert_eq(seen.stacks, 2);
	cr_assert_eq(seen.total, 12);
	cr_assert_eq(map_entries(set.counts, sizeof(struct profile_key)), 0);
	cr_assert_eq(map_entries(set.overflow, sizeof(__u64)), 0);

	map_drain__release(&d);
	agg__free(agg);
	close(set.counts);
	close(set.stackmap);
	close(set.overflow);
}

/* A run, as its options would give it: -F hz or -c period, secs (0: until stopped), -i. */
struct run {
	long hz, period, secs, interval;
	bool user_only;		/* -U */
	int cpu;		/* -C cpu + 1; 0: every CPU */
	bool off_cpu, wall;	/* --off-cpu, --wall */
	bool sizes_given;	/* --stack-storage-size and --hash-storage-size, their defaults */
};

#define SIZES(sz, cpus, ...) sizes_of(sz, cpus, (struct run){ __VA_ARGS__ })

/* The set sizes of run on cpus CPUs, hashes not preallocated. */
static void sizes_of(struct map_set_sizes *sz, int cpus, struct run run)
{
	struct sampler_opts o = {
		.frequency = run.hz,
		.period = run.period,
		.duration = run.secs,
		.interval = run.interval,
		.user_only = run.user_only,
		.off_cpu = run.off_cpu,
		.wall = run.wall,
		.cpu = run.cpu - 1,
		.max_stack_depth = 127,
		.stack_storage_size = DEFAULT_STACK_STORAGE,
		.hash_storage_size = DEFAULT_HASH_STORAGE,
		.stack_storage_given = run.sizes_given,
		.hash_storage_given = run.sizes_given,
	};

	map_set__sizes(&o, cpus, false, sz);
}

/*
 * A one-shot run's maps are sized from what it can sample: 49 Hz on 2
 * CPUs for 1 s (and a second's slack) is 196 samples, 392 stacks; sixteen
 * times that in the stack map, a power of two, and four times the samples
 * in the count hash, but never under 1024.
 */
Test(map_sizes, a_short_run_takes_what_its_samples_need)
{
	struct map_set_sizes sz;

	SIZES(&sz, 2, .hz = 49, .secs = 1);
	cr_assert_eq(sz.stacks, 8192);
	cr_assert_eq(sz.counts, MAP_SET_MIN_ENTRIES);
	cr_assert_eq(sz.overflow, 2 * MAP_SET_MIN_ENTRIES);
	/* one stack a sample: half */
	SIZES(&sz, 2, .hz = 49, .secs = 1, .user_only = true);
	cr_assert_eq(sz.stacks, 4096);
	/* one CPU of -C */
	SIZES(&sz, 2, .hz = 49, .secs = 1, .cpu = 0 + 1);
	cr_assert_eq(sz.stacks, 4096);
	/* 999 Hz on 4 CPUs for 2 s: 11,988 samples */
	SIZES(&sz, 4, .hz = 999, .secs = 2);
	cr_assert_eq(sz.stacks, DEFAULT_STACK_STORAGE);
	cr_assert_eq(sz.counts, DEFAULT_HASH_STORAGE);
	/* 99 Hz: 1,188 samples */
	SIZES(&sz, 4, .hz = 99, .secs = 2);
	cr_assert_eq(sz.counts, 4 * 1188);
	cr_assert_eq(sz.overflow, 8 * 1188);
}

/*
 * Long runs are drained every MAP_DRAIN_SECS: a set takes no more. With
 * -i only at each interval, which may wait on symbols: the longer of the
 * two.
 */
Test(map_sizes, a_set_holds_samples_until_its_drain)
{
	struct map_set_sizes sz, forever;

	SIZES(&sz, 2, .hz = 49, .secs = 3600);
	SIZES(&forever, 2, .hz = 49);
	cr_assert_eq(sz.counts, 4 * 49 * 2 * (MAP_DRAIN_SECS + 1));
	cr_assert_eq(forever.counts, sz.counts);
	SIZES(&sz, 2, .hz = 49, .interval = 1, .secs = 3600);
	cr_assert_eq(sz.counts, forever.counts);
	SIZES(&sz, 2, .hz = 49, .interval = 60, .secs = 3600);
	cr_assert_eq(sz.counts, 4 * 49 * 2 * 61);
	SIZES(&sz, 2, .hz = 49, .interval = 60, .secs = 5);
	cr_assert_eq(sz.counts, 4 * 49 * 2 * 61, "-i: the interval, however short the run");
}

/* Sizes given are kept; -c's rate is not known: the defaults. */
Test(map_sizes, given_sizes_and_event_counts_are_kept)
{
	struct map_set_sizes sz;

	SIZES(&sz, 2, .sizes_given = true, .hz = 49, .secs = 1);
	cr_assert_eq(sz.stacks, 16384);
	cr_assert_eq(sz.counts, 40960);
	/* --off-cpu and --wall: their waits come at every switch, not at a rate */
	SIZES(&sz, 2, .off_cpu = true, .secs = 1);
	cr_assert_eq(sz.counts, DEFAULT_HASH_STORAGE);
	SIZES(&sz, 2, .wall = true, .hz = 49, .secs = 1);
	cr_assert_eq(sz.counts, DEFAULT_HASH_STORAGE);
	cr_assert_eq(sz.stacks, DEFAULT_STACK_STORAGE);
	SIZES(&sz, 2, .period = 1000000, .secs = 1);
	cr_assert_eq(sz.stacks, DEFAULT_STACK_STORAGE);
	cr_assert_eq(sz.counts, DEFAULT_HASH_STORAGE);
	cr_assert_eq(sz.overflow, 2 * DEFAULT_HASH_STORAGE);
}

/*
 * The counts CPUs kept in their slots and not yet in the count hash: added
 * to the keys' counts, every CPU's, and the slots emptied.
 */
Test(sampler_maps, drain_adds_the_cpus_pending_counts)
{
	struct map_set_fds set = { .overflow = overflow_map() };
	struct profile_key k1 = { .pid = 1, .kern_stack_id = STACK_ID_OVERFLOW,
				  .kern_overflow = 900, .user_stack_id = -1, .comm = "one" };
	int nr_cpus = libbpf_num_possible_cpus();
	struct count_cache *caches;
	struct seen seen = { 0 };
	struct map_drain d;
	struct agg *agg = agg__new();
	__u64 c1 = 5;
	__u32 zero = 0;

	cr_assert_gt(nr_cpus, 0);
	caches = calloc(nr_cpus, sizeof(*caches));
	cr_assert_not_null(caches);
	set.counts = bpf_hash("test_counts", sizeof(struct profile_key), sizeof(__u64), 64);
	set.stackmap = bpf_map_create(BPF_MAP_TYPE_STACK_TRACE, "test_stacks", sizeof(__u32),
				      DEPTH * sizeof(__u64), 16, NULL);
	set.pending = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "test_pending", sizeof(__u32),
				     sizeof(struct count_cache), 1, NULL);
	cr_assert_geq(set.stackmap, 0, "stack map: %s", strerror(errno));
	cr_assert_geq(set.pending, 0, "pending map: %s", strerror(errno));
	cr_assert_eq(bpf_map_update_elem(set.counts, &k1, &c1, BPF_ANY), 0);
	/* 3 samples of k1 on the first CPU, 4 on the last, a used slot with none */
	caches[0].s[7] = (struct count_slot){ .key = k1, .n = 3, .used = 1 };
	caches[nr_cpus - 1].s[100].key = k1;
	caches[nr_cpus - 1].s[100].n += 4;
	caches[nr_cpus - 1].s[100].used = 1;
	caches[0].s[9] = (struct count_slot){ .key = k1, .n = 0, .used = 1 };
	cr_assert_eq(bpf_map_update_elem(set.pending, &zero, caches, BPF_ANY), 0);
	cr_assert_not_null(agg);
	cr_assert_eq(map_drain__init(&d, DEPTH), 0);

	cr_assert_eq(map_drain__set(&d, &set, agg), 0);
	cr_assert_eq(agg__for_each(agg, check_entry, &seen), 0);
	cr_assert_eq(seen.stacks, 1, "k1's samples in one entry: %d", seen.stacks);
	cr_assert_eq(seen.total, 5 + 3 + 4);
	memset(caches, 0xff, nr_cpus * sizeof(*caches));
	cr_assert_eq(bpf_map_lookup_elem(set.pending, &zero, caches), 0);
	for (int c = 0; c < nr_cpus; c++)
		for (int i = 0; i < COUNT_CACHE_SLOTS; i++)
			cr_assert(!caches[c].s[i].used && !caches[c].s[i].n, "slot %d of CPU %d kept", i, c);

	map_drain__release(&d);
	agg__free(agg);
	free(caches);
	close(set.counts);
	close(set.stackmap);
	close(set.overflow);
	close(set.pending);
}
