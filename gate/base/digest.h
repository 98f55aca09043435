/* SHA-256 content hashes (OpenSSL libcrypto's EVP interface; no hand-written crypto), as the
 * lowercase hex strings stored in baselines to identify an accepted kernel's files. */
#ifndef PG_BASE_DIGEST_H
#define PG_BASE_DIGEST_H

#include <stddef.h>

#include "diag.h"

/* 64 hex digits and a NUL. */
#define PG_SHA256_HEX 65

/* SHA-256 (FIPS 180-4) of len bytes at data into hex (64 lowercase hex digits, NUL-terminated).
 * Errors: PG_ERR_INFRA when libcrypto fails (out of memory). */
pg_status pg_sha256_hex(const void *data, size_t len, char hex[PG_SHA256_HEX], pg_diag *d);

/* SHA-256 of the whole file at path (a regular file of at most max_bytes bytes).
 * Errors: PG_ERR_INPUT naming the file (missing, unreadable, too large); PG_ERR_INFRA as above. */
pg_status pg_sha256_file(const char *path, size_t max_bytes, char hex[PG_SHA256_HEX], pg_diag *d);

/* True when s is 64 lowercase hex digits. */
int pg_sha256_hex_valid(const char *s);

#endif
