// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - turn the raw stacks of an aggregate into named frames and
 * hand them to the writer of the chosen format.
 *
 * Past 600 lines on purpose: naming a stack's frames (kernel, native,
 * Python, the cut at the depth limit) and feeding them to the text or the
 * structured writers share one struct report and its scratch frame
 * arrays, which no other file sees; each format's writer is in a file of
 * its own (stack_fmt.c, flamegraph.c, pprof.c, speedscope.c).
 */
#include <errno.h>
#include <limits.h>
#include <search.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cache_dir.h"
#include "collect/cgroup_names.h"
#include "collect/cgroups.h"
#include "output/containers.h"
#include "collect/diagnose.h"
#include "output/flamegraph.h"
#include "symbols/kallsyms.h"
#include "symbols/kallsyms_cache.h"
#include "output/pprof.h"
#include <linux/types.h>

#include "profile.h"
#include "output/profile_data.h"
#include "python/py_bpf.h"
#include "python/py_names.h"
#include "output/report.h"
#include "output/speedscope.h"
#include "output/stack_cut.h"
#include "output/stack_fmt.h"

struct report {
	struct report_opts opts;
	struct usyms *usyms;
	struct kallsyms *kallsyms;
	bool kallsyms_waited;
	const char **kframes, **uframes;	/* scratch, max_stack_depth each */
	const char **umodules;			/* module of each uframes[i], or NULL */
	uint64_t *uaddrs;			/* address of each uframes[i]; 0: none */
	const struct py_name **upy;		/* a Python frame's names, or NULL */
	const struct py_names *py;		/* NULL: no Python frames named */
	struct containers *containers;		/* --by-container; NULL: not asked for */
	size_t unnamed_said;			/* containers__unnamed() said so far */
	void *offset_names;	/* --offsets: "[libfoo.so+0x1234]" (tsearch), until the write ends */
};

static const char *const UNKNOWN = "[unknown]";

struct report *report__new(const struct report_opts *opts, struct usyms *usyms)
{
	struct report *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->opts = *opts;
	r->usyms = usyms;
	r->kallsyms = kallsyms__new(NULL);
	r->kframes = calloc(opts->max_stack_depth, sizeof(*r->kframes));
	/* and the mark of a stack cut at the depth */
	r->uframes = calloc(opts->max_stack_depth + 1, sizeof(*r->uframes));
	r->umodules = calloc(opts->max_stack_depth + 1, sizeof(*r->umodules));
	r->uaddrs = calloc(opts->max_stack_depth + 1, sizeof(*r->uaddrs));
	r->upy = calloc(opts->max_stack_depth + 1, sizeof(*r->upy));
	if (opts->by_container) {
		char mount[PATH_MAX];

		/* none: cli__validate() refused the run; "[unknown]" in tests */
		if (cgroup2__mount("/proc/self/mountinfo", mount, sizeof(mount)))
			strcpy(mount, "/nonexistent");
		r->containers = containers__new(mount);
	}
	if (!r->kallsyms || !r->kframes || !r->uframes || !r->umodules || !r->uaddrs || !r->upy ||
	    (opts->by_container && !r->containers)) {
		report__free(r);
		errno = ENOMEM;
		return NULL;
	}
	return r;
}

void report__free(struct report *r)
{
	if (!r)
		return;
	kallsyms__free(r->kallsyms);
	containers__free(r->containers);
	tdestroy(r->offset_names, free);
	free(r->kframes);
	free(r->uframes);
	free(r->umodules);
	free(r->uaddrs);
	free(r->upy);
	free(r);
}

void report__set_python(struct report *r, const struct py_names *py)
{
	r->py = py;
}

/* The sample's container, when asked for; false when not. */
static bool label_of(struct report *r, const struct agg_entry *e, struct container_label *l)
{
	if (!r->containers)
		return false;
	containers__label(r->containers, e->cgroup_id, l);	/* "[unknown]" on failure */
	return true;
}

static int note_cgroup(const struct agg_entry *e, void *ctx)
{
	struct container_label l;

	return containers__label(ctx, e->cgroup_id, &l);
}

