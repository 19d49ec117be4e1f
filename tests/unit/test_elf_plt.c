// SPDX-License-Identifier: GPL-2.0
/*
 * test_elf_plt.c - PLT stubs named "func@plt" (elf_plt.c, through
 * debuginfo.c as the profiler loads files): programs built here in each
 * layout GNU ld and lld make (lazy .plt, -z now, .plt.sec for IBT,
 * .plt.got, an IFUNC), stripped or not, and this machine's libc; every
 * stub is checked against objdump's <func@plt> labels and every byte of
 * the PLT sections is named (never _init). Corrupt files:
 * test_elf_plt_corrupt.c.
 */
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>

#include "symbols/elf_plt.h"
#include "symbols/elf_read.h"
#include "plt_fixtures.h"

static const struct variant lazy = { "lazy", "gcc -fcf-protection=none -Wl,-z,lazy", ".plt" };
static const struct variant now = { "now", "gcc -fcf-protection=none -Wl,-z,now", ".plt.got" };
static const struct variant ibt = {
	"ibt", "gcc -fcf-protection=full -Wl,-z,ibtplt,-z,lazy", ".plt.sec",
};
static const struct variant ibt_now = {
	"ibt_now", "gcc -fcf-protection=full -Wl,-z,ibtplt,-z,now", ".plt.sec",
};
static const struct variant nopie = {
	"nopie", "gcc -fcf-protection=none -no-pie -Wl,-z,lazy", ".plt",
};
static const struct variant lib = {
	"lib.so", "gcc -fcf-protection=none -fPIC -shared -DENTRY=lib_entry", ".plt.got",
};
/* lld leaves sh_entsize 0 and puts .plt after .text */
static const struct variant lld = { "lld", "clang -fuse-ld=lld", ".plt" };
static const struct variant lld_ibt = {
	"lld_ibt", "clang -fcf-protection=full -fuse-ld=lld -Wl,-z,force-ibt", ".plt.sec",
};

TestSuite(elf_plt, .init = make_tmp, .fini = drop_tmp);

static void assert_has_section(const char *path, const char *name)
{
	struct plt_section secs[8];
	size_t n = plt_sections(path, secs, ARRAY_SIZE(secs));

	for (size_t i = 0; i < n; i++)
		if (!strcmp(secs[i].name, name))
			return;
	cr_assert_fail("'%s' has no %s: the toolchain did not build the layout under test",
		       path, name);
}

/*
 * Every stub objdump labels has that name, sized to its entry; every byte
 * of the PLT sections is in a stub or in the section's own symbol; no
 * stub is named that objdump does not label. Returns how many stubs.
 */
static size_t assert_named_as_objdump(const char *path, const struct elf_symtab *st)
{
	struct plt_section secs[8];
	size_t nr_secs = plt_sections(path, secs, ARRAY_SIZE(secs)), named = 0;
	struct label *labels;
	size_t n = objdump_stubs(path, &labels);
	char want[600];

	cr_assert_gt(n, 0, "objdump labels no stub in '%s'", path);
	for (size_t i = 0; i < n; i++) {
		const struct elf_sym *s = elf_symtab__find(st, labels[i].addr);

		expected_name(st, &labels[i], want, sizeof(want));
		cr_assert_not_null(s, "%s: stub %s at %#" PRIx64 " not found", path, want,
				   labels[i].addr);
		cr_assert_str_eq(s->name, want, "%s: stub at %#" PRIx64, path, labels[i].addr);
		cr_assert_eq(s->addr, labels[i].addr);
		cr_assert(s->size == 8 || s->size == 16, "%s: %s of %" PRIu64 " bytes", path,
			  s->name, s->size);
		cr_assert_eq(elf_symtab__find(st, s->addr + s->size - 1), s);
	}
	for (size_t i = 0; i < nr_secs; i++) {
		const struct elf_sym *prev = NULL;

		for (uint64_t a = secs[i].addr; a < secs[i].addr + secs[i].size; a++) {
			const struct elf_sym *s = elf_symtab__find(st, a);

			cr_assert_not_null(s, "%s: %#" PRIx64 " in %s has no name", path, a,
					   secs[i].name);
			cr_assert(ends_with(s->name, "@plt") || is_plt_section_name(s->name),
				  "%s: %#" PRIx64 " in %s is in %s", path, a, secs[i].name, s->name);
			if (s != prev && ends_with(s->name, "@plt"))
				named++;
			prev = s;
		}
		if (secs[i].entsize == 8 || secs[i].entsize == 16) {
			const struct elf_sym *s = elf_symtab__find(st, secs[i].addr + secs[i].size - 1);

			cr_assert(!ends_with(s->name, "@plt") || s->size == secs[i].entsize,
				  "%s: %s of %" PRIu64 " bytes in %s", path, s->name, s->size,
				  secs[i].name);
		}
	}
	cr_assert_eq(named, n, "%s: %zu stubs named, objdump labels %zu", path, named, n);
	free(labels);
	return n;
}

