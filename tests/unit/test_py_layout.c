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
	EXPECT_OFFSET(fr_func, "_PyInterpreterFrame", "f_func");
	EXPECT_OFFSET(fn_version, "PyFunctionObject", "func_version");
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
	/* a frame's function past the frame's read, or a version without it */
	cr_assert_eq(py_layout__for_version(0x030b02f0, &l), 0);
	l.fr_func = l.fr_read;
	cr_expect_not(py_layout__valid(&l));
	cr_assert_eq(py_layout__for_version(0x030b02f0, &l), 0);
	l.fr_func = PY_NO_FIELD;
	cr_expect_not(py_layout__valid(&l));
}

Test(py_layout, version_strings)
{
	char buf[32];

	cr_expect_str_eq(py_layout__version_str(0x030b02f0, buf, sizeof(buf)), "3.11.2");
	cr_expect_str_eq(py_layout__version_str(0x030e00a1, buf, sizeof(buf)), "3.14.0");
}

/*
 * _Py_DebugOffsets of 3.13 (Include/internal/pycore_runtime.h), 3.14 and
 * 3.15 (pycore_debug_offsets.h): every field, in order, as the headers of
 * Debian's libpython3.X-dev declare them. The test lays a struct out from
 * these names, independently of py_layout.c's table of indices.
 */
