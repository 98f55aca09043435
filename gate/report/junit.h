/* JUnit XML from the results json (docs/reports.md), and validation of XML against an XSD.
 * The output is a deterministic function of the json: the same results give the same bytes. */
#ifndef PG_REPORT_JUNIT_H
#define PG_REPORT_JUNIT_H

#include <jansson.h>
#include <stddef.h>

#include "base/diag.h"

/* Render JUnit XML from the results json. One <testsuite> per task (in order of first
 * appearance), one <testcase> per stage record: submission-level stages (assemble, load) named
 * "assemble[all]" / "load[all]", workload stages named "<stage>[<workload name>]"; classname
 * "<task>.<submission name>". status fail -> <failure message="..." type="<stage>"> with the
 * numbers (errors, times, speedup with interval) in the message and in the body, the testcase
 * carrying file="<path relative to settings.working_directory>" line="<n>" (the first
 * diagnostic's source line, else the manifest's line 1; docs/reports.md "Locations") and the
 * body's first line "<path>:<line>: <stage message>"; error ->
 * <error>; skipped -> <skipped message="reason"/>; pass -> nothing. The stage's details rendered as
 * readable "key: value" lines in the testcase <system-out>. time = the stage's duration_s
 * ("%.3f"). Root time = the run's duration_s; each suite's time = its share of it in proportion
 * to its testcases' times, whole milliseconds by largest remainder, so the suites add up to the
 * root exactly. The run-wide properties (version, verdict, environment) appear once, in the
 * first suite. Suite timestamp = results started_utc without the 'Z' ("2026-11-29T10:00:00", the
 * junit-10 xs:dateTime form), hostname from environment.hostname (or "unknown"); counts
 * tests/failures/errors/skipped exact. Never duplicate testcase (classname,name) pairs: a second
 * submission with the same task and name gets classname "<task>.<name>#2", a repeated stage name
 * within one classname gets "#2" appended to the testcase name. Strictly valid against
 * schemas/junit.xsd, and against the Jenkins junit-10.xsd once the testcases' file and line
 * attributes (which junit-10 lacks) are removed; no properties on testcases. Untrusted text is cleaned (invalid UTF-8 and XML-forbidden characters become
 * U+FFFD) and escaped by libxml2.
 * *out is a NUL-terminated malloc'd buffer owned by the caller, *len (len may be NULL) its length
 * without the NUL;
 * errors: PG_ERR_INPUT naming results_file and the JSON path; PG_ERR_INFRA when libxml2 fails
 * or memory runs out. On error *out is NULL. */
pg_status pg_report_junit(const json_t *results, const char *results_file, char **out, size_t *len,
                          pg_diag *d);

/* Validate XML text against an XSD file. Returns PG_OK when valid; PG_ERR_INPUT with the first
 * validation error (line + message) otherwise (also for XML that is not well-formed);
 * PG_ERR_INFRA if the schema cannot be loaded. Never prints; never reaches the network. */
pg_status pg_junit_validate(const char *xml, size_t len, const char *xsd_path, pg_diag *d);

#endif
