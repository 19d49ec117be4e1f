// SPDX-License-Identifier: GPL-2.0
/*
 * test_report.c - resolving an aggregate into printed frames: kernel
 * return addresses are looked up one byte back, as user ones are, so a
 * call that ends a function names that function and not the next one;
 * kernel code loaded after kallsyms was read is named in the next report.
 */
#include "collect/aggregate.h"
#include "python/py_bpf.h"
#include "python/py_names.h"
#include "output/report.h"
#include "test_util.h"
#include "symbols/usyms.h"

static const char kallsyms[] =
	"ffffffff81000000 T caller\n"
	"ffffffff81000010 T next_func\n"
	"ffffffff81000100 T leaf_func\n"
	"ffffffff81000200 T end_of_text\n";

/* A report of kernel-only stacks over a kallsyms file the test writes. */
struct fixture {
	struct report_opts opts;
	struct usyms *u;
	struct report *r;
	char *dir, *path;
};

static void fixture_init(struct fixture *f, enum output_format format)
{
	*f = (struct fixture){
		.opts = {
			.kernel_only = true, .format = format, .max_stack_depth = 127,
			.frequency = 49,
		},
	};
	f->dir = make_tmpdir();
	f->path = write_in(f->dir, "kallsyms", kallsyms);
	f->u = usyms__new(NULL);
	cr_assert_not_null(f->u);
	f->r = report__new(&f->opts, f->u);
	cr_assert_not_null(f->r);
	cr_assert_eq(report__use_kallsyms(f->r, f->path), 0);
}

/* The report made again, for f->opts changed since (report__new() copies them). */
static void fixture_reopen(struct fixture *f)
{
	report__free(f->r);
	f->r = report__new(&f->opts, f->u);
	cr_assert_not_null(f->r);
	cr_assert_eq(report__use_kallsyms(f->r, f->path), 0);
}

static void fixture_release(struct fixture *f)
{
	report__free(f->r);
	usyms__free(f->u);
	free(f->path);
	rm_rf(f->dir);
}

/* The report of one kernel stack (leaf first) counted count times. */
static char *write_kernel_count(struct fixture *f, const uint64_t *ips, uint32_t nr,
				uint64_t count)
{
	struct agg_stack kern = { .ips = ips, .nr = nr }, user = { .err = AGG_NO_STACK };
	struct report_meta meta = { .event = "cpu-clock", .title = "t" };
	struct agg *agg = agg__new();
	char *text = NULL;
	size_t len = 0;
	uint64_t printed = 0;
	FILE *out;

	cr_assert_not_null(agg);
	cr_assert_eq(agg__add(agg, &(struct agg_key){ .pid = 0, .tid = 0, .comm = "swapper/0" },
			      &kern, &user, count), 0);
	out = open_memstream(&text, &len);
	cr_assert_not_null(out);
	cr_assert_eq(report__write(f->r, agg, &meta, out, &printed), 0);
	fclose(out);
	cr_assert_eq(printed, count);
	agg__free(agg);
	return text;
}

/* ... sampled 7 times. */
static char *write_kernel(struct fixture *f, const uint64_t *ips, uint32_t nr)
{
	return write_kernel_count(f, ips, nr, 7);
}

static char *folded_kernel(const uint64_t *ips, uint32_t nr)
{
	struct fixture f;
	char *text;

	fixture_init(&f, FORMAT_FOLDED);
	text = write_kernel(&f, ips, nr);
	fixture_release(&f);
	return text;
}

Test(report, kernel_return_address_at_a_function_end_names_the_caller)
{
	/* the call in caller is its last instruction: it returns to next_func's first byte */
	const uint64_t ips[] = { 0xffffffff81000104, 0xffffffff81000010 };
	char *text = folded_kernel(ips, 2);

	cr_assert(strstr(text, "caller;leaf_func 7"), "got: %s", text);
	free(text);
}

Test(report, kernel_leaf_is_looked_up_at_its_own_address)
{
	/* the interrupted instruction itself: the first byte of next_func is next_func */
	const uint64_t ips[] = { 0xffffffff81000010 };
	char *text = folded_kernel(ips, 1);

	cr_assert(strstr(text, "next_func 7"), "got: %s", text);
	free(text);
}

