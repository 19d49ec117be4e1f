// SPDX-License-Identifier: GPL-2.0
/*
 * test_usyms_gens.c - generations of a process on a fake /proc: each is
 * resolved against its own image, a reading taken across an exec is
 * dropped, a gone mapping still names its samples, and generations that
 * are no longer current are freed.
 */
#include "fake_proc.h"
#include "sym_fixtures.h"
#include "symbols/proc_maps.h"
#include "symbols/usyms.h"

#define BIAS 0x7f2000000000ULL

/* What the sampler answers for "which generation runs now", in turn; the last repeats. */
static uint32_t answers[8];
static size_t nr_answers, next_answer;

static void setup(void)
{
	fake_proc_setup();
	nr_answers = next_answer = 0;
}

TestSuite(usyms_gens, .init = setup, .fini = fake_proc_teardown);

static void answer(size_t n, const uint32_t *gens)
{
	memcpy(answers, gens, n * sizeof(*gens));
	nr_answers = n;
	next_answer = 0;
}

static uint32_t fake_gen(pid_t pid, void *ctx)
{
	(void)ctx;
	if (pid != 42 || !nr_answers)
		return 0;
	if (next_answer < nr_answers - 1)
		return answers[next_answer++];
	return answers[nr_answers - 1];
}

static struct usyms *new_usyms(void)
{
	struct usyms_opts opts = { .proc_root = proc_root, .demangle = true };
	struct usyms *u = usyms__new_opts(&opts);

	cr_assert_not_null(u);
	usyms__set_gen_fn(u, fake_gen, NULL);
	return u;
}

/* pid 42 maps path's text at BIAS. */
static void maps_file(const char *path)
{
	char *line = exec_mapping_line(path, BIAS, NULL);

	fake_process(proc_root, 42, line, getuid(), 42, NULL);
	free(line);
}

static uint64_t addr_in(const char *path, const char *name)
{
	uint64_t addr, size;

	nm_symbol(path, name, &addr, &size);
	return BIAS + addr;
}

static const char *name_at(struct usyms *u, uint32_t gen, uint64_t addr, struct usym *sym)
{
	struct usyms_where w = { .pid = 42, .gen = gen, .from_ns = 0, .to_ns = UINT64_MAX };

	return usyms__resolve_at(u, &w, addr, 1, sym) ? NULL : sym->name;
}

Test(usyms_gens, each_generation_is_resolved_against_its_own_image)
{
	uint64_t in_prog = addr_in(FIXTURE_PIE, "prog_alpha");
	struct usyms *u = new_usyms();
	struct usym sym;
	const char *name;

	answer(1, (uint32_t[]){ 1 });
	maps_file(FIXTURE_PIE);
	cr_assert_eq(usyms__add_gen(u, 42, 1), 0);
	/* exec: another file at the same place */
	answer(1, (uint32_t[]){ 2 });
	maps_file(FIXTURE_LIB);
	cr_assert_eq(usyms__add_gen(u, 42, 2), 0);

	cr_assert_str_eq(name_at(u, 1, in_prog, &sym), "prog_alpha");
	name = name_at(u, 2, in_prog, &sym);
	cr_assert(!name || strcmp(name, "prog_alpha"), "generation 2 named from the old image");
	cr_assert(ends_with(sym.module, "/libfixture.so"), "module '%s'", sym.module);
	cr_assert_str_eq(name_at(u, 2, addr_in(FIXTURE_LIB, "fixture_lib_entry"), &sym),
			 "fixture_lib_entry");
	cr_assert_eq(usyms__nr_gens(u), 2);
	usyms__free(u);
}

Test(usyms_gens, a_generation_no_longer_running_is_not_read)
{
	struct usyms *u = new_usyms();
	struct usym sym;

	answer(1, (uint32_t[]){ 2 });
	maps_file(FIXTURE_PIE);
	cr_assert_eq(usyms__add_gen(u, 42, 1), -ESRCH);
	cr_assert_null(name_at(u, 1, addr_in(FIXTURE_PIE, "prog_alpha"), &sym));
	cr_assert_eq(sym.reason, USYM_PROCESS_GONE);
	usyms__free(u);
}

Test(usyms_gens, a_reading_taken_across_an_exec_is_dropped)
{
	struct usyms *u = new_usyms();
	struct usym sym;

	/* generation 1 when the reading starts, 2 when it ends */
	answer(2, (uint32_t[]){ 1, 2 });
	maps_file(FIXTURE_LIB);
	cr_assert_eq(usyms__add_gen(u, 42, 1), -ESRCH);
	cr_assert_null(name_at(u, 1, addr_in(FIXTURE_LIB, "fixture_lib_entry"), &sym));
	cr_assert_eq(sym.reason, USYM_PROCESS_GONE);
	cr_assert_eq(usyms__nr_files(u), 0, "no file read for a dropped reading");
	usyms__free(u);
}

Test(usyms_gens, refresh_reads_the_generation_that_runs_now)
{
	struct usyms *u = new_usyms();
	struct usym sym;

	maps_file(FIXTURE_PIE);
	cr_assert_eq(usyms__refresh_pid(u, 42), -ESRCH, "not sampled yet: nothing to read");
	cr_assert_eq(usyms__nr_gens(u), 0);
	answer(1, (uint32_t[]){ 7 });
	cr_assert_eq(usyms__refresh_pid(u, 42), 0);
	cr_assert_str_eq(name_at(u, 7, addr_in(FIXTURE_PIE, "prog_alpha"), &sym), "prog_alpha");
	usyms__free(u);
}

