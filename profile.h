/* SPDX-License-Identifier: GPL-2.0 */
/*
 * profile.h - what the BPF program shares with userspace: the key of the
 * count hash and the indices of the per-CPU statistics array. Fixed-width
 * types only; no pointers.
 */
#ifndef PROFILE_H
#define PROFILE_H

#define TASK_COMM_LEN 16
#define MAX_FILTER_IDS 1024
/* -- CMD: processes of the command alive at once, and tasks forked not yet sampled */
#define FOLLOW_MAX_PROCS 16384
#define FOLLOW_MAX_FORKED 16384
#define MAX_PID_GENS 65536	/* sampled processes alive at once with a generation */
#define MAX_STACK_DEPTH_LIMIT 1024	/* --perf-max-stack-depth upper bound */
#define MAX_CGROUP_FILTERS 64	/* --cgroup paths */

/*
 * A stack the STACK_TRACE map could not keep (its hash bucket holds another
 * stack, or the map is full) is stored in the "overflow" hash instead; its
 * id is then STACK_ID_OVERFLOW. The key is a hash of its frames, or one of
 * the next few keys when other stacks hold that one (profile.bpf.c): the
 * frames are compared, two stacks are never merged. Keys are opaque to
 * userspace and never 0.
 */
#define STACK_ID_OVERFLOW (-4096)

/* profile_key.flags: how the user stack was walked */
#define KEY_USER_TRUNCATED 1	/* the table walk stopped at the depth limit, callers left */
#define KEY_USER_NO_TABLES 2	/* by frame pointers: the process had no unwind tables (yet) */
/* counts nanoseconds off CPU (--off-cpu, --wall), not samples; never in an aggregate's key */
#define KEY_OFF_CPU 4
/*
 * Inside the BPF program only, taken off before the key is counted: the
 * table walk found each frame in a mapping of the process's entry, which
 * holds them all (unwind/user_stack.bpf.h).
 */
#define KEY_USER_MAPPED 0x80000000u

struct profile_key {
	__u32 pid;		/* tgid */
	__u32 tid;		/* 0 unless thread filtering (-L) asked for it */
	__u32 gen;		/* generation of pid's mappings (see pid_gen); 0: unknown */
	__s32 kern_stack_id;	/* < 0: -errno from bpf_get_stackid, -1 if not taken, */
	__s32 user_stack_id;	/*      or STACK_ID_OVERFLOW */
	__u32 flags;		/* KEY_* */
	__u64 kern_overflow;	/* overflow key when kern_stack_id == STACK_ID_OVERFLOW */
	__u64 user_overflow;
	__u64 cgroup_id;	/* cgroup v2 id (--by-container); 0: not asked for */
	char comm[TASK_COMM_LEN];
};

/*
 * Counts not yet in the count hash, per CPU and map set: the keys a CPU
 * counted last, each in a slot its hash picks, with the samples counted
 * since it went there. A sample of a key in its slot is counted there,
 * in memory only its CPU touches, without a lookup in the count hash
 * (a few hundred ns of misses at every sample); a key that takes a slot
 * moves the one there into the count hash. A key goes into a slot only
 * once it is in the count hash, so the drain adds a slot's samples to a
 * key it read there (collect/map_drain.c).
 */
#define COUNT_CACHE_SLOTS 128	/* a power of 2 */

struct count_slot {
	struct profile_key key;
	__u64 n;		/* samples of key not in the count hash */
	__u64 used;		/* 0: no key here */
};

struct count_cache {
	struct count_slot s[COUNT_CACHE_SLOTS];
};

/*
 * A pid's mappings change at exec, and a pid that exits and is reused is
 * another process: each such state is a generation, numbered from 1 by
 * the BPF side in the order it first samples them (unique within a run).
 * Samples are counted under their generation, so each is resolved against
 * the mappings read while that generation lived.
 */
struct pid_gen {
	__u32 gen;
	__u32 announced;	/* new_pid_events sent for this generation */
	__u64 next_ns;		/* bpf_ktime_get_ns(): when it may be announced again */
};

