// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_py_names.c - the records of the py_names ring buffer, whose bytes
 * the sampled process chose (python/py_names.c): each input is a run of
 * records, each taken and looked up again; names that come out are
 * NUL-terminated UTF-8 of bounded length. py_names__decode on the raw
 * bytes with every kind, too.
 */
#include <linux/types.h>

#include "fuzz.h"
#include "python/py_bpf.h"
#include "python/py_names.h"

/* Well-formed UTF-8, as py_names__decode writes it: no byte sequence that is not a character. */
static void check_utf8(const char *s, size_t max)
{
	size_t n = strlen(s);

	FUZZ_CHECK(n < max);
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 :
			     (c & 0xf8) == 0xf0 ? 4 : 0;

		FUZZ_CHECK(c && len && i + len <= n);
		for (size_t k = 1; k < len; k++)
			FUZZ_CHECK(((unsigned char)s[i + k] & 0xc0) == 0x80);
		i += len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct py_names *n = py_names__new(64, 16);
	const size_t rec = sizeof(struct py_name_event);
	char out[64];

	if (!n)
		return 0;
	for (size_t off = 0; off < size; off += rec) {
		size_t len = size - off < rec ? size - off : rec;
		struct py_name_event e;
		const struct py_name *pn;

		memset(&e, 0, sizeof(e));
		memcpy(&e, data + off, len);
		if (py_names__add(n, &e, len))
			continue;
		pn = py_names__find(n, e.pid, e.gen, e.id);
		FUZZ_CHECK(pn);
		check_utf8(pn->label, 4 * (PY_NAME_BYTES + PY_FILE_BYTES));
		check_utf8(pn->func, 3 * PY_NAME_BYTES);
		check_utf8(pn->file, 3 * PY_FILE_BYTES);
	}
	for (unsigned int kind = 0; kind <= 4; kind++) {
		py_names__decode(data, size, kind, (uint32_t)size, out, sizeof(out));
		check_utf8(out, sizeof(out));
	}
	py_names__free(n);
	return 0;
}
