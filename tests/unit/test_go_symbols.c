// SPDX-License-Identifier: GPL-2.0
/*
 * test_go_symbols.c - stripped Go executables named from their function
 * table (symbols/go_symbols.c): every function of a build stripped by Go's
 * linker (-s -w) named and placed as nm names it in the same build
 * unstripped, a PIE's too; .symtab first where there is one; crafted
 * tables of each layout, and damaged, truncated, mutated and oversized
 * ones refused or read within their bytes; the digest tables are shared
 * by covers the function table.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/debuginfo.h"
#include "symbols/elf_read.h"
#include "symbols/elf_symtab.h"
#include "symbols/file_id.h"
#include "go_craft.h"
#include "symbols/go_symbols.h"
#include "test_util.h"

#define FIXTURE_GO FIXTURE_DIR "/fixture_go"
#define FIXTURE_GO_STRIPPED FIXTURE_DIR "/fixture_go_stripped"
#define FIXTURE_GO_PIE FIXTURE_DIR "/fixture_go_pie"
#define FIXTURE_GO_PIE_STRIPPED FIXTURE_DIR "/fixture_go_pie_stripped"
#define FIXTURE_GO_CGO_PIE FIXTURE_DIR "/fixture_go_cgo_pie"
#define FIXTURE_GO_CGO_PIE_STRIPPED FIXTURE_DIR "/fixture_go_cgo_pie_stripped"

static const char *const no_dirs[] = { "/nonexistent/debug" };
static const struct debuginfo_opts no_debug = { .debug_dirs = no_dirs, .nr_debug_dirs = 1 };

static uint8_t *real_table(size_t *len);

static struct elf_symtab *load(const char *path, struct debuginfo_info *info)
{
	struct elf_symtab *st = debuginfo__load_file(path, &no_debug, info);

	cr_assert_not_null(st, "load '%s': %s", path, strerror(errno));
	return st;
}

/*
 * Every sized function nm lists in oracle is named in st at its address,
 * as nm names it; but for abi0, how Go's table spells names: without
 * ABI0's ".abi0", with "[...]" for what the outermost brackets hold, as
 * the Go runtime prints them. Returns how many were held.
 */
static size_t assert_named_as_nm(const struct elf_symtab *st, const char *oracle, bool abi0)
{
	char cmd[4200], line[1024], name[1024], type;
	uint64_t addr, size;
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S --defined-only '%s'", oracle);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		const struct elf_sym *s;

		/* "addr size type name": names may hold spaces; a symbol without a size is not read */
		line[strcspn(line, "\n")] = '\0';
		if (strlen(line) < 37 || line[16] != ' ' || line[33] != ' ' || line[35] != ' ' ||
		    sscanf(line, "%" SCNx64 " %" SCNx64 " %c", &addr, &size, &type) != 3 ||
		    (type != 'T' && type != 't') || !size)
			continue;
		snprintf(name, sizeof(name), "%s", line + 36);
		if (!abi0) {
			char *open = strchr(name, '['), *close = strrchr(name, ']');

			if (ends_with(name, ".abi0"))
				name[strlen(name) - 5] = '\0';
			/* what is in brackets (type parameters, array lengths) is "..." there */
			if (open && close > open) {
				memmove(open + 4, close, strlen(close) + 1);
				memcpy(open + 1, "...", 3);
			}
		}
		s = elf_symtab__find(st, addr + size - 1);
		cr_assert_not_null(s, "%s at %#" PRIx64 ": not found", name, addr);
		cr_assert_str_eq(s->name, name, "at %#" PRIx64, addr);
		cr_assert_eq(s->addr, addr, "%s", name);
		n++;
	}
	cr_assert_eq(pclose(p), 0);
	return n;
}

/* -s -w: no .symtab, no DWARF; the function table names all of it. */
Test(go_symbols, stripped_by_go_named_from_its_table)
{
	struct debuginfo_info info;
	struct elf_symtab *st = load(FIXTURE_GO_STRIPPED, &info);

	cr_assert_eq(info.source, DEBUGINFO_GOPCLNTAB, "source %s",
		     debuginfo_source__str(info.source));
	cr_assert_gt(assert_named_as_nm(st, FIXTURE_GO, false), 1000);
	cr_assert_str_eq(info.refused, "");
	elf_symtab__free(st);
}

