// SPDX-License-Identifier: GPL-2.0
/*
 * Rows from an ELF file's code where its CFI has none (unwind/cfi_code.c):
 * musl's __restore_rt and _start in static programs musl-gcc builds here,
 * a trampoline with an FDE of its own but no 'S', a library's entry
 * point (no root), and the laying of a range over a table.
 */
#include <criterion/criterion.h>
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind/cfi_code.h"
#include "unwind/cfi_table.h"
#include "symbols/elf_read.h"
#include "test_util.h"

/* A handler that returns through the trampoline; main spins. */
static const char sig_program[] =
	"#include <signal.h>\n"
	"volatile unsigned long sink;\n"
	"static void on_alarm(int s) { sink += (unsigned long)s; }\n"
	"int main(void) {\n"
	"	struct sigaction sa = { .sa_handler = on_alarm };\n"
	"	sigaction(SIGALRM, &sa, 0);\n"
	"	for (unsigned long i = 0; i < 1000; i++) sink += i;\n"
	"	return 0;\n"
	"}\n";

static char *build(const char *dir, const char *name, const char *cc, const char *flags,
		   const char *src_name, const char *src)
{
	char *c = write_in(dir, src_name, src), *out = path_in(dir, name), cmd[9000];

	snprintf(cmd, sizeof(cmd), "%s %s '%s' -o '%s'", cc, flags, c, out);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	free(c);
	return out;
}

static uint64_t entry_of(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	GElf_Ehdr eh;
	Elf *elf;

	cr_assert_geq(fd, 0);
	cr_assert(elf_read__ready());
	elf = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert(elf && gelf_getehdr(elf, &eh));
	elf_end(elf);
	close(fd);
	return eh.e_entry;
}

/* path's table as unwind_procs.c loads it: the CFI's rows, then the code's. */
static int table_with_code(const char *path, struct cfi_table *t)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	Elf *elf;

	cr_assert_geq(fd, 0, "%s", path);
	cr_assert(elf_read__ready());
	elf = elf_read__begin(fd, NULL);
	cr_assert_not_null(elf, "%s", path);
	err = cfi_table__build(elf, NULL, t);
	if (!err)
		err = cfi_code__apply(elf, NULL, t);
	elf_end(elf);
	close(fd);
	return err;
}

static unsigned rule_at(const struct cfi_table *t, uint64_t pc)
{
	const struct unwind_row *r = cfi_table__find(t, (uint32_t)pc);

	return r ? r->cfa_rule : UNW_CFA_NONE;
}

/*
 * Debian's musl has no CFI: the trampoline (and the nop before it, where
 * a return address into it is looked up) is a signal frame, and _start,
 * up to past its call of _start_c, a root. Without them: no rule.
 */
Test(cfi_code, musl_static_program_has_its_trampoline_and_its_root)
{
	char *dir = make_tmpdir(), *prog;
	uint64_t tramp, size, entry;
	struct cfi_table t;

	prog = build(dir, "sig", "musl-gcc", "-O2 -static", "sig.c", sig_program);
	nm_symbol(prog, "__restore_rt", &tramp, &size);
	entry = entry_of(prog);
	cr_assert_eq(table_with_code(prog, &t), 0);
	cr_assert_eq(t.from_code, 2);
	cr_assert_eq(rule_at(&t, tramp - 1), UNW_CFA_SIGNAL, "%u", rule_at(&t, tramp - 1));
	cr_assert_eq(rule_at(&t, tramp + 8), UNW_CFA_SIGNAL);
	cr_assert_neq(rule_at(&t, tramp + 9), UNW_CFA_SIGNAL);
	cr_assert_neq(rule_at(&t, tramp - 2), UNW_CFA_SIGNAL);
	/* musl's _start: xor, mov, lea, and, call _start_c ends at +22 */
	cr_assert_eq(rule_at(&t, entry), UNW_CFA_END);
	cr_assert_eq(rule_at(&t, entry + 21), UNW_CFA_END);
	cr_assert_neq(rule_at(&t, entry + CFI_CODE_ENTRY_BYTES), UNW_CFA_END);
	cfi_table__release(&t);
	free(prog);
	rm_rf(dir);
}

