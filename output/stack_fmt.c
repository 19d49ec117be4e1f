// SPDX-License-Identifier: GPL-2.0
/*
 * stack_fmt.c - render stacks in profile(8)'s formats, merge the ones that
 * render the same, sort by count and print.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect/aggregate.h"
#include "common/escape.h"
#include "output/stack_fmt.h"
#include "trace_helpers.h"

struct rendered {
	char *text;		/* everything but the count */
	uint64_t count;
};

struct stack_set {
	struct stack_fmt_opts opts;
	struct rendered *recs;
	size_t nr, cap;
	uint64_t total;
};

struct stack_set *stack_set__new(const struct stack_fmt_opts *opts)
{
	struct stack_set *s = calloc(1, sizeof(*s));

	if (s)
		s->opts = *opts;
	return s;
}

void stack_set__free(struct stack_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr; i++)
		free(s->recs[i].text);
	free(s->recs);
	free(s);
}

uint64_t stack_set__total(const struct stack_set *s)
{
	return s->total;
}

/*
 * Write a name so that it cannot break the line structure: control
 * characters become '?', and in folded output ';' (the frame separator)
 * becomes ':'.
 */
static void put_name(FILE *f, const char *name, bool folded)
{
	escape__name(f, name, folded);
}

/* One part of a stack, kernel or user, as both formats print it. */
struct part {
	const char *const *frames;	/* leaf first */
	size_t nr;
	int err;		/* stack_rec's: 0, -EFAULT (none), or lost */
	const char *missed;	/* what stands for a lost stack */
	const char *suffix;	/* after each frame */
};

static struct part user_part(const struct stack_rec *r)
{
	return (struct part){ r->uframes, r->nr_uframes, r->ustack_err, "[Missed User Stack]", "" };
}

static struct part kernel_part(const struct stack_fmt_opts *o, const struct stack_rec *r)
{
	return (struct part){ r->kframes, r->nr_kframes, r->kstack_err, "[Missed Kernel Stack]",
			      o->annotations ? "_[k]" : "" };
}

/* -d's separator: only between two parts that are both there. */
static bool delimited(const struct stack_fmt_opts *o, const struct stack_rec *r)
{
	return o->delimited && !o->user_only && !o->kernel_only &&
	       r->kstack_err == 0 && r->ustack_err == 0;
}

/* Folded: root first, each frame after a ';'. */
static void folded_part(FILE *f, const struct part *p)
{
	if (agg_stack__missed(p->err)) {
		fprintf(f, ";%s", p->missed);
		return;
	}
	if (p->err)
		return;
	for (size_t i = p->nr; i-- > 0;) {
		fputc(';', f);
		put_name(f, p->frames[i], true);
		fputs(p->suffix, f);
	}
}

/* Block: leaf first, a frame a line. */
static void block_part(FILE *f, const struct part *p)
{
	if (agg_stack__missed(p->err)) {
		fprintf(f, "    %s\n", p->missed);
		return;
	}
	if (p->err)
		return;
	for (size_t i = 0; i < p->nr; i++) {
		fputs("    ", f);
		put_name(f, p->frames[i], false);
		fprintf(f, "%s\n", p->suffix);
	}
}

static void render_folded(const struct stack_fmt_opts *o, const struct stack_rec *r, FILE *f)
{
	struct part user = user_part(r), kernel = kernel_part(o, r);

	if (o->root) {
		put_name(f, o->root, true);
		fputc(';', f);
	}
	if (r->container) {
		put_name(f, r->container, true);
		fputc(';', f);
	}
	put_name(f, r->comm, true);
	if (!o->kernel_only)
		folded_part(f, &user);
	if (!o->user_only) {
		if (delimited(o, r))
			fputs(";-", f);
		folded_part(f, &kernel);
	}
}

static void render_block(const struct stack_fmt_opts *o, const struct stack_rec *r, FILE *f)
{
	struct part user = user_part(r), kernel = kernel_part(o, r);

	if (!o->user_only)
		block_part(f, &kernel);
	if (!o->kernel_only) {
		if (delimited(o, r))
			fputs("    --\n", f);
		block_part(f, &user);
	}
	fprintf(f, "    %-16s ", "-");
	put_name(f, r->comm, false);
	if (o->per_thread)
		fprintf(f, " (%u/%u)\n", r->pid, r->tid);
	else
		fprintf(f, " (%u)\n", r->pid);
	if (r->container) {
		fprintf(f, "    %-16s ", "container");
		put_name(f, r->container, false);
		fputc('\n', f);
	}
}

int stack_set__add(struct stack_set *s, const struct stack_rec *rec)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (array_reserve((void **)&s->recs, &s->cap, s->nr, sizeof(*s->recs)))
		return -ENOMEM;
	f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	if (s->opts.folded)
		render_folded(&s->opts, rec, f);
	else
		render_block(&s->opts, rec, f);
	if (fclose(f)) {
		free(text);
		return -ENOMEM;
	}
	s->recs[s->nr++] = (struct rendered){ .text = text, .count = rec->count };
	s->total += rec->count;
	return 0;
}

static int by_text(const void *a, const void *b)
{
	return strcmp(((const struct rendered *)a)->text, ((const struct rendered *)b)->text);
}

/* Ascending count, so the hottest stack is printed last (as BCC does). */
static int by_count(const void *a, const void *b)
{
	const struct rendered *x = a, *y = b;

	if (x->count != y->count)
		return (x->count > y->count) - (x->count < y->count);
	return strcmp(x->text, y->text);
}

static void merge(struct stack_set *s)
{
	size_t out = 0;

	if (!s->nr)
		return;		/* recs is NULL: qsort's argument must not be */
	qsort(s->recs, s->nr, sizeof(*s->recs), by_text);
	for (size_t i = 0; i < s->nr; i++) {
		if (out && !strcmp(s->recs[out - 1].text, s->recs[i].text)) {
			s->recs[out - 1].count += s->recs[i].count;
			free(s->recs[i].text);
			continue;
		}
		s->recs[out++] = s->recs[i];
	}
	s->nr = out;
	qsort(s->recs, s->nr, sizeof(*s->recs), by_count);
}

int stack_set__print(struct stack_set *s, FILE *out)
{
	merge(s);
	for (size_t i = 0; i < s->nr; i++) {
		const struct rendered *r = &s->recs[i];
		unsigned long long n = r->count;

		if (s->opts.ns_as_us)
			n = n / 1000 + (n % 1000 != 0);
		if (s->opts.folded)
			fprintf(out, "%s %llu\n", r->text, n);
		else
			fprintf(out, "%s        %llu\n\n", r->text, n);
		if (ferror(out))
			break;
	}
	if (fflush(out) || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}