/* A PIE's table is in .data.rel.ro.gopclntab; its addresses are link-time ones all the same. */
Test(go_symbols, stripped_pie_named_from_its_table)
{
	struct debuginfo_info info;
	struct elf_symtab *st = load(FIXTURE_GO_PIE_STRIPPED, &info);

	cr_assert_eq(info.source, DEBUGINFO_GOPCLNTAB);
	cr_assert_gt(assert_named_as_nm(st, FIXTURE_GO_PIE, false), 1000);
	elf_symtab__free(st);
}

/*
 * cgo's PIE, linked by gcc, has its table in .data.rel.ro, its section
 * name gone: found there all the same, its Go functions named (the C ones
 * are not in it).
 */
Test(go_symbols, stripped_cgo_pie_named_from_its_data)
{
	static const char *const go_funcs[] = { "main.main", "runtime.main", "runtime.mallocgc" };
	struct debuginfo_info info;
	struct elf_symtab *st = load(FIXTURE_GO_CGO_PIE_STRIPPED, &info);
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "readelf -SW '%s' | grep -q gopclntab", FIXTURE_GO_CGO_PIE_STRIPPED);
	cr_assert_neq(system(cmd), 0, "the table has a section of its own: nothing to look for");
	cr_assert_eq(info.source, DEBUGINFO_GOPCLNTAB, "source %s", debuginfo_source__str(info.source));
	for (size_t i = 0; i < ARRAY_SIZE(go_funcs); i++) {
		const struct elf_sym *s;
		uint64_t addr = 0, size = 0;

		nm_symbol(FIXTURE_GO_CGO_PIE, go_funcs[i], &addr, &size);
		s = elf_symtab__find(st, addr + size - 1);
		cr_assert_not_null(s, "%s", go_funcs[i]);
		cr_assert_str_eq(s->name, go_funcs[i]);
		cr_assert_eq(s->addr, addr);
	}
	elf_symtab__free(st);
}

/* Where .symtab is, it names the functions (with ".abi0"), the table not read. */
Test(go_symbols, symtab_first)
{
	struct debuginfo_info info;
	struct elf_symtab *st = load(FIXTURE_GO, &info);

	cr_assert_eq(info.source, DEBUGINFO_SYMTAB);
	assert_named_as_nm(st, FIXTURE_GO, true);
	elf_symtab__free(st);
}

/* A table that does not hold together names nothing, and -v's notice says why. */
Test(go_symbols, damaged_table_said)
{
	char *path = NULL, *image;
	struct debuginfo_info info;
	struct elf_symtab *st;
	size_t size, len;
	uint8_t *t = real_table(&len);
	char *at;
	FILE *f;

	image = read_whole(FIXTURE_GO_STRIPPED, &size);
	at = memmem(image, size, t, len);
	cr_assert_not_null(at);
	at[15] = 0x7f;	/* nfunc: far more than the table holds */
	cr_assert(asprintf(&path, "/tmp/go_symbols_damaged.%d", getpid()) > 0);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(image, 1, size, f), size);
	fclose(f);
	st = load(path, &info);
	cr_assert_eq(info.source, DEBUGINFO_NONE);
	cr_assert_str_eq(info.refused, "Go's function table not read: its offsets do not hold together");
	cr_assert_eq(elf_symtab__count(st), 0);
	elf_symtab__free(st);
	unlink(path);
	free(path);
	free(image);
	free(t);
}

Test(go_symbols, c_files_have_no_table)
{
	int fd = open(FIXTURE_EXEC, O_RDONLY | O_CLOEXEC);
	Elf *elf;

	cr_assert(elf_read__ready());
	cr_assert_geq(fd, 0);
	elf = elf_read__begin(fd, NULL);
	cr_assert_not_null(elf);
	errno = 0;
	cr_assert_null(go_symbols__load(elf, NULL));
	cr_assert_eq(errno, ENOENT);
	elf_end(elf);
	close(fd);
}

/* --- crafted tables -------------------------------------------------- */


