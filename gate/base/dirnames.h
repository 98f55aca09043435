/* Naming what a folder holds in a message ("unknown architecture 'sm_1' (known: sm_100a,
 * sm_90a)"): the names sorted and joined, and the stems of a folder's data files. */
#ifndef PG_BASE_DIRNAMES_H
#define PG_BASE_DIRNAMES_H

#include <stddef.h>

/* Sort names[0..k) (owned strings) by strcmp, write them joined by ", " into out (n > 0 bytes,
 * always NUL-terminated; a list longer than out is cut short there) and free each of them (the
 * array itself stays the caller's). k 0 gives "". Cannot fail. */
void pg_names_join(char **names, size_t k, char *out, size_t n);

/* "gb100, gh100": the stems of dir's entries whose name ends in suffix (".json") and is longer
 * than it, hidden ones (a leading '.') left out, at most PG_DIRNAMES_MAX of them (in readdir
 * order, then sorted), joined as pg_names_join does into out (n > 0 bytes). "" when dir cannot be
 * read or holds none. Never fails: a name that cannot be copied (out of memory) is left out. */
#define PG_DIRNAMES_MAX 64
void pg_dir_stems(const char *dir, const char *suffix, char *out, size_t n);

#endif
