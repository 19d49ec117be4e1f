// SPDX-License-Identifier: GPL-2.0
/*
 * test_flamegraph.c - the SVG flame graph: well-formed XML (checked by
 * xmllint, not by us), widths proportional to samples, stacks merged from
 * the root, the root at the bottom, colours by kind, escaping, and the
 * script that zooms and searches.
 */
#include "output/flamegraph.h"
#include "output_util.h"

#define APP "/usr/bin/app"

static const struct pf_frame f_main = { "main", APP, NULL, 0x1000, false };
static const struct pf_frame f_hot_a = { "hot_a", APP, NULL, 0x1100, false };
static const struct pf_frame f_hot_b = { "hot_b", APP, NULL, 0x1200, false };
static const struct pf_frame f_hot_c = { "hot_c", APP, NULL, 0x1300, false };
static const struct pf_frame f_unknown = { "[unknown]", NULL, NULL, 0, false };
static const struct pf_frame f_sys = { "do_syscall_64", NULL, NULL, 0xffffffff81000000, true };

static const struct pf_frame st_a[] = { f_main, f_hot_a };
static const struct pf_frame st_b[] = { f_main, f_hot_b };
static const struct pf_frame st_c[] = { f_main, f_hot_c };

static struct pf_profile profile_of(const struct pf_sample *s, size_t n)
{
	return (struct pf_profile){
		.frequency = 99,
		.event = "cpu-clock",
		.title = "profile <test> & more",
		.samples = s,
		.nr_samples = n,
	};
}

static char *render(const struct pf_profile *p)
{
	struct memout m;

	cr_assert_eq(flamegraph__write_svg(p, memout__open(&m)), 0);
	return memout__text(&m);
}

static void assert_has(const char *svg, const char *text)
{
	cr_assert_not_null(strstr(svg, text), "no '%s' in the SVG", text);
}

/* xmllint, an XML parser of its own, must accept the file. */
static void assert_well_formed(const char *svg)
{
	char *dir = make_tmpdir(), *path = write_in(dir, "fg.svg", svg), cmd[4200];
	int ret;

	snprintf(cmd, sizeof(cmd), "xmllint --noout '%s'", path);
	ret = system(cmd);
	cr_assert_eq(ret, 0, "xmllint rejects the SVG (is libxml2-utils installed?)");
	free(path);
	rm_rf(dir);
}

struct frame_box {
	double x, y, w;
	int r, g, b;
	char title[256];
};

/* The n-th (from 0) frame named name, in file order; false when there is none. */
static bool find_frame_n(const char *svg, const char *name, int n, struct frame_box *box)
{
	char needle[300];
	const char *p = svg, *rect;

	snprintf(needle, sizeof(needle), "<g><title>%s (", name);
	for (int i = 0; (p = strstr(p, needle)); i++, p++) {
		if (i < n)
			continue;
		const char *end = strstr(p, "</title>");

		cr_assert_not_null(end);
		snprintf(box->title, sizeof(box->title), "%.*s", (int)(end - p - 10), p + 10);
		rect = strstr(p, "<rect ");
		cr_assert_not_null(rect);
		cr_assert_eq(sscanf(rect, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%*d\" "
				    "fill=\"rgb(%d,%d,%d)\"", &box->x, &box->y, &box->w,
				    &box->r, &box->g, &box->b), 6, "unexpected rect: %.120s", rect);
		return true;
	}
	return false;
}

static struct frame_box find_frame(const char *svg, const char *name)
{
	struct frame_box box;

	cr_assert(find_frame_n(svg, name, 0, &box), "no frame '%s' in the SVG", name);
	return box;
}

static int count_frames(const char *svg, const char *name)
{
	struct frame_box box;
	int n = 0;

	while (find_frame_n(svg, name, n, &box))
		n++;
	return n;
}

