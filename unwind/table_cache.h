/* SPDX-License-Identifier: GPL-2.0 */
/*
 * table_cache.h - unwind tables (cfi_table.h) kept on disk between runs,
 * so that a profile run from cron does not build libc's table every time:
 * reading one back is a read() and a check.
 *
 * One file per table, in a directory that only root can write, nor any
 * directory above it (cache_dir.h), named after what the table was built
 * from, its digest (cfi_table__digest(): a SHA-256 over the bytes of the
 * .eh_frame and .debug_frame its rows come from, their addresses, the
 * machine):
 *
 *   <the digest in 64 hex digits>.v<N>
 *
 * Two files whose sections are the same make the same rows, whoever owns
 * them, so they share an entry; a file changed in any byte a row depends
 * on is another entry, and a file that claims another's build-id (anyone
 * can link one with libc's) is another entry too. Which tables are stored
 * is the caller's choice (unwind_procs.c: root's files only, so that a
 * user cannot fill root's disk).
 *
 * File format (native byte order; struct table_cache_header, then rows):
 *
 *   magic "PRFUNWT\0", version TABLE_CACHE_VERSION, sizeof(struct
 *   unwind_row), the machine the rows are for (EM_X86_64), the size of
 *   the header, the number of rows, the table's statistics, a checksum,
 *   the key in full (so a file renamed onto another name is refused),
 *   then the rows, sorted by pc.
 *
 * The checksum is FNV-1a 64 (fnv.h) a word at a time over the row count,
 * the statistics and the rows: it catches a torn or damaged file, not an
 * attacker (who would need to write to the directory, which only root can).
 *
 * A file is used only when everything holds: a regular file, reached
 * without a symlink, owned by the caller's euid, not writable by group or
 * other, exactly as long as its header says, every header field as this
 * build writes it, the key equal to the one asked for, at most
 * CFI_TABLE_MAX_ROWS rows, the checksum right, and the rows strictly
 * sorted by pc with rules this build knows. Anything else is an error,
 * never a table.
 *
 * A table is written to a fresh temporary file in the directory (O_EXCL,
 * mode 0600), synced, then renamed over its name: a reader sees the old
 * file or the new one, never part of one.
 *
 * The entries together stay under a cap: a store that would pass it first
 * removes the least recently used (a load marks its entry used: its atime
 * set to now) until they fill at most 7/8 of it, then stores. Only names
 * of entries are counted and removed (this version's and earlier ones'),
 * every one relative to the directory opened, none through a symlink.
 */
#ifndef TABLE_CACHE_H
#define TABLE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "unwind/cfi_table.h"

/* 3: named by the table's digest (2: build-id and owner; .debug_frame's rows) */
#define TABLE_CACHE_VERSION 3
#define TABLE_CACHE_MAGIC "PRFUNWT"	/* 8 bytes with its NUL */
/* The digest in hex, ".v", the version, NUL */
#define TABLE_KEY_NAME_MAX (2 * SHA256_LEN + 16)

/* A table's digest (cfi_table__digest()): what it was built from. */
struct table_key {
	uint8_t digest[SHA256_LEN];
};

struct table_cache_header {
	char magic[8];
	uint32_t version;
	uint32_t row_size;
	uint32_t machine;
	uint32_t header_size;
	uint64_t nr_rows;
	struct cfi_table_stats stats;
	uint64_t checksum;
	struct table_key key;
};

struct table_cache_stats {
	uint64_t evicted;	/* entries removed for the cap */
	uint64_t evicted_bytes;
	uint64_t over_cap;	/* tables not stored: larger than the cap alone */
};

struct table_cache;

/* The key's file name (above), NUL-terminated; -ENAMETOOLONG if size is short. */
int table_key__name(const struct table_key *key, char *buf, size_t size);

/*
 * Open the cache directory dir, keeping its entries under max_bytes:
 * first dir and every directory above it are checked (cache_dir__check()),
 * then what is missing is made (dir mode 0700, parents 0755). Refused with
 * -EPERM, why saying which directory and what is wrong with it, when that
 * check fails or dir is a symlink, not a directory, not owned by the
 * caller's euid, or writable by group or other; -errno (why set too) when
 * it cannot be made. Every later file operation is relative to the
 * directory opened here, so a path component swapped afterwards cannot
 * redirect it.
 */
int table_cache__open(const char *dir, uint64_t max_bytes, struct table_cache **out, char *why,
		      size_t why_size);

/*
 * The table of key into t (the caller releases it: cfi_table__release),
 * its entry marked used. Returns 0, -ENOENT when there is none, -EPERM
 * (owner, mode, not a regular file), -ELOOP (a symlink), -EINVAL
 * (contents), -errno. On any error t is empty and the file is left as it
 * is (a store replaces it).
 */
int table_cache__load(struct table_cache *c, const struct table_key *key, struct cfi_table *t);

/*
 * Write t under key, atomically, after evicting what the cap asks. Returns
 * 0, -EFBIG over CFI_TABLE_MAX_ROWS, -ENOSPC when the table alone is over
 * the cap, -errno (-ENOSPC...); on error nothing is left behind.
 */
int table_cache__store(struct table_cache *c, const struct table_key *key,
		       const struct cfi_table *t);

void table_cache__stats(const struct table_cache *c, struct table_cache_stats *st);

void table_cache__free(struct table_cache *c);

#endif /* TABLE_CACHE_H */
