/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace_helpers.h - small helpers shared by the tool and its modules:
 * checked number parsing, sysctl and CPU-list reading. The symbolizer lives
 * in its own modules (ksyms.h, proc_maps.h, elf_symtab.h, usyms.h).
 */
#ifndef TRACE_HELPERS_H
#define TRACE_HELPERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Parse a whole string as a base-10 integer in [min, max]. Leading or
 * trailing garbage ("12abc", " 12", ""), overflow and out-of-range values
 * are errors. Returns 0 or -EINVAL/-ERANGE.
 */
int parse_long(const char *s, long min, long max, long *out);

/* The value of a hexadecimal digit, or -1. */
int hex_digit_value(int c);

/*
 * Parse the hexadecimal digits at *p (no "0x", at most 16) up to the first
 * other character or end (NULL: the string's NUL) and move *p past them.
 * Returns 0, -EINVAL when there is no digit, -ERANGE for more than 16
 * digits; *p and *out are unchanged on failure.
 */
int parse_hex(const char **p, const char *end, uint64_t *out);

/*
 * Make room for element idx of *arr, an array of *cap elements of elem
 * bytes, doubling its capacity (at least 64). Returns 0 or -ENOMEM; *arr
 * is unchanged on failure.
 */
int array_reserve(void **arr, size_t *cap, size_t idx, size_t elem);

/* Read one integer from a file such as /proc/sys/kernel/perf_event_max_stack. */
int read_long_file(const char *path, long *out);

/*
 * Parse a kernel CPU list ("0-3,5,7-8\n") into mask[0..nr-1]; CPUs at or
 * above nr are ignored. Returns the highest CPU seen + 1, or -EINVAL.
 */
int parse_cpu_list(const char *list, bool *mask, int nr);

/* Online CPUs from a file in the format of /sys/devices/system/cpu/online. */
int read_online_cpus_file(const char *path, bool *mask, int nr);
int read_online_cpus(bool *mask, int nr);

#endif /* TRACE_HELPERS_H */
