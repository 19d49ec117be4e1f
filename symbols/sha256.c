// SPDX-License-Identifier: GPL-2.0
/*
 * sha256.c - SHA-256 as FIPS 180-4 defines it (sections 4.1.2, 4.2.2,
 * 5.1.1, 5.3.3 and 6.2), one 64-byte block at a time (sha256.h); on
 * x86-64 CPUs with the SHA extensions, the same compression by their
 * instructions (Intel SDM: SHA256RNDS2, SHA256MSG1, SHA256MSG2), about
 * seven times faster.
 */
#include <stdbool.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include "symbols/sha256.h"

/* The first 32 bits of the fractional parts of the cube roots of the first 64 primes (4.2.2). */
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t rotr(uint32_t x, int n)
{
	return x >> n | x << (32 - n);
}

/* The six functions of 4.1.2. */
#define CH(x, y, z) (((x) & (y)) ^ (~(x) & (z)))
#define MAJ(x, y, z) (((x) & (y)) ^ ((x) & (z)) ^ ((y) & (z)))
#define BSIG0(x) (rotr(x, 2) ^ rotr(x, 13) ^ rotr(x, 22))
#define BSIG1(x) (rotr(x, 6) ^ rotr(x, 11) ^ rotr(x, 25))
#define SSIG0(x) (rotr(x, 7) ^ rotr(x, 18) ^ ((x) >> 3))
#define SSIG1(x) (rotr(x, 17) ^ rotr(x, 19) ^ ((x) >> 10))

static inline uint32_t load_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void store_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/*
 * 6.2.2 over n blocks at p. The message schedule is kept as its last 16
 * words, W[t] in w[t % 16]: each is needed only 16 steps on.
 */
static void compress_c(uint32_t h[8], const uint8_t *p, size_t n)
{
	for (; n; n--, p += 64) {
		uint32_t w[16], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5],
			 g = h[6], k = h[7];

		for (int t = 0; t < 64; t++) {
			uint32_t t1, t2;

			if (t < 16)
				w[t] = load_be32(p + 4 * t);
			else
				w[t & 15] += SSIG1(w[(t - 2) & 15]) + w[(t - 7) & 15] +
					     SSIG0(w[(t - 15) & 15]);
			t1 = k + BSIG1(e) + CH(e, f, g) + K[t] + w[t & 15];
			t2 = BSIG0(a) + MAJ(a, b, c);
			k = g;
			g = f;
			f = e;
			e = d + t1;
			d = c;
			c = b;
			b = a;
			a = t1 + t2;
		}
		h[0] += a;
		h[1] += b;
		h[2] += c;
		h[3] += d;
		h[4] += e;
		h[5] += f;
		h[6] += g;
		h[7] += k;
	}
}

#if defined(__x86_64__)
#define SHA_TARGET __attribute__((target("sha,sse4.1,ssse3")))

/*
 * The same with the SHA extensions. SHA256RNDS2 runs two rounds on the
 * state split in two registers, {A, B, E, F} and {C, D, G, H} (highest
 * lane first), with W[t] + K[t] for both in the low lanes of a third; two
 * rounds on, the old {A, B, E, F} is the new {C, D, G, H}, so the two
 * registers swap roles each time. The schedule is kept as four registers
 * of four words: W[t..t+3] from the four before by SHA256MSG1 (adds
 * sigma0), the words 7 back (PALIGNR), and SHA256MSG2 (adds sigma1).
 */