/* The stub that jumps to func (its objdump label func@plt): its address. */
static uint64_t stub_of(const char *path, const char *func)
{
	struct label *labels;
	size_t n = objdump_stubs(path, &labels);
	char want[600];
	uint64_t addr = 0;

	snprintf(want, sizeof(want), "%s@plt", func);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(labels[i].name, want))
			addr = labels[i].addr;
	free(labels);
	cr_assert_neq(addr, 0, "objdump labels no %s in '%s'", want, path);
	return addr;
}

/* Built as v, loaded as the profiler loads it, named as objdump names it. */
static void check_variant(const struct variant *v)
{
	char *bin = build(v);
	struct elf_symtab *st;

	assert_has_section(bin, v->section);
	st = load(bin, NULL);
	assert_named_as_objdump(bin, st);
	elf_symtab__free(st);
	free(bin);
}

/* The IFUNC's stub: named by the function, where objdump says *ABS*+0x... */
static void assert_ifunc_named(const char *path, const struct elf_symtab *st)
{
	struct label *labels;
	size_t n = objdump_stubs(path, &labels), found = 0;

	for (size_t i = 0; i < n; i++) {
		const struct elf_sym *s = elf_symtab__find(st, labels[i].addr);

		if (!strncmp(labels[i].name, "*ABS*+", 6) || !strcmp(labels[i].name, "twice@plt")) {
			cr_assert_str_eq(s->name, "twice@plt");
			found++;
		}
	}
	cr_assert_eq(found, 1, "%zu stubs of the IFUNC in '%s'", found, path);
	free(labels);
}

Test(elf_plt, lazy_plt_after_its_header)
{
	char *bin = build(&lazy);
	struct elf_symtab *st = load(bin, NULL);
	struct plt_section secs[8];
	size_t n = plt_sections(bin, secs, ARRAY_SIZE(secs));

	assert_named_as_objdump(bin, st);
	assert_ifunc_named(bin, st);
	cr_assert_str_eq(elf_symtab__find(st, stub_of(bin, "puts"))->name, "puts@plt");
	/* _init, of no size, before .plt: it used to run on over the PLT */
	cr_assert(n > 0 && !strcmp(secs[0].name, ".plt"));
	cr_assert_str_eq(elf_symtab__find(st, secs[0].addr - 1)->name, "_init");
	cr_assert_str_eq(elf_symtab__find(st, secs[0].addr)->name, ".plt", "the lazy-binding header");
	cr_assert_str_eq(elf_symtab__find(st, secs[0].addr + 15)->name, ".plt");
	elf_symtab__free(st);
	free(bin);
}

Test(elf_plt, bind_now)
{
	check_variant(&now);
}

Test(elf_plt, ibt_plt_sec)
{
	check_variant(&ibt);
}

Test(elf_plt, ibt_plt_sec_bind_now)
{
	check_variant(&ibt_now);
}

Test(elf_plt, non_pie_executable)
{
	check_variant(&nopie);
}

Test(elf_plt, shared_library_plt_got)
{
	char *bin = build(&lib);
	struct elf_symtab *st = load(bin, NULL);

	assert_has_section(bin, ".plt.got");
	assert_named_as_objdump(bin, st);
	/* its own exported IFUNC goes through .dynsym: JUMP_SLOT, not IRELATIVE */
	assert_ifunc_named(bin, st);
	cr_assert_str_eq(elf_symtab__find(st, stub_of(bin, "memcmp"))->name, "memcmp@plt");
	elf_symtab__free(st);
	free(bin);
}

Test(elf_plt, lld_plt)
{
	check_variant(&lld);
}

Test(elf_plt, lld_ibt_plt_sec)
{
	check_variant(&lld_ibt);
}

/* Its IFUNC relocations come last in .rela.plt, their stubs first in .plt. */
Test(elf_plt, this_machines_libc)
{
	char path[4096];
	FILE *p = popen("gcc -print-file-name=libc.so.6", "r");
	struct elf_symtab *st;

	cr_assert_not_null(p);
	cr_assert_not_null(fgets(path, sizeof(path), p));
	pclose(p);
	path[strcspn(path, "\n")] = '\0';
	cr_assert_eq(path[0], '/', "no libc.so.6: %s", path);
	st = load(path, NULL);
	cr_assert_gt(assert_named_as_objdump(path, st), 10);
	elf_symtab__free(st);
}

/* The symbols from a debug file, the stubs from the binary: the debug file's PLT is NOBITS. */
Test(elf_plt, stubs_come_from_the_binary_beside_a_debug_file)
{
	char *full = build(&ibt), *dbg = path_in(tmp, "ibt.debug"), *bare = path_in(tmp, "bare"),
	     *bin = path_in(tmp, "stripped");
	struct debuginfo_info info;
	struct elf_symtab *st;
	Elf *elf;
	int fd;

	run("objcopy --only-keep-debug '%s' '%s' && strip -o '%s' '%s' && "
	    "cd '%s' && objcopy --add-gnu-debuglink=ibt.debug bare stripped",
	    full, dbg, bare, full, tmp);
	st = load(bin, &info);
	cr_assert_eq(info.source, DEBUGINFO_DEBUGLINK);
	assert_named_as_objdump(bin, st);
	assert_ifunc_named(bin, st);
	elf_symtab__free(st);
	/* the debug file alone has none to give */
	fd = open(dbg, O_RDONLY);
	cr_assert_geq(fd, 0);
	elf = elf_read__begin(fd, NULL);
	cr_assert_not_null(elf);
	cr_assert_null(elf_plt__load(elf, NULL, NULL));
	cr_assert_eq(errno, ENOENT);
	elf_end(elf);
	close(fd);
	free(full);
	free(dbg);
	free(bare);
	free(bin);
}

