// SPDX-License-Identifier: GPL-2.0
/*
 * test_kallsyms.c - the running kernel's symbol table as the report uses
 * it: the first reading on a thread or on first use, on files the tests
 * write in the format of /proc/kallsyms; the image's symbols kept for the
 * boot (kallsyms_cache.h).
 */
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/kallsyms.h"
#include "symbols/kallsyms_cache.h"
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

/* A kallsyms over path, its image's symbols kept in dir/cache for boot. */
static struct kallsyms *cached(const char *boot, const char *cache)
{
	struct kallsyms *k = kallsyms__new(path);

	cr_assert_not_null(k);
	cr_assert_eq(kallsyms__set_cache(k, cache, boot), 0);
	cr_assert_eq(kallsyms__wait(k), 0);
	return k;
}

/*
 * The first run of a boot reads the file and keeps the image's symbols;
 * the next names the image's frames from them without reading it, and
 * reads it once for a frame outside the image (a module's).
 */
Test(kallsyms, the_image_kept_for_the_boot)
{
	char *cache = path_in(dir, "cache"), *file;
	const struct ksym *old;
	struct kallsyms *k;

	cr_assert_eq(mkdir(cache, 0700), 0);
	k = cached("1111-aaaa", cache);
	cr_assert_eq(kallsyms__nr_reads(k), 1);
	cr_assert_not(kallsyms__image_cached(k));
	kallsyms__free(k);
	file = path_in(cache, KALLSYMS_CACHE_NAME);
	cr_assert_eq(access(file, F_OK), 0, "no cache written");

	k = cached("1111-aaaa", cache);
	cr_assert_eq(kallsyms__nr_reads(k), 0);
	cr_assert(kallsyms__image_cached(k));
	old = kallsyms__find(k, 0xffffffff81001010);
	cr_assert_not_null(old);
	cr_assert_str_eq(old->name, "do_syscall_64");
	cr_assert_eq(kallsyms__nr_reads(k), 0);
	assert_name(k, 0xffffffffc0100010, "nft_do_chain");
	cr_assert_eq(kallsyms__nr_reads(k), 1);
	cr_assert_str_eq(old->name, "do_syscall_64");	/* ASan: not freed */
	/* once: a miss outside everything reads no more */
	cr_assert_null(kallsyms__find(k, 0xffffffffd0000000));
	cr_assert_eq(kallsyms__nr_reads(k), 1);
	kallsyms__free(k);
	free(file);
	free(cache);
}

/* Another boot's, or a file others could have written, is not used. */
Test(kallsyms, the_cache_of_another_boot_or_owner_is_not_used)
{
	char *cache = path_in(dir, "cache"), *file, *elsewhere;
	struct kallsyms *k;

	cr_assert_eq(mkdir(cache, 0700), 0);
	kallsyms__free(cached("1111-aaaa", cache));
	file = path_in(cache, KALLSYMS_CACHE_NAME);

	/* the next boot reads the file and keeps its own */
	k = cached("2222-bbbb", cache);
	cr_assert_eq(kallsyms__nr_reads(k), 1);
	kallsyms__free(k);
	k = cached("2222-bbbb", cache);
	cr_assert_eq(kallsyms__nr_reads(k), 0);
	kallsyms__free(k);

	cr_assert_eq(chmod(file, 0620), 0);
	k = cached("2222-bbbb", cache);
	cr_assert_eq(kallsyms__nr_reads(k), 1, "a group-writable cache was used");
	kallsyms__free(k);

	/* a symlink to a good one */
	elsewhere = path_in(dir, "elsewhere");
	cr_assert_eq(rename(file, elsewhere), 0);
	cr_assert_eq(symlink(elsewhere, file), 0);
	errno = 0;
	cr_assert_null(kallsyms_cache__load(cache, "2222-bbbb"));
	cr_assert_eq(errno, ELOOP);
	free(elsewhere);
	free(file);
	free(cache);
}

