/* SPDX-License-Identifier: GPL-2.0 */
/*
 * row_index.h - the page index that follows a table's rows in the rows
 * array (unwind_row.h): how many rows it takes, and its rows.
 */
#ifndef UNWIND_ROW_INDEX_H
#define UNWIND_ROW_INDEX_H

#include <stddef.h>
#include "unwind/unwind_row.h"

/* The rows the index of rows[0, nr) (sorted by pc, nr > 0) takes: its head and its entries. */
size_t row_index__size(const struct unwind_row *rows, size_t nr);

/* Write that index into out, row_index__size(rows, nr) rows. */
void row_index__build(const struct unwind_row *rows, size_t nr, struct unwind_row *out);

#endif /* UNWIND_ROW_INDEX_H */
