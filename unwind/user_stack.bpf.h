/* SPDX-License-Identifier: GPL-2.0 */
/*
 * user_stack.bpf.h - the BPF side of unwinding without frame pointers,
 * included by profile.bpf.c after its maps: walk a user stack with the
 * unwind tables userspace loaded for the process (profile.h, unwind_row.h)
 * and keep the frames in the overflow hash, as a stack the stack map
 * refused would be. Nothing per sample crosses to userspace.
 *
 * The process's entry is looked up once per sample, so one walk never
 * mixes two versions of it that userspace published. One step per frame,
 * run by bpf_loop() (Linux 5.17): the mapping of the pc (the frame
 * before's, else a binary search in the process's entry), the row of the
 * pc by its file's page index and a search among the rows of its page,
 * then the caller's pc, sp and fp from the CFA. A pc in a mapping without a table (JIT code, a file without
 * .eh_frame, a file whose table is not built yet: the walk asks for it)
 * is stepped over by its frame pointer. A signal trampoline
 * (__restore_rt) is stepped over by the registers the kernel saved in its
 * frame, so a handler's stack goes on into the code it interrupted. A
 * return address in no mapping, or one the CFI calls undefined (the
 * thread's root), ends the walk.
 *
 * The general registers of the frame being stepped are known where it
 * was interrupted, not called: at the leaf (the sample's registers) and
 * at the frame a signal interrupted (its signal frame's). They are kept
 * per CPU in "unwind_regs" for the rules that read a register other
 * than sp and fp (hand-written assembly, __vfork, gcc's DRAP prologue).
 *
 * Past 600 lines on purpose: it is one walk. Its steps (the mapping, the
 * CFA rules, signal frames, Go's stack switches, asking for tables) share
 * struct unwind_state and are verified together inside bpf_loop(); the
 * row search and the reads of stack memory are already in row_find.bpf.h
 * and stack_read.bpf.h.
 */
#ifndef USER_STACK_BPF_H
#define USER_STACK_BPF_H

#define UNWIND_MAP_SEARCH 7	/* binary search steps: UNWIND_MAX_MAPS <= 128 */
#define UNWIND_MAP_SEARCH_BIG 11	/* UNWIND_MAX_MAPS_BIG <= 2048 */
/*
 * Stack switches a walk may take in Go code (UNWIND_MAP_GO): steps to a
 * lower address, from a system stack to a goroutine's (systemstack,
 * mcall, morestack; a stack may lie anywhere); more is a loop of garbage.
 */
#define UNWIND_GO_SWITCHES 4

/*
 * Where the interrupted registers are in a signal frame, from the sp of
 * its trampoline's frame (x86-64 UAPI): the trampoline's caller's CFA is
 * the struct ucontext of struct rt_sigframe, whose uc_mcontext (struct
 * sigcontext, at 40: uc_flags, uc_link, uc_stack) holds rbp, rsp and rip
 * as its 11th, 16th and 17th words.
 */
#define SIGFRAME_REGS 40
#define SIGFRAME_RIP 16		/* the word after the general registers */

/*
 * The interrupted frame's general registers, by DWARF number
 * (unwind_row.h), and room to read them in the kernel's order first.
 */
struct unwind_regs {
	__u64 r[UNW_NR_REGS];
	union {
		struct pt_regs pt;		/* the sample's, or saved at kernel entry */
		__u64 sig[SIGFRAME_RIP + 1];	/* struct sigcontext: r8-r15 rdi rsi rbp rbx rdx rax rcx rsp rip */
	} raw;
	__u64 missed;	/* this walk met a frame in no mapping of the entry */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unwind_regs);
} unwind_regs SEC(".maps");

struct task_struct;

struct unwind_state {
	__u64 ip, sp, bp;
	__u64 rows_epoch;	/* rows_epoch after the entry was looked up (row_find.bpf.h) */
	struct unwind_proc *p;			/* the process's entry, */
	const struct unwind_proc_big *big;	/* and its big one, or NULL */
	__u32 pid;
	__u32 n;	/* frames written */
	__u32 last_map;	/* the index of the mapping of the frame before */
	bool ret;	/* ip is a return address (else the leaf or an interrupted pc) */
	__u8 switches;	/* stack switches taken in Go code */
	bool cut;	/* ended before the thread's root */
	bool truncated;	/* stopped at the depth limit with callers left */
};

