/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pprof_read.h - read a pprof profile (profile.proto, gzip-compressed or
 * not) into a pf_build: the files profile -o x.pb.gz writes, and others'
 * within what they say.
 *
 * What is taken: the "samples/count" value of each sample (a profile
 * without one is refused), its locations leaf first, each Line of a
 * location a frame (the last the caller the ones before were inlined
 * into), a frame's name from its function (a location without lines is
 * named by its address), its file from its mapping; frames in the
 * mapping "[kernel.kallsyms]" are kernel frames, named in their function's
 * file (the kernel image or a module). A frame with no mapping but a
 * function file is an interpreted one (Python): "func (file)". Labels
 * "comm" (string), "pid" and "tid" (numbers). What the samples measure
 * comes from period_type and period: cpu/nanoseconds is the cpu-clock
 * event, N/count the event N, anything else samples alone.
 *
 * The file is read whole, compressed and decompressed within
 * limits->max_file bytes; every index in it is checked; a stack is at
 * most limits->max_frames frames.
 */
#ifndef PPROF_READ_H
#define PPROF_READ_H

#include <stddef.h>
#include <stdio.h>

#include "output/pf_build.h"

/*
 * Add the samples of the profile in buf[0, len) to b. Returns 0, or
 * -EINVAL (malformed), -E2BIG (past b's limits), -EOVERFLOW (counts past
 * 64 bits), -ENOMEM, with err->why saying what.
 */
int pprof_read__buf(struct pf_build *b, const void *buf, size_t len, struct pf_read_error *err);

/* The same from a stream, read whole first; -errno of a failed read too. */
int pprof_read__stream(struct pf_build *b, FILE *f, struct pf_read_error *err);

#endif /* PPROF_READ_H */