int report__note_cgroups(struct report *r, const struct agg *agg)
{
	return r->containers ? agg__for_each(agg, note_cgroup, r->containers) : 0;
}

void report__prefetch_kernel_symbols(struct report *r)
{
	kallsyms__prefetch(r->kallsyms);
}

int report__use_kallsyms(struct report *r, const char *path)
{
	struct kallsyms *k = kallsyms__new(path);

	if (!k)
		return -errno;
	kallsyms__free(r->kallsyms);
	r->kallsyms = k;
	r->kallsyms_waited = false;
	return 0;
}

int report__cache_kallsyms(struct report *r, const char *dir)
{
	char why[256], boot_id[KALLSYMS_BOOT_ID_LEN];
	int err;

	err = cache_dir__check(dir, geteuid(), why, sizeof(why));
	if (!err)
		err = cache_dir__make(dir, 0755, 0700);
	if (!err)
		err = kallsyms_cache__boot_id("/proc", boot_id, sizeof(boot_id));
	return err ? err : kallsyms__set_cache(r->kallsyms, dir, boot_id);
}

void report__kallsyms_stats(const struct report *r, bool *cached, unsigned int *reads)
{
	*cached = kallsyms__image_cached(r->kallsyms);
	*reads = kallsyms__nr_reads(r->kallsyms);
}

/*
 * Why kernel frames go unnamed, in one line. Every address reading 0 is
 * the kernel hiding them (kptr_restrict): from all but CAP_SYSLOG at 0 or
 * 1, which a service's capability bounding set may have left out; from
 * everyone at 2.
 */
static void say_no_kallsyms(int err)
{
	if (err == -EPERM && diagnose__sysctl("kptr_restrict") >= 2)
		fprintf(stderr, "profile: /proc/kallsyms hides every kernel address (kernel.kptr_restrict = 2); kernel frames stay [unknown]\n");
	else if (err == -EPERM)
		fprintf(stderr, "profile: kernel symbols need CAP_SYSLOG: /proc/kallsyms hides every address without it; kernel frames stay [unknown]\n");
	else
		fprintf(stderr, "profile: cannot read /proc/kallsyms: %s; kernel frames stay [unknown]\n",
			strerror(-err));
}

static const struct ksym *find_ksym(struct report *r, uint64_t addr)
{
	if (!r->kallsyms_waited) {
		/* read once a kernel frame is printed, if not prefetched */
		int err = kallsyms__wait(r->kallsyms);

		r->kallsyms_waited = true;
		if (err)
			say_no_kallsyms(err);
	}
	return kallsyms__find(r->kallsyms, addr);
}

/*
 * Kernel frame i of ips (0: the leaf). Return addresses (every frame but
 * the leaf) are looked up one byte back, in the call instruction, as user
 * ones are: a call that ends a function returns to the next function's
 * first byte.
 */
static const struct ksym *kernel_frame(struct report *r, const uint64_t *ips, size_t i)
{
	return find_ksym(r, ips[i] - (i > 0));
}

/* The profile counts time (--off-cpu, --wall), in ns, not samples. */
static bool counts_time(const struct report_opts *o)
{
	return o->off_cpu || o->wall;
}

struct kstack {
	struct report *r;
	const uint64_t *ips;
};

static const struct ksym *kstack_sym(size_t i, void *ctx)
{
	const struct kstack *k = ctx;

	return kernel_frame(k->r, k->ips, i);
}

/*
 * --off-cpu, --wall: the kernel stack of a thread leaving the CPU was
 * taken in our BPF program at sched_switch: how many of ips's frames are
 * the profiler's (stack_cut.h), left out.
 */
static size_t tracing_frames(struct report *r, const uint64_t *ips, size_t n)
{
	struct kstack k = { r, ips };

	return counts_time(&r->opts) ? stack_cut__tracing_frames(n, kstack_sym, &k) : 0;
}

/* Name kernel frames skip.. of ips into kframes[0..]. */
static void resolve_kernel(struct report *r, const uint64_t *ips, size_t n, size_t skip)
{
	for (size_t i = skip; i < n; i++) {
		const struct ksym *ks = kernel_frame(r, ips, i);

		/* module symbols carry their module: "func [module]" */
		r->kframes[i - skip] = ks ? ks->label : UNKNOWN;
	}
}

