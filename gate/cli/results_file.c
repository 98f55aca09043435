/* Loading a results file given on the command line (see cli.h). */
#include <stdlib.h>
#include <sys/stat.h>

#include "base/fileio.h"
#include "base/jsonget.h"
#include "cli.h"

pg_status pg_cli_load_results(const char *path, json_t **out, pg_diag *d)
{
    char *text = NULL;
    struct stat sb;
    *out = NULL;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return pg_diag_set(d, PG_ERR_INPUT, path, 0, NULL,
                           "is a folder; give the results file in it (e.g. %s/results.json)",
                           path);
    pg_status st = pg_file_read(path, PG_JSON_MAX_FILE_BYTES * 8, &text, NULL, d);
    if (st != PG_OK)
        return st;
    const char *start;
    if ((st = pg_json_text_start(path, text, NULL, &start, d)) != PG_OK) {
        free(text);
        return st;
    }
    json_error_t e;
    *out = json_loads(start, JSON_REJECT_DUPLICATES, &e);
    free(text);
    if (!*out)
        return pg_diag_set(d, PG_ERR_INPUT, path, e.line, NULL,
                           "malformed JSON at line %d column %d: %s", e.line, e.column, e.text);
    return PG_OK;
}
