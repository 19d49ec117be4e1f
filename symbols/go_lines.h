/* SPDX-License-Identifier: GPL-2.0 */
/*
 * go_lines.h - --lines for a Go executable without DWARF (-ldflags=-w):
 * file and line from its function table's pc-to-file and pc-to-line
 * programs, and the functions inlined there from its inline trees
 * (FUNCDATA_InlTree, found through the module data for Go 1.18 on), the
 * frames srcline.h gives from DWARF.
 */
#ifndef GO_LINES_H
#define GO_LINES_H

#include <libelf.h>
#include <stdint.h>

#include "symbols/budget.h"
#include "symbols/srcline.h"

struct go_lines;

/*
 * The function table of elf, which must stay open as long as the result,
 * read under b (NULL: the default). NULL with errno: ENOENT (no table),
 * else as elf_read__section() and go_pcln__open() fail.
 */
struct go_lines *go_lines__open(Elf *elf, const struct budget *b);

/*
 * The frames of vaddr as srcline__lookup() has them: innermost first, the
 * last the function itself. Code inlined where the inline tree cannot be
 * read has a first frame of no name. Returns how many (at most max), or
 * -ENOENT outside the table's functions.
 */
int go_lines__lookup(struct go_lines *gl, uint64_t vaddr, struct srcline_frame *frames, int max);
void go_lines__free(struct go_lines *gl);

#endif /* GO_LINES_H */
