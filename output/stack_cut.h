/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stack_cut.h - where a sampled user stack stops being real. The kernel
 * walks user stacks by frame pointers; through code built without them
 * the walk leaves the stack and goes on reading garbage as return
 * addresses. The report prints a stack up to its cut. And where a kernel
 * stack taken at a tracepoint starts being the traced thread's.
 */
#ifndef STACK_CUT_H
#define STACK_CUT_H

#include <stdbool.h>
#include <stddef.h>

#include "symbols/ksyms.h"
#include "symbols/usyms.h"

/*
 * Whether user frame i (0: the leaf), resolved to sym, is the last one to
 * print: the frames after it are garbage, and it prints as "[unknown]".
 */
bool stack_cut__ends_at(size_t i, const struct usym *sym);

/*
 * A kernel stack taken in a BPF program at a tracepoint (--off-cpu,
 * --wall: sched_switch) starts with the program's frames and the glue
 * that runs it (bpf_trace_run4; on some kernels __bpf_trace_sched_switch
 * and __traceiter_sched_switch): the profiler's, not the thread's. How
 * many of the n frames lead the stack so, sym(i, ctx) naming frame i (0:
 * the leaf; NULL: no symbol). 0 unless it starts in a BPF program that
 * such glue ran.
 */
size_t stack_cut__tracing_frames(size_t n, const struct ksym *(*sym)(size_t i, void *ctx),
				 void *ctx);

#endif /* STACK_CUT_H */