/*
 * The searches are global functions: the verifier checks each once, with
 * unknown arguments, instead of at every state of the frame loop (that
 * took 0.25 s of the program's load). One body for both kinds of entry.
 * The masks tell the verifier nothing new, but they keep the indices'
 * ranges from growing step by step, so that the paths of the search
 * converge and are pruned instead of walked one by one; mask >= cap, so
 * lo - 1 of a lo of 0 masks to no index.
 */
#define FIND_MAPPING(p, cap, mask, steps, ip)					\
	do {									\
		__u32 lo = 0, hi;						\
										\
		_Static_assert((cap) <= (mask), "lo - 1 must mask to no index"); \
		if (!p || p->nr > (cap))					\
			return -1;						\
		hi = p->nr;							\
		for (int i = 0; i < (steps) && lo < hi; i++) {			\
			__u32 mid = (lo + (hi - lo) / 2) & (mask);		\
										\
			if (mid >= (cap))					\
				return -1;					\
			if (p->maps[mid].start <= ip)				\
				lo = mid + 1;					\
			else							\
				hi = mid;					\
		}								\
		lo = (lo - 1) & (mask);						\
		if (lo >= (cap))						\
			return -1;						\
		return ip - p->maps[lo].start < p->maps[lo].len ? (int)lo : -1;	\
	} while (0)

/* The index of the mapping of p that holds ip, or -1. */
__noinline int unwind_find_mapping(const struct unwind_proc *p, __u64 ip)
{
	FIND_MAPPING(p, UNWIND_MAX_MAPS, 127, UNWIND_MAP_SEARCH, ip);
}

__noinline int unwind_find_mapping_big(const struct unwind_proc_big *p, __u64 ip)
{
	FIND_MAPPING(p, UNWIND_MAX_MAPS_BIG, 2047, UNWIND_MAP_SEARCH_BIG, ip);
}

#include "unwind/row_find.bpf.h"
#include "unwind/stack_read.bpf.h"

/* The registers' kernel orders, by DWARF number. */
static __always_inline void regs_from_pt(__u64 *r, const struct pt_regs *p)
{
	r[0] = p->rax, r[1] = p->rdx, r[2] = p->rcx, r[3] = p->rbx;
	r[4] = p->rsi, r[5] = p->rdi, r[6] = p->rbp, r[7] = p->rsp;
	r[8] = p->r8, r[9] = p->r9, r[10] = p->r10, r[11] = p->r11;
	r[12] = p->r12, r[13] = p->r13, r[14] = p->r14, r[15] = p->r15;
}

static __always_inline void regs_from_sigcontext(__u64 *r, const __u64 *s)
{
	r[0] = s[13], r[1] = s[12], r[2] = s[14], r[3] = s[11];
	r[4] = s[9], r[5] = s[8], r[6] = s[10], r[7] = s[15];
	for (int i = 0; i < 8; i++)
		r[8 + i] = s[i];
}

static __always_inline struct unwind_regs *regs_buffer(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&unwind_regs, &zero);
}

/*
 * Register reg of the frame at st, as the rules of its row read it: sp
 * and fp at every frame, the others only at an interrupted one.
 */
/*
 * A global function, verified once (inlined, each of the rules that read
 * a register had its copy verified at every state of the walk): the
 * frame's sp, fp and whether it was called, as values (a pointer to the
 * walk's state would lose its pointers to the verifier).
 */
__noinline int unwind_frame_reg(__u64 sp, __u64 bp, __u32 called, __u32 reg, __u64 *v)
{
	struct unwind_regs *regs;

	if (!v)
		return 0;
	if (reg == UNW_REG_SP) {
		*v = sp;
		return 1;
	}
	if (reg == UNW_REG_FP) {
		*v = bp;
		return 1;
	}
	if (called || reg >= UNW_NR_REGS)
		return 0;
	regs = regs_buffer();
	if (!regs)
		return 0;
	/* the check above tells the verifier nothing once the compiler drops the mask */
	barrier_var(reg);
	*v = regs->r[reg & (UNW_NR_REGS - 1)];
	return 1;
}

static __always_inline bool frame_reg(const struct unwind_state *st, __u32 reg, __u64 *v)
{
	return unwind_frame_reg(st->sp, st->bp, st->ret, reg, v);
}

/*
 * Whether row r reads a register the frame at st does not know: one
 * other than sp and fp, at a frame that called (its registers are the
 * callee's to change). Such a row is walked as one without rules.
 */
