/* SPDX-License-Identifier: GPL-2.0 */
/*
 * python.bpf.h - the BPF side of Python frames (py_bpf.h), included by
 * profile.bpf.c after its maps: in a process python/py_procs.c published,
 * read the sampled thread's CPython frames and put them in its user
 * stack in place of the interpreter's C frames that run them, so that
 * they are counted with the stack in the kernel.
 *
 * Per sample, before the native walk:
 *  1. the thread's PyThreadState: remembered per thread ("py_threads",
 *     checked by its native_thread_id at every use), else found in the
 *     interpreters' lists of thread states;
 *  2. its frames, from the current one down its previous links, at most
 *     PY_MAX_FRAMES: each becomes a word (py_bpf.h), and the frames are
 *     cut into runs, one per activation of the eval loop: 3.11 marks an
 *     activation's first frame is_entry, 3.12 on puts an entry frame of
 *     its own (owner_shim) below it, on the C stack;
 *  3. the native walk (user_stack.bpf.h, or a walk by frame pointers)
 *     puts each run where its activation's C frame is (py_place.bpf.h):
 *     the frame whose stack holds the activation's _PyCFrame (3.11) or
 *     entry frame (3.12 on), or, by frame pointers, the next return
 *     address in _PyEval_EvalFrameDefault. Runs the walk did not meet (it
 *     was cut) go after its last frame, in order.
 *
 * Every read is bpf_probe_read_user() of the sampled process, of a size
 * within the buffers below; every loop is bounded. A process that lies
 * about its layout gets wrong names for itself, at worst.
 */
#ifndef PYTHON_BPF_H
#define PYTHON_BPF_H

#include "python/py_bpf.h"

/* Set by userspace between open and load. */
const volatile bool py_enabled = false;	/* Python frames are walked (bpf_loop is there) */
const volatile bool py_lines = false;	/* --lines: the instruction is part of a frame's word */
const volatile __u64 py_seed = 0;	/* random per run: the digests cannot be aimed */
/*
 * Moved on after every change to an entry of py_procs (userspace's
 * publish and sweep, exec, exit): a CPU's copy of an entry, or of its
 * absence (py_walk.proc), is good while it has not moved since.
 */
volatile __u64 py_epoch = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, PY_MAX_PROCS);		/* set */
	__type(key, __u32);
	__type(value, struct py_proc);
} py_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);			/* set */
	__type(key, __u32);
	__type(value, struct py_thread);
} py_threads SEC(".maps");

/*
 * In front of py_threads, per CPU: the thread states found last, by
 * thread, in a slot its tid picks. A hit spares a lookup that misses
 * memory at every sample; either way the state is read and its thread id
 * checked before it is used.
 */
#define PY_TSTATE_SLOTS 64

struct py_tstate_slot {
	__u32 tid, pid;
	__u64 tstate;
};

struct py_tstates {
	struct py_tstate_slot s[PY_TSTATE_SLOTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_tstates);
} py_tstates SEC(".maps");

/*
 * A thread's frames are read a block at a time: a read of the process's
 * memory costs far more than copying what it read (~100 ns to miss its
 * page and lines, against ~10 to copy a frame), and a thread's frames lie
 * one below the other in its data stack, each caller's before its
 * callee's. The block of a frame ends where the frame's bytes do and
 * starts PY_FRAME_BLOCK bytes lower, or at its page if that is nearer:
 * the frame's page can be read, another might not.
 */
#define PY_FRAME_BLOCK 2048

/*
 * The words of the code objects one sample's walk met, in a slot the
 * code's address picks, valid for the sample they were made in (stamp):
 * a recursive function's frames are read once. Within the sample the
 * code is alive (the sampled thread's frames hold it, and the thread is
 * where the sample interrupted it), so its address names it.
 */
#define PY_MEMO_SLOTS 8

struct py_memo {
	__u64 code, stamp;
	__u64 partial;		/* the word's digest but for the instruction */
};

