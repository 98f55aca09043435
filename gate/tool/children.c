/* Tracked child process groups and the fatal-signal handler (see children.h). */
#include "children.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static atomic_int g_groups[PG_CHILDREN_MAX]; /* 0: free slot */
static char g_dir[4096];
static volatile sig_atomic_t g_have_dir;
static atomic_bool g_installed;

void pg_children_add(pid_t pgid)
{
    for (int i = 0; pgid > 0 && i < PG_CHILDREN_MAX; i++) {
        int free_slot = 0;
        if (atomic_compare_exchange_strong(&g_groups[i], &free_slot, (int)pgid))
            return;
    }
}

void pg_children_remove(pid_t pgid)
{
    for (int i = 0; pgid > 0 && i < PG_CHILDREN_MAX; i++) {
        int mine = (int)pgid;
        if (atomic_compare_exchange_strong(&g_groups[i], &mine, 0))
            return;
    }
}

/* Remove the entries of the flat folder dir, then dir: open, getdents64, unlinkat and rmdir
 * only (async-signal-safe; opendir/readdir allocate). A few passes, since entries removed while
 * reading may make the kernel skip others. */
static void remove_flat_dir(const char *dir)
{
    struct dirent64_raw {
        unsigned long long d_ino;
        long long d_off;
        unsigned short d_reclen;
        unsigned char d_type;
        char d_name[];
    };
    for (int pass = 0; pass < 4; pass++) {
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
            return;
        bool removed = false;
        char buf[8192] __attribute__((aligned(8)));
        long n;
        while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
            for (long off = 0; off < n;) {
                struct dirent64_raw *e = (struct dirent64_raw *)(buf + off);
                const char *name = e->d_name;
                if (!(name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))))
                    removed |= unlinkat(fd, name, 0) == 0;
                off += e->d_reclen;
            }
        close(fd);
        if (rmdir(dir) == 0 || !removed)
            return;
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
        remove_flat_dir(g_dir);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    errno = saved;
    raise(sig); /* blocked until the handler returns, then fatal */
}

void pg_children_on_fatal_signal(const char *dir)
{
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
