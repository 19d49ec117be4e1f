/* SPDX-License-Identifier: GPL-2.0 */
/*
 * py_linetable.h - the source line of an instruction of a CPython code
 * object (3.11 on), from its location table (co_linetable), the bytes
 * the BPF side copied from the process when it first met the frame
 * (--lines). Untrusted bytes: every read is within the table, and a
 * table that is not one gives no line.
 */
#ifndef PY_LINETABLE_H
#define PY_LINETABLE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The line of the instruction at code unit lasti (2-byte units from the
 * start of the code) of a code object whose first line is firstlineno and
 * whose location table is table[0, len): > 0; 0 when the table does not
 * reach lasti, is malformed, or gives the instruction no line.
 */
int py_linetable__line(const uint8_t *table, size_t len, int32_t firstlineno, uint32_t lasti);

#endif /* PY_LINETABLE_H */
