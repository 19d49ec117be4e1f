// SPDX-License-Identifier: GPL-2.0
/*
 * test_py_names.c - the names of Python frames from the BPF side's
 * records (python/py_names.c): decoding, the label, what a record that
 * lies about its lengths gets, generations and pruning.
 */
#include <linux/types.h>

#include "python/py_bpf.h"
#include "python/py_names.h"
#include "test_util.h"

static struct py_name_event event(uint32_t pid, uint32_t gen, uint64_t id, const char *func,
				  const char *file, int first)
{
	struct py_name_event e = {
		.pid = pid, .gen = gen, .id = id | PY_FRAME_BIT | PY_FRAME_NAMED, .firstlineno = first,
		.qualname = { .len = (uint32_t)strlen(func), .nbytes = (uint16_t)strlen(func),
			      .kind = 1, .ascii = 1 },
		.filename = { .len = (uint32_t)strlen(file), .nbytes = (uint16_t)strlen(file),
			      .kind = 1, .ascii = 1 },
	};

	memcpy(e.name, func, strlen(func));
	memcpy(e.file, file, strlen(file));
	return e;
}

static const struct py_name *add_find(struct py_names *n, struct py_name_event *e)
{
	cr_assert_eq(py_names__add(n, e, sizeof(*e)), 0);
	return py_names__find(n, e->pid, e->gen, e->id);
}

Test(py_names, label_is_func_and_file)
{
	struct py_names *n = py_names__new(16, 16);
	struct py_name_event e = event(42, 1, 7, "Worker.run", "app/hot.py", 12);
	const struct py_name *pn = add_find(n, &e);

	cr_assert_not_null(pn);
	cr_expect_str_eq(pn->label, "Worker.run (app/hot.py)");
	cr_expect_str_eq(pn->func, "Worker.run");
	cr_expect_str_eq(pn->file, "app/hot.py");
	cr_expect_eq(pn->firstlineno, 12);
	/* no file: the function alone */
	e = event(42, 1, 8, "<lambda>", "", 1);
	cr_expect_str_eq(add_find(n, &e)->label, "<lambda>");
	py_names__free(n);
}

/* The same word in another generation, or process, is another frame. */
Test(py_names, keyed_by_process_generation_and_word)
{
	struct py_names *n = py_names__new(16, 16);
	struct py_name_event a = event(42, 1, 7, "a", "x.py", 1), b = event(42, 2, 7, "b", "x.py", 1);

	add_find(n, &a);
	add_find(n, &b);
	cr_expect_str_eq(py_names__find(n, 42, 1, a.id)->func, "a");
	cr_expect_str_eq(py_names__find(n, 42, 2, b.id)->func, "b");
	cr_expect_null(py_names__find(n, 43, 1, a.id));
	cr_expect_null(py_names__find(n, 42, 1, a.id ^ 1));
	/* sent twice: the first names stay */
	b = event(42, 1, 7, "other", "y.py", 2);
	cr_expect_eq(py_names__add(n, &b, sizeof(b)), 0);
	cr_expect_str_eq(py_names__find(n, 42, 1, a.id)->func, "a");
	py_names__free(n);
}

/* UCS-2, UCS-4, Latin-1 into UTF-8; what is no character becomes U+FFFD. */
Test(py_names, characters_of_every_kind)
{
	char out[64];
	const uint8_t latin1[] = { 'c', 0xe9 };			/* cé */
	const uint8_t ucs2[] = { 0x3b, 0x04, 0x00, 0xd8 };	/* л, a lone surrogate */
	const uint8_t ucs4[] = { 0x00, 0xf6, 0x01, 0x00, 0, 0, 0, 0 };	/* 🙀, NUL */

	py_names__decode(latin1, 2, 1, 2, out, sizeof(out));
	cr_expect_str_eq(out, "c\xc3\xa9");
	py_names__decode(ucs2, 4, 2, 2, out, sizeof(out));
	cr_expect_str_eq(out, "\xd0\xbb\xef\xbf\xbd");
	py_names__decode(ucs4, 8, 4, 2, out, sizeof(out));
	cr_expect_str_eq(out, "\xf0\x9f\x98\x80\xef\xbf\xbd");
	/* a name cut by the BPF side ends in "..." */
	py_names__decode((const uint8_t *)"abcdef", 3, 1, 6, out, sizeof(out));
	cr_expect_str_eq(out, "abc...");
	/* and one cut here, at a whole character */
	py_names__decode((const uint8_t *)"abcdefgh", 8, 1, 8, out, 8);
	cr_expect_str_eq(out, "abcd...");
	/* a kind that is none: nothing */
	py_names__decode((const uint8_t *)"abc", 3, 3, 3, out, sizeof(out));
	cr_expect_str_eq(out, "...");
}

