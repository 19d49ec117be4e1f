// SPDX-License-Identifier: GPL-2.0
/*
 * test_debuginfo.c - symbols of stripped files found elsewhere: the debug
 * file by .gnu_debuglink (next to the binary, in .debug/, under a debug
 * directory) and by build-id, MiniDebugInfo, compressed symbol tables; and
 * the checks that keep a wrong debug file out.
 */
#include <fcntl.h>
#include <lzma.h>

#include "symbols/debuginfo.h"
#include "sym_fixtures.h"

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

TestSuite(debuginfo, .init = make_tmp, .fini = drop_tmp);

/* name resolves at the address nm gives in oracle (the unstripped symbols). */
static void assert_has(const struct elf_symtab *st, const char *oracle, const char *name)
{
	const struct elf_sym *s;
	uint64_t addr, size;

	nm_symbol(oracle, name, &addr, &size);
	s = elf_symtab__find(st, addr + 1);
	cr_assert_not_null(s, "%s at %#" PRIx64 ": not found", name, addr);
	cr_assert_str_eq(s->name, name);
	cr_assert_eq(s->addr, addr);
}

/* The static function is not there: only the exported ones are. */
static void assert_stripped(const struct elf_symtab *st, const char *oracle)
{
	const struct elf_sym *s;
	uint64_t addr, size;

	nm_symbol(oracle, "dbg_local", &addr, &size);
	s = elf_symtab__find(st, addr + 1);
	cr_assert(!s || strcmp(s->name, "dbg_local"), "dbg_local found without debug info");
	cr_assert_neq(elf_symtab__kind(st), ELF_SYMTAB_FULL);
}

static struct elf_symtab *load(const char *path, const struct debuginfo_opts *opts,
			       struct debuginfo_info *info)
{
	struct elf_symtab *st = debuginfo__load_file(path, opts, info);

	cr_assert_not_null(st, "load '%s': %s", path, strerror(errno));
	return st;
}

/* Debug directories that hold nothing, so only what a test sets up is found. */
static const char *const no_dirs[] = { "/nonexistent/debug" };
static const struct debuginfo_opts empty_opts = { .debug_dirs = no_dirs, .nr_debug_dirs = 1 };

Test(debuginfo, own_symtab_needs_no_search)
{
	struct debuginfo_info info;
	struct elf_symtab *st = load(FIXTURE_PIE, &empty_opts, &info);

	cr_assert_eq(info.source, DEBUGINFO_SYMTAB);
	cr_assert_eq(elf_symtab__kind(st), ELF_SYMTAB_FULL);
	cr_assert_str_eq(info.debug_path, "");
	elf_symtab__free(st);
}

Test(debuginfo, debuglink_next_to_the_binary)
{
	struct debuginfo_info info;
	struct elf_symtab *st = load(FIXTURE_DEBUGLINK, &empty_opts, &info);

	cr_assert_eq(info.source, DEBUGINFO_DEBUGLINK, "source %s",
		     debuginfo_source__str(info.source));
	cr_assert_str_eq(info.debug_path, FIXTURE_DEBUGLINK_DEBUG);
	assert_has(st, FIXTURE_DEBUGLINK_DEBUG, "dbg_local");
	assert_has(st, FIXTURE_DEBUGLINK_DEBUG, "dbg_global");
	assert_has(st, FIXTURE_DEBUGLINK_DEBUG, "main");
	cr_assert_eq(elf_symtab__kind(st), ELF_SYMTAB_FULL);
	elf_symtab__free(st);
}

Test(debuginfo, debuglink_in_dot_debug)
{
	char *bin = path_in(tmp, "bin/prog");
	char *dbg = path_in(tmp, "bin/.debug/fixture_debuglink.debug");
	struct debuginfo_info info;
	struct elf_symtab *st;

	copy_file(FIXTURE_DEBUGLINK, bin);
	copy_file(FIXTURE_DEBUGLINK_DEBUG, dbg);
	st = load(bin, &empty_opts, &info);
	cr_assert_eq(info.source, DEBUGINFO_DEBUGLINK);
	cr_assert_str_eq(info.debug_path, dbg);
	assert_has(st, FIXTURE_DEBUGLINK_DEBUG, "dbg_local");
	elf_symtab__free(st);
	free(bin);
	free(dbg);
}

