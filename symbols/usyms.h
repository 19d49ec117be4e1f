/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usyms.h - user-space symbolization for many processes.
 *
 * usyms__add_gen() reads a process's executable mappings and opens every
 * file they map, right away, so its frames resolve after it has exited;
 * the files' symbols are read then too, or, with opts->async, on a loader
 * thread (usyms__wait() before resolving). A process is seen as generations (profile.h: a new one at each
 * exec, and when a pid is reused); each keeps every mapping any of its
 * readings saw (map_history.h), so a library dlclose()d later still names
 * the samples taken in it. Symbol tables are shared between processes, and
 * between files only when everything they are read from is the same (a
 * digest of the file's symbol tables and headers, and the debug file
 * read: a container's libc that is the host's is read once; a file that
 * merely claims its build-id is not); a file found changed since it was
 * opened (rewritten in place, or another file at a reused inode) is read
 * again for the processes that map it from then on. Per process only its
 * mapping list is kept, about 40 bytes per executable mapping.
 *
 * Where symbols are looked for, per address:
 *  - a file mapping: the file as the process sees it (/proc/PID/root/<path>
 *    if it is still the inode mapped, else /proc/PID/map_files/, else our
 *    <path> if still the same inode); its .symtab, else a separate debug
 *    file (see debuginfo.h for the search), else its MiniDebugInfo, else
 *    (with opts->fetch) one fetched by build-id from debuginfod once it
 *    lands, and .dynsym;
 *  - [vdso]: our own vDSO image;
 *  - anonymous executable memory, or an address outside every mapping
 *    read: the JIT's /tmp/perf-PID.map (see perfmap.h); an address it
 *    does not name either has the process's maps read again (a library
 *    dlopen()ed since), at most once between two usyms__prune() and
 *    within a share of the CPU.
 * C++ and Rust names are demangled (unless opts->demangle is false) once
 * per symbol, when first asked for. With opts->lines, source lines come
 * from the DWARF of the file or of its separate debug file, once per
 * address.
 *
 * Callers resolving a stack should pass return addresses (every frame but
 * the leaf) minus one: that byte is still in the call instruction, so the
 * line and the function are the caller's, also when the call is the last
 * instruction of its function.
 */
#ifndef USYMS_H
#define USYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "symbols/budget.h"
#include "symbols/debuginfod_fetch.h"

struct proc_maps;
struct usyms;

/*
 * A file skipped or cut for a budget, or a debug file refused: path as the
 * process sees it (any bytes: escape it), why in words. Called from the
 * loader thread when there is one.
 */
typedef void (*usyms_notice_fn)(const char *path, const char *why, void *ctx);

struct usyms_opts {
	const char *proc_root;		/* where /proc is (tests point it elsewhere); NULL: "/proc" */
	const char *const *debug_dirs;	/* --debug-dir, in order; none: /usr/lib/debug */
	size_t nr_debug_dirs;
	bool demangle;			/* C++/Rust names made readable */
	bool lines;			/* --lines: source lines and inlined functions from DWARF */
	/*
	 * Read symbol tables and perf maps on a thread of their own: the
	 * caller's thread only opens files (while the process lives) and
	 * queues them; usyms__wait() before resolving. Without it they are
	 * read on the caller's thread, during the call that finds them.
	 */
	bool async;
	const struct budget *budget;	/* NULL: the default (budget.h) */
	/*
	 * With async: fetch the debug file of a stripped file that has none
	 * on disk (no .symtab, debug file or MiniDebugInfo) by its build-id
	 * from debuginfod servers (debuginfod_fetch.h; its landed and ctx are
	 * ours). Until one lands the file is named by .dynsym; a file that
	 * lands before its frames are resolved names them as a debug file
	 * under --debug-dir would. NULL: never.
	 */
	const struct debuginfod_fetch_opts *fetch;
	usyms_notice_fn notice;		/* NULL: none */
	void *notice_ctx;
};

