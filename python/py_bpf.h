/* SPDX-License-Identifier: GPL-2.0 */
/*
 * py_bpf.h - what the BPF side's walk of CPython frames (python.bpf.h)
 * shares with userspace (python/): a Python process's entry, the layout
 * of its interpreter's structures, the words a Python frame takes in a
 * user stack, and the record that names a code object. Fixed-width types
 * only; no pointers.
 *
 * A Python frame is one word of the user stack, with PY_FRAME_BIT set
 * (user addresses never have it): a digest of what names it, its code
 * object's qualified name, file name and first line (and the instruction
 * with --lines), read in the target's memory at the sample, while the
 * frame keeps the code object alive. The first sample of each such word
 * sends its names through the "py_names" ring buffer (struct
 * py_name_event), once per (process, word) while the kernel remembers
 * it: a code object freed and its address reused before the next drain
 * is another word, never another function's name.
 */
#ifndef PY_BPF_H
#define PY_BPF_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define PY_FRAME_BIT (1ull << 63)
/* set in a word made from a code object's names; clear in the markers below */
#define PY_FRAME_NAMED (1ull << 62)
/* a frame whose code object or names could not be read */
#define PY_FRAME_UNREADABLE (PY_FRAME_BIT | 1)

#define PY_MAX_FRAMES 128	/* Python frames read per sample: the walk's own limit */
#define PY_MAX_RUNS 32		/* interpreter activations (C frames of the eval loop) placed */
#define PY_MAX_THREADS 1024	/* thread states looked at to find a thread's */
#define PY_MAX_INTERPS 8	/* interpreters (subinterpreters) looked at */
#define PY_MAX_PROCS 4096	/* Python processes with an entry at once */
#define PY_FREE_SLOTS 4096	/* counts of code objects freed, by pid (py_codes.bpf.h) */
/* a thread of a Python process without a thread state is looked for again after */
#define PY_THREAD_RETRY_NS 100000000ull

/* Bytes read of each structure at most (the layouts' reads are within). */
#define PY_TS_READ 512		/* PyThreadState */
#define PY_FRAME_READ 128	/* _PyInterpreterFrame */
#define PY_CODE_READ 256	/* PyCodeObject, its fixed part */
#define PY_STR_HDR 128		/* a str's header */
/* Bytes of a name's characters kept (and digested): longer ones are cut. */
#define PY_NAME_BYTES 128	/* qualified name */
#define PY_FILE_BYTES 256	/* file name */
/* Bytes of a code object's location table sent with its names (--lines). */
#define PY_LINETABLE_BYTES 4096

#define PY_NO_FIELD 0xffff	/* a field the version does not have */
#define PY_NO_OWNER 0xff

/*
 * Where CPython keeps what the walk reads, as offsets in bytes: one
 * version's (python/py_layout.c). A process that lies about them gets
 * wrong names for itself at worst: every read is bpf_probe_read_user()
 * of its own memory, within the sizes above.
 */