Test(elf_plt, stubs_of_a_stripped_file_with_minidebuginfo)
{
	char *full = build(&now), *bin = path_in(tmp, "mini"), *mini = path_in(tmp, "mini.debug");
	struct debuginfo_info info;
	struct elf_symtab *st;

	/* as Fedora makes it, but keeping every symbol: an xz'ed debug file in .gnu_debugdata */
	run("objcopy --only-keep-debug -R .debug_info -R .debug_line -R .debug_abbrev '%s' '%s' && "
	    "xz -f '%s' && strip -o '%s.bare' '%s' && "
	    "objcopy --add-section .gnu_debugdata='%s.xz' '%s.bare' '%s'",
	    full, mini, mini, bin, full, mini, bin, bin);
	st = load(bin, &info);
	cr_assert_eq(info.source, DEBUGINFO_MINIDEBUGINFO);
	assert_named_as_objdump(bin, st);
	elf_symtab__free(st);
	free(full);
	free(mini);
	free(bin);
}

Test(elf_plt, stubs_of_a_stripped_file_alone)
{
	char *full = build(&lazy), *bin = path_in(tmp, "alone");
	struct debuginfo_info info;
	struct elf_symtab *st;

	run("strip -o '%s' '%s'", bin, full);
	st = load(bin, &info);
	cr_assert_eq(info.source, DEBUGINFO_NONE);
	assert_named_as_objdump(bin, st);
	elf_symtab__free(st);
	free(full);
	free(bin);
}

/* A debug file fetched from debuginfod (debuginfo__load_with_debug_fd): the binary's stubs too. */
Test(elf_plt, stubs_with_a_fetched_debug_file)
{
	char *full = build(&ibt_now), *dbg = path_in(tmp, "fetched.debug"),
	     *bin = path_in(tmp, "fetched");
	struct debuginfo_info info;
	struct elf_symtab *st;
	int fd, dfd;

	run("objcopy --only-keep-debug '%s' '%s' && strip -o '%s' '%s'", full, dbg, bin, full);
	fd = open(bin, O_RDONLY);
	dfd = open(dbg, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_geq(dfd, 0);
	st = debuginfo__load_with_debug_fd(fd, dfd, NULL, &info);
	cr_assert_not_null(st, "%s", strerror(errno));
	cr_assert_eq(info.source, DEBUGINFO_DEBUGINFOD);
	assert_named_as_objdump(bin, st);
	assert_ifunc_named(bin, st);
	elf_symtab__free(st);
	close(dfd);
	close(fd);
	free(full);
	free(dbg);
	free(bin);
}

/* A real function symbol at a stub's address keeps its name, in the file's .symtab or a debug file's. */
Test(elf_plt, a_real_symbol_at_a_stub_wins)
{
	char *full = build(&lazy), *real = path_in(tmp, "real"), *dbg = path_in(tmp, "real.debug"),
	     *bare = path_in(tmp, "bare"), *bin = path_in(tmp, "stripped");
	uint64_t puts_stub = stub_of(full, "puts"), strlen_stub = stub_of(full, "strlen");
	const char *paths[] = { real, bin };

	run("objcopy --add-symbol real_at_stub=%#" PRIx64 ",function,global '%s' '%s'",
	    puts_stub, full, real);
	run("objcopy --only-keep-debug '%s' '%s' && strip -o '%s' '%s' && "
	    "cd '%s' && objcopy --add-gnu-debuglink=real.debug bare stripped",
	    real, dbg, bare, real, tmp);
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		struct elf_symtab *st = load(paths[i], NULL);

		cr_assert_str_eq(elf_symtab__find(st, puts_stub)->name, "real_at_stub", "%s",
				 paths[i]);
		cr_assert_str_eq(elf_symtab__find(st, strlen_stub)->name, "strlen@plt", "%s",
				 paths[i]);
		elf_symtab__free(st);
	}
	free(full);
	free(real);
	free(dbg);
	free(bare);
	free(bin);
}

/* C++ stubs print demangled, as perf prints them. */
Test(elf_plt, cxx_stubs_by_their_mangled_names)
{
	char *src = path_in(tmp, "cxx.cc"), *bin = path_in(tmp, "cxx");
	struct elf_symtab *st;

	write_text(src, "#include <string>\n"
			"int main(int argc, char **argv) { std::string s(argv[0]); s += 'x';"
			" return (int)s.size() + argc; }\n");
	run("g++ -O1 -fcf-protection=none '%s' -o '%s'", src, bin);
	st = load(bin, NULL);
	assert_named_as_objdump(bin, st);
	elf_symtab__free(st);
	free(src);
	free(bin);
}
