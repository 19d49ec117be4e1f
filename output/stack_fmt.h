/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stack_fmt.h - turn resolved stacks into profile(8) output: the default
 * multi-line blocks or folded lines for flame graphs. Stacks that render
 * the same are merged; output is sorted by count, hottest last.
 */
#ifndef STACK_FMT_H
#define STACK_FMT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct stack_fmt_opts {
	bool folded;		/* -f */
	bool delimited;		/* -d: "-" / "--" between user and kernel part */
	bool annotations;	/* -a: "_[k]" after kernel frames */
	bool user_only;		/* -U */
	bool kernel_only;	/* -K */
	bool per_thread;	/* -L: print "(pid/tid)" */
	const char *root;	/* folded: a root frame before comm (interval timestamps); NULL: none */
	/*
	 * The counts are ns, printed in microseconds (--off-cpu, --wall):
	 * summed as ns, rounded up, so that no stack with time shows 0.
	 */
	bool ns_as_us;
};

/*
 * One counted stack. Frames are leaf first, as the stack map holds them.
 * A stack error of 0 means the frames are valid, -EFAULT means there is no
 * such stack for this sample (user mode has no kernel stack, a kernel
 * thread no user stack), any other value that the stack was lost.
 */
struct stack_rec {
	const char *comm;
	uint32_t pid, tid;
	const char *const *kframes;
	size_t nr_kframes;
	int kstack_err;
	const char *const *uframes;
	size_t nr_uframes;
	int ustack_err;
	const char *container;	/* --by-container: folded, the root frame; NULL: none */
	uint64_t count;
};

struct stack_set;

struct stack_set *stack_set__new(const struct stack_fmt_opts *opts);
/* Render and keep one stack. Returns 0 or -ENOMEM. */
int stack_set__add(struct stack_set *s, const struct stack_rec *rec);
/* Sum of the counts added. */
uint64_t stack_set__total(const struct stack_set *s);
/* Merge, sort and write; returns 0 or -errno of the failed write. */
int stack_set__print(struct stack_set *s, FILE *out);
void stack_set__free(struct stack_set *s);

#endif /* STACK_FMT_H */
