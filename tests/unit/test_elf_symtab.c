// SPDX-License-Identifier: GPL-2.0
/*
 * test_elf_symtab.c - function symbols and PT_LOAD translation on the
 * fixtures, checked against what nm and readelf say about them.
 */
#include <elf.h>
#include <fcntl.h>

#include "symbols/elf_symtab.h"
#include "test_util.h"

static const char *const prog_funcs[] = { "prog_alpha", "prog_beta", "prog_cb", "main" };
static const char *const lib_funcs[] = {
	"fixture_lib_func", "fixture_lib_helper", "fixture_lib_other", "fixture_lib_weak",
	"fixture_lib_entry",
};

static struct elf_symtab *load(const char *path)
{
	struct elf_symtab *st = elf_symtab__load_file(path);

	cr_assert_not_null(st, "load '%s': %s", path, strerror(errno));
	return st;
}

/* Every byte of the function is in it, the byte after it is not. */
static void assert_function(const struct elf_symtab *st, const char *path, const char *name)
{
	const struct elf_sym *s;
	uint64_t addr, size;

	nm_symbol(path, name, &addr, &size);
	cr_assert_gt(size, 0, "%s: nm gives no size", name);
	s = elf_symtab__find(st, addr);
	cr_assert_not_null(s, "%s at %#" PRIx64 ": not found", name, addr);
	cr_assert_str_eq(s->name, name);
	cr_assert_eq(s->addr, addr);
	cr_assert_eq(s->size, size);
	s = elf_symtab__find(st, addr + size - 1);
	cr_assert_not_null(s, "%s: last byte not found", name);
	cr_assert_str_eq(s->name, name);
	s = elf_symtab__find(st, addr + size);
	cr_assert(!s || strcmp(s->name, name), "%s: the byte after it is in it", name);
}

static void assert_functions(const char *path, const char *const *names, size_t n)
{
	struct elf_symtab *st = load(path);

	cr_assert_geq(elf_symtab__count(st), n);
	for (size_t i = 0; i < n; i++)
		assert_function(st, path, names[i]);
	elf_symtab__free(st);
}

Test(elf_symtab, pie_functions)
{
	assert_functions(FIXTURE_PIE, prog_funcs, ARRAY_SIZE(prog_funcs));
}

Test(elf_symtab, exec_functions)
{
	assert_functions(FIXTURE_EXEC, prog_funcs, ARRAY_SIZE(prog_funcs));
}

Test(elf_symtab, shared_library_functions)
{
	assert_functions(FIXTURE_LIB, lib_funcs, ARRAY_SIZE(lib_funcs));
}

Test(elf_symtab, aliases_resolve_to_the_strongest_binding)
{
	struct elf_symtab *st = load(FIXTURE_LIB);
	uint64_t a, b, size;

	/* global beats weak and local */
	nm_symbol(FIXTURE_LIB, "fixture_lib_other", &a, &size);
	nm_symbol(FIXTURE_LIB, "fixture_lib_other_weak", &b, &size);
	cr_assert_eq(a, b, "the fixture's alias is at another address");
	nm_symbol(FIXTURE_LIB, "fixture_lib_other_local", &b, &size);
	cr_assert_eq(a, b);
	cr_assert_str_eq(elf_symtab__find(st, a)->name, "fixture_lib_other");
	/* weak beats local */
	nm_symbol(FIXTURE_LIB, "fixture_lib_weak", &a, &size);
	nm_symbol(FIXTURE_LIB, "fixture_lib_weak_local", &b, &size);
	cr_assert_eq(a, b);
	cr_assert_str_eq(elf_symtab__find(st, a)->name, "fixture_lib_weak");
	elf_symtab__free(st);
}

