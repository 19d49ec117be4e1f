// SPDX-License-Identifier: GPL-2.0
/*
 * go_lines.c - file, line and inlined functions of a Go executable's code
 * from its function table (go_lines.h), as the Go runtime's tracebacks
 * find them: the pc-to-file and pc-to-line values at the address are the
 * innermost function's; PCDATA_InlTreeIndex says which inlined call it is
 * in, and that call's entry of the function's inline tree its name and
 * parentPc, an address whose values are the call site's, and so on out.
 *
 * The inline tree is read from the file's data: before Go 1.18 its
 * address is in the record; from 1.18 an offset from the module's
 * go:func.*, which only the module data (runtime.firstmoduledata) says:
 * found in .noptrdata as the words that point to the function table and
 * its names. An entry is 20 bytes up to Go 1.19 (parent, funcID, file,
 * line, name, parentPc), 16 from 1.20 (funcID, name, parentPc, startLine);
 * only parentPc and the name are used, so both read alike. Go 1.12 to
 * 1.17 trees are not read (their entries' layouts changed in between):
 * code inlined there is a frame of no name.
 */
#include <errno.h>
#include <stdbool.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/elf_read.h"
#include "symbols/go_lines.h"
#include "symbols/go_pcln.h"
#include "symbols/go_symbols.h"

#define PCDATA_INLTREE_INDEX 2
#define FUNCDATA_INLTREE 3

struct go_lines {
	Elf *elf;
	const struct budget *b;
	struct go_pcln p;
	uint64_t table_addr;	/* where the function table is loaded */
	uint64_t gofunc;	/* 1.18+: go:func.*'s address, 0 when not found */
};

static uint64_t le(const uint8_t *p, unsigned size)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* The section of elf named name (or, name NULL, the allocated one holding [addr, addr + len)). */
static Elf_Scn *section(Elf *elf, const char *name, uint64_t addr, uint64_t len, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	if (name)
		return elf_read__find_section(elf, name, sh);
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS)
			continue;
		if ((sh->sh_flags & SHF_ALLOC) && addr >= sh->sh_addr &&
		    addr - sh->sh_addr <= sh->sh_size &&
		    len <= sh->sh_size - (addr - sh->sh_addr))
			return scn;
	}
	return NULL;
}

/* len bytes at address addr of the file's loaded data; NULL when no section holds them. */
static const uint8_t *at_addr(struct go_lines *gl, uint64_t addr, uint64_t len)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section(gl->elf, NULL, addr, len, &sh);
	Elf_Data *d;

	if (!scn || !(d = elf_read__section(scn, &sh, "of Go's inline trees", gl->b)) ||
	    !d->d_buf || d->d_size != sh.sh_size)
		return NULL;
	return (const uint8_t *)d->d_buf + (addr - sh.sh_addr);
}

/*
 * 1.18+: go:func.*'s address from the module data: in .noptrdata, the
 * pointer to the function table, then its names (pointer, length,
 * capacity), the text's start 176 bytes in; go:func.* 304 bytes in (320
 * from 1.20: the coverage counters' two words before it).
 */
static void find_gofunc(struct go_lines *gl)
{
	const struct go_pcln *p = &gl->p;
	uint64_t off = p->magic == GO_PCLN_1_20 ? 320 : 304;
	uint64_t names = gl->table_addr + p->names, names_len = p->names_end - p->names;
	GElf_Shdr sh;
	Elf_Scn *scn = section(gl->elf, ".noptrdata", 0, 0, &sh);
	Elf_Data *d;

	if (!scn || !(d = elf_read__section(scn, &sh, ".noptrdata", gl->b)) || !d->d_buf)
		return;
	for (uint64_t i = 0; i + off + 8 <= d->d_size; i += 8) {
		const uint8_t *m = (const uint8_t *)d->d_buf + i;

		/*
		 * the names' slice: the region but its alignment (24 bytes
		 * seen); the text's start at 176, as the table has it
		 */
		if (le(m, 8) == gl->table_addr && le(m + 8, 8) == names && le(m + 16, 8) <= names_len &&
		    names_len - le(m + 16, 8) < 64 && le(m + 24, 8) == le(m + 16, 8) &&
		    le(m + 176, 8) == p->text_start) {
			gl->gofunc = le(m + off, 8);
			return;
		}
	}
}

struct go_lines *go_lines__open(Elf *elf, const struct budget *b)
{
	const uint8_t *data;
	struct go_lines *gl;
	uint64_t addr;
	size_t size;
	int err;

