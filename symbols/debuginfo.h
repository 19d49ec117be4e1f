/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debuginfo.h - the symbols of an ELF file wherever they are: its own
 * .symtab; for a stripped file, a separate debug file found the way gdb
 * finds it (build-id, then .gnu_debuglink), else its MiniDebugInfo
 * (.gnu_debugdata); and .dynsym in any case.
 *
 * Where a separate debug file is looked for, in order, each path first
 * below the process's root (opts->root) and then below ours:
 *
 *   <debug-dir>/.build-id/xx/yyyy.debug      build-id (first byte, rest), any match
 *   <dir>/<debuglink>                        next to the binary (same CRC32)
 *   <dir>/.debug/<debuglink>
 *   <debug-dir>/<dir>/<debuglink>
 *
 * where <dir> is the directory of the binary as the process sees it and
 * <debug-dir> each --debug-dir in order (default /usr/lib/debug). A debug
 * file's symbols are translated through the binary's own PT_LOAD segments:
 * both carry the same link-time addresses.
 *
 * The binary and the directory it is in may belong to any user, so a
 * candidate is used only when it is a regular file (checked before it is
 * opened: rootfs__open_regular), owned by root or by the binary's owner
 * and, next to the binary, by the binary's owner and reached through no
 * symlink; a debuglink candidate is checksummed only within the budget.
 */
#ifndef DEBUGINFO_H
#define DEBUGINFO_H

#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/file_stamp.h"
#include "symbols/budget.h"
#include "symbols/elf_symtab.h"

#define DEBUGINFO_DEFAULT_DIR "/usr/lib/debug"
#define BUILD_ID_MAX 64		/* GNU ld writes 20 bytes (sha1); allow longer */

struct debuginfo_opts {
	const char *root;		/* the process's "/", e.g. "/proc/42/root"; NULL: ours only */
	const char *const *debug_dirs;	/* NULL or none: DEBUGINFO_DEFAULT_DIR */
	size_t nr_debug_dirs;
	size_t max_debugdata;		/* cap on inflated MiniDebugInfo; 0: 64 MiB */
	const struct budget *budget;	/* NULL: the default budget */
	/* hand back the debug file used, open, in info->debug_fd (for --lines) */
	bool keep_debug_fd;
};

enum debuginfo_source {
	DEBUGINFO_NONE,		/* stripped, nothing found: .dynsym at most */
	DEBUGINFO_SYMTAB,	/* the file's own .symtab */
	DEBUGINFO_BUILD_ID,	/* a debug file found by build-id */
	DEBUGINFO_DEBUGLINK,	/* a debug file found by .gnu_debuglink */
	DEBUGINFO_MINIDEBUGINFO,	/* .gnu_debugdata */
	DEBUGINFO_DEBUGINFOD,	/* a debug file fetched by build-id (debuginfod_fetch.h) */
	DEBUGINFO_GOPCLNTAB,	/* none of those: a Go file's function table (go_symbols.h) */
};

struct debuginfo_info {
	enum debuginfo_source source;
	uint8_t build_id[BUILD_ID_MAX];
	size_t build_id_len;		/* 0: the file has none */
	char debug_path[PATH_MAX];	/* the debug file opened, "" when none */
	/* that file as it was checked (a build-id or debuglink hit), else zeros */
	struct file_stamp debug_stamp;
	/*
	 * With opts->keep_debug_fd, that file as it was checked, open (the
	 * caller closes it): never reopen it by path, which may name another
	 * file by now. -1 when none.
	 */
	int debug_fd;
	/* a candidate that was there but refused, and why ("" when none): for -v */
	char refused[PATH_MAX + 256];
};

/*
 * Load the symbols of the ELF file open at fd. path is the file's path as
 * the process sees it (the directory .gnu_debuglink is relative to); NULL
 * skips the debuglink search. info may be NULL. Returns NULL with errno
 * set as elf_symtab's loaders do (ENOEXEC: not ELF).
 */
struct elf_symtab *debuginfo__load_fd(int fd, const char *path, const struct debuginfo_opts *opts,
				      struct debuginfo_info *info);
struct elf_symtab *debuginfo__load_file(const char *path, const struct debuginfo_opts *opts,
					struct debuginfo_info *info);
/* The same from elf, the caller's open handle of the file at fd. */
struct elf_symtab *debuginfo__load_elf(Elf *elf, int fd, const char *path,
				       const struct debuginfo_opts *opts, struct debuginfo_info *info);

/*
 * The separate debug file of the ELF file elf, open at fd (path as the
 * process sees it, NULL: no debuglink search), found and checked as for
 * its symbols, but used whatever it holds (the unwind tables read its
 * .debug_frame): open in info->debug_fd, which the caller closes. Returns
 * 0, or -ENOENT when there is none (info->refused may say why one was
 * not used).
 */
int debuginfo__find_debug_file(Elf *elf, int fd, const char *path,
			       const struct debuginfo_opts *opts, struct debuginfo_info *info);

/*
 * The symbols of the ELF file open at fd with those of debug_fd, a debug
 * file that came from elsewhere (a debuginfod server), taken as a build-id
 * hit under --debug-dir is: only when it carries fd's build-id and a full
 * .symtab, read through the same budgeted reader. info->source is then
 * DEBUGINFO_DEBUGINFOD (with opts->keep_debug_fd, info->debug_fd a
 * duplicate of debug_fd). NULL with errno: EBADMSG when debug_fd is not
 * fd's debug file (info->refused says why), else as debuginfo__load_fd().
 */
struct elf_symtab *debuginfo__load_with_debug_fd(int fd, int debug_fd,
						 const struct debuginfo_opts *opts,
						 struct debuginfo_info *info);

/* The building blocks, on an open libelf handle or file descriptor. */

/* NT_GNU_BUILD_ID into id; returns its length, or -ENOENT. */
int debuginfo__build_id(Elf *elf, uint8_t *id, size_t cap);
int debuginfo__build_id_fd(int fd, uint8_t *id, size_t cap);
/* .gnu_debuglink: the file name (points into elf's data) and its CRC32. -ENOENT when none. */
int debuginfo__debuglink(Elf *elf, const char **name, uint32_t *crc);
/*
 * zlib's CRC32 of a whole file, as .gnu_debuglink records it: a regular
 * file of at most b->max_crc_bytes (NULL: the default budget). Returns 0,
 * -EPERM (not a regular file), -EFBIG (too big), -ECANCELED, -errno.
 */
int debuginfo__crc32_fd(int fd, const struct budget *b, uint32_t *crc);
/*
 * Inflate an xz stream (MiniDebugInfo) into a malloc'ed buffer of at most
 * cap bytes. Returns 0, -EFBIG past cap, -EINVAL for corrupt data, -ENOMEM.
 */
int debuginfo__unxz(const void *in, size_t len, size_t cap, void **out, size_t *out_len);

const char *debuginfo_source__str(enum debuginfo_source s);

#endif /* DEBUGINFO_H */
