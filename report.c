// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - turn the raw stacks of an aggregate into named frames and
 * hand them to the writer of the chosen format.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ksyms.h"
#include "report.h"
#include "stack_fmt.h"

struct report {
	const struct profile_env *env;
	struct usyms *usyms;
	struct ksyms *ksyms;
	bool ksyms_tried;
	const char **kframes, **uframes;	/* scratch, max_stack_depth each */
};

static const char *const UNKNOWN = "[unknown]";

struct report *report__new(const struct profile_env *env, struct usyms *usyms)
{
	struct report *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->env = env;
	r->usyms = usyms;
	r->kframes = calloc(env->max_stack_depth, sizeof(*r->kframes));
	r->uframes = calloc(env->max_stack_depth, sizeof(*r->uframes));
	if (!r->kframes || !r->uframes) {
		report__free(r);
		return NULL;
	}
	return r;
}

void report__free(struct report *r)
{
	if (!r)
		return;
	ksyms__free(r->ksyms);
	free(r->kframes);
	free(r->uframes);
	free(r);
}

static const struct ksym *find_ksym(struct report *r, uint64_t addr)
{
	if (!r->ksyms_tried) {
		/* only loaded once a kernel frame is printed */
		r->ksyms_tried = true;
		r->ksyms = ksyms__load();
		if (!r->ksyms)
			fprintf(stderr, "profile: cannot read /proc/kallsyms: %s; kernel frames stay [unknown]\n",
				strerror(errno));
	}
	return ksyms__find(r->ksyms, addr);
}

static void resolve_kernel(struct report *r, const uint64_t *ips, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct ksym *ks = find_ksym(r, ips[i]);

		r->kframes[i] = ks ? ks->name : UNKNOWN;
	}
}

static void resolve_user(struct report *r, uint32_t pid, const uint64_t *ips, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct usym sym;

		r->uframes[i] = usyms__resolve(r->usyms, pid, ips[i], &sym) ? UNKNOWN : sym.name;
	}
}

struct text_ctx {
	struct report *r;
	struct stack_set *set;
};

static int add_text(const struct agg_entry *e, void *ctx)
{
	struct text_ctx *t = ctx;
	struct report *r = t->r;
	struct stack_rec rec = {
		.comm = e->comm,
		.pid = e->pid,
		.tid = e->tid,
		.kframes = r->kframes,
		.uframes = r->uframes,
		.kstack_err = e->kerr,
		.ustack_err = e->uerr,
		.count = e->count,
	};

	if (!e->kerr) {
		rec.nr_kframes = e->nr_kips;
		resolve_kernel(r, e->ips, e->nr_kips);
	}
	if (!e->uerr) {
		rec.nr_uframes = e->nr_uips;
		resolve_user(r, e->pid, e->ips + e->nr_kips, e->nr_uips);
	}
	return stack_set__add(t->set, &rec);
}

static int write_text(struct report *r, const struct agg *agg, const struct report_meta *meta,
		      FILE *out, uint64_t *printed)
{
	const struct profile_env *env = r->env;
	struct stack_fmt_opts fmt = {
		.folded = env->format == FORMAT_FOLDED,
		.delimited = env->delimited,
		.annotations = env->annotations,
		.user_only = env->user_only,
		.kernel_only = env->kernel_only,
		.per_thread = env->nr_tids > 0,
		.root = meta->time_root,
	};
	struct text_ctx t = { .r = r };
	int err;

	t.set = stack_set__new(&fmt);
	if (!t.set)
		return -ENOMEM;
	err = agg__for_each(agg, add_text, &t);
	if (!err) {
		*printed = stack_set__total(t.set);
		err = stack_set__print(t.set, out);
	}
	stack_set__free(t.set);
	return err;
}

int report__write(struct report *r, const struct agg *agg, const struct report_meta *meta,
		  FILE *out, uint64_t *printed)
{
	*printed = 0;
	switch (r->env->format) {
	case FORMAT_TEXT:
	case FORMAT_FOLDED:
		return write_text(r, agg, meta, out, printed);
	default:
		return -EOPNOTSUPP;
	}
}
