// SPDX-License-Identifier: GPL-2.0
/*
 * usyms_lines.c - --lines: the source frames of an address from the DWARF
 * of a file or of its separate debug file (srcline.h), and the text that
 * names them, made once per address of each file.
 */
#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/debuginfo.h"
#include "symbols/demangle.h"
#include "symbols/srcline.h"
#include "symbols/usyms_internal.h"

/* Inlining deeper than this is cut at the innermost frames kept. */
#define MAX_INLINE_DEPTH 16

static void line_entry__free(void *p)
{
	struct line_entry *e = p;

	for (size_t i = 0; i < e->nr_owned; i++)
		free(e->owned[i]);
	free(e->owned);
	free(e->frames);
	free(e->display);
	free(e);
}

static int line_entry_cmp(const void *a, const void *b)
{
	const struct line_entry *x = a, *y = b;

	return (x->vaddr > y->vaddr) - (x->vaddr < y->vaddr);
}

void symfile__release_lines(struct symfile *f)
{
	tdestroy(f->lines, line_entry__free);
	srcline__free(f->sl);
}

/*
 * DWARF for --lines: the debug file's if one was used (the descriptor that
 * was checked, never its path again), else the file's own.
 */
struct srcline *symfile__open_lines(struct usyms *u, int fd, const struct debuginfo_info *info)
{
	struct srcline *sl = NULL;

	if (info->debug_fd >= 0)
		sl = srcline__open_fd(info->debug_fd, &u->budget);
	if (!sl)
		sl = srcline__open_fd(fd, &u->budget);
	if (!sl && errno == EFBIG)
		usyms_notice(u, info->debug_path[0] ? info->debug_path : "(DWARF)", budget__why());
	return sl;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* A DWARF name made readable; the copy, when one was made, goes to e->owned. */
static const char *line_name(struct usyms *u, struct line_entry *e, const char *name)
{
	char *d;

	if (!name || !u->demangle || !demangle__maybe_mangled(name))
		return name;
	d = demangle__name(name);
	if (!d)
		return name;
	e->owned[e->nr_owned++] = d;
	return d;
}

/* "func (file.c:42) > inlined (file.h:3)", outermost first. */
static char *format_lines(const struct usym_line *frames, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s%s", i ? " > " : "", frames[i].name ? frames[i].name : "??");
		if (frames[i].file && frames[i].line)
			fprintf(f, " (%s:%u)", base_name(frames[i].file), frames[i].line);
		else if (frames[i].file)
			fprintf(f, " (%s)", base_name(frames[i].file));
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static struct line_entry *line_entry__new(struct usyms *u, struct symfile *f, uint64_t vaddr,
					  const char *func)
{
	struct srcline_frame sf[MAX_INLINE_DEPTH];
	struct line_entry *e;
	int n;

	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->vaddr = vaddr;
	n = srcline__lookup(f->sl, vaddr, sf, MAX_INLINE_DEPTH);
	if (n <= 0)
		return e;	/* no line: remembered as such */
	e->frames = calloc(n, sizeof(*e->frames));
	e->owned = calloc(n, sizeof(*e->owned));
	if (!e->frames || !e->owned) {
		line_entry__free(e);
		return NULL;
	}
	/* srcline gives innermost first; show the real function first */
	for (int i = 0; i < n; i++) {
		struct usym_line *l = &e->frames[n - 1 - i];

		l->name = line_name(u, e, sf[i].name);
		l->file = sf[i].file;
		l->line = sf[i].line > 0 ? sf[i].line : 0;
	}
	/* the out-of-line function is named as the ELF symbol names it */
	e->frames[0].name = func;
	e->nr_frames = n;
	e->display = format_lines(e->frames, n);
	if (!e->display) {
		line_entry__free(e);
		return NULL;
	}
	return e;
}

/* The --lines answer for vaddr, computed on first use; NULL when there is none. */
const struct line_entry *symfile__lines(struct usyms *u, struct symfile *f, uint64_t vaddr,
					const char *func)
{
	struct line_entry key = { .vaddr = vaddr }, *e;
	void *node;

	node = tfind(&key, &f->lines, line_entry_cmp);
	if (!node) {
		e = line_entry__new(u, f, vaddr, func);
		if (!e)
			return NULL;
		node = tsearch(e, &f->lines, line_entry_cmp);
		if (!node) {
			line_entry__free(e);
			return NULL;
		}
	}
	e = *(struct line_entry **)node;
	return e->display ? e : NULL;
}
