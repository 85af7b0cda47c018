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
 * In a freshly forked child, with every signal blocked by the parent
 * before fork(): become the "keeper" of the runner (runner_child.c says
 * why), leading a process group of its own.  It resets every signal
 * handler, calls detach (if not NULL: the server leaves its shared memory
 * there), takes in_fd, out_fd and err_fd as 0, 1 and 2, and progress_fd
 * (if not -1) as 3 (the runner's progress lines, progress_channel.h),
 * closes every other descriptor, moves to the system's temporary directory and runs
 * path with argv (no shell) as its own child, in the group.  It then
 * waits and exits as the runner did (its exit code, or its signal); if
 * parent dies first, it kills the whole group.  Never returns: when exec
 * fails the runner writes why on the new stderr and exits with 127.
 */
extern void runner_child_exec(const char *path, char *const *argv, int in_fd,
							  int out_fd, int err_fd, int progress_fd,
							  pid_t parent, void (*detach)(void))
	__attribute__((noreturn));

#endif /* RUNNER_CHILD_H */
