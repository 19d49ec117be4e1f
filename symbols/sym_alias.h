/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sym_alias.h - which of several names of one function to print, for ELF
 * symbol tables (elf_symtab.c, after binding and size) and kallsyms
 * (ksyms.c) alike, so one address always prints one name.
 */
#ifndef SYM_ALIAS_H
#define SYM_ALIAS_H

#include <string.h>

/*
 * As perf chooses: fewer leading underscores (the public name over an
 * internal one), then the longer, then, where perf leaves it to chance,
 * the first in byte order. < 0 when a is the better one.
 */
static inline int sym_alias__name_cmp(const char *a, const char *b)
{
	size_t ua = strspn(a, "_"), ub = strspn(b, "_"), la, lb;

	if (ua != ub)
		return (ua > ub) - (ua < ub);
	la = strlen(a);
	lb = strlen(b);
	if (la != lb)
		return (lb > la) - (lb < la);
	return strcmp(a, b);
}

#endif /* SYM_ALIAS_H */
