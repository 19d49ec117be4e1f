// SPDX-License-Identifier: GPL-2.0
/*
 * test_py_run.c - the Python frames of a run (python/py_run.c): names
 * taken from the ring buffer's records, kept while their generation may
 * still have samples to print, over a generation function the test sets.
 */
#include <linux/types.h>

#include "python/py_bpf.h"
#include "python/py_run.h"
#include "test_util.h"

/* The generation each pid runs now (0: none): what sampler__pid_gen() would say. */
static uint32_t running[8];

static uint32_t gen_of(pid_t pid, void *ctx)
{
	(void)ctx;
	return pid >= 0 && (size_t)pid < ARRAY_SIZE(running) ? running[pid] : 0;
}

static struct py_run *start(void)
{
	struct py_run_opts opts = { .procs_fd = -1, .gen = gen_of };
	struct py_run *r;

	memset(running, 0, sizeof(running));
	r = py_run__start(&opts);
	cr_assert_not_null(r, "py_run__start: %s", strerror(errno));
	return r;
}

/* A record naming word id of generation gen of pid, as the BPF side sends it. */
static void take(struct py_run *r, uint32_t pid, uint32_t gen, uint64_t id, const char *func)
{
	struct py_name_event e = {
		.pid = pid, .gen = gen, .id = id | PY_FRAME_BIT | PY_FRAME_NAMED, .firstlineno = 1,
		.qualname = { .len = (uint32_t)strlen(func), .nbytes = (uint16_t)strlen(func),
			      .kind = 1, .ascii = 1 },
		.filename = { .len = 4, .nbytes = 4, .kind = 1, .ascii = 1 },
	};
	int err;

	memcpy(e.name, func, strlen(func));
	memcpy(e.file, "x.py", 4);
	err = py_run__take_names(&e, sizeof(e), r);
	cr_assert_eq(err, 0, "py_run__take_names: %d", err);
}

static bool named(struct py_run *r, uint32_t pid, uint32_t gen, uint64_t id)
{
	return py_names__find(py_run__names(r), pid, gen, id | PY_FRAME_BIT | PY_FRAME_NAMED);
}

/*
 * With -i, a profile is printed from a drain, then the names of
 * generations gone are pruned: one that died after the drain has samples
 * in the map set the next profile prints, and needs its names then.
 */
Test(py_run, names_outlive_their_generation_by_one_profile)
{
	struct py_run *r = start();

	running[3] = 7;
	running[4] = 9;
	take(r, 3, 7, 1, "dies");
	take(r, 4, 9, 1, "lives");
	py_run__prune(r);
	cr_expect(named(r, 3, 7, 1));
	/* pid 3 exits after the drain of the next profile, before its prune */
	running[3] = 0;
	py_run__prune(r);
	cr_expect(named(r, 3, 7, 1), "named no longer while its last samples wait to be printed");
	/* printed with them: they go at the prune after */
	py_run__prune(r);
	cr_expect_not(named(r, 3, 7, 1));
	cr_expect(named(r, 4, 9, 1));
	py_run__free(r);
}

/* A pid reused, or exec'd: its old generation is gone though the pid runs. */
Test(py_run, another_generation_of_the_pid_is_gone_too)
{
	struct py_run *r = start();

	running[5] = 11;
	take(r, 5, 11, 2, "old");
	running[5] = 12;
	take(r, 5, 12, 2, "new");
	py_run__prune(r);
	py_run__prune(r);
	cr_expect_not(named(r, 5, 11, 2));
	cr_expect(named(r, 5, 12, 2));
	py_run__free(r);
}
