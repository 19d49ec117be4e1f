// SPDX-License-Identifier: GPL-2.0
/* test_sym_nest.c - functions nested in others, on symbol arrays the tests write. */
#include "symbols/sym_nest.h"
#include "test_util.h"

/* Like elf_symtab__find over syms: the nearest below, else the enclosing one. */
static const char *lookup(const struct sym_nest *n, const struct elf_sym *syms, size_t nr,
			  uint64_t vaddr)
{
	const struct elf_sym *e;
	size_t i = nr;

	while (i > 0 && syms[i - 1].addr > vaddr)
		i--;
	if (!i)
		return "(none)";
	i--;
	if (!syms[i].size || vaddr - syms[i].addr < syms[i].size)
		return syms[i].name;
	e = sym_nest__enclosing(n, syms, i, vaddr);
	return e ? e->name : "(none)";
}

Test(sym_nest, nothing_is_built_without_nesting)
{
	const struct elf_sym syms[] = {
		{ 0x100, 0x10, "a" }, { 0x110, 0, "b" }, { 0x200, 0x20, "c" },
	};
	struct sym_nest *n = (void *)1;

	cr_assert_eq(sym_nest__build(syms, ARRAY_SIZE(syms), &n), 0);
	cr_assert_null(n);
	cr_assert_null(sym_nest__enclosing(NULL, syms, 0, 0x150));
}

Test(sym_nest, siblings_inside_one_function)
{
	const struct elf_sym syms[] = {
		{ 0x100, 0x100, "outer" }, { 0x110, 0x10, "in1" }, { 0x140, 0x10, "in2" },
		{ 0x300, 0x10, "next" },
	};
	struct sym_nest *n;

	cr_assert_eq(sym_nest__build(syms, ARRAY_SIZE(syms), &n), 0);
	cr_assert_not_null(n);
	cr_assert_str_eq(lookup(n, syms, 4, 0x11f), "in1");
	cr_assert_str_eq(lookup(n, syms, 4, 0x120), "outer");
	cr_assert_str_eq(lookup(n, syms, 4, 0x14f), "in2");
	cr_assert_str_eq(lookup(n, syms, 4, 0x150), "outer");
	cr_assert_str_eq(lookup(n, syms, 4, 0x1ff), "outer");
	cr_assert_str_eq(lookup(n, syms, 4, 0x200), "(none)");
	cr_assert_str_eq(lookup(n, syms, 4, 0x310), "(none)");
	sym_nest__free(n);
}

Test(sym_nest, a_nested_function_ending_with_its_encloser)
{
	const struct elf_sym syms[] = { { 0x100, 0x40, "outer" }, { 0x120, 0x20, "tail" } };
	struct sym_nest *n;

	cr_assert_eq(sym_nest__build(syms, 2, &n), 0);
	cr_assert_str_eq(lookup(n, syms, 2, 0x13f), "tail");
	cr_assert_str_eq(lookup(n, syms, 2, 0x140), "(none)");
	sym_nest__free(n);
}

Test(sym_nest, overlapping_without_nesting_resumes_the_one_still_open)
{
	/* b starts inside a and outlives it; c inside b */
	const struct elf_sym syms[] = {
		{ 0x100, 0x40, "a" }, { 0x120, 0x60, "b" }, { 0x130, 0x08, "c" },
	};
	struct sym_nest *n;

	cr_assert_eq(sym_nest__build(syms, 3, &n), 0);
	cr_assert_str_eq(lookup(n, syms, 3, 0x138), "b");
	cr_assert_str_eq(lookup(n, syms, 3, 0x150), "b");
	cr_assert_str_eq(lookup(n, syms, 3, 0x17f), "b");
	cr_assert_str_eq(lookup(n, syms, 3, 0x180), "(none)");
	sym_nest__free(n);
}

Test(sym_nest, a_size_running_past_the_top_does_not_wrap)
{
	const struct elf_sym syms[] = {
		{ 0x100, UINT64_MAX, "huge" }, { 0x200, 0x10, "inner" },
	};
	struct sym_nest *n;

	cr_assert_eq(sym_nest__build(syms, 2, &n), 0);
	cr_assert_str_eq(lookup(n, syms, 2, 0x210), "huge");
	cr_assert_str_eq(lookup(n, syms, 2, UINT64_MAX - 1), "huge");
	sym_nest__free(n);
}
