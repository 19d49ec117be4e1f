/* SPDX-License-Identifier: GPL-2.0 */
/*
 * py_place.bpf.h - where a thread's Python frames go in its user stack,
 * included by python.bpf.h (which read them into its per-CPU walk): each
 * run, the frames of one activation of the eval loop, in place of that
 * activation's C frame, met by the native walk (user_stack.bpf.h) or
 * among the return addresses of a walk by frame pointers; the runs no
 * walk met after its last frame, in order.
 */
#ifndef PY_PLACE_BPF_H
#define PY_PLACE_BPF_H

/*
 * Whether run r belongs at the C frame at pc with stack [sp, cfa): where
 * its activation's data lies (mark), or, with no mark or no frame extent
 * (cfa 0: a walk by frame pointers), at a pc in the eval loop.
 */
static __always_inline bool py_run_here(const struct py_walk *w, __u32 r, __u64 pc, __u64 sp,
					__u64 cfa)
{
	__u64 mark;

	if (r >= w->runs || r >= PY_MAX_RUNS)
		return false;
	mark = w->marks[r];
	if (mark && cfa)
		return mark >= sp && mark < cfa;
	return (pc - w->proc.eval_start < w->proc.eval_end - w->proc.eval_start) ||
	       (pc - w->proc.cold_start < w->proc.cold_end - w->proc.cold_start);
}

/*
 * Put run r's words into the stack at frames[n...): the new n, or -1
 * when they do not all fit: the innermost of them then fill the stack to
 * stack_depth, and it is cut there. A global function: verified once,
 * not at every state of the walks that call it.
 */
__noinline int py_splice(__u32 n, __u32 r)
{
	__u32 zero = 0, start, end;
	__u64 *frames = bpf_map_lookup_elem(&unwind_frames, &zero);
	struct py_walk *w = py_walk_buf();

	/* (cannot happen) no run, none put */
	if (!frames || !w || r >= PY_MAX_RUNS)
		return (int)n;
	/* the masks stay: the verifier does not know r from the test above */
	barrier_var(r);
	start = r ? w->ends[(r - 1) & (PY_MAX_RUNS - 1)] : 0;
	end = w->ends[r & (PY_MAX_RUNS - 1)];
	for (__u32 k = 0; k < PY_MAX_FRAMES; k++) {
		/* 64 bits: no zero extension after the barrier to lose the bound */
		__u64 i = (__u64)start + k, at = (__u64)n + k;

		if (i >= end)
			return (int)at;
		if (at >= stack_depth || at >= MAX_STACK_DEPTH_LIMIT)
			return -1;
		/* indexed here, after the test: no pointer walked ahead of it */
		barrier_var(at);
		frames[at] = w->ids[i & (PY_MAX_FRAMES - 1)];
	}
	return (int)(n + PY_MAX_FRAMES);
}

/* py_at_frame(): the new count of frames, and whether the walk ends */
#define PY_AT_N 0xffff
#define PY_AT_FULL (1 << 16)	/* a run that did not fit: the stack is truncated */
#define PY_AT_CUT (1 << 17)	/* the Python frames were cut in the run placed */

/*
 * The native walk recorded frame n, at pc with stack [sp, cfa) (cfa 0:
 * not known): if the next run of the Python frames belongs there, put it
 * at frames[n...] in its place. Returns how many frames the stack has
 * now (n + 1 when the run is not here), and PY_AT_FULL or PY_AT_CUT when
 * the walk must end. A global function, so that the walk's loop sees one
 * call with scalars in and out, and one branch.
 */
__noinline __u32 py_at_frame(__u32 n, __u64 pc, __u64 sp, __u64 cfa)
{
	struct py_walk *w = py_walk_buf();
	__u32 r;
	int m;

	if (!w)
		return n + 1;
	r = w->placed;
	if (!py_run_here(w, r, pc, sp, cfa))
		return n + 1;
	m = py_splice(n, r);
	if (m < 0)
		return stack_depth | PY_AT_FULL;
	w->placed = r + 1;
	return r == w->cut_run ? (__u32)m | PY_AT_CUT : (__u32)m;
}

/*
 * After the native walk, which placed the runs before w->placed: the
 * rest after frame n, in order (the walk was cut before their C frames).
 * The new n; a stack that cannot hold them, or whose Python frames were
 * cut, is marked truncated.
 */
static __always_inline __u32 py_rest(const struct py_walk *w, __u32 n, __u32 *flags)
{
	__u32 r = w->placed;
	int m;

	if (r < w->runs)
		stat_inc(STAT_PY_UNPLACED);
	for (__u32 k = 0; k < PY_MAX_RUNS; k++) {
		if (r >= w->runs || r >= PY_MAX_RUNS)
			break;
		m = py_splice(n, r);
		if (m < 0) {
			*flags |= KEY_USER_TRUNCATED;
			return stack_depth;
		}
		n = (__u32)m;
		r++;
	}
	if (w->cut_run < PY_MAX_RUNS)
		*flags |= KEY_USER_TRUNCATED;
	return n;
}

/* A user stack by frame pointers, Python frames in place: bpf_loop's state. */
struct py_fp {
	const __u64 *pcs;	/* the kernel's walk */
	struct py_walk *w;
	__u32 nr_pcs;
	__u32 n;		/* frames written */
	bool full;		/* no room left */
	bool cut;		/* ended where the Python frames were cut */
};

static long py_fp_step(__u32 i, void *ctx)
{
	struct py_fp *f = ctx;
	__u32 zero = 0, n = f->n;
	__u64 *frames = bpf_map_lookup_elem(&unwind_frames, &zero);
	__u64 pc;
	__u32 m;

	if (!frames || i >= f->nr_pcs || i >= stack_depth || i >= MAX_STACK_DEPTH_LIMIT)
		return 1;
	pc = f->pcs[i];
	/* return addresses are looked up at the call */
	if (n >= stack_depth || n >= MAX_STACK_DEPTH_LIMIT) {
		f->full = true;
		return 1;
	}
	frames[n] = pc;
	m = py_at_frame(n, i ? pc - 1 : pc, 0, 0);
	f->n = m & PY_AT_N;
	/* no room, or the stack ends where the Python frames were cut */
	if (m > PY_AT_N) {
		f->full = m & PY_AT_FULL;
		f->cut = m & PY_AT_CUT;
		return 1;
	}
	return 0;
}

/*
 * The user stack by frame pointers with w's Python frames in it, into
 * unwind_frames (past them, the last walk's: see unwind_user()): its frames, or -1 when the
 * kernel's walk failed.
 */
static __always_inline int py_fp_stack(void *ctx, struct py_walk *w, __u32 *flags)
{
	__u32 zero = 0, bytes = stack_depth * sizeof(__u64);
	struct py_fp f = { .w = w };
	__u64 *pcs = bpf_map_lookup_elem(&scratch, &zero);
	__u64 *frames = bpf_map_lookup_elem(&unwind_frames, &zero);
	long got;

	if (!pcs || !frames)
		return -1;
	got = bpf_get_stack(ctx, pcs, bytes, BPF_F_USER_STACK);
	if (got < 0)
		return -1;
	f.pcs = pcs;
	f.nr_pcs = got / sizeof(__u64);
	bpf_loop(f.nr_pcs, py_fp_step, &f, 0);
	if (f.full || f.cut) {
		*flags |= KEY_USER_TRUNCATED;
		return f.n;
	}
	return py_rest(w, f.n, flags);
}

#endif /* PY_PLACE_BPF_H */