Test(elf_symtab, nothing_below_the_first_function)
{
	struct elf_symtab *st = load(FIXTURE_EXEC);
	const struct elf_sym *s;

	cr_assert_null(elf_symtab__find(st, 0));
	cr_assert_null(elf_symtab__find(st, 0x400000), "the ELF header is no function");
	s = elf_symtab__find(st, UINT64_MAX);
	/* only a symbol without a size (_fini) runs on past its code */
	cr_assert(!s || s->size == 0, "%s covers the top of the address space", s->name);
	cr_assert_null(elf_symtab__find(NULL, 0x401000));
	elf_symtab__free(st);
}

/* The function's file offset, through the segment readelf puts it in, translates back. */
static void assert_round_trip(const char *path, const char *const *names, size_t n)
{
	struct load_seg segs[16];
	size_t nr = readelf_loads(path, segs, ARRAY_SIZE(segs));
	struct elf_symtab *st = load(path);

	for (size_t i = 0; i < n; i++) {
		uint64_t addr, size, vaddr = 0;
		const struct load_seg *seg = NULL;

		nm_symbol(path, names[i], &addr, &size);
		for (size_t j = 0; j < nr; j++)
			if (addr >= segs[j].vaddr && addr - segs[j].vaddr < segs[j].filesz)
				seg = &segs[j];
		cr_assert_not_null(seg, "%s: in no PT_LOAD", names[i]);
		cr_assert(seg->exec, "%s: in a segment that is not executable", names[i]);
		cr_assert_eq(elf_symtab__offset_to_vaddr(st, addr - seg->vaddr + seg->offset, &vaddr), 0);
		cr_assert_eq(vaddr, addr, "%s: %#" PRIx64 " != %#" PRIx64, names[i], vaddr, addr);
		cr_assert_eq(elf_symtab__offset_to_vaddr(st, addr - seg->vaddr + seg->offset + size - 1,
							 &vaddr), 0);
		cr_assert_eq(vaddr, addr + size - 1);
	}
	elf_symtab__free(st);
}

Test(elf_symtab_offset, pie)
{
	assert_round_trip(FIXTURE_PIE, prog_funcs, ARRAY_SIZE(prog_funcs));
}

Test(elf_symtab_offset, exec)
{
	assert_round_trip(FIXTURE_EXEC, prog_funcs, ARRAY_SIZE(prog_funcs));
}

Test(elf_symtab_offset, shared_library)
{
	assert_round_trip(FIXTURE_LIB, lib_funcs, ARRAY_SIZE(lib_funcs));
}

/* Offsets only a non-executable segment holds translate through it. */
static void assert_data_segments(const char *path)
{
	struct load_seg segs[16];
	size_t nr = readelf_loads(path, segs, ARRAY_SIZE(segs));
	struct elf_symtab *st = load(path);
	int checked = 0;

	for (size_t i = 0; i < nr; i++) {
		uint64_t off = segs[i].offset + segs[i].filesz - 1, vaddr = 0;
		bool shared = false;

		if (segs[i].exec || !segs[i].filesz)
			continue;
		for (size_t j = 0; j < nr; j++)
			if (j != i && off >= segs[j].offset && off - segs[j].offset < segs[j].filesz)
				shared = true;
		if (shared)
			continue;
		cr_assert_eq(elf_symtab__offset_to_vaddr(st, off, &vaddr), 0);
		cr_assert_eq(vaddr, segs[i].vaddr + segs[i].filesz - 1, "segment %zu", i);
		checked++;
	}
	cr_assert_gt(checked, 0, "no data segment to check in '%s'", path);
	elf_symtab__free(st);
}

Test(elf_symtab_offset, data_segments)
{
	assert_data_segments(FIXTURE_PIE);
	assert_data_segments(FIXTURE_EXEC);
	assert_data_segments(FIXTURE_LIB);
}

/*
 * A minimal ELF image with only program headers: segments the tests lay
 * out as they need, which a linker would not produce.
 */
struct synth_elf {
	Elf64_Ehdr eh;
	Elf64_Phdr ph[4];
	unsigned char pad[0x3000];
};

