/* A fast 64-bit checksum of byte streams, to tell whether a kernel changed its inputs: equal
 * sums for equal bytes whatever the chunking, different sums for different bytes with
 * probability ~2^-64 for changes not crafted against it. Not cryptographic. */
#ifndef PG_BASE_HASH_H
#define PG_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t h;
    uint64_t len;
    unsigned char tail[8];
    size_t n_tail;
} pg_hash;

void pg_hash_init(pg_hash *s);
/* Feed n bytes; chunk boundaries do not change the result. */
void pg_hash_update(pg_hash *s, const void *data, size_t n);
/* The sum of everything fed (the state stays usable for more updates). */
uint64_t pg_hash_final(const pg_hash *s);
/* One-shot. */
uint64_t pg_hash_bytes(const void *data, size_t n);

#endif
