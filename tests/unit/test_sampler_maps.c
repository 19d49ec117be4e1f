// SPDX-License-Identifier: GPL-2.0
/*
 * test_sampler_maps.c - the filter maps of -p and -L (map_config.c): every
 * id goes in, and the first that does not is reported with its errno.
 * Real BPF maps need root (CAP_BPF). And the one line a failed load prints.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "diagnose.h"
#include "map_config.h"
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
