// SPDX-License-Identifier: GPL-2.0
/* test_ksyms.c - the kallsyms parser and lookup, on text the tests write. */
#include "symbols/ksyms.h"
#include "test_util.h"

#define LONG_NAME_LEN 5000

/* Unsorted, with every kind of line the parser must skip. */
static const char kallsyms_head[] =
	"ffffffff81002000 T func_b\n"
	"ffffffff81001000 T func_a\n"
	"0000000000000000 T hidden_by_kptr_restrict\n"
	"ffffffff81003000 t func_c\n"
	"ffffffff81004000 D data_global\n"
	"ffffffff81004800 d data_local\n"
	"ffffffff81005000 b bss_local\n"
	"ffffffff81005800 B bss_global\n"
	"ffffffff81005c00 r rodata_local\n"
	"ffffffff81006000 W weak_func\n"
	"ffffffffc0001000 t mod_func\t[mymod]\n"
	"ffffffffc0002000 T mod_func2\t[mymod]\n"
	"ffffffffc0003000 t other_mod_func\t[othermod]\n"
	"this is not a kallsyms line\n"
	"ffffffff8100x000 T bad_hex\n"
	"ffffffff81009000 T\n"
	"\n";
/* then: "ffffffff81008000 T <LONG_NAME_LEN x's>" with no final newline */

static char *kallsyms_text(void)
{
	size_t head = strlen(kallsyms_head), pre = strlen("ffffffff81008000 T ");
	char *text = malloc(head + pre + LONG_NAME_LEN + 1);

	cr_assert_not_null(text);
	memcpy(text, kallsyms_head, head);
	memcpy(text + head, "ffffffff81008000 T ", pre);
	memset(text + head + pre, 'x', LONG_NAME_LEN);
	text[head + pre + LONG_NAME_LEN] = '\0';
	return text;
}

static char *tmp;
static struct ksyms *ks;

static void load_fixture(void)
{
	char *text = kallsyms_text(), *path;

	tmp = make_tmpdir();
	path = write_in(tmp, "kallsyms", text);
	ks = ksyms__load_file(path);
	cr_assert_not_null(ks, "load: %s", strerror(errno));
	free(path);
	free(text);
}

static void free_fixture(void)
{
	ksyms__free(ks);
	rm_rf(tmp);
}

static const struct ksym *find_name(unsigned long addr, const char *want)
{
	const struct ksym *s = ksyms__find(ks, addr);

	cr_assert_not_null(s, "%#lx: not found, want %s", addr, want);
	cr_assert_str_eq(s->name, want, "%#lx", addr);
	return s;
}

TestSuite(ksyms, .init = load_fixture, .fini = free_fixture);

Test(ksyms, keeps_only_text_symbols_with_an_address)
{
	/* func_a, func_b, func_c, weak_func, the long one, 3 module functions */
	cr_assert_eq(ksyms__count(ks), 8);
}

Test(ksyms, finds_exact_addresses)
{
	find_name(0xffffffff81001000, "func_a");
	find_name(0xffffffff81002000, "func_b");
	find_name(0xffffffff81003000, "func_c");
	find_name(0xffffffff81006000, "weak_func");
	find_name(0xffffffffc0002000, "mod_func2");
}

Test(ksyms, finds_addresses_inside_a_function)
{
	find_name(0xffffffff81001001, "func_a");
	find_name(0xffffffff81001fff, "func_a");
	find_name(0xffffffff81002abc, "func_b");
	find_name(0xffffffffc0001fff, "mod_func");
	find_name(0xffffffffc0003fff, "other_mod_func");
}

Test(ksyms, data_symbols_do_not_end_a_function)
{
	/* D/d/b/B/r at 0x...4000-0x...5c00 are skipped: func_c runs on */
	find_name(0xffffffff81004000, "func_c");
	find_name(0xffffffff81005800, "func_c");
	find_name(0xffffffff81005fff, "func_c");
}

Test(ksyms, nothing_before_the_first_symbol)
{
	cr_assert_null(ksyms__find(ks, 0xffffffff81000fff));
	cr_assert_null(ksyms__find(ks, 0));
	cr_assert_null(ksyms__find(NULL, 0xffffffff81001000));
}

Test(ksyms, keeps_module_names)
{
	cr_assert_null(find_name(0xffffffff81001000, "func_a")->module);
	cr_assert_str_eq(find_name(0xffffffffc0001000, "mod_func")->module, "mymod");
	cr_assert_str_eq(find_name(0xffffffffc0002000, "mod_func2")->module, "mymod");
	cr_assert_str_eq(find_name(0xffffffffc0003000, "other_mod_func")->module, "othermod");
}

