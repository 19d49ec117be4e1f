// SPDX-License-Identifier: GPL-2.0
/*
 * usyms_names.c - the names symbols are shown with: C++ and Rust names
 * demangled once per symbol, on first use, and kept with its table.
 */
#include <stdlib.h>

#include "symbols/demangle.h"
#include "symbols/elf_symtab.h"
#include "symbols/usyms_internal.h"

/* Marks a names[] slot that was looked at and is not mangled. */
static const char NOT_MANGLED[] = "";

void symfile__release_names(struct symfile *f)
{
	if (!f->names)
		return;
	for (size_t i = 0; i < elf_symtab__count(f->st); i++)
		if (f->names[i] != NOT_MANGLED)
			free((char *)f->names[i]);
	free(f->names);
}

/* The name to show for a symbol: demangled once, then from the cache. */
const char *symfile__name(struct usyms *u, struct symfile *f, const struct elf_sym *sym)
{
	size_t i;
	char *d;

	if (!u->demangle || !demangle__maybe_mangled(sym->name))
		return sym->name;
	if (!f->names) {
		f->names = calloc(elf_symtab__count(f->st), sizeof(*f->names));
		if (!f->names)
			return sym->name;
	}
	i = elf_symtab__index(f->st, sym);
	if (!f->names[i]) {
		d = demangle__name(sym->name);
		f->names[i] = d ? d : NOT_MANGLED;
	}
	return f->names[i] == NOT_MANGLED ? sym->name : f->names[i];
}
