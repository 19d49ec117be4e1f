// SPDX-License-Identifier: GPL-2.0
/*
 * debuginfo.c - find the symbols of stripped ELF files: separate debug
 * files by build-id and .gnu_debuglink (searched as gdb does), and
 * MiniDebugInfo, the xz-compressed ELF with the local function symbols
 * that Fedora and others put in .gnu_debugdata (inflated by
 * debuginfo_xz.c).
 *
 * Everything read here is untrusted: a debug file is used only when its
 * build-id or CRC32 matches, and inflated MiniDebugInfo is capped.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file_stamp.h"
#include "symbols/debuginfo.h"
#include "symbols/elf_plt.h"
#include "symbols/elf_read.h"
#include "symbols/go_symbols.h"
#include "symbols/rootfs.h"

#define DEFAULT_MAX_DEBUGDATA (64u << 20)

const char *debuginfo_source__str(enum debuginfo_source s)
{
	switch (s) {
	case DEBUGINFO_NONE: return "none";
	case DEBUGINFO_SYMTAB: return "symtab";
	case DEBUGINFO_BUILD_ID: return "build-id";
	case DEBUGINFO_DEBUGLINK: return "debuglink";
	case DEBUGINFO_MINIDEBUGINFO: return "minidebuginfo";
	case DEBUGINFO_DEBUGINFOD: return "debuginfod";
	case DEBUGINFO_GOPCLNTAB: return "gopclntab";
	}
	return "?";
}

/* What the search needs to know about the stripped file. */
struct search {
	const struct debuginfo_opts *opts;
	/*
	 * What a debug file found is for: its symbols (into *symbols: the
	 * file is used only if it has a .symtab), else the file alone.
	 */
	struct elf_symtab **symbols;
	const char *path;		/* the binary, as the process sees it */
	struct stat self;		/* not to be taken for its own debug file */
	uint8_t build_id[BUILD_ID_MAX];
	size_t build_id_len;
	const char *link;		/* .gnu_debuglink name, or NULL */
	uint32_t link_crc;
};

static const char *debug_dir(const struct debuginfo_opts *opts, size_t i)
{
	return opts->nr_debug_dirs ? opts->debug_dirs[i] : DEBUGINFO_DEFAULT_DIR;
}

static size_t nr_debug_dirs(const struct debuginfo_opts *opts)
{
	return opts->nr_debug_dirs ? opts->nr_debug_dirs : 1;
}

/* Remember why a candidate that exists was not used, for -v. */
static void refused(struct debuginfo_info *info, const char *path, const char *why)
{
	snprintf(info->refused, sizeof(info->refused), "debug file '%s' not used: %s", path, why);
}

/*
 * Open a candidate below root; full_path gets what was opened. Next to
 * the binary (in a directory its owner may write) no symlink is followed:
 * a link there could name any file of ours. Returns -1 when there is
 * nothing usable at path.
 */
static int open_candidate(const char *root, const char *path, bool untrusted_dir,
			  char *full_path, size_t size, struct stat *sb, struct debuginfo_info *info)
{
	int fd;

	if ((size_t)snprintf(full_path, size, "%s%s", root ? root : "", path) >= size)
		return -1;
	fd = rootfs__open_regular(root, path, untrusted_dir ? ROOTFS_NO_SYMLINKS : 0, sb);
	if (fd == -ELOOP)
		refused(info, full_path, "a symlink where the binary's owner can write");
	else if (fd == -EPERM)
		refused(info, full_path, "not a regular file");
	return fd < 0 ? -1 : fd;
}

/*
 * Whether fd holds a debug file of this binary: not the binary itself,
 * owned by root or by the binary's owner (only by the binary's owner next
 * to it). Build-id candidates must carry the same build-id, debuglink
 * candidates the recorded CRC32.
 */
static bool is_debug_file(const struct search *s, int fd, const struct stat *sb,
			  bool by_build_id, bool untrusted_dir, const char *path,
			  struct debuginfo_info *info)
{
	uint8_t id[BUILD_ID_MAX];
	char why[320];
	uint32_t crc;
	int len, err;

