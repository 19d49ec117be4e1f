// SPDX-License-Identifier: GPL-2.0
/*
 * map_drain.c - one set of the BPF maps into an aggregate (map_drain.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collect/map_drain.h"
#include "trace_helpers.h"

int map_drain__init(struct map_drain *d, size_t depth)
{
	*d = (struct map_drain){ .depth = depth, .batch = 4096 };
	ovf_index__init(&d->ovf, depth);
	d->keys = calloc(d->batch, sizeof(*d->keys));
	d->vals = calloc(d->batch, sizeof(*d->vals));
	d->kips = calloc(depth, sizeof(*d->kips));
	d->uips = calloc(depth, sizeof(*d->uips));
	d->nr_cpus = libbpf_num_possible_cpus();
	if (d->nr_cpus < 1) {
		map_drain__release(d);
		return d->nr_cpus < 0 ? d->nr_cpus : -EINVAL;
	}
	d->pending = calloc(d->nr_cpus, sizeof(*d->pending));
	if (!d->keys || !d->vals || !d->kips || !d->uips || !d->pending) {
		map_drain__release(d);
		return -ENOMEM;
	}
	return 0;
}

void map_drain__release(struct map_drain *d)
{
	free(d->keys);
	free(d->vals);
	free(d->kips);
	free(d->uips);
	ovf_index__release(&d->ovf);
	free(d->stack_ids);
	free(d->pending);
	d->pending = NULL;
	d->keys = NULL;
	d->vals = NULL;
	d->kips = d->uips = NULL;
	d->stack_ids = NULL;
	d->cap_stack_ids = 0;
}

/* The frames of one stack of a count key, leaf first; buf holds stack-map stacks. */
static void read_stack(struct map_drain *d, const struct map_set_fds *set, __s32 id,
		       __u64 ovf_key, uint64_t *buf, struct agg_stack *out)
{
	size_t n = 0;
	const uint64_t *ips = NULL;

	out->ips = NULL;
	out->nr = 0;
	if (id == STACK_ID_OVERFLOW)
		ips = ovf_index__find(&d->ovf, ovf_key);
	else if (!bpf_map_lookup_elem(set->stackmap, &id, buf))
		ips = buf;
	if (!ips) {
		out->err = -ENOENT;	/* referenced but gone: shows as missed */
		return;
	}
	while (n < d->depth && ips[n])
		n++;
	out->err = 0;
	out->ips = ips;
	out->nr = n;
}

void map_drain__stacks(struct map_drain *d, const struct map_set_fds *set,
		       const struct profile_key *k, struct agg_stack *kern, struct agg_stack *user)
{
	*kern = (struct agg_stack){ 0 };
	*user = (struct agg_stack){ 0 };
	if (k->kern_stack_id >= 0 || k->kern_stack_id == STACK_ID_OVERFLOW)
		read_stack(d, set, k->kern_stack_id, k->kern_overflow, d->kips, kern);
	else
		kern->err = agg_stack__err_of_id(k->kern_stack_id);
	if (k->user_stack_id >= 0 || k->user_stack_id == STACK_ID_OVERFLOW)
		read_stack(d, set, k->user_stack_id, k->user_overflow, d->uips, user);
	else
		user->err = agg_stack__err_of_id(k->user_stack_id);
}

struct agg_key map_drain__agg_key(const struct profile_key *k)
{
	/* on or off the CPU, one stack of a thread is one entry (--wall) */
	return (struct agg_key){ .pid = k->pid, .tid = k->tid, .gen = k->gen,
				 .flags = k->flags & ~KEY_OFF_CPU, .cgroup_id = k->cgroup_id,
				 .comm = k->comm };
}

/*
 * count of key k: samples, made nanoseconds by sample_ns (--wall), or
 * nanoseconds off CPU. A key with nothing (a thread that left the CPU
 * and has not run again: collect/offcpu.bpf.h) is no entry.
 */
static int add_key(struct map_drain *d, const struct map_set_fds *set,
		   const struct profile_key *k, __u64 count, struct agg *agg)
{
	struct agg_stack kern, user;
	struct agg_key key = map_drain__agg_key(k);

	if (!count)
		return 0;
	if (d->sample_ns && !(k->flags & KEY_OFF_CPU))
		count = count > UINT64_MAX / d->sample_ns ? UINT64_MAX : count * d->sample_ns;
	map_drain__stacks(d, set, k, &kern, &user);
	return agg__add(agg, &key, &kern, &user, count);
}

/*
 * Delete every stack of a stack map: list the ids, then delete them. The
 * kernel finds the key after a missing one by scanning from bucket 0, so
 * deleting while walking would be quadratic in the map's size. Where the
 * list cannot grow, the rest is deleted the slow way.
 */
static void clear_stackmap(struct map_drain *d, int fd)
{
	__u32 key, next, *prev = NULL;
	size_t n = 0;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		if (array_reserve((void **)&d->stack_ids, &d->cap_stack_ids, n,
				  sizeof(*d->stack_ids))) {
			bpf_map_delete_elem(fd, &next);	/* restarts at 0: slow, but done */
			prev = NULL;
			continue;
		}
		d->stack_ids[n++] = next;
		key = next;
		prev = &key;
	}
	for (size_t i = 0; i < n; i++)
		bpf_map_delete_elem(fd, &d->stack_ids[i]);
}

/*
 * The samples each CPU counted in its slots and not yet in the count hash
 * (profile.h): to the aggregate, and the slots emptied. A slot's key was
 * in the count hash when it went there, so its stacks are in this set.
 */
static int drain_pending(struct map_drain *d, const struct map_set_fds *set, struct agg *agg)
{
	__u32 zero = 0;
	int err = 0;

	if (set->pending < 0)
		return 0;
	/* struct count_cache is a multiple of 8 bytes: the kernel's per-CPU stride */
	if (bpf_map_lookup_elem(set->pending, &zero, d->pending))
		return -errno;
	for (int c = 0; c < d->nr_cpus && !err; c++) {
		for (int i = 0; i < COUNT_CACHE_SLOTS && !err; i++) {
			const struct count_slot *s = &d->pending[c].s[i];

			if (s->used && s->n)
				err = add_key(d, set, &s->key, s->n, agg);
		}
	}
	memset(d->pending, 0, d->nr_cpus * sizeof(*d->pending));
	if (bpf_map_update_elem(set->pending, &zero, d->pending, BPF_ANY) && !err)
		err = -errno;
	return err;
}

int map_drain__set(struct map_drain *d, const struct map_set_fds *set, struct agg *agg)
{
	__u64 in, out;
	void *in_batch = NULL;
	int err;

	err = ovf_index__take(&d->ovf, set->overflow);
	if (err)
		return err;
	for (;;) {
		__u32 n = d->batch;
		int rerr;

		rerr = bpf_map_lookup_and_delete_batch(set->counts, in_batch, &out, d->keys,
						       d->vals, &n, NULL);
		if (rerr && errno != ENOENT) {
			err = -errno;
			break;
		}
		for (__u32 i = 0; i < n && !err; i++)
			err = add_key(d, set, &d->keys[i], d->vals[i], agg);
		if (err || rerr)
			break;	/* -ENOENT: that was the last batch */
		in = out;
		in_batch = &in;
	}
	if (!err)
		err = drain_pending(d, set, agg);
	if (!err && set->settle)
		err = set->settle(d, set, agg, set->settle_ctx);
	clear_stackmap(d, set->stackmap);
	return err;
}
