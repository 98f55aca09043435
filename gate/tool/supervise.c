/* Supervising one worker child (see supervise.h): a FIFO for status lines opened read-write by
 * us (so it never reports end of file while we hold it, whoever opens and closes it), a pipe for
 * output, one poll loop that reads both and checks the caller's deadline. */
#include "supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/text.h"
#include "children.h"
#include "process.h"

/* Poll period when nothing happens: bounds how late a deadline is noticed. */
#define POLL_MS 100
/* After the child exits: how long to wait for the output pipe to close before the group is
 * killed, and to drain after that. */
#define LEFTOVER_GRACE_S 0.2
#define FINAL_DRAIN_S 0.5

double pg_supervise_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Status lines: bytes accumulate until a newline; an over-long line is skipped to its end. */
typedef struct {
    pg_text cur;
    bool skipping;
    const pg_supervise_hooks *h;
    pg_supervise_result *out;
} liner;

static void liner_feed(liner *l, const char *data, size_t n)
{
    while (n > 0) {
        const char *nl = memchr(data, '\n', n);
        size_t take = nl ? (size_t)(nl - data) : n;
        if (!l->skipping) {
            pg_text_addn(&l->cur, data, take);
            if (l->cur.truncated || l->cur.oom)
                l->skipping = true;
        }
        if (nl) {
            if (l->skipping) {
                l->out->lines_dropped++;
            } else {
                l->out->lines++;
                if (l->h && l->h->on_line)
                    l->h->on_line(l->h->ctx, l->cur.data ? l->cur.data : "", l->cur.len);
            }
            pg_text_clear(&l->cur);
            l->skipping = false;
            take++;
        }
        data += take;
        n -= take;
    }
}

/* Read what is there without blocking. Returns false at end of file or on an error. */
static bool read_ready(int fd, pg_text *out, liner *l)
{
    char buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n > 0) {
            if (out)
                pg_text_addn(out, buf, (size_t)n);
            else
                liner_feed(l, buf, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return n < 0 && errno == EAGAIN;
    }
}

static double current_deadline(const pg_supervise_hooks *h)
{
    return h && h->deadline ? h->deadline(h->ctx) : 0;
}

pg_status pg_supervise_run(const char *const argv[], const char *status_path,
                           const pg_supervise_hooks *hooks, size_t max_output,
                           pg_supervise_result *out, pg_diag *d)
{
    memset(out, 0, sizeof *out);
    out->exit_code = -1;
    pg_text output;
    pg_text_init_bytes(&output, max_output);
    liner lines = {.h = hooks, .out = out};
    pg_text_init_bytes(&lines.cur, PG_SUPERVISE_MAX_LINE);
    int fifo = -1, pipefd[2] = {-1, -1};
    pg_status st = PG_OK;
    double t0 = pg_supervise_now();
    if (!argv || !argv[0] || !argv[0][0] || !status_path || !status_path[0]) {
        out->spawn_failed = true;
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "no program or status path given");
        goto done;
    }
    if (mkfifo(status_path, 0600) != 0) {
        st = pg_diag_set(d, PG_ERR_INFRA, status_path, 0, NULL, "cannot create a FIFO: %s",
                         strerror(errno));
        goto done;
    }
    /* Read-write: a FIFO with a writer (us) never reads as end of file and open never blocks. */
    fifo = open(status_path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fifo < 0 || pipe2(pipefd, O_CLOEXEC) != 0) {
        st = pg_diag_set(d, PG_ERR_INFRA, status_path, 0, NULL,
                         "cannot open the status FIFO or an output pipe: %s", strerror(errno));
        goto done;
    }
    pid_t pid;
    int rc = pg_process_spawn(argv, pipefd[1], &pid);
    close(pipefd[1]);
    pipefd[1] = -1;
    if (rc != 0) {
        out->spawn_failed = true;
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "cannot start '%s': %s", argv[0],
                         strerror(rc));
        goto done;
    }
    out->pid = (int)pid;
    fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
    bool out_open = true, reaped = false;
    int status = 0;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) {
            reaped = true;
            break;
        }
        double deadline = current_deadline(hooks), now = pg_supervise_now();
        if (deadline > 0 && now >= deadline) {
            kill(-pid, SIGKILL);
            out->watchdog_killed = true;
            while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
                ;
            reaped = r == pid;
            break;
        }
        int ms = POLL_MS;
        if (deadline > 0 && (deadline - now) * 1000 + 1 < ms)
            ms = (int)((deadline - now) * 1000) + 1;
        struct pollfd p[2] = {{.fd = fifo, .events = POLLIN},
                              {.fd = out_open ? pipefd[0] : -1, .events = POLLIN}};
        if (poll(p, 2, ms) < 0 && errno != EINTR)
            break;
        if (p[0].revents)
            read_ready(fifo, NULL, &lines);
        if (out_open && p[1].revents)
            out_open = read_ready(pipefd[0], &output, NULL);
    }
    /* Lines the child wrote before it ended are still in the FIFO. */
    read_ready(fifo, NULL, &lines);
    if (out_open) {
        double end = pg_supervise_now() + LEFTOVER_GRACE_S;
        while (out_open && pg_supervise_now() < end) {
            struct pollfd p = {.fd = pipefd[0], .events = POLLIN};
            if (poll(&p, 1, 10) > 0)
                out_open = read_ready(pipefd[0], &output, NULL);
        }
        if (out_open) { /* something the child started still holds the pipe */
            kill(-pid, SIGKILL);
            end = pg_supervise_now() + FINAL_DRAIN_S;
            while (out_open && pg_supervise_now() < end) {
                struct pollfd p = {.fd = pipefd[0], .events = POLLIN};
                if (poll(&p, 1, 10) > 0)
                    out_open = read_ready(pipefd[0], &output, NULL);
            }
        }
    }
    pg_children_remove(pid);
    if (reaped && WIFEXITED(status))
        out->exit_code = WEXITSTATUS(status);
    else if (reaped && WIFSIGNALED(status))
        out->term_signal = WTERMSIG(status);
    out->output_truncated = output.truncated || output.oom; /* memory out: cut like the limit */
    out->output = pg_text_release(&output, &out->output_len);
    if (!out->output && !(out->output = calloc(1, 1)))
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
done:
    out->wall_s = pg_supervise_now() - t0;
    if (fifo >= 0)
        close(fifo);
    for (int i = 0; i < 2; i++)
        if (pipefd[i] >= 0)
            close(pipefd[i]);
    pg_text_free(&lines.cur);
    if (st != PG_OK) { /* out->output is NULL here */
        pg_text_free(&output);
        out->output_truncated = false;
    }
    return st;
}

void pg_supervise_result_free(pg_supervise_result *r)
{
    if (!r)
        return;
    free(r->output);
    memset(r, 0, sizeof *r);
}