static __always_inline bool reads_unknown_reg(const struct unwind_state *st,
					      const struct unwind_row *r)
{
	bool cfa = (r->cfa_rule == UNW_CFA_REG || r->cfa_rule == UNW_CFA_DEREF) &&
		   r->cfa_reg != UNW_REG_SP && r->cfa_reg != UNW_REG_FP;
	bool ra = r->ra_rule == UNW_RA_REG && r->ra_reg != UNW_REG_FP;

	return st->ret && (cfa || ra);
}

/* Whether the caller's pc comes from a register by row r (nothing was pushed). */
static __always_inline bool ra_in_register(const struct unwind_state *st,
					   const struct unwind_row *r)
{
	return r && r->ra_rule == UNW_RA_REG && !reads_unknown_reg(st, r);
}

/*
 * Out of a signal trampoline: the registers the kernel saved when the
 * signal came. The pc they give was interrupted, not a return address.
 */
static __always_inline int signal_frame(struct unwind_state *st, __u64 *sp, __u64 *ip, __u64 *bp)
{
	struct unwind_regs *regs = regs_buffer();

	/* a frame that names itself (a forged ucontext) would repeat to the depth */
	if (!regs || bpf_probe_read_user(regs->raw.sig, sizeof(regs->raw.sig),
					 (const void *)(st->sp + SIGFRAME_REGS)))
		goto cut;
	regs_from_sigcontext(regs->r, regs->raw.sig);
	*ip = regs->raw.sig[SIGFRAME_RIP];
	*sp = regs->r[UNW_REG_SP];
	*bp = regs->r[UNW_REG_FP];
	if (!*ip || (*ip == st->ip && *sp == st->sp))
		goto cut;
	return 0;
cut:
	st->cut = true;
	return 1;
}

/*
 * The CFA and the caller's fp of a frame at st by row r; a frame with no
 * row, or one whose rule reads a register not known here, by its frame
 * pointer. 1: the walk ends here (root, a read that faulted), 0: go on.
 */
static __always_inline int frame_cfa(struct unwind_state *st, const struct unwind_row *r,
				     __u64 *cfa, __u64 *ra, __u64 *bp)
{
	if (!r || r->cfa_rule == UNW_CFA_NONE || reads_unknown_reg(st, r)) {
		*cfa = st->bp + 16;
		if (!st->bp || !read_fp_ra(bp, ra, st->bp))
			goto cut;
		return 0;
	}
	switch (r->cfa_rule) {
	case UNW_CFA_SP:
		*cfa = st->sp + r->cfa_off;
		break;
	case UNW_CFA_FP:
		*cfa = st->bp + r->cfa_off;
		break;
	case UNW_CFA_PLT:
		*cfa = st->sp + 8 + ((st->ip & 15) >= (__u64)r->cfa_off ? 8 : 0);
		break;
	case UNW_CFA_REG:
		if (!frame_reg(st, r->cfa_reg, cfa))
			goto cut;
		*cfa += r->cfa_off;
		break;
	case UNW_CFA_DEREF:
		if (!frame_reg(st, r->cfa_reg, cfa) || !read_user_word(cfa, *cfa + r->deref_off))
			goto cut;
		*cfa += r->deref_add;
		break;
	case UNW_CFA_END:
		return 1;	/* the thread's root */
	default:
		goto cut;
	}
	/* the usual frame: rbp pushed right below the return address */
	if (r->ra_rule == UNW_RA_AT_CFA && r->fp_rule == UNW_FP_AT_CFA &&
	    r->fp_off == r->ra_off - 8) {
		if (!read_fp_ra(bp, ra, *cfa + r->fp_off))
			goto cut;
		return 0;
	}
	if (r->ra_rule == UNW_RA_REG ? !frame_reg(st, r->ra_reg, ra)
				     : !read_user_word(ra, *cfa + r->ra_off))
		goto cut;
	if (r->fp_rule == UNW_FP_AT_CFA && !read_user_word(bp, *cfa + r->fp_off))
		goto cut;
	if (r->fp_rule == UNW_FP_AT_FP && !read_user_word(bp, st->bp + r->fp_off))
		goto cut;
	/* neither a later row's rule nor the frame-pointer walk may use a stale rbp */
	if (r->fp_rule == UNW_FP_UNDEFINED)
		*bp = 0;
	return 0;
cut:
	st->cut = true;
	return 1;
}

/*
 * Go code (UNWIND_MAP_GO): its callers are walked by their frame
 * pointers, which cross the runtime's stack switches; the rows, made
 * from Go's .debug_frame or .gopclntab's pc-to-sp tables (the CFA from
 * rsp, nothing of rbp), are wrong there, and serve only the leaf, which
 * may be in a prologue, or a function without a frame. The roots' END
 * rows still end the walk.
 */
