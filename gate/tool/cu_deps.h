/* Reading what the compilers say about a CUDA source's includes, before nvcc compiles it: the
 * make rule that "nvcc -M -MF FILE" writes (every file the preprocessor opened), the include
 * tree that "-Xcompiler -H" prints (". a.cuh", ".. b.cuh": one dot per level), the search list
 * of "cc -xc++ -E -v -" (the host compiler's system include folders), and the #include line of
 * a file that names a header. Pure text functions: no file is opened. */
#ifndef PG_TOOL_CU_DEPS_H
#define PG_TOOL_CU_DEPS_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/diag.h"

/* An owned list of strings. */
typedef struct {
    char **items;
    int n, cap;
} pg_strlist;

/* Append a copy of s[0..len). Errors: PG_ERR_INFRA when out of memory. */
pg_status pg_strlist_add(pg_strlist *l, const char *s, size_t len);
/* Free the strings and reset l. l may be NULL. */
void pg_strlist_free(pg_strlist *l);

/* The prerequisites of the make rule(s) in text (GNU make syntax as gcc's -M writes it):
 * "target : dep1 \<newline> dep2 ..."; "\ " is a space in a name, "\#" a '#', "$$" a '$', a
 * backslash before a newline continues the line. Targets (words ending a rule's head at ':'
 * followed by a blank or the end of the line) are not listed; the same prerequisite is listed
 * once, in first-seen order. *out is initialized here; free with pg_strlist_free.
 * Errors: PG_ERR_INPUT when the text holds no rule ("no ':'"), PG_ERR_INFRA when out of
 * memory. */
pg_status pg_depfile_parse(const char *text, pg_strlist *out);

/* In gcc's -H output (lines of one or more '.', a space, and the header as opened; other lines
 * ignored), the file that included `dep` the first time it appears: the nearest earlier line one
 * level up. parent gets "" when dep is included by the main source itself (one dot).
 * Returns false when dep does not appear (parent then ""). */
bool pg_include_tree_parent(const char *tree, const char *dep, char *parent, size_t n);

/* The folders of the "#include "..." search starts here:" and "#include <...> search starts
 * here:" blocks of "cc -E -v" output, in order, up to "End of search list.": each line after
 * its leading blanks, without a trailing " (framework directory)". *out is initialized here.
 * Errors: PG_ERR_INPUT when there is no search list, PG_ERR_INFRA when out of memory. */
pg_status pg_cc_search_dirs_parse(const char *text, pg_strlist *out);

/* The 1-based line of the first #include (or #include_next, #import, #embed) directive in
 * text whose file name ends with the path component `name` ("tile.cuh", the last part of the
 * included path); 0 when none. */
int pg_include_line_find(const char *text, const char *name);

#endif