/* Why a frame has no name; USYM_RESOLVED when it has one. */
enum usym_reason {
	USYM_RESOLVED = 0,
	USYM_PROCESS_GONE,	/* the process exited (or exec'd) before its mappings were read */
	USYM_NO_MAPPING,	/* the address is in no executable mapping (and no perf map names it) */
	USYM_UNREADABLE,	/* the mapped file could not be opened, or is not ELF */
	USYM_NO_DEBUGINFO,	/* stripped, and no debug file or MiniDebugInfo was found */
	USYM_NO_SYMBOL,		/* symbols were found, but none covers the address */
	USYM_NO_PERFMAP,	/* anonymous executable memory (JIT) with no usable /tmp/perf-PID.map */
	USYM_OVER_BUDGET,	/* the file is over a budget (budget.h): skipped */
	USYM_NOT_LOADED,	/* the run ended (a signal) before its symbols were read */
};

/* "stripped, no debuginfo found", ...: what the -v report prints in parentheses. */
const char *usym_reason__str(enum usym_reason r);

/* One source frame of an address (--lines). */
struct usym_line {
	const char *name;	/* function (demangled unless opts said not to) */
	const char *file;	/* full path from DWARF, or NULL */
	unsigned int line;	/* 0 when unknown */
};

struct usym {
	/*
	 * NULL when unresolved; demangled unless opts said not to. With
	 * opts->lines and DWARF for the address it names the source too:
	 * "func (file.c:42)", and where code was inlined, every function from
	 * the real one inwards: "func (file.c:10) > inlined (file.h:3)".
	 */
	const char *name;
	const char *module;	/* path of the mapped file, "[vdso]", or NULL (anonymous, none) */
	/*
	 * What to print for this frame when name is NULL: "[libfoo.so]", the
	 * module's base name in brackets; NULL when there is no module (print
	 * "[unknown]"). Set on success too.
	 */
	const char *label;
	uint64_t offset;	/* addr - symbol start */
	/*
	 * Where addr is in module's own terms: its ELF address where the
	 * file's segments say, else its offset in the file; 0 when there is
	 * no file. What --offsets prints of an unnamed frame: "[libfoo.so+0x1234]".
	 */
	uint64_t file_addr;
	enum usym_reason reason;
	/*
	 * With opts->lines, the source frames of name, outermost (the real
	 * function) first, for writers that show inlined frames as frames of
	 * their own; NULL and 0 without DWARF.
	 */
	const struct usym_line *lines;
	size_t nr_lines;
};

/* Defaults: /proc, /usr/lib/debug, demangling on. Returns NULL with errno set. */
struct usyms *usyms__new(const char *proc_root);
struct usyms *usyms__new_opts(const struct usyms_opts *opts);

/*
 * The generation pid runs now (sampler__pid_gen), 0 when none. With it
 * set, a reading for generation gen is kept only if pid runs gen both
 * before and after it.
 */
typedef uint32_t (*usyms_gen_fn)(pid_t pid, void *ctx);
void usyms__set_gen_fn(struct usyms *u, usyms_gen_fn fn, void *ctx);

/*
 * Read the mappings of generation gen of pid now, while it is alive, and
 * load the symbols of the files they map (each file once while it is
 * mapped by a generation held: usyms__prune()), and
 * its perf map if it has anonymous executable memory. Returns 0, or
 * -ESRCH when the process is gone (or runs another generation) and this
 * one was never read: its frames then resolve to nothing. Adding it
 * again adds a reading (a perf map is re-read only when it changed); if
 * it is gone by then, the earlier readings stay and 0 is returned.
 * Generation 0 is never checked: usyms__add_pid() reads whatever pid runs.
 */
int usyms__add_gen(struct usyms *u, pid_t pid, uint32_t gen);
/*
 * The same, and the reading it made handed over in *reading (the caller
 * releases it; empty when there was none): the other stages that need
 * the process's mappings (unwind tables, Python) take this one, so that
 * /proc/PID/maps is read once for all. USYMS_SAME_READING: the
 * generation was read before, and this reading holds just what the last
 * one did (its files are not stamped again: proc_maps__stamp()).
 */
#define USYMS_SAME_READING 1
int usyms__add_gen_shared(struct usyms *u, pid_t pid, uint32_t gen, struct proc_maps *reading);
/* The same, only for a generation never added before; 0 otherwise. */
int usyms__add_gen_once(struct usyms *u, pid_t pid, uint32_t gen);
int usyms__add_pid(struct usyms *u, pid_t pid);
/* Another reading of the generation pid runs now; -ESRCH when it has none. */
int usyms__refresh_pid(struct usyms *u, pid_t pid);

