/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flamegraph.h - write a resolved profile as a self-contained, interactive
 * SVG flame graph in the manner of flamegraph.pl: "all" at the bottom, then
 * the process name (as in the folded output), then the frames root first;
 * stacks merged by name from the root, sibling frames in alphabetical
 * order, widths proportional to samples. Frames narrower than 0.1% of the
 * samples are left out to keep the file small.
 *
 * Colours: user frames red, kernel frames orange (shades hashed from the
 * name, so a function keeps its colour across graphs), markers such as
 * [unknown] grey, process names yellow. Hovering shows "name (N samples,
 * P%)"; a click zooms into a frame; Search (or Ctrl-F) highlights frames
 * matching a regular expression and shows the share of samples they cover.
 */
#ifndef FLAMEGRAPH_H
#define FLAMEGRAPH_H

#include <stdio.h>

#include "output/profile_data.h"

/* Write p to out. Returns 0, -ENOMEM, or -errno of a failed write. */
int flamegraph__write_svg(const struct pf_profile *p, FILE *out);

#endif /* FLAMEGRAPH_H */
