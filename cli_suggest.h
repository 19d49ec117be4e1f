/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli_suggest.h - "did you mean": the long option nearest to a mistyped
 * one, for the one-line error about an unknown option.
 */
#ifndef CLI_SUGGEST_H
#define CLI_SUGGEST_H

#include <getopt.h>

/*
 * The name in opts (getopt_long's table, ended by a zeroed entry) closest
 * to word, the text after "--" up to any '=': one letter left out, added,
 * changed or two swapped per 4 letters of the name, at most 2 in all.
 * NULL when none is that close, or two are equally close.
 */
const char *cli_suggest__option(const char *word, const struct option *opts);

#endif /* CLI_SUGGEST_H */
