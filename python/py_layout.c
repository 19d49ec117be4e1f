// SPDX-License-Identifier: GPL-2.0
/*
 * py_layout.c - CPython layouts by version (py_layout.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

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
	.bytes_size = 0x10,		/* PyBytesObject.ob_base.ob_size */
	.bytes_data = 0x20,		/* PyBytesObject.ob_sval */
	.fr_func = 0x00,		/* _PyInterpreterFrame.f_func */
	.fn_version = 0x80,		/* PyFunctionObject.func_version */
	.owner_shim = PY_NO_OWNER,
	.code_tag = 0,
};

/*
 * _Py_DebugOffsets, as each version lays it out: the index of each field
 * the layout takes, in 8-byte words from its start (the cookie is word
 * 0), and how many words it has. From Include/internal/pycore_runtime.h
 * (3.13), pycore_debug_offsets.h (3.14, 3.15).
 */
struct debug_words {
	uint32_t version;	/* PY_VERSION(3, x) */
	uint16_t nr;
	uint16_t interpreters_head, interp_next, interp_threads;
	uint16_t ts_next, ts_tid, ts_frame;
	uint16_t fr_previous, fr_executable, fr_instr, fr_owner;
	uint16_t co_filename, co_qualname, co_linetable, co_firstlineno, co_code;
	uint16_t bytes_size, bytes_data;
	uint16_t str_state, str_length, str_ascii, str_compact;	/* str_compact 0: ascii + 16 */
	uint8_t owner_shim;	/* FRAME_OWNED_BY_CSTACK (3.13), _INTERPRETER (3.14 on) */
	uint8_t code_tag;	/* _PyStackRef's Py_TAG_BITS */
};

static const struct debug_words debug_words[] = {
	{ PY_VERSION(3, 13), 73, 5, 8, 9, 21, 25, 23, 29, 30, 31, 33, 35, 37, 38, 39, 43,
	  65, 66, 68, 69, 70, 0, 3, 0 },
	{ PY_VERSION(3, 14), 95, 5, 8, 9, 24, 28, 26, 32, 33, 34, 36, 40, 42, 43, 44, 48,
	  75, 76, 78, 79, 80, 0, 3, 1 },
	{ PY_VERSION(3, 15), 111, 5, 8, 9, 24, 31, 26, 40, 41, 42, 44, 48, 50, 51, 52, 56,
	  87, 88, 90, 91, 92, 93, 3, 3 },
};

#define DEBUG_COOKIE "xdebugpy"

/* Word i of buf, when it fits in a u16 offset. */
static bool word16(const uint8_t *buf, uint16_t i, uint16_t *out)
{
	uint64_t v;

	memcpy(&v, buf + (size_t)i * 8, 8);
	if (v >= PY_NO_FIELD)
		return false;
	*out = (uint16_t)v;
	return true;
}

static uint16_t max16(uint16_t a, uint16_t b)
{
	return a > b ? a : b;
}

int py_layout__from_debug_offsets(const void *buf, size_t len, uint32_t version,
				  struct py_layout *l)
{
	const struct debug_words *w = NULL;
	const uint8_t *b = buf;
	uint64_t v, free_threaded, head;
	bool ok;