	if (file_stamp__same_file(sb, &s->self))
		return false;
	if (sb->st_uid != s->self.st_uid && (untrusted_dir || sb->st_uid != 0)) {
		snprintf(why, sizeof(why), "owned by uid %u, the binary by uid %u",
			 (unsigned int)sb->st_uid, (unsigned int)s->self.st_uid);
		refused(info, path, why);
		return false;
	}
	if (by_build_id) {
		len = debuginfo__build_id_fd(fd, id, sizeof(id));
		return len == (int)s->build_id_len && !memcmp(id, s->build_id, len);
	}
	err = debuginfo__crc32_fd(fd, s->opts->budget, &crc);
	if (err == -EFBIG)
		refused(info, path, budget__why());
	return !err && crc == s->link_crc;
}

/* Symbols from a debug file: its .symtab, or it is not used. */
static bool use_symbols(const struct search *s, int fd, const char *path,
			struct debuginfo_info *info)
{
	struct elf_symtab *st = elf_symtab__load_fd_budget(fd, s->opts->budget);

	if (!st && errno == EFBIG)
		refused(info, path, budget__why());
	if (st && elf_symtab__kind(st) != ELF_SYMTAB_FULL) {
		elf_symtab__free(st);
		st = NULL;
	}
	*s->symbols = st;
	return st;
}

/* "ab/cdef....debug" from the build-id. */
static void build_id_name(const struct search *s, char *buf, size_t size)
{
	size_t n = 0;

	for (size_t i = 0; i < s->build_id_len && n + 8 < size; i++) {
		n += snprintf(buf + n, size - n, "%02x", s->build_id[i]);
		if (i == 0)
			buf[n++] = '/';
	}
	snprintf(buf + n, size - n, ".debug");
}

/*
 * Whether candidate fd is the debug file: then info says which, and
 * holds it open when asked to.
 */
static bool try_candidate(const struct search *s, int fd, const struct stat *sb,
			  enum debuginfo_source source, bool untrusted_dir, const char *path,
			  struct debuginfo_info *info)
{
	bool used = is_debug_file(s, fd, sb, source == DEBUGINFO_BUILD_ID, untrusted_dir, path,
				  info) &&
		    (!s->symbols || use_symbols(s, fd, path, info));

	if (used && (!s->symbols || s->opts->keep_debug_fd))
		info->debug_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	close(fd);
	if (used) {
		info->source = source;
		snprintf(info->debug_path, sizeof(info->debug_path), "%s", path);
		file_stamp__init(&info->debug_stamp, sb);
	}
	return used;
}

/* Try every candidate below one root, in order; true at the first used. */
static bool search_root(const struct search *s, const char *root, struct debuginfo_info *info)
{
	char rel[PATH_MAX], cand[PATH_MAX], dir[PATH_MAX];
	const char *slash;
	struct stat sb;
	int fd;

	if (s->build_id_len) {
		char name[2 * BUILD_ID_MAX + 16];

		build_id_name(s, name, sizeof(name));
		for (size_t i = 0; i < nr_debug_dirs(s->opts); i++) {
			int n = snprintf(rel, sizeof(rel), "%s/.build-id/%s", debug_dir(s->opts, i), name);

			if (n < 0 || (size_t)n >= sizeof(rel))
				continue;
			fd = open_candidate(root, rel, false, cand, sizeof(cand), &sb, info);
			if (fd >= 0 &&
			    try_candidate(s, fd, &sb, DEBUGINFO_BUILD_ID, false, cand, info))
				return true;
		}
	}
	if (!s->link || !s->path || !(slash = strrchr(s->path, '/')))
		return false;
	if ((size_t)(slash - s->path) >= sizeof(dir))
		return false;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - s->path), s->path);
	for (size_t i = 0; i < 2 + nr_debug_dirs(s->opts); i++) {
		int n;

		if (i == 0)
			n = snprintf(rel, sizeof(rel), "%s/%s", dir, s->link);
		else if (i == 1)
			n = snprintf(rel, sizeof(rel), "%s/.debug/%s", dir, s->link);
		else
			n = snprintf(rel, sizeof(rel), "%s%s/%s", debug_dir(s->opts, i - 2), dir, s->link);
		if (n < 0 || (size_t)n >= sizeof(rel))
			continue;	/* too long to exist */
		fd = open_candidate(root, rel, i < 2, cand, sizeof(cand), &sb, info);
		if (fd >= 0 && try_candidate(s, fd, &sb, DEBUGINFO_DEBUGLINK, i < 2, cand, info))
			return true;
	}
	return false;
}

