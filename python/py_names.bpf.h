/* SPDX-License-Identifier: GPL-2.0 */
/*
 * py_names.bpf.h - a Python frame's word and its names, for python.bpf.h
 * (included there, after the reads it uses): the word is a digest of the
 * code object's qualified name, file name and first line (and with
 * --lines the instruction), read at the sample, so that code freed and
 * its address reused never lends its name to another; the names
 * themselves go to userspace once per word and process generation, in a
 * ring buffer record, and are not read again.
 */
#ifndef PY_NAMES_BPF_H
#define PY_NAMES_BPF_H

/* The words whose names were sent; one forgotten is sent again. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);			/* set */
	__type(key, struct py_seen_key);
	__type(value, __u8);
} py_seen SEC(".maps");

/*
 * In front of py_seen, per CPU: the words this CPU found there or sent,
 * by a tag of (pid, gen, word) in a slot that tag picks, the last one
 * to take it kept. A hit costs a look at memory the CPU keeps warm, where
 * py_seen's are misses at every frame of a sample (most of the Python
 * walk's cost). A tag taken for another's would leave a word unnamed,
 * never named wrong: words are digests under py_seed, not aimed.
 */
#define PY_SENT_SLOTS 512

struct py_sent {
	__u64 tag[PY_SENT_SLOTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_sent);
} py_sent SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1024 * 1024);		/* set */
} py_names SEC(".maps");

/* A str digested (py_str), and how to copy its first characters. */
struct py_str_info {
	__u64 id;
	__u32 data_off;		/* where its characters start */
	struct py_str_copy copy;
};

/*
 * Where the compact str in w->str has its characters (the offset of
 * its header's end), and how many bytes of them are taken, at most cap:
 * off << 16 | bytes; 0: not a compact str. A global function: verified
 * once.
 */
__noinline __u32 py_str_chars(__u32 cap)
{
	struct py_walk *w = py_walk_buf();
	const struct py_layout *l;
	__u32 state, kind, bytes;
	__u64 len, all;

	if (!w || cap > PY_FILE_BYTES)
		return 0;
	l = &w->proc.l;
	len = PY_FIELD(__u64, w->str, l->str_length);
	state = PY_FIELD(__u32, w->str, l->str_state);
	kind = (state >> 2) & 7;
	/* state: interned:2, kind:3, compact:1, ascii:1 (3.11 to 3.14) */
	if (!(state & (1 << 5)) || (kind != 1 && kind != 2 && kind != 4) || len > (1u << 30))
		return 0;
	all = len * kind;
	bytes = all > cap ? cap & ~(kind - 1) : (__u32)all;
	return (__u32)(state & (1 << 6) ? l->str_ascii : l->str_compact) << 16 | bytes;
}

/*
 * The header of the str at addr, then its characters (at most cap
 * bytes) where they are after it, read apart into w->str: for a str
 * whose header and characters could not be read at once (near the end
 * of its mapping). 1: read. A global function: verified once.
 */
__noinline int py_str_apart(__u64 addr, __u32 cap)
{
	struct py_walk *w = py_walk_buf();
	__u32 off, bytes, c;

	if (!w || !PY_READ(w->str, w->proc.l.str_compact, addr))
		return 0;
	c = py_str_chars(cap);
	off = c >> 16;
	bytes = c & 0xffff;
	/* (the layout's str_compact is within PY_STR_HDR: py_layout.c) */
	if (!off || off > PY_STR_HDR)
		return 0;
	return !bytes || !bpf_probe_read_user(w->str + off, py_bound(bytes, PY_FILE_BYTES),
					       (const void *)(addr + off));
}

/*
 * The digest of the str at addr, and how to copy its first characters,
 * at most cap bytes (PY_FILE_BYTES at most): the hash the str keeps,
 * where it has computed it (interned names always have), else FNV-1a
 * over those characters. Its length is in both: a name cut at cap still
 * tells apart two that differ in length. Its header and the characters
 * after it are read at once: a read of the process costs far more than
 * the bytes it copies. 0: not a compact str, or unreadable. A global
 * function: verified once.
 */