static void synth_init(struct synth_elf *img, const Elf64_Phdr *ph, int n)
{
	memset(img, 0, sizeof(*img));
	memcpy(img->eh.e_ident, ELFMAG, SELFMAG);
	img->eh.e_ident[EI_CLASS] = ELFCLASS64;
	img->eh.e_ident[EI_DATA] = ELFDATA2LSB;
	img->eh.e_ident[EI_VERSION] = EV_CURRENT;
	img->eh.e_type = ET_DYN;
	img->eh.e_machine = EM_X86_64;
	img->eh.e_version = EV_CURRENT;
	img->eh.e_phoff = offsetof(struct synth_elf, ph);
	img->eh.e_ehsize = sizeof(Elf64_Ehdr);
	img->eh.e_phentsize = sizeof(Elf64_Phdr);
	img->eh.e_phnum = n;
	memcpy(img->ph, ph, n * sizeof(*ph));
}

Test(elf_symtab_offset, executable_segment_preferred_where_segments_overlap)
{
	static const Elf64_Phdr ph[] = {
		{ .p_type = PT_LOAD, .p_flags = PF_R, .p_offset = 0x1000, .p_vaddr = 0x5000,
		  .p_filesz = 0x1000, .p_memsz = 0x1000 },
		{ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0x1000, .p_vaddr = 0x9000,
		  .p_filesz = 0x800, .p_memsz = 0x800 },
		{ .p_type = PT_NOTE, .p_flags = PF_R, .p_offset = 0x2000, .p_vaddr = 0x30000,
		  .p_filesz = 0x100, .p_memsz = 0x100 },
		{ .p_type = PT_LOAD, .p_flags = PF_R | PF_W, .p_offset = 0x2000, .p_vaddr = 0x20000,
		  .p_filesz = 0x100, .p_memsz = 0x400 },
	};
	struct synth_elf *img = malloc(sizeof(*img));
	struct elf_symtab *st;
	uint64_t vaddr = 0;

	cr_assert_not_null(img);
	synth_init(img, ph, ARRAY_SIZE(ph));
	st = elf_symtab__load_mem(img, sizeof(*img));
	cr_assert_not_null(st, "load: %s", strerror(errno));
	cr_assert_eq(elf_symtab__count(st), 0);
	cr_assert_eq(elf_symtab__offset_to_vaddr(st, 0x1010, &vaddr), 0);
	cr_assert_eq(vaddr, 0x9010, "through the executable segment");
	cr_assert_eq(elf_symtab__offset_to_vaddr(st, 0x17ff, &vaddr), 0);
	cr_assert_eq(vaddr, 0x97ff);
	cr_assert_eq(elf_symtab__offset_to_vaddr(st, 0x1800, &vaddr), 0);
	cr_assert_eq(vaddr, 0x5800, "past the executable segment: the readable one");
	cr_assert_eq(elf_symtab__offset_to_vaddr(st, 0x2010, &vaddr), 0);
	cr_assert_eq(vaddr, 0x20010, "a PT_NOTE is no segment to translate through");
	cr_assert_eq(elf_symtab__offset_to_vaddr(st, 0x2100, &vaddr), -ENOENT,
		     "only p_filesz bytes come from the file");
	cr_assert_eq(elf_symtab__offset_to_vaddr(st, 0xfff, &vaddr), -ENOENT);
	elf_symtab__free(st);
	free(img);
}

