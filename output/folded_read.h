/* SPDX-License-Identifier: GPL-2.0 */
/*
 * folded_read.h - read folded stacks, flamegraph.pl's input, into a
 * pf_build: one stack a line, "comm;root;...;leaf COUNT", as written by
 * profile -f, BCC's profile -f and stackcollapse-perf.pl.
 *
 * The line's first frame is the process name (or, from profile -i, a
 * time: whatever it is, it is the frame under the root). The count is
 * after the last space or tab, a whole number; lines with a count of 0
 * add nothing, blank lines are skipped. A frame ending in an annotation
 * "_[k]" is a kernel frame, "_[j]", "_[i]", "_[w]" (stackcollapse-perf's
 * JIT, inlined and waker frames) are not; the annotation is dropped. A
 * frame "-" (-d's delimiter between user and kernel frames) is dropped
 * and the frames after it are kernel frames. Anything else is refused:
 * an empty frame, no count, two counts (flamegraph.pl's differential
 * input), a count that is not a whole number or does
 * not fit in 64 bits, a NUL byte, a line longer than max_line or with
 * more than max_frames frames.
 */
#ifndef FOLDED_READ_H
#define FOLDED_READ_H

#include <stddef.h>
#include <stdio.h>

#include "output/pf_build.h"

/*
 * Add the stacks of buf[0, len) to b. Returns 0, or -EINVAL (a malformed
 * line), -E2BIG (past b's limits), -EOVERFLOW (counts past 64 bits),
 * -ENOMEM, with *err saying which line and why.
 */
int folded_read__buf(struct pf_build *b, const char *buf, size_t len, struct pf_read_error *err);

/* The same from a stream, read a bounded line at a time; -errno of a failed read too. */
int folded_read__stream(struct pf_build *b, FILE *f, struct pf_read_error *err);

#endif /* FOLDED_READ_H */
