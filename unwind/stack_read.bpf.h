/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stack_read.bpf.h - the BPF side's reads of a sampled thread's stack
 * for the walk by unwind tables, a block at a time. Included by
 * user_stack.bpf.h, which empties the block at each walk.
 */
#ifndef STACK_READ_BPF_H
#define STACK_READ_BPF_H

/*
 * The stack is read a block at a time: one bpf_probe_read_user() costs
 * far more than copying a block (~70 ns, where the search of a frame's
 * row takes ~10), and the frames of a walk lie one above the other. The
 * block of an address is the UNWIND_BLOCK-aligned one that holds it, from
 * the address on: within the page of a word that can be read, it can be
 * read whole. Per CPU; emptied at each walk (it holds the sampled
 * process's bytes, and only for that walk).
 */
#define UNWIND_BLOCK 4096

struct stack_block {
	__u64 start;		/* the user address of buf[0] */
	__u64 len;		/* bytes read; 0: none */
	__u8 buf[UNWIND_BLOCK + 16];	/* + 16: a masked offset never reads past it */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stack_block);
} unwind_block SEC(".maps");

static __always_inline struct stack_block *stack_block(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&unwind_block, &zero);
}

/* What read_stack() reads: a word, or the two words of a saved fp and return address. */
struct stack_words {
	__u64 w[2];
};

/*
 * n bytes (8 or 16) of the sampled thread's memory at addr into v, from
 * the block read last, else after reading the block of addr. A read
 * across the end of a block is read as it is. 1: read, 0: it faulted.
 * A global function, verified once: inlined at each of the walk's reads
 * it tripled the verifier's time (0.25 s more at every start).
 */
static __always_inline int read_direct(struct stack_words *v, bool two, __u64 addr)
{
	/* constant sizes: the verifier wants a bound it can see */
	if (two)
		return !bpf_probe_read_user(v, 16, (const void *)addr);
	return !bpf_probe_read_user(v, 8, (const void *)addr);
}

__noinline int unwind_read_stack(struct stack_words *v, __u32 n, __u64 addr)
{
	struct stack_block *b = stack_block();
	bool two = n == 16;
	__u64 off, len;

	if (!v || (n != 8 && n != 16))
		return 0;
	n = two ? 16 : 8;
	if (!b)
		return read_direct(v, two, addr);
	off = addr - b->start;
	if (b->len < n || off > b->len - n) {
		len = UNWIND_BLOCK - (addr & (UNWIND_BLOCK - 1));
		if (len < n)
			return read_direct(v, two, addr);
		/* the verifier's bound on the size: len is 1..UNWIND_BLOCK */
		barrier_var(len);
		if (len > UNWIND_BLOCK)
			return 0;
		b->len = 0;
		if (bpf_probe_read_user(b->buf, len, (const void *)addr))
			return 0;
		b->start = addr;
		b->len = len;
		off = 0;
	}
	off &= UNWIND_BLOCK - 1;
	if (two)
		__builtin_memcpy(v, b->buf + off, 16);
	else
		__builtin_memcpy(v, b->buf + off, 8);
	return 1;
}

/*
 * Empty the block at the start of a sample's walks: it holds another
 * thread's bytes, or this one's at another sample.
 */
static __always_inline void stack_block_empty(void)
{
	struct stack_block *b = stack_block();

	if (b)
		b->len = 0;
}

/*
 * The word at addr, from the block where it holds it, else read alone:
 * a read that leaves the block as it is, for the Python walk (python.bpf.h),
 * whose words on the C stack (the eval loop's _PyCFrame) mostly lie in
 * the block the walk by tables reads first. With sp (the sampled
 * thread's stack pointer, where that walk starts; 0: none) the block of
 * sp is read first if addr lies in it. 1: read.
 */
static __always_inline bool read_stack_word_at(__u64 *v, __u64 addr, __u64 sp)
{
	struct stack_block *b = stack_block();
	struct stack_words w;
	__u64 off;

	/* in the block of sp: from sp to its end (unwind_read_stack()) */
	if (sp && addr >= sp && (addr | (UNWIND_BLOCK - 1)) == (sp | (UNWIND_BLOCK - 1)) &&
	    (addr & (UNWIND_BLOCK - 1)) <= UNWIND_BLOCK - 8 && unwind_read_stack(&w, 8, sp) &&
	    unwind_read_stack(&w, 8, addr)) {
		*v = w.w[0];
		return true;
	}
	if (b) {
		off = addr - b->start;
		if (b->len >= 8 && off <= b->len - 8) {
			__builtin_memcpy(v, b->buf + (off & (UNWIND_BLOCK - 1)), 8);
			return true;
		}
	}
	return addr && !bpf_probe_read_user(v, sizeof(*v), (const void *)addr);
}

static __always_inline bool read_user_word(__u64 *v, __u64 addr)
{
	struct stack_words w;

	if (!unwind_read_stack(&w, sizeof(*v), addr))
		return false;
	*v = w.w[0];
	return true;
}

/*
 * The two words at addr: the saved fp and, above it, the return address,
 * as a frame-pointer prologue leaves them.
 */
static __always_inline bool read_fp_ra(__u64 *bp, __u64 *ra, __u64 addr)
{
	struct stack_words w;

	if (!unwind_read_stack(&w, sizeof(w), addr))
		return false;
	*bp = w.w[0];
	*ra = w.w[1];
	return true;
}

#endif /* STACK_READ_BPF_H */
