/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vdso_image.h - the vDSO as an unwind table's source. The kernel maps
 * one image into every 64-bit process ([vdso]), with an .eh_frame: its
 * table is built once a run from the image this process has
 * (getauxval(AT_SYSINFO_EHDR)), and a process's [vdso] gets it only when
 * the bytes mapped there are that image, read from /proc/PID/mem (a
 * 32-bit process's vDSO is another image, and a process restored by CRIU
 * may keep one of another kernel).
 */
#ifndef VDSO_IMAGE_H
#define VDSO_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "symbols/budget.h"
#include "unwind/cfi_table.h"

/* An image at most this big is a vDSO (x86-64's: 2 pages) */
#define VDSO_IMAGE_MAX (1u << 20)

struct vdso_image {
	const uint8_t *image;
	size_t size;		/* bytes of its ELF file: headers, sections, section headers */
	size_t map_len;		/* bytes of its mapping: size in whole pages */
};

/*
 * Our own vDSO, or the image at [image, image + size) for the tests.
 * -ENOENT when there is none, -ENOEXEC when it is no x86-64 ELF image
 * that fits size.
 */
int vdso_image__self(struct vdso_image *v);
int vdso_image__of(struct vdso_image *v, const void *image, size_t size);

/*
 * Its table (cfi_table__build, of a copy of it), and the ELF address of
 * its first byte (where its mapping starts).
 */
int vdso_image__table(const struct vdso_image *v, const struct budget *b, struct cfi_table *t,
		      uint64_t *vaddr);

/*
 * Whether the mapping [start, start + len) of process pid (proc_root:
 * "/proc" but in tests) holds the image, as read from its mem file.
 */
bool vdso_image__mapped_at(const struct vdso_image *v, const char *proc_root, pid_t pid,
			   uint64_t start, uint64_t len);

#endif /* VDSO_IMAGE_H */