Test(flamegraph, widths_are_proportional_to_samples)
{
	const struct pf_sample s[] = {
		{ "app", 1, 1, st_a, 2, 5 },
		{ "app", 1, 1, st_b, 2, 3 },
		{ "app", 1, 1, st_c, 2, 2 },
	};
	struct pf_profile p = profile_of(s, ARRAY_SIZE(s));
	char *svg = render(&p);
	struct frame_box all, main, a, b, c;

	assert_well_formed(svg);
	all = find_frame(svg, "all");
	main = find_frame(svg, "main");
	a = find_frame(svg, "hot_a");
	b = find_frame(svg, "hot_b");
	c = find_frame(svg, "hot_c");
	cr_assert_gt(a.w, 0);
	cr_assert_float_eq(a.w / all.w, 0.5, 0.001, "hot_a is %f of the width", a.w / all.w);
	cr_assert_float_eq(b.w / all.w, 0.3, 0.001, "hot_b is %f of the width", b.w / all.w);
	cr_assert_float_eq(c.w / all.w, 0.2, 0.001, "hot_c is %f of the width", c.w / all.w);
	cr_assert_float_eq(a.w / b.w, 5.0 / 3.0, 0.01);
	cr_assert_float_eq(b.w / c.w, 3.0 / 2.0, 0.01);
	/* siblings side by side, alphabetical, filling their parent */
	cr_assert_float_eq(a.x, main.x, 0.01);
	cr_assert_float_eq(b.x, a.x + a.w, 0.01);
	cr_assert_float_eq(c.x, b.x + b.w, 0.01);
	cr_assert_float_eq(a.w + b.w + c.w, main.w, 0.02);
	cr_assert_str_eq(a.title, "hot_a (5 samples, 50.00%)");
	cr_assert_str_eq(c.title, "hot_c (2 samples, 20.00%)");
	cr_assert_str_eq(all.title, "all (10 samples, 100.00%)");
	free(svg);
}

/* --off-cpu, --wall: the counts are nanoseconds; a frame says its time. */
Test(flamegraph, a_measure_says_time)
{
	const struct pf_sample s[] = {
		{ "app", 1, 1, st_a, 2, 5000000 },
		{ "app", 1, 1, st_b, 2, 2500000 },
	};
	struct pf_profile p = profile_of(s, ARRAY_SIZE(s));
	char *svg;

	p.measure = "off_cpu";
	p.frequency = 0;
	svg = render(&p);
	assert_well_formed(svg);
	cr_assert_str_eq(find_frame(svg, "hot_a").title, "hot_a (5.000 ms, 66.67%)");
	cr_assert_str_eq(find_frame(svg, "all").title, "all (7.500 ms, 100.00%)");
	free(svg);
}

Test(flamegraph, root_at_the_bottom_then_process_then_frames)
{
	const struct pf_sample s[] = { { "app", 1, 1, st_a, 2, 5 } };
	struct pf_profile p = profile_of(s, ARRAY_SIZE(s));
	char *svg = render(&p);
	struct frame_box all = find_frame(svg, "all"), app = find_frame(svg, "app");
	struct frame_box main = find_frame(svg, "main"), a = find_frame(svg, "hot_a");

	/* SVG y grows downwards: callers below callees */
	cr_assert_gt(all.y, app.y);
	cr_assert_gt(app.y, main.y);
	cr_assert_gt(main.y, a.y);
	cr_assert_float_eq(all.y - app.y, app.y - main.y, 0.01, "levels not evenly spaced");
	free(svg);
}

/* --by-container: all, then a frame per container, then its processes */
Test(flamegraph, containers_between_the_root_and_the_processes)
{
	struct pf_sample s[] = {
		{ "app", 1, 1, st_a, 2, 5 },
		{ "app", 2, 2, st_b, 2, 3 },
		{ "cat", 3, 3, st_c, 2, 2 },
	};
	s[0].container_id = "box1";
	s[1].container_id = "/user.slice";
	s[2].container_id = "box1";
	struct pf_profile p = profile_of(s, ARRAY_SIZE(s));
	char *svg = render(&p);
	struct frame_box all = find_frame(svg, "all"), box = find_frame(svg, "box1");
	struct frame_box user = find_frame(svg, "/user.slice"), app = find_frame(svg, "app");

	cr_assert_gt(all.y, box.y);
	cr_assert_float_eq(box.y, user.y, 0.01);
	cr_assert_gt(box.y, app.y);
	/* app in two containers: two frames; box1 holds 7 of the 10 samples */
	cr_assert_eq(count_frames(svg, "app"), 2);
	cr_assert_eq(count_frames(svg, "box1"), 1);
	cr_assert_str_eq(box.title, "box1 (7 samples, 70.00%)");
	free(svg);
}

