/* SPDX-License-Identifier: GPL-2.0 */
/*
 * py_codes.bpf.h - a Python frame's word by its code object's address,
 * while no code object of its process has been freed since the word was
 * made (for py_names.bpf.h, included there after the reads it uses).
 *
 * Why an address can name a code object here: userspace puts a uprobe
 * on the interpreter's code_dealloc(), PyCode_Type's tp_dealloc
 * (python/py_dealloc.c), before it marks the process's entry watched,
 * and that probe (py_code_freed) moves its process's count in py_frees
 * on before the object's memory can be freed. A code object digested at
 * count c, and met again at address a with the count still c, has not
 * been freed since: it is the same object, whatever the process did to
 * the names it holds (a code object's names never change). Processes
 * share a count where their pids pick the same slot: one's frees make
 * the other's words be read again, never wrong.
 *
 * Only a code object that is alive when it is read is kept. Every frame
 * the walk reaches holds its code object, so that object cannot be freed
 * while the sampled thread is stopped, with one exception: 3.11.0 clears
 * a returning frame while it is still the thread's current one (3.11.1
 * unlinks it first, CPython's gh-99729), and a sample there would keep,
 * under the count already moved, a code object whose memory is then
 * given to another. So in 3.11.0 the current frame's code object is not
 * kept, and in any version one whose reference count is 0 (being freed)
 * is not either.
 */
#ifndef PY_CODES_BPF_H
#define PY_CODES_BPF_H

#define PY_CODE_SLOTS 256	/* a power of 2 */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PY_FREE_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} py_frees SEC(".maps");

struct py_code_slot {
	__u32 pid, gen;
	__u64 code;		/* the code object digested */
	__u64 frees;		/* its process's count of frees then */
	__u64 partial;		/* its word's digest but for the instruction */
	__u64 file;		/* its file name (co_filename), which it holds, */
	struct py_str_info file_info;	/* ... digested */
};

struct py_codes {
	struct py_code_slot s[PY_CODE_SLOTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_codes);
} py_codes SEC(".maps");

/* A code object of the process freed: its interpreter's code_dealloc() is entered. */
SEC("uprobe")
int py_code_freed(void *ctx)
{
	__u32 slot = (__u32)(bpf_get_current_pid_tgid() >> 32) & (PY_FREE_SLOTS - 1);
	__u64 *n = bpf_map_lookup_elem(&py_frees, &slot);

	if (n)
		__sync_fetch_and_add(n, 1);
	return 0;
}

/* The count of code objects pid has freed, into *frees; false: not watched. */
static __always_inline bool py_frees_of(const struct py_proc *p, __u32 pid, __u64 *frees)
{
	__u32 slot = pid & (PY_FREE_SLOTS - 1);
	__u64 *n;

	if (!p->watched)
		return false;
	n = bpf_map_lookup_elem(&py_frees, &slot);
	if (!n)
		return false;
	*frees = *n;
	return true;
}

static __always_inline struct py_code_slot *py_code_slot(const struct py_read *r, __u64 code)
{
	__u32 zero = 0;
	struct py_codes *c = bpf_map_lookup_elem(&py_codes, &zero);
	__u64 h = fnv64_step(fnv64_step(code, r->pid), r->gen);

	return c ? &c->s[(h >> 7) & (PY_CODE_SLOTS - 1)] : NULL;
}

/*
 * The digest of the code object at code from this CPU's slot of it,
 * where the process's count of frees has not moved since; with it,
 * r->file as py_fn_known() sets it.
 */
static __always_inline bool py_code_known(struct py_read *r, __u64 code, __u64 *partial)
{
	struct py_code_slot *s;

	if (!r->watched)
		return false;
	s = py_code_slot(r, code);
	if (!s || s->code != code || s->pid != r->pid || s->gen != r->gen || s->frees != r->frees)
		return false;
	*partial = s->partial;
	r->file = s->file;
	r->file_info = s->file_info;
	return true;
}

/* 3.11.1, the first release whose returning frame is unlinked before it is cleared */
#define PY_UNLINKS_FIRST 0x030b01f0

/* Keep the digest of code, just read in w->co, if it was alive then. */
static __always_inline void py_code_keep(const struct py_read *r, const struct py_walk *w,
					 __u64 code, __u64 partial)
{
	struct py_code_slot *s;

	if (!r->watched || (!w->nr && w->proc.version < PY_UNLINKS_FIRST))
		return;
	/* the low half of its reference count (3.14 keeps flags in the high one) */
	if (!PY_FIELD(__u32, w->co, 0))
		return;
	s = py_code_slot(r, code);
	if (!s)
		return;
	s->pid = r->pid;
	s->gen = r->gen;
	s->code = code;
	s->frees = r->frees;
	s->partial = partial;
	s->file = r->file;
	s->file_info = r->file_info;
}

#endif /* PY_CODES_BPF_H */
