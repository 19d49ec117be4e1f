// SPDX-License-Identifier: GPL-2.0
/*
 * vdso_image.c - the vDSO's unwind table, and whether a process maps the
 * same vDSO (vdso_image.h).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/uio.h>
#include <unistd.h>

#include "symbols/elf_read.h"
#include "unwind/vdso_image.h"

/* The end of what an ELF header says the file holds, or 0 when it passes max. */
static size_t extent(const Elf64_Ehdr *h, size_t max)
{
	uint64_t end = sizeof(*h), x;
	const Elf64_Phdr *ph;

	if (h->e_phoff > max || h->e_phentsize != sizeof(*ph) ||
	    h->e_phnum > (max - h->e_phoff) / sizeof(*ph))
		return 0;
	ph = (const Elf64_Phdr *)((const char *)h + h->e_phoff);
	for (unsigned i = 0; i < h->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (__builtin_add_overflow(ph[i].p_offset, ph[i].p_filesz, &x) || x > max)
			return 0;
		end = x > end ? x : end;
	}
	if (h->e_shnum && (h->e_shentsize != sizeof(Elf64_Shdr) || h->e_shoff > max ||
			   h->e_shnum > (max - h->e_shoff) / sizeof(Elf64_Shdr)))
		return 0;
	x = h->e_shoff + (uint64_t)h->e_shnum * sizeof(Elf64_Shdr);
	end = x > end ? x : end;
	return end <= max ? (size_t)end : 0;
}

int vdso_image__of(struct vdso_image *v, const void *image, size_t size)
{
	const Elf64_Ehdr *h = image;
	long page = sysconf(_SC_PAGESIZE);

	memset(v, 0, sizeof(*v));
	if (!image)
		return -ENOENT;
	if (size < sizeof(*h) || memcmp(h->e_ident, ELFMAG, SELFMAG) ||
	    h->e_ident[EI_CLASS] != ELFCLASS64 || h->e_ident[EI_DATA] != ELFDATA2LSB ||
	    h->e_machine != EM_X86_64 || page <= 0)
		return -ENOEXEC;
	v->size = extent(h, size);
	if (!v->size)
		return -ENOEXEC;
	v->image = image;
	v->map_len = (v->size + (size_t)page - 1) / (size_t)page * (size_t)page;
	return 0;
}

int vdso_image__self(struct vdso_image *v)
{
	const void *image = (const void *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *h = image;
	size_t size;

	memset(v, 0, sizeof(*v));
	if (!image)
		return -ENOENT;
	/* our own, mapped whole by the kernel: its headers say how much there is */
	if (memcmp(h->e_ident, ELFMAG, SELFMAG) || h->e_ident[EI_CLASS] != ELFCLASS64)
		return -ENOEXEC;
	size = extent(h, VDSO_IMAGE_MAX);
	return size ? vdso_image__of(v, image, size) : -ENOEXEC;
}

int vdso_image__table(const struct vdso_image *v, const struct budget *b, struct cfi_table *t,
		      uint64_t *vaddr)
{
	char *copy = malloc(v->size);
	GElf_Phdr ph;
	size_t n = 0;
	Elf *elf;
	int err;

	memset(t, 0, sizeof(*t));
	if (!copy)
		return -ENOMEM;
	/* libelf may write to what it reads in memory: not the kernel's page */
	memcpy(copy, v->image, v->size);
	elf = elf_read__memory(copy, v->size, b);
	if (!elf) {
		err = -errno;
		free(copy);
		return err;
	}
	err = -ENOEXEC;
	if (!elf_getphdrnum(elf, &n)) {
		for (size_t i = 0; i < n; i++) {
			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
				*vaddr = ph.p_vaddr - ph.p_offset;
				err = 0;
				break;
			}
		}
	}
	if (!err)
		err = cfi_table__build(elf, b, t);
	elf_end(elf);
	free(copy);
	return err;
}

/* size bytes of pid's memory at start into buf, from its mem file under proc_root. */
static ssize_t read_mem_file(const char *proc_root, pid_t pid, uint64_t start, void *buf,
			     size_t size)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%d/mem", proc_root, (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = pread(fd, buf, size, (off_t)start);
	close(fd);
	return n;
}

bool vdso_image__mapped_at(const struct vdso_image *v, const char *proc_root, pid_t pid,
			   uint64_t start, uint64_t len)
{
	struct iovec local, remote = { (void *)(uintptr_t)start, 0 };
	uint8_t *buf;
	ssize_t n;
	bool same;

	if (!v->image || len != v->map_len || start > INT64_MAX)
		return false;
	buf = malloc(v->size);
	if (!buf)
		return false;
	local = (struct iovec){ buf, v->size };
	remote.iov_len = v->size;
	/*
	 * The live /proc's: one call, no path to look up and open for each
	 * process met (a ptrace access check, as for its mem file)
	 */
	n = -1;
	if (!strcmp(proc_root, "/proc"))
		n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n < 0)
		n = read_mem_file(proc_root, pid, start, buf, v->size);
	same = n == (ssize_t)v->size && !memcmp(buf, v->image, v->size);
	free(buf);
	return same;
}
