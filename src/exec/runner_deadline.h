/*
 * runner_deadline.h
 *	  Stopping a runner's process group, shared by the server
 *	  (src/pg/runner_exec.c) and tuner-agent (src/agent/run.c): SIGTERM to
 *	  the group when the caller asks or at the trial timeout, SIGKILL
 *	  kill_grace_s later.  No PostgreSQL headers.
 */
#ifndef RUNNER_DEADLINE_H
#define RUNNER_DEADLINE_H

#include <stdbool.h>
#include <sys/types.h>

typedef struct RunnerDeadline
{
	double timeout_s; /* then SIGTERM to the group */
	double grace_s;   /* then SIGKILL to the group */
	bool term_sent;
	bool kill_sent;
	bool timed_out; /* the timeout (not the caller) sent SIGTERM */
	double kill_at_s;
} RunnerDeadline;

/* A deadline that has sent nothing yet. */
extern void runner_deadline_init(RunnerDeadline *d, double timeout_s,
								 double grace_s);

/*
 * At elapsed_s seconds into the run, with stop set when the caller wants
 * the runner stopped: send the group pgid what is due.
 */
extern void runner_deadline_step(RunnerDeadline *d, pid_t pgid,
								 double elapsed_s, bool stop);

/*
 * Has the child pid exited?  1 yes (it is left unreaped, so that its
 * group id cannot be reused before the group is killed), 0 no, -1 on an
 * error (errno set).
 */
extern int runner_child_exited(pid_t pid);

#endif /* RUNNER_DEADLINE_H */
