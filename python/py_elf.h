/* SPDX-License-Identifier: GPL-2.0 */
/*
 * py_elf.h - whether an ELF file holds a CPython interpreter (the
 * statically linked python3.X, or libpython3.X.so), and where: its
 * _PyRuntime, its version (Py_Version, 3.11 on), and the code of its
 * eval loop. Read under a budget: the file is the sampled process's.
 */
#ifndef PY_ELF_H
#define PY_ELF_H

#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>

#include "symbols/budget.h"

#define PY_ELF_MAX_SEGS 8
/* The first bytes of _PyRuntime kept: 3.13 on, its _Py_DebugOffsets (py_layout.h) */
#define PY_ELF_RUNTIME_BYTES 1024

struct py_elf {
	uint32_t version;		/* Py_Version (PY_VERSION_HEX); 0: the file has none */
	uint64_t runtime;		/* ELF address of _PyRuntime */
	uint64_t code_type;		/* ELF address of PyCode_Type; 0 when not found */
	uint64_t dealloc;		/* file offset of its tp_dealloc (py_dealloc.h); 0: none */
	/* _PyRuntime's initial bytes, as the file has them (its .data), and how many */
	uint8_t runtime_bytes[PY_ELF_RUNTIME_BYTES];
	uint32_t nr_runtime_bytes;
	uint64_t eval_start, eval_end;	/* _PyEval_EvalFrameDefault; 0, 0 when not found */
	uint64_t cold_start, cold_end;	/* its .cold part, where .symtab names it */
	/* the PT_LOAD segments: where a mapping of the file puts these */
	struct py_elf_seg {
		uint64_t vaddr, off, filesz;
		bool exec;
	} segs[PY_ELF_MAX_SEGS];
	int nr_segs;
};

/*
 * Look for the interpreter in elf (which stays the caller's), b NULL the
 * default budget. 0 when the file has _PyRuntime; -ENOENT when not (no
 * interpreter); -EFBIG, -ENOEXEC, -ECANCELED as elf_read.h's readers.
 */
int py_elf__read(Elf *elf, const struct budget *b, struct py_elf *out);
/* The same for the file open at fd. */
int py_elf__read_fd(int fd, const struct budget *b, struct py_elf *out);

/*
 * The bias of a mapping of the file (its start, and the file offset it
 * maps, as /proc/PID/maps gives them): an ELF address plus the bias is
 * where the process has it. false: no segment holds that offset.
 */
/* The len bytes at ELF address addr, from the section whose contents hold them. 0 or -errno. */
int py_elf__read_at(Elf *elf, uint64_t addr, void *buf, size_t len);
bool py_elf__bias(const struct py_elf *pe, uint64_t start, uint64_t offset, uint64_t *bias);

#endif /* PY_ELF_H */
