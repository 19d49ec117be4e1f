/* SPDX-License-Identifier: GPL-2.0 */
/*
 * table_cache.h - unwind tables (cfi_table.h) kept on disk between runs,
 * so that a profile run from cron does not build libc's table every time:
 * reading one back is a read() and a check.
 *
 * One file per table, in a directory that only its owner (root) can write;
 * named after the key of the ELF file the table was built from:
 *
 *   id-<build-id in hex>-u<owner uid>[-d].v<N>	the file has a build-id
 *   st-<dev>-<ino>-<size>-<mtime>-<ctime>[-d].v<N>	it has none (times as s.ns)
 *
 * "-d" when the table was built with the file's separate debug file (its
 * .debug_frame), found as its symbols' is (debuginfo.h): installing one
 * later builds the table again.
 *
 * A build-id is only a claim the file makes: anyone can copy libc's into a
 * file of their own. So the key holds the file's owner too, and a user's
 * file never shares an entry with root's. (dev, ino, ctime) name one file:
 * the kernel sets ctime, nobody can choose it, unlike mtime.
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
 */
#ifndef TABLE_CACHE_H
#define TABLE_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "cfi_table.h"

#define TABLE_CACHE_DEFAULT_DIR "/var/cache/profile/unwind"
#define TABLE_CACHE_VERSION 3	/* 2: .debug_frame's rows; 3: register and deref rules, rows from code */
#define TABLE_CACHE_MAGIC "PRFUNWT"	/* 8 bytes with its NUL */
#define TABLE_KEY_ID_MAX 64
/* The longest file name: "st-" and five numbers (two of them s.ns) and ".vN" */
#define TABLE_KEY_NAME_MAX (2 * TABLE_KEY_ID_MAX + 64)

enum table_key_kind {
	TABLE_KEY_BUILD_ID = 1,
	TABLE_KEY_STAT = 2,
};

/* The table read a separate debug file too (its .debug_frame): a key apart. */
#define TABLE_KEY_DEBUG_FILE 1

/*
 * Fixed width, no hidden padding: it is written to disk as it is and
 * compared with memcmp(), so make one only with table_key__init().
 */
struct table_key {
	uint8_t kind;		/* enum table_key_kind */
	uint8_t id_len;		/* TABLE_KEY_BUILD_ID: bytes of id */
	uint16_t flags;		/* TABLE_KEY_* below */
	uint32_t uid;		/* the file's owner */
	uint8_t id[TABLE_KEY_ID_MAX];
	/* TABLE_KEY_STAT; 0 for a build-id */
	uint64_t dev, ino, size;
	int64_t mtime_sec, mtime_nsec;
	int64_t ctime_sec, ctime_nsec;
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

struct table_cache;

/*
 * The key of a file: its build-id when build_id_len > 0 (at most
 * TABLE_KEY_ID_MAX bytes, else -EINVAL), with its owner from st; else
 * st's device, inode, size, mtime and ctime. st is fstat() of the file
 * open for reading, the same descriptor the table is built from.
 */
int table_key__init(struct table_key *key, const void *build_id, size_t build_id_len,
		    const struct stat *st);
/* The key of the ELF file open at fd: reads its build-id (elf_read). */
int table_key__from_fd(int fd, struct table_key *key);
/* The key's file name (above), NUL-terminated; -ENAMETOOLONG if size is short. */
int table_key__name(const struct table_key *key, char *buf, size_t size);

/*
 * Open the cache directory dir, creating it (mode 0700; missing parents
 * 0755). Refused with -EPERM when it is a symlink, not a directory, not
 * owned by the caller's euid, or writable by group or other. Every later
 * file operation is relative to the directory opened here, so a path
 * component swapped afterwards cannot redirect it.
 */
int table_cache__open(const char *dir, struct table_cache **out);

/*
 * The table of key into t (the caller releases it: cfi_table__release).
 * Returns 0, -ENOENT when there is none, -EPERM (owner, mode, not a
 * regular file), -ELOOP (a symlink), -EINVAL (contents), -errno. On any
 * error t is empty and the file is left as it is (a store replaces it).
 */
int table_cache__load(struct table_cache *c, const struct table_key *key, struct cfi_table *t);

/*
 * Write t under key, atomically. Returns 0, -EFBIG over CFI_TABLE_MAX_ROWS,
 * -errno (-ENOSPC...); on error nothing is left behind.
 */
int table_cache__store(struct table_cache *c, const struct table_key *key,
		       const struct cfi_table *t);

void table_cache__free(struct table_cache *c);

#endif /* TABLE_CACHE_H */
