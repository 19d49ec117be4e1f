// SPDX-License-Identifier: GPL-2.0
/*
 * test_srcline.c - --lines: source lines and inlined frames from DWARF,
 * checked against binutils' addr2line -f -i; on a clang binary (no
 * .debug_aranges) and through a separate debug file in usyms.
 */
#include <fcntl.h>

#include "fake_proc.h"
#include "symbols/srcline.h"
#include "sym_fixtures.h"
#include "symbols/usyms.h"

#define FIXTURE_INLINE FIXTURE_DIR "/fixture_inline"

struct a2l {
	char name[8][256];
	char file[8][1024];
	int line[8];
	int n;
};

/* addr2line -f -i: function and file:line pairs, innermost first. */
static void addr2line(const char *path, uint64_t addr, struct a2l *out)
{
	char cmd[4200], fn[256], loc[1024];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "addr2line -f -i -e '%s' %#" PRIx64, path, addr);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	out->n = 0;
	while (out->n < 8 && fgets(fn, sizeof(fn), p) && fgets(loc, sizeof(loc), p)) {
		char *colon;

		fn[strcspn(fn, "\n")] = '\0';
		loc[strcspn(loc, "\n")] = '\0';
		/* "file:line" or "file:line (discriminator N)" */
		colon = strrchr(loc, ':');
		cr_assert_not_null(colon, "addr2line: '%s'", loc);
		*colon = '\0';
		snprintf(out->name[out->n], sizeof(out->name[0]), "%s", fn);
		snprintf(out->file[out->n], sizeof(out->file[0]), "%s", loc);
		out->line[out->n] = atoi(colon + 1);
		out->n++;
	}
	pclose(p);
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

Test(srcline, inlined_frames_match_addr2line)
{
	struct srcline *sl = srcline__open_file(FIXTURE_INLINE);
	struct srcline_frame f[8];
	uint64_t addr, size;
	int inlined = 0;

	cr_assert_not_null(sl, "%s", strerror(errno));
	nm_symbol(FIXTURE_INLINE, "fixture_outer", &addr, &size);
	for (uint64_t a = addr; a < addr + size; a++) {
		struct a2l want;
		int n = srcline__lookup(sl, a, f, 8);

		addr2line(FIXTURE_INLINE, a, &want);
		cr_assert_gt(n, 0, "%#" PRIx64 ": no line", a);
		cr_assert_eq(n, want.n, "%#" PRIx64 ": %d frames, addr2line %d", a, n, want.n);
		for (int i = 0; i < n; i++) {
			cr_assert_str_eq(f[i].name, want.name[i], "%#" PRIx64 " frame %d", a, i);
			cr_assert_str_eq(base(f[i].file), base(want.file[i]), "%#" PRIx64 " frame %d", a, i);
			cr_assert_eq(f[i].line, want.line[i], "%#" PRIx64 " frame %d", a, i);
		}
		if (n == 2) {
			cr_assert_str_eq(f[0].name, "fixture_inlined_step");
			cr_assert_str_eq(f[1].name, "fixture_outer");
			inlined++;
		}
	}
	cr_assert_gt(inlined, 0, "the fixture has no inlined code");
	srcline__free(sl);
}

Test(srcline, no_dwarf_is_enoent)
{
	errno = 0;
	cr_assert_null(srcline__open_file(FIXTURE_BUILDID));
	cr_assert_eq(errno, ENOENT);
}

Test(srcline, address_outside_dwarf)
{
	struct srcline *sl = srcline__open_file(FIXTURE_INLINE);
	struct srcline_frame f[4];

	cr_assert_not_null(sl);
	cr_assert_eq(srcline__lookup(sl, 0x10, f, 4), -ENOENT);
	srcline__free(sl);
}

/* --- through usyms ------------------------------------------------------- */

#define BIAS 0x7f4000000000ULL

TestSuite(srcline_usyms, .init = fake_proc_setup, .fini = fake_proc_teardown);

static struct usyms *new_usyms(bool lines)
{
	static const char *const dirs[] = { "/nonexistent/debug" };
	struct usyms_opts opts = {
		.proc_root = proc_root, .debug_dirs = dirs, .nr_debug_dirs = 1,
		.demangle = true, .lines = lines,
	};
	struct usyms *u = usyms__new_opts(&opts);

	cr_assert_not_null(u);
	return u;
}

Test(srcline_usyms, frames_name_file_and_line)
{
	char *maps = exec_mapping_line(FIXTURE_INLINE, BIAS, NULL), want[4096];
	struct usyms *u = new_usyms(true);
	uint64_t addr, size;
	struct usym sym;
	bool seen_inline = false;

	fake_process(proc_root, 42, maps, getuid(), 42, NULL);
	nm_symbol(FIXTURE_INLINE, "fixture_outer", &addr, &size);
	for (uint64_t a = addr; a < addr + size; a++) {
		struct a2l w;

		addr2line(FIXTURE_INLINE, a, &w);
		cr_assert_eq(usyms__resolve(u, 42, BIAS + a, &sym), 0);
		cr_assert_eq(sym.nr_lines, (size_t)w.n);
		if (w.n == 1)
			snprintf(want, sizeof(want), "fixture_outer (%s:%d)", base(w.file[0]), w.line[0]);
		else
			snprintf(want, sizeof(want), "fixture_outer (%s:%d) > fixture_inlined_step (%s:%d)",
				 base(w.file[1]), w.line[1], base(w.file[0]), w.line[0]);
		cr_assert_str_eq(sym.name, want, "%#" PRIx64, a);
		cr_assert_str_eq(sym.lines[0].name, "fixture_outer");
		seen_inline |= w.n == 2;
	}
	cr_assert(seen_inline);
	usyms__free(u);
	free(maps);
}

Test(srcline_usyms, lines_come_from_the_debug_file)
{
	char *maps = exec_mapping_line(FIXTURE_DEBUGLINK, BIAS, NULL), want[4096];
	struct usyms *u = new_usyms(true);
	uint64_t addr, size;
	struct usym sym;
	struct a2l w;

	fake_process(proc_root, 42, maps, getuid(), 42, NULL);
	nm_symbol(FIXTURE_DEBUGLINK_DEBUG, "dbg_local", &addr, &size);
	/* the stripped file has no DWARF: addr2line reads the debug file */
	addr2line(FIXTURE_DEBUGLINK_DEBUG, addr, &w);
	cr_assert_eq(w.n, 1);
	cr_assert_eq(usyms__resolve(u, 42, BIAS + addr, &sym), 0);
	snprintf(want, sizeof(want), "dbg_local (fixture_debuginfo.c:%d)", w.line[0]);
	cr_assert_str_eq(sym.name, want);
	usyms__free(u);
	free(maps);
}

Test(srcline_usyms, without_lines_names_stay_plain)
{
	char *maps = exec_mapping_line(FIXTURE_INLINE, BIAS, NULL);
	struct usyms *u = new_usyms(false);
	uint64_t addr, size;
	struct usym sym;

	fake_process(proc_root, 42, maps, getuid(), 42, NULL);
	nm_symbol(FIXTURE_INLINE, "fixture_outer", &addr, &size);
	cr_assert_eq(usyms__resolve(u, 42, BIAS + addr + 4, &sym), 0);
	cr_assert_str_eq(sym.name, "fixture_outer");
	cr_assert_null(sym.lines);
	cr_assert_eq(sym.nr_lines, 0);
	usyms__free(u);
	free(maps);
}
