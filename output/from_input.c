// SPDX-License-Identifier: GPL-2.0
/*
 * from_input.c - open a --from file, hand it to its reader, and write the
 * profile built with the writer of the chosen format.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/escape.h"
#include "output/flamegraph.h"
#include "output/folded_read.h"
#include "output/from_input.h"
#include "output/pprof.h"
#include "output/pprof_read.h"
#include "output/speedscope.h"
#include "output/stack_fmt.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static bool pprof_name(const char *path)
{
	return ends_with(path, ".pb.gz") || ends_with(path, ".pb") || ends_with(path, ".pprof");
}

int from_input__read(struct pf_build *b, const char *path, struct pf_read_error *err)
{
	bool std_in = !strcmp(path, "-");
	FILE *f = std_in ? stdin : fopen(path, "re");
	int c, ret;

	*err = (struct pf_read_error){ 0 };
	if (!f) {
		ret = -errno;
		snprintf(err->why, sizeof(err->why), "%s", strerror(errno));
		return ret;
	}
	/* the first byte says gzip (pprof) or not */
	c = getc(f);
	if (c != EOF && ungetc(c, f) == EOF)
		c = EOF;
	if (c == 0x1f || (!std_in && pprof_name(path)))
		ret = pprof_read__stream(b, f, err);
	else
		ret = folded_read__stream(b, f, err);
	if (!std_in)
		fclose(f);
	return ret;
}

/* One stack as stack_fmt takes it: user and kernel frames, each leaf first. */
struct split {
	const char **uframes, **kframes;
	size_t cap;
};

static int add_rec(struct stack_set *set, struct split *sp, const struct pf_sample *s)
{
	size_t k0 = s->nr_frames, nu, nk;
	struct stack_rec rec = { .comm = s->comm, .pid = s->pid, .tid = s->tid, .count = s->count };

	/* the kernel part: the kernel frames at the leaf end */
	while (k0 > 0 && s->frames[k0 - 1].kernel)
		k0--;
	nu = k0;
	nk = s->nr_frames - k0;
	if (s->nr_frames > sp->cap) {
		const char **u = realloc(sp->uframes, s->nr_frames * sizeof(*u));

		if (!u)
			return -ENOMEM;
		sp->uframes = u;
		u = realloc(sp->kframes, s->nr_frames * sizeof(*u));
		if (!u)
			return -ENOMEM;
		sp->kframes = u;
		sp->cap = s->nr_frames;
	}
	for (size_t i = 0; i < nu; i++)
		sp->uframes[i] = s->frames[nu - 1 - i].name;
	for (size_t i = 0; i < nk; i++)
		sp->kframes[i] = s->frames[s->nr_frames - 1 - i].name;
	rec.uframes = sp->uframes;
	rec.nr_uframes = nu;
	rec.ustack_err = nu ? 0 : -EFAULT;
	rec.kframes = sp->kframes;
	rec.nr_kframes = nk;
	rec.kstack_err = nk ? 0 : -EFAULT;
	return stack_set__add(set, &rec);
}

static int write_text(const struct pf_profile *p, const struct from_output *o, FILE *out)
{
	struct stack_fmt_opts fmt = {
		.folded = o->format == FORMAT_FOLDED,
		.delimited = o->delimited,
		.annotations = o->annotations,
		.per_thread = p->per_thread,
		/* a pprof file of --off-cpu or --wall: ns, printed as us as when it was made */
		.ns_as_us = p->measure != NULL,
	};
	struct split sp = { 0 };
	struct stack_set *set = stack_set__new(&fmt);
	int err = set ? 0 : -ENOMEM;

	for (size_t i = 0; !err && i < p->nr_samples; i++)
		err = add_rec(set, &sp, &p->samples[i]);
	if (!err)
		err = stack_set__print(set, out);
	stack_set__free(set);
	free(sp.uframes);
	free(sp.kframes);
	return err;
}

int from_input__write(const struct pf_profile *p, const struct from_output *o, FILE *out)
{
	int err;

	clearerr(out);
	errno = 0;
	switch (o->format) {
	case FORMAT_TEXT:
	case FORMAT_FOLDED:
		return write_text(p, o, out);
	case FORMAT_PPROF:
		err = pprof__write(p, out);
		break;
	case FORMAT_SVG:
		err = flamegraph__write_svg(p, out);
		break;
	default:
		err = speedscope__write(p, out);
		break;
	}
	if (!err && (fflush(out) || ferror(out)))
		err = errno ? -errno : -EIO;
	return err;
}

/* "profile: 'FILE' line N: why", control characters defused. */
static void say_read_error(FILE *f, const char *path, const struct pf_read_error *e)
{
	fputs("profile: '", f);
	escape__text(f, path);
	if (e->line)
		fprintf(f, "' line %llu: ", (unsigned long long)e->line);
	else
		fputs("': ", f);
	escape__text(f, e->why);
	fputc('\n', f);
}

/* The title of a profile read from files: "profile --from a.folded (+2 more)". */
static void from_title(const struct from_opts *o, char *buf, size_t size)
{
	if (o->nr_files > 1)
		snprintf(buf, size, "profile --from %s (+%zu more)", o->files[0], o->nr_files - 1);
	else
		snprintf(buf, size, "profile --from %s", o->files[0]);
}

struct from_write {
	const struct pf_profile *prof;
	const struct from_output *out;
};

static int write_from(FILE *f, void *ctx)
{
	const struct from_write *w = ctx;

	return from_input__write(w->prof, w->out, f);
}

int from_input__convert(const struct from_opts *o, FILE *out, FILE *err)
{
	struct pf_limits limits = PF_LIMITS_DEFAULT_INIT;
	struct pf_build *b = pf_build__new(&limits);
	struct pf_read_error rerr;
	struct pf_profile prof;
	struct from_write w = { .prof = &prof, .out = &o->out };
	char title[512];
	int e = 0;

	if (!b) {
		fprintf(err, "profile: out of memory\n");
		return -ENOMEM;
	}
	for (size_t i = 0; i < o->nr_files && !e; i++) {
		e = from_input__read(b, o->files[i], &rerr);
		if (e)
			say_read_error(err, o->files[i], &rerr);
	}
	if (e) {
		pf_build__free(b);
		return FROM_INPUT_REFUSED;
	}
	from_title(o, title, sizeof(title));
	e = pf_build__profile(b, title, &prof);
	if (e)
		fprintf(err, "profile: out of memory\n");
	else
		e = emit__profile(&o->emit, time(NULL), out, write_from, &w, err);
	if (!e && !o->quiet && prof.measure)
		fprintf(err, "profile: %.6f s of %s time in %zu stacks from %zu file%s\n",
			pf_build__total(b) / 1e9, prof.measure, pf_build__nr_stacks(b), o->nr_files,
			o->nr_files > 1 ? "s" : "");
	else if (!e && !o->quiet)
		fprintf(err, "profile: %llu samples in %zu stacks from %zu file%s\n",
			(unsigned long long)pf_build__total(b), pf_build__nr_stacks(b), o->nr_files,
			o->nr_files > 1 ? "s" : "");
	pf_build__free(b);
	return e;
}