	b = b ? b : budget__default();
	err = go_symbols__table(elf, b, &data, &size, &addr);
	if (err) {
		errno = -err;
		return NULL;
	}
	gl = calloc(1, sizeof(*gl));
	if (!gl)
		return NULL;
	gl->elf = elf;
	gl->b = b;
	gl->table_addr = addr;
	err = go_pcln__open(&gl->p, data, size);
	if (err) {
		free(gl);
		errno = -err;
		return NULL;
	}
	if (gl->p.magic == GO_PCLN_1_18 || gl->p.magic == GO_PCLN_1_20)
		find_gofunc(gl);
	return gl;
}

void go_lines__free(struct go_lines *gl)
{
	free(gl);
}

/* The file and line at pc of f into fr (NULL and 0 where the table does not say). */
static void position(const struct go_pcln *p, const struct go_func *f, uint64_t pc,
		     struct srcline_frame *fr)
{
	uint32_t off;
	int64_t v;

	fr->file = NULL;
	fr->line = 0;
	if (go_pcln__field(p, f, GO_FUNC_PCFILE, &off) && go_pcln__value_at(p, f, off, pc, &v))
		fr->file = go_pcln__file(p, f, v);
	if (go_pcln__field(p, f, GO_FUNC_PCLN, &off) && go_pcln__value_at(p, f, off, pc, &v) &&
	    v > 0 && v <= INT32_MAX)
		fr->line = (int)v;
}

/* The inline tree index at pc of f: -1 outside inlined code (or where the table does not say). */
static int64_t inline_index(const struct go_pcln *p, const struct go_func *f, uint64_t pc)
{
	uint32_t off;
	int64_t v;

	if (!go_pcln__pcdata(p, f, PCDATA_INLTREE_INDEX, &off) ||
	    !go_pcln__value_at(p, f, off, pc, &v))
		return -1;
	return v;
}

/* f's inline tree, entry idx's name and parentPc; false when it cannot be read. */
static bool inlined_call(struct go_lines *gl, const struct go_func *f, int64_t idx,
			 const char **name, uint32_t *parent_pc)
{
	const struct go_pcln *p = &gl->p;
	/*
	 * 1.18-1.19: parent, funcID, _, file, line, name, parentPc;
	 * 1.20: funcID, _, name, parentPc, startLine
	 */
	bool v120 = p->magic == GO_PCLN_1_20;
	unsigned size = v120 ? 16 : 20, name_at = v120 ? 4 : 12;
	const uint8_t *e;
	uint64_t tree;
	int64_t name_off;
	bool abs;

	if (!gl->gofunc || idx < 0 || idx > INT32_MAX ||
	    !go_pcln__funcdata(p, f, FUNCDATA_INLTREE, &tree, &abs) || abs)
		return false;
	e = at_addr(gl, gl->gofunc + tree + (uint64_t)idx * size, size);
	if (!e)
		return false;
	name_off = (int32_t)le(e + name_at, 4);
	*parent_pc = (uint32_t)le(e + name_at + 4, 4);
	if (name_off < 0 || (uint64_t)name_off >= p->names_end - p->names ||
	    !memchr(p->d + p->names + name_off, 0, p->names_end - p->names - name_off))
		return false;
	*name = (const char *)p->d + p->names + name_off;
	return true;
}

int go_lines__lookup(struct go_lines *gl, uint64_t vaddr, struct srcline_frame *frames, int max)
{
	const struct go_pcln *p = &gl->p;
	bool site_known = true;
	uint64_t pc = vaddr;
	struct go_func f;
	int n = 0;

	if (max < 1 || go_pcln__find(p, vaddr, &f))
		return -ENOENT;
	/* each inlined call, innermost first: its position, then on at its call site */
	for (int64_t idx = inline_index(p, &f, pc); idx >= 0 && n < max - 1;
	     idx = inline_index(p, &f, pc)) {
		const char *name;
		uint32_t parent_pc;

		position(p, &f, pc, &frames[n]);
		if (!inlined_call(gl, &f, idx, &name, &parent_pc) || parent_pc >= f.hi - f.lo ||
		    f.lo + parent_pc == pc) {
			/* code inlined from a function not known, called from a line not known */
			frames[n++].name = NULL;
			site_known = false;
			break;
		}
		frames[n++].name = name;
		pc = f.lo + parent_pc;
	}
	if (site_known)
		position(p, &f, pc, &frames[n]);
	else
		frames[n] = (struct srcline_frame){ .file = NULL, .line = 0 };
	frames[n++].name = f.name;
	return n;
}