static const char *const fields_313[] = {
	"cookie", "version", "free_threaded", "runtime_state.size", "runtime_state.finalizing",
	"runtime_state.interpreters_head", "interpreter_state.size", "interpreter_state.id",
	"interpreter_state.next", "interpreter_state.threads_head", "interpreter_state.gc",
	"interpreter_state.imports_modules", "interpreter_state.sysdict",
	"interpreter_state.builtins", "interpreter_state.ceval_gil",
	"interpreter_state.gil_runtime_state", "interpreter_state.gil_runtime_state_enabled",
	"interpreter_state.gil_runtime_state_locked",
	"interpreter_state.gil_runtime_state_holder", "thread_state.size", "thread_state.prev",
	"thread_state.next", "thread_state.interp", "thread_state.current_frame",
	"thread_state.thread_id", "thread_state.native_thread_id",
	"thread_state.datastack_chunk", "thread_state.status", "interpreter_frame.size",
	"interpreter_frame.previous", "interpreter_frame.executable",
	"interpreter_frame.instr_ptr", "interpreter_frame.localsplus", "interpreter_frame.owner",
	"code_object.size", "code_object.filename", "code_object.name", "code_object.qualname",
	"code_object.linetable", "code_object.firstlineno", "code_object.argcount",
	"code_object.localsplusnames", "code_object.localspluskinds",
	"code_object.co_code_adaptive", "pyobject.size", "pyobject.ob_type", "type_object.size",
	"type_object.tp_name", "type_object.tp_repr", "type_object.tp_flags",
	"tuple_object.size", "tuple_object.ob_item", "tuple_object.ob_size", "list_object.size",
	"list_object.ob_item", "list_object.ob_size", "dict_object.size", "dict_object.ma_keys",
	"dict_object.ma_values", "float_object.size", "float_object.ob_fval", "long_object.size",
	"long_object.lv_tag", "long_object.ob_digit", "bytes_object.size",
	"bytes_object.ob_size", "bytes_object.ob_sval", "unicode_object.size",
	"unicode_object.state", "unicode_object.length", "unicode_object.asciiobject_size",
	"gc.size", "gc.collecting"
};
static const char *const fields_314[] = {
	"cookie", "version", "free_threaded", "runtime_state.size", "runtime_state.finalizing",
	"runtime_state.interpreters_head", "interpreter_state.size", "interpreter_state.id",
	"interpreter_state.next", "interpreter_state.threads_head",
	"interpreter_state.threads_main", "interpreter_state.gc",
	"interpreter_state.imports_modules", "interpreter_state.sysdict",
	"interpreter_state.builtins", "interpreter_state.ceval_gil",
	"interpreter_state.gil_runtime_state", "interpreter_state.gil_runtime_state_enabled",
	"interpreter_state.gil_runtime_state_locked",
	"interpreter_state.gil_runtime_state_holder", "interpreter_state.code_object_generation",
	"interpreter_state.tlbc_generation", "thread_state.size", "thread_state.prev",
	"thread_state.next", "thread_state.interp", "thread_state.current_frame",
	"thread_state.thread_id", "thread_state.native_thread_id",
	"thread_state.datastack_chunk", "thread_state.status", "interpreter_frame.size",
	"interpreter_frame.previous", "interpreter_frame.executable",
	"interpreter_frame.instr_ptr", "interpreter_frame.localsplus", "interpreter_frame.owner",
	"interpreter_frame.stackpointer", "interpreter_frame.tlbc_index", "code_object.size",
	"code_object.filename", "code_object.name", "code_object.qualname",
	"code_object.linetable", "code_object.firstlineno", "code_object.argcount",
	"code_object.localsplusnames", "code_object.localspluskinds",
	"code_object.co_code_adaptive", "code_object.co_tlbc", "pyobject.size",
	"pyobject.ob_type", "type_object.size", "type_object.tp_name", "type_object.tp_repr",
	"type_object.tp_flags", "tuple_object.size", "tuple_object.ob_item",
	"tuple_object.ob_size", "list_object.size", "list_object.ob_item", "list_object.ob_size",
	"set_object.size", "set_object.used", "set_object.table", "set_object.mask",
	"dict_object.size", "dict_object.ma_keys", "dict_object.ma_values", "float_object.size",
	"float_object.ob_fval", "long_object.size", "long_object.lv_tag", "long_object.ob_digit",
	"bytes_object.size", "bytes_object.ob_size", "bytes_object.ob_sval",
	"unicode_object.size", "unicode_object.state", "unicode_object.length",
	"unicode_object.asciiobject_size", "gc.size", "gc.collecting", "gen_object.size",
	"gen_object.gi_name", "gen_object.gi_iframe", "gen_object.gi_frame_state",
	"llist_node.next", "llist_node.prev", "debugger_support.eval_breaker",
	"debugger_support.remote_debugger_support", "debugger_support.remote_debugging_enabled",
	"debugger_support.debugger_pending_call", "debugger_support.debugger_script_path",
	"debugger_support.debugger_script_path_size"
};
static const char *const fields_315[] = {
	"cookie", "version", "free_threaded", "runtime_state.size", "runtime_state.finalizing",
	"runtime_state.interpreters_head", "interpreter_state.size", "interpreter_state.id",
	"interpreter_state.next", "interpreter_state.threads_head",
	"interpreter_state.threads_main", "interpreter_state.gc",
	"interpreter_state.imports_modules", "interpreter_state.sysdict",
	"interpreter_state.builtins", "interpreter_state.ceval_gil",
	"interpreter_state.gil_runtime_state", "interpreter_state.gil_runtime_state_enabled",
	"interpreter_state.gil_runtime_state_locked",
	"interpreter_state.gil_runtime_state_holder", "interpreter_state.code_object_generation",
	"interpreter_state.tlbc_generation", "thread_state.size", "thread_state.prev",
	"thread_state.next", "thread_state.interp", "thread_state.current_frame",
	"thread_state.base_frame", "thread_state.last_profiled_frame",
	"thread_state.last_profiled_frame_seq", "thread_state.thread_id",
	"thread_state.native_thread_id", "thread_state.datastack_chunk", "thread_state.status",
	"thread_state.holds_gil", "thread_state.gil_requested", "thread_state.current_exception",
	"thread_state.exc_state", "anon.exc_value", "interpreter_frame.size",
	"interpreter_frame.previous", "interpreter_frame.executable",
	"interpreter_frame.instr_ptr", "interpreter_frame.localsplus", "interpreter_frame.owner",
	"interpreter_frame.stackpointer", "interpreter_frame.tlbc_index", "code_object.size",
	"code_object.filename", "code_object.name", "code_object.qualname",
	"code_object.linetable", "code_object.firstlineno", "code_object.argcount",
	"code_object.localsplusnames", "code_object.localspluskinds",
	"code_object.co_code_adaptive", "code_object.co_tlbc", "pyobject.size",
	"pyobject.ob_type", "type_object.size", "type_object.tp_name", "type_object.tp_repr",
	"type_object.tp_flags", "type_object.tp_basicsize", "type_object.tp_dictoffset",
	"heap_type_object.size", "heap_type_object.ht_cached_keys", "tuple_object.size",
	"tuple_object.ob_item", "tuple_object.ob_size", "list_object.size",
	"list_object.ob_item", "list_object.ob_size", "set_object.size", "set_object.used",
	"set_object.table", "set_object.mask", "dict_object.size", "dict_object.ma_keys",
	"dict_object.ma_values", "float_object.size", "float_object.ob_fval", "long_object.size",
	"long_object.lv_tag", "long_object.ob_digit", "bytes_object.size",
	"bytes_object.ob_size", "bytes_object.ob_sval", "unicode_object.size",
	"unicode_object.state", "unicode_object.length", "unicode_object.asciiobject_size",
	"unicode_object.compactunicodeobject_size", "gc.size", "gc.collecting", "gc.frame",
	"gc.generation_stats_size", "gc.generation_stats", "gen_object.size",
	"gen_object.gi_name", "gen_object.gi_iframe", "gen_object.gi_frame_state",
	"llist_node.next", "llist_node.prev", "debugger_support.eval_breaker",
	"debugger_support.remote_debugger_support", "debugger_support.remote_debugging_enabled",
	"debugger_support.debugger_pending_call", "debugger_support.debugger_script_path",
	"debugger_support.debugger_script_path_size"
};

