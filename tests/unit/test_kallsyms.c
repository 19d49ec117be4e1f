// SPDX-License-Identifier: GPL-2.0
/*
 * test_kallsyms.c - the running kernel's symbol table as the report uses
 * it: the first reading on a thread or on first use, on files the tests
 * write in the format of /proc/kallsyms.
 */
#include "kallsyms.h"
#include "test_util.h"

static const char first[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T do_syscall_64\n"
	"ffffffffc0100000 t nft_do_chain\t[nf_tables]\n";

static char *dir, *path;

static void setup(void)
{
	dir = make_tmpdir();
	path = write_in(dir, "kallsyms", first);
}

static void teardown(void)
{
	free(path);
	rm_rf(dir);
}

TestSuite(kallsyms, .init = setup, .fini = teardown);

static void assert_name(struct kallsyms *k, unsigned long addr, const char *want)
{
	const struct ksym *s = kallsyms__find(k, addr);

	cr_assert_not_null(s, "%#lx: not found, want %s", addr, want);
	cr_assert_str_eq(s->name, want, "%#lx", addr);
}

Test(kallsyms, prefetched_symbols_are_there_after_the_wait)
{
	struct kallsyms *k = kallsyms__new(path);

	cr_assert_not_null(k);
	kallsyms__prefetch(k);
	kallsyms__prefetch(k);	/* one reading */
	cr_assert_eq(kallsyms__wait(k), 0);
	assert_name(k, 0xffffffff81001010, "do_syscall_64");
	assert_name(k, 0xffffffffc0100010, "nft_do_chain");
	kallsyms__free(k);
}

Test(kallsyms, without_a_prefetch_the_wait_reads)
{
	struct kallsyms *k = kallsyms__new(path);

	cr_assert_not_null(k);
	cr_assert_null(kallsyms__find(k, 0xffffffff81001010), "found before the reading");
	cr_assert_eq(kallsyms__wait(k), 0);
	assert_name(k, 0xffffffff81001010, "do_syscall_64");
	kallsyms__free(k);
}

Test(kallsyms, freed_while_the_thread_reads)
{
	struct kallsyms *k = kallsyms__new(path);

	cr_assert_not_null(k);
	kallsyms__prefetch(k);
	kallsyms__free(k);
}

Test(kallsyms, unreadable_file_says_why_and_finds_nothing)
{
	struct kallsyms *k = kallsyms__new("/nonexistent/kallsyms");

	cr_assert_not_null(k);
	kallsyms__prefetch(k);
	cr_assert_eq(kallsyms__wait(k), -ENOENT);
	cr_assert_eq(kallsyms__wait(k), -ENOENT);
	cr_assert_null(kallsyms__find(k, 0xffffffff81001010));
	kallsyms__free(k);
}
