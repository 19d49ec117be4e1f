/* SPDX-License-Identifier: GPL-2.0 */
/*
 * py_funcs.bpf.h - a Python frame's word by the version of the function
 * it runs, for py_names.bpf.h (included there, after the reads it uses):
 * where this CPU digested the names of a frame's code object before, a
 * read of the function's version stands for the reads of the code object
 * and of its names, a sample's costliest.
 *
 * Why that names the frame right, in 3.11 (the layout's fn_version; no
 * other version's): CPython numbers a function object (func_version)
 * when it first specializes a call to it, from one counter of the
 * process that only grows, and stops at 0 rather than wrap; and sets
 * the number back to 0 whenever the function's code changes (its
 * __code__, also its defaults and annotations). So a version is one
 * function object for the life of the process, holding, while it has
 * that version, one code object. A frame holds its function and its
 * code object (f_func, f_code). A frame of version v running the code at
 * the address a slot keeps for v runs the very code object digested
 * there: the function's own, alive while the version is; or, digested
 * from a frame that started before the function's code changed, the
 * code object that frame still holds (at the same address, two frames
 * alive at once hold the same object; a frame started since runs the
 * function's code, at another address). Another code object at that
 * address, once the first is freed, never runs under v.
 *
 * Each CPU keeps the digests it made, in a slot (pid, generation,
 * version) picks, and which functions had no version (called once, or
 * the module's code): those are not read for one again but at one
 * sample in PY_FN_RECHECK. The functions of a module, or of a class,
 * are made one after the other, and lie side by side: where the next
 * frame's function is near this one's, the versions are read a block
 * at a time (PY_FN_BLOCK bytes about this one, within its page), which
 * serves the next frames' while the sample lasts.
 */
#ifndef PY_FUNCS_BPF_H
#define PY_FUNCS_BPF_H

#define PY_FN_SLOTS 256		/* a power of 2 */
#define PY_FN_RECHECK 16	/* a power of 2 */
#define PY_FN_BLOCK 1024	/* a power of 2, at most a page */

struct py_fn_slot {
	__u32 pid, gen;
	__u32 version, pad;
	__u64 code;		/* the code object digested */
	__u64 partial;		/* its word's digest but for the instruction */
	__u64 file;		/* its file name (co_filename), which it holds, */
	struct py_str_info file_info;	/* ... digested */
};

struct py_fns {
	struct py_fn_slot s[PY_FN_SLOTS];
	__u64 unversioned[PY_FN_SLOTS];	/* function objects read with version 0 */
	/* the block of function objects read last, in the sample blk_stamp */
	__u64 blk_stamp, blk_start, blk_len;
	__u8 blk[PY_FN_BLOCK + 8];	/* + 8: a masked read stays within */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_fns);
} py_fns SEC(".maps");

static __always_inline struct py_fn_slot *py_fn_slot(struct py_fns *f, const struct py_read *r)
{
	__u64 h = fnv64_step(fnv64_step(r->version, r->pid), r->gen);

	return &f->s[(h >> 7) & (PY_FN_SLOTS - 1)];
}

/*
 * The function of the frame at addr, where the block of frames read last
 * (py_read_frame()) holds it; else 0.
 */
static __always_inline __u64 py_frame_func(const struct py_walk *w, __u64 addr)
{
	__u64 off = addr - w->blk_start, at = w->proc.l.fr_func;

	if (!addr || off > w->blk_len || w->blk_len - off < at + 8)
		return 0;
	return *(const __u64 *)(w->blk + ((off + at) & (PY_FRAME_BLOCK - 1)));
}

/*
 * The version at addr (a function's func_version) into *v, from this
 * sample's block of functions (stamp), else read: with the block about
 * it when the next frame's version (near; 0: not known) is in that
 * block too, else alone; where not in the block and read is false, not
 * at all. 1: *v set. A global function: verified once.
 */