Test(ksyms, keeps_very_long_names_whole)
{
	const struct ksym *s = ksyms__find(ks, 0xffffffff81008010);

	cr_assert_not_null(s);
	cr_assert_eq(s->addr, 0xffffffff81008000);
	cr_assert_eq(strlen(s->name), LONG_NAME_LEN);
	cr_assert_eq(strspn(s->name, "x"), LONG_NAME_LEN);
	cr_assert_null(s->module);
	/* the line before has no name: it must not have become a symbol */
	find_name(0xffffffff81009000, s->name);
}

Test(ksyms, skips_what_is_not_a_symbol)
{
	for (unsigned long a = 0xffffffff81001000; a < 0xffffffff8100a000; a += 0x100) {
		const struct ksym *s = ksyms__find(ks, a);

		cr_assert_not_null(s);
		cr_assert(strcmp(s->name, "hidden_by_kptr_restrict") && strcmp(s->name, "bad_hex") &&
			  strncmp(s->name, "data", 4) && strncmp(s->name, "bss", 3) &&
			  strcmp(s->name, "rodata_local"), "%#lx: %s", a, s->name);
	}
}

/*
 * kallsyms gives no sizes: a symbol ends where the next one of its image
 * starts (BPF programs, packed, the next program). The last one of the
 * kernel's text, of a module or of the BPF programs ends at the latest
 * with the page after the one it starts in; beyond is code loaded since
 * the reading.
 */
