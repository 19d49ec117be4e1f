// SPDX-License-Identifier: GPL-2.0
/*
 * test_elf_plt.c - PLT stubs named "func@plt" (elf_plt.c, through
 * debuginfo.c as the profiler loads files): programs built here in each
 * layout GNU ld and lld make (lazy .plt, -z now, .plt.sec for IBT,
 * .plt.got, an IFUNC), stripped or not, and this machine's libc; every
 * stub is checked against objdump's <func@plt> labels and every byte of
 * the PLT sections is named (never _init). Then files made corrupt, which
 * must load and name no stub wrongly.
 */
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>

#include "debuginfo.h"
#include "elf_plt.h"
#include "elf_read.h"
#include "elf_symtab.h"
#include "sym_fixtures.h"

/* Calls through the PLT, a GOT reference to one of them (.plt.got), an IFUNC. */
static const char prog_src[] =
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"#include <string.h>\n"
	"#ifndef ENTRY\n"
	"#define ENTRY main\n"
	"#endif\n"
	"static int twice_impl(void) { return 2; }\n"
	"static int (*resolve_twice(void))(void) { return twice_impl; }\n"
	"int twice(void) __attribute__((ifunc(\"resolve_twice\")));\n"
	"int ENTRY(int argc, char **argv)\n"
	"{\n"
	"	int (*volatile pick)(const void *, const void *, size_t) = memcmp;\n"
	"	char buf[64], *p = malloc(16);\n"
	"	snprintf(buf, sizeof(buf), \"%d\", argc);\n"
	"	puts(buf);\n"
	"	free(p);\n"
	"	return (int)strlen(argv[0]) + memcmp(buf, argv[0], 1) + pick(buf, buf, 1) + twice();\n"
	"}\n";

struct variant {
	const char *name;
	const char *cc;		/* compiler and flags */
	const char *section;	/* a PLT section it must have */
};

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

static char *tmp;

static void make_tmp(void)
{
	tmp = make_tmpdir();
}

static void drop_tmp(void)
{
	rm_rf(tmp);
	tmp = NULL;
}

TestSuite(elf_plt, .init = make_tmp, .fini = drop_tmp);
TestSuite(elf_plt_corrupt, .init = make_tmp, .fini = drop_tmp);

static void run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void run(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* The program built as v into tmp; its path. */
static char *build(const struct variant *v)
{
	char *src = path_in(tmp, "plt_prog.c"), *out = path_in(tmp, v->name);

	write_text(src, prog_src);
	run("%s -O1 -g -fno-builtin '%s' -o '%s' 2>/dev/null", v->cc, src, out);
	free(src);
	return out;
}

struct plt_section {
	char name[32];
	uint64_t addr, size, entsize;
};

/* The PLT sections with code (not a debug file's NOBITS), from readelf. */
static size_t plt_sections(const char *path, struct plt_section *out, size_t max)
{
	char cmd[4200], line[512], name[32], type[32];
	uint64_t addr, off, size, es;
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -SW '%s'", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, " [%*d] %31s %31s %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64,
			   name, type, &addr, &off, &size, &es) != 6 ||
		    strcmp(type, "PROGBITS") ||
		    (strcmp(name, ".plt") && strcmp(name, ".plt.sec") && strcmp(name, ".plt.got")))
			continue;
		cr_assert_lt(n, max);
		out[n] = (struct plt_section){ .addr = addr, .size = size, .entsize = es };
		snprintf(out[n].name, sizeof(out[n].name), "%s", name);
		n++;
	}
	cr_assert_eq(pclose(p), 0, "readelf failed on '%s'", path);
	return n;
}

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

struct label {
	uint64_t addr;
	char name[512];
};

/* objdump's <name@plt> labels, one per stub (not "<puts@plt-0x10>" nor "<.plt>"). */
static size_t objdump_stubs(const char *path, struct label **out)
{
	char cmd[4200], line[1024];
	struct label l, *labels = NULL;
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump -d -j .plt -j .plt.sec -j .plt.got '%s' 2>/dev/null",
		 path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%" SCNx64 " <%511[^>]>:", &l.addr, l.name) != 2 ||
		    !ends_with(l.name, "@plt"))
			continue;
		labels = realloc(labels, (n + 1) * sizeof(*labels));
		cr_assert_not_null(labels);
		labels[n++] = l;
	}
	cr_assert_eq(pclose(p), 0, "objdump failed on '%s'", path);
	*out = labels;
	return n;
}