/* A trampoline with an FDE of its own and its usual rules (CFA rsp + 8): a signal frame all the same. */
Test(cfi_code, a_trampoline_with_an_fde_but_no_s_is_a_signal_frame)
{
	static const char tramp_s[] =
		"	.text\n"
		"	.globl	tramp\n"
		"	.type	tramp, @function\n"
		"	nop\n"
		"tramp:\n"
		"	.cfi_startproc\n"
		"	mov	$15, %rax\n"
		"	syscall\n"
		"	.cfi_endproc\n"
		"	.size	tramp, .-tramp\n"
		"	.p2align 4\n"
		"	.globl	main\n"
		"main:\n"
		"	.cfi_startproc\n"
		"	xor	%eax, %eax\n"
		"	ret\n"
		"	.cfi_endproc\n"
		"	.section .note.GNU-stack,\"\",@progbits\n";
	char *dir = make_tmpdir(), *prog;
	uint64_t tramp, size;
	struct cfi_table t;

	prog = build(dir, "tramp", "gcc", "", "tramp.s", tramp_s);
	nm_symbol(prog, "tramp", &tramp, &size);
	cr_assert_eq(table_with_code(prog, &t), 0);
	cr_assert_eq(rule_at(&t, tramp - 1), UNW_CFA_SIGNAL);
	cr_assert_eq(rule_at(&t, tramp + 8), UNW_CFA_SIGNAL);
	cr_assert_neq(rule_at(&t, tramp + 9), UNW_CFA_SIGNAL);
	cfi_table__release(&t);
	free(prog);
	rm_rf(dir);
}

/*
 * An entry point without an FDE is a root in a program, not in a
 * library (ld makes a library's entry point the start of .text when it
 * names none): the same code, linked both ways.
 */
Test(cfi_code, a_library_entry_point_is_no_root)
{
	static const char entry_s[] =
		"	.text\n"
		"	.globl	go\n"
		"	.type	go, @function\n"
		"go:\n"
		"	xor	%ebp, %ebp\n"
		"	call	work\n"
		"	mov	$60, %eax\n"
		"	syscall\n"
		"	.size	go, .-go\n"
		"	.p2align 4\n"
		"	.globl	work\n"
		"work:\n"
		"	.cfi_startproc\n"
		"	ret\n"
		"	.cfi_endproc\n"
		"	.section .note.GNU-stack,\"\",@progbits\n";
	char *dir = make_tmpdir(), *prog, *lib;
	uint64_t go, size;
	struct cfi_table t;

	prog = build(dir, "prog", "gcc", "-nostdlib -static -Wl,-e,go", "entry.s", entry_s);
	lib = build(dir, "lib.so", "gcc", "-nostdlib -shared -Wl,-e,go", "entry.s", entry_s);
	nm_symbol(prog, "go", &go, &size);
	cr_assert_eq(entry_of(prog), go);
	cr_assert_eq(table_with_code(prog, &t), 0);
	cr_assert_eq(rule_at(&t, go + 6), UNW_CFA_END, "%u", rule_at(&t, go + 6));
	cfi_table__release(&t);
	nm_symbol(lib, "go", &go, &size);
	cr_assert_eq(entry_of(lib), go);
	cr_assert_eq(table_with_code(lib, &t), 0);
	cr_assert_eq(rule_at(&t, go + 6), UNW_CFA_NONE);
	cr_assert_eq(t.from_code, 0);
	cfi_table__release(&t);
	free(prog);
	free(lib);
	rm_rf(dir);
}

static void table_of(struct cfi_table *t, const struct unwind_row *rows, size_t nr)
{
	memset(t, 0, sizeof(*t));
	t->rows = malloc(nr * sizeof(*rows) + 1);
	cr_assert_not_null(t->rows);
	memcpy(t->rows, rows, nr * sizeof(*rows));
	t->nr = nr;
}

