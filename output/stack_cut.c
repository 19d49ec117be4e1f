// SPDX-License-Identifier: GPL-2.0
/* stack_cut.c - the rule that ends a user stack at its first garbage frame. */
#include <string.h>

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

static bool is_bpf_prog(const struct ksym *ks)
{
	return ks && ks->module && !strcmp(ks->module, "bpf");
}

static bool is_tracepoint_glue(const struct ksym *ks)
{
	return ks && !ks->module && ks->name &&
	       (!strncmp(ks->name, "bpf_trace_run", 13) || !strncmp(ks->name, "__bpf_trace_", 12) ||
		!strncmp(ks->name, "__traceiter_", 12));
}

size_t stack_cut__tracing_frames(size_t n, const struct ksym *(*sym)(size_t i, void *ctx),
				 void *ctx)
{
	size_t i = 0;

	while (i < n && is_bpf_prog(sym(i, ctx)))
		i++;
	if (!i || i == n || !is_tracepoint_glue(sym(i, ctx)))
		return 0;
	while (i < n && is_tracepoint_glue(sym(i, ctx)))
		i++;
	return i;
}
