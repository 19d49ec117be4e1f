// SPDX-License-Identifier: GPL-2.0
/* stack_cut.c - the rule that ends a user stack at its first garbage frame. */
#include "output/stack_cut.h"

/*
 * A return address that lies in no mapping at all cannot be real: the
 * walk has left the stack, and what follows is garbage. The leaf comes
 * from the registers, not from the walk: its being in no mapping (JIT code
 * unmapped since) says nothing about the frames after it.
 */
bool stack_cut__ends_at(size_t i, const struct usym *sym)
{
	return i > 0 && !sym->name && sym->reason == USYM_NO_MAPPING;
}
