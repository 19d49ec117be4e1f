// SPDX-License-Identifier: GPL-2.0
/*
 * py_layout.c - CPython layouts by version (py_layout.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "python/py_layout.h"

/*
 * CPython 3.11 (x86-64, release build: no Py_DEBUG, no Py_TRACE_REFS),
 * from python3.11-dbg's DWARF of Debian 12's /usr/bin/python3.11. The
 * thread state is found by native_thread_id; the frames from its cframe's
 * current_frame down their previous links; an activation's first frame
 * says is_entry, and its _PyCFrame (a local of the eval loop) is on its
 * C stack.
 */
static const struct py_layout py311 = {
	.rt_interps = 0x28,		/* _PyRuntimeState.interpreters.head */
	.interp_next = 0x00,
	.interp_threads = 0x10,		/* PyInterpreterState.threads.head */
	.ts_next = 0x08,
	.ts_tid = 0xa0,			/* PyThreadState.native_thread_id */
	.ts_frame = 0x38,		/* PyThreadState.cframe */
	.ts_read = 0xa8,
	.cf_frame = 0x08,		/* _PyCFrame.current_frame */
	.cf_previous = 0x10,
	.fr_code = 0x20,		/* _PyInterpreterFrame.f_code */
	.fr_previous = 0x30,
	.fr_instr = 0x38,		/* prev_instr */
	.fr_owner = 0x45,
	.fr_entry = 0x44,		/* is_entry */
	.fr_read = 0x48,
	.co_filename = 0x70,
	.co_qualname = 0x80,
	.co_firstlineno = 0x48,
	.co_linetable = 0x88,
	.co_code = 0xb8,		/* co_code_adaptive */
	.co_read = 0x90,
	.str_length = 0x10,		/* PyASCIIObject.length */
	.str_hash = 0x18,
	.str_state = 0x20,
	.str_ascii = 0x30,		/* sizeof(PyASCIIObject) */
	.str_compact = 0x48,		/* sizeof(PyCompactUnicodeObject) */
	.owner_shim = PY_NO_OWNER,
	.code_tag = 0,
};

int py_layout__for_version(uint32_t version, struct py_layout *l)
{
	switch (PY_VERSION_MINOR(version)) {
	case PY_VERSION(3, 11):
		*l = py311;
		return 0;
	default:
		return -ENOTSUP;
	}
}

/* A field of width bytes at off within a read of read bytes, or a field absent. */
static bool within(unsigned int off, unsigned int width, unsigned int read, bool optional)
{
	if (optional && off == PY_NO_FIELD)
		return true;
	return off + width <= read;
}

bool py_layout__valid(const struct py_layout *l)
{
	bool cframes = l->cf_frame != PY_NO_FIELD;

	return l->ts_read <= PY_TS_READ && l->fr_read <= PY_FRAME_READ &&
	       l->co_read <= PY_CODE_READ && l->str_compact <= PY_STR_HDR &&
	       l->str_ascii <= l->str_compact &&
	       within(l->ts_next, 8, l->ts_read, false) && within(l->ts_tid, 8, l->ts_read, false) &&
	       within(l->ts_frame, 8, l->ts_read, false) &&
	       (!cframes || l->cf_previous != PY_NO_FIELD) &&
	       within(l->fr_code, 8, l->fr_read, false) &&
	       within(l->fr_previous, 8, l->fr_read, false) &&
	       within(l->fr_instr, 8, l->fr_read, false) &&
	       within(l->fr_owner, 1, l->fr_read, false) &&
	       within(l->fr_entry, 1, l->fr_read, true) &&
	       /* 3.11's runs end at is_entry, and are placed by their _PyCFrame */
	       (l->fr_entry == PY_NO_FIELD || cframes) &&
	       within(l->co_filename, 8, l->co_read, false) &&
	       within(l->co_qualname, 8, l->co_read, false) &&
	       within(l->co_firstlineno, 4, l->co_read, false) &&
	       within(l->str_length, 8, l->str_compact, false) &&
	       within(l->str_hash, 8, l->str_compact, false) &&
	       within(l->str_state, 4, l->str_compact, false) && l->code_tag < 8;
}

const char *py_layout__version_str(uint32_t version, char *buf, size_t size)
{
	snprintf(buf, size, "%u.%u.%u", version >> 24, (version >> 16) & 0xff,
		 (version >> 8) & 0xff);
	return buf;
}
