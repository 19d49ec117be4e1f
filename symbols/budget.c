// SPDX-License-Identifier: GPL-2.0
/*
 * budget.c - the default budgets and the per-thread reason a file was
 * refused.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "common/clock.h"
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

void budget_cpu__start(struct budget_cpu *c)
{
	c->start_ns = thread_cpu_ns();
	c->next_look_ns = 0;
	c->over = false;
	c->active = true;
}

uint64_t budget_cpu__stop(struct budget_cpu *c)
{
	c->active = false;
	return thread_cpu_ns() - c->start_ns;
}

bool budget_cpu__over(struct budget_cpu *c)
{
	uint64_t now;

	if (c->over)
		return true;
	if (!c->cap_ns)
		return false;
	/* the thread's clock is a system call (0.5 us): the coarse one is read from memory */
	now = clock_ns(CLOCK_MONOTONIC_COARSE);
	if (now < c->next_look_ns)
		return false;
	c->next_look_ns = now + 1;
	c->over = thread_cpu_ns() - c->start_ns >= c->cap_ns;
	return c->over;
}

const char *budget__why(void)
{
	return why;
}

void budget__clear(void)
{
	why[0] = '\0';
}