/*
 * What a stub objdump labels l must be named: its label, but for an
 * IFUNC's, "*ABS*+0xADDR@plt", the name of the function at ADDR when the
 * table has one there (objdump does not look).
 */
static void expected_name(const struct elf_symtab *st, const struct label *l, char *buf,
			  size_t size)
{
	const struct elf_sym *f;
	uint64_t resolver;

	snprintf(buf, size, "%s", l->name);
	if (sscanf(l->name, "*ABS*+%" SCNx64 "@plt", &resolver) != 1)
		return;
	f = elf_symtab__find(st, resolver);
	if (f && f->addr == resolver)
		snprintf(buf, size, "%s@plt", f->name);
}

static bool is_plt_section_name(const char *name)
{
	return !strcmp(name, ".plt") || !strcmp(name, ".plt.sec") || !strcmp(name, ".plt.got");
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

static struct elf_symtab *load(const char *path, struct debuginfo_info *info)
{
	struct elf_symtab *st = debuginfo__load_file(path, NULL, info);

	cr_assert_not_null(st, "load '%s': %s", path, strerror(errno));
	return st;
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

/* --- corrupt files ------------------------------------------------------ */

struct image {
	unsigned char *p;
	size_t len;
};

static struct image read_image(const char *path)
{
	struct image im;

	im.p = (unsigned char *)read_whole(path, &im.len);
	cr_assert_geq(im.len, sizeof(Elf64_Ehdr));
	return im;
}

static Elf64_Shdr *shdr_named(struct image *im, const char *name)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)im->p;
	Elf64_Shdr *sh = (Elf64_Shdr *)(im->p + eh->e_shoff);
	const char *names = (const char *)im->p + sh[eh->e_shstrndx].sh_offset;

	for (size_t i = 0; i < eh->e_shnum; i++)
		if (!strcmp(names + sh[i].sh_name, name))
			return &sh[i];
	cr_assert_fail("no section %s", name);
	return NULL;
}

/* The image written to tmp/name and loaded as the profiler loads it: it must load. */
static struct elf_symtab *load_image(const struct image *im, const char *name)
{
	char *path = path_in(tmp, name);
	struct elf_symtab *st;

	write_bytes(path, im->p, im->len);
	st = load(path, NULL);
	free(path);
	return st;
}

/*
 * No stub of the intact file (labels) has a name that is not its own.
 * Returns how many have their own.
 */
static size_t assert_none_misnamed(const struct elf_symtab *st, const struct label *labels,
				   size_t n)
{
	size_t named = 0;
	char want[600];

	for (size_t i = 0; i < n; i++) {
		const struct elf_sym *s = elf_symtab__find(st, labels[i].addr);

		if (!s || !ends_with(s->name, "@plt"))
			continue;
		expected_name(st, &labels[i], want, sizeof(want));
		cr_assert_str_eq(s->name, want, "stub at %#" PRIx64, labels[i].addr);
		named++;
	}
	return named;
}

/* The lazy program, its stubs as objdump labels them, and its image. */
static char *corrupt_setup(struct label **labels, size_t *n, struct image *im)
{
	char *bin = build(&lazy);

	*n = objdump_stubs(bin, labels);
	cr_assert_gt(*n, 4);
	*im = read_image(bin);
	return bin;
}

Test(elf_plt_corrupt, truncated_rela_plt)
{
	struct label *labels;
	struct image im;
	size_t n;
	char *bin = corrupt_setup(&labels, &n, &im);
	Elf64_Shdr *rela = shdr_named(&im, ".rela.plt");
	uint64_t size = rela->sh_size, off = rela->sh_offset;
	struct elf_symtab *st;
	size_t named;

	/* half of its relocations */
	rela->sh_size = size / sizeof(Elf64_Rela) / 2 * sizeof(Elf64_Rela);
	st = load_image(&im, "half");
	named = assert_none_misnamed(st, labels, n);
	cr_assert_lt(named, n);
	elf_symtab__free(st);
	/* and part of one more (libelf refuses the section) */
	rela->sh_size += 7;
	st = load_image(&im, "ragged");
	assert_none_misnamed(st, labels, n);
	elf_symtab__free(st);
	/* running past the end of the file: none of its stubs named */
	rela->sh_size = size;
	rela->sh_offset = im.len - 8;
	st = load_image(&im, "past_eof");
	cr_assert_lt(assert_none_misnamed(st, labels, n), named);
	elf_symtab__free(st);
	rela->sh_offset = off;
	free(im.p);
	free(labels);
	free(bin);
}

