/* Annotations from the results model: where a kernel failed, at the PTX line when the stage's
 * details carry located diagnostics (assemble today; any stage with a details.diagnostics list of
 * {severity, line, message}, such as an instruction check, is read the same way), else on the
 * submission's manifest. One list feeds both the workflow commands printed to the log
 * ("::error file=…,line=…::…", of which GitHub shows only 10 errors and 10 warnings per step) and
 * the check run's annotations (all of them, sent in batches of 50). Pure: reads the results view
 * only and allocates the list. */
#ifndef PG_GITHUB_ANNOTATIONS_H
#define PG_GITHUB_ANNOTATIONS_H

#include <stddef.h>

#include "base/diag.h"
#include "report/results_read.h"

/* Largest number of annotations made from one results file; the rest are counted in
 * pg_gh_annotations.dropped. */
#define PG_GH_ANNOTATIONS_MAX 1000

typedef enum { PG_GH_NOTICE, PG_GH_WARNING, PG_GH_FAILURE } pg_gh_level;

/* One annotation. Strings are owned by the list; text is cleaned of control and bidi characters
 * (newlines kept in message) and cut at 255 bytes (title) and 4000 bytes (message). */
typedef struct {
    char *path;       /* repository-relative when it was under the workspace */
    long start_line;  /* >= 1 */
    long end_line;
    pg_gh_level level;
    char *title;
    char *message;
    char *group;      /* "stage status" of a workload stage's failure, else NULL */
    size_t workloads; /* workloads this failure annotation stands for (0: a submission stage) */
} pg_gh_annotation;

typedef struct {
    pg_gh_annotation *items;
    size_t n;
    size_t count[3]; /* by level */
    size_t dropped;  /* past PG_GH_ANNOTATIONS_MAX */
} pg_gh_annotations;

/* Build the annotations of r: for every stage record (submission and workload stages), each
 * error or warning in details.diagnostics (errors as failures), at the submission's source when
 * the diagnostic has a PTX line and the source is a .ptx file, else at line 1 of the source with
 * "PTX line N" in the message; and for every failed or errored stage that produced no error
 * annotation, one failure on line 1 of its manifest with the stage's message; the same failure
 * (stage, status and message) on several workloads of one submission is one annotation titled
 * "ptxgate STAGE[N workloads] STATUS: task / name", so GitHub's few shown annotations are not
 * spent on repeats. workspace (may be
 * NULL or ""): a path under it is made relative to it; "./" prefixes are dropped.
 * *out is zeroed first; free with pg_gh_annotations_free on every path.
 * Errors: PG_ERR_INPUT for a malformed diagnostics list (file and JSON path); PG_ERR_INFRA on
 * out-of-memory. */
pg_status pg_gh_annotations_build(const pg_results *r, const char *workspace,
                                  pg_gh_annotations *out, pg_diag *d);
void pg_gh_annotations_free(pg_gh_annotations *a);

/* "failure", "warning", "notice" (check-run annotation_level). */
const char *pg_gh_level_name(pg_gh_level l);

/* The workflow command for a, one line ending in "\n": "::error file=F,line=L,endLine=E,title=T::M"
 * (::warning / ::notice), with the message escaped (% CR LF) and the property values escaped
 * (% CR LF : ,), so nothing in the text can end the command or start another. malloc'd; NULL on
 * out-of-memory. */
char *pg_gh_annotation_command(const pg_gh_annotation *a);

/* Escape for workflow commands, appended to t: data (message) and property values. */
void pg_gh_escape_data(pg_text *t, const char *s);
void pg_gh_escape_property(pg_text *t, const char *s);

#endif