/* A record that lies about its lengths, or is short, is refused whole. */
Test(py_names, malformed_records_are_refused)
{
	struct py_names *n = py_names__new(16, 16);
	struct py_name_event e = event(1, 1, 1, "f", "x.py", 1);
	struct py_names_stats st;

	e.qualname.nbytes = PY_NAME_BYTES + 1;
	cr_expect_eq(py_names__add(n, &e, sizeof(e)), -EINVAL);
	e = event(1, 1, 1, "f", "x.py", 1);
	e.filename.kind = 3;
	cr_expect_eq(py_names__add(n, &e, sizeof(e)), -EINVAL);
	e = event(1, 1, 1, "f", "x.py", 1);
	cr_expect_eq(py_names__add(n, &e, sizeof(e) - 1), -EINVAL);
	e.id &= ~PY_FRAME_BIT;
	cr_expect_eq(py_names__add(n, &e, sizeof(e)), -EINVAL);
	cr_expect_null(py_names__find(n, 1, 1, e.id | PY_FRAME_BIT));
	py_names__stats(n, &st);
	cr_expect_eq(st.malformed, 4);
	cr_expect_eq(st.names, 0);
	py_names__free(n);
}

/* ';' and newlines stay in the names: the writers escape them, as every name. */
Test(py_names, names_are_kept_as_they_are)
{
	struct py_names *n = py_names__new(16, 16);
	struct py_name_event e = event(1, 1, 1, "a;b\nc", "d;e.py", 1);

	cr_expect_str_eq(add_find(n, &e)->label, "a;b\nc (d;e.py)");
	py_names__free(n);
}

Test(py_names, at_most_max_names)
{
	struct py_names *n = py_names__new(2, 2);
	struct py_name_event e;
	struct py_names_stats st;

	for (uint64_t i = 0; i < 3; i++) {
		e = event(1, 1, i, "f", "x.py", 1);
		cr_expect_eq(py_names__add(n, &e, sizeof(e)), i < 2 ? 0 : -ENOSPC);
	}
	py_names__stats(n, &st);
	cr_expect_eq(st.dropped, 1);
	py_names__free(n);
}

static bool only_gen_2(pid_t pid, uint32_t gen, void *ctx)
{
	(void)pid;
	(void)ctx;
	return gen == 2;
}

/*
 * One process cannot take every name, nor by exec'ing itself (a new
 * generation of its pid): another still gets its own; once its old
 * generation is pruned, it has room again.
 */
Test(py_names, one_pid_takes_its_share)
{
	struct py_names *n = py_names__new(8, 3);
	struct py_name_event e;

	for (uint64_t i = 0; i < 5; i++) {
		e = event(1, 1, i, "f", "x.py", 1);
		cr_expect_eq(py_names__add(n, &e, sizeof(e)), i < 3 ? 0 : -ENOSPC);
	}
	e = event(2, 1, 1, "g", "y.py", 1);
	cr_expect_eq(py_names__add(n, &e, sizeof(e)), 0);
	e = event(1, 2, 9, "h", "x.py", 1);
	cr_expect_eq(py_names__add(n, &e, sizeof(e)), -ENOSPC);
	py_names__prune(n, only_gen_2, NULL);
	cr_expect_eq(py_names__add(n, &e, sizeof(e)), 0);
	py_names__free(n);
}

Test(py_names, prune_forgets_generations_gone)
{
	struct py_names *n = py_names__new(2500, 2500);
	struct py_name_event e;

	for (uint64_t i = 0; i < 2000; i++) {
		e = event(7, 1 + (i & 1), i, "f", "x.py", 1);
		add_find(n, &e);
	}
	py_names__prune(n, only_gen_2, NULL);
	for (uint64_t i = 0; i < 2000; i++) {
		e = event(7, 1 + (i & 1), i, "f", "x.py", 1);
		if (i & 1)
			cr_expect_not_null(py_names__find(n, 7, 2, e.id));
		else
			cr_expect_null(py_names__find(n, 7, 1, e.id));
	}
	/* room again for as many */
	for (uint64_t i = 0; i < 1000; i++) {
		e = event(8, 1, i, "g", "y.py", 1);
		cr_expect_eq(py_names__add(n, &e, sizeof(e)), 0);
	}
	py_names__free(n);
}