/* The value of each field the layout takes, by name; any other is garbage. */
static const struct {
	const char *name;
	uint64_t v;
} debug_values[] = {
	{ "runtime_state.interpreters_head", 0x2a8 },
	{ "interpreter_state.next", 0x18 },
	{ "interpreter_state.threads_head", 0x20 },
	{ "thread_state.next", 0x10 },
	{ "thread_state.native_thread_id", 0x98 },
	{ "thread_state.current_frame", 0x48 },
	{ "interpreter_frame.previous", 0x08 },
	{ "interpreter_frame.executable", 0x00 },
	{ "interpreter_frame.instr_ptr", 0x38 },
	{ "interpreter_frame.owner", 0x46 },
	{ "code_object.filename", 0x60 },
	{ "code_object.qualname", 0x70 },
	{ "code_object.linetable", 0x78 },
	{ "code_object.firstlineno", 0x44 },
	{ "code_object.co_code_adaptive", 0xc8 },
	{ "bytes_object.ob_size", 0x10 },
	{ "bytes_object.ob_sval", 0x20 },
	{ "unicode_object.state", 0x20 },
	{ "unicode_object.length", 0x10 },
	{ "unicode_object.asciiobject_size", 0x28 },
	{ "unicode_object.compactunicodeobject_size", 0x40 },
};

/* The struct of fields, version's, into buf; its size. */
static size_t debug_struct(uint8_t *buf, const char *const *fields, size_t nr, uint64_t version)
{
	for (size_t i = 0; i < nr; i++) {
		uint64_t v = 0xdead0000 + i;

		if (!strcmp(fields[i], "cookie")) {
			memcpy(buf, "xdebugpy", 8);
			continue;
		}
		if (!strcmp(fields[i], "version"))
			v = version;
		else if (!strcmp(fields[i], "free_threaded"))
			v = 0;
		for (size_t k = 0; k < ARRAY_SIZE(debug_values); k++)
			if (!strcmp(fields[i], debug_values[k].name))
				v = debug_values[k].v;
		memcpy(buf + i * 8, &v, 8);
	}
	return nr * 8;
}