Test(usyms_gens, generations_that_ended_are_freed_at_the_second_prune)
{
	struct usyms *u = new_usyms();
	struct usym sym;

	answer(1, (uint32_t[]){ 1 });
	maps_file(FIXTURE_PIE);
	cr_assert_eq(usyms__add_gen(u, 42, 1), 0);
	answer(1, (uint32_t[]){ 2 });
	cr_assert_eq(usyms__add_gen(u, 42, 2), 0);
	cr_assert_eq(usyms__nr_gens(u), 2);
	/* samples of generation 1 may still be in the maps: kept once */
	usyms__prune(u);
	cr_assert_eq(usyms__nr_gens(u), 2);
	cr_assert_str_eq(name_at(u, 1, addr_in(FIXTURE_PIE, "prog_alpha"), &sym), "prog_alpha");
	usyms__prune(u);
	cr_assert_eq(usyms__nr_gens(u), 1, "generation 1 is freed, 2 still runs");
	usyms__prune(u);
	cr_assert_eq(usyms__nr_gens(u), 1);
	usyms__free(u);
}

/* pid 42 maps the program at BIAS and each of libs[] 16 GiB above the one before. */
static void maps_with(const char *const *libs, size_t nr)
{
	char *maps = exec_mapping_line(FIXTURE_PIE, BIAS, NULL);

	for (size_t i = 0; i < nr; i++) {
		char *line = exec_mapping_line(libs[i], BIAS + ((i + 1) << 34), NULL), *both;

		cr_assert_neq(asprintf(&both, "%s%s", maps, line), -1);
		free(maps);
		free(line);
		maps = both;
	}
	fake_process(proc_root, 42, maps, getuid(), 42, NULL);
	free(maps);
}

/* Resolve addr for up to 2 s: a re-read waits until the last reading's cost is paid. */
static const char *name_within_2s(struct usyms *u, uint64_t addr, struct usym *sym)
{
	const char *name = NULL;

	for (int i = 0; i < 200 && !name; i++) {
		if (i)
			usleep(10000);
		name = name_at(u, 1, addr, sym);
	}
	return name;
}

Test(usyms_gens, a_library_loaded_after_the_reading_is_found_on_a_miss)
{
	const char *lib[] = { FIXTURE_LIB };
	uint64_t func = addr_in(FIXTURE_LIB, "fixture_lib_func") + (1ull << 34);
	struct usyms *u = new_usyms();
	struct usym sym;

	answer(1, (uint32_t[]){ 1 });
	maps_with(NULL, 0);
	cr_assert_eq(usyms__add_gen(u, 42, 1), 0);
	/* dlopen() */
	maps_with(lib, 1);
	cr_assert_str_eq(name_within_2s(u, func, &sym) ?: "(none)", "fixture_lib_func",
			 "reason '%s'", usym_reason__str(sym.reason));
	usyms__free(u);
}

Test(usyms_gens, misses_read_the_maps_again_once_an_interval)
{
	const char *libs[] = { FIXTURE_LIB, FIXTURE_CXX };
	uint64_t func = addr_in(FIXTURE_LIB, "fixture_lib_func") + (1ull << 34);
	uint64_t plain = addr_in(FIXTURE_CXX, "plain_c_function") + (2ull << 34);
	struct usyms *u = new_usyms();
	struct usym sym;

	answer(1, (uint32_t[]){ 1 });
	maps_with(NULL, 0);
	cr_assert_eq(usyms__add_gen(u, 42, 1), 0);
	maps_with(libs, 1);
	cr_assert_str_eq(name_within_2s(u, func, &sym) ?: "(none)", "fixture_lib_func");
	/* a second library in the same interval waits for the next one */
	maps_with(libs, 2);
	cr_assert_null(name_within_2s(u, plain, &sym));
	cr_assert_eq(sym.reason, USYM_NO_MAPPING);
	usyms__prune(u);
	cr_assert_str_eq(name_within_2s(u, plain, &sym) ?: "(none)", "plain_c_function");
	usyms__free(u);
}

/* A generation read again with nothing new is said to be so, and still named; a change is read. */
Test(usyms_gens, a_reading_with_nothing_new_is_told_apart)
{
	const char *lib[] = { FIXTURE_LIB };
	uint64_t func = addr_in(FIXTURE_LIB, "fixture_lib_func") + (1ull << 34), same;
	struct usyms *u = new_usyms();
	struct proc_maps kept;
	struct usym sym;

	answer(1, (uint32_t[]){ 1 });
	maps_with(NULL, 0);
	cr_assert_eq(usyms__add_gen(u, 42, 1), 0);
	cr_assert_eq(usyms__add_gen_shared(u, 42, 1, &kept), USYMS_SAME_READING);
	cr_assert_eq(kept.nr, 1, "the reading is handed over all the same");
	proc_maps__release(&kept);
	cr_assert_eq(usyms__nr_readings(u, &same), 2);
	cr_assert_eq(same, 1);
	/* dlopen(): something new */
	maps_with(lib, 1);
	cr_assert_eq(usyms__add_gen_shared(u, 42, 1, &kept), 0);
	cr_assert_eq(kept.nr, 2);
	proc_maps__release(&kept);
	cr_assert_str_eq(name_at(u, 1, func, &sym) ?: "(none)", "fixture_lib_func");
	cr_assert_str_eq(name_at(u, 1, addr_in(FIXTURE_PIE, "prog_alpha"), &sym) ?: "(none)",
			 "prog_alpha");
	cr_assert_eq(usyms__add_gen(u, 42, 1), 0, "nothing new, an error");
	/* another file where the library was */
	lib[0] = FIXTURE_CXX;
	maps_with(lib, 1);
	cr_assert_eq(usyms__add_gen(u, 42, 1), 0);
	cr_assert_eq(usyms__nr_readings(u, &same), 5);
	cr_assert_eq(same, 2);
	usyms__free(u);
}