Test(debuginfo, debuglink_under_a_debug_dir_by_the_binary_s_directory)
{
	char *bin = path_in(tmp, "usr/bin/prog"), *dbg, *debug_dir, *rel;
	const char *dirs[2];
	struct debuginfo_opts opts = { .debug_dirs = dirs, .nr_debug_dirs = 2 };
	struct debuginfo_info info;
	struct elf_symtab *st;

	/* <debug-dir>/<dir of the binary>/<debuglink>, the second dir given */
	debug_dir = path_in(tmp, "debug/x");
	debug_dir[strlen(debug_dir) - 2] = '\0';
	cr_assert_neq(asprintf(&rel, "debug%s/usr/bin/fixture_debuglink.debug", tmp), -1);
	dbg = path_in(tmp, rel);
	dirs[0] = "/nonexistent/debug";
	dirs[1] = debug_dir;
	copy_file(FIXTURE_DEBUGLINK, bin);
	copy_file(FIXTURE_DEBUGLINK_DEBUG, dbg);
	st = load(bin, &opts, &info);
	cr_assert_eq(info.source, DEBUGINFO_DEBUGLINK);
	cr_assert_str_eq(info.debug_path, dbg);
	assert_has(st, FIXTURE_DEBUGLINK_DEBUG, "dbg_local");
	elf_symtab__free(st);
	free(bin);
	free(dbg);
	free(debug_dir);
	free(rel);
}

Test(debuginfo, debuglink_with_a_wrong_crc_is_not_used)
{
	char *bin = path_in(tmp, "bin/prog");
	char *dbg = path_in(tmp, "bin/fixture_debuglink.debug");
	char *other = buildid_debug_file();
	struct debuginfo_info info;
	struct elf_symtab *st;

	/* a debug file of the right name, but another program's */
	copy_file(FIXTURE_DEBUGLINK, bin);
	copy_file(other, dbg);
	st = load(bin, &empty_opts, &info);
	cr_assert_eq(info.source, DEBUGINFO_NONE);
	assert_stripped(st, FIXTURE_DEBUGLINK_DEBUG);
	/* .dynsym still names the exported function */
	assert_has(st, FIXTURE_DEBUGLINK_DEBUG, "dbg_global");
	elf_symtab__free(st);
	free(bin);
	free(dbg);
	free(other);
}

Test(debuginfo, stripped_alone_keeps_dynsym)
{
	char *bin = path_in(tmp, "prog");
	struct debuginfo_info info;
	struct elf_symtab *st;

	copy_file(FIXTURE_DEBUGLINK, bin);
	st = load(bin, &empty_opts, &info);
	cr_assert_eq(info.source, DEBUGINFO_NONE);
	cr_assert_eq(elf_symtab__kind(st), ELF_SYMTAB_DYNSYM);
	assert_stripped(st, FIXTURE_DEBUGLINK_DEBUG);
	assert_has(st, FIXTURE_DEBUGLINK_DEBUG, "dbg_global");
	elf_symtab__free(st);
	free(bin);
}

Test(debuginfo, build_id_under_a_debug_dir)
{
	const char *dirs[] = { "/nonexistent/debug", FIXTURE_DEBUGROOT };
	struct debuginfo_opts opts = { .debug_dirs = dirs, .nr_debug_dirs = 2 };
	char *dbg = buildid_debug_file();
	struct debuginfo_info info;
	struct elf_symtab *st;
	uint8_t id[BUILD_ID_MAX];
	int fd, len;

	st = load(FIXTURE_BUILDID, &opts, &info);
	cr_assert_eq(info.source, DEBUGINFO_BUILD_ID, "source %s", debuginfo_source__str(info.source));
	cr_assert_str_eq(info.debug_path, dbg);
	cr_assert_eq(info.build_id_len, 20);
	assert_has(st, dbg, "dbg_local");
	assert_has(st, dbg, "dbg_global");
	/* the build-id read from the debug file is the binary's */
	fd = open(dbg, O_RDONLY);
	cr_assert_geq(fd, 0);
	len = debuginfo__build_id_fd(fd, id, sizeof(id));
	close(fd);
	cr_assert_eq(len, 20);
	cr_assert_arr_eq(id, info.build_id, 20);
	elf_symtab__free(st);
	free(dbg);
}

Test(debuginfo, build_id_not_found_without_its_debug_dir)
{
	struct debuginfo_info info;
	struct elf_symtab *st = load(FIXTURE_BUILDID, &empty_opts, &info);
	char *dbg = buildid_debug_file();

	cr_assert_eq(info.source, DEBUGINFO_NONE);
	assert_stripped(st, dbg);
	elf_symtab__free(st);
	free(dbg);
}

Test(debuginfo, build_id_path_holding_another_file_is_not_used)
{
	char *real = buildid_debug_file();
	const char *rel = real + strlen(FIXTURE_DEBUGROOT) + 1;	/* ".build-id/xx/yyyy.debug" */
	char *fake = path_in(tmp, rel);
	const char *dirs[] = { tmp };
	struct debuginfo_opts opts = { .debug_dirs = dirs, .nr_debug_dirs = 1 };
	struct debuginfo_info info;
	struct elf_symtab *st;

	copy_file(FIXTURE_DEBUGLINK_DEBUG, fake);
	st = load(FIXTURE_BUILDID, &opts, &info);
	cr_assert_eq(info.source, DEBUGINFO_NONE, "a debug file with another build-id was used");
	elf_symtab__free(st);
	free(real);
	free(fake);
}