/* .gnu_debugdata: an xz-compressed ELF whose .symtab adds to .dynsym. */
static struct elf_symtab *load_minidebuginfo(Elf *elf, const struct debuginfo_opts *opts)
{
	size_t cap = opts->max_debugdata ? opts->max_debugdata : DEFAULT_MAX_DEBUGDATA;
	const struct budget *b = opts->budget ? opts->budget : budget__default();
	struct elf_symtab *st = NULL;
	GElf_Shdr shdr;
	Elf_Data *data;
	Elf_Scn *scn;
	size_t len;
	void *buf;
	Elf *mini;

	scn = elf_read__find_section(elf, ".gnu_debugdata", &shdr);
	if (!scn || shdr.sh_type == SHT_NOBITS)
		return NULL;
	if (cap > b->max_inflate_bytes)
		cap = b->max_inflate_bytes;
	if (shdr.sh_size > b->max_section_bytes)
		return NULL;
	data = elf_rawdata(scn, NULL);
	if (!data || !data->d_buf || !data->d_size)
		return NULL;
	if (debuginfo__unxz(data->d_buf, data->d_size, cap, &buf, &len))
		return NULL;
	mini = elf_read__memory(buf, len, b);
	if (mini) {
		st = elf_symtab__load_elf_budget(mini, b);
		elf_end(mini);
	}
	free(buf);
	return st;
}

/*
 * The PLT stubs' names, from the binary itself (a debug file's PLT is
 * NOBITS), merged into st last: a real symbol at a stub's address keeps
 * its name, and the IFUNCs they jump to are named by then. Only a
 * cancelled run fails: stubs that cannot be named print as before, and
 * -v says why when the budget refused them.
 */
static int add_plt(struct elf_symtab *st, Elf *elf, const struct debuginfo_opts *opts,
		   struct debuginfo_info *info)
{
	struct elf_symtab *plt = elf_plt__load(elf, st, opts->budget);

	if (!plt) {
		if (errno == EFBIG && !info->refused[0])
			snprintf(info->refused, sizeof(info->refused), "PLT stubs not named: %s",
				 budget__why());
		return errno == ECANCELED ? -ECANCELED : 0;
	}
	/* -ENOMEM: st as it was, the stubs unnamed */
	elf_symtab__merge(st, plt);
	elf_symtab__free(plt);
	return 0;
}

/* A stripped Go file's functions named from its function table; -v says why not where it has one. */
static struct elf_symtab *add_go(struct elf_symtab *st, Elf *elf,
				 const struct debuginfo_opts *opts, struct debuginfo_info *info)
{
	int err = go_symbols__add(st, elf, opts->budget);

	if (!err)
		info->source = DEBUGINFO_GOPCLNTAB;
	else if (err != -ENOENT && err != -ECANCELED && !info->refused[0])
		snprintf(info->refused, sizeof(info->refused), "Go's function table not read: %s",
			 err == -EFBIG	  ? budget__why()
			 : err == -ENOEXEC ? "its offsets do not hold together"
			 : err == -ENOTSUP ? "a version or machine not read (Go 1.26 on, not x86-64)"
					   : strerror(-err));
	return st;
}

/*
 * The symbols of elf: its own, else those of a debug file or MiniDebugInfo
 * with .dynsym, else a Go file's function table with .dynsym.
 */