/*
 * Sent through the "new_pids" ring buffer when a generation is first
 * sampled, and again at its new stacks 1, 4, 16, 64 ms ... later (x4 each
 * time): its dynamic loader maps libraries after the first sample, and a
 * short-lived process must be read again before it is gone. Not again at
 * a stack the table walk found whole in the mappings read (KEY_USER_MAPPED):
 * a frame in none of them asks for a reading itself (NEW_PID_REREAD). The
 * unwinder sends its own requests the same way (gen 0, kind saying which).
 */
#define ANNOUNCE_FIRST_NS 1000000ULL
#define ANNOUNCE_MAX_SHIFT 24	/* at most every 2^24 ms, ~4.7 h */
enum new_pid_kind {
	NEW_PID_GEN,		/* a generation sampled (gen) */
	NEW_PID_REREAD,		/* the unwinder met an address in no mapping it knows */
	NEW_PID_TABLES,		/* ... a mapping whose table is not loaded (UNWIND_MAP_WANT) */
};
struct new_pid_event {
	__u32 pid;
	__u32 gen;		/* NEW_PID_GEN's; 0 for the unwinder's requests */
	__u32 kind;		/* enum new_pid_kind */
	__u32 uid;		/* the sampled task's (real, init namespace's): whose turn it is */
};

/*
 * Unwinding without frame pointers (unwind/): the executable mappings of
 * a process, sorted by start, each naming its file's table's rows in the
 * "unwind_rows" array (unwind_row.h). A pc in [start, start + len) is at
 * ELF address pc - bias in its file.
 *
 * A process's entry in "unwind_procs" holds up to UNWIND_MAX_MAPS of
 * them; one with more has them all in "unwind_procs_big" (browsers, JVMs,
 * Python with hundreds of extension modules), its small entry saying so.
 */
#define UNWIND_MAX_MAPS 120	/* in a process's entry: the value fits 4 KiB */
#define UNWIND_MAX_MAPS_BIG 2000	/* in its big entry: 64 KiB */
#define UNWIND_MAPS_PER_FILE 4	/* of one file: text segments, not 60,000 copies */
#define UNWIND_MAX_PROCS 8192	/* processes with tables at once */
#define UNWIND_MAX_BIG_PROCS 512	/* ... of them with a big entry */
struct unwind_map {
	__u64 start;
	__u64 bias;
	__u32 len;		/* bytes; a longer mapping is cut (partial) */
	__u32 first_row;	/* index in unwind_rows */
	__u32 nr_rows;		/* 0: no table, walk this frame by its frame pointer */
	__u32 flags;		/* UNWIND_MAP_* */
};

/*
 * Go code (unwind/go_runtime.h): its rows serve the leaf frame only, its
 * callers are walked by their frame pointers, which cross the runtime's
 * stack switches (systemstack, mcall) that its unwind information does
 * not describe; a stack switch may step to a lower address.
 */
#define UNWIND_MAP_GO 1
/*
 * Tables are built when a walk first meets their file: a mapping of a
 * file whose table is not built yet has no rows and this flag. Its frames
 * go by frame pointers; the first walk that meets it sets
 * UNWIND_MAP_ASKED and sends NEW_PID_TABLES, so the worker builds the
 * tables of the mappings asked for and publishes the entry again (with
 * ASKED cleared where the table could not be had). Once per mapping of an
 * entry: exec and exit delete the entry, so once per generation.
 */
#define UNWIND_MAP_WANT 2
#define UNWIND_MAP_ASKED 4

/*
 * Every executable mapping of the process, tables or not: a return
 * address in none of them is garbage, and ends the walk. nr 0 and big 0:
 * a placeholder while the tables are built (frame pointers meanwhile);
 * exec and exit delete the entry (and its big one), and userspace
 * publishes only over an entry that is still there, so tables of an
 * image gone are never used.
 */
struct unwind_proc {
	__u32 nr;		/* maps[] in use */
	__u8 big;		/* the maps are in unwind_procs_big's entry instead */
	__u8 partial;		/* more executable mappings than fit: a miss is no garbage */
	__u16 pad;
	__u64 reread_ns;	/* bpf_ktime_get_ns(): when a miss may ask for a re-read */
	struct unwind_map maps[UNWIND_MAX_MAPS];
};

struct unwind_proc_big {
	__u32 nr;
	__u32 pad;
	struct unwind_map maps[UNWIND_MAX_MAPS_BIG];
};
#define UNWIND_REREAD_NS 1000000000ULL	/* at most one re-read request a second */