SHA_TARGET static void compress_sha_ni(uint32_t h[8], const uint8_t *p, size_t n)
{
	/* each 32-bit lane's bytes reversed: the words are big-endian */
	const __m128i be = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
	__m128i abef = _mm_set_epi32(h[0], h[1], h[4], h[5]);
	__m128i cdgh = _mm_set_epi32(h[2], h[3], h[6], h[7]);

	for (; n; n--, p += 64) {
		__m128i m[4], abef0 = abef, cdgh0 = cdgh;

		for (int i = 0; i < 4; i++)
			m[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), be);
		/* four rounds a turn: m[r % 4] holds W[4r..4r+3] */
		for (int r = 0; r < 16; r++) {
			__m128i wk = _mm_add_epi32(m[r & 3], _mm_loadu_si128((const __m128i *)&K[4 * r]));

			cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
			abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0e));
			/* W[4r+16..4r+19] in place of the words just used */
			if (r < 12)
				m[r & 3] = _mm_sha256msg2_epu32(
					_mm_add_epi32(_mm_sha256msg1_epu32(m[r & 3], m[(r + 1) & 3]),
						      _mm_alignr_epi8(m[(r + 3) & 3], m[(r + 2) & 3], 4)),
					m[(r + 3) & 3]);
		}
		abef = _mm_add_epi32(abef, abef0);
		cdgh = _mm_add_epi32(cdgh, cdgh0);
	}
	h[0] = _mm_extract_epi32(abef, 3);
	h[1] = _mm_extract_epi32(abef, 2);
	h[4] = _mm_extract_epi32(abef, 1);
	h[5] = _mm_extract_epi32(abef, 0);
	h[2] = _mm_extract_epi32(cdgh, 3);
	h[3] = _mm_extract_epi32(cdgh, 2);
	h[6] = _mm_extract_epi32(cdgh, 1);
	h[7] = _mm_extract_epi32(cdgh, 0);
}

/* CPUID: SHA (leaf 7, EBX bit 29), SSE4.1 and SSSE3 (leaf 1, ECX bits 19 and 9). */
static bool cpu_has_sha_ni(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 19)) || !(c & (1u << 9)))
		return false;
	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29));
}
#endif

static int forced_portable;

void sha256__force_portable(bool on)
{
	__atomic_store_n(&forced_portable, on, __ATOMIC_RELAXED);
}

bool sha256__accelerated(void)
{
#if defined(__x86_64__)
	static int has = -1;

	if (__atomic_load_n(&has, __ATOMIC_RELAXED) < 0)
		__atomic_store_n(&has, cpu_has_sha_ni(), __ATOMIC_RELAXED);
	return has && !__atomic_load_n(&forced_portable, __ATOMIC_RELAXED);
#else
	return false;
#endif
}

static void compress(uint32_t h[8], const uint8_t *p, size_t n)
{
	if (!n)
		return;
#if defined(__x86_64__)
	if (sha256__accelerated()) {
		compress_sha_ni(h, p, n);
		return;
	}
#endif
	compress_c(h, p, n);
}

void sha256__init(struct sha256 *s)
{
	/* 5.3.3: the fractional parts of the square roots of the first 8 primes */
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, h0, sizeof(h0));
	s->len = 0;
}

void sha256__update(struct sha256 *s, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t fill = s->len % 64;

	s->len += len;
	if (fill) {
		size_t take = 64 - fill < len ? 64 - fill : len;

		memcpy(s->block + fill, p, take);
		p += take;
		len -= take;
		if (fill + take < 64)
			return;
		compress(s->h, s->block, 1);
	}
	/* whole blocks straight from the caller's bytes */
	compress(s->h, p, len / 64);
	p += len - len % 64;
	memcpy(s->block, p, len % 64);
}

void sha256__final(struct sha256 *s, uint8_t out[SHA256_LEN])
{
	/* 5.1.1: a one bit, zeros to 56 bytes of a block, the length in bits */
	uint64_t bits = s->len * 8;
	size_t fill = s->len % 64;

	s->block[fill++] = 0x80;
	if (fill > 56) {
		memset(s->block + fill, 0, 64 - fill);
		compress(s->h, s->block, 1);
		fill = 0;
	}
	memset(s->block + fill, 0, 56 - fill);
	for (int i = 0; i < 8; i++)
		s->block[56 + i] = bits >> (56 - 8 * i);
	compress(s->h, s->block, 1);
	for (int i = 0; i < 8; i++)
		store_be32(out + 4 * i, s->h[i]);
}

void sha256__u64(struct sha256 *s, uint64_t v)
{
	uint8_t b[8];

	for (int i = 0; i < 8; i++)
		b[i] = v >> (8 * i);
	sha256__update(s, b, sizeof(b));
}

void sha256__digest(const void *data, size_t len, uint8_t out[SHA256_LEN])
{
	struct sha256 s;

	sha256__init(&s);
	sha256__update(&s, data, len);
	sha256__final(&s, out);
}
