// SPDX-License-Identifier: GPL-2.0
/*
 * output_format.c - formats by name and by file extension (output_format.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "output/output_format.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char *const names[] = {
	[FORMAT_TEXT] = "text",
	[FORMAT_FOLDED] = "folded",
	[FORMAT_PPROF] = "pprof",
	[FORMAT_SVG] = "svg",
	[FORMAT_JSON] = "json",
};

/* The longest first: ".pb.gz" before ".gz" would be, ".speedscope.json" before ".json". */
static const struct {
	const char *ext;
	enum output_format format;
} extensions[] = {
	{ ".speedscope.json", FORMAT_JSON },
	{ ".folded", FORMAT_FOLDED },
	{ ".pb.gz", FORMAT_PPROF },
	{ ".pprof", FORMAT_PPROF },
	{ ".html", FORMAT_SVG },
	{ ".json", FORMAT_JSON },
	{ ".svg", FORMAT_SVG },
	{ ".txt", FORMAT_TEXT },
	{ ".pb", FORMAT_PPROF },
};

const char output_format__extensions[] =
	".txt, .folded, .pprof, .pb, .pb.gz, .svg, .html, .json, .speedscope.json";

int output_format__parse(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return i;
	return -EINVAL;
}

const char *output_format__name(enum output_format f)
{
	return (unsigned)f < ARRAY_SIZE(names) ? names[f] : "?";
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t lx = strlen(suffix);

	return len >= lx && !memcmp(s + len - lx, suffix, lx);
}

int output_format__from_path(const char *path, const char **ext)
{
	const char *base = strrchr(path, '/'), *dot;
	size_t len;

	base = base ? base + 1 : path;
	len = strlen(base);
	dot = strrchr(base, '.');
	/* ".profile" is a name, not an extension */
	if (!dot || dot == base || strchr(dot, '%'))
		return -ENODATA;
	for (size_t i = 0; i < ARRAY_SIZE(extensions); i++)
		/* "x.pb.gz" is pprof; ".pb.gz" alone is a name ending in ".gz" */
		if (ends_with(base, len, extensions[i].ext) && len > strlen(extensions[i].ext))
			return extensions[i].format;
	if (ext)
		*ext = dot;
	return -EINVAL;
}
