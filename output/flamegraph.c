// SPDX-License-Identifier: GPL-2.0
/*
 * flamegraph.c - the SVG flame graph writer: merge the stacks into a tree
 * of frames, lay each level out left to right in alphabetical order, and
 * write one <g> (title, rect, text) per frame plus the script that makes
 * the graph zoomable and searchable in a browser (flamegraph.js, which
 * the build embeds).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/escape.h"
#include "output/flamegraph.h"
#include "flamegraph_js.h"	/* generated from flamegraph.js */
#include "common/fnv.h"
#include "output/keymap.h"
#include "trace_helpers.h"

/* Geometry, in SVG user units (pixels). */
#define FG_WIDTH 1200
#define FG_XPAD 10
#define FG_FRAME_H 16
#define FG_FONT 12
#define FG_CHAR_W (FG_FONT * 0.59)	/* Verdana's average glyph width */
#define FG_YPAD_TOP (FG_FONT * 3)	/* title and buttons */
#define FG_YPAD_BOTTOM (FG_FONT * 2 + 10)	/* the details line */
/* Leave out frames below 1/FG_MIN_SHARE of all samples. */
#define FG_MIN_SHARE 1000

enum fg_kind {
	FG_ROOT,
	FG_CONTAINER,		/* --by-container: above the processes */
	FG_PROCESS,
	FG_USER,
	FG_KERNEL,
	FG_MARKER,
};

struct fg_node {
	const char *name;	/* borrowed from the profile */
	size_t parent;
	uint64_t count;		/* samples in this frame and above it */
	uint64_t x;		/* samples left of it at its level */
	unsigned int depth;
	enum fg_kind kind;
};

struct fg_tree {
	struct keymap *index;	/* (parent, kind, name) -> node */
	struct fg_node *nodes;
	size_t cap;
	struct key key;
};

/* "[unknown]", "[libfoo.so]", "[Missed User Stack]": no symbol behind it. */
static bool is_marker(const char *name)
{
	size_t len = strlen(name);

	return len >= 2 && name[0] == '[' && name[len - 1] == ']';
}

static enum fg_kind frame_kind(const struct pf_frame *f)
{
	if (is_marker(f->name))
		return FG_MARKER;
	return f->kernel ? FG_KERNEL : FG_USER;
}

/* The child of parent with this kind and name, created if new; -ENOMEM. */
static int tree__child(struct fg_tree *t, size_t parent, enum fg_kind kind, const char *name,
		       size_t *child)
{
	int ret;

	key__reset(&t->key);
	key__add_u64(&t->key, parent);
	key__add_u64(&t->key, kind);
	key__add_str(&t->key, name);
	ret = keymap__intern_key(t->index, &t->key, child);
	if (ret <= 0)
		return ret;
	if (array_reserve((void **)&t->nodes, &t->cap, *child, sizeof(*t->nodes)))
		return -ENOMEM;
	t->nodes[*child] = (struct fg_node){
		.name = name,
		.parent = parent,
		.depth = parent == *child ? 0 : t->nodes[parent].depth + 1,
		.kind = kind,
	};
	return 0;
}

static int tree__build(struct fg_tree *t, const struct pf_profile *p)
{
	size_t root, node;
	int err;

	t->index = keymap__new();
	if (!t->index)
		return -ENOMEM;
	/* the root is its own parent: node 0 */
	if ((err = tree__child(t, 0, FG_ROOT, "all", &root)))
		return err;
	for (size_t i = 0; i < p->nr_samples; i++) {
		const struct pf_sample *s = &p->samples[i];

		t->nodes[root].count += s->count;
		node = root;
		if (s->container_id) {
			err = tree__child(t, root, FG_CONTAINER, s->container_id, &node);
			if (err)
				return err;
			t->nodes[node].count += s->count;
		}
		err = tree__child(t, node, FG_PROCESS, s->comm ? s->comm : "", &node);
		if (err)
			return err;
		t->nodes[node].count += s->count;
		for (size_t j = 0; j < s->nr_frames; j++) {
			const struct pf_frame *f = &s->frames[j];

			if ((err = tree__child(t, node, frame_kind(f), f->name, &node)))
				return err;
			t->nodes[node].count += s->count;
		}
	}
	return 0;
}

static void tree__release(struct fg_tree *t)
{
	keymap__free(t->index);
	free(t->nodes);
	key__release(&t->key);
}

/* qsort has no context argument: the nodes being sorted. */
static const struct fg_node *sort_nodes;

