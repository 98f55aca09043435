/* Running one child process with captured output and a timeout (see process.h): fork and execve
 * into a new process group with a parent-death signal, one pipe for stdout and stderr, a poll
 * loop that reads while waiting. */
#include "process.h"

#include "children.h"
#include "../base/text.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* How long to keep reading after the child exited while something else still holds the pipe,
 * before its group is killed; and how long to read after that kill. */
#define LEFTOVER_GRACE_S 0.1
#define FINAL_DRAIN_S 0.5

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wait up to wait_ms for output and read one chunk; sets *eof at end of file. */
static void read_some(int fd, int wait_ms, pg_text *s, bool *eof)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, wait_ms) <= 0)
        return;
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0)
        pg_text_addn(s, buf, (size_t)n);
    else if (n == 0 || (errno != EINTR && errno != EAGAIN))
        *eof = true;
}

/* Read until end of file or for at most seconds. */
static void drain(int fd, double seconds, pg_text *s, bool *eof)
{
    double end = now_s() + seconds;
    while (!*eof && now_s() < end)
        read_some(fd, 10, s, eof);
}

/* Read output while waiting for the child; kill its group at the deadline (0: none). Returns
 * whether the child was reaped (false only if waitpid fails), with its wait status in *status. */
static bool wait_reading(pid_t pid, int fd, double deadline, pg_text *s, bool *eof, bool *timed_out,
                         int *status)
{
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid)
            return true;
        if (r < 0 && errno != EINTR)
            return false;
        double left = deadline > 0 ? deadline - now_s() : 1.0;
        if (left <= 0) {
            kill(-pid, SIGKILL);
            *timed_out = true;
            while ((r = waitpid(pid, status, 0)) < 0 && errno == EINTR)
                ;
            return r == pid;
        }
        int ms = *eof ? 2 : 50; /* after EOF the child is exiting: poll for it briefly */
        if (ms > (int)(left * 1000) + 1)
            ms = (int)(left * 1000) + 1;
        if (*eof)
            poll(NULL, 0, ms);
        else
            read_some(fd, ms, s, eof);
    }
}

/* TMPDIR given to children (pg_process_set_tmpdir); "" for the parent's own. */
static char g_tmpdir_entry[4096 + 8];

void pg_process_set_tmpdir(const char *dir)
{
    if (dir && dir[0] && strlen(dir) < sizeof g_tmpdir_entry - 8)
        snprintf(g_tmpdir_entry, sizeof g_tmpdir_entry, "TMPDIR=%s", dir);
    else
        g_tmpdir_entry[0] = '\0';
}

/* The child's environment: the parent's, with TMPDIR replaced when one is set. The array is
 * allocated (caller frees it, not the strings). */
static char **child_environment(void)
{
    size_t n = 0;
    while (environ && environ[n])
        n++;
    char **env = malloc((n + 2) * sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!g_tmpdir_entry[0] || strncmp(environ[i], "TMPDIR=", 7) != 0)
            env[k++] = environ[i];
    if (g_tmpdir_entry[0])
        env[k++] = g_tmpdir_entry;
    env[k] = NULL;
    return env;
}

/* The file to execute for name: name itself when it has a '/', else the first executable
 * regular file of that name in $PATH (as execvp looks, resolved before fork so that the child
 * only makes async-signal-safe calls). Returns 0 or an errno value. */
static int resolve_program(const char *name, char *out, size_t n)
{
    if (strchr(name, '/'))
        return snprintf(out, n, "%s", name) < (int)n ? 0 : ENAMETOOLONG;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    int err = ENOENT;
    for (const char *p = path;; p++) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        struct stat sb;
        if (snprintf(out, n, "%.*s%s%s", (int)len, p, len ? "/" : "", name) < (int)n &&
            stat(out, &sb) == 0 && S_ISREG(sb.st_mode)) {
            if (access(out, X_OK) == 0)
                return 0;
            err = EACCES;
        }
        if (!colon)
            break;
        p = colon;
    }
    return err;
}

