// SPDX-License-Identifier: GPL-2.0
/*
 * test_ksyms_label.c - how a kernel frame is printed: a module's symbol
 * as "func [module]" (BCC's ksym(show_module=True)), the kernel image's
 * symbols bare.
 */
#include "symbols/ksyms.h"
#include "test_util.h"

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 t do_one_initcall\n"
	"ffffffffc0100000 t nft_do_chain\t[nf_tables]\n"
	"ffffffffc0100800 T nft_trace_notify\t[nf_tables]\n"
	"ffffffffc0200000 t e1000_clean\t[e1000]\n";

static const struct ksym *find(const struct ksyms *ks, unsigned long addr)
{
	const struct ksym *s = ksyms__find(ks, addr);

	cr_assert_not_null(s, "%#lx not found", addr);
	return s;
}

Test(ksyms_label, module_symbols_name_their_module)
{
	struct ksyms *ks = ksyms__load_buf(kallsyms, sizeof(kallsyms) - 1);

	cr_assert_not_null(ks);
	cr_assert_str_eq(find(ks, 0xffffffffc0100010)->label, "nft_do_chain [nf_tables]");
	cr_assert_str_eq(find(ks, 0xffffffffc0100010)->name, "nft_do_chain");
	cr_assert_str_eq(find(ks, 0xffffffffc0100010)->module, "nf_tables");
	cr_assert_str_eq(find(ks, 0xffffffffc0100800)->label, "nft_trace_notify [nf_tables]");
	cr_assert_str_eq(find(ks, 0xffffffffc0200004)->label, "e1000_clean [e1000]");
	ksyms__free(ks);
}

Test(ksyms_label, kernel_image_symbols_print_bare)
{
	struct ksyms *ks = ksyms__load_buf(kallsyms, sizeof(kallsyms) - 1);
	const struct ksym *s;

	cr_assert_not_null(ks);
	s = find(ks, 0xffffffff81001004);
	cr_assert_str_eq(s->label, "do_one_initcall");
	cr_assert_null(s->module);
	ksyms__free(ks);
}
