// SPDX-License-Identifier: GPL-2.0
/*
 * SHA-256 (symbols/sha256.c): the FIPS 180-4 examples, the same digest
 * whatever pieces the bytes come in, and sha256sum's digest of files of
 * every length around the block and padding boundaries.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "symbols/sha256.h"
#include "test_util.h"

static void hex(const uint8_t d[SHA256_LEN], char out[2 * SHA256_LEN + 1])
{
	for (int i = 0; i < SHA256_LEN; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void assert_digest(const void *data, size_t len, const char *want)
{
	char got[2 * SHA256_LEN + 1];
	uint8_t d[SHA256_LEN];

	sha256__digest(data, len, d);
	hex(d, got);
	cr_assert_str_eq(got, want, "%zu bytes", len);
}

/* FIPS 180-4's examples (NIST's "SHA256.pdf", SHA-2 additional vectors). */
static void fips_examples(void)
{
	static const char two_blocks[] =
		"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	static const char four_blocks[] =
		"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
		"ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";

	assert_digest("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	assert_digest("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	assert_digest(two_blocks, strlen(two_blocks),
		      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	assert_digest(four_blocks, strlen(four_blocks),
		      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

static void a_million_a(void)
{
	char *a = malloc(1000000);

	cr_assert_not_null(a);
	memset(a, 'a', 1000000);
	assert_digest(a, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(a);
}

Test(sha256, fips_180_4_examples)
{
	cr_log_info("SHA instructions: %s", sha256__accelerated() ? "used" : "none");
	fips_examples();
	a_million_a();
}

Test(sha256, fips_180_4_examples_in_portable_c)
{
	sha256__force_portable(true);
	cr_assert(!sha256__accelerated());
	fips_examples();
	a_million_a();
}

/* Fed in pieces of every size from 1 to 130 bytes, the same digest as at once. */
Test(sha256, pieces_of_any_size_give_the_same_digest)
{
	uint8_t data[1000], whole[SHA256_LEN], pieces[SHA256_LEN];

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 131 + 7);
	sha256__digest(data, sizeof(data), whole);
	for (size_t step = 1; step <= 130; step++) {
		struct sha256 s;

		sha256__init(&s);
		for (size_t off = 0; off < sizeof(data); off += step)
			sha256__update(&s, data + off,
				       off + step <= sizeof(data) ? step : sizeof(data) - off);
		sha256__final(&s, pieces);
		cr_assert_eq(memcmp(whole, pieces, SHA256_LEN), 0, "pieces of %zu bytes", step);
	}
}

/* A block a call, or many: the instructions and C agree on every length to 3 blocks. */
Test(sha256, the_cpus_instructions_agree_with_c)
{
	uint8_t data[200], a[SHA256_LEN], b[SHA256_LEN];

	if (!sha256__accelerated())
		cr_skip_test("no SHA instructions on this CPU");
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 37 + 11);
	for (size_t len = 0; len <= sizeof(data); len++) {
		sha256__force_portable(false);
		sha256__digest(data, len, a);
		sha256__force_portable(true);
		sha256__digest(data, len, b);
		cr_assert_eq(memcmp(a, b, SHA256_LEN), 0, "%zu bytes", len);
	}
}

/* sha256sum (coreutils) of path, in hex. */
static void sha256sum(const char *path, char out[2 * SHA256_LEN + 1])
{
	char cmd[4200];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "sha256sum '%s'", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_eq(fscanf(p, "%64s", out), 1);
	pclose(p);
}

/*
 * Files of every length from 0 to 200 bytes (every padding case: the
 * length in the same block, or a block of its own) and a few large ones.
 */
Test(sha256, the_digest_of_files_is_sha256sums)
{
	static const size_t big[] = { 4095, 4096, 65537, 1000003 };
	char *tmp = make_tmpdir(), *path = path_in(tmp, "f"), want[2 * SHA256_LEN + 1],
	     got[2 * SHA256_LEN + 1];
	uint8_t *data = malloc(1000003), d[SHA256_LEN];
	unsigned int seed = 12345;

	cr_assert_not_null(data);
	for (size_t i = 0; i < 1000003; i++) {
		seed = seed * 1103515245u + 12345u;
		data[i] = seed >> 16;
	}
	for (size_t n = 0; n < 200 + ARRAY_SIZE(big); n++) {
		size_t len = n < 200 ? n : big[n - 200];

		write_bytes(path, data, len);
		sha256sum(path, want);
		for (int portable = 0; portable < 2; portable++) {
			sha256__force_portable(portable);
			sha256__digest(data, len, d);
			hex(d, got);
			cr_assert_str_eq(got, want, "%zu bytes%s", len, portable ? ", portable C" : "");
		}
	}
	free(data);
	free(path);
	rm_rf(tmp);
}

Test(sha256, a_number_is_its_eight_little_endian_bytes)
{
	static const uint8_t le[8] = { 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01 };
	uint8_t a[SHA256_LEN], b[SHA256_LEN];
	struct sha256 s;

	sha256__init(&s);
	sha256__u64(&s, 0x0102030405060708ull);
	sha256__final(&s, a);
	sha256__digest(le, sizeof(le), b);
	cr_assert_eq(memcmp(a, b, SHA256_LEN), 0);
}

/* Not a bound (machines differ): the rates, for the record. */
Test(sha256, rate)
{
	size_t len = 64u << 20;
	uint8_t *data = malloc(len), d[SHA256_LEN];

	cr_assert_not_null(data);
	memset(data, 1, len);	/* its pages faulted in before the clock runs */
	for (int portable = 0; portable < 2; portable++) {
		struct timespec t0, t1;
		double s;

		sha256__force_portable(portable);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		sha256__digest(data, len, d);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		s = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;
		cr_log_info("sha256 (%s): %.0f MB/s",
			    portable ? "portable C" : sha256__accelerated() ? "SHA-NI" : "portable C",
			    len / s / 1e6);
	}
	free(data);
}