	for (size_t i = 0; i < sizeof(debug_words) / sizeof(debug_words[0]); i++)
		if (debug_words[i].version == PY_VERSION_MINOR(version))
			w = &debug_words[i];
	/*
	 * alphas, betas and candidates change the struct within a minor
	 * version: only a final release's is the one the table says
	 */
	if (!w || ((version >> 4) & 0xf) != 0xf)
		return -ENOTSUP;
	if (len < (size_t)w->nr * 8 || memcmp(b, DEBUG_COOKIE, 8))
		return -EINVAL;
	memcpy(&v, b + 8, 8);
	memcpy(&free_threaded, b + 16, 8);
	/* the offsets of this very version: not another's in a file that lies */
	if (PY_VERSION_MINOR(v) != PY_VERSION_MINOR(version))
		return -EINVAL;
	if (free_threaded)
		return -ENOTSUP;
	memset(l, 0, sizeof(*l));
	memcpy(&head, b + (size_t)w->interpreters_head * 8, 8);
	if (head > UINT32_MAX)
		return -EINVAL;
	l->rt_interps = (uint32_t)head;
	ok = word16(b, w->interp_next, &l->interp_next) &&
	     word16(b, w->interp_threads, &l->interp_threads) &&
	     word16(b, w->ts_next, &l->ts_next) && word16(b, w->ts_tid, &l->ts_tid) &&
	     word16(b, w->ts_frame, &l->ts_frame) &&
	     word16(b, w->fr_previous, &l->fr_previous) &&
	     word16(b, w->fr_executable, &l->fr_code) && word16(b, w->fr_instr, &l->fr_instr) &&
	     word16(b, w->fr_owner, &l->fr_owner) &&
	     word16(b, w->co_filename, &l->co_filename) &&
	     word16(b, w->co_qualname, &l->co_qualname) &&
	     word16(b, w->co_linetable, &l->co_linetable) &&
	     word16(b, w->co_firstlineno, &l->co_firstlineno) &&
	     word16(b, w->co_code, &l->co_code) && word16(b, w->bytes_size, &l->bytes_size) &&
	     word16(b, w->bytes_data, &l->bytes_data) &&
	     word16(b, w->str_state, &l->str_state) && word16(b, w->str_length, &l->str_length) &&
	     word16(b, w->str_ascii, &l->str_ascii) &&
	     (!w->str_compact || word16(b, w->str_compact, &l->str_compact));
	if (!ok)
		return -EINVAL;
	/* PyASCIIObject: the hash follows the length; a compact str's header, the utf8 pair */
	l->str_hash = l->str_length + 8;
	if (!w->str_compact)
		l->str_compact = l->str_ascii + 16;
	l->cf_frame = l->cf_previous = l->fr_entry = PY_NO_FIELD;
	l->fr_func = l->fn_version = PY_NO_FIELD;
	l->ts_read = max16(max16(l->ts_next, l->ts_tid), l->ts_frame) + 8;
	l->fr_read = max16(max16(l->fr_code, l->fr_previous), max16(l->fr_instr, l->fr_owner)) + 8;
	l->co_read = max16(max16(max16(l->co_filename, l->co_qualname), l->co_linetable),
			   l->co_firstlineno) + 8;
	l->owner_shim = w->owner_shim;
	l->code_tag = w->code_tag;
	return py_layout__valid(l) ? 0 : -EINVAL;
}

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
	       within(l->fr_func, 8, l->fr_read, true) &&
	       (l->fr_func == PY_NO_FIELD) == (l->fn_version == PY_NO_FIELD) &&
	       /* 3.11's runs end at is_entry, and are placed by their _PyCFrame */
	       (l->fr_entry == PY_NO_FIELD || cframes) &&
	       within(l->co_filename, 8, l->co_read, false) &&
	       within(l->co_qualname, 8, l->co_read, false) &&
	       within(l->co_firstlineno, 4, l->co_read, false) &&
	       within(l->co_linetable, 8, l->co_read, false) &&
	       within(l->str_length, 8, l->str_compact, false) &&
	       within(l->str_hash, 8, l->str_compact, false) &&
	       within(l->str_state, 4, l->str_compact, false) &&
	       l->bytes_size + 8 <= l->bytes_data && l->bytes_data <= PY_STR_HDR && l->code_tag < 8;
}

const char *py_layout__version_str(uint32_t version, char *buf, size_t size)
{
	snprintf(buf, size, "%u.%u.%u", version >> 24, (version >> 16) & 0xff,
		 (version >> 8) & 0xff);
	return buf;
}
