// SPDX-License-Identifier: GPL-2.0
/*
 * py_names.c - names of Python frames by (process, generation, word)
 * (py_names.h).
 */
#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>

#include "common/fnv.h"
#include "python/py_bpf.h"
#include "python/py_linetable.h"
#include "python/py_names.h"

struct name_entry {
	struct name_entry *next;
	uint32_t pid, gen;
	uint64_t id;
	struct py_name name;
	char strings[];		/* label, func, file */
};

/*
 * Names one generation has, and (gen PID_TOTAL) all generations of one
 * pid: a process that execs itself takes no more than one's share.
 */
struct gen_count {
	uint32_t pid, gen;
	size_t nr;
};

#define PID_TOTAL UINT32_MAX

struct py_names {
	struct name_entry **buckets;
	size_t nr_buckets;	/* a power of two */
	size_t nr, max, max_per_pid;
	void *gens;		/* tsearch: struct gen_count */
	struct py_names_stats stats;
};

static int cmp_gen(const void *a, const void *b)
{
	const struct gen_count *x = a, *y = b;

	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->gen > y->gen) - (x->gen < y->gen);
}

/* The count of (pid, gen), made when missing; NULL: no memory. */
static struct gen_count *gen_of(struct py_names *n, uint32_t pid, uint32_t gen)
{
	struct gen_count key = { .pid = pid, .gen = gen }, *g, **slot;

	slot = tfind(&key, &n->gens, cmp_gen);
	if (slot)
		return *slot;
	g = malloc(sizeof(*g));
	if (!g)
		return NULL;
	*g = key;
	if (!tsearch(g, &n->gens, cmp_gen)) {
		free(g);
		return NULL;
	}
	return g;
}

static size_t bucket_of(const struct py_names *n, uint32_t pid, uint32_t gen, uint64_t id)
{
	uint64_t h = fnv64_step(fnv64_step(FNV64_OFFSET, (uint64_t)pid << 32 | gen), id);

	return h & (n->nr_buckets - 1);
}

struct py_names *py_names__new(size_t max_names, size_t max_per_pid)
{
	struct py_names *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->nr_buckets = 1024;
	n->max = max_names;
	n->max_per_pid = max_per_pid;
	n->buckets = calloc(n->nr_buckets, sizeof(*n->buckets));
	if (!n->buckets) {
		free(n);
		return NULL;
	}
	return n;
}

void py_names__free(struct py_names *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nr_buckets; i++) {
		for (struct name_entry *e = n->buckets[i], *next; e; e = next) {
			next = e->next;
			free(e);
		}
	}
	free(n->buckets);
	tdestroy(n->gens, free);
	free(n);
}

static void grow(struct py_names *n)
{
	size_t nb = n->nr_buckets * 2;
	struct name_entry **b = calloc(nb, sizeof(*b)), **old = n->buckets;
	size_t old_nr = n->nr_buckets;

	if (!b)
		return;	/* longer chains, still right */
	n->buckets = b;
	n->nr_buckets = nb;
	for (size_t i = 0; i < old_nr; i++) {
		for (struct name_entry *e = old[i], *next; e; e = next) {
			size_t k = bucket_of(n, e->pid, e->gen, e->id);

			next = e->next;
			e->next = b[k];
			b[k] = e;
		}
	}
	free(old);
}