Test(report, kernel_code_loaded_after_the_reading_is_named_in_the_next_report)
{
	/* a BPF program loaded during the first interval (-i), after kallsyms was read */
	static const char with_prog[] =
		"ffffffff81000000 T caller\n"
		"ffffffff81000010 T next_func\n"
		"ffffffff81000100 T leaf_func\n"
		"ffffffff81000200 T end_of_text\n"
		"ffffffffa0010000 t bpf_prog_6deef7357e7b4530_on_cpu\t[bpf]\n";
	const uint64_t ips[] = { 0xffffffffa0010040, 0xffffffff81000104 };
	struct fixture f;
	char *text;

	fixture_init(&f, FORMAT_FOLDED);
	text = write_kernel(&f, ips, 2);
	cr_assert(strstr(text, "leaf_func;[unknown] 7"), "got: %s", text);
	free(text);
	write_text(f.path, with_prog);
	text = write_kernel(&f, ips, 2);
	cr_assert(strstr(text, "leaf_func;bpf_prog_6deef7357e7b4530_on_cpu [bpf] 7"), "got: %s", text);
	free(text);
	fixture_release(&f);
}

/*
 * --off-cpu: a thread's kernel stack taken as it left the CPU starts in
 * our BPF program and the tracepoint's glue, which are left out; the
 * nanoseconds print as microseconds, rounded up. A profile of samples
 * keeps every frame.
 */
Test(report, off_cpu_stacks_start_at_the_scheduler_in_microseconds)
{
	static const char syms[] =
		"ffffffff81000000 T schedule\n"
		"ffffffff81000100 T __schedule\n"
		"ffffffff81000200 T bpf_trace_run4\n"
		"ffffffff81000300 T end_of_text\n"
		"ffffffffa0010000 t bpf_prog_6deef7357e7b4530_on_switch\t[bpf]\n";
	const uint64_t ips[] = { 0xffffffffa0010040, 0xffffffff81000210, 0xffffffff81000120,
				 0xffffffff81000008 };
	struct fixture f;
	char *text;

	fixture_init(&f, FORMAT_FOLDED);
	write_text(f.path, syms);
	f.opts.off_cpu = true;
	fixture_reopen(&f);
	text = write_kernel_count(&f, ips, 4, 2500);
	cr_assert(strstr(text, "swapper/0;schedule;__schedule 3\n"), "got: %s", text);
	free(text);
	f.opts.off_cpu = false;
	fixture_reopen(&f);
	text = write_kernel_count(&f, ips, 4, 2500);
	cr_assert(strstr(text, "__schedule;bpf_trace_run4;bpf_prog_6deef7357e7b4530_on_switch [bpf] 2500"),
		  "got: %s", text);
	free(text);
	fixture_release(&f);
}

Test(report, structured_formats_look_kernel_return_addresses_up_one_byte_back)
{
	const uint64_t ips[] = { 0xffffffff81000104, 0xffffffff81000010 };
	struct fixture f;
	char *text;

	fixture_init(&f, FORMAT_JSON);
	text = write_kernel(&f, ips, 2);
	cr_assert(strstr(text, "\"caller\""), "got: %s", text);
	cr_assert_null(strstr(text, "next_func"), "got: %s", text);
	free(text);
	fixture_release(&f);
}

/* A function of this test program, for a user frame that has a name. */
__attribute__((noinline)) void report_test_native_frame(void);
__attribute__((noinline)) void report_test_native_frame(void)
{
	__asm__ volatile("");
}

static struct py_name_event py_event(uint64_t id, const char *func, const char *file)
{
	struct py_name_event e = {
		.pid = (uint32_t)getpid(), .gen = 0, .id = id, .firstlineno = 3,
		.qualname = { .len = (uint32_t)strlen(func), .nbytes = (uint16_t)strlen(func), .kind = 1 },
		.filename = { .len = (uint32_t)strlen(file), .nbytes = (uint16_t)strlen(file), .kind = 1 },
	};

	memcpy(e.name, func, strlen(func));
	memcpy(e.file, file, strlen(file));
	return e;
}

