// SPDX-License-Identifier: GPL-2.0
/*
 * srcline.c - address -> (function, file, line) frames through DWARF,
 * inlined functions included, the way eu-addr2line -i walks them: the
 * line table gives the innermost location, and each inlined-subroutine
 * scope's DW_AT_call_file/DW_AT_call_line the location in its caller.
 *
 * The compile unit is found through .debug_aranges; clang does not emit
 * them, so a linear walk over the units' ranges is the fallback. A Go
 * file without DWARF has the same from its function table (go_lines.h).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/elf_read.h"
#include "symbols/go_lines.h"
#include "symbols/srcline.h"

struct srcline {
	Elf *elf;
	Dwarf *dw;
	struct go_lines *go;	/* no DWARF: a Go file's function table (go_lines.h) */
	int fd;			/* ours: libelf reads sections from it as asked */
};

/*
 * What libdw would read past our checks: a supplementary file it opens by
 * the path the file names (.gnu_debugaltlink, .debug_sup: a FIFO there
 * would hang us), and sections it inflates by their own size header
 * (.zdebug_*, the old GNU compression) or reads besides .debug_*.
 */
static int refuse_outside_budget(Elf *elf)
{
	static const char *const prefixes[] = {
		".gnu_debugaltlink", ".debug_sup", ".zdebug", ".gnu.debuglto_",
	};
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr shdr;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return -ENOEXEC;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;

		if (!gelf_getshdr(scn, &shdr) ||
		    !(name = elf_strptr(elf, shstrndx, shdr.sh_name)))
			continue;
		for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
			if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
				return budget__refuse("section %s: DWARF in another file or form, not read for --lines",
						      name);
	}
	return 0;
}

struct srcline *srcline__open_fd(int fd, const struct budget *b)
{
	struct srcline *sl;

	int err;

	sl = calloc(1, sizeof(*sl));
	if (!sl)
		return NULL;
	/* a copy of fd, so the caller may close theirs */
	sl->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (sl->fd < 0) {
		free(sl);
		return NULL;
	}
	sl->elf = elf_read__begin(sl->fd, b);
	if (!sl->elf) {
		err = errno;
		srcline__free(sl);
		errno = err;
		return NULL;
	}
	/* libdw reads and inflates every .debug_ section itself: check them first */
	err = refuse_outside_budget(sl->elf);
	if (!err)
		err = elf_read__check_sections(sl->elf, ".debug_", b);
	if (err) {
		srcline__free(sl);
		errno = -err;
		return NULL;
	}
	sl->dw = dwarf_begin_elf(sl->elf, DWARF_C_READ, NULL);
	if (!sl->dw)
		sl->go = go_lines__open(sl->elf, b);
	if (!sl->dw && !sl->go) {
		err = errno == EFBIG || errno == ECANCELED ? errno : ENOENT;
		srcline__free(sl);
		errno = err;
		return NULL;
	}
	return sl;
}

struct srcline *srcline__open_file(const char *path)
{
	struct srcline *sl;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	sl = srcline__open_fd(fd, NULL);
	err = errno;
	close(fd);
	errno = err;
	return sl;
}

void srcline__free(struct srcline *sl)
{
	if (!sl)
		return;
	dwarf_end(sl->dw);
	go_lines__free(sl->go);
	elf_end(sl->elf);
	if (sl->fd >= 0)
		close(sl->fd);
	free(sl);
}

static bool find_cu(struct srcline *sl, uint64_t vaddr, Dwarf_Die *cudie)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (dwarf_addrdie(sl->dw, vaddr, cudie))
		return true;
	while (dwarf_nextcu(sl->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(sl->dw, off + hsize, cudie) && dwarf_haspc(cudie, vaddr) > 0)
			return true;
		off = next;
	}
	return false;
}

/* The name to show for a function scope: linkage name (demangled later), else DW_AT_name. */
static const char *scope_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	return name ? name : dwarf_diename(die);
}

static bool is_function(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);

	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_entry_point;
}

/* DW_AT_call_file/DW_AT_call_line of an inlined-subroutine scope. */
static void call_site(Dwarf_Die *cudie, Dwarf_Die *inl, struct srcline_frame *f)
{
	Dwarf_Attribute attr;
	Dwarf_Files *files;
	Dwarf_Word file = 0, line = 0;
	size_t nfiles;

	f->file = NULL;
	f->line = 0;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &attr), &file) == 0 &&
	    dwarf_getsrcfiles(cudie, &files, &nfiles) == 0 && file < nfiles)
		f->file = dwarf_filesrc(files, file, NULL, NULL);
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &attr), &line) == 0)
		f->line = (int)line;
}

/*
 * The function scope enclosing die in the DIE tree: for a concrete
 * inlined instance, the function it was inlined into. (dwarf_getscopes
 * continues from an inlined instance into its abstract origin's scopes,
 * so the callers are found through the tree instead.)
 */
static bool enclosing_function(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes_die(die, &scopes);
	bool found = false;

	for (int i = 1; i < n && !found; i++) {
		if (is_function(&scopes[i])) {
			*out = scopes[i];
			found = true;
		}
	}
	free(scopes);
	return found;
}

int srcline__lookup(struct srcline *sl, uint64_t vaddr, struct srcline_frame *frames, int max)
{
	Dwarf_Die cudie, fn, *scopes = NULL;
	struct srcline_frame loc = {};
	bool have_fn = false;
	Dwarf_Line *line;
	int nscopes, n = 0;

	if (sl && sl->go)
		return go_lines__lookup(sl->go, vaddr, frames, max);
	if (!sl || max <= 0 || !find_cu(sl, vaddr, &cudie))
		return -ENOENT;
	line = dwarf_getsrc_die(&cudie, vaddr);
	if (line) {
		loc.file = dwarf_linesrc(line, NULL, NULL);
		if (dwarf_lineno(line, &loc.line))
			loc.line = 0;
	}
	/* the innermost function scope: where the code is after inlining */
	nscopes = dwarf_getscopes(&cudie, vaddr, &scopes);
	for (int i = 0; i < nscopes && !have_fn; i++) {
		if (is_function(&scopes[i])) {
			fn = scopes[i];
			have_fn = true;
		}
	}
	free(scopes);
	/* then outwards, one frame per function it was inlined into */
	while (have_fn && n < max) {
		frames[n] = loc;
		frames[n].name = scope_name(&fn);
		n++;
		if (dwarf_tag(&fn) != DW_TAG_inlined_subroutine)
			break;	/* the out-of-line function: its callers are real frames */
		call_site(&cudie, &fn, &loc);
		have_fn = enclosing_function(&fn, &fn);
	}
	if (!n && loc.file) {
		frames[0] = loc;	/* a line but no function scope (assembly) */
		n = 1;
	}
	return n ? n : -ENOENT;
}