Test(elf_symtab_load, corrupt_program_headers)
{
	static const Elf64_Phdr ph[] = {
		{ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0x1000, .p_vaddr = 0x1000,
		  .p_filesz = 0x1000, .p_memsz = 0x1000 },
	};
	static const struct { uint64_t phoff; uint16_t phnum, phentsize; } bad[] = {
		{ 1ULL << 40, 1, sizeof(Elf64_Phdr) },		/* table outside the image */
		{ sizeof(struct synth_elf) - 8, 1, sizeof(Elf64_Phdr) },	/* runs off its end */
		{ offsetof(struct synth_elf, ph), 0xffff, sizeof(Elf64_Phdr) },	/* too many */
		{ offsetof(struct synth_elf, ph), 1, 3 },	/* wrong entry size */
		{ UINT64_MAX - 7, 2, sizeof(Elf64_Phdr) },	/* offset + size wraps */
	};
	struct synth_elf *img = malloc(sizeof(*img));

	cr_assert_not_null(img);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct elf_symtab *st;
		uint64_t vaddr;

		synth_init(img, ph, ARRAY_SIZE(ph));
		img->eh.e_phoff = bad[i].phoff;
		img->eh.e_phnum = bad[i].phnum;
		img->eh.e_phentsize = bad[i].phentsize;
		errno = 0;
		st = elf_symtab__load_mem(img, sizeof(*img));
		if (!st) {
			cr_assert_eq(errno, ENOEXEC, "case %zu: errno %d", i, errno);
			continue;
		}
		/* loaded anyway: only segments that were read whole may translate */
		if (!elf_symtab__offset_to_vaddr(st, 0x1010, &vaddr))
			cr_assert_eq(vaddr, 0x1010, "case %zu", i);
		elf_symtab__free(st);
	}
	free(img);
}

Test(elf_symtab_offset, beyond_every_segment)
{
	struct elf_symtab *st = load(FIXTURE_LIB);
	uint64_t vaddr = 12345;

	cr_assert_eq(elf_symtab__offset_to_vaddr(st, 1ULL << 40, &vaddr), -ENOENT);
	cr_assert_eq(elf_symtab__offset_to_vaddr(st, UINT64_MAX, &vaddr), -ENOENT);
	cr_assert_eq(vaddr, 12345);
	elf_symtab__free(st);
}

Test(elf_symtab_load, not_an_elf_file)
{
	char *dir = make_tmpdir();
	char *text = write_in(dir, "text", "just some text, not an ELF object\n");
	char *empty = write_in(dir, "empty", "");

	errno = 0;
	cr_assert_null(elf_symtab__load_file(text));
	cr_assert_eq(errno, ENOEXEC);
	errno = 0;
	cr_assert_null(elf_symtab__load_file(empty));
	cr_assert_eq(errno, ENOEXEC);
	errno = 0;
	cr_assert_null(elf_symtab__load_mem("\177ELF", 4));
	cr_assert_eq(errno, ENOEXEC);
	free(text);
	free(empty);
	rm_rf(dir);
}

Test(elf_symtab_load, missing_file)
{
	errno = 0;
	cr_assert_null(elf_symtab__load_file("/nonexistent/file"));
	cr_assert_eq(errno, ENOENT);
}

/* A loader given a truncated file either refuses it or loads what is intact. */
static void assert_truncated_is_safe(struct elf_symtab *st, size_t len)
{
	uint64_t vaddr;

	if (!st) {
		cr_assert_eq(errno, ENOEXEC, "%zu bytes: errno %d", len, errno);
		return;
	}
	/* whatever it kept must be usable */
	for (uint64_t addr = 0x400000; addr < 0x402000; addr += 7) {
		const struct elf_sym *s = elf_symtab__find(st, addr);

		if (s) {
			cr_assert_not_null(s->name);
			cr_assert_leq(s->addr, addr);
			cr_assert_lt(strlen(s->name), 4096);
		}
	}
	elf_symtab__offset_to_vaddr(st, 0x1000, &vaddr);
	elf_symtab__free(st);
}

Test(elf_symtab_load, truncated_file)
{
	char *dir = make_tmpdir(), *path = path_in(dir, "truncated");
	size_t len;
	char *image = read_whole(FIXTURE_PIE, &len);
	struct elf_symtab *st;

	cr_assert_gt(len, 200);
	write_bytes(path, image, 200);
	errno = 0;
	st = elf_symtab__load_file(path);
	/* section headers are at the end of the file: no symbols survive */
	cr_assert(!st || elf_symtab__count(st) == 0);
	assert_truncated_is_safe(st, 200);
	free(image);
	free(path);
	rm_rf(dir);
}

