// SPDX-License-Identifier: GPL-2.0
/*
 * emit.c - a profile to stdout or to -o FILE, then --keep (emit.h).
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "common/escape.h"
#include "output/emit.h"
#include "output/outfile.h"
#include "output/retention.h"

void emit__print_outfile_error(FILE *err, const struct outfile_diag *diag)
{
	fputs("profile: cannot write '", err);
	escape__text(err, diag->path);
	fputs("': ", err);
	escape__text(err, diag->msg);
	fputc('\n', err);
}

/*
 * --keep: the oldest files of -o's pattern go, from the directory the
 * profile was just written to (dirfd, as -o checked it; -errno: it could
 * not be had); one line if it cannot be read, or holds too many entries to
 * be read whole.
 */
static void keep_newest(const struct emit_opts *o, int dirfd, FILE *err)
{
	int n = dirfd < 0 ? dirfd :
		retention__apply_at(dirfd, retention__base(o->output), o->keep,
				    RETENTION_MAX_ENTRIES, err);

	if (n == -E2BIG)
		fprintf(err, "profile: --keep: the directory of '%s' has more than %d entries: nothing removed\n",
			o->output, RETENTION_MAX_ENTRIES);
	else if (n < 0)
		fprintf(err, "profile: --keep: cannot read the directory of '%s': %s\n",
			o->output, strerror(-n));
}

/* To -o's file: written, then committed or aborted, then --keep. */
static int to_file(const struct emit_opts *o, time_t when,
		   int (*write_fn)(FILE *f, void *ctx), void *ctx, FILE *err)
{
	struct outfile_diag diag;
	struct outfile *of;
	char path[PATH_MAX];
	int e, dirfd = -1;

	e = outfile__expand_path(o->output, when, path, sizeof(path));
	if (e) {
		fprintf(err, "profile: cannot write '%s': %s\n", o->output, strerror(-e));
		return e;
	}
	e = outfile__open(path, &of, &diag);
	if (e) {
		emit__print_outfile_error(err, &diag);
		return e;
	}
	e = write_fn(outfile__stream(of), ctx);
	if (e) {
		outfile__abort(of);
	} else {
		dirfd = o->keep ? outfile__dup_dir(of) : -1;
		e = outfile__commit(of);
	}
	if (e && e != -EPIPE)
		fprintf(err, "profile: cannot write '%s': %s\n", path, strerror(-e));
	if (!e && o->keep)
		keep_newest(o, dirfd, err);
	if (dirfd >= 0)
		close(dirfd);
	return e;
}

int emit__profile(const struct emit_opts *o, time_t when, FILE *out,
		  int (*write_fn)(FILE *f, void *ctx), void *ctx, FILE *err)
{
	int e;

	if (o->output)
		return to_file(o, when, write_fn, ctx, err);
	e = write_fn(out, ctx);
	if (e && e != -EPIPE)
		fprintf(err, "profile: cannot write the profile: %s\n", strerror(-e));
	return e;
}
