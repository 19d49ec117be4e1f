/* SPDX-License-Identifier: GPL-2.0 */
/*
 * demangle.h - C++ (Itanium ABI) and Rust (legacy and v0) symbol names
 * made readable, with libiberty's demangler: what c++filt prints.
 */
/* not DEMANGLE_H: libiberty/demangle.h guards itself with that name */
#ifndef PROFILE_DEMANGLE_H
#define PROFILE_DEMANGLE_H

#include <stdbool.h>

/* Cheap test, no allocation: could name be mangled at all (_Z..., _R...)? */
bool demangle__maybe_mangled(const char *name);

/*
 * The readable form of name, with parameter types ("ns::f<int>(int)"; a
 * Rust name without its hash), malloc'ed. A PLT stub's "_Z...@plt" keeps
 * its suffix: "ns::f<int>(int)@plt", as perf prints it. NULL with errno ENOENT when name
 * is not a mangled name (C functions: use it as it is), ENOMEM.
 */
char *demangle__name(const char *name);

#endif /* PROFILE_DEMANGLE_H */