/*
 * Free the generations that stopped being current before the previous
 * call (exited, or exec'd), then the files that no generation still held
 * maps, with their symbol tables (unless another file held shares one),
 * demangled names and source lines, and tables replaced by fetched debug
 * files: call it when their samples are printed and gone from the
 * aggregate, as interval mode does after each interval. A file mapped
 * again later is opened and read again.
 */
void usyms__prune(struct usyms *u);
/* Generations held. */
size_t usyms__nr_gens(const struct usyms *u);

/*
 * With opts->async: wait until every file queued so far is read, so that
 * resolving finds them. Returns 0, -ETIMEDOUT after timeout_ms (< 0: no
 * limit), or -EINTR as soon as watch_fd (>= 0, a signalfd) is readable.
 * Without async: 0 at once.
 */
int usyms__wait(struct usyms *u, int timeout_ms, int watch_fd);
/*
 * With opts->fetch: stop fetching at until_ns (CLOCK_MONOTONIC), and wait
 * until every fetch queued so far has landed or failed. Returns 0 (also
 * without fetching), -ETIMEDOUT at until_ns, or -EINTR as soon as
 * watch_fd (>= 0) is readable.
 */
int usyms__wait_fetches(struct usyms *u, uint64_t until_ns, int watch_fd);
/* The fetches so far (for -v); -ENOENT without opts->fetch. */
int usyms__fetch_stats(struct usyms *u, struct debuginfod_fetch_stats *st);
/*
 * Stop reading: queued files are left unread (their frames say
 * USYM_NOT_LOADED), the one being read stops at its next budget check,
 * and files found later are not read; fetches stop too. For a run that
 * must print now.
 */
void usyms__cancel(struct usyms *u);

/* Where and when a stack was sampled. */
struct usyms_where {
	pid_t pid;
	uint32_t gen;
	uint64_t from_ns, to_ns;	/* CLOCK_MONOTONIC: taken in between */
};

/*
 * Resolve addr in a sample of w. Returns 0 when out->name is set, else
 * -ENOENT with out->reason, out->module and out->label set as far as
 * known. A failure counts weight times against (module, reason) for
 * usyms__for_each_unresolved(): pass the stack's sample count.
 * usyms__resolve_weighted() is the same for a sample of generation 0
 * taken now, usyms__resolve() with a weight of 1.
 */
int usyms__resolve_at(struct usyms *u, const struct usyms_where *w, uint64_t addr,
		      uint64_t weight, struct usym *out);
int usyms__resolve_weighted(struct usyms *u, pid_t pid, uint64_t addr, uint64_t weight,
			    struct usym *out);
int usyms__resolve(struct usyms *u, pid_t pid, uint64_t addr, struct usym *out);

/* Failed lookups of one module for one reason. */
struct usyms_unresolved {
	/*
	 * file path, "[vdso]", "[anon]" (anonymous memory), NULL (no module);
	 * "[other files]" for the files past the first 4096 paths counted
	 */
	const char *module;
	enum usym_reason reason;
	uint64_t count;		/* sum of the weights: frames times their stacks' samples */
};

/*
 * Call cb for every (module, reason) that failed, highest count first.
 * Stops at the first non-zero return of cb and returns it; 0 otherwise,
 * -ENOMEM.
 */
typedef int (*usyms_unresolved_fn)(const struct usyms_unresolved *e, void *ctx);
int usyms__for_each_unresolved(const struct usyms *u, usyms_unresolved_fn cb, void *ctx);

/* Distinct ELF files whose symbols were read so far, freed or not (for -v). */
size_t usyms__nr_files(const struct usyms *u);
/* Readings of /proc/PID/maps made so far, *same of them USYMS_SAME_READING (for -v). */
uint64_t usyms__nr_readings(const struct usyms *u, uint64_t *same);

/* What u holds now, and what usyms__prune() freed so far. */
struct usyms_held {
	size_t gens;		/* process generations */
	size_t modules;		/* mapped files (dev, inode), with the versions replaced */
	size_t files;		/* symbol tables (shared by files read alike) */
	uint64_t modules_freed, files_freed;
};
void usyms__held(const struct usyms *u, struct usyms_held *h);
/*
 * With a loader whose job does not end within 300 ms of being cancelled
 * (a file system that hangs a read), u is left allocated for it: call
 * this just before exiting.
 */
void usyms__free(struct usyms *u);

#endif /* USYMS_H */
