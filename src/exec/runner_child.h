/*
 * runner_child.h
 *	  The child side of starting a runner, shared by the server
 *	  (src/pg/runner_exec.c) and tuner-agent (src/agent/): no PostgreSQL
 *	  headers, only POSIX, because it runs between fork() and exec().
 */
#ifndef RUNNER_CHILD_H
#define RUNNER_CHILD_H

#include <sys/types.h>

/*
 * In a freshly forked child: become a process group of its own, die with
 * the parent (PR_SET_PDEATHSIG; exits at once if parent is already gone),
 * reset every signal handler and the signal mask, take in_fd, out_fd and
 * err_fd as 0, 1 and 2, close every other descriptor, move to the system's
 * temporary directory and exec path with argv (no shell).  Never returns:
 * when exec fails it writes why on the new stderr and exits with 127.
 */
extern void runner_child_exec(const char *path, char *const *argv, int in_fd,
							  int out_fd, int err_fd, pid_t parent)
	__attribute__((noreturn));

#endif /* RUNNER_CHILD_H */