__noinline int py_str(__u64 addr, __u32 cap, struct py_str_info *s)
{
	struct py_walk *w = py_walk_buf();
	__u32 off, bytes, c;
	__u64 len, hash, h;

	if (!w || !s || cap > PY_FILE_BYTES)
		return 0;
	if (!PY_READ(w->str, w->proc.l.str_compact + cap, addr) && !py_str_apart(addr, cap))
		return 0;
	c = py_str_chars(cap);
	off = c >> 16;
	bytes = c & 0xffff;
	if (!off || off > PY_STR_HDR)
		return 0;
	len = PY_FIELD(__u64, w->str, w->proc.l.str_length);
	hash = PY_FIELD(__u64, w->str, w->proc.l.str_hash);
	s->data_off = off;
	s->copy.len = (__u32)len;
	s->copy.nbytes = (__u16)bytes;
	s->copy.kind = (__u8)((PY_FIELD(__u32, w->str, w->proc.l.str_state) >> 2) & 7);
	s->copy.ascii = off == w->proc.l.str_ascii;
	h = fnv64_step(py_seed, len << 8 | s->copy.kind);
	if (hash != (__u64)-1) {
		s->id = fnv64_step(h, hash);
		return 1;
	}
	for (__u32 i = 0; i < PY_FILE_BYTES / 8; i++) {
		__u64 word;
		__u32 rest;

		if (i * 8 >= bytes)
			break;
		word = *(const __u64 *)(w->str + off + i * 8);
		rest = bytes - i * 8;
		if (rest < 8)
			word &= (1ull << (rest * 8)) - 1;
		h = fnv64_step(h, word);
	}
	s->id = h ^ 1;	/* apart from the hashes */
	return 1;
}

/* Reading one thread's frames: scalars only, for the global functions. */
struct py_read {
	__u64 frame;		/* the next frame to read */
	__u64 cframe;		/* 3.11: the _PyCFrame of the run being read */
	__u64 func;		/* the function of the frame read (3.11's f_func), or 0 */
	__u64 file;		/* the last file name digested in this sample, */
	struct py_str_info file_info;	/* ... its digest and copy */
	__u32 pid, gen;
	__u32 failed;		/* a frame could not be read: the rest are unknown */
	__u32 version;		/* func's version (py_funcs.bpf.h), 0: none */
	__u32 watched;		/* frees counts the process's frees of code objects, */
	__u64 frees;		/* ... read before its frames (py_codes.bpf.h) */
};

/* Where a record is made before it is sent: its size depends on its table. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_name_record);
} py_records SEC(".maps");

/*
 * With --lines, the first bytes of the location table (a bytes object at
 * table) after record rec; how many.
 */
static __always_inline __u64 py_copy_linetable(struct py_name_record *rec,
					       const struct py_layout *l, __u64 table)
{
	__u64 size, n;

	if (!py_lines || !py_read_ptr(&size, table + l->bytes_size))
		return 0;
	n = size < PY_LINETABLE_BYTES ? size : PY_LINETABLE_BYTES;
	if (!PY_READ(rec->linetable, n, table + l->bytes_data))
		return 0;
	rec->e.linetable_len = size < 0xffffffffull ? (__u32)size : 0xffffffffu;
	return n;
}

/*
 * Send the names of word id (its code object's at code, with its
 * location table at table) unless sent already; only a record sent is
 * remembered, so one the ring buffer had no room for is sent at the
 * word's next sample.
 */
/* Word id's tag in py_sent, and the slot it picks. */
static __always_inline __u64 py_sent_tag(const struct py_read *r, __u64 id, __u32 *slot)
{
	__u64 tag = fnv64_step(fnv64_step(id, r->pid), r->gen) | 1;

	*slot = (tag >> 1) & (PY_SENT_SLOTS - 1);
	return tag;
}

/* Whether this CPU knows the names of word id were sent. */
static __always_inline bool py_sent_has(const struct py_read *r, __u64 id)
{
	__u32 zero = 0, slot;
	__u64 tag = py_sent_tag(r, id, &slot);
	struct py_sent *sent = bpf_map_lookup_elem(&py_sent, &zero);

	return sent && sent->tag[slot & (PY_SENT_SLOTS - 1)] == tag;
}