Test(elf_plt_corrupt, symbol_index_past_dynsym)
{
	struct label *labels;
	struct image im;
	size_t n;
	char *bin = corrupt_setup(&labels, &n, &im);
	Elf64_Shdr *rela = shdr_named(&im, ".rela.plt"), *dynsym = shdr_named(&im, ".dynsym");
	Elf64_Rela *r = (Elf64_Rela *)(im.p + rela->sh_offset);
	uint32_t nr_dynsym = dynsym->sh_size / sizeof(Elf64_Sym);
	size_t jump_slots = 0;
	struct elf_symtab *st;

	for (size_t i = 0; i < rela->sh_size / sizeof(Elf64_Rela); i++) {
		if (ELF64_R_TYPE(r[i].r_info) != R_X86_64_JUMP_SLOT)
			continue;
		/* one past the end, and as far past as it goes */
		r[i].r_info = ELF64_R_INFO(i % 2 ? nr_dynsym : UINT32_MAX, R_X86_64_JUMP_SLOT);
		jump_slots++;
	}
	cr_assert_gt(jump_slots, 3);
	st = load_image(&im, "badsym");
	/* the rest still named: the IFUNC, and .plt.got's stubs by .rela.dyn */
	cr_assert_eq(assert_none_misnamed(st, labels, n), n - jump_slots);
	for (size_t i = 0; i < n; i++) {
		const struct elf_sym *s = elf_symtab__find(st, labels[i].addr);

		cr_assert(strcmp(s->name, "puts@plt") && strcmp(s->name, "strlen@plt"));
	}
	elf_symtab__free(st);
	free(im.p);
	free(labels);
	free(bin);
}

Test(elf_plt_corrupt, names_past_the_string_table)
{
	struct label *labels;
	struct image im;
	size_t n;
	char *bin = corrupt_setup(&labels, &n, &im);
	Elf64_Shdr *dynsym = shdr_named(&im, ".dynsym");
	Elf64_Sym *sym = (Elf64_Sym *)(im.p + dynsym->sh_offset);
	struct elf_symtab *st;

	for (size_t i = 1; i < dynsym->sh_size / sizeof(Elf64_Sym); i++)
		sym[i].st_name = i % 2 ? UINT32_MAX : shdr_named(&im, ".dynstr")->sh_size;
	st = load_image(&im, "badname");
	/* only the IFUNC's, by the program's own .symtab */
	cr_assert_eq(assert_none_misnamed(st, labels, n), 1);
	elf_symtab__free(st);
	free(im.p);
	free(labels);
	free(bin);
}

Test(elf_plt_corrupt, plt_smaller_than_its_relocations)
{
	struct label *labels;
	struct image im;
	size_t n, in_plt = 0;
	char *bin = corrupt_setup(&labels, &n, &im);
	Elf64_Shdr *plt = shdr_named(&im, ".plt");
	uint64_t start = plt->sh_addr, end = plt->sh_addr + plt->sh_size;
	struct elf_symtab *st;

	/* the header and one stub */
	plt->sh_size = 32;
	st = load_image(&im, "shortplt");
	assert_none_misnamed(st, labels, n);
	for (uint64_t a = start + 32; a < end; a++) {
		const struct elf_sym *s = elf_symtab__find(st, a);

		cr_assert(!s || !ends_with(s->name, "@plt"), "%#" PRIx64 " past .plt is %s", a,
			  s->name);
	}
	for (size_t i = 0; i < n; i++) {
		const struct elf_sym *s = elf_symtab__find(st, labels[i].addr);

		if (labels[i].addr >= start && labels[i].addr < end && s &&
		    ends_with(s->name, "@plt"))
			in_plt++;
	}
	cr_assert_eq(in_plt, 1);
	elf_symtab__free(st);
	free(im.p);
	free(labels);
	free(bin);
}