Test(debuginfo, process_root_is_searched_first)
{
	char *real = buildid_debug_file();
	const char *rel = real + strlen(FIXTURE_DEBUGROOT);	/* "/.build-id/..." */
	char *in_root, *root = path_in(tmp, "root/x");
	const char *dirs[] = { "/usr/lib/debug" };
	struct debuginfo_opts opts = { .debug_dirs = dirs, .nr_debug_dirs = 1 };
	struct debuginfo_info info;
	struct elf_symtab *st;
	char *sub;

	root[strlen(root) - 2] = '\0';
	cr_assert_neq(asprintf(&sub, "root/usr/lib/debug%s", rel), -1);
	in_root = path_in(tmp, sub);
	copy_file(real, in_root);
	opts.root = root;
	st = load(FIXTURE_BUILDID, &opts, &info);
	cr_assert_eq(info.source, DEBUGINFO_BUILD_ID);
	cr_assert_str_eq(info.debug_path, in_root);
	assert_has(st, real, "dbg_local");
	elf_symtab__free(st);
	free(real);
	free(in_root);
	free(root);
	free(sub);
}

Test(debuginfo, minidebuginfo_keeps_dynsym)
{
	struct debuginfo_info info;
	struct elf_symtab *st = load(FIXTURE_MINIDEBUGINFO, &empty_opts, &info);
	const struct elf_sym *s;
	uint64_t addr = 0, size = 0;

	cr_assert_eq(info.source, DEBUGINFO_MINIDEBUGINFO, "source %s",
		     debuginfo_source__str(info.source));
	cr_assert_str_eq(info.debug_path, "");
	/* the exported function stays named */
	nm_dynamic_symbol(FIXTURE_MINIDEBUGINFO, "dbg_global", &addr, &size);
	s = elf_symtab__find(st, addr);
	cr_assert_not_null(s);
	cr_assert_str_eq(s->name, "dbg_global");
	cr_assert_eq(elf_symtab__kind(st), ELF_SYMTAB_FULL);
	elf_symtab__free(st);
}

Test(debuginfo, minidebuginfo_names_the_local_function)
{
	struct debuginfo_info info;
	struct elf_symtab *st = load(FIXTURE_MINIDEBUGINFO, &empty_opts, &info);
	char cmd[4200], line[256];
	bool found = false;
	FILE *p;

	/* the oracle: the symbols of the embedded ELF, as xz and nm see them */
	snprintf(cmd, sizeof(cmd),
		 "objcopy --dump-section .gnu_debugdata=/dev/stdout '%s' /dev/null | xz -dc > '%s/mini' && "
		 "nm --defined-only '%s/mini' | awk '$3 == \"dbg_local\" { print $1 }'",
		 FIXTURE_MINIDEBUGINFO, tmp, tmp);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		uint64_t addr = strtoull(line, NULL, 16);
		const struct elf_sym *s = elf_symtab__find(st, addr);

		cr_assert_not_null(s, "dbg_local at %#" PRIx64 " not found", addr);
		cr_assert_str_eq(s->name, "dbg_local");
		found = true;
	}
	pclose(p);
	cr_assert(found, "the fixture's MiniDebugInfo has no dbg_local");
	elf_symtab__free(st);
}

Test(debuginfo, compressed_symtab_is_inflated)
{
	struct elf_symtab *st = elf_symtab__load_file(FIXTURE_ZSYMTAB);
	char cmd[4200];

	cr_assert_not_null(st, "%s", strerror(errno));
	/* the fixture really is compressed: readelf shows the C flag */
	snprintf(cmd, sizeof(cmd), "readelf -SW '%s' | grep -q ' \\.symtab .* C '", FIXTURE_ZSYMTAB);
	cr_assert_eq(system(cmd), 0, "'%s' has no compressed .symtab", FIXTURE_ZSYMTAB);
	cr_assert_eq(elf_symtab__kind(st), ELF_SYMTAB_FULL);
	assert_has(st, FIXTURE_ZSYMTAB ".orig", "dbg_local");
	assert_has(st, FIXTURE_ZSYMTAB ".orig", "main");
	elf_symtab__free(st);
}

Test(debuginfo, crc32_is_zlib_s)
{
	char *path = path_in(tmp, "nine");
	uint32_t crc = 0;
	int fd;

	write_text(path, "123456789");
	fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(debuginfo__crc32_fd(fd, NULL, &crc), 0);
	close(fd);
	cr_assert_eq(crc, 0xcbf43926u, "crc %#x", crc);
	free(path);
}

