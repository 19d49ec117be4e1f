/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srcline.h - source lines and inlined functions of code addresses, from
 * an ELF file's DWARF (read with elfutils' libdw), for --lines.
 */
#ifndef SRCLINE_H
#define SRCLINE_H

#include <stddef.h>
#include <stdint.h>

#include "symbols/budget.h"

struct srcline;

struct srcline_frame {
	const char *name;	/* the function's DWARF name (linkage name when it has one), or NULL */
	const char *file;	/* full path as DWARF gives it, or NULL */
	int line;		/* 0 when unknown */
};

/*
 * Open the DWARF of the ELF file at fd, within budget b (NULL: the
 * default; its .debug_ sections, inflated, may add up to
 * max_section_bytes). A copy of fd is kept, and sections are read from
 * it, never mapped; the caller may close fd. A Go file without DWARF is
 * read from its function table instead (go_lines.h). NULL with errno:
 * ENOENT when the file has neither, ENOEXEC when it is not ELF, EFBIG
 * over budget.
 */
struct srcline *srcline__open_fd(int fd, const struct budget *b);
struct srcline *srcline__open_file(const char *path);

/*
 * The source frames of vaddr (a link-time address), innermost first:
 * frames[0] is the function the code belongs to after inlining, at the
 * line of vaddr; each next one the function it was inlined into, at the
 * line of the call; the last is the real, out-of-line function. Returns
 * how many were written (at most max), or -ENOENT when DWARF does not
 * cover vaddr. The strings live as long as sl.
 */
int srcline__lookup(struct srcline *sl, uint64_t vaddr, struct srcline_frame *frames, int max);
void srcline__free(struct srcline *sl);

#endif /* SRCLINE_H */