/* By parent, then name, then kind: siblings end up together, in order. */
static int cmp_siblings(const void *a, const void *b)
{
	const struct fg_node *x = &sort_nodes[*(const size_t *)a];
	const struct fg_node *y = &sort_nodes[*(const size_t *)b];
	int c;

	if (x->parent != y->parent)
		return (x->parent > y->parent) - (x->parent < y->parent);
	c = strcmp(x->name, y->name);
	if (c)
		return c;
	return (x->kind > y->kind) - (x->kind < y->kind);
}

/*
 * Give every node its x. Nodes are created after their parents, so in
 * sibling groups sorted by parent index a parent's x is always known
 * before its children are placed.
 */
static int tree__layout(struct fg_tree *t)
{
	size_t n = keymap__count(t->index), *order, parent = 0;
	uint64_t cursor = 0;

	if (n < 2)
		return 0;
	order = malloc((n - 1) * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (size_t i = 1; i < n; i++)
		order[i - 1] = i;
	sort_nodes = t->nodes;
	qsort(order, n - 1, sizeof(*order), cmp_siblings);
	for (size_t i = 0; i < n - 1; i++) {
		struct fg_node *node = &t->nodes[order[i]];

		if (i == 0 || node->parent != parent) {
			parent = node->parent;
			cursor = t->nodes[parent].x;
		}
		node->x = cursor;
		cursor += node->count;
	}
	free(order);
	return 0;
}

static bool tree__shown(const struct fg_tree *t, size_t i)
{
	uint64_t total = t->nodes[0].count;

	/* the root always, so that an empty profile still draws */
	return i == 0 || t->nodes[i].count * FG_MIN_SHARE >= total;
}

/* A shade from a palette, the same for the same name in every graph. */
static void frame_colour(const struct fg_node *n, int *r, int *g, int *b)
{
	uint32_t h = fnv32_str(n->name);
	double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0;

	switch (n->kind) {
	case FG_KERNEL:		/* orange */
		*r = 210 + (int)(45 * v1);
		*g = 110 + (int)(60 * v2);
		*b = 0;
		break;
	case FG_MARKER:		/* grey */
	case FG_ROOT:
		*r = *g = *b = 170 + (int)(30 * v1);
		break;
	case FG_CONTAINER:	/* blue */
		*r = *g = 90 + (int)(50 * v1);
		*b = 200 + (int)(40 * v2);
		break;
	case FG_PROCESS:	/* yellow */
		*r = *g = 185 + (int)(55 * v1);
		*b = 50 + (int)(30 * v2);
		break;
	case FG_USER:		/* red */
	default:
		*r = 200 + (int)(55 * v1);
		*g = *b = 50 + (int)(80 * v2);
		break;
	}
}

/* The label that fits in w pixels: the name, cut short with "..", or none. */
static void write_label(struct sink *o, const char *name, double w)
{
	size_t fit = w > 6 ? (size_t)((w - 6) / FG_CHAR_W) : 0, len = strlen(name);
	char *cut;

	if (fit < 3)
		return;
	if (len <= fit) {
		sink__xml(o, name);
		return;
	}
	len = fit - 2;
	/* do not split a UTF-8 sequence */
	while (len && ((unsigned char)name[len] & 0xc0) == 0x80)
		len--;
	cut = strndup(name, len);
	if (!cut) {
		sink__fail(o, -ENOMEM);
		return;
	}
	sink__xml(o, cut);
	sink__printf(o, "..");
	free(cut);
}

/*
 * A frame's tooltip: its name, then how much of the profile it holds, in
 * samples or (p->measure) in time, and its share.
 */
static void write_frame(struct sink *o, const struct pf_profile *p, const struct fg_tree *t,
			size_t i, double height)
{
	const struct fg_node *n = &t->nodes[i];
	uint64_t total = t->nodes[0].count;
	double scale = total ? (double)(FG_WIDTH - 2 * FG_XPAD) / (double)total : 0;
	double x = FG_XPAD + (double)n->x * scale;
	double w = total ? (double)n->count * scale : FG_WIDTH - 2 * FG_XPAD;
	double y = height - FG_YPAD_BOTTOM - (n->depth + 1) * FG_FRAME_H;
	int r, g, b;

	frame_colour(n, &r, &g, &b);
	sink__printf(o, "<g><title>");
	sink__xml(o, n->name);
	if (p->measure)
		sink__printf(o, " (%.3f ms, %.2f%%)</title>", (double)n->count / 1e6,
			     total ? 100.0 * (double)n->count / (double)total : 100.0);
	else
		sink__printf(o, " (%" PRIu64 " sample%s, %.2f%%)</title>", n->count,
			     n->count == 1 ? "" : "s",
			     total ? 100.0 * (double)n->count / (double)total : 100.0);
	sink__printf(o, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
		   "fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/>",
		   x, y, w, FG_FRAME_H - 1, r, g, b);
	sink__printf(o, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + FG_FRAME_H / 2.0 + FG_FONT / 2.0 - 2);
	write_label(o, n->name, w);
	sink__printf(o, "</text></g>\n");
}

static void write_head(struct sink *o, const struct pf_profile *p, double height)
{
	sink__printf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		   "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
		   "width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\" onload=\"init(evt)\">\n",
		   FG_WIDTH, height, FG_WIDTH, height);
	sink__printf(o, "<defs><linearGradient id=\"background\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
		   "<stop stop-color=\"#eeeeee\" offset=\"5%%\"/>"
		   "<stop stop-color=\"#eeeeb0\" offset=\"95%%\"/></linearGradient></defs>\n");
	sink__printf(o, "<style type=\"text/css\">\n"
		   "text { font-family: Verdana, sans-serif; font-size: %dpx; fill: rgb(0,0,0); }\n"
		   "#title { font-size: 17px; }\n"
		   "#frames g:hover rect { stroke: black; stroke-width: 0.5; cursor: pointer; }\n"
		   "#frames g text { pointer-events: none; }\n"
		   ".button { cursor: pointer; opacity: 0.7; }\n"
		   ".button:hover, .button.active { opacity: 1; }\n"
		   ".hide { display: none; }\n"
		   ".parent { opacity: 0.5; }\n"
		   "</style>\n", FG_FONT);
	/* the script's strict mode first, then what it needs of the geometry */
	sink__printf(o, "<script type=\"text/ecmascript\"><![CDATA[\n\"use strict\";\n"
		     "var XPAD = %d, FULLW = %d, CHARW = %.3f;\n",
		     FG_XPAD, FG_WIDTH - 2 * FG_XPAD, FG_CHAR_W);
	sink__write(o, flamegraph_js, sizeof(flamegraph_js));
	sink__printf(o, "]]></script>\n");
	sink__printf(o, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%.0f\" fill=\"url(#background)\"/>\n",
		   FG_WIDTH, height);
	sink__printf(o, "<text id=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">",
		   FG_WIDTH / 2);
	sink__xml(o, p->title && *p->title ? p->title : "Flame Graph");
	sink__printf(o, "</text>\n");
	sink__printf(o, "<text id=\"unzoom\" class=\"button hide\" x=\"%d\" y=\"24\">Reset Zoom</text>\n",
		   FG_XPAD);
	sink__printf(o, "<text id=\"search\" class=\"button\" x=\"%d\" y=\"24\">Search</text>\n",
		   FG_WIDTH - FG_XPAD - 100);
	sink__printf(o, "<text id=\"details\" x=\"%d\" y=\"%.0f\"> </text>\n",
		   FG_XPAD, height - FG_FONT);
	sink__printf(o, "<text id=\"matched\" class=\"hide\" x=\"%d\" y=\"%.0f\"> </text>\n",
		   FG_WIDTH - FG_XPAD - 100, height - FG_FONT);
}

int flamegraph__write_svg(const struct pf_profile *p, FILE *out)
{
	struct fg_tree t = { 0 };
	struct sink o = { .f = out };
	unsigned int max_depth = 0;
	double height;
	size_t n;
	int err;

	err = tree__build(&t, p);
	if (!err)
		err = tree__layout(&t);
	if (err)
		goto out;
	n = keymap__count(t.index);
	for (size_t i = 0; i < n; i++) {
		if (tree__shown(&t, i) && t.nodes[i].depth > max_depth)
			max_depth = t.nodes[i].depth;
	}
	height = FG_YPAD_TOP + (max_depth + 1) * FG_FRAME_H + FG_YPAD_BOTTOM;

	write_head(&o, p, height);
	sink__printf(&o, "<g id=\"frames\">\n");
	for (size_t i = 0; i < n; i++) {
		if (tree__shown(&t, i))
			write_frame(&o, p, &t, i, height);
	}
	sink__printf(&o, "</g>\n</svg>\n");
	err = o.err;
out:
	tree__release(&t);
	return err;
}
