/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plt_fixtures.h - what the PLT tests share (test_elf_plt.c,
 * test_elf_plt_corrupt.c): a program with calls through the PLT, built
 * here as each test asks (struct variant: the compiler and its flags),
 * and readelf's and objdump's word on its PLT sections and stubs, the
 * oracle the names are checked against.
 */
#ifndef PLT_FIXTURES_H
#define PLT_FIXTURES_H

#include <stdarg.h>

#include "symbols/debuginfo.h"
#include "symbols/elf_symtab.h"
#include "test_util.h"

/* Calls through the PLT, a GOT reference to one of them (.plt.got), an IFUNC. */
static const char prog_src[] =
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"#include <string.h>\n"
	"#ifndef ENTRY\n"
	"#define ENTRY main\n"
	"#endif\n"
	"static int twice_impl(void) { return 2; }\n"
	"static int (*resolve_twice(void))(void) { return twice_impl; }\n"
	"int twice(void) __attribute__((ifunc(\"resolve_twice\")));\n"
	"int ENTRY(int argc, char **argv)\n"
	"{\n"
	"	int (*volatile pick)(const void *, const void *, size_t) = memcmp;\n"
	"	char buf[64], *p = malloc(16);\n"
	"	snprintf(buf, sizeof(buf), \"%d\", argc);\n"
	"	puts(buf);\n"
	"	free(p);\n"
	"	return (int)strlen(argv[0]) + memcmp(buf, argv[0], 1) + pick(buf, buf, 1) + twice();\n"
	"}\n";

struct variant {
	const char *name;
	const char *cc;		/* compiler and flags */
	const char *section;	/* a PLT section it must have */
};

/* Each test's directory (the suites' .init and .fini), where it builds. */
static char *tmp;

static inline void make_tmp(void)
{
	tmp = make_tmpdir();
}

static inline void drop_tmp(void)
{
	rm_rf(tmp);
	tmp = NULL;
}

static inline void run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void run(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* The program built as v into tmp; its path. */
static inline char *build(const struct variant *v)
{
	char *src = path_in(tmp, "plt_prog.c"), *out = path_in(tmp, v->name);

	write_text(src, prog_src);
	run("%s -O1 -g -fno-builtin '%s' -o '%s' 2>/dev/null", v->cc, src, out);
	free(src);
	return out;
}

struct plt_section {
	char name[32];
	uint64_t addr, size, entsize;
};

/* The PLT sections with code (not a debug file's NOBITS), from readelf. */
static inline size_t plt_sections(const char *path, struct plt_section *out, size_t max)
{
	char cmd[4200], line[512], name[32], type[32];
	uint64_t addr, off, size, es;
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -SW '%s'", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, " [%*d] %31s %31s %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64,
			   name, type, &addr, &off, &size, &es) != 6 ||
		    strcmp(type, "PROGBITS") ||
		    (strcmp(name, ".plt") && strcmp(name, ".plt.sec") && strcmp(name, ".plt.got")))
			continue;
		cr_assert_lt(n, max);
		out[n] = (struct plt_section){ .addr = addr, .size = size, .entsize = es };
		snprintf(out[n].name, sizeof(out[n].name), "%s", name);
		n++;
	}
	cr_assert_eq(pclose(p), 0, "readelf failed on '%s'", path);
	return n;
}

struct label {
	uint64_t addr;
	char name[512];
};

/* objdump's <name@plt> labels, one per stub (not "<puts@plt-0x10>" nor "<.plt>"). */
static inline size_t objdump_stubs(const char *path, struct label **out)
{
	char cmd[4200], line[1024];
	struct label l, *labels = NULL;
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump -d -j .plt -j .plt.sec -j .plt.got '%s' 2>/dev/null",
		 path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%" SCNx64 " <%511[^>]>:", &l.addr, l.name) != 2 ||
		    !ends_with(l.name, "@plt"))
			continue;
		labels = realloc(labels, (n + 1) * sizeof(*labels));
		cr_assert_not_null(labels);
		labels[n++] = l;
	}
	cr_assert_eq(pclose(p), 0, "objdump failed on '%s'", path);
	*out = labels;
	return n;
}

/*
 * What a stub objdump labels l must be named: its label, but for an
 * IFUNC's, "*ABS*+0xADDR@plt", the name of the function at ADDR when the
 * table has one there (objdump does not look).
 */
static inline void expected_name(const struct elf_symtab *st, const struct label *l, char *buf,
			  size_t size)
{
	const struct elf_sym *f;
	uint64_t resolver;

	snprintf(buf, size, "%s", l->name);
	if (sscanf(l->name, "*ABS*+%" SCNx64 "@plt", &resolver) != 1)
		return;
	f = elf_symtab__find(st, resolver);
	if (f && f->addr == resolver)
		snprintf(buf, size, "%s@plt", f->name);
}

static inline bool is_plt_section_name(const char *name)
{
	return !strcmp(name, ".plt") || !strcmp(name, ".plt.sec") || !strcmp(name, ".plt.got");
}

static inline struct elf_symtab *load(const char *path, struct debuginfo_info *info)
{
	struct elf_symtab *st = debuginfo__load_file(path, NULL, info);

	cr_assert_not_null(st, "load '%s': %s", path, strerror(errno));
	return st;
}

#endif /* PLT_FIXTURES_H */
