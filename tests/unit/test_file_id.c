// SPDX-License-Identifier: GPL-2.0
/*
 * When two files are the same (symbols/file_id.c, cfi_table__digest()):
 * an unwind table's digest changes with every byte of the .eh_frame and
 * .debug_frame its rows come from, and with nothing else; a symbol
 * table's with every byte of the tables, headers and notes it is read
 * from, and not with code; a build-id decides neither (a file's stamp:
 * test_file_stamp.c).
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind/cfi_table.h"
#include "symbols/elf_read.h"
#include "symbols/file_id.h"
#include "test_util.h"

#define FIXTURE_UNWIND FIXTURE_DIR "/fixture_unwind"

struct image {
	char *bytes;
	size_t len;
};

static struct image image_of(const char *path)
{
	struct image im;

	im.bytes = read_whole(path, &im.len);
	return im;
}

/* [off, off + size) of section name in im's file, or false when it has none. */
static bool section_range(const struct image *im, const char *name, size_t *off, size_t *size)
{
	char *copy = malloc(im->len);
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	bool found = false;
	Elf *elf;

	cr_assert_not_null(copy);
	memcpy(copy, im->bytes, im->len);
	elf = elf_read__memory(copy, im->len, NULL);
	cr_assert_not_null(elf);
	cr_assert_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	while (!found && (scn = elf_nextscn(elf, scn))) {
		const char *n;

		cr_assert_not_null(gelf_getshdr(scn, &shdr));
		n = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (n && !strcmp(n, name) && shdr.sh_type != SHT_NOBITS) {
			*off = shdr.sh_offset;
			*size = shdr.sh_size;
			found = true;
		}
	}
	elf_end(elf);
	free(copy);
	return found;
}

/* The digest of a table of im (with debug, NULL: none); libelf works on copies. */
static void table_digest(const struct image *im, const struct image *debug,
			 uint8_t out[SHA256_LEN])
{
	char *a = malloc(im->len), *b = debug ? malloc(debug->len) : NULL;
	Elf *elf, *delf = NULL;

	cr_assert_not_null(a);
	memcpy(a, im->bytes, im->len);
	elf = elf_read__memory(a, im->len, NULL);
	cr_assert_not_null(elf);
	if (debug) {
		cr_assert_not_null(b);
		memcpy(b, debug->bytes, debug->len);
		delf = elf_read__memory(b, debug->len, NULL);
		cr_assert_not_null(delf);
	}
	cr_assert_eq(cfi_table__digest(elf, delf, NULL, out), 0);
	elf_end(delf);
	elf_end(elf);
	free(b);
	free(a);
}

static void symbols_digest(const struct image *im, uint8_t out[SHA256_LEN])
{
	char *a = malloc(im->len);
	Elf *elf;

	cr_assert_not_null(a);
	memcpy(a, im->bytes, im->len);
	elf = elf_read__memory(a, im->len, NULL);
	cr_assert_not_null(elf);
	cr_assert_eq(file_id__symbols(elf, NULL, out), 0);
	elf_end(elf);
	free(a);
}

typedef void (*digest_fn)(const struct image *im, uint8_t out[SHA256_LEN]);

static void table_digest_alone(const struct image *im, uint8_t out[SHA256_LEN])
{
	table_digest(im, NULL, out);
}

/*
 * Flip each byte of section name of im (every step-th; step 1: every one):
 * changed tells whether the digest must change with each.
 */
static void assert_flips(const struct image *im, const char *name, size_t step, digest_fn fn,
			 bool changed)
{
	uint8_t want[SHA256_LEN], got[SHA256_LEN];
	size_t off, size, n = 0;

	cr_assert(section_range(im, name, &off, &size), "no %s", name);
	cr_assert_gt(size, 0);
	fn(im, want);
	for (size_t i = 0; i < size; i += step, n++) {
		im->bytes[off + i] ^= 0x01;
		fn(im, got);
		im->bytes[off + i] ^= 0x01;
		cr_assert_eq(memcmp(want, got, SHA256_LEN) != 0, changed,
			     "%s byte %zu of %zu flipped: the digest %s", name, i, size,
			     changed ? "stayed" : "changed");
	}
	cr_log_info("%s: %zu bytes flipped, the digest %s each time", name, n,
		    changed ? "changed" : "the same");
}

Test(file_id, a_table_digest_changes_with_every_byte_of_eh_frame)
{
	struct image im = image_of(FIXTURE_UNWIND);

	assert_flips(&im, ".eh_frame", 1, table_digest_alone, true);
	free(im.bytes);
}

