/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksyms.h - kernel symbols from /proc/kallsyms (or any file or buffer in
 * its format), sorted once and looked up by binary search.
 */
#ifndef KSYMS_H
#define KSYMS_H

#include <stddef.h>
#include <stdio.h>

struct ksym {
	unsigned long addr;
	const char *name;
	const char *module;	/* NULL for the kernel image itself */
	/*
	 * What to print for the frame: the name, and for a module's symbol
	 * the module in brackets, "nf_hook_slow [nf_tables]", as BCC's
	 * ksym(show_module=True) prints it. The kernel image's symbols print
	 * bare: they are the common case.
	 */
	const char *label;
};

struct ksyms;

/*
 * Loaders return NULL with errno set on failure. Lines with a zero address
 * (kptr_restrict hides them) and non-text symbols are skipped. When no
 * usable symbol remains: EPERM if text symbols were there but every
 * address read as 0 (the kernel hides them from a reader without
 * CAP_SYSLOG, or from all with kptr_restrict 2), else ENOENT.
 */
struct ksyms *ksyms__load(void);
struct ksyms *ksyms__load_file(const char *path);
/*
 * From fd's offset on, a buffer at a time: /proc/kallsyms is megabytes,
 * never held whole, and read in large reads (stdio's 1 KiB ones took
 * 5,000 system calls).
 */
struct ksyms *ksyms__load_fd(int fd);
struct ksyms *ksyms__load_buf(const char *buf, size_t len);

/*
 * The symbol containing addr: the highest one at or below it, if addr is
 * before its end. kallsyms has no sizes: a symbol ends where the next one
 * of the kernel's text or of its module starts; the last one of either,
 * and each BPF program, at the latest at the end of the page after the
 * one it starts in. NULL: no symbol (code loaded since the reading, or
 * no code at all).
 */
const struct ksym *ksyms__find(const struct ksyms *ks, unsigned long addr);

/*
 * The kernel image's symbols (not modules', not BPF programs') to f, in
 * kallsyms format, sorted: what the loaders read back. 0 or -EIO.
 */
int ksyms__write_image(const struct ksyms *ks, FILE *f);
size_t ksyms__count(const struct ksyms *ks);
/* The i-th symbol by address, i < ksyms__count(). */
const struct ksym *ksyms__at(const struct ksyms *ks, size_t i);
void ksyms__free(struct ksyms *ks);

#endif /* KSYMS_H */
