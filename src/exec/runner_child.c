/*
 * runner_child.c
 *	  The child side of starting a runner (see runner_child.h).  Only
 *	  async-signal-safe calls: the parent may be a multi-threaded process
 *	  or a PostgreSQL backend with its signal handlers installed.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "runner_child.h"

/* Write up to three strings to fd 2 (no allocation, no stdio). */
static void
child_message(const char *a, const char *b, const char *c)
{
	const char *parts[3] = {a, b, c};
	int i;

	for (i = 0; i < 3; i++)
		if (parts[i] != NULL && write(2, parts[i], strlen(parts[i])) < 0)
			return;
}

/* Close every descriptor from 3 up. */
static void
close_other_fds(void)
{
	long maxfd;
	int fd;

#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0)
		return;
#endif
	maxfd = sysconf(_SC_OPEN_MAX);
	if (maxfd < 0 || maxfd > 65536)
		maxfd = 65536;
	for (fd = 3; fd < maxfd; fd++)
		(void)close(fd);
}

/* See runner_child.h. */
void
runner_child_exec(const char *path, char *const *argv, int in_fd, int out_fd,
				  int err_fd, pid_t parent)
{
	struct sigaction sa;
	sigset_t empty;
	int sig;

	(void)setpgid(0, 0);
#if defined(__linux__) && defined(PR_SET_PDEATHSIG)
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
#endif
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			(void)sigaction(sig, &sa, NULL);
	sigemptyset(&empty);
	(void)sigprocmask(SIG_SETMASK, &empty, NULL);

	if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
		_exit(127);
	close_other_fds();
	if (chdir(P_tmpdir) != 0 && chdir("/") != 0)
		_exit(127);

	execv(path, argv);
	child_message("tuner: could not execute \"", path, "\": ");
	child_message(strerror(errno), "\n", NULL);
	_exit(127);
}