static __always_inline const struct unwind_row *go_row(const struct unwind_state *st,
						       const struct unwind_row *r)
{
	return !st->ret || (r && r->cfa_rule == UNW_CFA_END) ? r : NULL;
}

/*
 * The caller's rbp of a Go leaf stepped by its row: Go saves it at
 * cfa - 16 and points rbp there once the frame is set up. Until then (a
 * prologue), after the epilogue restored it, or in a function without a
 * frame, rbp is still the caller's. 1: the read faulted.
 */
static __always_inline int go_leaf_bp(const struct unwind_state *st, const struct unwind_row *r,
				      __u64 cfa, __u64 *bp)
{
	if (!r || r->cfa_rule != UNW_CFA_SP || r->fp_rule != UNW_FP_SAME || st->bp != cfa - 16)
		return 0;
	return !read_user_word(bp, cfa - 16);
}

/*
 * A request of the unwinder about pid to userspace, through the
 * new-process ring buffer (kind: enum new_pid_kind). 1: sent. A global
 * function: verified once, not at each state of the walk that calls it.
 */
__noinline int unwind_ask(__u32 pid, __u32 kind)
{
	struct new_pid_event *e = bpf_ringbuf_reserve(&new_pids, sizeof(*e), 0);

	if (!e) {
		stat_inc(STAT_NEW_PID_LOST);
		return 0;
	}
	e->pid = pid;
	e->gen = 0;
	e->kind = kind;
	e->uid = (__u32)bpf_get_current_uid_gid();
	bpf_ringbuf_submit(e, 0);
	return 1;
}

/*
 * Note in this CPU's walk that a frame was in no mapping of the entry. A
 * global function, the note in memory: a flag in the walk's state doubles
 * the states verified after it.
 */
__noinline int unwind_note_miss(void)
{
	struct unwind_regs *regs = regs_buffer();

	if (regs)
		regs->missed = 1;
	return 0;
}

/*
 * pc is in no mapping the process had when its tables were loaded: a
 * library loaded since, or JIT code. Ask userspace to read the mappings
 * again, once a second at most.
 */
static __always_inline void ask_reread(__u32 pid, struct unwind_proc *p)
{
	__u64 now = bpf_ktime_get_ns();

	if (now < p->reread_ns)
		return;
	p->reread_ns = now + UNWIND_REREAD_NS;
	unwind_ask(pid, NEW_PID_REREAD);
}

/*
 * pc is in mapping m, whose file's table is not built yet (profile.h,
 * UNWIND_MAP_WANT): its frame goes by its frame pointer (counted), and
 * the worker is asked for the table once (a request lost to a full ring
 * buffer is made again at the next walk that meets it). A global
 * function, and the count in it: a flag in the walk's state kept for the
 * end made the verifier walk every later state twice (+20% of the
 * program's verification).
 */
__noinline int unwind_ask_table(struct unwind_map *m, __u32 pid)
{
	if (!m)
		return 0;
	stat_inc(STAT_UNWIND_WAITED);
	if (m->flags & UNWIND_MAP_ASKED)
		return 0;
	/* the entry's own memory: a CPU that walks it next sees the flag */
	if (unwind_ask(pid, NEW_PID_TABLES))
		m->flags |= UNWIND_MAP_ASKED;
	return 0;
}

/*
 * The mapping of st->ip in the process's entry, or NULL. (The barriers
 * keep the compiler from folding the bounds checks the verifier needs.)
 */
static __always_inline const struct unwind_map *mapping_of(struct unwind_state *st)
{
	const struct unwind_map *m;
	__u32 idx = st->last_map;

	/* most callers are in the callee's file: try its mapping first */
	if (st->big) {
		if (idx < UNWIND_MAX_MAPS_BIG && idx < st->big->nr) {
			m = &st->big->maps[idx];
			if (st->ip - m->start < m->len)
				return m;
		}
		idx = (__u32)unwind_find_mapping_big(st->big, st->ip);
		barrier_var(idx);
		if (idx >= UNWIND_MAX_MAPS_BIG)
			return NULL;
		st->last_map = idx;
		return &st->big->maps[idx];
	}
	if (idx < UNWIND_MAX_MAPS && idx < st->p->nr) {
		m = &st->p->maps[idx];
		if (st->ip - m->start < m->len)
			return m;
	}
	idx = (__u32)unwind_find_mapping(st->p, st->ip);
	barrier_var(idx);
	if (idx >= UNWIND_MAX_MAPS)
		return NULL;
	st->last_map = idx;
	return &st->p->maps[idx];
}