Test(elf_symtab_load, every_truncation_of_the_image)
{
	size_t len;
	char *image = read_whole(FIXTURE_EXEC, &len);

	for (size_t n = 0; n < len; n += n < 256 ? 1 : 61) {
		/* a copy of exactly n bytes, so reading past it is caught by ASan */
		char *copy = malloc(n ? n : 1);

		cr_assert_not_null(copy);
		memcpy(copy, image, n);
		errno = 0;
		assert_truncated_is_safe(elf_symtab__load_mem(copy, n), n);
		free(copy);
	}
	free(image);
}

Test(elf_symtab_load, from_memory_and_from_fd_match_the_file)
{
	const char *const paths[] = { FIXTURE_PIE, FIXTURE_EXEC, FIXTURE_LIB };

	for (size_t p = 0; p < ARRAY_SIZE(paths); p++) {
		struct elf_symtab *file = load(paths[p]), *mem, *fdst;
		size_t len;
		char *image = read_whole(paths[p], &len);
		int fd = open(paths[p], O_RDONLY);
		uint64_t a, b;

		cr_assert_geq(fd, 0);
		mem = elf_symtab__load_mem(image, len);
		fdst = elf_symtab__load_fd(fd);
		close(fd);
		cr_assert_not_null(mem);
		cr_assert_not_null(fdst);
		cr_assert_eq(elf_symtab__count(mem), elf_symtab__count(file));
		cr_assert_eq(elf_symtab__count(fdst), elf_symtab__count(file));
		for (uint64_t addr = 0x1000; addr < 0x1400; addr++) {
			const struct elf_sym *x = elf_symtab__find(file, addr);
			const struct elf_sym *y = elf_symtab__find(mem, addr);

			cr_assert_eq(!x, !y, "%s %#" PRIx64, paths[p], addr);
			if (x)
				cr_assert_str_eq(x->name, y->name);
		}
		cr_assert_eq(elf_symtab__offset_to_vaddr(file, 0x1000, &a), 0);
		cr_assert_eq(elf_symtab__offset_to_vaddr(mem, 0x1000, &b), 0);
		cr_assert_eq(a, b);
		/* the table outlives the image it was read from */
		memset(image, 0, len);
		free(image);
		assert_function(mem, paths[p], p == 2 ? "fixture_lib_func" : "prog_alpha");
		elf_symtab__free(mem);
		elf_symtab__free(fdst);
		elf_symtab__free(file);
	}
}

/* strip(1) a copy of a fixture into dir; returns its path. */
static char *stripped_copy(const char *dir, const char *path)
{
	char *out = path_in(dir, strrchr(path, '/') + 1), cmd[8400];

	snprintf(cmd, sizeof(cmd), "strip --strip-all -o '%s' '%s'", out, path);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	return out;
}

Test(elf_symtab_load, stripped_library_falls_back_to_dynsym)
{
	char *dir = make_tmpdir(), *path = stripped_copy(dir, FIXTURE_LIB);
	struct elf_symtab *full = load(FIXTURE_LIB), *st = load(path);
	uint64_t addr, size;
	const struct elf_sym *s;

	cr_assert_gt(elf_symtab__count(st), 0);
	cr_assert_lt(elf_symtab__count(st), elf_symtab__count(full), "no local symbols lost?");
	assert_function(st, FIXTURE_LIB, "fixture_lib_func");
	assert_function(st, FIXTURE_LIB, "fixture_lib_other");
	/* a local function is not in .dynsym */
	nm_symbol(FIXTURE_LIB, "fixture_lib_helper", &addr, &size);
	s = elf_symtab__find(st, addr);
	cr_assert(!s || strcmp(s->name, "fixture_lib_helper"));
	elf_symtab__free(st);
	elf_symtab__free(full);
	free(path);
	rm_rf(dir);
}

