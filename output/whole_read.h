/* SPDX-License-Identifier: GPL-2.0 */
/*
 * whole_read.h - a file read whole into memory, and gzip data inflated,
 * each within a number of bytes the caller gives: input that says it is
 * bigger is refused, not followed.
 */
#ifndef WHOLE_READ_H
#define WHOLE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Whether buf[0, len) starts as gzip data does. */
bool whole_read__is_gzip(const void *buf, size_t len);

/*
 * All of f into *out (malloc'd, the caller's), *len bytes. Returns 0,
 * -E2BIG past max bytes, -ENOMEM, or -errno of the read.
 */
int whole_read__stream(FILE *f, size_t max, uint8_t **out, size_t *len);

/*
 * The gzip member in buf[0, len) inflated into *out (malloc'd), *out_len
 * bytes. Returns 0, -E2BIG past max bytes, -EINVAL for data that is
 * corrupt or ends early, -ENOMEM.
 */
int whole_read__gunzip(const void *buf, size_t len, size_t max, uint8_t **out, size_t *out_len);

#endif /* WHOLE_READ_H */