/*
 * The frame recorded at frames[n], whose stack ends at cfa: the next run
 * of Python frames in its place, if it is theirs (python.bpf.h). 1: the
 * walk ends (no room, or the Python frames were cut in this run).
 */
static __always_inline int python_frames(struct unwind_state *st, __u32 n, __u64 cfa)
{
	struct py_walk *w = py_walk_buf();
	__u32 m;

	/* not walking Python frames, or every run placed: no call */
	if (!w || !w->walking || w->placed >= w->runs)
		return 0;
	m = py_at_frame(n, st->ip - (st->ret ? 1 : 0), st->sp, cfa);

	st->n = m & PY_AT_N;
	if (m <= PY_AT_N)
		return 0;
	w->ended = m;
	return 1;
}

/* One frame: record st->ip, step to the caller. bpf_loop callback. */
static long unwind_step(__u32 i, void *ctx)
{
	struct unwind_state *st = ctx;
	__u32 zero = 0, n = st->n;
	__u64 *frames = bpf_map_lookup_elem(&unwind_frames, &zero);
	struct unwind_proc *p = st->p;
	const struct unwind_row *r = NULL;
	const struct unwind_map *m;
	__u64 cfa, ra = 0, bp = st->bp;
	bool go;

	if (!frames || !p)
		return 1;
	/* a caller is left that there is no room for */
	if (n >= stack_depth || n >= MAX_STACK_DEPTH_LIMIT) {
		st->truncated = true;
		return 1;
	}
	frames[n] = st->ip;
	st->n = n + 1;
	m = mapping_of(st);
	if (!m)
		unwind_note_miss();
	/*
	 * A return address in no mapping is garbage, a leaf maybe new code;
	 * unless the entry could not hold every mapping.
	 */
	if (!m && !p->partial) {
		ask_reread(st->pid, p);
		/* a return address; a leaf or an interrupted pc goes on by rbp */
		if (st->ret) {
			st->cut = true;
			return 1;
		}
	}
	/* a return address is looked up at the call: it may end the function */
	if (m && m->nr_rows)
		r = find_row(m->first_row, m->nr_rows, (__u32)(st->ip - m->bias - (st->ret ? 1 : 0)),
			     (__u32)st->rows_epoch);
	else if (m && (m->flags & UNWIND_MAP_WANT))
		unwind_ask_table((struct unwind_map *)m, st->pid);
	go = m && (m->flags & UNWIND_MAP_GO);
	if (go)
		r = go_row(st, r);
	if (r && r->cfa_rule == UNW_CFA_SIGNAL) {
		/* the interrupted frame may be on another stack (sigaltstack) */
		if (signal_frame(st, &cfa, &ra, &bp))
			goto end;
	} else {
		if (frame_cfa(st, r, &cfa, &ra, &bp))
			goto end;
		if (go && !st->ret && go_leaf_bp(st, r, cfa, &bp)) {
			st->cut = true;
			goto end;
		}
		/*
		 * A root says so (UNW_CFA_END, or rbp 0 at the end of a
		 * frame-pointer chain): a return address of 0 is a wrong row
		 * or frame pointer, such as the rows of a file mapped there
		 * before the one that is now.
		 */
		if (!ra) {
			st->cut = true;
			goto end;
		}
		/*
		 * Callers are above: a CFA at or below sp is garbage, and would
		 * loop; below it but for a few stack switches of Go's, at it
		 * only where the return address is in a register.
		 */
		if ((cfa < st->sp && (!go || st->switches >= UNWIND_GO_SWITCHES)) ||
		    (cfa == st->sp && !ra_in_register(st, r))) {
			st->cut = true;
			goto end;
		}
		if (cfa < st->sp)
			st->switches++;
		/* the eval loop's C frame: its Python frames in its place */
		if (py_enabled && python_frames(st, n, cfa))
			return 1;
	}
	st->ret = !(r && r->cfa_rule == UNW_CFA_SIGNAL);
	st->ip = ra;
	st->sp = cfa;
	st->bp = bp;
	return 0;
end:
	/*
	 * Cut inside a mapping with a table: the rows may be another file's
	 * that was mapped there before (dlclose, then dlopen at the same
	 * address). Userspace compares the mappings and reloads if so.
	 */
	if (st->cut && m && m->nr_rows)
		ask_reread(st->pid, p);
	return 1;
}

