/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go_pclntab.h - Go's function table (.gopclntab) read for go_runtime.c:
 * over the bytes of the section, so that the tests can craft and cut
 * them; and the sorted rows both build.
 */
#ifndef GO_PCLNTAB_H
#define GO_PCLNTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind/cfi_table.h"
#include "unwind/go_runtime.h"

/*
 * The Go text range and roots from the bytes of a .gopclntab (Go 1.2 to
 * 1.25: the function table's layouts for 64-bit little-endian). Returns
 * 0, -ENOEXEC for a table that is not one or does not hold together (g
 * is then empty), -ENOTSUP for a version or machine not read.
 */
int go_pclntab__parse(const uint8_t *data, size_t size, struct go_info *g);

/*
 * The rows of the Go functions of a .gopclntab from their pc-to-sp
 * tables (the CFA is rsp + the table's value + 8, nothing of rbp, as Go's
 * .debug_frame has them), sorted, a row of no rule after the last
 * function, into t (the caller releases it). Returns 0, the errors of
 * go_pclntab__parse(), -ERANGE past 32-bit addresses, -EFBIG over
 * CFI_TABLE_MAX_ROWS or the steps they may run, -ENOMEM.
 */
int go_pclntab__sp_rows(const uint8_t *data, size_t size, struct cfi_table *t);

/* Whether name (len bytes) is a root's: runtime.goexit, mstart, rt0_go, or with ".abi0". */
bool go_pclntab__is_root(const char *name, size_t len);

/* Add [lo, hi) to g's roots (GO_MAX_ROOTS at most; an empty one not). */
void go_info__add_root(struct go_info *g, uint64_t lo, uint64_t hi);

/* Rows being made, sorted by pc, CFI_TABLE_MAX_ROWS at most. */
struct go_rows {
	struct unwind_row *r;
	size_t n, cap;
};

/*
 * Append r (its pc at or after the last's): a row that says what the
 * last says, or one of no rule first, adds nothing; one at the last's pc
 * replaces it. 0, -EFBIG past CFI_TABLE_MAX_ROWS, -ENOMEM.
 */
int go_rows__push(struct go_rows *v, const struct unwind_row *r);

#endif /* GO_PCLNTAB_H */