static struct elf_symtab *load_symbols(Elf *elf, int fd, const char *path,
				       const struct debuginfo_opts *opts,
				       struct debuginfo_info *info)
{
	struct elf_symtab *st, *extra = NULL;
	struct search s = { .opts = opts, .path = path, .symbols = &extra };
	int len, err;

	st = elf_symtab__load_elf_budget(elf, opts->budget);
	if (!st)
		return NULL;
	len = debuginfo__build_id(elf, s.build_id, sizeof(s.build_id));
	if (len > 0) {
		s.build_id_len = len;
		memcpy(info->build_id, s.build_id, len);
		info->build_id_len = len;
	}
	if (elf_symtab__kind(st) == ELF_SYMTAB_FULL) {
		info->source = DEBUGINFO_SYMTAB;
		return st;
	}
	if (debuginfo__debuglink(elf, &s.link, &s.link_crc))
		s.link = NULL;
	if (fstat(fd, &s.self))
		memset(&s.self, 0, sizeof(s.self));
	/* the process's own files first: its debug files match its binaries */
	if (!(opts->root && *opts->root && search_root(&s, opts->root, info)))
		search_root(&s, NULL, info);
	if (!extra) {
		extra = load_minidebuginfo(elf, opts);
		if (extra)
			info->source = DEBUGINFO_MINIDEBUGINFO;
	}
	if (!extra)
		return add_go(st, elf, opts, info);
	err = elf_symtab__merge(st, extra);
	elf_symtab__free(extra);
	if (err) {
		/* keep what the file itself has */
		info->source = DEBUGINFO_NONE;
		info->debug_path[0] = '\0';
		memset(&info->debug_stamp, 0, sizeof(info->debug_stamp));
		if (info->debug_fd >= 0)
			close(info->debug_fd);
		info->debug_fd = -1;
	}
	return st;
}

static struct elf_symtab *load_elf(Elf *elf, int fd, const char *path,
				   const struct debuginfo_opts *opts, struct debuginfo_info *info)
{
	struct elf_symtab *st = load_symbols(elf, fd, path, opts, info);
	int err;

	if (!st)
		return NULL;
	err = add_plt(st, elf, opts, info);
	if (err) {
		elf_symtab__free(st);
		if (info->debug_fd >= 0)
			close(info->debug_fd);
		info->debug_fd = -1;
		errno = -err;
		return NULL;
	}
	return st;
}

int debuginfo__find_debug_file(Elf *elf, int fd, const char *path,
			       const struct debuginfo_opts *opts, struct debuginfo_info *info)
{
	struct search s = { .opts = opts, .path = path };
	int len;

	memset(info, 0, sizeof(*info));
	info->debug_fd = -1;
	len = debuginfo__build_id(elf, s.build_id, sizeof(s.build_id));
	if (len > 0) {
		s.build_id_len = len;
		memcpy(info->build_id, s.build_id, len);
		info->build_id_len = len;
	}
	if (debuginfo__debuglink(elf, &s.link, &s.link_crc))
		s.link = NULL;
	if (!s.build_id_len && !s.link)
		return -ENOENT;
	if (fstat(fd, &s.self))
		return -errno;
	if (!(opts->root && *opts->root && search_root(&s, opts->root, info)))
		search_root(&s, NULL, info);
	return info->debug_fd >= 0 ? 0 : -ENOENT;
}

struct elf_symtab *debuginfo__load_elf(Elf *elf, int fd, const char *path,
				       const struct debuginfo_opts *opts, struct debuginfo_info *info)
{
	static const struct debuginfo_opts defaults;
	struct debuginfo_info scratch;

	if (!opts)
		opts = &defaults;
	if (!info)
		info = &scratch;
	memset(info, 0, sizeof(*info));
	info->debug_fd = -1;
	return load_elf(elf, fd, path, opts, info);
}

struct elf_symtab *debuginfo__load_fd(int fd, const char *path, const struct debuginfo_opts *opts,
				      struct debuginfo_info *info)
{
	struct elf_symtab *st;
	Elf *elf;
	int err;