Test(elf_symtab_load, stripped_executable_loads_without_symbols)
{
	char *dir = make_tmpdir(), *path = stripped_copy(dir, FIXTURE_EXEC);
	struct elf_symtab *st = load(path);
	struct load_seg segs[16];
	size_t nr = readelf_loads(path, segs, ARRAY_SIZE(segs));
	uint64_t vaddr = 0;
	bool checked = false;

	/* .dynsym of an executable holds only undefined symbols */
	cr_assert_eq(elf_symtab__count(st), 0);
	/* its segments still translate */
	for (size_t i = 0; i < nr; i++) {
		if (!segs[i].exec)
			continue;
		cr_assert_null(elf_symtab__find(st, segs[i].vaddr + 0x10));
		cr_assert_eq(elf_symtab__offset_to_vaddr(st, segs[i].offset + 0x10, &vaddr), 0);
		cr_assert_eq(vaddr, segs[i].vaddr + 0x10);
		checked = true;
	}
	cr_assert(checked, "no executable segment");
	elf_symtab__free(st);
	free(path);
	rm_rf(dir);
}

Test(elf_symtab_kind, where_the_symbols_came_from)
{
	char *dir = make_tmpdir();
	char *lib = stripped_copy(dir, FIXTURE_LIB), *exe = stripped_copy(dir, FIXTURE_EXEC);
	struct elf_symtab *full = load(FIXTURE_LIB), *dyn = load(lib);
	struct elf_symtab *exe_full = load(FIXTURE_EXEC), *none = load(exe);

	cr_assert_eq(elf_symtab__kind(full), ELF_SYMTAB_FULL);
	cr_assert_eq(elf_symtab__kind(dyn), ELF_SYMTAB_DYNSYM);
	cr_assert_eq(elf_symtab__kind(none), ELF_SYMTAB_NONE);
	cr_assert_eq(elf_symtab__kind(NULL), ELF_SYMTAB_NONE);
	/* stripping keeps the program headers */
	cr_assert_gt(elf_symtab__nr_segments(none), 0);
	cr_assert_eq(elf_symtab__nr_segments(none), elf_symtab__nr_segments(exe_full));
	cr_assert_eq(elf_symtab__nr_segments(dyn), elf_symtab__nr_segments(full));
	elf_symtab__free(none);
	elf_symtab__free(exe_full);
	elf_symtab__free(dyn);
	elf_symtab__free(full);
	free(lib);
	free(exe);
	rm_rf(dir);
}

Test(elf_symtab_merge, debug_symbols_fill_in_a_stripped_file)
{
	char *dir = make_tmpdir(), *lib = stripped_copy(dir, FIXTURE_LIB);
	struct elf_symtab *full = load(FIXTURE_LIB), *st = load(lib);
	uint64_t addr, size;

	nm_symbol(FIXTURE_LIB, "fixture_lib_helper", &addr, &size);
	cr_assert(!elf_symtab__find(st, addr) ||
		  strcmp(elf_symtab__find(st, addr)->name, "fixture_lib_helper"));
	cr_assert_eq(elf_symtab__merge(st, full), 0);
	cr_assert_eq(elf_symtab__kind(st), ELF_SYMTAB_FULL);
	cr_assert_eq(elf_symtab__count(st), elf_symtab__count(full));
	for (size_t i = 0; i < ARRAY_SIZE(lib_funcs); i++)
		assert_function(st, FIXTURE_LIB, lib_funcs[i]);
	/* the names are st's own: the source may go */
	elf_symtab__free(full);
	assert_function(st, FIXTURE_LIB, "fixture_lib_helper");
	elf_symtab__free(st);
	free(lib);
	rm_rf(dir);
}

