// SPDX-License-Identifier: GPL-2.0
/* The numbers of call frame information as unwind/dwarf_bytes.h reads them. */
#include <criterion/criterion.h>
#include <dwarf.h>

#include "unwind/dwarf_bytes.h"

Test(dwarf_bytes, uleb_stops_at_its_last_byte_and_at_its_bound)
{
	const uint8_t b[] = { 0xe5, 0x8e, 0x26, 0x7f };	/* 624485, then 127 */
	const uint8_t *p = b;
	uint64_t v = 0;

	cr_assert(uleb(&p, b + sizeof(b), &v));
	cr_assert_eq(v, 624485);
	cr_assert_eq(p, b + 3);
	/* the same number is too long for a bound of 2 bytes */
	p = b;
	cr_assert_not(uleb_n(&p, b + sizeof(b), 2, &v));
	/* cut by end */
	p = b;
	cr_assert_not(uleb(&p, b + 2, &v));
}

Test(dwarf_bytes, uleb_of_64_bits_takes_ten_bytes_and_no_more)
{
	uint8_t b[11];
	const uint8_t *p = b;
	uint64_t v = 0;

	memset(b, 0xff, sizeof(b));
	b[9] = 0x01;	/* 2^64 - 1 */
	cr_assert(uleb(&p, b + 10, &v));
	cr_assert_eq(v, UINT64_MAX);
	b[9] = 0x81;	/* an eleventh byte follows: longer than 64 bits */
	p = b;
	cr_assert_not(uleb(&p, b + sizeof(b), &v));
}

Test(dwarf_bytes, sleb_extends_the_sign)
{
	const uint8_t b[] = { 0x7f, 0x80, 0x7f, 0x3f };	/* -1, -128, 63 */
	const uint8_t *p = b;
	int64_t v = 0;

	cr_assert(sleb(&p, b + sizeof(b), &v));
	cr_assert_eq(v, -1);
	cr_assert(sleb(&p, b + sizeof(b), &v));
	cr_assert_eq(v, -128);
	cr_assert(sleb(&p, b + sizeof(b), &v));
	cr_assert_eq(v, 63);
	cr_assert_eq(p, b + sizeof(b));
}

Test(dwarf_bytes, pointers_of_fixed_size_read_and_extended)
{
	const uint8_t b[] = { 0xfc, 0xff, 0xff, 0xff, 0x10, 0x00 };
	const uint8_t *p = b;
	uint64_t v = 0;

	cr_assert(eh_pe_read(&p, b + sizeof(b), DW_EH_PE_pcrel | DW_EH_PE_sdata4, &v));
	cr_assert_eq((int64_t)v, -4);
	cr_assert_eq(p, b + 4);
	cr_assert(eh_pe_read(&p, b + sizeof(b), DW_EH_PE_udata2, &v));
	cr_assert_eq(v, 16);
	/* unsigned: no extension; cut; of no fixed size */
	p = b;
	cr_assert(eh_pe_read(&p, b + sizeof(b), DW_EH_PE_udata4, &v));
	cr_assert_eq(v, 0xfffffffcu);
	p = b;
	cr_assert_not(eh_pe_read(&p, b + 3, DW_EH_PE_udata4, &v));
	cr_assert_eq(p, b);
	cr_assert_not(eh_pe_read(&p, b + sizeof(b), DW_EH_PE_uleb128, &v));
	cr_assert_eq(eh_pe_size(DW_EH_PE_omit), 0);
}