/*
 * The user registers at the sample, into unwind_regs: the interrupted
 * ones, or those saved at kernel entry (x86-64 UAPI names: the program
 * reads no kernel type).
 */
static __always_inline bool user_regs(struct bpf_perf_event_data *ctx, struct unwind_state *st)
{
	struct unwind_regs *regs = regs_buffer();
	struct pt_regs *kregs;

	if (!regs)
		return false;
	regs->missed = 0;
	if ((ctx->regs.cs & 3) == 3) {
		st->ip = ctx->regs.rip;
		regs_from_pt(regs->r, &ctx->regs);
	} else {
		kregs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
		if (!kregs || bpf_probe_read_kernel(&regs->raw.pt, sizeof(regs->raw.pt), kregs))
			return false;
		regs_from_pt(regs->r, &regs->raw.pt);
		st->ip = regs->raw.pt.rip;
	}
	st->sp = regs->r[UNW_REG_SP];
	st->bp = regs->r[UNW_REG_FP];
	return st->ip;
}

/*
 * Walk the user stack of pid with its tables into unwind_frames (what
 * lies past the frames is the last walk's: count() clears it when it
 * keeps the stack). Returns the number of frames, or -1 when the process has no tables
 * (yet): then its stack is walked by frame pointers. How it was walked
 * goes into *flags (KEY_*). With py, the thread's Python frames take the
 * place of the C frames of the eval loop that run them (python.bpf.h).
 * Runs once per sample, before the map set is chosen, so the verifier
 * sees it once.
 */
static __always_inline int unwind_user(struct bpf_perf_event_data *ctx, __u32 pid, __u32 *flags,
				       bool py)
{
	struct unwind_state st = { .pid = pid };
	struct unwind_regs *regs;
	struct stack_block *block;
	struct py_walk *w;
	__u32 zero = 0;
	__u64 *frames;

	/* py_enabled: known at load, so that without Python none of it is verified */
	w = py_enabled ? py_walk_buf() : NULL;
	if (w) {
		w->walking = py;
		w->ended = 0;
	}

	st.p = bpf_map_lookup_elem(&unwind_procs, &pid);
	if (!st.p || (!st.p->nr && !st.p->big)) {
		stat_inc(STAT_UNWIND_NO_TABLES);
		*flags |= KEY_USER_NO_TABLES;
		return -1;
	}
	if (st.p->big) {
		st.big = bpf_map_lookup_elem(&unwind_procs_big, &pid);
		if (!st.big) {
			/* between the two updates of a publish, or the map full */
			stat_inc(STAT_UNWIND_NO_BIG);
			*flags |= KEY_USER_NO_TABLES;
			return -1;
		}
	}
	/* after the entry: rows it points at were written before this epoch */
	st.rows_epoch = rows_epoch;
	frames = bpf_map_lookup_elem(&unwind_frames, &zero);
	block = stack_block();
	if (!frames || !block || !user_regs(ctx, &st))
		return 0;
	/*
	 * the block was emptied at the sample's start (walk_user()): what it
	 * holds now the Python walk read of this thread's stack
	 */
	/* one step more than frames: it tells a stack cut at the depth */
	bpf_loop(stack_depth + 1, unwind_step, &st, 0);
	stat_inc(STAT_UNWIND_TABLES);
	if (st.cut)
		stat_inc(STAT_UNWIND_CUT);
	if (st.truncated) {
		stat_inc(STAT_UNWIND_TRUNCATED);
		*flags |= KEY_USER_TRUNCATED;
	}
	/*
	 * every frame in a mapping of an entry that holds them all: the
	 * mappings read hold the stack (profile.bpf.c, tally())
	 */
	regs = regs_buffer();
	if (regs && !regs->missed && !st.p->partial && st.n)
		*flags |= KEY_USER_MAPPED;
	/* looked up again: a pointer kept across the loop doubles its states */
	w = py_enabled ? py_walk_buf() : NULL;
	if (!w || !w->walking)
		return st.n;
	if (w->ended & PY_AT_FULL) {
		/* a run that did not fit: the stack is full */
		stat_inc(STAT_UNWIND_TRUNCATED);
		*flags |= KEY_USER_TRUNCATED;
	} else if (w->ended & PY_AT_CUT) {
		/* the Python frames were cut in the run placed last */
		*flags |= KEY_USER_TRUNCATED;
	} else if (!st.truncated) {
		st.n = py_rest(w, st.n, flags);
	}
	return st.n;
}

#endif /* USER_STACK_BPF_H */
