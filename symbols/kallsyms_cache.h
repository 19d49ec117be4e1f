/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kallsyms_cache.h - the kernel image's text symbols kept for the rest of
 * the boot in root's cache directory (cache_dir.h), so that a snapshot run
 * from cron names the frames of the image without having the kernel format
 * /proc/kallsyms (~35 ms of system time for its 120k lines): the image
 * neither moves nor changes until the next boot. Modules and BPF programs
 * come and go: a frame outside the image still reads /proc/kallsyms
 * (kallsyms.c).
 *
 * One file, KALLSYMS_CACHE_NAME, written by ksyms__write_image() after a
 * first line that names the boot (/proc/sys/kernel/random/boot_id):
 *
 *   # profile kallsyms 1 <boot_id>
 *   ffffffff81000000 t _stext
 *   ...
 *
 * It holds kernel addresses, which only root may see: mode 0600, in a
 * directory only root can write. It is used only when it is a regular
 * file reached without a symlink, owned by the caller's euid, writable by
 * nobody else, and its first line names this boot; a file of an earlier
 * boot (or torn by a crash, which is a reboot) is replaced. kallsyms.c
 * also checks it against the head of /proc/kallsyms before use.
 */
#ifndef KALLSYMS_CACHE_H
#define KALLSYMS_CACHE_H

#include <stddef.h>

#include "symbols/ksyms.h"

#define KALLSYMS_CACHE_NAME "kallsyms"
#define KALLSYMS_BOOT_ID_LEN 64

/*
 * This boot's id, from proc_root's sys/kernel/random/boot_id ("/proc" but
 * in tests), into id (size bytes), without its newline. 0 or -errno.
 */
int kallsyms_cache__boot_id(const char *proc_root, char *id, size_t size);

/*
 * The image's symbols kept in dir for boot_id. NULL with errno: ENOENT,
 * none kept; ESTALE, another boot's; EPERM, not a file to trust; or why
 * it could not be read.
 */
struct ksyms *kallsyms_cache__load(const char *dir, const char *boot_id);

/* Keep ks's image symbols in dir for boot_id: a new file renamed over the old. 0 or -errno. */
int kallsyms_cache__store(const char *dir, const char *boot_id, const struct ksyms *ks);

#endif /* KALLSYMS_CACHE_H */