Test(elf_symtab_merge, destination_wins_at_one_address)
{
	/* two unrelated files, so that both have symbols at some of the same addresses */
	struct elf_symtab *dst = load(FIXTURE_PIE), *src = load(FIXTURE_LIB);
	struct elf_symtab *dst0 = load(FIXTURE_PIE), *src0 = load(FIXTURE_LIB);
	int from_dst = 0, from_src = 0;

	cr_assert_eq(elf_symtab__merge(dst, src), 0);
	cr_assert_eq(elf_symtab__kind(dst), ELF_SYMTAB_FULL);
	cr_assert_leq(elf_symtab__count(dst), elf_symtab__count(dst0) + elf_symtab__count(src0));
	cr_assert_gt(elf_symtab__count(dst), elf_symtab__count(dst0));
	for (uint64_t addr = 0x1000; addr < 0x2000; addr++) {
		const struct elf_sym *d = elf_symtab__find(dst0, addr);
		const struct elf_sym *s = elf_symtab__find(src0, addr);
		const struct elf_sym *m = elf_symtab__find(dst, addr);
		const struct elf_sym *want = NULL;

		if (d && d->addr == addr)
			want = d, from_dst++;
		else if (s && s->addr == addr)
			want = s, from_src++;
		if (!want)
			continue;
		cr_assert_not_null(m, "%#" PRIx64 ": lost %s", addr, want->name);
		cr_assert_eq(m->addr, addr);
		cr_assert_str_eq(m->name, want->name, "%#" PRIx64, addr);
		cr_assert_eq(m->size, want->size);
	}
	cr_assert_gt(from_dst, 0);
	cr_assert_gt(from_src, 0);
	cr_assert_eq(elf_symtab__nr_segments(dst), elf_symtab__nr_segments(dst0), "dst keeps its segments");
	elf_symtab__free(src0);
	elf_symtab__free(dst0);
	elf_symtab__free(src);
	elf_symtab__free(dst);
}

/*
 * Symbols the test builds: functions nested in others (assembler code
 * often labels its inner entry points), and aliases of one function.
 * %s is the order the aliases are defined in, to show that the order of
 * the symbol table does not decide.
 */
static const char nested_src[] =
	"__asm__(\".text\\n\"\n"
	"	\".globl outer\\n .type outer, %%function\\n outer: .fill 16, 1, 0\\n\"\n"
	"	\".type inner, %%function\\n inner: .fill 8, 1, 0\\n .size inner, 8\\n\"\n"
	"	\".fill 16, 1, 0\\n .size outer, 40\\n\"\n"
	"	\".fill 8, 1, 0\\n\"	/* in no function */\n"
	"	\".globl deep\\n .type deep, %%function\\n deep: .fill 8, 1, 0\\n\"\n"
	"	\".type mid, %%function\\n mid: .fill 8, 1, 0\\n\"\n"
	"	\".type leaf1, %%function\\n leaf1: .fill 4, 1, 0\\n .size leaf1, 4\\n\"\n"
	"	\".fill 4, 1, 0\\n\"\n"
	"	\".type leaf2, %%function\\n leaf2: .fill 4, 1, 0\\n .size leaf2, 4\\n\"\n"
	"	\".fill 4, 1, 0\\n .size mid, 24\\n\"\n"
	"	\".fill 8, 1, 0\\n .size deep, 40\\n\");\n"
	"int alias_b(void) { return 42; }\n"
	"%s";

static const char *const alias_orders[] = {
	"int alias_a(void) __attribute__((alias(\"alias_b\")));\n"
	"int __alias_longer(void) __attribute__((alias(\"alias_b\")));\n",
	"int __alias_longer(void) __attribute__((alias(\"alias_b\")));\n"
	"int alias_a(void) __attribute__((alias(\"alias_b\")));\n",
};

/* The library built from nested_src with the aliases in one order; dir is the caller's to remove. */
static char *build_nested(char *dir, int order)
{
	char *src = path_in(dir, "nested.c"), *lib = path_in(dir, "libnested.so"), cmd[8400];
	FILE *f = fopen(src, "w");

	cr_assert_not_null(f);
	cr_assert_gt(fprintf(f, nested_src, alias_orders[order]), 0);
	cr_assert_eq(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "gcc -O1 -fPIC -shared -nostdlib -o '%s' '%s'", lib, src);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	free(src);
	return lib;
}

