/* Tracked child process groups, the fatal-signal handler and the guard process (see
 * children.h). */
#include "children.h"

#include "tmpdir.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static atomic_int g_groups[PG_CHILDREN_MAX]; /* 0: free slot */
static char g_dir[4096];
static volatile sig_atomic_t g_have_dir;
static atomic_bool g_installed;
static atomic_int g_guard_fd = -1; /* our end of the guard's socket; -1: no guard */

/* Messages to the guard: one record per send (SOCK_SEQPACKET keeps them apart). */
enum { GUARD_ADD = 1, GUARD_REMOVE, GUARD_DIR, GUARD_NO_DIR };
typedef struct {
    int op;
    int pgid;
    char dir[4000]; /* GUARD_DIR: the folder, NUL-terminated; only the used part is sent */
} guard_msg;

static void guard_send(int op, int pgid, const char *dir)
{
    int fd = atomic_load(&g_guard_fd);
    if (fd < 0)
        return;
    guard_msg m;
    size_t len = offsetof(guard_msg, dir);
    m.op = op;
    m.pgid = pgid;
    if (dir) {
        size_t n = strlen(dir);
        memcpy(m.dir, dir, n + 1);
        len += n + 1;
    }
    /* A guard gone (killed) costs its protection, never a SIGPIPE. */
    while (send(fd, &m, len, MSG_NOSIGNAL) < 0 && errno == EINTR)
        ;
}

void pg_children_add(pid_t pgid)
{
    for (int i = 0; pgid > 0 && i < PG_CHILDREN_MAX; i++) {
        int free_slot = 0;
        if (atomic_compare_exchange_strong(&g_groups[i], &free_slot, (int)pgid)) {
            guard_send(GUARD_ADD, (int)pgid, NULL);
            return;
        }
    }
}

void pg_children_remove(pid_t pgid)
{
    for (int i = 0; pgid > 0 && i < PG_CHILDREN_MAX; i++) {
        int mine = (int)pgid;
        if (atomic_compare_exchange_strong(&g_groups[i], &mine, 0)) {
            guard_send(GUARD_REMOVE, (int)pgid, NULL);
            return;
        }
    }
}

static void on_fatal_signal(int sig)
{
    int saved = errno;
    for (int i = 0; i < PG_CHILDREN_MAX; i++) {
        int g = atomic_load(&g_groups[i]);
        if (g > 0)
            kill(-g, SIGKILL);
    }
    if (g_have_dir)
        pg_tmpdir_remove(g_dir);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    errno = saved;
    raise(sig); /* blocked until the handler returns, then fatal */
}

/* The guard: reads records until ptxgate's end of the socket closes (ptxgate exited or was
 * killed, SIGKILL included), then kills the groups still listed and removes the folder. Makes
 * async-signal-safe calls only (it was forked from a process that may have threads). */
static void guard_main(int fd)
{
    static int groups[PG_CHILDREN_MAX];
    static char dir[sizeof ((guard_msg *)0)->dir];
    static guard_msg m;
    setpgid(0, 0); /* a signal to ptxgate's group does not take the guard along */
    prctl(PR_SET_NAME, "ptxgate-guard");
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &ign, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    /* Hold nothing of ptxgate's open: a reader of its output must see end of file when it
     * exits, not when the guard does. */
    int null_fd = open("/dev/null", O_RDWR);
    if (fd != 3 && dup2(fd, 3) == 3)
        fd = 3;
    for (int k = 0; k < 3 && null_fd >= 0; k++)
        dup2(null_fd, k);
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 4U, ~0U, 0U) != 0)
#endif
        for (int k = 4; k < 65536; k++)
            close(k);
    if (null_fd > 3)
        close(null_fd);
    for (;;) {
        ssize_t n = recv(fd, &m, sizeof m, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < (ssize_t)offsetof(guard_msg, dir))
            break; /* end of file: ptxgate is gone */
        if (m.op == GUARD_ADD) {
            for (int i = 0; i < PG_CHILDREN_MAX; i++)
                if (groups[i] == 0) {
                    groups[i] = m.pgid;
                    break;
                }
        } else if (m.op == GUARD_REMOVE) {
            for (int i = 0; i < PG_CHILDREN_MAX; i++)
                if (groups[i] == m.pgid) {
                    groups[i] = 0;
                    break;
                }
        } else if (m.op == GUARD_DIR && n > (ssize_t)offsetof(guard_msg, dir) &&
                   m.dir[n - offsetof(guard_msg, dir) - 1] == '\0') {
            memcpy(dir, m.dir, (size_t)(n - (ssize_t)offsetof(guard_msg, dir)));
        } else if (m.op == GUARD_NO_DIR) {
            dir[0] = '\0';
        }
    }
    for (int i = 0; i < PG_CHILDREN_MAX; i++)
        if (groups[i] > 0)
            kill(-groups[i], SIGKILL);
    if (dir[0])
        pg_tmpdir_remove(dir);
    _exit(0);
}

/* Start the guard once; without one (fork failed) the parent-death signal still applies. */
static void guard_start(void)
{
    static atomic_bool started;
    if (atomic_exchange(&started, true))
        return;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        return;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        guard_main(sv[1]);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        return;
    }
    atomic_store(&g_guard_fd, sv[0]);
    /* Groups started before the guard. */
    for (int i = 0; i < PG_CHILDREN_MAX; i++) {
        int g = atomic_load(&g_groups[i]);
        if (g > 0)
            guard_send(GUARD_ADD, g, NULL);
    }
}

void pg_children_on_fatal_signal(const char *dir)
{
    if (dir && dir[0])
        guard_start();
    if (dir && dir[0] && strlen(dir) < sizeof ((guard_msg *)0)->dir)
        guard_send(GUARD_DIR, 0, dir);
    else
        guard_send(GUARD_NO_DIR, 0, NULL);
    g_have_dir = 0;
    atomic_signal_fence(memory_order_seq_cst);
    if (dir && strlen(dir) < sizeof g_dir) {
        memcpy(g_dir, dir, strlen(dir) + 1);
        atomic_signal_fence(memory_order_seq_cst);
        g_have_dir = 1;
    }
    if (atomic_exchange(&g_installed, true))
        return;
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa, was;
        /* A signal ignored on entry stays ignored (nohup; SIGINT of a background job). */
        if (sigaction(sigs[i], NULL, &was) != 0 || was.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigfillset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}
