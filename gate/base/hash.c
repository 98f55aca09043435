/* 64-bit streaming checksum (see hash.h): each 8-byte little-endian word is multiplied by an odd
 * constant, xored in, rotated and multiplied again; the length and a final avalanche (the
 * splitmix64 finalizer, Steele, Lea, Flood 2014) end it. Word at a time, so gigabytes of
 * tensors hash in well under a second. */
#include "hash.h"

#include <string.h>

#define K1 0x9E3779B97F4A7C15ull
#define K2 0xC2B2AE3D27D4EB4Full

static uint64_t rotl(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

static uint64_t mix_word(uint64_t h, uint64_t w)
{
    return rotl(h ^ (w * K2), 31) * K1;
}

static uint64_t load64(const unsigned char *p)
{
    uint64_t w = 0;
    for (int i = 7; i >= 0; i--)
        w = (w << 8) | p[i];
    return w;
}

void pg_hash_init(pg_hash *s)
{
    memset(s, 0, sizeof *s);
    s->h = 0x243F6A8885A308D3ull;
}

void pg_hash_update(pg_hash *s, const void *data, size_t n)
{
    const unsigned char *p = data;
    s->len += n;
    while (n > 0 && s->n_tail > 0) {
        s->tail[s->n_tail++] = *p++;
        n--;
        if (s->n_tail == 8) {
            s->h = mix_word(s->h, load64(s->tail));
            s->n_tail = 0;
        }
    }
    if (n == 0)
        return; /* the tail, if any, is still filling */
    uint64_t h = s->h;
    for (; n >= 8; p += 8, n -= 8)
        h = mix_word(h, load64(p));
    s->h = h;
    memcpy(s->tail, p, n);
    s->n_tail = n;
}

uint64_t pg_hash_final(const pg_hash *s)
{
    uint64_t h = s->h;
    if (s->n_tail) {
        unsigned char last[8] = {0};
        memcpy(last, s->tail, s->n_tail);
        h = mix_word(h, load64(last) ^ ((uint64_t)s->n_tail << 56));
    }
    h ^= s->len * K1;
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
    return h ^ (h >> 31);
}

uint64_t pg_hash_bytes(const void *data, size_t n)
{
    pg_hash s;
    pg_hash_init(&s);
    pg_hash_update(&s, data, n);
    return pg_hash_final(&s);
}