static const char images[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T schedule\n"
	"ffffffff81000400 T last_core\n"
	"ffffffffa0000000 t bpf_prog_6deef7357e7b4530_a\t[bpf]\n"
	"ffffffffa0000040 t bpf_prog_3b185187f1855c4c_b\t[bpf]\n"
	"ffffffffa0100000 t bpf_prog_ee0e253c78993a24_c\t[bpf]\n"
	"ffffffffc0100000 t nft_do_chain\t[nf_tables]\n"
	"ffffffffc0100800 t nft_last\t[nf_tables]\n"
	"ffffffffc0300000 t e1000_clean\t[e1000]\n"
	"fffffffffffff800 t at_the_top\t[top]\n";

static struct ksyms *bk;

static void load_images(void)
{
	bk = ksyms__load_buf(images, sizeof(images) - 1);
	cr_assert_not_null(bk);
}

static void free_images(void)
{
	ksyms__free(bk);
}

TestSuite(ksyms_bounds, .init = load_images, .fini = free_images);

static void assert_finds(unsigned long addr, const char *want)
{
	const struct ksym *s = ksyms__find(bk, addr);

	cr_assert_str_eq(s ? s->name : "(none)", want, "%#lx", addr);
}

static void assert_misses(unsigned long addr)
{
	const struct ksym *s = ksyms__find(bk, addr);

	cr_assert_null(s, "%#lx: %s, want none", addr, s ? s->name : "");
}

Test(ksyms_bounds, a_symbol_runs_to_the_next_of_its_image)
{
	assert_finds(0xffffffff810000ff, "_stext");
	assert_finds(0xffffffff810003ff, "schedule");
	assert_finds(0xffffffffc01007ff, "nft_do_chain");
	assert_finds(0xffffffffa000003f, "bpf_prog_6deef7357e7b4530_a");
}

Test(ksyms_bounds, the_last_symbol_of_the_kernel_text_is_bounded)
{
	assert_finds(0xffffffff81001fff, "last_core");
	assert_misses(0xffffffff81002000);
	assert_misses(0xffffffff9fffffff);
}

Test(ksyms_bounds, the_last_symbol_of_a_module_is_bounded)
{
	assert_finds(0xffffffffc0101fff, "nft_last");
	/* a module loaded after the reading, between two known ones */
	assert_misses(0xffffffffc0200010);
	assert_finds(0xffffffffc0301234, "e1000_clean");
	assert_misses(0xffffffffc0302000);
}

Test(ksyms_bounds, a_bpf_program_runs_to_the_next_one_the_last_is_bounded)
{
	/* packed programs: a large one is named to its end, as perf does */
	assert_finds(0xffffffffa0001fff, "bpf_prog_3b185187f1855c4c_b");
	assert_finds(0xffffffffa0050000, "bpf_prog_3b185187f1855c4c_b");
	assert_finds(0xffffffffa0100010, "bpf_prog_ee0e253c78993a24_c");
	/* a program loaded after the reading, after the last one known */
	assert_finds(0xffffffffa0101fff, "bpf_prog_ee0e253c78993a24_c");
	assert_misses(0xffffffffa0102000);
}

Test(ksyms_bounds, the_bound_of_the_top_symbol_does_not_wrap)
{
	assert_finds(0xfffffffffffff800, "at_the_top");
	assert_finds(0xffffffffffffffff, "at_the_top");
}

/* kptr_restrict: the kernel hides every address from this reader */
Test(ksyms_load, all_zero_addresses_give_eperm)
{
	static const char text[] =
		"0000000000000000 A fixed_percpu_data\n"
		"0000000000000000 T _stext\n"
		"0000000000000000 t do_one_initcall\n"
		"0000000000000000 t mod_func\t[mymod]\n";
	char *dir = make_tmpdir();
	char *path = write_in(dir, "kallsyms", text);

	errno = 0;
	cr_assert_null(ksyms__load_file(path));
	cr_assert_eq(errno, EPERM, "%s", strerror(errno));
	errno = 0;
	cr_assert_null(ksyms__load_buf(text, sizeof(text) - 1));
	cr_assert_eq(errno, EPERM, "%s", strerror(errno));
	free(path);
	rm_rf(dir);
}

/* no text symbol at all is not a hidden address: nothing there */
Test(ksyms_load, only_data_symbols_give_enoent)
{
	static const char text[] =
		"0000000000000000 A fixed_percpu_data\n"
		"ffffffff81004000 D data_global\n";

	errno = 0;
	cr_assert_null(ksyms__load_buf(text, sizeof(text) - 1));
	cr_assert_eq(errno, ENOENT, "%s", strerror(errno));
}

Test(ksyms_load, empty_input_gives_enoent)
{
	char *dir = make_tmpdir();
	char *path = write_in(dir, "kallsyms", "");

	errno = 0;
	cr_assert_null(ksyms__load_file(path));
	cr_assert_eq(errno, ENOENT);
	errno = 0;
	cr_assert_null(ksyms__load_buf("", 0));
	cr_assert_eq(errno, ENOENT);
	free(path);
	rm_rf(dir);
}

Test(ksyms_load, missing_file)
{
	errno = 0;
	cr_assert_null(ksyms__load_file("/nonexistent/kallsyms"));
	cr_assert_eq(errno, ENOENT);
}

Test(ksyms_load, buffer_is_bounded_by_its_length)
{
	static const char text[] = "ffffffff81000000 T first\nffffffff81001000 T second\n";
	struct ksyms *k;

	/* stop in the middle of the second line: "ffffffff81001000 T sec" */
	k = ksyms__load_buf(text, strlen("ffffffff81000000 T first\nffffffff81001000 T sec"));
	cr_assert_not_null(k);
	cr_assert_eq(ksyms__count(k), 2);
	cr_assert_str_eq(ksyms__find(k, 0xffffffff81001000)->name, "sec");
	ksyms__free(k);
}

Test(ksyms_load, large_file_read_past_the_first_buffer)
{
	/* ~3 MB, more than the loader's first 1 MB read buffer */
	const int n = 100000;
	char *dir = make_tmpdir(), *path = path_in(dir, "kallsyms");
	struct ksyms *k;
	FILE *f;

	f = fopen(path, "w");
	cr_assert_not_null(f);
	for (int i = n - 1; i >= 0; i--)
		fprintf(f, "%016lx t sym_%d\t[m%d]\n", 0xffffffff80000000UL + 16UL * i, i, i / 1000);
	cr_assert_eq(fclose(f), 0);
	k = ksyms__load_file(path);
	cr_assert_not_null(k, "load: %s", strerror(errno));
	cr_assert_eq(ksyms__count(k), (size_t)n);
	for (int i = 0; i < n; i += 997) {
		const struct ksym *s = ksyms__find(k, 0xffffffff80000000UL + 16UL * i + 15);
		char want[32], mod[32];

		snprintf(want, sizeof(want), "sym_%d", i);
		snprintf(mod, sizeof(mod), "m%d", i / 1000);
		cr_assert_not_null(s);
		cr_assert_str_eq(s->name, want);
		cr_assert_str_eq(s->module, mod);
	}
	ksyms__free(k);
	free(path);
	rm_rf(dir);
}

/*
 * /proc/kallsyms's shape: the kernel image's symbols sorted, then modules'
 * and BPF programs' that are not, some below the image and some between
 * its symbols: every one is found at its address after the merge.
 */
Test(ksyms_load, sorted_image_then_unsorted_modules)
{
	const int n = 3000, m = 500;
	char *dir = make_tmpdir(), *path = path_in(dir, "kallsyms");
	struct ksyms *k;
	FILE *f;

	f = fopen(path, "w");
	cr_assert_not_null(f);
	/* the image: every 64 bytes from 0xffffffff81000000 */
	for (int i = 0; i < n; i++)
		fprintf(f, "%016lx T img_%d\n", 0xffffffff81000000UL + 64UL * i, i);
	/* modules: between the image's symbols (+32), and below it, in no order */
	for (int j = 0; j < m; j++) {
		int i = (j * 7919) % n;

		if (j % 2)
			fprintf(f, "%016lx t mod_%d\t[m]\n", 0xffffffff81000000UL + 64UL * i + 32, i);
		else
			fprintf(f, "%016lx t low_%d\t[bpf]\n", 0xffffffff80000000UL + 64UL * i, i);
	}
	cr_assert_eq(fclose(f), 0);
	k = ksyms__load_file(path);
	cr_assert_not_null(k, "load: %s", strerror(errno));
	cr_assert_eq(ksyms__count(k), (size_t)(n + m));
	for (int i = 0; i < n; i++) {
		const struct ksym *s = ksyms__find(k, 0xffffffff81000000UL + 64UL * i + 31);
		char want[32];

		snprintf(want, sizeof(want), "img_%d", i);
		cr_assert_not_null(s, "%s", want);
		cr_assert_str_eq(s->name, want);
	}
	for (int j = 0; j < m; j++) {
		int i = (j * 7919) % n;
		unsigned long a = j % 2 ? 0xffffffff81000000UL + 64UL * i + 32 : 0xffffffff80000000UL + 64UL * i;
		const struct ksym *s = ksyms__find(k, a);
		char want[32];

		snprintf(want, sizeof(want), j % 2 ? "mod_%d" : "low_%d", i);
		cr_assert_not_null(s, "%s", want);
		cr_assert_str_eq(s->name, want);
	}
	ksyms__free(k);
	free(path);
	rm_rf(dir);
}

/* A line longer than the read buffer is no symbol: dropped, its neighbours kept. */
Test(ksyms_load, a_line_longer_than_the_buffer_is_dropped)
{
	size_t len = 200 * 1024;
	char *dir = make_tmpdir(), *path = path_in(dir, "kallsyms"), *name = malloc(len + 1), *text;
	struct ksyms *k;
	FILE *f;

	cr_assert_not_null(name);
	memset(name, 'x', len);
	name[len] = '\0';
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "ffffffff81000000 T before\nffffffff81001000 T %s\nffffffff81002000 T after\n", name);
	cr_assert_eq(fclose(f), 0);
	k = ksyms__load_file(path);
	cr_assert_not_null(k, "load: %s", strerror(errno));
	cr_assert_eq(ksyms__count(k), 2);
	cr_assert_str_eq(ksyms__find(k, 0xffffffff81000000)->name, "before");
	cr_assert_str_eq(ksyms__find(k, 0xffffffff81002000)->name, "after");
	ksyms__free(k);
	/* and from a buffer alike (fuzz_ksyms checks the two agree) */
	text = read_whole(path, &len);
	k = ksyms__load_buf(text, len);
	cr_assert_not_null(k);
	cr_assert_eq(ksyms__count(k), 2);
	ksyms__free(k);
	free(text);
	free(name);
	free(path);
	rm_rf(dir);
}