static const char *const names3[] = { "main.a", "runtime.goexit", "main.b" };
static const uint32_t starts3[] = { 0x0, 0x40, 0x60 };

static void assert_sym(const struct elf_symtab *st, uint64_t addr, uint64_t size, const char *name)
{
	const struct elf_sym *s = elf_symtab__find(st, addr);

	cr_assert_not_null(s, "nothing at %#" PRIx64, addr);
	cr_assert_eq(s->addr, addr);
	cr_assert_eq(s->size, size, "%s: size %" PRIu64, name, s->size);
	cr_assert_str_eq(s->name, name);
}

Test(go_symbols, crafted_tables_of_each_layout)
{
	const uint32_t magics[] = { 0xfffffffb, 0xfffffffa, 0xfffffff0, 0xfffffff1 };

	for (size_t i = 0; i < ARRAY_SIZE(magics); i++) {
		struct elf_symtab *st;
		struct craft c;

		craft(&c, magics[i], names3, starts3, 3, 0x90);
		st = go_symbols__from_table(c.b, c.size, NULL);
		cr_assert_not_null(st, "magic %#x: %s", magics[i], strerror(errno));
		cr_assert_eq(elf_symtab__count(st), 3);
		assert_sym(st, TEXT, 0x40, "main.a");
		assert_sym(st, TEXT + 0x40, 0x20, "runtime.goexit");
		assert_sym(st, TEXT + 0x60, 0x30, "main.b");
		cr_assert_null(elf_symtab__find(st, TEXT + 0x90));
		cr_assert_null(elf_symtab__find(st, TEXT - 1));
		elf_symtab__free(st);
	}
}

/* A function of no bytes names nothing: the one after it, at the same start, keeps its name. */
Test(go_symbols, empty_functions_left_out)
{
	static const uint32_t starts[] = { 0x0, 0x40, 0x40 };
	struct elf_symtab *st;
	struct craft c;

	craft(&c, 0xfffffff1, names3, starts, 3, 0x90);
	st = go_symbols__from_table(c.b, c.size, NULL);
	cr_assert_not_null(st);
	cr_assert_eq(elf_symtab__count(st), 2);
	assert_sym(st, TEXT + 0x40, 0x50, "main.b");
	elf_symtab__free(st);
}

static void assert_refused(const struct craft *c, int err, const struct budget *b, const char *what)
{
	errno = 0;
	cr_assert_null(go_symbols__from_table(c->b, c->size, b), "%s: read", what);
	cr_assert_eq(errno, err, "%s: %s", what, strerror(errno));
}

Test(go_symbols, crafted_tables_refused)
{
	struct budget b = BUDGET_DEFAULT_INIT;
	int cancel = 1;
	struct craft c;

	craft(&c, 0xfffffff0, names3, starts3, 3, 0x90);
	put(c.b + 40, 72 + 3, 8);	/* the names' region ends inside the first */
	assert_refused(&c, ENOEXEC, NULL, "a name cut by its region's end");

	craft(&c, 0xfffffff0, names3, starts3, 3, 0x90);
	put(c.b + c.rec_at[2] + 4, 0x7fffffff, 4);
	assert_refused(&c, ENOEXEC, NULL, "a name past its region");

	/* each function named by the longest name: more than the region holds */
	craft(&c, 0xfffffff0, names3, starts3, 3, 0x90);
	for (size_t i = 0; i < 3; i++)
		put(c.b + c.rec_at[i] + 4, strlen(names3[0]) + 1, 4);
	assert_refused(&c, ENOEXEC, NULL, "names shared");

	craft(&c, 0xfffffff0, names3, starts3, 3, 0x90);
	put(c.b + c.ftab + 2 * 8, 0x10, 4);
	assert_refused(&c, ENOEXEC, NULL, "unsorted");

	craft(&c, 0xfffffff0, names3, starts3, 3, 0x90);
	put(c.b + 24, 0, 8);
	assert_refused(&c, ENOTSUP, NULL, "Go 1.26's header");

	craft(&c, 0xfffffff0, names3, starts3, 3, 0x90);
	b.max_symbols = 2;
	budget__clear();
	assert_refused(&c, EFBIG, &b, "over max_symbols");
	cr_assert(strstr(budget__why(), "3 functions, over 2"), "why: %s", budget__why());

	b.max_symbols = 3;
	b.cancel = &cancel;
	assert_refused(&c, ECANCELED, &b, "cancelled");
}