/*
 * Off-CPU time (--off-cpu, --wall; collect/offcpu.bpf.h). When a thread
 * leaves the CPU to wait, its count key is made there (its stacks kept
 * in the live map set, the key counted with nothing yet) and kept in
 * "offcpu_start" under its task (the task_struct's address, an opaque
 * key) with the time and the flip it was made in. When it runs again,
 * the time it was off is added to the key, in the same set while no flip
 * came between. Otherwise the set its stacks are in has been drained:
 * the time goes to "offcpu_late" under (task, start), and userspace
 * counts it with the stacks it read of the thread's start at that drain
 * (collect/offcpu_drain.h).
 */
struct offcpu_start {
	struct profile_key key;	/* its stacks in set seq & 1 */
	__u64 ns;		/* bpf_ktime_get_ns() when it left the CPU */
	__u32 seq;		/* "active" then */
	__u32 pad;
};

struct offcpu_late_key {
	__u64 task;
	__u64 ns;		/* offcpu_start.ns: a task's blocks told apart */
};

struct offcpu_late {
	struct profile_key key;	/* as in offcpu_start */
	__u64 off_ns;		/* how long it was off the CPU */
	__u32 seq;
	__u32 pad;
};

/* task_struct.__state bits (include/linux/sched.h, stable since 2.6) */
#define OFFCPU_TASK_INTERRUPTIBLE 0x1
#define OFFCPU_TASK_UNINTERRUPTIBLE 0x2

/* Indices into the per-CPU "stats" array. */
enum profile_stat {
	STAT_SAMPLES,		/* samples that passed the filters */
	STAT_KSTACK_OVERFLOW,	/* kernel stack kept in the overflow map */
	STAT_KSTACK_LOST,	/* kernel stack kept nowhere */
	STAT_USTACK_OVERFLOW,
	STAT_USTACK_LOST,
	STAT_HASH_FULL,		/* sample dropped: count hash full */
	STAT_NEW_PID_LOST,	/* new-process notice lost: ring buffer full */
	STAT_GEN_FULL,		/* sample counted without a generation: pid_gen map full */
	STAT_EXECS,		/* execs of sampled processes: new generations */
	STAT_UNWIND_TABLES,	/* user stacks walked with unwind tables */
	STAT_UNWIND_NO_TABLES,	/* ... by frame pointers: the process had no tables (yet) */
	STAT_UNWIND_CUT,	/* table walks that ended before the thread's root */
	STAT_UNWIND_TRUNCATED,	/* table walks stopped at the depth limit */
	STAT_UNWIND_NO_BIG,	/* by frame pointers: the big entry was missing */
	STAT_UNWIND_WAITED,	/* frames of table walks by their frame pointer: their table not built yet */
	STAT_PY_STACKS,		/* user stacks with Python frames */
	STAT_PY_NO_THREAD,	/* samples of a Python process's thread without a thread state */
	STAT_PY_TRUNCATED,	/* Python walks stopped at PY_MAX_FRAMES */
	STAT_PY_BAD_FRAME,	/* Python walks that met a frame they could not read */
	STAT_PY_UNPLACED,	/* ... with frames after the native walk's end: it missed their C frame */
	STAT_PY_NAMES_LOST,	/* names not sent: the py_names ring buffer was full */
	STAT_PY_RUNS_CUT,	/* Python walks stopped at PY_MAX_RUNS activations */
	STAT_FOLLOW_LOST,	/* -- CMD: forks of its processes not followed (a map full) */
	STAT_SELF,		/* samples of profile itself, left out (not in STAT_SAMPLES) */
	STAT_OFFCPU_BLOCKS,	/* waits whose start was noted (--off-cpu, --wall) */
	STAT_OFFCPU_NS,		/* ns off CPU of the waits that ended, kept or not */
	STAT_OFFCPU_UNTIMED,	/* waits not timed: offcpu_start full */
	STAT_OFFCPU_LOST_NS,	/* ns not counted: count hash or offcpu_late full */
	STAT_OFFCPU_FILTERED,	/* waits outside --min-block/--max-block */
	STAT_OFFCPU_FILTERED_NS,
	STAT_OFFCPU_LATE,	/* waits that ended after a flip: counted by userspace */
	STAT_MAX,
};

#endif /* PROFILE_H */
