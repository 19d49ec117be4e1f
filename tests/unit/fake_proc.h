/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fake_proc.h - a fake /proc for the tests of user symbols: a fresh
 * directory, tmp, with an empty proc/ in it, proc_root, where a test
 * writes the <pid>/maps, status and root (sym_fixtures.h: fake_process())
 * that usyms, perfmap and srcline are pointed at instead of /proc. Other
 * files a test needs go under tmp; both are removed after each test.
 *
 *	TestSuite(name, .init = fake_proc_setup, .fini = fake_proc_teardown);
 */
#ifndef FAKE_PROC_H
#define FAKE_PROC_H

#include "test_util.h"

static char *tmp, *proc_root;

static inline void fake_proc_setup(void)
{
	tmp = make_tmpdir();
	proc_root = path_in(tmp, "proc");
	cr_assert_eq(mkdir(proc_root, 0755), 0, "mkdir '%s': %s", proc_root, strerror(errno));
}

static inline void fake_proc_teardown(void)
{
	free(proc_root);
	proc_root = NULL;
	rm_rf(tmp);
	tmp = NULL;
}

#endif /* FAKE_PROC_H */
