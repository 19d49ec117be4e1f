/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go_runtime.h - what the unwinder needs to know of a Go executable: that
 * it is one, where its Go code is, and where the functions are that start
 * every Go stack (runtime.goexit under each goroutine, runtime.mstart on
 * each thread's system stack, runtime.rt0_go on the first thread's).
 *
 * Go keeps frame pointers on x86-64 but switches stacks in its runtime
 * (systemstack, mcall, morestack), and its unwind information does not
 * describe the switches: Go code is walked by its frame pointers, which
 * cross them (user_stack.bpf.h), and the three roots become UNW_CFA_END
 * rows, so that a walk stops there instead of reading past the stack.
 *
 * Everything is read from .gopclntab, the Go runtime's own function table,
 * which stripping keeps (go_pclntab.h); .symtab only when it cannot be
 * read. The file is anyone's: every offset and count in it is checked
 * before it is used.
 */
#ifndef GO_RUNTIME_H
#define GO_RUNTIME_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/budget.h"
#include "unwind/cfi_table.h"
#include "profile.h"
#include "symbols/sha256.h"

/* runtime.goexit, runtime.mstart, runtime.rt0_go, each maybe twice (ABI wrappers) */
#define GO_MAX_ROOTS 6

struct go_range {
	uint64_t lo, hi;	/* [lo, hi): ELF virtual addresses */
};

struct go_info {
	/* the Go functions (the function table's first to its end); 0, 0: not known */
	struct go_range text;
	struct go_range roots[GO_MAX_ROOTS];	/* sorted, apart */
	size_t nr_roots;
	bool from_symtab;	/* the roots are .symtab's: .gopclntab could not be read */
	bool only_go;		/* every executable section is in text: no C code beside it */
};

/*
 * Whether elf is a Go executable (a .gopclntab, .go.buildinfo or Go
 * build-id note), and if so what is known of it into g. Returns 0, or
 * -ENOENT for a file that is not Go's, -ECANCELED. A Go file whose
 * tables cannot be read is still Go's: 0, with no text range or roots.
 */
int go_runtime__read(Elf *elf, const struct budget *b, struct go_info *g);

/*
 * What a Go file's rows are made from besides its unwind information
 * (cfi_table__digest()): g, and the bytes of its function table, as a
 * SHA-256 into out, so that copies share them only when they are the
 * same. Returns 0 or -errno as the section cannot be read.
 */
int go_runtime__digest(Elf *elf, const struct budget *b, const struct go_info *g,
		       uint8_t out[SHA256_LEN]);

/*
 * The same over g's Go text of t, a Go file's table read from elf, when
 * it has no rows there (no .debug_frame: -w): the leaf frame is then
 * stepped as with them. Returns 0 or -errno (t unchanged).
 */
int go_runtime__add_sp_rows(Elf *elf, const struct budget *b, const struct go_info *g,
			    struct cfi_table *t);

/*
 * The entries of a mapping of a Go file: m[0] holds the whole mapping
 * (start, len, bias, rows); it is flagged UNWIND_MAP_GO where it holds Go
 * text, and cut into up to three entries, only the Go part flagged, when
 * the Go text (text, file addresses; 0, 0: not known, all of it) is part
 * of it: C code linked beside it (cgo) keeps its rows for every frame.
 * With fewer than three entries of room the whole mapping is flagged.
 * Returns how many entries are used, from m[0].
 */
size_t go_runtime__map(const struct go_range *text, struct unwind_map *m, size_t room);

/*
 * Make each root of g an UNW_CFA_END range of t, the rows after it as
 * they were. t may be empty (a Go file without .debug_frame). Returns 0,
 * -ENOMEM, -EFBIG over CFI_TABLE_MAX_ROWS, -ERANGE for a root past the
 * 32-bit addresses of rows.
 */
int go_runtime__add_roots(const struct go_info *g, struct cfi_table *t);

#endif /* GO_RUNTIME_H */
