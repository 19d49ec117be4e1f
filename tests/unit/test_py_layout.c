// SPDX-License-Identifier: GPL-2.0
/*
 * test_py_layout.c - the CPython layouts we carry (python/py_layout.c)
 * against the DWARF of the interpreter they describe: Debian's python3.X
 * and its debug file from python3.X-dbg (scripts/deps.sh installs both
 * for 3.11), read with libdw, an oracle of its own.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>

#include "python/py_elf.h"
#include "python/py_layout.h"
#include "test_util.h"

#define PYTHON311 "/usr/bin/python3.11"

/* The debug file of path by its build-id under /usr/lib/debug, or NULL. */
static char *debug_file_of(const char *path)
{
	char cmd[512], id[128] = "", *out = NULL;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | awk '/Build ID:/ { print $3 }'", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	if (!fgets(id, sizeof(id), p))
		id[0] = '\0';
	pclose(p);
	id[strcspn(id, "\n")] = '\0';
	if (strlen(id) < 4)
		return NULL;
	cr_assert_neq(asprintf(&out, "/usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2), -1);
	if (access(out, R_OK)) {
		free(out);
		return NULL;
	}
	return out;
}

/* What the test asks of the DWARF: a struct by name, with its members. */
struct dwarf_oracle {
	int fd;
	Dwarf *dw;
};

static void oracle_open(struct dwarf_oracle *o, const char *path)
{
	o->fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(o->fd, 0, "open '%s'", path);
	o->dw = dwarf_begin(o->fd, DWARF_C_READ);
	cr_assert_not_null(o->dw, "no DWARF in '%s'", path);
}

static void oracle_close(struct dwarf_oracle *o)
{
	dwarf_end(o->dw);
	close(o->fd);
}

/* die through its typedefs and qualifiers, to the type they name. */
static bool strip_type(Dwarf_Die *die)
{
	for (int i = 0; i < 16; i++) {
		Dwarf_Attribute a;
		int tag = dwarf_tag(die);

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type)
			return true;
		if (!dwarf_attr(die, DW_AT_type, &a) || !dwarf_formref_die(&a, die))
			return false;
	}
	return false;
}

/* The definition (with members) of the struct or typedef called name. */
static bool find_struct(struct dwarf_oracle *o, const char *name, Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(o->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;

		if (dwarf_offdie(o->dw, off + hsize, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				int tag = dwarf_tag(&child);
				const char *n = dwarf_diename(&child);
				Dwarf_Die t = child, m;

				if (!n || strcmp(n, name) ||
				    (tag != DW_TAG_typedef && tag != DW_TAG_structure_type))
					continue;
				if (strip_type(&t) && dwarf_tag(&t) == DW_TAG_structure_type &&
				    dwarf_child(&t, &m) == 0) {
					*out = t;
					return true;
				}
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
	return false;
}

/* The offset of member path ("interpreters.head") in struct s: -1 when it has none. */
static long member_offset(Dwarf_Die s, const char *path)
{
	char buf[128], *save = NULL;
	long total = 0;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *part = strtok_r(buf, ".", &save); part; part = strtok_r(NULL, ".", &save)) {
		Dwarf_Die m;
		bool found = false;

		if (!strip_type(&s) || dwarf_child(&s, &m) != 0)
			return -1;
		do {
			const char *n = dwarf_diename(&m);
			Dwarf_Attribute a;
			Dwarf_Word off;

			if (dwarf_tag(&m) != DW_TAG_member || !n || strcmp(n, part))
				continue;
			if (!dwarf_attr(&m, DW_AT_data_member_location, &a) || dwarf_formudata(&a, &off))
				return -1;
			total += (long)off;
			if (!dwarf_attr(&m, DW_AT_type, &a) || !dwarf_formref_die(&a, &s))
				return -1;
			found = true;
			break;
		} while (dwarf_siblingof(&m, &m) == 0);
		if (!found)
			return -1;
	}
	return total;
}

static long offset_of(struct dwarf_oracle *o, const char *type, const char *member)
{
	Dwarf_Die s;

	cr_assert(find_struct(o, type, &s), "no struct %s in the DWARF", type);
	return member_offset(s, member);
}

static long size_of(struct dwarf_oracle *o, const char *type)
{
	Dwarf_Die s;

	cr_assert(find_struct(o, type, &s), "no struct %s in the DWARF", type);
	return dwarf_bytesize(&s);
}

#define EXPECT_OFFSET(field, type, member)					\
	cr_expect_eq((long)l.field, offset_of(&o, type, member),		\
		     #field " is %#lx, the DWARF says %s.%s is at %#lx",		\
		     (long)l.field, type, member, offset_of(&o, type, member))

/*
 * Every offset of the 3.11 layout is the one python3.11-dbg's DWARF
 * gives for Debian's /usr/bin/python3.11, the version its Py_Version says.
 */
Test(py_layout, python311_matches_its_dwarf)
{
	struct dwarf_oracle o;
	struct py_layout l;
	struct py_elf pe;
	char *debug;

	if (access(PYTHON311, R_OK))
		skip_unless_ci("no " PYTHON311);
	debug = debug_file_of(PYTHON311);
	if (!debug)
		skip_unless_ci("no debug file of " PYTHON311 " (python3.11-dbg)");
	{
		int fd = open(PYTHON311, O_RDONLY | O_CLOEXEC);

		cr_assert_geq(fd, 0);
		cr_assert_eq(py_elf__read_fd(fd, NULL, &pe), 0);
		close(fd);
	}
	cr_assert_eq(PY_VERSION_MINOR(pe.version), PY_VERSION(3, 11), "Py_Version %#x", pe.version);
	cr_assert_eq(py_layout__for_version(pe.version, &l), 0);
	cr_assert(py_layout__valid(&l));
	oracle_open(&o, debug);
	EXPECT_OFFSET(rt_interps, "_PyRuntimeState", "interpreters.head");
	EXPECT_OFFSET(interp_next, "PyInterpreterState", "next");
	EXPECT_OFFSET(interp_threads, "PyInterpreterState", "threads.head");
	EXPECT_OFFSET(ts_next, "PyThreadState", "next");
	EXPECT_OFFSET(ts_tid, "PyThreadState", "native_thread_id");
	EXPECT_OFFSET(ts_frame, "PyThreadState", "cframe");
	EXPECT_OFFSET(cf_frame, "_PyCFrame", "current_frame");
	EXPECT_OFFSET(cf_previous, "_PyCFrame", "previous");
	EXPECT_OFFSET(fr_code, "_PyInterpreterFrame", "f_code");
	EXPECT_OFFSET(fr_previous, "_PyInterpreterFrame", "previous");
	EXPECT_OFFSET(fr_instr, "_PyInterpreterFrame", "prev_instr");
	EXPECT_OFFSET(fr_owner, "_PyInterpreterFrame", "owner");
	EXPECT_OFFSET(fr_entry, "_PyInterpreterFrame", "is_entry");
	EXPECT_OFFSET(co_filename, "PyCodeObject", "co_filename");
	EXPECT_OFFSET(co_qualname, "PyCodeObject", "co_qualname");
	EXPECT_OFFSET(co_firstlineno, "PyCodeObject", "co_firstlineno");
	EXPECT_OFFSET(co_linetable, "PyCodeObject", "co_linetable");
	EXPECT_OFFSET(co_code, "PyCodeObject", "co_code_adaptive");
	EXPECT_OFFSET(str_length, "PyASCIIObject", "length");
	EXPECT_OFFSET(str_hash, "PyASCIIObject", "hash");
	EXPECT_OFFSET(str_state, "PyASCIIObject", "state");
	cr_expect_eq(l.str_ascii, size_of(&o, "PyASCIIObject"));
	cr_expect_eq(l.str_compact, size_of(&o, "PyCompactUnicodeObject"));
	/* the reads cover the fields: the last one read of each struct ends within */
	cr_expect_geq(l.ts_read, offset_of(&o, "PyThreadState", "native_thread_id") + 8);
	cr_expect_geq(l.fr_read, offset_of(&o, "_PyInterpreterFrame", "owner") + 1);
	cr_expect_geq(l.co_read, offset_of(&o, "PyCodeObject", "co_linetable") + 8);
	oracle_close(&o);
	free(debug);
}

/* The oracle can fail: a member that is not there, a wrong offset, is told. */
Test(py_layout, the_oracle_tells_a_wrong_offset)
{
	struct dwarf_oracle o;
	char *debug;

	if (access(PYTHON311, R_OK) || !(debug = debug_file_of(PYTHON311)))
		skip_unless_ci("no " PYTHON311 " with its debug file");
	oracle_open(&o, debug);
	cr_expect_eq(offset_of(&o, "PyThreadState", "no_such_member"), -1);
	cr_expect_neq(offset_of(&o, "PyThreadState", "native_thread_id"),
		      offset_of(&o, "PyThreadState", "thread_id"));
	oracle_close(&o);
	free(debug);
}

Test(py_layout, versions_without_a_layout_are_refused)
{
	struct py_layout l;

	cr_expect_eq(py_layout__for_version(0x030a0df0, &l), -ENOTSUP);	/* 3.10.13 */
	cr_expect_eq(py_layout__for_version(0, &l), -ENOTSUP);
	cr_expect_eq(py_layout__for_version(0x030b00f0, &l), 0);		/* 3.11.0 */
	cr_expect_eq(py_layout__for_version(0x030b0cf0, &l), 0);		/* 3.11.12 */
}

Test(py_layout, a_layout_reading_past_the_buffers_is_invalid)
{
	struct py_layout l;

	cr_assert_eq(py_layout__for_version(0x030b02f0, &l), 0);
	cr_assert(py_layout__valid(&l));
	l.ts_tid = PY_TS_READ;
	cr_expect_not(py_layout__valid(&l));
	cr_assert_eq(py_layout__for_version(0x030b02f0, &l), 0);
	l.fr_read = PY_FRAME_READ + 8;
	cr_expect_not(py_layout__valid(&l));
	cr_assert_eq(py_layout__for_version(0x030b02f0, &l), 0);
	l.co_qualname = l.co_read;
	cr_expect_not(py_layout__valid(&l));
	cr_assert_eq(py_layout__for_version(0x030b02f0, &l), 0);
	l.str_compact = PY_STR_HDR + 8;
	cr_expect_not(py_layout__valid(&l));
}

Test(py_layout, version_strings)
{
	char buf[32];

	cr_expect_str_eq(py_layout__version_str(0x030b02f0, buf, sizeof(buf)), "3.11.2");
	cr_expect_str_eq(py_layout__version_str(0x030e00a1, buf, sizeof(buf)), "3.14.0");
}
