/* SPDX-License-Identifier: GPL-2.0 */
/*
 * budget.h - how much work one file or process named by a sampled process
 * may cost us. Those files (binaries, libraries, debug files, perf maps)
 * can be written by any local user, and we read them as root: every size
 * or count taken from them is checked against a budget before the work is
 * done, and what is over budget is skipped (its frames stay "[file]"),
 * never read in part and trusted.
 *
 * A loader that refuses a file for its budget fails with EFBIG and says
 * why in budget__why(), per thread; a loader that stops because the run
 * is ending (budget->cancel set) fails with ECANCELED.
 */
#ifndef BUDGET_H
#define BUDGET_H

#include <stdbool.h>
#include <stdint.h>

struct budget {
	uint64_t max_crc_bytes;		/* a debuglink candidate read whole for its CRC32 */
	uint64_t max_section_bytes;	/* one section read from a file (.symtab, .strtab) */
	uint64_t max_inflate_bytes;	/* one compressed section, inflated */
	uint64_t max_inflate_ratio;	/* inflated size / size on disk */
	uint64_t max_sections;		/* section headers of one file */
	uint64_t max_symbols;		/* entries of one symbol table */
	uint64_t max_perfmap_bytes;	/* one perf map file */
	uint64_t max_perfmap_entries;	/* entries kept of one perf map */
	uint64_t max_mappings;		/* executable mappings of one reading of a process */
	uint64_t max_fetch_bytes;	/* a debug file fetched from debuginfod */
	/* non-NULL and non-zero: the run is ending, stop and fail with ECANCELED */
	const int *cancel;
	/* non-NULL: a cap on this thread's CPU time, stopping the work as cancel does */
	struct budget_cpu *cpu;
};

/*
 * What one file may cost of the CPU of the thread that reads it: a file
 * within every byte budget can still be made to cost seconds (unwind
 * rules that libdw runs over and over). Looked at by budget__cancelled()
 * at most once a tick of CLOCK_MONOTONIC_COARSE (a few ms), so that the
 * work between two looks is what it passes the cap by.
 */
struct budget_cpu {
	uint64_t cap_ns;	/* 0: none */
	uint64_t start_ns;	/* the thread's CPU clock when the file began */
	uint64_t next_look_ns;	/* CLOCK_MONOTONIC_COARSE */
	bool active;		/* between budget_cpu__start() and _stop() */
	bool over;		/* the cap was reached: the work was stopped */
};

/* A file begins: its CPU counted from now, over cleared. */
void budget_cpu__start(struct budget_cpu *c);
/* It ends: the CPU it took, ns. */
uint64_t budget_cpu__stop(struct budget_cpu *c);
/* Whether the file under way passed the cap (sets c->over). */
bool budget_cpu__over(struct budget_cpu *c);

/*
 * The defaults: generous enough for real programs (a 1 GB browser binary,
 * libxul's symbol table, a JIT's million perf-map entries), small enough
 * that a crafted file costs seconds and hundreds of MB at worst.
 */
#define BUDGET_DEFAULT_INIT {						\
	.max_crc_bytes = 4ull << 30,					\
	.max_section_bytes = 512ull << 20,				\
	.max_inflate_bytes = 256ull << 20,				\
	.max_inflate_ratio = 64,					\
	.max_sections = 1 << 17,					\
	.max_symbols = 8u << 20,					\
	.max_perfmap_bytes = 256ull << 20,				\
	.max_perfmap_entries = 2u << 20,				\
	.max_mappings = 1 << 18,					\
	.max_fetch_bytes = 1ull << 30,					\
}

/* The defaults, for callers that pass no budget. */
const struct budget *budget__default(void);

/* The run is ending, or the file under way passed its CPU cap. */
static inline bool budget__cancelled(const struct budget *b)
{
	if (!b)
		return false;
	if (b->cancel && __atomic_load_n(b->cancel, __ATOMIC_RELAXED))
		return true;
	return b->cpu && b->cpu->active && budget_cpu__over(b->cpu);
}

/*
 * Record why this thread's last loader refused a file ("section .symtab
 * inflates to 1073741824 bytes, over 268435456") and return -EFBIG.
 */
int budget__refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The last reason recorded on this thread, "" when none. */
const char *budget__why(void);
void budget__clear(void);

#endif /* BUDGET_H */