/* One sample's walk, per CPU. */
struct py_walk {
	struct py_proc proc;		/* the entry, copied: one walk reads one version of it */
	__u32 proc_pid;			/* whose entry proc is (gen 0: none, or a placeholder) */
	__u64 proc_epoch;		/* py_epoch before proc was copied; 0: nothing copied */
	__u64 ids[PY_MAX_FRAMES];	/* the frames' words, innermost first */
	__u64 marks[PY_MAX_RUNS];	/* where each run's activation lies on the C stack; 0: unknown */
	__u32 ends[PY_MAX_RUNS];	/* ids of runs 0..r end before ends[r] */
	__u32 nr, runs;
	__u32 cut_run;			/* the run the walk stopped in (PY_MAX_FRAMES), or PY_MAX_RUNS */
	/*
	 * The next run the native walk places: here, not in the walk's
	 * state, so that the verifier does not tell its loop's states apart
	 * by it.
	 */
	__u32 placed;
	/*
	 * Also here for the verifier: whether the native walk places runs
	 * (its thread has Python frames), and py_at_frame()'s answer that
	 * ended it (PY_AT_FULL, PY_AT_CUT), 0 if none did. Kept in the walk's
	 * state, they split its loop into a family of states each (twice
	 * the program's verification).
	 */
	__u32 walking;
	__u32 ended;
	__u64 stamp;			/* this sample's, for memo */
	struct py_memo memo[PY_MEMO_SLOTS];
	__u8 ts[PY_TS_READ];
	__u8 fr[PY_FRAME_READ];
	/* the bytes of the thread's memory read last for its frames (py_read_frame) */
	__u64 blk_start, blk_len;
	__u8 blk[PY_FRAME_BLOCK + PY_FRAME_READ];	/* + PY_FRAME_READ: a masked copy stays within */
	__u8 co[PY_CODE_READ];
	__u8 str[PY_STR_HDR + PY_FILE_BYTES];	/* a str's header, then its characters (py_str) */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_walk);
} py_walks SEC(".maps");

static __always_inline struct py_walk *py_walk_buf(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&py_walks, &zero);
}

/* A field of a buffer read from the process; 0 where off is not within it. */
#define PY_FIELD(type, buf, off)						\
	({									\
		__u32 __off = (off);						\
		barrier_var(__off);						\
		__off <= sizeof(buf) - sizeof(type) ?				\
			*(const type *)((const __u8 *)(buf) + __off) : (type)0;	\
	})

/*
 * len, or 0 when it is more than max: the test in assembly, on the very
 * register the caller then uses, which the verifier follows (compiled
 * from C it may test one copy of the value and use another).
 */
static __always_inline __u64 py_bound(__u64 len, const __u64 max)
{
	asm volatile("if %[len] <= %[max] goto +1; %[len] = 0"
		     : [len] "+r"(len)
		     : [max] "i"(max));
	return len;
}

/* Read len bytes (at most the buffer's size) of the process at addr into buf. */
#define PY_READ(buf, len, addr)							\
	({									\
		__u64 __len = py_bound((len), sizeof(buf));			\
		__len && !bpf_probe_read_user((buf), __len, (const void *)(addr));	\
	})

static __always_inline bool py_read_ptr(__u64 *v, __u64 addr)
{
	return addr && !bpf_probe_read_user(v, sizeof(*v), (const void *)addr);
}

/*
 * The n bytes (the layout's fr_read) of the frame at addr into w->fr:
 * from the block read last, else from the block of addr, read now (or
 * the frame's bytes alone when the block cannot be read). 1: read, 0:
 * it faulted. A global function: verified once.
 */
__noinline int py_read_frame(__u64 addr, __u32 n)
{
	struct py_walk *w = py_walk_buf();
	__u64 off, lo, len, end = addr + n;

	if (!w || !n || n > PY_FRAME_READ || end < addr)
		return 0;
	off = addr - w->blk_start;
	if (w->blk_len < n || off > w->blk_len - n) {
		lo = end - PY_FRAME_BLOCK;
		if (lo < (addr & ~4095ull) || lo > addr)
			lo = addr & ~4095ull;
		len = end - lo;
		/* the verifier's bound on the size: len is n..PY_FRAME_BLOCK */
		barrier_var(len);
		if (len > PY_FRAME_BLOCK)
			return 0;
		w->blk_len = 0;
		if (bpf_probe_read_user(w->blk, len, (const void *)lo))
			return PY_READ(w->fr, n, addr);
		w->blk_start = lo;
		w->blk_len = len;
		off = addr - lo;
	}
	/* a whole PY_FRAME_READ: past the frame's n bytes, what is there */
	__builtin_memcpy(w->fr, w->blk + (off & (PY_FRAME_BLOCK - 1)), PY_FRAME_READ);
	return 1;
}

/* Looking for a thread's state in the interpreters' lists. */
struct py_find {
	struct py_walk *w;
	__u64 interp, ts, found;
	__u32 tid;
	__u8 interps;
};