Test(ksyms_load, this_machine)
{
	struct ksyms *k = ksyms__load();

	/* without root kallsyms shows zeros: then ENOENT is the right answer */
	if (!k) {
		cr_assert_eq(errno, ENOENT, "load: %s", strerror(errno));
		skip_unless_ci("kallsyms addresses hidden (kptr_restrict)");
	}
	cr_assert_gt(ksyms__count(k), 1000);
	ksyms__free(k);
}

/*
 * Aliases at one kernel address: the name printed follows the rule of
 * ELF aliases (fewer leading underscores, then the longer name), not
 * the order of the lines.
 */
static const char *alias_at(const char *text)
{
	static char name[64];
	struct ksyms *ks = ksyms__load_buf(text, strlen(text));
	const struct ksym *s;

	cr_assert_not_null(ks);
	s = ksyms__find(ks, 0xffffffff81000010UL);
	cr_assert_not_null(s);
	snprintf(name, sizeof(name), "%s", s->name);
	ksyms__free(ks);
	return name;
}

Test(ksyms, aliases_at_one_address_print_one_name_whatever_their_order)
{
	const char *a = "ffffffff81000000 T __x64_sys_read\n"
			"ffffffff81000000 T ksys_read\n"
			"ffffffff81000000 t __do_sys_read\n"
			"ffffffff81000100 T next_func\n";
	const char *b = "ffffffff81000000 t __do_sys_read\n"
			"ffffffff81000000 T ksys_read\n"
			"ffffffff81000000 T __x64_sys_read\n"
			"ffffffff81000100 T next_func\n";

	cr_assert_str_eq(alias_at(a), "ksys_read");
	cr_assert_str_eq(alias_at(b), "ksys_read");
}