Test(flamegraph, stacks_merge_by_name_from_the_root)
{
	/* same names at other addresses merge; the same name under another caller does not */
	static const struct pf_frame main2 = { "main", APP, NULL, 0x1008, false };
	static const struct pf_frame hot_a2 = { "hot_a", APP, NULL, 0x1108, false };
	static const struct pf_frame again[] = { main2, hot_a2 };
	static const struct pf_frame other[] = { f_main, f_hot_b, f_hot_a };
	const struct pf_sample s[] = {
		{ "app", 1, 1, st_a, 2, 4 },
		{ "app", 2, 2, again, 2, 4 },
		{ "app", 1, 1, other, 3, 2 },
	};
	struct pf_profile p = profile_of(s, ARRAY_SIZE(s));
	char *svg = render(&p);

	cr_assert_eq(count_frames(svg, "main"), 1);
	cr_assert_eq(count_frames(svg, "app"), 1);
	cr_assert_eq(count_frames(svg, "hot_a"), 2);
	cr_assert_str_eq(find_frame(svg, "main").title, "main (10 samples, 100.00%)");
	free(svg);
}

Test(flamegraph, colours_tell_kernel_user_and_markers_apart)
{
	static const struct pf_frame st[] = { f_unknown, f_main, f_sys };
	const struct pf_sample s[] = { { "app", 1, 1, st, ARRAY_SIZE(st), 5 } };
	struct pf_profile p = profile_of(s, ARRAY_SIZE(s));
	char *svg = render(&p);
	struct frame_box k = find_frame(svg, "do_syscall_64"), u = find_frame(svg, "main");
	struct frame_box m = find_frame(svg, "[unknown]");

	/* user: red, green = blue; kernel: orange, no blue; marker: grey */
	cr_assert(u.r > u.g && u.g == u.b, "user rgb(%d,%d,%d)", u.r, u.g, u.b);
	cr_assert(k.r > k.g && k.g > k.b && k.b == 0, "kernel rgb(%d,%d,%d)", k.r, k.g, k.b);
	cr_assert(m.r == m.g && m.g == m.b, "marker rgb(%d,%d,%d)", m.r, m.g, m.b);
	/* the same name keeps its colour */
	free(svg);
	svg = render(&p);
	cr_assert_eq(find_frame(svg, "main").r, u.r);
	cr_assert_eq(find_frame(svg, "main").g, u.g);
	free(svg);
}

Test(flamegraph, names_are_escaped)
{
	static const struct pf_frame st[] = {
		{ "operator<<(std::ostream&, \"x\")", APP, NULL, 1, false },
		{ "bad\xff\xfe utf8 \x01 ctl", APP, NULL, 2, false },
		{ "caf\xc3\xa9 ]]> 'q'", APP, NULL, 3, false },
	};
	const struct pf_sample s[] = { { "a<b>&", 1, 1, st, ARRAY_SIZE(st), 5 } };
	struct pf_profile p = profile_of(s, ARRAY_SIZE(s));
	char *svg = render(&p);

	assert_well_formed(svg);
	assert_has(svg, "<title>operator&lt;&lt;(std::ostream&amp;, &quot;x&quot;) (");
	assert_has(svg, "<title>bad\xef\xbf\xbd\xef\xbf\xbd utf8 \xef\xbf\xbd ctl (");
	assert_has(svg, "<title>caf\xc3\xa9 ]]&gt; &apos;q&apos; (");
	assert_has(svg, "<title>a&lt;b&gt;&amp; (");
	assert_has(svg, ">profile &lt;test&gt; &amp; more</text>");
	free(svg);
}

Test(flamegraph, frames_under_a_thousandth_are_left_out)
{
	static const struct pf_frame tiny[] = { f_main, { "tiny", APP, NULL, 9, false } };
	static const struct pf_frame small[] = { f_main, { "small", APP, NULL, 8, false } };
	const struct pf_sample s[] = {
		{ "app", 1, 1, st_a, 2, 9989 },
		{ "app", 1, 1, small, 2, 10 },
		{ "app", 1, 1, tiny, 2, 1 },
	};
	struct pf_profile p = profile_of(s, ARRAY_SIZE(s));
	char *svg = render(&p);

	cr_assert_eq(count_frames(svg, "small"), 1, "0.1%% is shown");
	cr_assert_eq(count_frames(svg, "tiny"), 0, "0.01%% is not");
	assert_well_formed(svg);
	free(svg);
}