int pg_process_spawn(const char *const argv[], int out_fd, pid_t *pid)
{
    char program[4096];
    int rc = resolve_program(argv[0], program, sizeof program);
    if (rc != 0)
        return rc;
    char **env = child_environment();
    int errpipe[2];
    if (!env)
        return ENOMEM;
    if (pipe2(errpipe, O_CLOEXEC) != 0) {
        rc = errno;
        free(env);
        return rc;
    }
    sigset_t all, old;
    sigfillset(&all);
    /* No handler of ours may run in the child between fork and exec. */
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t parent = getpid();
    pid_t child = fork();
    if (child == 0) {
        /* Async-signal-safe calls only from here on (the parent may have threads). */
        setpgid(0, 0);
        /* Killed with the thread that started it, even by SIGKILL; if that already happened
         * before the request took effect, the parent is no longer ours: stop. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        for (int sig = 1; sig < NSIG; sig++)
            if (sig != SIGKILL && sig != SIGSTOP)
                sigaction(sig, &dfl, NULL);
        int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0)
            rc = errno;
        else {
            sigset_t none;
            sigemptyset(&none);
            sigprocmask(SIG_SETMASK, &none, NULL);
            execve(program, (char *const *)argv, env);
            rc = errno;
        }
        while (write(errpipe[1], &rc, sizeof rc) < 0 && errno == EINTR)
            ;
        _exit(127);
    }
    rc = child < 0 ? errno : 0;
    if (child > 0) {
        setpgid(child, child); /* also from here, so the group exists before any kill(-pid) */
        pg_children_add(child);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(errpipe[1]);
    if (child > 0) {
        int child_err = 0;
        ssize_t k;
        while ((k = read(errpipe[0], &child_err, sizeof child_err)) < 0 && errno == EINTR)
            ;
        if (k == (ssize_t)sizeof child_err) { /* exec failed: the child is exiting */
            while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
                ;
            pg_children_remove(child);
            rc = child_err ? child_err : ENOEXEC;
        } else {
            *pid = child;
        }
    }
    close(errpipe[0]);
    free(env);
    return rc;
}

pg_status pg_process_run(const char *const argv[], double timeout_s, size_t max_output,
                         pg_process_result *out, pg_diag *d)
{
    memset(out, 0, sizeof *out);
    out->exit_code = -1;
    pg_text s;
    pg_text_init_bytes(&s, max_output);
    int fds[2] = {-1, -1};
    pg_status st = PG_OK;
    double t0 = now_s();
    if (!argv || !argv[0] || !argv[0][0]) {
        out->spawn_failed = true;
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "no program given to run");
        goto done;
    }
    if (pipe2(fds, O_CLOEXEC) != 0) {
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "cannot create a pipe for '%s': %s",
                         argv[0], strerror(errno));
        goto done;
    }
    pid_t pid;
    int rc = pg_process_spawn(argv, fds[1], &pid);
    close(fds[1]);
    fds[1] = -1;
    if (rc != 0) {
        out->spawn_failed = true;
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "cannot start '%s': %s", argv[0],
                         strerror(rc));
        goto done;
    }
    bool eof = false;
    int status = 0;
    bool reaped = wait_reading(pid, fds[0], timeout_s > 0 ? t0 + timeout_s : 0, &s, &eof,
                               &out->timed_out, &status);
    if (!eof) { /* the child is gone but something it started still holds the pipe */
        drain(fds[0], LEFTOVER_GRACE_S, &s, &eof);
        if (!eof)
            kill(-pid, SIGKILL);
        drain(fds[0], FINAL_DRAIN_S, &s, &eof);
    }
    pg_children_remove(pid);
    if (reaped && WIFEXITED(status))
        out->exit_code = WEXITSTATUS(status);
    else if (reaped && WIFSIGNALED(status))
        out->term_signal = WTERMSIG(status);
    out->wall_s = now_s() - t0;
    /* Memory that ran out while reading cuts the output like the limit does. */
    out->output_truncated = s.truncated || s.oom;
    out->output = pg_text_release(&s, &out->output_len);
    if (!out->output && !(out->output = calloc(1, 1)))
        st = pg_diag_set(d, PG_ERR_INFRA, NULL, 0, NULL, "out of memory");
done:
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    if (st != PG_OK) { /* out->output is NULL here */
        pg_text_free(&s);
        out->output_truncated = false;
        out->wall_s = now_s() - t0;
    }
    return st;
}

void pg_process_result_free(pg_process_result *r)
{
    if (!r)
        return;
    free(r->output);
    memset(r, 0, sizeof *r);
}