/* The root-most frame of a stack whose walk stopped at the depth limit. */
#define TRUNCATED "[truncated]"

static bool python_word(uint64_t word)
{
	return word & PY_FRAME_BIT;
}

/* The first Python frame of ips[from, n), or n. */
static size_t next_python(const uint64_t *ips, size_t from, size_t n)
{
	while (from < n && !python_word(ips[from]))
		from++;
	return from;
}

/* Frame k of the stack is the Python frame of word w. */
static void name_python(struct report *r, const struct agg_entry *e, size_t k, uint64_t w)
{
	const struct py_name *pn = r->py ? py_names__find(r->py, e->pid, e->gen, w) : NULL;

	r->uframes[k] = pn ? pn->label : PY_UNNAMED;
	r->umodules[k] = NULL;
	r->uaddrs[k] = 0;
	r->upy[k] = pn;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/*
 * --offsets: an unnamed frame with where it is in its file, "[libfoo.so+0x1234]",
 * kept until the end of the write (the structured writers hold the names
 * of every sample); the label alone when memory runs out.
 */
static const char *offset_name(struct report *r, const char *label, uint64_t file_addr)
{
	size_t len = strlen(label);
	char *name, **node;

	if (len < 2 || label[len - 1] != ']' ||
	    asprintf(&name, "%.*s+0x%llx]", (int)(len - 1), label, (unsigned long long)file_addr) < 0)
		return label;
	node = tsearch(name, &r->offset_names, str_cmp);
	if (!node) {
		free(name);
		return label;
	}
	if (*node != name)
		free(name);
	return *node;
}

/*
 * An unnamed native frame: its file's label, "[libfoo.so]". A run of
 * such frames of one file prints as one frame: nine "[liblzma.so.5]" in
 * a row say nothing more than one. --offsets prints each with its place
 * in the file instead. Returns whether frame k merged into frame k - 1.
 */
static bool name_unnamed(struct report *r, size_t k, const struct usym *sym, const char *prev_module)
{
	if (!sym->label) {
		r->uframes[k] = UNKNOWN;
		return false;
	}
	if (r->opts.offsets && sym->module) {
		r->uframes[k] = offset_name(r, sym->label, sym->file_addr);
		return false;
	}
	r->uframes[k] = sym->label;
	return sym->module && prev_module && !strcmp(sym->module, prev_module);
}

/*
 * Name the user frames; returns how many to print, and a TRUNCATED frame
 * after them when callers were left out at the depth limit. A stack
 * whose native frames turn to garbage (stack_cut.h) is cut there, but
 * for the Python frames after it, which the BPF side read from the
 * interpreter, not from the stack: they follow the cut. Unresolved
 * frames count by the stack's samples (usyms__for_each_unresolved).
 */
static size_t resolve_user(struct report *r, const struct agg_entry *e)
{
	const struct usyms_where w = {
		.pid = e->pid, .gen = e->gen, .from_ns = e->t_first, .to_ns = e->t_last,
	};
	const uint64_t *ips = e->ips + e->nr_kips;
	size_t n = e->nr_uips, k = 0;
	const char *unnamed_module = NULL;	/* of frame k - 1, when it is unnamed */
	/* unresolved frames counted by samples, or by microseconds of time */
	uint64_t weight = counts_time(&r->opts) ? e->count / 1000 + (e->count % 1000 != 0) : e->count;

	for (size_t i = 0; i < n; i++, k++) {
		bool merged = false;
		struct usym sym;

		if (python_word(ips[i])) {
			name_python(r, e, k, ips[i]);
			unnamed_module = NULL;
			continue;
		}
		/*
		 * Callers' frames hold return addresses: one byte back is the
		 * call, so --lines names the call's line, and a call ending
		 * its function is not taken for the next one. Unresolved:
		 * "[libfoo.so]" still names the file.
		 */
		if (!usyms__resolve_at(r->usyms, &w, ips[i] - (i > 0), weight, &sym)) {
			r->uframes[k] = sym.name;
			unnamed_module = NULL;
		} else if (name_unnamed(r, k, &sym, unnamed_module)) {
			merged = true;
		} else {
			unnamed_module = sym.module;
		}
		if (merged) {
			k--;	/* frame k - 1 stands for this one too, by its leaf-most address */
		} else {
			r->umodules[k] = sym.module;
			r->uaddrs[k] = ips[i];
			r->upy[k] = NULL;
		}
		if (stack_cut__ends_at(i, &sym)) {
			i = next_python(ips, i + 1, n);
			if (i == n)
				return k + 1;
			i--;
			unnamed_module = NULL;
		}
	}
	if (e->flags & KEY_USER_TRUNCATED) {
		r->uframes[k] = TRUNCATED;
		r->umodules[k] = NULL;
		r->uaddrs[k] = 0;
		r->upy[k] = NULL;
		k++;
	}
	return k;
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
	struct container_label l;

	if (label_of(r, e, &l))
		rec.container = l.id;

	if (!e->kerr) {
		size_t skip = tracing_frames(r, e->ips, e->nr_kips);

		rec.nr_kframes = e->nr_kips - skip;
		resolve_kernel(r, e->ips, e->nr_kips, skip);
	}
	if (!e->uerr)
		rec.nr_uframes = resolve_user(r, e);
	return stack_set__add(t->set, &rec);
}

static int write_text(struct report *r, const struct agg *agg, const struct report_meta *meta,
		      FILE *out, uint64_t *printed)
{
	const struct report_opts *o = &r->opts;
	struct stack_fmt_opts fmt = {
		.folded = o->format == FORMAT_FOLDED,
		.delimited = o->delimited,
		.annotations = o->annotations,
		.user_only = o->user_only,
		.kernel_only = o->kernel_only,
		.per_thread = o->nr_tids > 0,
		.root = meta->time_root,
		.ns_as_us = counts_time(o),
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

/* Building a pf_profile: one frame array for all samples. */
struct pf_ctx {
	struct report *r;
	struct pf_sample *samples;
	struct pf_frame *frames;
	size_t nr_samples, nr_frames;
};

static int count_frames(const struct agg_entry *e, void *ctx)
{
	struct pf_ctx *c = ctx;

	/* the stacks, a marker for each missed one, for a truncated one, and the container */
	c->nr_frames += e->nr_kips + e->nr_uips + 4;
	c->nr_samples++;
	return 0;
}

static struct pf_frame *marker(struct pf_frame *f, const char *name, bool kernel)
{
	*f = (struct pf_frame){ .name = name, .kernel = kernel };
	return f + 1;
}

static int add_pf(const struct agg_entry *e, void *ctx)
{
	struct pf_ctx *c = ctx;
	struct report *r = c->r;
	const struct report_opts *o = &r->opts;
	struct pf_frame *start = c->frames + c->nr_frames, *f = start;
	struct container_label l = {};

	/* pprof has labels for it, the SVG a frame above comm; speedscope a root frame */
	if (label_of(r, e, &l) && o->format == FORMAT_JSON)
		f = marker(f, l.id, false);
	if (!o->kernel_only) {
		if (agg_stack__missed(e->uerr)) {
			f = marker(f, "[Missed User Stack]", false);
		} else if (!e->uerr) {
			size_t n = resolve_user(r, e);

			for (size_t i = n; i-- > 0; f++) {
				const struct py_name *pn = r->upy[i];

				*f = (struct pf_frame){
					.name = r->uframes[i],
					.module = r->umodules[i],
					.addr = r->uaddrs[i],
					.func = pn ? pn->func : NULL,
					.src_file = pn ? pn->file : NULL,
					.start_line = pn ? pn->firstlineno : 0,
					.line = pn ? pn->line : 0,
				};
			}
		}
	}
	if (!o->user_only) {
		if (agg_stack__missed(e->kerr)) {
			f = marker(f, "[Missed Kernel Stack]", true);
		} else if (!e->kerr) {
			size_t skip = tracing_frames(r, e->ips, e->nr_kips);

			for (size_t i = e->nr_kips; i-- > skip; f++) {
				const struct ksym *ks = kernel_frame(r, e->ips, i);

				*f = (struct pf_frame){
					.name = ks ? ks->name : UNKNOWN,
					.module = ks && ks->module ? ks->module : "[kernel.kallsyms]",
					.addr = e->ips[i],
					.kernel = true,
				};
			}
		}
	}
	c->samples[c->nr_samples++] = (struct pf_sample){
		.comm = e->comm,
		.pid = e->pid,
		.tid = e->tid,
		.frames = start,
		.nr_frames = f - start,
		.count = e->count,
		.container_id = l.id,
		.cgroup = l.cgroup,
	};
	c->nr_frames += f - start;
	return 0;
}

static int write_structured(struct report *r, const struct agg *agg, const struct report_meta *meta,
			    FILE *out, uint64_t *printed)
{
	const struct report_opts *o = &r->opts;
	struct pf_ctx c = { .r = r };
	struct pf_profile p = {
		.start_ns = meta->start_ns,
		.duration_ns = meta->duration_ns,
		.frequency = o->period ? 0 : o->frequency,
		.period = o->period,
		.event = meta->event,
		.title = meta->title,
		.per_thread = o->nr_tids > 0,
		.of_targets = o->nr_pids || o->nr_tids || o->command,
		.measure = o->off_cpu ? "off_cpu" : o->wall ? "wall" : NULL,
	};
	int err;

	err = agg__for_each(agg, count_frames, &c);
	if (err)
		return err;
	c.samples = calloc(c.nr_samples ? c.nr_samples : 1, sizeof(*c.samples));
	c.frames = calloc(c.nr_frames ? c.nr_frames : 1, sizeof(*c.frames));
	if (!c.samples || !c.frames) {
		err = -ENOMEM;
		goto out;
	}
	c.nr_samples = c.nr_frames = 0;
	err = agg__for_each(agg, add_pf, &c);
	if (err)
		goto out;
	p.samples = c.samples;
	p.nr_samples = c.nr_samples;
	switch (o->format) {
	case FORMAT_PPROF:
		err = pprof__write(&p, out);
		break;
	case FORMAT_SVG:
		err = flamegraph__write_svg(&p, out);
		break;
	default:
		err = speedscope__write(&p, out);
		break;
	}
	if (!err && (fflush(out) || ferror(out)))
		err = errno ? -errno : -EIO;
	if (!err)
		*printed = agg__total(agg);
out:
	free(c.samples);
	free(c.frames);
	return err;
}

/* Cgroups printed as "[cgroup N]": one line, each time more are. */
static void say_unnamed(struct report *r)
{
	size_t n = r->containers ? containers__unnamed(r->containers) : 0;

	if (n <= r->unnamed_said)
		return;
	r->unnamed_said = n;
	fprintf(stderr, "profile: %zu cgroup%s not found in the cgroup v2 hierarchy (removed before a walk saw them, or past its %d directories or %d levels): shown as [cgroup ID]\n",
		n, n == 1 ? "" : "s", CGROUP_WALK_MAX_DIRS, CGROUP_WALK_MAX_DEPTH);
}

static int write_report(struct report *r, const struct agg *agg, const struct report_meta *meta,
			FILE *out, uint64_t *printed)
{
	int err;

	switch (r->opts.format) {
	case FORMAT_TEXT:
	case FORMAT_FOLDED:
		err = write_text(r, agg, meta, out, printed);
		break;
	default:
		err = write_structured(r, agg, meta, out, printed);
		break;
	}
	tdestroy(r->offset_names, free);
	r->offset_names = NULL;
	return err;
}

int report__write(struct report *r, const struct agg *agg, const struct report_meta *meta,
		  FILE *out, uint64_t *printed)
{
	int err;

	*printed = 0;
	/* kernel code loaded since the last reading of kallsyms: read it again on a miss */
	kallsyms__allow_reread(r->kallsyms);
	/* a failure is this write's, with its own errno, not an earlier one's */
	clearerr(out);
	errno = 0;
	err = write_report(r, agg, meta, out, printed);
	say_unnamed(r);
	return err;
}