	if (info) {
		memset(info, 0, sizeof(*info));
		info->debug_fd = -1;
	}
	elf = elf_read__begin(fd, opts ? opts->budget : NULL);
	if (!elf)
		return NULL;
	st = debuginfo__load_elf(elf, fd, path, opts, info);
	err = errno;
	elf_end(elf);
	errno = err;
	return st;
}

struct elf_symtab *debuginfo__load_file(const char *path, const struct debuginfo_opts *opts,
					struct debuginfo_info *info)
{
	struct elf_symtab *st;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	st = debuginfo__load_fd(fd, path, opts, info);
	err = errno;
	close(fd);
	errno = err;
	return st;
}

/* The full symbol table of debug_fd when it is the debug file of build-id id; NULL, why set. */
static struct elf_symtab *load_matching_debug_fd(int debug_fd, const uint8_t *id, size_t len,
						 const struct budget *b, char *why, size_t size)
{
	uint8_t theirs[BUILD_ID_MAX];
	struct elf_symtab *st;
	struct stat sb;
	int n;

	if (!b)
		b = budget__default();
	if (fstat(debug_fd, &sb) || !S_ISREG(sb.st_mode)) {
		snprintf(why, size, "not a regular file");
		return NULL;
	}
	if ((uint64_t)sb.st_size > b->max_fetch_bytes) {
		budget__refuse("%llu bytes, over the budget of %llu for a fetched debug file",
			       (unsigned long long)sb.st_size,
			       (unsigned long long)b->max_fetch_bytes);
		snprintf(why, size, "%s", budget__why());
		return NULL;
	}
	n = debuginfo__build_id_fd(debug_fd, theirs, sizeof(theirs));
	if (n == -ENOEXEC) {
		snprintf(why, size, "not an ELF file");
		return NULL;
	}
	if (n != (int)len || memcmp(theirs, id, len)) {
		snprintf(why, size, n > 0 ? "its build-id is another file's" : "it has no build-id");
		return NULL;
	}
	st = elf_symtab__load_fd_budget(debug_fd, b);
	if (!st) {
		snprintf(why, size, "%s", errno == EFBIG ? budget__why() : "unreadable symbols");
		return NULL;
	}
	if (elf_symtab__kind(st) != ELF_SYMTAB_FULL) {
		elf_symtab__free(st);
		snprintf(why, size, "it has no .symtab");
		return NULL;
	}
	return st;
}

struct elf_symtab *debuginfo__load_with_debug_fd(int fd, int debug_fd,
						 const struct debuginfo_opts *opts,
						 struct debuginfo_info *info)
{
	static const struct debuginfo_opts defaults;
	struct elf_symtab *st, *extra;
	char why[300] = "";
	Elf *elf;
	int len, err;

	if (!opts)
		opts = &defaults;
	memset(info, 0, sizeof(*info));
	info->debug_fd = -1;
	elf = elf_read__begin(fd, opts->budget);
	if (!elf)
		return NULL;
	st = elf_symtab__load_elf_budget(elf, opts->budget);
	if (!st) {
		err = -errno;
		goto out;
	}
	len = debuginfo__build_id(elf, info->build_id, sizeof(info->build_id));
	if (len <= 0) {
		snprintf(why, sizeof(why), "the binary has no build-id");
		goto refused;
	}
	info->build_id_len = len;
	extra = load_matching_debug_fd(debug_fd, info->build_id, len, opts->budget, why,
				       sizeof(why));
	if (!extra)
		goto refused;
	err = elf_symtab__merge(st, extra);
	elf_symtab__free(extra);
	if (!err)
		err = add_plt(st, elf, opts, info);
	if (err)
		goto out;
	info->source = DEBUGINFO_DEBUGINFOD;
	if (opts->keep_debug_fd)
		info->debug_fd = fcntl(debug_fd, F_DUPFD_CLOEXEC, 0);
	elf_end(elf);
	return st;
refused:
	snprintf(info->refused, sizeof(info->refused), "fetched debug file not used: %s", why);
	err = -EBADMSG;
out:
	elf_symtab__free(st);
	elf_end(elf);
	errno = -err;
	return NULL;
}