__noinline int py_fn_version(__u64 addr, __u64 near, __u64 stamp, int read, __u32 *v)
{
	__u64 off, lo, page, len;
	struct py_fns *f;
	__u32 zero = 0;

	f = bpf_map_lookup_elem(&py_fns, &zero);
	if (!f || !v)
		return 0;
	off = addr - f->blk_start;
	if (f->blk_stamp == stamp && off < PY_FN_BLOCK && f->blk_len >= 4 && off <= f->blk_len - 4) {
		*v = *(const __u32 *)(f->blk + (off & (PY_FN_BLOCK - 1)));
		return 1;
	}
	if (!read)
		return 0;
	page = addr & ~4095ull;
	lo = addr - PY_FN_BLOCK / 2;
	if (lo < page || lo > addr)
		lo = page;
	len = page + 4096 - lo;
	if (len > PY_FN_BLOCK)
		len = PY_FN_BLOCK;
	/* the verifier's bound on the size: len is 4..PY_FN_BLOCK */
	barrier_var(len);
	if (near && near != addr && near >= lo && near + 4 <= lo + len && len >= 4 &&
	    len <= PY_FN_BLOCK) {
		f->blk_stamp = 0;
		if (!bpf_probe_read_user(f->blk, len, (const void *)lo)) {
			f->blk_stamp = stamp;
			f->blk_start = lo;
			f->blk_len = len;
			*v = *(const __u32 *)(f->blk + ((addr - lo) & (PY_FN_BLOCK - 1)));
			return 1;
		}
	}
	return !bpf_probe_read_user(v, sizeof(*v), (const void *)addr);
}

/*
 * The digest of the frame's code object (code, its function r->func),
 * from this CPU's slot of its function's version; r->version is the
 * version read (0: none). With it, r->file is the code object's file
 * name, digested: the next frames of the module need not read it.
 */
static __always_inline bool py_fn_known(struct py_read *r, const struct py_walk *w, __u64 code,
					__u64 *partial)
{
	const struct py_layout *l = &w->proc.l;
	__u64 next, *unv;
	struct py_fn_slot *s;
	struct py_fns *f;
	__u32 zero = 0, v = 0;
	bool read;

	r->version = 0;
	if (l->fn_version == PY_NO_FIELD || !r->func)
		return false;
	f = bpf_map_lookup_elem(&py_fns, &zero);
	if (!f)
		return false;
	/* one found without a version is read again at one sample in PY_FN_RECHECK */
	unv = &f->unversioned[(r->func >> 4) & (PY_FN_SLOTS - 1)];
	read = *unv != r->func || !(w->stamp & (PY_FN_RECHECK - 1));
	next = py_frame_func(w, r->frame);
	if (!py_fn_version(r->func + l->fn_version, next ? next + l->fn_version : 0, w->stamp,
			   read, &v))
		return false;
	if (!v) {
		*unv = r->func;
		return false;
	}
	if (*unv == r->func)
		*unv = 0;
	r->version = v;
	s = py_fn_slot(f, r);
	if (s->version != v || s->pid != r->pid || s->gen != r->gen || s->code != code)
		return false;
	*partial = s->partial;
	r->file = s->file;
	r->file_info = s->file_info;
	return true;
}

/* Keep the digest of code, just made, under the version read (py_fn_known()). */
static __always_inline void py_fn_keep(const struct py_read *r, __u64 code, __u64 partial)
{
	struct py_fn_slot *s;
	struct py_fns *f;
	__u32 zero = 0;

	if (!r->version)
		return;
	f = bpf_map_lookup_elem(&py_fns, &zero);
	if (!f)
		return;
	s = py_fn_slot(f, r);
	s->pid = r->pid;
	s->gen = r->gen;
	s->version = r->version;
	s->code = code;
	s->partial = partial;
	s->file = r->file;
	s->file_info = r->file_info;
}

#endif /* PY_FUNCS_BPF_H */
