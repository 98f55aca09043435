/* SHA-256 content hashes through OpenSSL's EVP digest interface (see digest.h). */
#include "digest.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "fileio.h"

pg_status pg_sha256_hex(const void *data, size_t len, char hex[PG_SHA256_HEX], pg_diag *d)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    hex[0] = '\0';
    if (EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) != 1 || n != 32)
        return pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "SHA-256 (libcrypto EVP_Digest) failed");
    static const char k_hex[] = "0123456789abcdef";
    for (unsigned int i = 0; i < n; i++) {
        hex[2 * i] = k_hex[md[i] >> 4];
        hex[2 * i + 1] = k_hex[md[i] & 15];
    }
    hex[2 * n] = '\0';
    return PG_OK;
}

pg_status pg_sha256_file(const char *path, size_t max_bytes, char hex[PG_SHA256_HEX], pg_diag *d)
{
    char *buf = NULL;
    size_t len = 0;
    hex[0] = '\0';
    pg_status st = pg_file_read(path, max_bytes, &buf, &len, d);
    if (st == PG_OK)
        st = pg_sha256_hex(buf, len, hex, d);
    free(buf);
    return st;
}

int pg_sha256_hex_valid(const char *s)
{
    if (!s || strlen(s) != 64)
        return 0;
    for (const char *p = s; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return 0;
    return 1;
}
