// SPDX-License-Identifier: GPL-2.0
/*
 * stack_fmt.c - render stacks in profile(8)'s formats, merge the ones that
 * render the same, sort by count and print.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "stack_fmt.h"

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
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		unsigned char c = *p;

		if (c < 0x20 || c == 0x7f)
			c = '?';
		else if (folded && c == ';')
			c = ':';
		fputc(c, f);
	}
}

static void render_folded(const struct stack_fmt_opts *o, const struct stack_rec *r, FILE *f)
{
	bool delim = o->delimited && !o->user_only && !o->kernel_only &&
		     r->kstack_err == 0 && r->ustack_err == 0;

	if (o->root) {
		put_name(f, o->root, true);
		fputc(';', f);
	}
	put_name(f, r->comm, true);
	if (!o->kernel_only) {
		if (agg_stack__missed(r->ustack_err)) {
			fputs(";[Missed User Stack]", f);
		} else if (r->ustack_err == 0) {
			for (size_t i = r->nr_uframes; i-- > 0;) {
				fputc(';', f);
				put_name(f, r->uframes[i], true);
			}
		}
	}
	if (!o->user_only) {
		if (delim)
			fputs(";-", f);
		if (agg_stack__missed(r->kstack_err)) {
			fputs(";[Missed Kernel Stack]", f);
		} else if (r->kstack_err == 0) {
			for (size_t i = r->nr_kframes; i-- > 0;) {
				fputc(';', f);
				put_name(f, r->kframes[i], true);
				if (o->annotations)
					fputs("_[k]", f);
			}
		}
	}
}

static void render_block(const struct stack_fmt_opts *o, const struct stack_rec *r, FILE *f)
{
	bool delim = o->delimited && !o->user_only && !o->kernel_only &&
		     r->kstack_err == 0 && r->ustack_err == 0;

	if (!o->user_only) {
		if (agg_stack__missed(r->kstack_err)) {
			fputs("    [Missed Kernel Stack]\n", f);
		} else if (r->kstack_err == 0) {
			for (size_t i = 0; i < r->nr_kframes; i++) {
				fputs("    ", f);
				put_name(f, r->kframes[i], false);
				fputs(o->annotations ? "_[k]\n" : "\n", f);
			}
		}
	}
	if (!o->kernel_only) {
		if (delim)
			fputs("    --\n", f);
		if (agg_stack__missed(r->ustack_err)) {
			fputs("    [Missed User Stack]\n", f);
		} else if (r->ustack_err == 0) {
			for (size_t i = 0; i < r->nr_uframes; i++) {
				fputs("    ", f);
				put_name(f, r->uframes[i], false);
				fputc('\n', f);
			}
		}
	}
	fprintf(f, "    %-16s ", "-");
	put_name(f, r->comm, false);
	if (o->per_thread)
		fprintf(f, " (%u/%u)\n", r->pid, r->tid);
	else
		fprintf(f, " (%u)\n", r->pid);
}

int stack_set__add(struct stack_set *s, const struct stack_rec *rec)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (s->nr == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct rendered *n = realloc(s->recs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->recs = n;
		s->cap = cap;
	}
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

		if (s->opts.folded)
			fprintf(out, "%s %llu\n", r->text, (unsigned long long)r->count);
		else
			fprintf(out, "%s        %llu\n\n", r->text, (unsigned long long)r->count);
		if (ferror(out))
			break;
	}
	if (fflush(out) || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}