Test(flamegraph, long_names_are_cut_to_fit)
{
	static char longname[300];
	static struct pf_frame st[2];
	const struct pf_sample s[] = {
		{ "app", 1, 1, st, 2, 50 },
		{ "app", 1, 1, st_a, 2, 50 },
	};
	struct pf_profile p = profile_of(s, ARRAY_SIZE(s));
	struct frame_box box;
	const char *text, *label, *end;
	char *svg;

	memset(longname, 'x', sizeof(longname) - 1);
	st[0] = f_main;
	st[1] = (struct pf_frame){ longname, APP, NULL, 5, false };
	svg = render(&p);
	/* the full name in the title, a shorter one ending ".." on the frame */
	cr_assert_eq(count_frames(svg, longname), 1);
	box = find_frame(svg, longname);
	text = strstr(strstr(svg, longname), "<text");
	cr_assert_not_null(text);
	label = strchr(text, '>') + 1;
	end = strstr(label, "</text>");
	cr_assert_not_null(end);
	cr_assert_eq(strncmp(end - 2, "..", 2), 0, "label '%.*s'", (int)(end - label), label);
	/* at 12px Verdana's 0.59 em average, with 3px padding each side */
	cr_assert_leq((end - label) * 12 * 0.59, box.w - 6, "%zd characters in %.2fpx",
		      end - label, box.w);
	cr_assert_geq((end - label) * 12 * 0.59, box.w - 6 - 2 * 12 * 0.59,
		      "cut shorter than needed: %zd characters in %.2fpx", end - label, box.w);
	free(svg);
}

Test(flamegraph, interactive_parts_are_there)
{
	const struct pf_sample s[] = { { "app", 1, 1, st_a, 2, 5 } };
	struct pf_profile p = profile_of(s, ARRAY_SIZE(s));
	char *svg = render(&p);

	assert_has(svg, "onload=\"init(evt)\"");
	assert_has(svg, "<script type=\"text/ecmascript\"><![CDATA[");
	assert_has(svg, "function zoom(");
	assert_has(svg, "function search(");
	assert_has(svg, "id=\"search\"");
	assert_has(svg, "id=\"unzoom\"");
	assert_has(svg, "id=\"matched\"");
	/* Ctrl-F opens the search */
	assert_has(svg, "e.ctrlKey");
	free(svg);
}

Test(flamegraph, script_is_embedded_whole_in_strict_mode)
{
	const struct pf_sample s[] = { { "app", 1, 1, st_a, 2, 5 } };
	struct pf_profile p = profile_of(s, ARRAY_SIZE(s));
	struct frame_box all;
	struct memout m;
	const char *script, *end;
	int xpad, fullw, used = 0;
	double charw;
	char *svg;

	cr_assert_eq(flamegraph__write_svg(&p, memout__open(&m)), 0);
	svg = memout__text(&m);
	cr_assert_eq(strlen(svg), m.len, "a NUL byte in the SVG");
	script = strstr(svg, "<![CDATA[\n");
	cr_assert_not_null(script);
	script += strlen("<![CDATA[\n");
	end = strstr(script, "]]></script>");
	cr_assert_not_null(end);
	/* "use strict" first, or it is no directive; then the geometry, the graph's */
	sscanf(script, "\"use strict\";\nvar XPAD = %d, FULLW = %d, CHARW = %lf;\n%n",
	       &xpad, &fullw, &charw, &used);
	cr_assert_gt(used, 0, "script starts: %.80s", script);
	all = find_frame(svg, "all");
	cr_assert_float_eq(all.x, xpad, 0.01);
	cr_assert_float_eq(all.w, fullw, 0.01);
	cr_assert_float_eq(charw, 12 * 0.59, 0.001);
	/* flamegraph.js to its last function, its text as it is (no printf format) */
	cr_assert_not_null(memmem(script, end - script, "function reset_search()", 23));
	cr_assert_eq(strncmp(end - 2, "}\n", 2), 0);
	cr_assert_not_null(memmem(script, end - script, "+ '%';", 6));
	free(svg);
}

Test(flamegraph, empty_profile_is_still_a_graph)
{
	struct pf_profile p = profile_of(NULL, 0);
	char *svg = render(&p);

	assert_well_formed(svg);
	cr_assert_str_eq(find_frame(svg, "all").title, "all (0 samples, 100.00%)");
	free(svg);
}

Test(flamegraph, write_error_is_returned)
{
	const struct pf_sample s[] = { { "app", 1, 1, st_a, 2, 5 } };
	struct pf_profile p = profile_of(s, ARRAY_SIZE(s));
	FILE *f = full_stream();

	cr_assert_eq(flamegraph__write_svg(&p, f), -ENOSPC);
	fclose(f);
}
