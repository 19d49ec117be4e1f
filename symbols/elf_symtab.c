// SPDX-License-Identifier: GPL-2.0
/*
 * elf_symtab.c - read an ELF file's function symbols and PT_LOAD segments
 * with libelf. Every header value is treated as untrusted: counts, offsets
 * and string indices are checked by libelf or here before use.
 *
 * Past 600 lines on purpose: struct elf_symtab is opaque, and its loaders,
 * its lookups and elf_symtab__merge() all lay out or walk its private
 * arrays; what stands alone is already beside it (elf_plt.c, sym_nest.c,
 * sym_alias.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/elf_read.h"
#include "symbols/elf_symtab.h"
#include "symbols/sym_alias.h"
#include "symbols/sym_nest.h"

struct segment {
	uint64_t offset, vaddr, filesz;
	bool exec;
};

struct elf_symtab {
	struct elf_sym *syms;
	size_t nr;
	struct sym_nest *nest;	/* NULL: no function nests in another (most files) */
	struct segment *segs;
	size_t nr_segs;
	char *pool;
	/* the names merged in from other tables (elf_symtab__merge) */
	char **more_pools;
	size_t nr_more_pools;
	enum elf_symtab_kind kind;
};

static bool elf_sym__is_function(const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) &&
	       sym->st_shndx != SHN_UNDEF && sym->st_value != 0;
}

/*
 * Of several function symbols at one address, the one that names it:
 * global over weak over local (elf_sym__rank), then the larger (a sized
 * one over one without a size), then by name (sym_alias__name_cmp).
 */
static int elf_sym__rank(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL: return 2;
	case STB_WEAK: return 1;
	default: return 0;
	}
}

static Elf_Scn *find_section(Elf *elf, Elf64_Word type, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, shdr))
			continue;
		if (shdr->sh_type == type)
			return scn;
	}
	return NULL;
}

static int load_segments(Elf *elf, struct elf_symtab *st)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return -ENOEXEC;
	st->segs = calloc(n ? n : 1, sizeof(*st->segs));
	if (!st->segs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		st->segs[st->nr_segs++] = (struct segment){
			.offset = ph.p_offset,
			.vaddr = ph.p_vaddr,
			.filesz = ph.p_filesz,
			.exec = ph.p_flags & PF_X,
		};
	}
	return 0;
}

/*
 * While a table is built, each elf_sym's name holds its symbol's index
 * and rank (index << 2 | rank) instead of a pointer: the table is sorted
 * in place, without a second array as big as it.
 */
static const char *sym_tag(size_t index, int rank)
{
	return (const char *)(uintptr_t)((uint64_t)index << 2 | (unsigned int)rank);
}

static size_t tag_index(const struct elf_sym *s)
{
	return (uintptr_t)s->name >> 2;
}

static int tag_rank(const struct elf_sym *s)
{
	return (uintptr_t)s->name & 3;
}

static int tagged_sym_cmp(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return (x->addr > y->addr) - (x->addr < y->addr);
	/* best first among equals; ties by name are broken in name_functions() */
	if (tag_rank(x) != tag_rank(y))
		return (tag_rank(y) > tag_rank(x)) - (tag_rank(y) < tag_rank(x));
	if (x->size != y->size)
		return (y->size > x->size) - (y->size < x->size);
	return (tag_index(x) > tag_index(y)) - (tag_index(x) < tag_index(y));
}

/* Longer names are not kept: no real symbol has one, and each costs a scan. */
#define MAX_NAME 65536

/* The symbol's name when it is one to keep, else NULL. */
static const char *function_name(Elf *elf, Elf_Data *data, const GElf_Shdr *shdr, size_t i,
				 GElf_Sym *sym, size_t *len)
{
	const char *name;

	if (!gelf_getsym(data, i, sym) || !elf_sym__is_function(sym))
		return NULL;
	name = elf_strptr(elf, shdr->sh_link, sym->st_name);
	if (!name)
		return NULL;
	*len = strnlen(name, MAX_NAME);
	return *len && *len < MAX_NAME ? name : NULL;
}

/*
 * How many function symbols, and how many name bytes they need: names
 * may share bytes in the string table, so their total is budgeted too.
 */
static int count_functions(Elf *elf, Elf_Data *data, const GElf_Shdr *shdr, size_t count,
			   const struct budget *b, size_t *nr, size_t *pool_len)
{
	uint64_t scanned = 0;

	*nr = *pool_len = 0;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym sym;
		size_t len;

		if (!(i & 0xffff) && budget__cancelled(b))
			return -ECANCELED;
		if (!function_name(elf, data, shdr, i, &sym, &len))
			continue;
		(*nr)++;
		*pool_len += len + 1;
		if (*pool_len > b->max_section_bytes)
			return budget__refuse("symbol names of more than %llu bytes, over the budget",
					      (unsigned long long)b->max_section_bytes);
		scanned += len;
		if (scanned > (64u << 20)) {
			scanned = 0;
			if (budget__cancelled(b))
				return -ECANCELED;
		}
	}
	return 0;
}

