/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dwarf_bytes.h - the numbers in call frame information, read one way by
 * every reader of it here: cfi_check.c, which reads each entry as libdw
 * will before libdw sees the section, and the makers of rows (cfi_table.c,
 * cfi_linear.c). LEB128 numbers, and the fixed-size pointer encodings
 * (DW_EH_PE_*) that .eh_frame writers use. Internal to unwind/.
 */
#ifndef DWARF_BYTES_H
#define DWARF_BYTES_H

#include <dwarf.h>
#include <stdbool.h>
#include <stdint.h>

/* The bytes of a LEB128 that holds 64 bits. */
#define LEB128_MAX_BYTES 10

/*
 * An unsigned LEB128 of at most max bytes at *p, before end; false when
 * cut or longer (*p is then somewhere in it).
 */
static inline bool uleb_n(const uint8_t **p, const uint8_t *end, unsigned max, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned i = 0; i < max && i < LEB128_MAX_BYTES && *p < end; i++) {
		uint8_t b = *(*p)++;

		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

static inline bool uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	return uleb_n(p, end, LEB128_MAX_BYTES, v);
}

/* A signed LEB128 at *p, before end; false when cut or over 64 bits. */
static inline bool sleb(const uint8_t **p, const uint8_t *end, int64_t *v)
{
	unsigned shift = 0;
	uint64_t u = 0;

	while (*p < end && shift < 64) {
		uint8_t b = *(*p)++;

		u |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				u |= ~0ull << shift;
			*v = (int64_t)u;
			return true;
		}
	}
	return false;
}

/*
 * The bytes of a pointer encoded as enc (its format, the low nibble): 2, 4
 * or 8; 0 when its size is not fixed (LEB128) or it is not there
 * (DW_EH_PE_omit). How it applies (pc-relative...) is the caller's.
 */
static inline unsigned eh_pe_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr: case DW_EH_PE_udata8: case DW_EH_PE_sdata8: return 8;
	case DW_EH_PE_udata4: case DW_EH_PE_sdata4: return 4;
	case DW_EH_PE_udata2: case DW_EH_PE_sdata2: return 2;
	default: return 0;
	}
}

/*
 * The value of a fixed-size pointer encoded as enc at *p, before end,
 * sign-extended for the signed forms (little-endian: x86-64), before its
 * application; false when its size is not fixed or it is cut.
 */
static inline bool eh_pe_read(const uint8_t **p, const uint8_t *end, uint8_t enc, uint64_t *v)
{
	unsigned size = eh_pe_size(enc);
	uint64_t x = 0;

	if (!size || end - *p < (long)size)
		return false;
	for (unsigned i = 0; i < size; i++)
		x |= (uint64_t)(*p)[i] << (8 * i);
	if ((enc & DW_EH_PE_signed) && size < 8 && (x >> (8 * size - 1)) & 1)
		x |= ~0ull << (8 * size);
	*p += size;
	*v = x;
	return true;
}

#endif /* DWARF_BYTES_H */
