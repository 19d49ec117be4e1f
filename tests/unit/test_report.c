// SPDX-License-Identifier: GPL-2.0
/*
 * test_report.c - resolving an aggregate into printed frames: kernel
 * return addresses are looked up one byte back, as user ones are, so a
 * call that ends a function names that function and not the next one.
 */
#include "aggregate.h"
#include "cli.h"
#include "report.h"
#include "test_util.h"
#include "usyms.h"

static const char kallsyms[] =
	"ffffffff81000000 T caller\n"
	"ffffffff81000010 T next_func\n"
	"ffffffff81000100 T leaf_func\n"
	"ffffffff81000200 T end_of_text\n";

/* Folded output of one kernel-only stack, leaf first. */
static char *folded_kernel(const uint64_t *ips, uint32_t nr)
{
	struct profile_env env = {
		.kernel_only = true, .folded = true, .format = FORMAT_FOLDED,
		.max_stack_depth = 127,
	};
	struct agg_stack kern = { .ips = ips, .nr = nr }, user = { .err = -EFAULT };
	struct report_meta meta = { .event = "cpu-clock", .title = "t" };
	struct usyms *u = usyms__new(NULL);
	struct agg *agg = agg__new();
	char *dir = make_tmpdir(), *path = write_in(dir, "kallsyms", kallsyms);
	struct report *r;
	char *text = NULL;
	size_t len = 0;
	uint64_t printed = 0;
	FILE *out;

	cr_assert(u && agg);
	r = report__new(&env, u);
	cr_assert_not_null(r);
	cr_assert_eq(report__use_kallsyms(r, path), 0);
	cr_assert_eq(agg__add(agg, &(struct agg_key){ .pid = 0, .tid = 0, .comm = "swapper/0" },
			      &kern, &user, 7), 0);
	out = open_memstream(&text, &len);
	cr_assert_not_null(out);
	cr_assert_eq(report__write(r, agg, &meta, out, &printed), 0);
	fclose(out);
	cr_assert_eq(printed, 7);
	report__free(r);
	agg__free(agg);
	usyms__free(u);
	free(path);
	rm_rf(dir);
	return text;
}

Test(report, kernel_return_address_at_a_function_end_names_the_caller)
{
	/* the call in caller is its last instruction: it returns to next_func's first byte */
	const uint64_t ips[] = { 0xffffffff81000104, 0xffffffff81000010 };
	char *text = folded_kernel(ips, 2);

	cr_assert(strstr(text, "caller;leaf_func 7"), "got: %s", text);
	free(text);
}

Test(report, kernel_leaf_is_looked_up_at_its_own_address)
{
	/* the interrupted instruction itself: the first byte of next_func is next_func */
	const uint64_t ips[] = { 0xffffffff81000010 };
	char *text = folded_kernel(ips, 1);

	cr_assert(strstr(text, "next_func 7"), "got: %s", text);
	free(text);
}
