/* history.svg: the history charts as SVG, written with libxml2's text writer (see history.h). */
#include <libxml/xmlwriter.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/history.h"
#include "report/results_read.h"
#include "report/xml_writer.h"

#define WIDTH 820.0
#define PANEL_H 300.0
#define LEFT 60.0
#define RIGHT 200.0 /* room for the legend */
#define TOP 40.0
#define BOTTOM 50.0

/* Colour-blind-safe palette (Okabe & Ito, "Color Universal Design", 2008). */
static const char *const k_colours[PG_HISTORY_MAX_LINES] = {
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"};

static bool same_group(const pg_history_series *a, const pg_history_series *b)
{
    return strcmp(a->task, b->task) == 0 && strcmp(a->submission, b->submission) == 0;
}

/* A coordinate attribute in SVG user units, to 0.1 (finer than a pixel is never seen). */
static void attr_coord(pg_xw *x, const char *name, double v)
{
    char b[32];
    snprintf(b, sizeof b, "%.1f", v);
    pg_xw_attr(x, name, b);
}

/* Untrusted text, cleaned for XML (control and bidi characters as U+FFFD), one line, cut. */
static void text_el(pg_xw *x, double px, double py, const char *anchor, const char *size,
                    const char *s)
{
    pg_text c;
    pg_text_init(&c, 512);
    pg_text_add(&c, "");
    pg_rtext_add_clean(&c, s ? s : "", PG_CLEAN_ONE_LINE, 120);
    pg_xw_start(x, "text");
    attr_coord(x, "x", px);
    attr_coord(x, "y", py);
    pg_xw_attr(x, "text-anchor", anchor);
    pg_xw_attr(x, "font-size", size);
    pg_xw_text(x, c.data ? c.data : "");
    pg_xw_end(x);
    if (c.oom)
        x->failed = true;
    pg_text_free(&c);
}

static void line_el(pg_xw *x, double x1, double y1, double x2, double y2, const char *stroke,
                    const char *dash)
{
    pg_xw_start(x, "line");
    attr_coord(x, "x1", x1);
    attr_coord(x, "y1", y1);
    attr_coord(x, "x2", x2);
    attr_coord(x, "y2", y2);
    pg_xw_attr(x, "stroke", stroke);
    if (dash)
        pg_xw_attr(x, "stroke-dasharray", dash);
    pg_xw_end(x);
}

/* One panel at vertical offset y0: the series idx[0..n) of one (task, submission). */
static void panel(pg_xw *x, const pg_history_model *v, const size_t *idx, size_t n, double y0)
{
    size_t n_runs = v->n_runs;
    size_t from = n_runs > PG_HISTORY_CHART_RUNS ? n_runs - PG_HISTORY_CHART_RUNS : 0;
    size_t shown = n_runs - from;
    if (n > PG_HISTORY_MAX_LINES)
        n = PG_HISTORY_MAX_LINES;
    double top = 1.0;
    for (size_t q = 0; q < n; q++)
        for (size_t k = from; k < n_runs; k++) {
            const pg_res_num *sp = &v->series[idx[q]].points[k].speedup;
            if (sp->has)
                top = fmax(top, sp->v);
        }
    top = ceil(top * 11.0) / 10.0;
    double pw = WIDTH - LEFT - RIGHT, ph = PANEL_H - TOP - BOTTOM;
    double ox = LEFT, oy = y0 + TOP + ph;
#define PX(k) (ox + (shown > 1 ? pw * (double)((k) - from) / (double)(shown - 1) : pw / 2.0))
#define PY(v) (oy - ph * (v) / top)
    const pg_history_series *f = &v->series[idx[0]];
    char title[600];
    snprintf(title, sizeof title, "%.200s / %.200s: speedup vs vendor", f->task, f->submission);
    text_el(x, LEFT, y0 + 20.0, "start", "14", title);
    /* axes, y ticks, the vendor's speed (1.0) dashed */
    line_el(x, ox, oy, ox + pw, oy, "#444444", NULL);
    line_el(x, ox, oy, ox, oy - ph, "#444444", NULL);
    char b[64];
    for (int i = 0; i <= 4; i++) {
        double v = top * i / 4.0;
        snprintf(b, sizeof b, "%.2f", v);
        text_el(x, ox - 6.0, PY(v) + 4.0, "end", "10", b);
        line_el(x, ox - 3.0, PY(v), ox, PY(v), "#444444", NULL);
    }
    line_el(x, ox, PY(1.0), ox + pw, PY(1.0), "#888888", "4 3");
    for (size_t k = from; k < n_runs; k++)
        if (shown <= 25 || (k - from) % (shown / 25 + 1) == 0) {
            snprintf(b, sizeof b, "%zu", k + 1);
            text_el(x, PX(k), oy + 16.0, "middle", "10", b);
        }
    text_el(x, ox + pw / 2.0, oy + 36.0, "middle", "11", "run (see the runs table)");
    /* one polyline per run of consecutive speedups, a dot per point */
    for (size_t q = 0; q < n; q++) {
        const pg_history_point *p = v->series[idx[q]].points;
        pg_text pts;
        pg_text_init(&pts, 64u * 1024u);
        pg_text_add(&pts, "");
        for (size_t k = from; k <= n_runs; k++) {
            if (k < n_runs && p[k].speedup.has) {
                pg_text_addf(&pts, "%s%.1f,%.1f", pts.len ? " " : "", PX(k),
                             PY(p[k].speedup.v));
                pg_xw_start(x, "circle");
                attr_coord(x, "cx", PX(k));
                attr_coord(x, "cy", PY(p[k].speedup.v));
                pg_xw_attr(x, "r", "2.5");
                pg_xw_attr(x, "fill", k_colours[q]);
                pg_xw_end(x);
                continue;
            }
            if (pts.len) {
                pg_xw_start(x, "polyline");
                pg_xw_attr(x, "points", pts.data);
                pg_xw_attr(x, "fill", "none");
                pg_xw_attr(x, "stroke", k_colours[q]);
                pg_xw_attr(x, "stroke-width", "1.5");
                pg_xw_end(x);
                pts.len = 0;
                pts.data[0] = '\0';
            }
        }
        if (pts.oom)
            x->failed = true;
        pg_text_free(&pts);
        /* legend */
        double ly = y0 + TOP + 14.0 * (double)q;
        line_el(x, WIDTH - RIGHT + 16.0, ly, WIDTH - RIGHT + 34.0, ly, k_colours[q], NULL);
        text_el(x, WIDTH - RIGHT + 40.0, ly + 4.0, "start", "10", v->series[idx[q]].workload);
    }
#undef PX
#undef PY
}

pg_status pg_history_svg(const pg_history_model *v, char **out, size_t *len, pg_diag *d)
{
    *out = NULL;
    if (len)
        *len = 0;
    size_t n_series = v->n_series;
    pg_res_locale loc = {0};
    pg_status st = pg_res_locale_enter(&loc, d);
    if (st != PG_OK)
        return st;
    size_t *idx = calloc(n_series + 1, sizeof *idx), *firsts = calloc(n_series + 1, sizeof *firsts);
    xmlBufferPtr buf = pg_xw_buffer_new();
    pg_xw x = {buf ? xmlNewTextWriterMemory(buf, 0) : NULL, false};
    if (!idx || !firsts || !x.w) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory writing the SVG");
        goto done;
    }
    /* The groups: the first series of each (task, submission). */
    size_t groups = 0;
    for (size_t i = 0; i < n_series && groups < PG_HISTORY_MAX_CHARTS; i++) {
        bool first = true;
        for (size_t k = 0; k < i && first; k++)
            first = !same_group(&v->series[k], &v->series[i]);
        if (first)
            firsts[groups++] = i;
    }
    double height = PANEL_H * (double)(groups ? groups : 1);
    char b[64];
    xmlTextWriterSetIndent(x.w, 1);
    if (xmlTextWriterStartDocument(x.w, "1.0", "UTF-8", NULL) < 0)
        x.failed = true;
    pg_xw_start(&x, "svg");
    pg_xw_attr(&x, "xmlns", "http://www.w3.org/2000/svg");
    pg_xw_attr(&x, "version", "1.1");
    snprintf(b, sizeof b, "%.0f", WIDTH);
    pg_xw_attr(&x, "width", b);
    snprintf(b, sizeof b, "%.0f", height);
    pg_xw_attr(&x, "height", b);
    pg_xw_attr(&x, "font-family", "sans-serif");
    pg_xw_text_element(&x, "title", "ptxgate history: speedup vs vendor per task and workload");
    pg_xw_start(&x, "rect");
    pg_xw_attr(&x, "width", "100%");
    pg_xw_attr(&x, "height", "100%");
    pg_xw_attr(&x, "fill", "#ffffff");
    pg_xw_end(&x);
    if (!groups)
        text_el(&x, 20.0, 40.0, "start", "14", "No workloads in these runs.");
    for (size_t g = 0; g < groups; g++) {
        size_t n = 0;
        for (size_t i = 0; i < n_series; i++)
            if (same_group(&v->series[i], &v->series[firsts[g]]))
                idx[n++] = i;
        panel(&x, v, idx, n, PANEL_H * (double)g);
    }
    pg_xw_end(&x);
    if (!x.failed && xmlTextWriterEndDocument(x.w) < 0)
        x.failed = true;
    st = pg_xw_finish(&x, buf, false, NULL, "libxml2 failed writing the SVG",
                      "out of memory writing the SVG", out, len, d);
done:
    pg_xw_release(&x, buf);
    free(idx);
    free(firsts);
    pg_res_locale_leave(&loc);
    return st;
}
