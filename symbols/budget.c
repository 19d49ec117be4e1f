// SPDX-License-Identifier: GPL-2.0
/*
 * budget.c - the default budgets and the per-thread reason a file was
 * refused.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "symbols/budget.h"

static const struct budget defaults = BUDGET_DEFAULT_INIT;
/* one per thread: loads run on the loader thread and, in tests, on main */
static __thread char why[256];

const struct budget *budget__default(void)
{
	return &defaults;
}

int budget__refuse(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return -EFBIG;
}

const char *budget__why(void)
{
	return why;
}

void budget__clear(void)
{
	why[0] = '\0';
}
