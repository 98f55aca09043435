/* Fixed sets of names: membership (see names.h). */
#include "names.h"

#include <string.h>

bool pg_name_among(const char *s, const char *const *names)
{
    for (; *names; names++)
        if (strcmp(s, *names) == 0)
            return true;
    return false;
}
