// SPDX-License-Identifier: GPL-2.0
/*
 * demangle.c - a thin wrapper around libiberty's cplus_demangle(), the
 * demangler of binutils and gdb. Its auto style tries Rust first (legacy
 * Rust names are valid Itanium names ending in a hash) and then C++.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "demangle.h"

bool demangle__maybe_mangled(const char *name)
{
	/* macOS-style "__Z" also shows up in some cross-built objects */
	if (name[0] == '_' && name[1] == '_' && name[2] == 'Z')
		return true;
	return name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}

char *demangle__name(const char *name)
{
	char *s;

	if (!demangle__maybe_mangled(name)) {
		errno = ENOENT;
		return NULL;
	}
	errno = 0;
	s = cplus_demangle(name + (name[1] == '_'), DMGL_PARAMS | DMGL_ANSI);
	if (!s && errno != ENOMEM)
		errno = ENOENT;	/* looked mangled but was not, e.g. "_Rlock" */
	return s;
}
