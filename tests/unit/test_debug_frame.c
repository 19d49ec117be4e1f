// SPDX-License-Identifier: GPL-2.0
/*
 * Unwind tables from .debug_frame (unwind/cfi_table.c): the rules of
 * code built without unwind tables (-fno-asynchronous-unwind-tables -g),
 * read from the file itself or from its separate debug file, only where
 * .eh_frame has none, and the same rows by the linear interpreter as by
 * libdw. Each test compiles its own program.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind/cfi_table.h"
#include "symbols/elf_read.h"
#include "test_util.h"

/* mid keeps leaf's first result across the second call: a frame, no tail call */
static const char program[] =
	"volatile unsigned long sink;\n"
	"__attribute__((noipa)) unsigned long leaf(int n)\n"
	"{ for (int i = 0; i < n; i++) sink += i; return sink; }\n"
	"__attribute__((noipa)) unsigned long mid(int n)\n"
	"{ unsigned long a = leaf(n); return 3 * (a ^ leaf(n + 1)); }\n"
	"int main(int argc, char **argv) { (void)argv; return (int)mid(argc); }\n";

static const char *const funcs[] = { "leaf", "mid", "main" };

#define NO_UNWIND_TABLES "-fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables"

struct built {
	char *dir;
	char *full;	/* -g, no unwind tables: .debug_frame for the program's own code */
	char *stripped;	/* full without its debug sections */
	char *debug;	/* full's debug sections alone (objcopy --only-keep-debug) */
};

static void run(const char *fmt, const char *a, const char *b, const char *c)
{
	char cmd[16384];

	snprintf(cmd, sizeof(cmd), fmt, a, b, c);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* The program, built with cflags; prefix (or "") goes before its source. */
static void build(struct built *bt, const char *cflags, const char *prefix)
{
	char *src, *text;

	bt->dir = make_tmpdir();
	cr_assert_neq(asprintf(&text, "%s%s", prefix, program), -1);
	src = write_in(bt->dir, "p.c", text);
	free(text);
	bt->full = path_in(bt->dir, "p");
	bt->stripped = path_in(bt->dir, "p.stripped");
	bt->debug = path_in(bt->dir, "p.debug");
	run("gcc -O2 -g %s '%s' -o '%s'", cflags, src, bt->full);
	run("objcopy --only-keep-debug '%s' '%s'%s", bt->full, bt->debug, "");
	run("objcopy --strip-debug '%s' '%s'%s", bt->full, bt->stripped, "");
	free(src);
}

static void release(struct built *bt)
{
	free(bt->full);
	free(bt->stripped);
	free(bt->debug);
	rm_rf(bt->dir);
}

struct elf_file {
	int fd;
	Elf *elf;
};

static Elf *open_elf(struct elf_file *f, const char *path)
{
	cr_assert(elf_read__ready());
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(f->fd, 0, "%s", path);
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	cr_assert_not_null(f->elf, "%s", path);
	return f->elf;
}

static void close_elf(struct elf_file *f)
{
	elf_end(f->elf);
	close(f->fd);
}

/* The table of path, with debug (or NULL) as its debug file. */
static int table_of(const char *path, const char *debug, struct cfi_table *t, bool libdw)
{
	struct elf_file a, b = { .fd = -1 };
	int err;

	open_elf(&a, path);
	if (debug)
		open_elf(&b, debug);
	err = libdw ? cfi_table__build_libdw(a.elf, b.elf, NULL, t)
		    : cfi_table__build_debug(a.elf, b.elf, NULL, t);
	if (debug)
		close_elf(&b);
	close_elf(&a);
	return err;
}

/* Whether the table has a rule at every byte of each of the program's functions. */
static void assert_funcs_covered(const struct cfi_table *t, const char *path, bool covered)
{
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		uint64_t addr, size;

		nm_symbol(path, funcs[i], &addr, &size);
		for (uint64_t pc = addr; pc < addr + size; pc++) {
			const struct unwind_row *r = cfi_table__find(t, (uint32_t)pc);
			bool has = r && r->cfa_rule != UNW_CFA_NONE;

			cr_assert_eq(has, covered, "%s+%#llx: %s", funcs[i],
				     (unsigned long long)(pc - addr), has ? "a rule" : "no rule");
		}
	}
}

static void assert_same_rows(const struct cfi_table *a, const struct cfi_table *b, const char *what)
{
	cr_assert_eq(a->nr, b->nr, "%s: %zu rows against %zu", what, a->nr, b->nr);
	for (size_t i = 0; i < a->nr; i++)
		cr_assert(!memcmp(&a->rows[i], &b->rows[i], sizeof(a->rows[i])),
			  "%s: row %zu at %#x differs", what, i, a->rows[i].pc);
}

Test(debug_frame, the_files_own_covers_code_without_unwind_tables)
{
	struct cfi_table t, ref;
	struct built bt;
	uint64_t addr, size;
	bool moved = false;

	build(&bt, NO_UNWIND_TABLES, "");
	cr_assert_eq(table_of(bt.full, NULL, &t, false), 0);
	/* _start and the like come from crt files' .eh_frame, the program's from .debug_frame */
	cr_assert_geq(t.from_debug_frame, 3, "%llu FDEs of .debug_frame",
		      (unsigned long long)t.from_debug_frame);
	cr_assert_eq(t.debug_frame_err, 0);
	assert_funcs_covered(&t, bt.full, true);
	/* mid keeps the stack aligned for its calls: its CFA moves to rsp+16 */
	nm_symbol(bt.full, "mid", &addr, &size);
	for (uint64_t pc = addr; pc < addr + size; pc++) {
		const struct unwind_row *r = cfi_table__find(&t, (uint32_t)pc);

		moved |= r->cfa_rule == UNW_CFA_SP && r->cfa_off == 16;
	}
	cr_assert(moved, "mid's CFA is rsp+8 throughout");
	cr_assert_eq(table_of(bt.full, NULL, &ref, true), 0);
	assert_same_rows(&t, &ref, "linear against libdw");
	cfi_table__release(&t);
	cfi_table__release(&ref);
	release(&bt);
}

