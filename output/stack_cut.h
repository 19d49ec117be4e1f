/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stack_cut.h - where a sampled user stack stops being real. The kernel
 * walks user stacks by frame pointers; through code built without them
 * the walk leaves the stack and goes on reading garbage as return
 * addresses. The report prints a stack up to its cut.
 */
#ifndef STACK_CUT_H
#define STACK_CUT_H

#include <stdbool.h>
#include <stddef.h>

#include "symbols/usyms.h"

/*
 * Whether user frame i (0: the leaf), resolved to sym, is the last one to
 * print: the frames after it are garbage, and it prints as "[unknown]".
 */
bool stack_cut__ends_at(size_t i, const struct usym *sym);

#endif /* STACK_CUT_H */
