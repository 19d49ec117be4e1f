/* SPDX-License-Identifier: GPL-2.0 */
/*
 * output_format.h - the formats a profile is written in, by name (--format)
 * and by the extension of -o's file: one table for both.
 */
#ifndef OUTPUT_FORMAT_H
#define OUTPUT_FORMAT_H

enum output_format {
	FORMAT_TEXT,		/* profile(8)'s blocks */
	FORMAT_FOLDED,		/* -f */
	FORMAT_PPROF,		/* gzipped profile.proto */
	FORMAT_SVG,		/* flame graph */
	FORMAT_JSON,		/* speedscope */
};

/* "folded" -> FORMAT_FOLDED...; -EINVAL when unknown. */
int output_format__parse(const char *name);
/* FORMAT_FOLDED -> "folded"... */
const char *output_format__name(enum output_format f);

/*
 * The format the extension of path's last component names:
 *   .txt text; .folded folded; .pprof, .pb, .pb.gz pprof;
 *   .svg, .html the SVG flame graph; .json, .speedscope.json speedscope.
 * -ENODATA when it has none: no dot past its first character, or a
 * strftime conversion ('%') after the last dot. -EINVAL when it is none
 * of these; *ext (may be NULL) then points at it, from its last dot.
 */
int output_format__from_path(const char *path, const char **ext);

/* The extensions above, for messages: ".txt, .folded, ..." */
extern const char output_format__extensions[];

#endif /* OUTPUT_FORMAT_H */