/*
 * Python words in a user stack print their names, or [python] where none
 * came; native frames between them resolve as always. A native walk that
 * turned to garbage (a frame-pointer walk through frameless code) is cut
 * there, and the Python frames the BPF side put after it follow the cut.
 */
Test(report, python_frames_are_named_and_follow_a_cut)
{
	const uint64_t a = PY_FRAME_BIT | PY_FRAME_NAMED | 1, b = PY_FRAME_BIT | PY_FRAME_NAMED | 2,
		       c = PY_FRAME_BIT | PY_FRAME_NAMED | 3;
	/* leaf first: a Python leaf, a native caller, garbage, two Python callers */
	const uint64_t ips[] = { a, (uint64_t)(uintptr_t)report_test_native_frame + 1, 0x10, b, c };
	struct agg_stack kern = { .err = AGG_NO_STACK }, user = { .ips = ips, .nr = 5 };
	struct report_meta meta = { .event = "cpu-clock", .title = "t" };
	struct py_names *names = py_names__new(16, 16);
	struct py_name_event ea = py_event(a, "Worker.run", "w.py"), eb = py_event(b, "main;x", "m.py");
	struct fixture f;
	struct agg *agg = agg__new();
	char *text = NULL;
	size_t len = 0;
	uint64_t printed;
	FILE *out;

	fixture_init(&f, FORMAT_FOLDED);
	f.opts.kernel_only = false;
	f.opts.user_only = true;
	fixture_reopen(&f);
	cr_assert_eq(py_names__add(names, &ea, sizeof(ea)), 0);
	cr_assert_eq(py_names__add(names, &eb, sizeof(eb)), 0);
	report__set_python(f.r, names);
	cr_assert_eq(usyms__add_pid(f.u, getpid()), 0);
	cr_assert_eq(agg__add(agg, &(struct agg_key){ .pid = (uint32_t)getpid(), .comm = "t" },
			      &kern, &user, 7), 0);
	out = open_memstream(&text, &len);
	cr_assert_not_null(out);
	cr_assert_eq(report__write(f.r, agg, &meta, out, &printed), 0);
	fclose(out);
	cr_expect_str_eq(text, "t;[python];main:x (m.py);[unknown];report_test_native_frame;Worker.run (w.py) 7\n");
	free(text);
	agg__free(agg);
	py_names__free(names);
	fixture_release(&f);
}

/*
 * --by-container: the same stack in two cgroups stays two stacks, each
 * under its container's frame; ids no directory has are said so. (The
 * host's hierarchy names the root cgroup; an id past any real one names
 * nothing.)
 */
Test(report, the_same_stack_in_two_cgroups_under_two_roots)
{
	const uint64_t ips[] = { 0xffffffff81000104 };
	struct agg_stack kern = { .ips = ips, .nr = 1 }, user = { .err = AGG_NO_STACK };
	struct report_meta meta = { .event = "cpu-clock", .title = "t" };
	struct fixture f;
	struct agg *agg = agg__new();
	char *text = NULL;
	size_t len = 0;
	uint64_t printed = 0;
	FILE *out;

	cr_assert_not_null(agg);
	cr_assert_eq(agg__add(agg, &(struct agg_key){ .comm = "k", .cgroup_id = 1ULL << 62 },
			      &kern, &user, 3), 0);
	cr_assert_eq(agg__add(agg, &(struct agg_key){ .comm = "k", .cgroup_id = (1ULL << 62) + 1 },
			      &kern, &user, 4), 0);
	cr_assert_eq(agg__add(agg, &(struct agg_key){ .comm = "k", .cgroup_id = 1ULL << 62 },
			      &kern, &user, 2), 0);
	cr_assert_eq(agg__nr_entries(agg), 2);
	fixture_init(&f, FORMAT_FOLDED);
	f.opts.by_container = true;
	fixture_reopen(&f);
	out = open_memstream(&text, &len);
	cr_assert_not_null(out);
	cr_assert_eq(report__write(f.r, agg, &meta, out, &printed), 0);
	fclose(out);
	cr_assert_eq(printed, 9);
	cr_assert_str_eq(text, "[cgroup 4611686018427387905];k;leaf_func 4\n"
			       "[cgroup 4611686018427387904];k;leaf_func 5\n");
	free(text);
	agg__free(agg);
	fixture_release(&f);
}