static int refuse_count(size_t count, const struct budget *b)
{
	return budget__refuse("symbol table of %zu entries, over the budget of %llu", count,
			      (unsigned long long)b->max_symbols);
}

/*
 * The symbols of one table section and its names, read and inflated:
 * *data NULL when there is nothing usable to read, 0 then too.
 */
static int read_table(Elf *elf, Elf_Scn *scn, GElf_Shdr *shdr, const struct budget *b,
		      Elf_Data **data, size_t *count)
{
	Elf_Scn *strscn;
	GElf_Shdr strshdr;

	*data = NULL;
	if (!shdr->sh_entsize || shdr->sh_type == SHT_NOBITS)
		return 0;
	*count = shdr->sh_size / shdr->sh_entsize;
	if (*count > b->max_symbols)
		return refuse_count(*count, b);
	strscn = elf_getscn(elf, shdr->sh_link);
	if (!strscn || !gelf_getshdr(strscn, &strshdr))
		return 0;
	if (!elf_read__section(strscn, &strshdr, "of symbol names", b))
		return errno == EFBIG || errno == ECANCELED ? -errno : 0;
	*data = elf_read__section(scn, shdr, "of symbols", b);
	if (!*data)
		return errno == EFBIG || errno == ECANCELED ? -errno : 0;
	/* inflating may have changed the size */
	*count = (*data)->d_size / shdr->sh_entsize;
	if (*count > b->max_symbols) {
		*data = NULL;
		return refuse_count(*count, b);
	}
	return 0;
}

/* The table's functions into st->syms (nr_func of them, tagged), sorted. */
static size_t collect_functions(Elf *elf, Elf_Data *data, const GElf_Shdr *shdr, size_t count,
				size_t nr_func, struct elf_symtab *st)
{
	size_t nr = 0;

	for (size_t i = 0; i < count && nr < nr_func; i++) {
		GElf_Sym sym;
		size_t len;

		if (!function_name(elf, data, shdr, i, &sym, &len))
			continue;
		st->syms[nr++] = (struct elf_sym){
			.addr = sym.st_value,
			.size = sym.st_size,
			.name = sym_tag(i, elf_sym__rank(&sym)),
		};
	}
	qsort(st->syms, nr, sizeof(*st->syms), tagged_sym_cmp);
	return nr;
}

/*
 * The best of the symbols at syms[i]'s address (sorted best first but for
 * their names), and in *len its name's length; *next: the first symbol at
 * another address.
 */
static const char *pick_alias(Elf *elf, Elf_Data *data, const GElf_Shdr *shdr,
			      const struct elf_sym *syms, size_t i, size_t nr, size_t *next,
			      size_t *len)
{
	const char *best = NULL;
	size_t j;

	for (j = i; j < nr && syms[j].addr == syms[i].addr; j++) {
		GElf_Sym sym;
		const char *name;
		size_t n;

		if (tag_rank(&syms[j]) != tag_rank(&syms[i]) || syms[j].size != syms[i].size)
			continue;
		name = function_name(elf, data, shdr, tag_index(&syms[j]), &sym, &n);
		if (name && (!best || sym_alias__name_cmp(name, best) < 0)) {
			best = name;
			*len = n;
		}
	}
	*next = j;
	return best;
}

/* Names from their tags, one symbol per address (pick_alias), compacted in place. */
static void name_functions(Elf *elf, Elf_Data *data, const GElf_Shdr *shdr, size_t nr,
			   struct elf_symtab *st)
{
	size_t pool_len = 0, next;

	for (size_t i = 0; i < nr; i = next) {
		struct elf_sym s = st->syms[i];
		size_t len;
		const char *name = pick_alias(elf, data, shdr, st->syms, i, nr, &next, &len);

		if (!name)
			continue;
		memcpy(st->pool + pool_len, name, len);
		st->pool[pool_len + len] = '\0';
		s.name = st->pool + pool_len;
		st->syms[st->nr++] = s;	/* st->nr <= i */
		pool_len += len + 1;
	}
}

/*
 * Read the function symbols of one symbol table section into st. A table
 * that is unreadable or over budget reads as no symbols: -EFBIG and
 * -ECANCELED are returned for the caller to say why, -ENOMEM fails.
 */
