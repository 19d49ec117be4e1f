/* SPDX-License-Identifier: GPL-2.0 */
/*
 * map_history.h - every executable mapping one process generation has
 * been seen with, across the readings of its /proc/PID/maps.
 *
 * A mapping stays usable after it is gone (a library dlclose()d between
 * two readings still names the samples taken in it). Where two mappings
 * cover an address (the range was reused by another file), the one seen
 * by the reading closest in time to the sample wins.
 */
#ifndef MAP_HISTORY_H
#define MAP_HISTORY_H

#include <stddef.h>
#include <stdint.h>

/* Mappings gone from the latest reading that are kept, per generation. */
#define MAP_HISTORY_MAX_GONE 4096

struct module;	/* usyms_internal.h: a mapped file and its symbols */

enum umap_kind { UMAP_FILE, UMAP_VDSO, UMAP_ANON };

/* One executable mapping, compact: the path lives in the module. */
struct umap {
	uint64_t start, end, offset;
	struct module *mod;		/* NULL for UMAP_ANON */
	enum umap_kind kind;
	uint64_t seen_ns, last_ns;	/* first and last reading that had it (CLOCK_MONOTONIC) */
};

struct map_history {
	struct umap *cur;		/* the latest reading: sorted by start, disjoint */
	size_t nr_cur;
	struct umap *gone;		/* earlier mappings since unmapped: sorted by start */
	size_t nr_gone, cap_gone;
	uint64_t nr_dropped;		/* gone mappings forgotten beyond MAP_HISTORY_MAX_GONE */
};

/*
 * Take a reading made at now_ns: maps (sorted by start, disjoint, seen_ns
 * and last_ns unset) becomes the current set and is owned by h from now
 * on, also on failure. Mappings of the previous reading that it lacks are
 * kept as gone. Returns 0 or -ENOMEM (the reading is then taken without
 * the previous one's gone mappings).
 */
int map_history__update(struct map_history *h, struct umap *maps, size_t nr, uint64_t now_ns);

/* A reading at now_ns found just the current set again: it is seen until then. */
void map_history__seen_again(struct map_history *h, uint64_t now_ns);

/*
 * The mapping that held addr when a sample was taken somewhere in
 * [from_ns, to_ns]; NULL when none ever did.
 */
const struct umap *map_history__find(const struct map_history *h, uint64_t addr, uint64_t from_ns,
				     uint64_t to_ns);

/* Mappings held, current and gone. */
size_t map_history__size(const struct map_history *h);

void map_history__release(struct map_history *h);

#endif /* MAP_HISTORY_H */
