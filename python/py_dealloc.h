/* SPDX-License-Identifier: GPL-2.0 */
/*
 * py_dealloc.h - where an interpreter frees its code objects: the code
 * of PyCode_Type's tp_dealloc (CPython's code_dealloc()), as an offset in
 * its file, for the uprobe that lets the BPF side know a code object by
 * its address while the process frees none (python/py_codes.bpf.h).
 */
#ifndef PY_DEALLOC_H
#define PY_DEALLOC_H

#include <libelf.h>
#include <stdint.h>

#include "python/py_elf.h"
#include "symbols/budget.h"

/* tp_dealloc in a PyTypeObject, on any 64-bit target: after the head, the name and two sizes */
#define PY_TP_DEALLOC 48

/*
 * The file offset of the function PyCode_Type (at ELF address
 * pe->code_type) names as its tp_dealloc: the pointer's value in the file,
 * or its RELATIVE relocation's addend. It must start a function the
 * .eh_frame_hdr's table lists, in an executable segment: a probe put
 * anywhere else could break every process mapping the file. 0 or
 * -errno: -ENOENT none found, -ENOEXEC not a function's start.
 */
int py_dealloc__find(Elf *elf, const struct budget *b, const struct py_elf *pe, uint64_t *offset);

#endif /* PY_DEALLOC_H */
