// SPDX-License-Identifier: GPL-2.0
/* test_trace_helpers.c - parse_long, read_long_file, parse_cpu_list. */
#include <limits.h>

#include "test_util.h"
#include "trace_helpers.h"

Test(parse_long, accepts_a_whole_decimal_number)
{
	long v = 0;

	cr_assert_eq(parse_long("12", 0, 100, &v), 0);
	cr_assert_eq(v, 12);
	cr_assert_eq(parse_long("-7", -10, 10, &v), 0);
	cr_assert_eq(v, -7);
	cr_assert_eq(parse_long("0", 0, 0, &v), 0);
	cr_assert_eq(v, 0);
}

Test(parse_long, accepts_the_bounds_of_the_range)
{
	long v = 0;

	cr_assert_eq(parse_long("1", 1, 5, &v), 0);
	cr_assert_eq(v, 1);
	cr_assert_eq(parse_long("5", 1, 5, &v), 0);
	cr_assert_eq(v, 5);
	cr_assert_eq(parse_long("9223372036854775807", LONG_MIN, LONG_MAX, &v), 0);
	cr_assert_eq(v, LONG_MAX);
}

Test(parse_long, rejects_garbage_and_leaves_out_untouched)
{
	static const char *const bad[] = {
		"12abc", "", " 12", "12 ", "\t12", "12\n", "abc", "-", "0x10", "1.5", "1e3",
	};
	long v = 4242;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		cr_assert_eq(parse_long(bad[i], LONG_MIN, LONG_MAX, &v), -EINVAL,
			     "'%s' was not rejected as invalid", bad[i]);
		cr_assert_eq(v, 4242, "'%s' changed the output", bad[i]);
	}
	cr_assert_eq(parse_long(NULL, 0, 1, &v), -EINVAL);
}

Test(parse_long, rejects_overflow_and_out_of_range)
{
	long v = 4242;

	cr_assert_eq(parse_long("9223372036854775808", LONG_MIN, LONG_MAX, &v), -ERANGE);
	cr_assert_eq(parse_long("-9223372036854775809", LONG_MIN, LONG_MAX, &v), -ERANGE);
	cr_assert_eq(parse_long("99999999999999999999999", LONG_MIN, LONG_MAX, &v), -ERANGE);
	cr_assert_eq(parse_long("0", 1, 10, &v), -ERANGE);
	cr_assert_eq(parse_long("11", 1, 10, &v), -ERANGE);
	cr_assert_eq(parse_long("-1", 0, 10, &v), -ERANGE);
	cr_assert_eq(v, 4242);
}

Test(read_long_file, reads_a_sysctl_value_with_its_newline)
{
	char *dir = make_tmpdir();
	char *path = write_in(dir, "max_stack", "127\n");
	long v = 0;

	cr_assert_eq(read_long_file(path, &v), 0);
	cr_assert_eq(v, 127);
	free(path);
	rm_rf(dir);
}

Test(read_long_file, fails_on_garbage_and_missing_files)
{
	char *dir = make_tmpdir();
	char *bad = write_in(dir, "bad", "12 apples\n");
	char *empty = write_in(dir, "empty", "");
	char *missing = path_in(dir, "missing");
	long v = 4242;

	cr_assert_eq(read_long_file(bad, &v), -EINVAL);
	cr_assert_eq(read_long_file(empty, &v), -EINVAL);
	cr_assert_eq(read_long_file(missing, &v), -ENOENT);
	cr_assert_eq(v, 4242);
	free(bad);
	free(empty);
	free(missing);
	rm_rf(dir);
}

static void assert_mask(const bool *mask, const char *want)
{
	for (size_t i = 0; want[i]; i++)
		cr_assert_eq(mask[i], want[i] == '1', "cpu %zu: want %c", i, want[i]);
}

Test(parse_cpu_list, parses_ranges_and_single_cpus)
{
	bool mask[8];

	cr_assert_eq(parse_cpu_list("0-3,5", mask, 8), 6);
	assert_mask(mask, "11110100");
	cr_assert_eq(parse_cpu_list("0-3,5\n", mask, 8), 6);
	assert_mask(mask, "11110100");
	cr_assert_eq(parse_cpu_list("7", mask, 8), 8);
	assert_mask(mask, "00000001");
	cr_assert_eq(parse_cpu_list("1,3-4,6-6", mask, 8), 7);
	assert_mask(mask, "01011010");
}

Test(parse_cpu_list, clears_the_mask_first)
{
	bool mask[4] = { true, true, true, true };

	cr_assert_eq(parse_cpu_list("2", mask, 4), 3);
	assert_mask(mask, "0010");
}

Test(parse_cpu_list, ignores_cpus_beyond_the_mask_but_counts_them)
{
	bool mask[3] = { false, false, false };

	cr_assert_eq(parse_cpu_list("1-63", mask, 2), 64);
	assert_mask(mask, "01");
	cr_assert_eq(mask[2], false, "wrote past the mask");
}

Test(parse_cpu_list, rejects_malformed_lists)
{
	static const char *const bad[] = {
		"a", "-1", "0-", "3-1", "0-3;5", "0 1", ",0", "0,,1", "0--3", "99999999999",
	};
	bool mask[8];

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		cr_assert_eq(parse_cpu_list(bad[i], mask, 8), -EINVAL,
			     "'%s' was not rejected", bad[i]);
}

Test(read_online_cpus_file, reads_the_sysfs_format)
{
	char *dir = make_tmpdir();
	char *path = write_in(dir, "online", "0-1,4\n");
	bool mask[6];

	cr_assert_eq(read_online_cpus_file(path, mask, 6), 5);
	assert_mask(mask, "110010");
	free(path);
	cr_assert_eq(read_online_cpus_file("/nonexistent/online", mask, 6), -ENOENT);
	rm_rf(dir);
}

Test(read_online_cpus, reads_this_machine)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	bool mask[4096];
	int highest, online = 0;

	highest = read_online_cpus(mask, 4096);
	cr_assert_gt(highest, 0);
	for (int i = 0; i < highest && i < 4096; i++)
		online += mask[i];
	cr_assert_eq(online, n, "online cpus: %d, sysconf says %ld", online, n);
}

Test(parse_hex, stops_at_the_first_non_digit_or_the_end)
{
	const char *s = "ffffffff81000000 T", *p = s;
	uint64_t v = 0;

	cr_assert_eq(parse_hex(&p, NULL, &v), 0);
	cr_assert_eq(v, 0xffffffff81000000);
	cr_assert_eq(p, s + 16);
	p = s;
	cr_assert_eq(parse_hex(&p, s + 4, &v), 0);
	cr_assert_eq(v, 0xffff);
	cr_assert_eq(p, s + 4);
	p = "aB9-";
	cr_assert_eq(parse_hex(&p, NULL, &v), 0);
	cr_assert_eq(v, 0xab9);
	cr_assert_eq(*p, '-');
}

Test(parse_hex, no_digit_or_too_many_fail_and_move_nothing)
{
	const char *bad[] = { "", " 1", "x1", "g", "10000000000000000" };
	const char *twelve = "12", *p = twelve;
	uint64_t v = 7;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *q = bad[i];

		cr_assert_eq(parse_hex(&q, NULL, &v), i == 4 ? -ERANGE : -EINVAL, "'%s'", bad[i]);
		cr_assert_eq(q, bad[i]);
		cr_assert_eq(v, 7);
	}
	/* a bound before the first digit is no digit */
	cr_assert_eq(parse_hex(&p, twelve, &v), -EINVAL);
}