/* Not x86-64 (the header says): no PLT symbols, rather than garbage. */
Test(elf_plt_corrupt, other_machines_have_none)
{
	struct label *labels;
	struct image im;
	size_t n;
	char *bin = corrupt_setup(&labels, &n, &im);
	struct plt_section secs[8];
	size_t nr = plt_sections(bin, secs, ARRAY_SIZE(secs));
	struct elf_symtab *st;

	((Elf64_Ehdr *)im.p)->e_machine = EM_AARCH64;
	st = load_image(&im, "aarch64");
	for (size_t i = 0; i < nr; i++)
		for (uint64_t a = secs[i].addr; a < secs[i].addr + secs[i].size; a++) {
			const struct elf_sym *s = elf_symtab__find(st, a);

			cr_assert(!s || (!ends_with(s->name, "@plt") && !is_plt_section_name(s->name)),
				  "%#" PRIx64 " is %s", a, s->name);
		}
	elf_symtab__free(st);
	free(im.p);
	free(labels);
	free(bin);
}

/* elf_plt__load() on a copy of im; NULL, errno ENOEXEC, too where libelf refuses it. */
static struct elf_symtab *plt_of_image(const struct image *im, const struct budget *b)
{
	char *copy = malloc(im->len);
	struct elf_symtab *st;
	Elf *elf;
	int err;

	cr_assert_not_null(copy);
	memcpy(copy, im->p, im->len);
	elf = elf_read__memory(copy, im->len, NULL);
	if (!elf) {
		free(copy);
		errno = ENOEXEC;
		return NULL;
	}
	st = elf_plt__load(elf, NULL, b);
	err = errno;
	elf_end(elf);
	free(copy);
	errno = err;
	return st;
}

Test(elf_plt_corrupt, over_budget_or_cancelled)
{
	struct label *labels;
	struct image im;
	size_t n;
	char *bin = corrupt_setup(&labels, &n, &im);
	struct budget b = BUDGET_DEFAULT_INIT;
	int cancel = 1;

	b.max_symbols = 2;
	budget__clear();
	cr_assert_null(plt_of_image(&im, &b));
	cr_assert_eq(errno, EFBIG);
	cr_assert(strstr(budget__why(), ".plt"), "%s", budget__why());
	b = (struct budget)BUDGET_DEFAULT_INIT;
	b.cancel = &cancel;
	cr_assert_null(plt_of_image(&im, &b));
	cr_assert_eq(errno, ECANCELED);
	free(im.p);
	free(labels);
	free(bin);
}

/*
 * Bytes changed at random in the PLT, its relocations, .dynsym, .dynstr
 * and the section headers: it never crashes (the sanitized build checks
 * every access), and what it names lies in a section named .plt*.
 */
Test(elf_plt_corrupt, random_bytes_in_what_it_reads)
{
	static const char *const parts[] = { ".plt", ".plt.got", ".rela.plt", ".rela.dyn", ".dynsym",
					     ".dynstr" };
	struct label *labels;
	struct image im, orig;
	size_t n, loaded = 0;
	char *bin = corrupt_setup(&labels, &n, &orig);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)orig.p;
	struct { uint64_t off, len; } where[ARRAY_SIZE(parts) + 1];

	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		Elf64_Shdr *sh = shdr_named(&orig, parts[i]);

		where[i].off = sh->sh_offset;
		where[i].len = sh->sh_size;
	}
	where[ARRAY_SIZE(parts)].off = eh->e_shoff;
	where[ARRAY_SIZE(parts)].len = (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr);
	im.len = orig.len;
	im.p = malloc(orig.len);
	cr_assert_not_null(im.p);
	srandom(7);
	for (int round = 0; round < 3000; round++) {
		struct elf_symtab *st;

		memcpy(im.p, orig.p, orig.len);
		for (int k = 0; k < 1 + round % 4; k++) {
			size_t w = random() % ARRAY_SIZE(where);

			im.p[where[w].off + random() % where[w].len] = random();
		}
		st = plt_of_image(&im, NULL);
		if (!st)
			continue;
		loaded++;
		for (size_t i = 0; i < n; i++) {
			const struct elf_sym *s = elf_symtab__find(st, labels[i].addr);

			cr_assert(!s || ends_with(s->name, "@plt") || is_plt_section_name(s->name));
		}
		elf_symtab__free(st);
	}
	cr_assert_gt(loaded, 1000);
	free(im.p);
	free(orig.p);
	free(labels);
	free(bin);
}