/* Only the image's symbols are kept: a module's is not named from the cache. */
Test(kallsyms, modules_are_not_kept)
{
	char *cache = path_in(dir, "cache");
	struct ksyms *ks;

	cr_assert_eq(mkdir(cache, 0700), 0);
	kallsyms__free(cached("1111-aaaa", cache));
	ks = kallsyms_cache__load(cache, "1111-aaaa");
	cr_assert_not_null(ks, "load: %s", strerror(errno));
	cr_assert_eq(ksyms__count(ks), 2);
	cr_assert_null(ksyms__find(ks, 0xffffffffc0100010));
	cr_assert_str_eq(ksyms__find(ks, 0xffffffff81001010)->name, "do_syscall_64");
	ksyms__free(ks);
	free(cache);
}

Test(kallsyms, boot_id_of_a_proc_root)
{
	char *proc = path_in(dir, "proc"), id[KALLSYMS_BOOT_ID_LEN];
	const char *rel = "proc/sys/kernel/random/boot_id";

	free(write_in(dir, rel, "5835b44a-2818-48e1-bccf-6d4a61021894\n"));
	cr_assert_eq(kallsyms_cache__boot_id(proc, id, sizeof(id)), 0);
	cr_assert_str_eq(id, "5835b44a-2818-48e1-bccf-6d4a61021894");
	/* nothing that could end the header's line early */
	free(write_in(dir, rel, "58 35\n"));
	cr_assert_eq(kallsyms_cache__boot_id(proc, id, sizeof(id)), -EINVAL);
	free(proc);
}

/*
 * The cache names nothing the file does not show this reader: where the
 * kernel hides addresses (no CAP_SYSLOG), or the file starts with symbols
 * the cache lacks (not the kernel it was kept for), the file is read.
 */
Test(kallsyms, the_cache_only_where_the_file_agrees)
{
	char *cache = path_in(dir, "cache");
	struct kallsyms *k;

	cr_assert_eq(mkdir(cache, 0700), 0);
	kallsyms__free(cached("1111-aaaa", cache));
	write_text(path, "0000000000000000 T _stext\n0000000000000000 T do_syscall_64\n");
	k = kallsyms__new(path);
	cr_assert_not_null(k);
	cr_assert_eq(kallsyms__set_cache(k, cache, "1111-aaaa"), 0);
	cr_assert_eq(kallsyms__wait(k), -EPERM);
	cr_assert_not(kallsyms__image_cached(k));
	cr_assert_null(kallsyms__find(k, 0xffffffff81001010));
	kallsyms__free(k);

	write_text(path, "ffffffff82000000 T _stext\nffffffff82001000 T do_syscall_64\n");
	k = kallsyms__new(path);
	cr_assert_not_null(k);
	cr_assert_eq(kallsyms__set_cache(k, cache, "1111-aaaa"), 0);
	cr_assert_eq(kallsyms__wait(k), 0);
	cr_assert_not(kallsyms__image_cached(k));
	cr_assert_eq(kallsyms__nr_reads(k), 1);
	assert_name(k, 0xffffffff82001010, "do_syscall_64");
	kallsyms__free(k);
	free(cache);
}

/* Kernels that list their absolute per-CPU symbols first: pages of them, then the text. */
Test(kallsyms, the_cache_past_absolute_per_cpu_symbols)
{
	char *cache = path_in(dir, "cache"), *text;
	struct kallsyms *k;
	FILE *f;
	size_t len;

	f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	for (int i = 0; i < 500; i++)
		fprintf(f, "%016x A per_cpu_symbol_%d\n", 8 * i, i);
	fputs(first, f);
	cr_assert_eq(fclose(f), 0);
	cr_assert_gt(len, 16384);
	write_text(path, text);
	cr_assert_eq(mkdir(cache, 0700), 0);
	kallsyms__free(cached("1111-aaaa", cache));
	k = cached("1111-aaaa", cache);
	cr_assert(kallsyms__image_cached(k), "not used");
	cr_assert_eq(kallsyms__nr_reads(k), 0);
	assert_name(k, 0xffffffff81001010, "do_syscall_64");
	kallsyms__free(k);
	free(text);
	free(cache);
}
