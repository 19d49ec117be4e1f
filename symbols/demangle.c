// SPDX-License-Identifier: GPL-2.0
/*
 * demangle.c - a thin wrapper around libiberty's cplus_demangle(), the
 * demangler of binutils and gdb. Its auto style tries Rust first (legacy
 * Rust names are valid Itanium names ending in a hash) and then C++.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "symbols/demangle.h"

#define PLT_SUFFIX "@plt"
#define PLT_SUFFIX_LEN (sizeof(PLT_SUFFIX) - 1)

bool demangle__maybe_mangled(const char *name)
{
	/* macOS-style "__Z" also shows up in some cross-built objects */
	if (name[0] == '_' && name[1] == '_' && name[2] == 'Z')
		return true;
	return name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}

static char *demangle(const char *name)
{
	char *s;

	errno = 0;
	s = cplus_demangle(name + (name[1] == '_'), DMGL_PARAMS | DMGL_ANSI);
	if (!s && errno != ENOMEM)
		errno = ENOENT;	/* looked mangled but was not, e.g. "_Rlock" */
	return s;
}

/* A PLT stub's name (elf_plt.h): the function's, demangled, then "@plt". */
static char *demangle_plt(const char *name, size_t len)
{
	char *f = strndup(name, len - PLT_SUFFIX_LEN), *d, *s;
	int err;

	if (!f)
		return NULL;
	d = demangle(f);
	err = errno;
	free(f);
	if (!d) {
		errno = err;
		return NULL;
	}
	if (asprintf(&s, "%s" PLT_SUFFIX, d) < 0) {
		s = NULL;
		errno = ENOMEM;
	}
	free(d);
	return s;
}

char *demangle__name(const char *name)
{
	size_t len = strlen(name);

	if (!demangle__maybe_mangled(name)) {
		errno = ENOENT;
		return NULL;
	}
	if (len > PLT_SUFFIX_LEN && !strcmp(name + len - PLT_SUFFIX_LEN, PLT_SUFFIX))
		return demangle_plt(name, len);
	return demangle(name);
}
