// SPDX-License-Identifier: GPL-2.0
/*
 * test_dpkg_owner.c - the package whose dpkg list names a file, across
 * the /usr merge (maps say /usr/lib/..., bookworm's lists /lib/...), its
 * architecture qualifier dropped; none for a file no list names.
 */
#include "symbols/dpkg_owner.h"
#include "test_util.h"

static char *info_dir(void)
{
	char *dir = make_tmpdir();

	free(write_in(dir, "liblzma5:amd64.list",
		      "/.\n/lib\n/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu/liblzma.so.5.4.1\n"));
	free(write_in(dir, "xz-utils.list", "/usr/bin/xz\n/usr/bin/unxz"));
	free(write_in(dir, "xz-utils.md5sums", "0123  usr/bin/other\n"));
	free(write_in(dir, "coreutils.list", "/usr/bin/cat\n"));
	return dir;
}

Test(dpkg_owner, packages_of_files_across_the_usr_merge)
{
	char *dir = info_dir(), *owners[5];
	const char *paths[] = {
		"/usr/lib/x86_64-linux-gnu/liblzma.so.5.4.1",	/* listed as /lib/... */
		"/bin/unxz",					/* listed as /usr/bin/..., no newline */
		"/usr/bin/cat",
		"/usr/bin/other",				/* only in a .md5sums */
		"/tmp/x/liblzma.so.5.4.1",
	};

	cr_assert_eq(dpkg_owner__find(dir, paths, 5, owners), 0);
	cr_assert_str_eq(owners[0], "liblzma5");
	cr_assert_str_eq(owners[1], "xz-utils");
	cr_assert_str_eq(owners[2], "coreutils");
	cr_assert_null(owners[3]);
	cr_assert_null(owners[4]);
	for (int i = 0; i < 5; i++)
		free(owners[i]);
	rm_rf(dir);
}

Test(dpkg_owner, no_lists_no_owners)
{
	const char *paths[] = { "/usr/bin/xz" };
	char *owners[1] = { (char *)"x" };

	cr_assert_eq(dpkg_owner__find("/nonexistent/dpkg/info", paths, 1, owners), -ENOENT);
	cr_assert_null(owners[0]);
}