static __always_inline bool py_send_names(const struct py_read *r, const struct py_layout *l,
					  __u64 id, __u64 code, __s32 first, __u32 lasti,
					  __u64 name, const struct py_str_info *ni, __u64 table)
{
	struct py_seen_key k = { .pid = r->pid, .gen = r->gen, .id = id };
	__u32 zero = 0, slot;
	__u64 tag = py_sent_tag(r, id, &slot);
	struct py_sent *sent = bpf_map_lookup_elem(&py_sent, &zero);
	struct py_name_record *rec;
	struct py_name_event *e;
	static const __u8 one = 1;
	__u64 n;

	slot &= PY_SENT_SLOTS - 1;
	if (sent && sent->tag[slot] == tag)
		return true;
	if (bpf_map_lookup_elem(&py_seen, &k)) {
		if (sent)
			sent->tag[slot] = tag;
		return true;
	}
	rec = bpf_map_lookup_elem(&py_records, &zero);
	if (!rec)
		return false;
	e = &rec->e;
	e->pid = r->pid;
	e->gen = r->gen;
	e->id = id;
	e->code = code;
	e->firstlineno = first;
	e->lasti = lasti;
	e->qualname = ni->copy;
	e->filename = r->file_info.copy;
	e->linetable_len = 0;
	if (ni->copy.nbytes && !PY_READ(e->name, ni->copy.nbytes, name + ni->data_off))
		e->qualname.nbytes = 0;
	if (r->file_info.copy.nbytes &&
	    !PY_READ(e->file, r->file_info.copy.nbytes, r->file + r->file_info.data_off))
		e->filename.nbytes = 0;
	n = py_copy_linetable(rec, l, table);
	e->nr_linetable = (__u32)n;
	if (bpf_ringbuf_output(&py_names, rec, sizeof(*e) + py_bound(n, PY_LINETABLE_BYTES), 0)) {
		stat_inc(STAT_PY_NAMES_LOST);
		return false;
	}
	bpf_map_update_elem(&py_seen, &k, &one, BPF_ANY);
	if (sent)
		sent->tag[slot] = tag;
	return true;
}

#include "python/py_funcs.bpf.h"
#include "python/py_codes.bpf.h"

/* A frame's word from the digest of its code object's names and its instruction. */
static __always_inline __u64 py_word(__u64 partial, __u64 lasti)
{
	return fnv64_step(partial, lasti) | PY_FRAME_BIT | PY_FRAME_NAMED;
}

/*
 * The word of a frame running code object code at instruction pointer
 * instr, its names sent if new; 0 when code is no code object. A global
 * function: verified once.
 */
__noinline __u64 py_frame_word(struct py_read *r, __u64 code, __u64 instr)
{
	struct py_walk *w = py_walk_buf();
	struct py_str_info ni = {};
	const struct py_layout *l;
	__u64 name, file, id, partial, lasti = 0;
	struct py_memo *m;
	__s32 first;

	if (!w || !r)
		return PY_FRAME_UNREADABLE;
	l = &w->proc.l;
	if (py_lines && instr > code + l->co_code)
		lasti = (instr - code - l->co_code) / 2;
	if (lasti > 0xffffffffull)
		lasti = 0;
	/* met before in this sample: its names were sent, or are, unless --lines made another word */
	m = &w->memo[(code >> 4) & (PY_MEMO_SLOTS - 1)];
	if (m->stamp == w->stamp && m->code == code) {
		id = py_word(m->partial, lasti);
		if (!py_lines || py_sent_has(r, id))
			return id;
	}
	/* digested on this CPU since the process last freed a code object: its names were sent */
	if (py_code_known(r, code, &partial)) {
		id = py_word(partial, lasti);
		if (!py_lines || py_sent_has(r, id))
			return id;
	}
	/* digested on this CPU under its function's version: its names were sent */
	if (py_fn_known(r, w, code, &partial)) {
		id = py_word(partial, lasti);
		if (!py_lines || py_sent_has(r, id))
			return id;
	}
	if (!PY_READ(w->co, l->co_read, code))
		return PY_FRAME_UNREADABLE;
	/* what runs there is no code object (None in an entry frame 3.13 on): no frame */
	if (w->proc.code_type && PY_FIELD(__u64, w->co, 8) != w->proc.code_type)
		return 0;
	name = PY_FIELD(__u64, w->co, l->co_qualname);
	file = PY_FIELD(__u64, w->co, l->co_filename);
	first = PY_FIELD(__s32, w->co, l->co_firstlineno);
	if (!py_str(name, PY_NAME_BYTES, &ni))
		return PY_FRAME_UNREADABLE;
	/* the frames of one module share its file name: digested once a sample */
	if (file != r->file) {
		r->file = 0;
		if (!py_str(file, PY_FILE_BYTES, &r->file_info))
			return PY_FRAME_UNREADABLE;
		r->file = file;
	}
	partial = fnv64_step(fnv64_step(fnv64_step(py_seed, ni.id), r->file_info.id), (__u32)first);
	id = py_word(partial, lasti);
	if (py_send_names(r, l, id, code, first, (__u32)lasti, name, &ni,
			  PY_FIELD(__u64, w->co, l->co_linetable))) {
		m->code = code;
		m->stamp = w->stamp;
		m->partial = partial;
		py_fn_keep(r, code, partial);
		py_code_keep(r, w, code, partial);
	}
	return id;
}

#endif /* PY_NAMES_BPF_H */
