// SPDX-License-Identifier: GPL-2.0
/*
 * usyms_unresolved.c - frames that could not be named, counted by the
 * path of their module and reason for the -v report, and the words for
 * each reason. Paths are copied: the report comes at the end of the run,
 * long after most modules are freed (usyms_sweep.c).
 */
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/usyms_internal.h"

/*
 * Distinct paths kept: past them, a user who maps fresh files by the
 * thousand is counted under OTHER_FILES, not kept path by path.
 */
#define MAX_UNRESOLVED 4096
static const char OTHER_FILES[] = "[other files]";

struct unresolved {
	char *path;		/* the module's, "[anon]" for anonymous memory; NULL: none */
	enum usym_reason reason;
	uint64_t count;
};

void unresolved__free(void *p)
{
	struct unresolved *e = p;

	free(e->path);
	free(e);
}

static int path_cmp(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

const char *usym_reason__str(enum usym_reason r)
{
	switch (r) {
	case USYM_RESOLVED: return "resolved";
	case USYM_PROCESS_GONE: return "process exited or exec'd before its mappings were read";
	case USYM_NO_MAPPING: return "address in no executable mapping";
	case USYM_UNREADABLE: return "file unreadable";
	case USYM_NO_DEBUGINFO: return "stripped, no debuginfo found";
	case USYM_NO_SYMBOL: return "no symbol covers the address";
	case USYM_NO_PERFMAP: return "JIT code without /tmp/perf-PID.map";
	case USYM_OVER_BUDGET: return "file over a budget (-v says which)";
	case USYM_NOT_LOADED: return "run ended before its symbols were read";
	}
	return "?";
}

static int unresolved_cmp(const void *a, const void *b)
{
	const struct unresolved *x = a, *y = b;
	int c = path_cmp(x->path, y->path);

	if (c)
		return (c > 0) - (c < 0);
	return (x->reason > y->reason) - (x->reason < y->reason);
}

/* A new entry for key, in the tree; NULL on ENOMEM. */
static struct unresolved *unresolved__add(struct usyms *u, const struct unresolved *key)
{
	struct unresolved *e = calloc(1, sizeof(*e));
	void *node;

	if (!e)
		return NULL;
	e->reason = key->reason;
	if (key->path && !(e->path = strdup(key->path))) {
		free(e);
		return NULL;
	}
	node = tsearch(e, &u->unresolved, unresolved_cmp);
	if (!node) {
		unresolved__free(e);
		return NULL;
	}
	u->nr_unresolved++;
	return e;
}

int usyms_count_unresolved(struct usyms *u, const struct module *mod, enum usym_reason reason,
			   uint64_t weight)
{
	struct unresolved key = { .path = mod ? mod->path : NULL, .reason = reason }, *e;
	void *node;

	if (!weight)
		return 0;
	node = tfind(&key, &u->unresolved, unresolved_cmp);
	if (!node && u->nr_unresolved >= MAX_UNRESOLVED) {
		key.path = (char *)OTHER_FILES;
		node = tfind(&key, &u->unresolved, unresolved_cmp);
	}
	e = node ? *(struct unresolved **)node : unresolved__add(u, &key);
	if (!e)
		return -ENOMEM;
	e->count += weight;
	return 0;
}

struct collect {
	struct usyms_unresolved *v;
	size_t nr, cap;
	bool nomem;
};

static void collect_one(const void *node, VISIT which, void *ctx)
{
	const struct unresolved *e = *(const struct unresolved *const *)node;
	struct collect *c = ctx;

	if ((which != postorder && which != leaf) || c->nomem)
		return;
	if (c->nr == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 32;
		struct usyms_unresolved *nv = realloc(c->v, cap * sizeof(*nv));

		if (!nv) {
			c->nomem = true;
			return;
		}
		c->v = nv;
		c->cap = cap;
	}
	c->v[c->nr++] = (struct usyms_unresolved){
		.module = e->path,
		.reason = e->reason,
		.count = e->count,
	};
}

static int by_count_desc(const void *a, const void *b)
{
	const struct usyms_unresolved *x = a, *y = b;

	if (x->count != y->count)
		return (x->count < y->count) - (x->count > y->count);
	return (x->reason > y->reason) - (x->reason < y->reason);
}

int usyms__for_each_unresolved(const struct usyms *u, usyms_unresolved_fn cb, void *ctx)
{
	struct collect c = {};
	int err = 0;

	usyms_lock((struct usyms *)u);
	twalk_r(u->unresolved, collect_one, &c);
	usyms_unlock((struct usyms *)u);
	if (c.nomem) {
		free(c.v);
		return -ENOMEM;
	}
	if (c.nr)
		qsort(c.v, c.nr, sizeof(*c.v), by_count_desc);
	for (size_t i = 0; i < c.nr && !err; i++)
		err = cb(&c.v[i], ctx);
	free(c.v);
	return err;
}
