// SPDX-License-Identifier: GPL-2.0
/*
 * py_elf.c - a CPython interpreter in an ELF file (py_elf.h).
 */
#include <errno.h>
#include <gelf.h>
#include <string.h>

#include "python/py_dealloc.h"
#include "python/py_elf.h"
#include "symbols/elf_read.h"

/* The symbols looked for, found in .dynsym (exported) or .symtab. */
struct py_syms {
	GElf_Sym runtime, version, eval, cold, code_type;
	bool has_runtime, has_version, has_eval, has_cold, has_code_type;
};

static void note_sym(struct py_syms *s, const char *name, const GElf_Sym *sym)
{
	if (sym->st_shndx == SHN_UNDEF)
		return;
	if (!strcmp(name, "_PyRuntime") && !s->has_runtime) {
		s->runtime = *sym;
		s->has_runtime = true;
	} else if (!strcmp(name, "Py_Version") && !s->has_version) {
		s->version = *sym;
		s->has_version = true;
	} else if (!strcmp(name, "_PyEval_EvalFrameDefault") && !s->has_eval &&
		   GELF_ST_TYPE(sym->st_info) == STT_FUNC) {
		s->eval = *sym;
		s->has_eval = true;
	} else if (!strcmp(name, "_PyEval_EvalFrameDefault.cold") && !s->has_cold) {
		s->cold = *sym;
		s->has_cold = true;
	} else if (!strcmp(name, "PyCode_Type") && !s->has_code_type) {
		s->code_type = *sym;
		s->has_code_type = true;
	}
}

/* Every symbol of the symbol table scn (budgeted). 0 or -errno. */
static int scan_table(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, const struct budget *b,
		      struct py_syms *s)
{
	Elf_Data *d = elf_read__section(scn, sh, sh->sh_type == SHT_DYNSYM ? ".dynsym" : ".symtab", b);
	size_t nr;

	if (!d)
		return -errno;
	if (!sh->sh_entsize)
		return -ENOEXEC;
	nr = d->d_size / sh->sh_entsize;
	if (nr > b->max_symbols)
		return budget__refuse("%zu symbols, over %llu", nr,
				      (unsigned long long)b->max_symbols);
	for (size_t i = 0; i < nr; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(d, (int)i, &sym))
			return -ENOEXEC;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (name)
			note_sym(s, name, &sym);
	}
	return 0;
}

int py_elf__read_at(Elf *elf, uint64_t addr, void *buf, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    addr < sh.sh_addr || addr - sh.sh_addr > sh.sh_size ||
		    len > sh.sh_size - (addr - sh.sh_addr))
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)(sh.sh_offset + (addr - sh.sh_addr)), len,
					 ELF_T_BYTE);
		if (!d || d->d_size != len)
			return -ENOEXEC;
		memcpy(buf, d->d_buf, len);
		return 0;
	}
	return -ENOENT;
}

static int read_segments(Elf *elf, struct py_elf *out)
{
	size_t nr;

	if (elf_getphdrnum(elf, &nr))
		return -ENOEXEC;
	for (size_t i = 0; i < nr; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			return -ENOEXEC;
		if (ph.p_type != PT_LOAD || out->nr_segs >= PY_ELF_MAX_SEGS)
			continue;
		out->segs[out->nr_segs++] = (struct py_elf_seg){
			.vaddr = ph.p_vaddr, .off = ph.p_offset, .filesz = ph.p_filesz,
			.exec = ph.p_flags & PF_X,
		};
	}
	return 0;
}

int py_elf__read(Elf *elf, const struct budget *b, struct py_elf *out)
{
	struct py_syms s = { 0 };
	Elf_Scn *scn = NULL;
	uint64_t v;
	int err = 0;

	if (!b)
		b = budget__default();
	memset(out, 0, sizeof(*out));
	/*
	 * An interpreter exports _PyRuntime: .dynsym first, and only then
	 * .symtab (the .cold part's name), which in a large program that is
	 * no interpreter (a compiler) would cost far more to read.
	 */
	for (int pass = 0; pass < 2 && !err; pass++) {
		if (pass == 1 && (!s.has_runtime || GELF_ST_TYPE(s.runtime.st_info) == STT_FUNC))
			return -ENOENT;
		scn = NULL;
		while (!err && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;

			if (!gelf_getshdr(scn, &sh))
				return -ENOEXEC;
			if (sh.sh_type == (pass ? SHT_SYMTAB : SHT_DYNSYM))
				err = scan_table(elf, scn, &sh, b, &s);
		}
	}
	if (err)
		return err;
	out->runtime = s.runtime.st_value;
	if (s.has_version && s.version.st_size == 8 && !py_elf__read_at(elf, s.version.st_value, &v, 8) &&
	    v <= UINT32_MAX)
		out->version = (uint32_t)v;
	if (s.has_code_type)
		out->code_type = s.code_type.st_value;
	/* where 3.13 on describe themselves; absent (.bss, too small) it stays empty */
	if (s.runtime.st_size) {
		size_t n = s.runtime.st_size < PY_ELF_RUNTIME_BYTES ? s.runtime.st_size :
								  PY_ELF_RUNTIME_BYTES;

		if (!py_elf__read_at(elf, s.runtime.st_value, out->runtime_bytes, n))
			out->nr_runtime_bytes = (uint32_t)n;
	}
	/* a range that wraps is none (the BPF side would take it for every address) */
	if (s.has_eval && s.eval.st_size && s.eval.st_value + s.eval.st_size > s.eval.st_value) {
		out->eval_start = s.eval.st_value;
		out->eval_end = s.eval.st_value + s.eval.st_size;
	}
	if (s.has_cold && s.cold.st_size && s.cold.st_value + s.cold.st_size > s.cold.st_value) {
		out->cold_start = s.cold.st_value;
		out->cold_end = s.cold.st_value + s.cold.st_size;
	}
	err = read_segments(elf, out);
	/* none found: frames are known by their reads, not their addresses */
	if (!err && py_dealloc__find(elf, b, out, &out->dealloc))
		out->dealloc = 0;
	return err;
}

int py_elf__read_fd(int fd, const struct budget *b, struct py_elf *out)
{
	Elf *elf = elf_read__begin(fd, b);
	int err;

	if (!elf)
		return -errno;
	err = py_elf__read(elf, b, out);
	elf_end(elf);
	return err;
}

bool py_elf__bias(const struct py_elf *pe, uint64_t start, uint64_t offset, uint64_t *bias)
{
	for (int i = 0; i < pe->nr_segs; i++) {
		const struct py_elf_seg *s = &pe->segs[i];
		uint64_t page_off = s->off & ~4095ull;

		if (offset < page_off || offset >= s->off + s->filesz)
			continue;
		*bias = start - (s->vaddr - s->off + offset);
		return true;
	}
	return false;
}
