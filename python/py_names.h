/* SPDX-License-Identifier: GPL-2.0 */
/*
 * py_names.h - the names of Python frames, from the records the BPF side
 * sends when it first meets a frame's word (struct py_name_event,
 * py_bpf.h), kept per (process, generation, word) for the report.
 *
 * A record is the target's bytes: every length in it is checked against
 * the record's size, characters are decoded to UTF-8 (what is not a
 * character becomes U+FFFD), and the names are escaped when printed, as
 * every name is.
 */
#ifndef PY_NAMES_H
#define PY_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Names a run keeps at once, at most (about 300 bytes each, 2 KiB for
 * the longest), and of one pid, all its generations together: a process
 * that makes code objects without end, or execs itself again and again,
 * takes no more than its share.
 */
#define PY_NAMES_MAX (1u << 18)
#define PY_NAMES_MAX_PER_PID (1u << 15)

/* How a Python frame prints when its names never came (or could not be read). */
#define PY_UNNAMED "[python]"

struct py_name {
	const char *label;	/* "func (file)", "func (file:line)" with --lines: what prints */
	const char *func;	/* the qualified name, "Class.method" */
	const char *file;	/* the file name as the code object has it; "" when none */
	int32_t firstlineno;	/* where the function starts */
	int32_t line;		/* --lines: the sampled instruction's line; 0: not known */
};

struct py_names;

struct py_names_stats {
	uint64_t records;	/* records taken */
	uint64_t names;		/* words named */
	uint64_t malformed;	/* records refused: not the size of one */
	uint64_t dropped;	/* not kept: max_names, or max_per_pid of its pid, reached */
};

/* At most max_names words kept at once, max_per_pid of one pid. NULL with errno. */
struct py_names *py_names__new(size_t max_names, size_t max_per_pid);
void py_names__free(struct py_names *n);

/*
 * Take one record of the "py_names" ring buffer. 0, -EINVAL for one that
 * is not a record, -ENOSPC when max_names are kept, -ENOMEM.
 */
int py_names__add(struct py_names *n, const void *data, size_t size);

/* The names of word id in generation gen of pid, or NULL. */
const struct py_name *py_names__find(const struct py_names *n, uint32_t pid, uint32_t gen,
				     uint64_t id);

/* Whether generation gen of pid may still be sampled. */
typedef bool (*py_alive_fn)(pid_t pid, uint32_t gen, void *ctx);
/*
 * Forget the names of the generations that are not alive (after their
 * samples were printed); alive is asked once per generation.
 */
void py_names__prune(struct py_names *n, py_alive_fn alive, void *ctx);

void py_names__stats(const struct py_names *n, struct py_names_stats *st);

/*
 * The characters of a str copied by the BPF side (kind bytes each, nbytes
 * of them) as UTF-8 into out (NUL-terminated, cut at a whole character to
 * fit size), "..." after them when the str had more (len characters).
 * Returns the bytes written, without the NUL.
 */
size_t py_names__decode(const uint8_t *bytes, size_t nbytes, unsigned int kind, uint32_t len,
			char *out, size_t size);

#endif /* PY_NAMES_H */