static long py_find_step(__u32 i, void *ctx)
{
	struct py_find *f = ctx;
	const struct py_layout *l = &f->w->proc.l;

	if (!f->ts) {
		/* the next interpreter's list */
		if (!f->interp || f->interps >= PY_MAX_INTERPS ||
		    !py_read_ptr(&f->ts, f->interp + l->interp_threads))
			return 1;
		f->interps++;
		if (!py_read_ptr(&f->interp, f->interp + l->interp_next))
			f->interp = 0;
		return 0;
	}
	if (!PY_READ(f->w->ts, l->ts_read, f->ts))
		return 1;
	if ((__u32)PY_FIELD(__u64, f->w->ts, l->ts_tid) == f->tid) {
		f->found = f->ts;
		return 1;
	}
	f->ts = PY_FIELD(__u64, f->w->ts, l->ts_next);
	return 0;
}

/*
 * The PyThreadState of thread tid of process pid, read into w->ts; 0 when
 * it has none (a thread that never ran Python, or one that is not set up
 * yet: looked for again after PY_THREAD_RETRY_NS).
 */
static __always_inline __u64 py_thread_state(struct py_walk *w, __u32 pid, __u32 tid)
{
	const struct py_layout *l = &w->proc.l;
	struct py_thread *t, fresh = { .pid = pid };
	struct py_find f = { .w = w, .tid = tid };
	struct py_tstate_slot *slot = NULL;
	struct py_tstates *c;
	__u32 zero = 0;
	__u64 now;

	c = bpf_map_lookup_elem(&py_tstates, &zero);
	if (c) {
		slot = &c->s[tid & (PY_TSTATE_SLOTS - 1)];
		if (slot->tid == tid && slot->pid == pid && slot->tstate &&
		    PY_READ(w->ts, l->ts_read, slot->tstate) &&
		    (__u32)PY_FIELD(__u64, w->ts, l->ts_tid) == tid)
			return slot->tstate;
	}
	t = bpf_map_lookup_elem(&py_threads, &tid);
	if (t && t->pid == pid) {
		if (t->tstate && PY_READ(w->ts, l->ts_read, t->tstate) &&
		    (__u32)PY_FIELD(__u64, w->ts, l->ts_tid) == tid)
			goto found;
		if (!t->tstate && bpf_ktime_get_ns() < t->retry_ns)
			return 0;
	}
	if (!py_read_ptr(&f.interp, w->proc.runtime + l->rt_interps))
		return 0;
	bpf_loop(PY_MAX_THREADS + PY_MAX_INTERPS, py_find_step, &f, 0);
	now = bpf_ktime_get_ns();
	fresh.tstate = f.found;
	fresh.retry_ns = now + PY_THREAD_RETRY_NS;
	bpf_map_update_elem(&py_threads, &tid, &fresh, BPF_ANY);
	if (!f.found)
		return 0;
	/* f found it in w->ts */
	t = &fresh;
found:
	if (slot) {
		slot->tid = tid;
		slot->pid = pid;
		slot->tstate = t->tstate;
	}
	return t->tstate;
}

#include "python/py_names.bpf.h"

/*
 * The run being read ends at ids[nr); its activation lies at mark. A run
 * of no frames is none: an activation entered that runs no code yet, or
 * 3.15's base frame at the bottom of every thread's.
 */
static __always_inline void py_end_run(struct py_walk *w, __u64 mark)
{
	__u32 r = w->runs;

	if (r >= PY_MAX_RUNS || w->nr == (r ? w->ends[(r - 1) & (PY_MAX_RUNS - 1)] : 0))
		return;
	w->marks[r] = mark;
	w->ends[r] = w->nr;
	w->runs = r + 1;
}