/* Code, symbols, notes, the build-id: rows do not depend on them. */
Test(file_id, a_table_digest_stays_with_other_sections_and_the_build_id)
{
	struct image im = image_of(FIXTURE_UNWIND);

	assert_flips(&im, ".text", 7, table_digest_alone, false);
	assert_flips(&im, ".comment", 1, table_digest_alone, false);
	assert_flips(&im, ".symtab", 5, table_digest_alone, false);
	assert_flips(&im, ".note.gnu.build-id", 1, table_digest_alone, false);
	/* .eh_frame_hdr is never read: cfi_check.h */
	assert_flips(&im, ".eh_frame_hdr", 1, table_digest_alone, false);
	free(im.bytes);
}

/* The section header of .eh_frame of im's file, at its offset in the file. */
static GElf_Shdr *eh_frame_shdr(const struct image *im, size_t *at)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)im->bytes;
	size_t off, size;

	cr_assert(section_range(im, ".eh_frame", &off, &size));
	for (size_t i = 0; i < eh->e_shnum; i++) {
		Elf64_Shdr *sh = (Elf64_Shdr *)(im->bytes + eh->e_shoff + i * eh->e_shentsize);

		if (sh->sh_offset == off && sh->sh_size == size && sh->sh_type == SHT_PROGBITS) {
			*at = (char *)sh - im->bytes;
			return (GElf_Shdr *)sh;
		}
	}
	cr_assert_fail("no .eh_frame header");
	return NULL;
}

/* Where the rows are (pc-relative pointers), and what machine they are for. */
Test(file_id, a_table_digest_changes_with_the_address_and_the_machine)
{
	struct image im = image_of(FIXTURE_UNWIND);
	uint8_t want[SHA256_LEN], got[SHA256_LEN];
	Elf64_Ehdr *eh = (Elf64_Ehdr *)im.bytes;
	size_t at;
	GElf_Shdr *sh = eh_frame_shdr(&im, &at);

	table_digest(&im, NULL, want);
	sh->sh_addr += 0x1000;
	table_digest(&im, NULL, got);
	cr_assert_neq(memcmp(want, got, SHA256_LEN), 0, "the address moved, the same digest");
	sh->sh_addr -= 0x1000;
	eh->e_machine = EM_AARCH64;
	table_digest(&im, NULL, got);
	cr_assert_neq(memcmp(want, got, SHA256_LEN), 0, "another machine, the same digest");
	free(im.bytes);
}

