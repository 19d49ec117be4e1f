// SPDX-License-Identifier: GPL-2.0
/*
 * test_demangle.c - C++ and Rust names made readable: the wrapper on its
 * own, and a C++ program's frames through usyms, demangled by default and
 * left as they are when asked.
 */
#include "symbols/demangle.h"
#include "sym_fixtures.h"
#include "symbols/usyms.h"

static void assert_demangles(const char *mangled, const char *want)
{
	char *d = demangle__name(mangled);

	cr_assert_not_null(d, "'%s' not demangled", mangled);
	cr_assert_str_eq(d, want);
	free(d);
}

static void assert_left_alone(const char *name)
{
	errno = 0;
	cr_assert_null(demangle__name(name), "'%s' was demangled", name);
	cr_assert_eq(errno, ENOENT);
}

Test(demangle, itanium_cxx)
{
	assert_demangles("_ZN5outer5inner5scaleEid", "outer::inner::scale(int, double)");
	assert_demangles("_ZNK5outer5inner3BoxIlE5twiceEv", "outer::inner::Box<long>::twice() const");
	assert_demangles("_ZN5outer5inner4pickIjEET_S2_S2_",
			 "unsigned int outer::inner::pick<unsigned int>(unsigned int, unsigned int)");
	assert_demangles("_ZSt4cout", "std::cout");
}

Test(demangle, plt_stub_keeps_its_suffix)
{
	assert_demangles("_ZN5outer5inner5scaleEid@plt", "outer::inner::scale(int, double)@plt");
	assert_demangles("_ZdlPv@plt", "operator delete(void*)@plt");
	assert_left_alone("memcmp@plt");
	assert_left_alone("_Z@plt");
	assert_left_alone("_ZN5outer5inner5scaleEid@pl");
}

Test(demangle, rust_legacy_drops_the_hash)
{
	assert_demangles("_ZN4core3ptr13drop_in_place17h1234567890abcdefE", "core::ptr::drop_in_place");
}

Test(demangle, rust_v0)
{
	assert_demangles("_RNvCs15kBYyAo9fc_7mycrate7example", "mycrate::example");
}

Test(demangle, c_names_and_lookalikes_are_left_alone)
{
	assert_left_alone("main");
	assert_left_alone("__libc_start_main");
	assert_left_alone("_start");
	assert_left_alone("_Rlock_held");	/* looks like Rust v0, is not */
	assert_left_alone("_Z");
	assert_left_alone("");
	cr_assert_not(demangle__maybe_mangled("memcpy"));
	cr_assert(demangle__maybe_mangled("_ZN1a1bEv"));
}

/* --- through usyms, on the C++ fixture in a fake /proc ------------------- */

#define BIAS 0x7f1000000000ULL

static char *tmp, *proc_root;

static void setup(void)
{
	char *maps;

	tmp = make_tmpdir();
	proc_root = path_in(tmp, "proc/x");
	proc_root[strlen(proc_root) - 2] = '\0';
	maps = exec_mapping_line(FIXTURE_CXX, BIAS, NULL);
	fake_process(proc_root, 42, maps, getuid(), 42, NULL);
	free(maps);
}

static void teardown(void)
{
	free(proc_root);
	rm_rf(tmp);
}

TestSuite(demangle_usyms, .init = setup, .fini = teardown);

static void assert_frame(struct usyms *u, const char *mangled, const char *want)
{
	uint64_t addr, size;
	struct usym sym;

	nm_symbol(FIXTURE_CXX, mangled, &addr, &size);
	cr_assert_eq(usyms__resolve(u, 42, BIAS + addr + 1, &sym), 0, "%s", mangled);
	cr_assert_str_eq(sym.name, want);
	cr_assert_eq(sym.offset, 1);
}

Test(demangle_usyms, cxx_frames_are_demangled_by_default)
{
	struct usyms *u = usyms__new(proc_root);

	cr_assert_not_null(u);
	assert_frame(u, "_ZN5outer5inner5scaleEid", "outer::inner::scale(int, double)");
	assert_frame(u, "_ZNK5outer5inner3BoxIlE5twiceEv", "outer::inner::Box<long>::twice() const");
	assert_frame(u, "_ZN5outer5inner4pickIjEET_S2_S2_",
		     "unsigned int outer::inner::pick<unsigned int>(unsigned int, unsigned int)");
	assert_frame(u, "plain_c_function", "plain_c_function");
	assert_frame(u, "main", "main");
	/* asked again: the same string, from the cache */
	{
		uint64_t addr, size;
		struct usym a, b;

		nm_symbol(FIXTURE_CXX, "_ZN5outer5inner5scaleEid", &addr, &size);
		cr_assert_eq(usyms__resolve(u, 42, BIAS + addr, &a), 0);
		cr_assert_eq(usyms__resolve(u, 42, BIAS + addr + 2, &b), 0);
		cr_assert_eq(a.name, b.name, "demangled twice");
	}
	usyms__free(u);
}

Test(demangle_usyms, no_demangle_keeps_mangled_names)
{
	struct usyms_opts opts = { .proc_root = proc_root, .demangle = false };
	struct usyms *u = usyms__new_opts(&opts);

	cr_assert_not_null(u);
	assert_frame(u, "_ZN5outer5inner5scaleEid", "_ZN5outer5inner5scaleEid");
	assert_frame(u, "_ZNK5outer5inner3BoxIlE5twiceEv", "_ZNK5outer5inner3BoxIlE5twiceEv");
	usyms__free(u);
}
