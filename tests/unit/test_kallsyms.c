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

/* first[], and a BPF program loaded since */
static const char second[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T do_syscall_64\n"
	"ffffffffa0010000 t bpf_prog_6deef7357e7b4530_on_cpu\t[bpf]\n"
	"ffffffffc0100000 t nft_do_chain\t[nf_tables]\n";

/* second[], and one more */
static const char third[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T do_syscall_64\n"
	"ffffffffa0010000 t bpf_prog_6deef7357e7b4530_on_cpu\t[bpf]\n"
	"ffffffffa0020000 t bpf_prog_3b185187f1855c4c_on_exit\t[bpf]\n"
	"ffffffffc0100000 t nft_do_chain\t[nf_tables]\n";

static struct kallsyms *prefetched(void)
{
	struct kallsyms *k = kallsyms__new(path);

	cr_assert_not_null(k);
	kallsyms__prefetch(k);
	cr_assert_eq(kallsyms__wait(k), 0);
	cr_assert_eq(kallsyms__nr_reads(k), 1);
	return k;
}

Test(kallsyms, a_miss_reads_the_file_again_once_allowed)
{
	struct kallsyms *k = prefetched();

	write_text(path, second);
	cr_assert_null(kallsyms__find(k, 0xffffffffa0010010), "a re-reading without leave");
	cr_assert_eq(kallsyms__nr_reads(k), 1);
	kallsyms__allow_reread(k);
	assert_name(k, 0xffffffffa0010010, "bpf_prog_6deef7357e7b4530_on_cpu");
	cr_assert_eq(kallsyms__nr_reads(k), 2);
	kallsyms__free(k);
}

Test(kallsyms, at_most_one_rereading_per_leave)
{
	struct kallsyms *k = prefetched();

	kallsyms__allow_reread(k);
	write_text(path, second);
	assert_name(k, 0xffffffffa0010010, "bpf_prog_6deef7357e7b4530_on_cpu");
	write_text(path, third);
	cr_assert_null(kallsyms__find(k, 0xffffffffa0020010));
	cr_assert_null(kallsyms__find(k, 0xffffffffa0020010));
	cr_assert_eq(kallsyms__nr_reads(k), 2);
	kallsyms__allow_reread(k);
	assert_name(k, 0xffffffffa0020010, "bpf_prog_3b185187f1855c4c_on_exit");
	cr_assert_eq(kallsyms__nr_reads(k), 3);
	kallsyms__free(k);
}

Test(kallsyms, hits_do_not_read_again)
{
	struct kallsyms *k = prefetched();

	kallsyms__allow_reread(k);
	assert_name(k, 0xffffffff81001010, "do_syscall_64");
	cr_assert_eq(kallsyms__nr_reads(k), 1);
	kallsyms__free(k);
}

Test(kallsyms, names_found_before_a_rereading_stay_valid_until_the_next_leave)
{
	struct kallsyms *k = prefetched();
	const struct ksym *old = kallsyms__find(k, 0xffffffff81001010);

	cr_assert_not_null(old);
	kallsyms__allow_reread(k);
	write_text(path, second);
	assert_name(k, 0xffffffffa0010010, "bpf_prog_6deef7357e7b4530_on_cpu");
	cr_assert_str_eq(old->name, "do_syscall_64");	/* ASan: not freed */
	kallsyms__free(k);
}

Test(kallsyms, a_reading_done_on_first_use_is_not_repeated_at_once)
{
	struct kallsyms *k = kallsyms__new(path);

	cr_assert_not_null(k);
	kallsyms__allow_reread(k);
	cr_assert_eq(kallsyms__wait(k), 0);
	cr_assert_null(kallsyms__find(k, 0xffffffffa0010010));
	cr_assert_eq(kallsyms__nr_reads(k), 1);
	kallsyms__free(k);
}

Test(kallsyms, a_failed_rereading_keeps_the_table)
{
	struct kallsyms *k = prefetched();

	kallsyms__allow_reread(k);
	cr_assert_eq(unlink(path), 0);
	cr_assert_null(kallsyms__find(k, 0xffffffffa0010010));
	cr_assert_eq(kallsyms__nr_reads(k), 2);
	assert_name(k, 0xffffffff81001010, "do_syscall_64");
	kallsyms__free(k);
}
