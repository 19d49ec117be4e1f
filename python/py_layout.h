/* SPDX-License-Identifier: GPL-2.0 */
/*
 * py_layout.h - where each CPython version keeps what the BPF walk of
 * Python frames reads (struct py_layout, py_bpf.h). Versions before 3.13
 * do not describe themselves: their offsets are ours, taken from the
 * DWARF of Debian's python3.X-dbg (tests/unit/test_py_layout.c checks
 * them against it where it is installed).
 */
#ifndef PY_LAYOUT_H
#define PY_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "python/py_bpf.h"

/* PY_VERSION_HEX: 0x030b02f0 is 3.11.2 final. */
#define PY_VERSION(major, minor) ((uint32_t)(major) << 24 | (uint32_t)(minor) << 16)
#define PY_VERSION_MINOR(hex) ((hex) & 0xffff0000u)

/*
 * The layout of CPython version (PY_VERSION_HEX) in *l, from our table
 * (3.11): 0, or -ENOTSUP for a version whose layout we do not carry.
 */
int py_layout__for_version(uint32_t version, struct py_layout *l);

/*
 * The layout a 3.13 or later interpreter describes in _Py_DebugOffsets,
 * the first len bytes of its _PyRuntime in buf, for its version (its
 * Py_Version): 0; -EINVAL when they are not that (no "xdebugpy" cookie,
 * another version's, offsets that do not fit); -ENOTSUP for a version
 * whose _Py_DebugOffsets we cannot read (or not a final release of one),
 * or a free-threaded build.
 */
int py_layout__from_debug_offsets(const void *buf, size_t len, uint32_t version,
				  struct py_layout *l);

/*
 * Whether every read l asks of the BPF side fits its buffers (py_bpf.h),
 * and every field is within the read that holds it.
 */
bool py_layout__valid(const struct py_layout *l);

/* "3.11.2" into buf; buf. */
const char *py_layout__version_str(uint32_t version, char *buf, size_t size);

#endif /* PY_LAYOUT_H */