/* Each test: the library with the aliases in the first order, loaded. */
static char *nest_dir, *nest_lib;
static struct elf_symtab *nest_st;

static void nested_init(void)
{
	nest_dir = make_tmpdir();
	nest_lib = build_nested(nest_dir, 0);
	nest_st = load(nest_lib);
}

static void nested_fini(void)
{
	elf_symtab__free(nest_st);
	free(nest_lib);
	rm_rf(nest_dir);
}

TestSuite(elf_symtab_nested, .init = nested_init, .fini = nested_fini);

/* The name found at off bytes into sym of the library at lib. */
static const char *name_at(const struct elf_symtab *st, const char *lib, const char *sym,
			   uint64_t off)
{
	const struct elf_sym *s;
	uint64_t addr, size;

	nm_symbol(lib, sym, &addr, &size);
	s = elf_symtab__find(st, addr + off);
	return s ? s->name : "(none)";
}

static const char *nested_at(const char *sym, uint64_t off)
{
	return name_at(nest_st, nest_lib, sym, off);
}

Test(elf_symtab_nested, an_address_past_a_nested_function_is_in_the_enclosing_one)
{
	cr_assert_str_eq(nested_at("outer", 0), "outer");
	cr_assert_str_eq(nested_at("outer", 16), "inner");
	cr_assert_str_eq(nested_at("outer", 23), "inner");
	cr_assert_str_eq(nested_at("outer", 24), "outer");
	cr_assert_str_eq(nested_at("outer", 39), "outer");
	cr_assert_str_eq(nested_at("outer", 40), "(none)", "the gap after outer");
}

Test(elf_symtab_nested, nesting_two_deep_resumes_the_right_level)
{
	/* deep [0,40) holds mid [8,32), which holds leaf1 [16,20) and leaf2 [24,28) */
	cr_assert_str_eq(nested_at("deep", 4), "deep");
	cr_assert_str_eq(nested_at("deep", 8), "mid");
	cr_assert_str_eq(nested_at("deep", 17), "leaf1");
	cr_assert_str_eq(nested_at("deep", 21), "mid");
	cr_assert_str_eq(nested_at("deep", 25), "leaf2");
	cr_assert_str_eq(nested_at("deep", 29), "mid");
	cr_assert_str_eq(nested_at("deep", 33), "deep");
	cr_assert_str_eq(nested_at("deep", 39), "deep");
}

Test(elf_symtab_nested, aliases_of_one_binding_resolve_to_the_name_perf_prints)
{
	/*
	 * All global: __alias_longer has leading underscores (an internal
	 * name), alias_a and alias_b are as long as each other: the first in
	 * byte order. In either order of definition.
	 */
	char *dir = make_tmpdir(), *lib = build_nested(dir, 1);
	struct elf_symtab *st = load(lib);

	cr_assert_str_eq(nested_at("alias_b", 0), "alias_a");
	cr_assert_str_eq(name_at(st, lib, "alias_b", 0), "alias_a");
	elf_symtab__free(st);
	free(lib);
	rm_rf(dir);
}

Test(elf_symtab_nested, merged_debug_symbols_keep_their_nesting)
{
	char *sdir = make_tmpdir(), *stripped = stripped_copy(sdir, nest_lib);
	struct elf_symtab *st = load(stripped);

	/* .dynsym has outer and deep, not the local functions nested in them */
	cr_assert_eq(elf_symtab__merge(st, nest_st), 0);
	cr_assert_str_eq(name_at(st, nest_lib, "outer", 16), "inner");
	cr_assert_str_eq(name_at(st, nest_lib, "outer", 24), "outer");
	cr_assert_str_eq(name_at(st, nest_lib, "deep", 21), "mid");
	cr_assert_str_eq(name_at(st, nest_lib, "deep", 33), "deep");
	elf_symtab__free(st);
	free(stripped);
	rm_rf(sdir);
}