static void expect_debug_layout(const char *const *fields, size_t nr, uint64_t version,
				uint16_t compact, uint8_t tag)
{
	uint8_t buf[2048];
	size_t len = debug_struct(buf, fields, nr, version);
	struct py_layout l;

	cr_assert_eq(py_layout__from_debug_offsets(buf, len, (uint32_t)version, &l), 0,
		     "version %#llx", (unsigned long long)version);
	cr_expect_eq(l.rt_interps, 0x2a8);
	cr_expect_eq(l.interp_next, 0x18);
	cr_expect_eq(l.interp_threads, 0x20);
	cr_expect_eq(l.ts_next, 0x10);
	cr_expect_eq(l.ts_tid, 0x98);
	cr_expect_eq(l.ts_frame, 0x48);
	cr_expect_eq(l.ts_read, 0xa0);
	cr_expect_eq(l.cf_frame, PY_NO_FIELD);
	cr_expect_eq(l.fr_previous, 0x08);
	cr_expect_eq(l.fr_code, 0x00);
	cr_expect_eq(l.fr_instr, 0x38);
	cr_expect_eq(l.fr_owner, 0x46);
	cr_expect_eq(l.fr_entry, PY_NO_FIELD);
	/* no function versions read (py_funcs.bpf.h): 3.11's only */
	cr_expect_eq(l.fr_func, PY_NO_FIELD);
	cr_expect_eq(l.fn_version, PY_NO_FIELD);
	cr_expect_eq(l.co_filename, 0x60);
	cr_expect_eq(l.co_qualname, 0x70);
	cr_expect_eq(l.co_linetable, 0x78);
	cr_expect_eq(l.co_firstlineno, 0x44);
	cr_expect_eq(l.co_code, 0xc8);
	cr_expect_eq(l.bytes_size, 0x10);
	cr_expect_eq(l.bytes_data, 0x20);
	cr_expect_eq(l.str_state, 0x20);
	cr_expect_eq(l.str_length, 0x10);
	cr_expect_eq(l.str_hash, 0x18);
	cr_expect_eq(l.str_ascii, 0x28);
	cr_expect_eq(l.str_compact, compact);
	cr_expect_eq(l.owner_shim, 3);
	cr_expect_eq(l.code_tag, tag);
	/* it is no struct of theirs with another version in it */
	cr_expect_eq(py_layout__from_debug_offsets(buf, len, (uint32_t)version + 0x10000, &l),
		     version >> 16 == 0x030f ? -ENOTSUP : -EINVAL);
	/* nor cut short */
	cr_expect_eq(py_layout__from_debug_offsets(buf, len - 8, (uint32_t)version, &l), -EINVAL);
}

/* Each version's own fields, where its header puts them. */
Test(py_layout, debug_offsets_of_each_version)
{
	/* 3.13 and 3.14: a compact str's header is an ASCII one and utf8's two words */
	expect_debug_layout(fields_313, ARRAY_SIZE(fields_313), 0x030d05f0, 0x28 + 16, 0);
	expect_debug_layout(fields_314, ARRAY_SIZE(fields_314), 0x030e0af0, 0x28 + 16, 1);
	expect_debug_layout(fields_315, ARRAY_SIZE(fields_315), 0x030f02f0, 0x40, 3);
}

/* What is not a version's _Py_DebugOffsets gives no layout. */
Test(py_layout, debug_offsets_refused)
{
	uint8_t buf[2048];
	size_t len = debug_struct(buf, fields_314, ARRAY_SIZE(fields_314), 0x030e0af0);
	uint64_t v = 1;
	struct py_layout l;

	buf[0] = 'X';
	cr_expect_eq(py_layout__from_debug_offsets(buf, len, 0x030e0af0, &l), -EINVAL);
	buf[0] = 'x';
	/* free-threaded: other object headers */
	memcpy(buf + 16, &v, 8);
	cr_expect_eq(py_layout__from_debug_offsets(buf, len, 0x030e0af0, &l), -ENOTSUP);
	v = 0;
	memcpy(buf + 16, &v, 8);
	/* an offset past what the BPF side reads */
	v = PY_FRAME_READ;
	memcpy(buf + 36 * 8, &v, 8);	/* interpreter_frame.owner */
	cr_expect_eq(py_layout__from_debug_offsets(buf, len, 0x030e0af0, &l), -EINVAL);
	/* a version whose _Py_DebugOffsets we do not know */
	len = debug_struct(buf, fields_315, ARRAY_SIZE(fields_315), 0x031000f0);
	cr_expect_eq(py_layout__from_debug_offsets(buf, len, 0x031000f0, &l), -ENOTSUP);
	cr_expect_eq(py_layout__from_debug_offsets(buf, len, 0x030c01f0, &l), -ENOTSUP);
	/* a beta of a version we know: its struct may not be the release's */
	len = debug_struct(buf, fields_315, ARRAY_SIZE(fields_315), 0x030f00b2);
	cr_expect_eq(py_layout__from_debug_offsets(buf, len, 0x030f00b2, &l), -ENOTSUP);
	len = debug_struct(buf, fields_315, ARRAY_SIZE(fields_315), 0x030f00f0);
	cr_expect_eq(py_layout__from_debug_offsets(buf, len, 0x030f00f0, &l), 0);
}