Test(debug_frame, a_debug_files_fills_in_for_the_stripped_file)
{
	struct cfi_table whole, stripped, with_debug;
	struct built bt;
	char *zdebug;

	build(&bt, NO_UNWIND_TABLES, "");
	cr_assert_eq(table_of(bt.stripped, NULL, &stripped, false), 0);
	cr_assert_eq(stripped.from_debug_frame, 0);
	assert_funcs_covered(&stripped, bt.stripped, false);
	cr_assert_eq(table_of(bt.stripped, bt.debug, &with_debug, false), 0);
	cr_assert_eq(table_of(bt.full, NULL, &whole, false), 0);
	assert_funcs_covered(&with_debug, bt.stripped, true);
	assert_same_rows(&with_debug, &whole, "debug file against the file's own");
	/* debug packages compress their sections (SHF_COMPRESSED) */
	zdebug = path_in(bt.dir, "p.zdebug");
	run("objcopy --compress-debug-sections=zlib '%s' '%s'%s", bt.debug, zdebug, "");
	run("readelf -S '%s' | grep -A1 ' .debug_frame' | grep -q 'C'%s%s", zdebug, "", "");
	cfi_table__release(&with_debug);
	cr_assert_eq(table_of(bt.stripped, zdebug, &with_debug, false), 0);
	assert_same_rows(&with_debug, &whole, "a compressed debug file against the file's own");
	free(zdebug);
	cfi_table__release(&whole);
	cfi_table__release(&stripped);
	cfi_table__release(&with_debug);
	release(&bt);
}

Test(debug_frame, eh_frame_wins_where_both_have_rules)
{
	struct cfi_table both, eh_only;
	struct built bt;
	char *eh;

	/* the assembler writes every FDE twice, to both sections */
	build(&bt, "-fomit-frame-pointer", "__asm__(\".cfi_sections .eh_frame, .debug_frame\");\n");
	eh = path_in(bt.dir, "p.eh");
	run("objcopy -R .debug_frame '%s' '%s'%s", bt.full, eh, "");
	run("readelf -S '%s' | grep -q ' .debug_frame'%s%s", bt.full, "", "");
	cr_assert_eq(table_of(bt.full, NULL, &both, false), 0);
	cr_assert_eq(table_of(eh, NULL, &eh_only, false), 0);
	cr_assert_eq(both.from_debug_frame, 0, "%llu FDEs of .debug_frame taken",
		     (unsigned long long)both.from_debug_frame);
	/* leaf, mid and main at least: crt files have .eh_frame alone */
	cr_assert_geq(both.shadowed, 3, "%llu FDEs of .debug_frame left out",
		      (unsigned long long)both.shadowed);
	assert_same_rows(&both, &eh_only, "both sections against .eh_frame alone");
	assert_funcs_covered(&both, bt.full, true);
	cfi_table__release(&both);
	cfi_table__release(&eh_only);
	free(eh);
	release(&bt);
}

/* A CIE with augmentation "zR": .debug_frame's pointers are not read that way. */
Test(debug_frame, an_unreadable_one_leaves_the_eh_frame_table)
{
	static const unsigned char cie[] = {
		0x14, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,	/* length 20, CIE id */
		1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x1b,	/* version, "zR", factors, ra, R */
		0x0c, 7, 8, 0, 0, 0, 0,			/* def_cfa rsp+8, padding */
	};
	struct cfi_table bad, stripped;
	struct built bt;
	char *frame, *debug;

	build(&bt, NO_UNWIND_TABLES, "");
	frame = path_in(bt.dir, "bad.frame");
	debug = path_in(bt.dir, "bad.debug");
	write_bytes(frame, cie, sizeof(cie));
	run("objcopy --update-section .debug_frame='%s' '%s' '%s'", frame, bt.debug, debug);
	cr_assert_eq(table_of(bt.stripped, debug, &bad, false), 0);
	cr_assert_eq(bad.debug_frame_err, -ENOEXEC);
	cr_assert_eq(table_of(bt.stripped, NULL, &stripped, false), 0);
	assert_same_rows(&bad, &stripped, "a refused .debug_frame against none");
	cfi_table__release(&bad);
	cfi_table__release(&stripped);
	free(frame);
	free(debug);
	release(&bt);
}

Test(debug_frame, without_eh_frame_it_is_the_table)
{
	struct cfi_table t;
	struct built bt;
	char *bare;

	build(&bt, NO_UNWIND_TABLES, "");
	bare = path_in(bt.dir, "p.bare");
	run("objcopy -R .eh_frame -R .eh_frame_hdr '%s' '%s'%s", bt.full, bare, "");
	cr_assert_eq(table_of(bare, NULL, &t, false), 0);
	cr_assert_eq(t.from_debug_frame, t.stats.fdes);
	assert_funcs_covered(&t, bare, true);
	cfi_table__release(&t);
	free(bare);
	release(&bt);
}