/* xz-compress len bytes of data with liblzma. */
static void *xz(const void *data, size_t len, size_t *out_len)
{
	size_t cap = lzma_stream_buffer_bound(len), pos = 0;
	uint8_t *out = malloc(cap);

	cr_assert_not_null(out);
	cr_assert_eq(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, data, len, out, &pos, cap),
		     LZMA_OK);
	*out_len = pos;
	return out;
}

Test(debuginfo, unxz_round_trip_and_cap)
{
	size_t len = 1 << 20, zlen, outlen = 0;
	char *data = malloc(len);
	void *z, *out = NULL;

	cr_assert_not_null(data);
	for (size_t i = 0; i < len; i++)
		data[i] = (char)(i * 7 / 13);
	z = xz(data, len, &zlen);
	cr_assert_eq(debuginfo__unxz(z, zlen, 4 << 20, &out, &outlen), 0);
	cr_assert_eq(outlen, len);
	cr_assert_arr_eq(out, data, len);
	free(out);
	/* a bomb: more than the cap inflates to -EFBIG, not to memory */
	cr_assert_eq(debuginfo__unxz(z, zlen, len / 2, &out, &outlen), -EFBIG);
	/* truncated and garbage input */
	cr_assert_eq(debuginfo__unxz(z, zlen / 2, 4 << 20, &out, &outlen), -EINVAL);
	cr_assert_eq(debuginfo__unxz("not xz at all", 13, 4 << 20, &out, &outlen), -EINVAL);
	free(z);
	free(data);
}

Test(debuginfo, not_elf_is_enoexec)
{
	char *path = path_in(tmp, "text");

	write_text(path, "just text, not an ELF file\n");
	errno = 0;
	cr_assert_null(debuginfo__load_file(path, &empty_opts, NULL));
	cr_assert_eq(errno, ENOEXEC);
	free(path);
}

/* A debug file from elsewhere (debuginfod): used only as the binary's own. */
static struct elf_symtab *load_with(const char *bin, const char *dbg, const struct budget *b,
				    struct debuginfo_info *info)
{
	struct debuginfo_opts opts = { .budget = b };
	struct elf_symtab *st;
	int fd = open(bin, O_RDONLY), dfd = open(dbg, O_RDONLY);

	cr_assert_geq(fd, 0);
	cr_assert_geq(dfd, 0);
	st = debuginfo__load_with_debug_fd(fd, dfd, &opts, info);
	close(fd);
	close(dfd);
	return st;
}

Test(debuginfo, fetched_debug_file_with_the_binarys_build_id_is_used)
{
	char *dbg = buildid_debug_file();
	struct debuginfo_info info;
	struct elf_symtab *st = load_with(FIXTURE_BUILDID, dbg, NULL, &info);

	cr_assert_not_null(st, "errno %d, %s", errno, info.refused);
	cr_assert_eq(info.source, DEBUGINFO_DEBUGINFOD, "source %s",
		     debuginfo_source__str(info.source));
	cr_assert_eq(info.build_id_len, 20);
	cr_assert_eq(elf_symtab__kind(st), ELF_SYMTAB_FULL);
	assert_has(st, dbg, "dbg_local");
	assert_has(st, dbg, "dbg_global");
	cr_assert_eq(info.debug_fd, -1);
	elf_symtab__free(st);
	free(dbg);
}

Test(debuginfo, fetched_debug_file_of_another_build_id_is_refused)
{
	struct debuginfo_info info;
	struct elf_symtab *st = load_with(FIXTURE_BUILDID, FIXTURE_DEBUGLINK_DEBUG, NULL, &info);

	cr_assert_null(st, "another program's debug file was used");
	cr_assert_eq(errno, EBADMSG);
	cr_assert(strstr(info.refused, "build-id is another file's"), "%s", info.refused);
}

Test(debuginfo, fetched_garbage_is_refused)
{
	char *junk = path_in(tmp, "junk");
	char bytes[4096];
	struct debuginfo_info info;
	struct elf_symtab *st;

	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (char)(i * 131 + 7);
	write_bytes(junk, bytes, sizeof(bytes));
	st = load_with(FIXTURE_BUILDID, junk, NULL, &info);
	cr_assert_null(st);
	cr_assert_eq(errno, EBADMSG);
	cr_assert(strstr(info.refused, "not an ELF file"), "%s", info.refused);
	free(junk);
}

Test(debuginfo, fetched_debug_file_over_its_budget_is_refused)
{
	struct budget b = BUDGET_DEFAULT_INIT;
	char *dbg = buildid_debug_file();
	struct debuginfo_info info;
	struct elf_symtab *st;

	b.max_fetch_bytes = 4096;
	st = load_with(FIXTURE_BUILDID, dbg, &b, &info);
	cr_assert_null(st);
	cr_assert_eq(errno, EBADMSG);
	cr_assert(strstr(info.refused, "over the budget"), "%s", info.refused);
	free(dbg);
}
