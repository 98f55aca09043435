/* Fixed sets of names (the functions ptxas provides, the stages that run on a GPU): whether a
 * string is one of them. */
#ifndef PG_BASE_NAMES_H
#define PG_BASE_NAMES_H

#include <stdbool.h>

/* Whether s equals (strcmp) one of names, a NULL-terminated list of strings. s and names are
 * only read; s must not be NULL. */
bool pg_name_among(const char *s, const char *const *names);

#endif
