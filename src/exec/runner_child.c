/*
 * runner_child.c
 *	  The child side of starting a runner (see runner_child.h): the forked
 *	  process ("keeper") leads the runner's process group, runs the runner
 *	  as its own child and outlives it only to pass on its exit status.
 *
 *	  Why a keeper: PR_SET_PDEATHSIG reaches only the process it is set
 *	  in.  When the process running a trial dies without cleanup (a
 *	  SIGKILL, a crash, an immediate shutdown of the server, a killed
 *	  agent), a runner exec'd directly dies, but whatever it started (a
 *	  benchmark, MPI ranks, a `sleep` in a script) lives on, orphaned, and
 *	  keeps loading the system under test.  The keeper gets a signal when
 *	  its parent dies and then kills the whole group, itself included.
 *
 *	  The keeper ignores SIGTERM and the other termination signals, so the
 *	  parent's SIGTERM to the group reaches the runner and the grace period
 *	  before SIGKILL still holds; it exits as the runner did (same exit
 *	  code, or the same signal), so the parent sees the runner's status.
 *	  Only async-signal-safe calls: the parent may be a multi-threaded
 *	  process or a PostgreSQL backend with its signal handlers installed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "progress_channel.h"
#include "runner_child.h"

/* The process that forked the keeper. */
static volatile pid_t keeper_parent = 0;

static void runner_exec(const char *path, char *const *argv, pid_t keeper)
	__attribute__((noreturn));
static void exit_like(int status) __attribute__((noreturn));

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

/* Close every descriptor from first up. */
static void
close_other_fds(int first)
{
	long maxfd;
	int fd;

#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)first, ~0U, 0U) == 0)
		return;
#endif
	maxfd = sysconf(_SC_OPEN_MAX);
	if (maxfd < 0 || maxfd > 65536)
		maxfd = 65536;
	for (fd = first; fd < maxfd; fd++)
		(void)close(fd);
}

/* Set sig's handler, with every signal blocked while it runs. */
static void
set_handler(int sig, void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigfillset(&sa.sa_mask);
	(void)sigaction(sig, &sa, NULL);
}

/*
 * SIGUSR1 in the keeper (its parent-death signal): if the parent is gone,
 * kill the whole group.  A stray SIGUSR1 while it lives does nothing.
 */
static void
keeper_parent_died(int sig)
{
	(void)sig;
	if (getppid() != keeper_parent)
	{
		(void)kill(0, SIGKILL);
		_exit(1);
	}
}

/* In the runner (the keeper's child): take the keeper's death along, exec. */
static void
runner_exec(const char *path, char *const *argv, pid_t keeper)
{
	sigset_t empty;

#if defined(__linux__) && defined(PR_SET_PDEATHSIG)
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != keeper)
		_exit(127);
#endif
	sigemptyset(&empty);
	(void)sigprocmask(SIG_SETMASK, &empty, NULL);
	execv(path, argv);
	child_message("tuner: could not execute \"", path, "\": ");
	child_message(strerror(errno), "\n", NULL);
	_exit(127);
}

/* Exit as the runner did: its exit code, or its signal. */
static void
exit_like(int status)
{
	struct rlimit no_core = {0, 0};
	sigset_t only;
	int sig;

	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	if (!WIFSIGNALED(status))
		_exit(127);
	sig = WTERMSIG(status);
	/* a copy of a server process must not dump core */
	(void)setrlimit(RLIMIT_CORE, &no_core);
	set_handler(sig, SIG_DFL);
	sigemptyset(&only);
	sigaddset(&only, sig);
	(void)sigprocmask(SIG_UNBLOCK, &only, NULL);
	(void)kill(getpid(), sig);
	_exit(128 + sig);
}

/* See runner_child.h. */
void
runner_child_exec(const char *path, char *const *argv, int in_fd, int out_fd,
				  int err_fd, int progress_fd, pid_t parent,
				  void (*detach)(void))
{
	static const int ignored[] = {SIGTERM, SIGINT,  SIGHUP,
								  SIGQUIT, SIGUSR2, SIGPIPE};
	sigset_t empty;
	pid_t keeper = getpid();
	pid_t runner;
	int status;
	int sig;
	size_t i;

	/* Every signal is blocked (by the parent) until the handlers are ours. */
	(void)setpgid(0, 0);
	keeper_parent = parent;
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			set_handler(sig, SIG_DFL);
	if (detach != NULL)
		detach();

	/* out of the way of 0 to 3 first */
	if (progress_fd >= 0 &&
		(progress_fd = fcntl(progress_fd, F_DUPFD, PROGRESS_FD + 1)) < 0)
		_exit(127);
	if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
		_exit(127);
	if (progress_fd >= 0 && dup2(progress_fd, PROGRESS_FD) < 0)
		_exit(127);
	close_other_fds(progress_fd >= 0 ? PROGRESS_FD + 1 : PROGRESS_FD);
	if (chdir(P_tmpdir) != 0 && chdir("/") != 0)
		_exit(127);

	runner = fork();
	if (runner < 0)
	{
		child_message("tuner: could not fork the runner: ", strerror(errno),
					  "\n");
		_exit(127);
	}
	if (runner == 0)
		runner_exec(path, argv, keeper);

	for (i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		set_handler(ignored[i], SIG_IGN);
	set_handler(SIGUSR1, keeper_parent_died);
#if defined(__linux__) && defined(PR_SET_PDEATHSIG)
	(void)prctl(PR_SET_PDEATHSIG, SIGUSR1);
#endif
	sigemptyset(&empty);
	(void)sigprocmask(SIG_SETMASK, &empty, NULL);
	/* the parent may have died before the parent-death signal was set */
	if (getppid() != parent)
		keeper_parent_died(SIGUSR1);

	while (waitpid(runner, &status, 0) < 0)
	{
		if (errno != EINTR)
			_exit(127);
	}
	exit_like(status);
}