static int load_symbols(Elf *elf, Elf_Scn *scn, GElf_Shdr *shdr, struct elf_symtab *st,
			const struct budget *b)
{
	size_t nr_func, pool_len, count = 0;
	Elf_Data *data;
	int err;

	err = read_table(elf, scn, shdr, b, &data, &count);
	if (err || !data)
		return err;
	err = count_functions(elf, data, shdr, count, b, &nr_func, &pool_len);
	if (err || !nr_func)
		return err;
	st->syms = calloc(nr_func, sizeof(*st->syms));
	st->pool = malloc(pool_len);
	if (!st->syms || !st->pool)
		return -ENOMEM;	/* the caller frees st */
	name_functions(elf, data, shdr, collect_functions(elf, data, shdr, count, nr_func, st), st);
	if (st->nr)
		return sym_nest__build(st->syms, st->nr, &st->nest);
	/* nothing usable after all: .dynsym may still be tried */
	free(st->syms);
	free(st->pool);
	st->syms = NULL;
	st->pool = NULL;
	return 0;
}

static struct elf_symtab *load_elf(Elf *elf, const struct budget *b)
{
	struct elf_symtab *st;
	GElf_Shdr shdr;
	GElf_Ehdr eh;
	Elf_Scn *scn;
	int err;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		errno = ENOEXEC;
		return NULL;
	}
	st = calloc(1, sizeof(*st));
	if (!st) {
		errno = ENOMEM;
		return NULL;
	}
	err = load_segments(elf, st);
	if (err)
		goto fail;
	scn = find_section(elf, SHT_SYMTAB, &shdr);
	if (scn) {
		err = load_symbols(elf, scn, &shdr, st, b);
		if (err)
			goto fail;
		if (st->nr)
			st->kind = ELF_SYMTAB_FULL;
	}
	if (!st->nr) {
		scn = find_section(elf, SHT_DYNSYM, &shdr);
		if (scn) {
			err = load_symbols(elf, scn, &shdr, st, b);
			if (err)
				goto fail;
			if (st->nr)
				st->kind = ELF_SYMTAB_DYNSYM;
		}
	}
	return st;
fail:
	elf_symtab__free(st);
	errno = -err;
	return NULL;
}

struct elf_symtab *elf_symtab__load_elf_budget(Elf *elf, const struct budget *b)
{
	if (!elf_read__ready()) {
		errno = ENOSYS;
		return NULL;
	}
	return load_elf(elf, b ? b : budget__default());
}

struct elf_symtab *elf_symtab__load_elf(Elf *elf)
{
	return elf_symtab__load_elf_budget(elf, NULL);
}

struct elf_symtab *elf_symtab__load_fd_budget(int fd, const struct budget *b)
{
	struct elf_symtab *st;
	Elf *elf;
	int err;

	elf = elf_read__begin(fd, b);
	if (!elf)
		return NULL;
	st = elf_symtab__load_elf_budget(elf, b);
	err = errno;
	elf_end(elf);
	errno = err;
	return st;
}

struct elf_symtab *elf_symtab__load_fd(int fd)
{
	return elf_symtab__load_fd_budget(fd, NULL);
}

struct elf_symtab *elf_symtab__load_file(const char *path)
{
	struct elf_symtab *st;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	st = elf_symtab__load_fd(fd);
	err = errno;
	close(fd);
	errno = err;
	return st;
}

struct elf_symtab *elf_symtab__load_mem(const void *image, size_t size)
{
	struct elf_symtab *st;
	char *copy;
	Elf *elf;
	int err;

	/*
	 * elf_memory() works in the image itself: inflating an SHF_COMPRESSED
	 * section rewrites its section header there. Give it a copy, so the
	 * caller's image (the read-only vDSO) is never written.
	 */
	copy = malloc(size ? size : 1);
	if (!copy) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(copy, image, size);
	elf = elf_read__memory(copy, size, NULL);
	if (!elf) {
		err = errno;
		free(copy);
		errno = err;
		return NULL;
	}
	st = elf_symtab__load_elf(elf);
	err = errno;
	elf_end(elf);
	free(copy);
	errno = err;
	return st;
}

int elf_symtab__offset_to_vaddr(const struct elf_symtab *st, uint64_t offset, uint64_t *vaddr)
{
	const struct segment *fallback = NULL;

	for (size_t i = 0; i < st->nr_segs; i++) {
		const struct segment *s = &st->segs[i];

		if (offset < s->offset || offset - s->offset >= s->filesz)
			continue;
		if (s->exec) {
			*vaddr = offset - s->offset + s->vaddr;
			return 0;
		}
		if (!fallback)
			fallback = s;
	}
	if (!fallback)
		return -ENOENT;
	*vaddr = offset - fallback->offset + fallback->vaddr;
	return 0;
}