/* UTF-8 of code point c into out (room for 4). */
static size_t utf8(uint32_t c, char *out)
{
	/* NUL, surrogates and what is past Unicode are no characters of a name */
	if (!c || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		c = 0xfffd;
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | c >> 6);
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | c >> 12);
		out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | c >> 18);
	out[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

size_t py_names__decode(const uint8_t *bytes, size_t nbytes, unsigned int kind, uint32_t len,
			char *out, size_t size)
{
	static const char more[] = "...";
	size_t o = 0, chars = 0;

	if (!size)
		return 0;
	if (kind != 1 && kind != 2 && kind != 4)
		nbytes = 0;
	for (size_t i = 0; i + kind <= nbytes; i += kind, chars++) {
		uint32_t c = bytes[i];
		char buf[4];
		size_t w;

		if (kind == 2)
			c |= (uint32_t)bytes[i + 1] << 8;
		else if (kind == 4)
			c |= (uint32_t)bytes[i + 1] << 8 | (uint32_t)bytes[i + 2] << 16 |
			     (uint32_t)bytes[i + 3] << 24;
		w = utf8(c, buf);
		/* room for "..." and the NUL after it */
		if (o + w + sizeof(more) > size)
			break;
		memcpy(out + o, buf, w);
		o += w;
	}
	if (chars < len && o + sizeof(more) <= size) {
		memcpy(out + o, more, sizeof(more) - 1);
		o += sizeof(more) - 1;
	}
	out[o] = '\0';
	return o;
}

static bool valid_copy(const struct py_str_copy *c, size_t cap)
{
	return c->nbytes <= cap && (c->kind == 1 || c->kind == 2 || c->kind == 4);
}

int py_names__add(struct py_names *n, const void *data, size_t size)
{
	const struct py_name_event *ev = data;
	struct gen_count *g, *t;
	/* UTF-8 takes at most 3 bytes for the 1 or 2 of a Latin-1 or UCS-2 character */
	char func[PY_NAME_BYTES * 2 + 8], file[PY_FILE_BYTES * 2 + 8];
	size_t lf, lfile, k;
	struct name_entry *e;
	char *s, at[16] = "";
	int line;

	n->stats.records++;
	if (size < sizeof(*ev) || size - sizeof(*ev) != ev->nr_linetable ||
	    ev->nr_linetable > PY_LINETABLE_BYTES || !valid_copy(&ev->qualname, sizeof(ev->name)) ||
	    !valid_copy(&ev->filename, sizeof(ev->file)) || !(ev->id & PY_FRAME_BIT)) {
		n->stats.malformed++;
		return -EINVAL;
	}
	k = bucket_of(n, ev->pid, ev->gen, ev->id);
	for (e = n->buckets[k]; e; e = e->next)
		if (e->pid == ev->pid && e->gen == ev->gen && e->id == ev->id)
			return 0;	/* sent twice (two CPUs, or forgotten by the kernel) */
	g = gen_of(n, ev->pid, ev->gen);
	if (!g)
		return -ENOMEM;
	t = gen_of(n, ev->pid, PID_TOTAL);
	if (!t)
		return -ENOMEM;
	if (n->nr >= n->max || t->nr >= n->max_per_pid) {
		n->stats.dropped++;
		return -ENOSPC;
	}
	lf = py_names__decode(ev->name, ev->qualname.nbytes, ev->qualname.kind, ev->qualname.len,
			      func, sizeof(func));
	lfile = py_names__decode(ev->file, ev->filename.nbytes, ev->filename.kind,
				 ev->filename.len, file, sizeof(file));
	/* --lines: the line of the instruction, from the table that follows */
	line = py_linetable__line((const uint8_t *)(ev + 1), ev->nr_linetable, ev->firstlineno,
				  ev->lasti);
	if (line > 0)
		snprintf(at, sizeof(at), ":%d", line);
	/* label "func (file:line)", then func and file */
	e = malloc(sizeof(*e) + (lf + lfile + strlen(at) + 4) + (lf + 1) + (lfile + 1));
	if (!e)
		return -ENOMEM;
	e->pid = ev->pid;
	e->gen = ev->gen;
	e->id = ev->id;
	s = e->strings;
	e->name.label = s;
	s += lfile || *at ? sprintf(s, "%s (%s%s)", func, file, at) + 1 :
			    sprintf(s, "%s", func) + 1;
	e->name.func = memcpy(s, func, lf + 1);
	s += lf + 1;
	e->name.file = memcpy(s, file, lfile + 1);
	e->name.firstlineno = ev->firstlineno;
	e->name.line = line;
	e->next = n->buckets[k];
	n->buckets[k] = e;
	n->nr++;
	g->nr++;
	t->nr++;
	n->stats.names++;
	if (n->nr > n->nr_buckets)
		grow(n);
	return 0;
}

const struct py_name *py_names__find(const struct py_names *n, uint32_t pid, uint32_t gen,
				     uint64_t id)
{
	for (struct name_entry *e = n->buckets[bucket_of(n, pid, gen, id)]; e; e = e->next)
		if (e->pid == pid && e->gen == gen && e->id == id)
			return &e->name;
	return NULL;
}

/* The generations pruning looks at: whether each is alive, asked once. */
struct prune {
	struct gen_count **dead;
	size_t nr, cap;
	py_alive_fn alive;
	void *ctx;
	bool failed;
};

static struct prune *prune_ctx;	/* twalk() passes no context */

static void note_dead(const void *node, VISIT which, int depth)
{
	struct gen_count *g = *(struct gen_count *const *)node;
	struct prune *p = prune_ctx;

	(void)depth;
	if ((which != postorder && which != leaf) || g->gen == PID_TOTAL)
		return;
	if (p->alive(g->pid, g->gen, p->ctx))
		return;
	if (p->nr == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		struct gen_count **d = realloc(p->dead, cap * sizeof(*d));

		if (!d) {
			p->failed = true;
			return;
		}
		p->dead = d;
		p->cap = cap;
	}
	p->dead[p->nr++] = g;
}

static bool is_dead(const struct prune *p, uint32_t pid, uint32_t gen)
{
	struct gen_count key = { .pid = pid, .gen = gen };

	/* dead[] is in tree order: sorted by (pid, gen) */
	for (size_t lo = 0, hi = p->nr; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_gen(&key, p->dead[mid]);

		if (!c)
			return true;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return false;
}

void py_names__prune(struct py_names *n, py_alive_fn alive, void *ctx)
{
	struct prune p = { .alive = alive, .ctx = ctx };

	prune_ctx = &p;
	twalk(n->gens, note_dead);
	prune_ctx = NULL;
	for (size_t i = 0; i < n->nr_buckets && p.nr; i++) {
		struct name_entry **slot = &n->buckets[i];

		while (*slot) {
			struct name_entry *e = *slot;

			if (!is_dead(&p, e->pid, e->gen)) {
				slot = &e->next;
				continue;
			}
			*slot = e->next;
			free(e);
			n->nr--;
		}
	}
	for (size_t i = 0; i < p.nr; i++) {
		struct gen_count *g = p.dead[i], key = { .pid = g->pid, .gen = PID_TOTAL }, **t;

		t = tfind(&key, &n->gens, cmp_gen);
		if (t && (*t)->nr <= g->nr) {
			struct gen_count *total = *t;

			tdelete(total, &n->gens, cmp_gen);
			free(total);
		} else if (t) {
			(*t)->nr -= g->nr;
		}
		tdelete(g, &n->gens, cmp_gen);
		free(g);
	}
	free(p.dead);
}

void py_names__stats(const struct py_names *n, struct py_names_stats *st)
{
	*st = n->stats;
}