struct py_layout {
	__u32 rt_interps;	/* _PyRuntime.interpreters.head */
	__u16 interp_next;	/* PyInterpreterState.next */
	__u16 interp_threads;	/* PyInterpreterState.threads.head */
	__u16 ts_next;		/* PyThreadState.next */
	__u16 ts_tid;		/* PyThreadState.native_thread_id */
	__u16 ts_frame;		/* PyThreadState.cframe (3.11, 3.12), current_frame (3.13+) */
	__u16 ts_read;		/* bytes read of a PyThreadState: past those three */
	__u16 cf_frame;		/* _PyCFrame.current_frame; PY_NO_FIELD without _PyCFrame */
	__u16 cf_previous;	/* _PyCFrame.previous */
	__u16 fr_code;		/* _PyInterpreterFrame.f_code (f_executable) */
	__u16 fr_previous;
	__u16 fr_instr;		/* prev_instr (3.11, 3.12), instr_ptr (3.13+) */
	__u16 fr_owner;
	__u16 fr_entry;		/* is_entry (3.11); PY_NO_FIELD after */
	__u16 fr_read;
	__u16 co_filename, co_qualname, co_firstlineno, co_linetable;
	__u16 co_code;		/* co_code_adaptive: the instructions */
	__u16 co_read;
	__u16 str_length, str_hash, str_state;	/* PyASCIIObject's */
	__u16 str_ascii;	/* sizeof(PyASCIIObject): where an ASCII str's characters start */
	__u16 str_compact;	/* sizeof(PyCompactUnicodeObject): ... any other compact str's */
	__u16 bytes_size;	/* PyBytesObject's ob_size (co_linetable's length) */
	__u16 bytes_data;	/* ... and ob_sval */
	/*
	 * _PyInterpreterFrame.f_func and PyFunctionObject.func_version, by
	 * which a frame's code object is known without reading it
	 * (py_funcs.bpf.h): 3.11's; PY_NO_FIELD in the other versions,
	 * whose function versions are not shown to name one function
	 * object for the life of the process (3.12 counts them per
	 * interpreter)
	 */
	__u16 fr_func;
	__u16 fn_version;
	/*
	 * owner of the eval loop's entry frame, on its C stack (3.12 on),
	 * PY_NO_OWNER: none; a frame of a greater owner is no Python frame
	 * (3.14's FRAME_OWNED_BY_CSTACK)
	 */
	__u8 owner_shim;
	__u8 code_tag;		/* low bits of fr_code that are a tag, not the address (3.14 on) */
};

/*
 * A Python process, by pid (tgid): published by python/py_procs.c once
 * its interpreter is found; exec and exit delete it. gen 0 is a
 * placeholder while the process is looked at (no Python frames yet).
 */
struct py_proc {
	__u32 gen;		/* generation of pid it was found in (profile.h) */
	__u32 version;		/* PY_VERSION_HEX */
	__u64 runtime;		/* address of _PyRuntime */
	__u64 code_type;	/* address of PyCode_Type: a frame's code is one; 0: not checked */
	/*
	 * 1: the interpreter's code_dealloc() has the uprobe that counts
	 * the process's frees of code objects (py_codes.bpf.h)
	 */
	__u32 watched;
	__u32 pad;
	/*
	 * _PyEval_EvalFrameDefault's code, [start, end), and its .cold
	 * part where the symbols name one: a walk by frame pointers puts
	 * Python frames in place of these (a walk by unwind tables finds
	 * the interpreter's C frame by where its activation's data lies).
	 */
	__u64 eval_start, eval_end;
	__u64 cold_start, cold_end;
	struct py_layout l;
};

/* What the kernel remembers of a thread: where its PyThreadState is. */
struct py_thread {
	__u64 tstate;		/* 0: none found; look again after retry_ns */
	__u64 retry_ns;
	__u32 pid;		/* the process it was found in */
	__u32 pad;
};

/* A word whose names were sent: (process, generation, word). */
struct py_seen_key {
	__u32 pid, gen;
	__u64 id;
};

/* A str copied: its characters from the start, kind bytes each. */
struct py_str_copy {
	__u32 len;		/* characters in the str */
	__u16 nbytes;		/* bytes copied (a whole number of characters) */
	__u8 kind;		/* 1 (Latin-1, or ASCII), 2 (UCS-2), 4 (UCS-4) */
	__u8 ascii;
};

/* Sent through "py_names" the first time a frame's word is seen. */
struct py_name_event {
	__u32 pid, gen;
	__u64 id;		/* the frame's word */
	__u64 code;		/* the code object's address (-v) */
	__s32 firstlineno;
	__u32 lasti;		/* with --lines: the instruction, in code units */
	struct py_str_copy qualname, filename;
	/*
	 * with --lines: the first bytes of the code object's location
	 * table (co_linetable), which follow the record, and how many
	 * bytes the table has in all
	 */
	__u32 nr_linetable, linetable_len;
	__u8 name[PY_NAME_BYTES];
	__u8 file[PY_FILE_BYTES];
};

/* A record and the location table after it: the BPF side's scratch. */
struct py_name_record {
	struct py_name_event e;
	__u8 linetable[PY_LINETABLE_BYTES];
};

#endif /* PY_BPF_H */