/* One frame: its word, then the next. bpf_loop callback. */
static long py_frame_step(__u32 i, void *ctx)
{
	struct py_read *r = ctx;
	struct py_walk *w = py_walk_buf();
	const struct py_layout *l;
	__u64 code, prev, instr, word;
	__u32 n;
	__u8 owner;

	if (!w || !r->frame)
		return 1;
	l = &w->proc.l;
	n = w->nr;
	if (n >= PY_MAX_FRAMES || w->runs >= PY_MAX_RUNS)
		return 1;	/* the caller marks the cut */
	if (!py_read_frame(r->frame, l->fr_read)) {
		r->failed = 1;
		return 1;
	}
	code = PY_FIELD(__u64, w->fr, l->fr_code) & ~(__u64)l->code_tag;
	prev = PY_FIELD(__u64, w->fr, l->fr_previous);
	instr = PY_FIELD(__u64, w->fr, l->fr_instr);
	owner = PY_FIELD(__u8, w->fr, l->fr_owner);
	if (owner == l->owner_shim) {
		/* the eval loop's entry frame, on its C stack: no code of its own */
		py_end_run(w, r->frame);
		r->frame = prev;
		return 0;
	}
	r->frame = prev;
	/* no Python frame: the interpreter's own (3.14's FRAME_OWNED_BY_CSTACK) */
	if (l->owner_shim != PY_NO_OWNER && owner > l->owner_shim)
		return 0;
	r->func = l->fr_func != PY_NO_FIELD ? PY_FIELD(__u64, w->fr, l->fr_func) : 0;
	word = py_frame_word(r, code, instr);
	if (word) {
		w->ids[n & (PY_MAX_FRAMES - 1)] = word;
		w->nr = n + 1;
	}
	if (l->fr_entry != PY_NO_FIELD && PY_FIELD(__u8, w->fr, l->fr_entry)) {
		/*
		 * 3.11: the first frame of its activation, whose _PyCFrame is on
		 * its C stack; the next activation's is read if it has frames
		 */
		py_end_run(w, r->cframe);
		if (!prev || !r->cframe ||
		    !read_stack_word_at(&r->cframe, r->cframe + l->cf_previous, 0))
			r->cframe = 0;
	}
	return 0;
}

/*
 * The Python frames of the sampled thread (tid of pid) into the per-CPU
 * walk, or NULL: not a Python process, no frames, or no Python support
 * in this program. sp: the thread's stack pointer where the walk by
 * tables starts from it, else 0 (read_stack_word_at()).
 */
static __always_inline struct py_walk *py_prepare(__u32 pid, __u32 tid, __u64 sp)
{
	const struct py_proc *p;
	struct py_read r = { .pid = pid };
	const struct py_layout *l;
	struct py_walk *w;
	__u64 ts;

	__u64 epoch = py_epoch;

	if (!py_enabled)
		return NULL;
	w = py_walk_buf();
	if (!w)
		return NULL;
	/* this CPU's copy of pid's entry, or of its absence, if none changed since */
	if (w->proc_pid != pid || w->proc_epoch != epoch + 1) {
		p = bpf_map_lookup_elem(&py_procs, &pid);
		if (p)
			__builtin_memcpy(&w->proc, p, sizeof(w->proc));
		else
			w->proc.gen = 0;
		w->proc_pid = pid;
		w->proc_epoch = epoch + 1;
	}
	if (!w->proc.gen)
		return NULL;
	w->nr = w->runs = w->placed = 0;
	/* another thread's bytes, or this one's at another sample */
	w->blk_len = 0;
	w->stamp++;
	w->cut_run = PY_MAX_RUNS;
	l = &w->proc.l;
	r.gen = w->proc.gen;
	/* before any frame is read: a code object freed after this is not trusted */
	r.watched = py_frees_of(&w->proc, pid, &r.frees);
	ts = py_thread_state(w, pid, tid);
	if (!ts) {
		stat_inc(STAT_PY_NO_THREAD);
		return NULL;
	}
	r.frame = PY_FIELD(__u64, w->ts, l->ts_frame);
	if (l->cf_frame != PY_NO_FIELD) {
		/* the _PyCFrame is on the C stack: with its first block, mostly */
		r.cframe = r.frame;
		if (!r.cframe || !read_stack_word_at(&r.frame, r.cframe + l->cf_frame, sp))
			return NULL;
	}
	if (!r.frame)
		return NULL;	/* not running Python code */
	bpf_loop(PY_MAX_FRAMES + PY_MAX_RUNS, py_frame_step, &r, 0);
	if (r.failed)
		stat_inc(STAT_PY_BAD_FRAME);
	/*
	 * frames left unread: the run they are in is cut there, or, past
	 * PY_MAX_RUNS activations, the last run read ends the stack
	 */
	if (r.frame && !r.failed && w->runs >= PY_MAX_RUNS) {
		stat_inc(STAT_PY_RUNS_CUT);
		w->cut_run = PY_MAX_RUNS - 1;
	} else if (r.frame && !r.failed) {
		stat_inc(STAT_PY_TRUNCATED);
		w->cut_run = w->runs;
	}
	/* an open run (cut, or a chain that ended without its entry) */
	py_end_run(w, l->fr_entry != PY_NO_FIELD ? r.cframe : 0);
	if (!w->nr)
		return NULL;
	stat_inc(STAT_PY_STACKS);
	return w;
}

#include "python/py_place.bpf.h"

#endif /* PYTHON_BPF_H */