const struct elf_sym *elf_symtab__find(const struct elf_symtab *st, uint64_t vaddr)
{
	const struct elf_sym *s;
	size_t lo = 0, hi;

	if (!st || !st->nr || vaddr < st->syms[0].addr)
		return NULL;
	hi = st->nr;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->syms[mid].addr <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	s = &st->syms[lo];
	/* a sized symbol covers only its bytes; a zero-sized one runs to the next */
	if (!s->size || vaddr - s->addr < s->size)
		return s;
	return sym_nest__enclosing(st->nest, st->syms, lo, vaddr);
}

size_t elf_symtab__count(const struct elf_symtab *st)
{
	return st ? st->nr : 0;
}

const struct elf_sym *elf_symtab__at(const struct elf_symtab *st, size_t i)
{
	return &st->syms[i];
}

size_t elf_symtab__index(const struct elf_symtab *st, const struct elf_sym *sym)
{
	return sym - st->syms;
}

enum elf_symtab_kind elf_symtab__kind(const struct elf_symtab *st)
{
	return st ? st->kind : ELF_SYMTAB_NONE;
}

size_t elf_symtab__nr_segments(const struct elf_symtab *st)
{
	return st ? st->nr_segs : 0;
}

struct elf_symtab *elf_symtab__adopt(struct elf_sym *syms, size_t nr, char *pool)
{
	struct elf_symtab *st = calloc(1, sizeof(*st));

	if (!st || sym_nest__build(syms, nr, &st->nest)) {
		free(st);
		free(syms);
		free(pool);
		errno = ENOMEM;
		return NULL;
	}
	st->syms = syms;
	st->nr = nr;
	st->pool = pool;
	return st;
}

/*
 * Both tables are sorted, one symbol per address: one walk merges them.
 * Each call is one of the walk's steps: which table the next symbol comes
 * from (0 dst, 1 src, -1 the end), with src's skipped where dst has one.
 */
static int merge_step(const struct elf_symtab *dst, const struct elf_symtab *src, size_t *i,
		      size_t *j)
{
	if (*i < dst->nr && *j < src->nr && dst->syms[*i].addr == src->syms[*j].addr)
		(*j)++;
	if (*i < dst->nr && (*j == src->nr || dst->syms[*i].addr < src->syms[*j].addr))
		return 0;
	return *j < src->nr ? 1 : -1;
}

int elf_symtab__merge(struct elf_symtab *dst, const struct elf_symtab *src)
{
	size_t i = 0, j = 0, nr = 0, pool_len = 0;
	struct elf_sym *syms = NULL;
	struct sym_nest *nest;
	char *pool = NULL, **pools;
	int from;

	if (!src->nr)
		goto kind;
	/* dst's names stay where they are: only src's are copied, into a pool of their own */
	while ((from = merge_step(dst, src, &i, &j)) >= 0) {
		if (from)
			pool_len += strlen(src->syms[j].name) + 1;
		from ? j++ : i++;
		nr++;
	}
	syms = calloc(nr, sizeof(*syms));
	pool = malloc(pool_len ? pool_len : 1);
	pools = realloc(dst->more_pools, (dst->nr_more_pools + 1) * sizeof(*pools));
	if (pools)
		dst->more_pools = pools;
	if (!syms || !pool || !pools)
		goto nomem;
	i = j = nr = pool_len = 0;
	while ((from = merge_step(dst, src, &i, &j)) >= 0) {
		if (!from) {
			syms[nr++] = dst->syms[i++];
			continue;
		}
		syms[nr] = src->syms[j++];
		syms[nr].name = strcpy(pool + pool_len, syms[nr].name);
		pool_len += strlen(pool + pool_len) + 1;
		nr++;
	}
	if (sym_nest__build(syms, nr, &nest))
		goto nomem;
	free(dst->syms);
	sym_nest__free(dst->nest);
	dst->syms = syms;
	dst->nr = nr;
	dst->nest = nest;
	dst->more_pools[dst->nr_more_pools++] = pool;
kind:
	if (src->kind > dst->kind)
		dst->kind = src->kind;
	return 0;
nomem:
	free(syms);
	free(pool);
	return -ENOMEM;
}

void elf_symtab__free(struct elf_symtab *st)
{
	if (!st)
		return;
	free(st->syms);
	sym_nest__free(st->nest);
	free(st->segs);
	free(st->pool);
	for (size_t i = 0; i < st->nr_more_pools; i++)
		free(st->more_pools[i]);
	free(st->more_pools);
	free(st);
}