static void assert_rows(const struct cfi_table *t, const struct unwind_row *want, size_t nr)
{
	cr_assert_eq(t->nr, nr, "%zu rows, want %zu", t->nr, nr);
	for (size_t i = 0; i < nr; i++)
		cr_assert(!memcmp(&t->rows[i], &want[i], sizeof(want[i])), "row %zu: %#x rule %u", i,
			  t->rows[i].pc, t->rows[i].cfa_rule);
}

/* A range over rows: cut before, the rules at its end kept after it, alike neighbours merged. */
Test(cfi_code, a_range_laid_over_a_table)
{
	static const struct unwind_row rows[] = {
		{ .pc = 0x100, .cfa_rule = UNW_CFA_SP, .cfa_off = 8, .ra_off = -8 },
		{ .pc = 0x110, .cfa_rule = UNW_CFA_SP, .cfa_off = 16, .ra_off = -8 },
		{ .pc = 0x120, .cfa_rule = UNW_CFA_NONE },
	};
	static const struct unwind_row sig = { .cfa_rule = UNW_CFA_SIGNAL };
	static const struct unwind_row sp8 = { .cfa_rule = UNW_CFA_SP, .cfa_off = 8, .ra_off = -8 };
	struct cfi_table t;

	/* inside one row: split it */
	table_of(&t, rows, 3);
	cr_assert_eq(cfi_code__set_range(&t, 0x104, 0x108, &sig), 0);
	assert_rows(&t, (struct unwind_row[]){ rows[0], { .pc = 0x104, .cfa_rule = UNW_CFA_SIGNAL },
					       { .pc = 0x108, .cfa_rule = UNW_CFA_SP, .cfa_off = 8, .ra_off = -8 },
					       rows[1], rows[2] }, 5);
	cfi_table__release(&t);
	/* over a row boundary, ending on one */
	table_of(&t, rows, 3);
	cr_assert_eq(cfi_code__set_range(&t, 0x108, 0x120, &sig), 0);
	assert_rows(&t, (struct unwind_row[]){ rows[0], { .pc = 0x108, .cfa_rule = UNW_CFA_SIGNAL },
					       rows[2] }, 3);
	cfi_table__release(&t);
	/* the same rules as the row before: merged */
	table_of(&t, rows, 3);
	cr_assert_eq(cfi_code__set_range(&t, 0x110, 0x118, &sp8), 0);
	assert_rows(&t, (struct unwind_row[]){ rows[0],
					       { .pc = 0x118, .cfa_rule = UNW_CFA_SP, .cfa_off = 16, .ra_off = -8 },
					       rows[2] }, 3);
	cfi_table__release(&t);
	/* before every row, past every row, into an empty table */
	table_of(&t, rows, 3);
	cr_assert_eq(cfi_code__set_range(&t, 0x10, 0x20, &sig), 0);
	cr_assert_eq(cfi_code__set_range(&t, 0x200, 0x210, &sig), 0);
	assert_rows(&t, (struct unwind_row[]){ { .pc = 0x10, .cfa_rule = UNW_CFA_SIGNAL },
					       { .pc = 0x20, .cfa_rule = UNW_CFA_NONE },
					       rows[0], rows[1], rows[2],
					       { .pc = 0x200, .cfa_rule = UNW_CFA_SIGNAL },
					       { .pc = 0x210, .cfa_rule = UNW_CFA_NONE } }, 7);
	cfi_table__release(&t);
	memset(&t, 0, sizeof(t));
	cr_assert_eq(cfi_code__set_range(&t, 0x10, 0x20, &sig), 0);
	assert_rows(&t, (struct unwind_row[]){ { .pc = 0x10, .cfa_rule = UNW_CFA_SIGNAL },
					       { .pc = 0x20, .cfa_rule = UNW_CFA_NONE } }, 2);
	cr_assert_eq(cfi_code__set_range(&t, 0x20, 0x10, &sig), -EINVAL);
	cr_assert_eq(cfi_code__set_range(&t, 0x10, 0x100000000ull, &sig), -EINVAL);
	cfi_table__release(&t);
}
