/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sha256.h - SHA-256 (FIPS 180-4), incremental: what file identities are
 * made of (file_id.h). A file's bytes are someone else's; a digest of them
 * is what two files must share before anything read from one is used for
 * the other, so the hash must be one nobody can find collisions for.
 */
#ifndef SHA256_H
#define SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32

struct sha256 {
	uint32_t h[8];		/* the hash value so far */
	uint64_t len;		/* bytes hashed */
	uint8_t block[64];	/* a block being filled: len % 64 bytes of it */
};

void sha256__init(struct sha256 *s);
void sha256__update(struct sha256 *s, const void *data, size_t len);
/* The digest of everything hashed; s must be initialized again before reuse. */
void sha256__final(struct sha256 *s, uint8_t out[SHA256_LEN]);
/* A number as eight little-endian bytes: fields of fixed width, never ambiguous. */
void sha256__u64(struct sha256 *s, uint64_t v);
/* The digest of data alone. */
void sha256__digest(const void *data, size_t len, uint8_t out[SHA256_LEN]);

/*
 * Whether the CPU's SHA instructions compute it (x86-64 with the SHA
 * extensions), else portable C; sha256__force_portable(true) makes it C
 * from then on (tests hold both to the same digests).
 */
bool sha256__accelerated(void);
void sha256__force_portable(bool on);

#endif /* SHA256_H */