/* The real table of fixture_go_stripped: malloc'd copy. */
static uint8_t *real_table(size_t *len)
{
	size_t size, off = 0;
	char *image = read_whole(FIXTURE_GO_STRIPPED, &size);
	Elf *elf = elf_memory(image, size);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	uint8_t *t;

	cr_assert_not_null(elf);
	cr_assert_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	*len = 0;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && !strcmp(elf_strptr(elf, shstrndx, sh.sh_name), ".gopclntab")) {
			off = sh.sh_offset;
			*len = sh.sh_size;
		}
	elf_end(elf);
	cr_assert_gt(*len, 0);
	t = malloc(*len);
	cr_assert_not_null(t);
	memcpy(t, image + off, *len);
	free(image);
	return t;
}

/* Cut anywhere, a table is refused: its records are at its end. (ASan sees every read.) */
Test(go_symbols, truncated_tables)
{
	size_t len;
	uint8_t *t = real_table(&len);
	struct elf_symtab *st = go_symbols__from_table(t, len, NULL);

	cr_assert_not_null(st);
	elf_symtab__free(st);
	for (size_t n = 0; n < len; n = n < 4096 ? n + 1 : n + 4999) {
		uint8_t *cut = malloc(n ? n : 1);

		memcpy(cut, t, n);
		cr_assert_null(go_symbols__from_table(cut, n, NULL), "cut at %zu", n);
		free(cut);
	}
	free(t);
}

/* Bytes changed at random: never a read outside; what is read is sorted, sized and named. */
Test(go_symbols, mutated_tables)
{
	size_t len;
	uint8_t *t = real_table(&len), *m = malloc(len);
	unsigned seed = 28;

	cr_assert_not_null(m);
	for (int round = 0; round < 400; round++) {
		size_t span = round % 2 ? len : (len < 256 ? len : 256);
		struct elf_symtab *st;
		const struct elf_sym *prev = NULL;

		memcpy(m, t, len);
		for (int k = 0; k < 1 + round % 4; k++)
			m[(size_t)rand_r(&seed) % span] = (uint8_t)rand_r(&seed);
		st = go_symbols__from_table(m, len, NULL);
		if (!st)
			continue;
		for (size_t i = 0; i < elf_symtab__count(st); i++) {
			const struct elf_sym *s = elf_symtab__at(st, i);

			cr_assert_gt(s->size, 0, "round %d", round);
			cr_assert_lt(strnlen(s->name, len), len, "round %d", round);
			cr_assert(!prev || s->addr >= prev->addr + prev->size, "round %d", round);
			cr_assert_eq(elf_symtab__find(st, s->addr + s->size - 1), s, "round %d", round);
			prev = s;
		}
		elf_symtab__free(st);
	}
	free(m);
	free(t);
}

/* Two stripped files that differ only in a name have other digests: their tables are not shared. */
Test(go_symbols, digest_covers_the_table)
{
	size_t size, len;
	char *image = read_whole(FIXTURE_GO_STRIPPED, &size), *copy = malloc(size);
	uint8_t *t = real_table(&len), a[SHA256_LEN], b[SHA256_LEN];
	char *at;
	Elf *elf;

	cr_assert_not_null(copy);
	memcpy(copy, image, size);
	at = memmem(copy, size, t, len);
	cr_assert_not_null(at);
	at = memmem(at, len, "main.spin", 9);
	cr_assert_not_null(at, "no main.spin in the table");
	at[5] = 'S';
	elf = elf_read__memory(image, size, NULL);
	cr_assert_eq(file_id__symbols(elf, NULL, a), 0);
	elf_end(elf);
	elf = elf_read__memory(copy, size, NULL);
	cr_assert_eq(file_id__symbols(elf, NULL, b), 0);
	elf_end(elf);
	cr_assert_neq(memcmp(a, b, SHA256_LEN), 0);
	free(image);
	free(copy);
	free(t);
}