static void run(const char *fmt, const char *a, const char *b, const char *c)
{
	char cmd[16384];

	snprintf(cmd, sizeof(cmd), fmt, a, b, c);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* A program whose rules are in .debug_frame alone: full (-g), stripped, and its debug file. */
struct split {
	char *dir, *full, *stripped, *debug;
};

static void split_build(struct split *sp)
{
	char *src;

	sp->dir = make_tmpdir();
	src = write_in(sp->dir, "p.c",
		       "volatile unsigned long sink;\n"
		       "__attribute__((noipa)) void leaf(int n) { for (int i = 0; i < n; i++) sink += i; }\n"
		       "int main(int argc, char **argv) { (void)argv; leaf(argc); return 0; }\n");
	sp->full = path_in(sp->dir, "p");
	sp->stripped = path_in(sp->dir, "p.stripped");
	sp->debug = path_in(sp->dir, "p.debug");
	run("gcc -O2 -g -fno-asynchronous-unwind-tables -fno-unwind-tables '%s' -o '%s'%s", src,
	    sp->full, "");
	run("objcopy --only-keep-debug '%s' '%s'%s", sp->full, sp->debug, "");
	run("objcopy --strip-debug '%s' '%s'%s", sp->full, sp->stripped, "");
	free(src);
}

static void split_free(struct split *sp)
{
	free(sp->full);
	free(sp->stripped);
	free(sp->debug);
	rm_rf(sp->dir);
}

/* The file whose table a debug file's bytes are flipped for. */
static struct image main_image;

static void table_digest_of_main_with(const struct image *debug, uint8_t out[SHA256_LEN])
{
	table_digest(&main_image, debug, out);
}

/*
 * The stripped file's table takes the debug file's .debug_frame: each of
 * its bytes is in the digest, and none of its other sections. The full
 * file has its own, and the debug file is not read: not in its digest.
 */
Test(file_id, a_table_digest_has_the_debug_frame_it_reads)
{
	uint8_t alone[SHA256_LEN], with[SHA256_LEN];
	struct image full, debug;
	struct split sp;

	split_build(&sp);
	main_image = image_of(sp.stripped);
	full = image_of(sp.full);
	debug = image_of(sp.debug);
	table_digest(&main_image, NULL, alone);
	table_digest(&main_image, &debug, with);
	cr_assert_neq(memcmp(alone, with, SHA256_LEN), 0, "a debug file read, the same digest");
	assert_flips(&debug, ".debug_frame", 1, table_digest_of_main_with, true);
	assert_flips(&debug, ".debug_info", 3, table_digest_of_main_with, false);
	free(main_image.bytes);
	main_image = full;
	assert_flips(&full, ".debug_frame", 1, table_digest_alone, true);
	table_digest(&full, NULL, alone);
	table_digest(&full, &debug, with);
	cr_assert_eq(memcmp(alone, with, SHA256_LEN), 0, "a debug file not read, in the digest");
	assert_flips(&debug, ".debug_frame", 1, table_digest_of_main_with, false);
	free(full.bytes);
	free(debug.bytes);
	split_free(&sp);
}

/* The forged file of the issue: another program, libc's build-id: another digest. */
Test(file_id, a_build_id_copied_is_not_the_same_table)
{
	char *tmp = make_tmpdir(), *src, *forged, id[128];
	uint8_t a[SHA256_LEN], b[SHA256_LEN];
	struct image im, real;
	FILE *p;

	p = popen("readelf -n '" FIXTURE_UNWIND "' | awk '/Build ID:/ { print $3 }'", "r");
	cr_assert_not_null(p);
	cr_assert_eq(fscanf(p, "%127s", id), 1);
	pclose(p);
	src = write_in(tmp, "f.c", "int main(void) { return 0; }\n");
	forged = path_in(tmp, "forged");
	run("gcc -O2 -Wl,--build-id=0x%s '%s' -o '%s'", id, src, forged);
	im = image_of(forged);
	real = image_of(FIXTURE_UNWIND);
	table_digest(&im, NULL, a);
	table_digest(&real, NULL, b);
	cr_assert_neq(memcmp(a, b, SHA256_LEN), 0);
	symbols_digest(&im, a);
	symbols_digest(&real, b);
	cr_assert_neq(memcmp(a, b, SHA256_LEN), 0);
	free(im.bytes);
	free(real.bytes);
	free(src);
	free(forged);
	rm_rf(tmp);
}

Test(file_id, a_symbols_digest_changes_with_the_tables_read)
{
	struct image im = image_of(FIXTURE_UNWIND);

	assert_flips(&im, ".symtab", 1, symbols_digest, true);
	assert_flips(&im, ".strtab", 1, symbols_digest, true);
	assert_flips(&im, ".dynsym", 1, symbols_digest, true);
	assert_flips(&im, ".dynstr", 1, symbols_digest, true);
	/* the build-id: what a debug file must carry */
	assert_flips(&im, ".note.gnu.build-id", 1, symbols_digest, true);
	free(im.bytes);
}

Test(file_id, a_symbols_digest_stays_with_code_and_unwind_tables)
{
	struct image im = image_of(FIXTURE_UNWIND);

	assert_flips(&im, ".text", 7, symbols_digest, false);
	assert_flips(&im, ".eh_frame", 1, symbols_digest, false);
	assert_flips(&im, ".comment", 1, symbols_digest, false);
	free(im.bytes);
}

/* Segments translate addresses; the debug link names the debug file. */
Test(file_id, a_symbols_digest_changes_with_segments_and_the_debug_link)
{
	char *tmp = make_tmpdir(), *linked = path_in(tmp, "linked"), *dbg = path_in(tmp, "x.debug");
	struct image im = image_of(FIXTURE_UNWIND), ln;
	uint8_t want[SHA256_LEN], got[SHA256_LEN];
	Elf64_Ehdr *eh = (Elf64_Ehdr *)im.bytes;

	symbols_digest(&im, want);
	for (size_t i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr *ph = (Elf64_Phdr *)(im.bytes + eh->e_phoff + i * eh->e_phentsize);

		if (ph->p_type != PT_LOAD)
			continue;
		ph->p_vaddr += 0x1000;
		symbols_digest(&im, got);
		ph->p_vaddr -= 0x1000;
		cr_assert_neq(memcmp(want, got, SHA256_LEN), 0, "PT_LOAD %zu moved", i);
	}
	write_text(dbg, "x");
	run("cd '%s' && objcopy --add-gnu-debuglink=x.debug '%s' '%s'", tmp, FIXTURE_UNWIND,
	    linked);
	ln = image_of(linked);
	symbols_digest(&ln, got);
	cr_assert_neq(memcmp(want, got, SHA256_LEN), 0, "a debug link added");
	assert_flips(&ln, ".gnu_debuglink", 1, symbols_digest, true);
	free(ln.bytes);
	free(im.bytes);
	free(linked);
	free(dbg);
	rm_rf(tmp);
}
