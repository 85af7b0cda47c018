/*
 * runner_deadline.c
 *	  Stopping a runner's process group (see runner_deadline.h).
 */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "runner_deadline.h"

/* See runner_deadline.h. */
void
runner_deadline_init(RunnerDeadline *d, double timeout_s, double grace_s)
{
	memset(d, 0, sizeof(*d));
	d->timeout_s = timeout_s;
	d->grace_s = grace_s;
}

/* See runner_deadline.h. */
void
runner_deadline_step(RunnerDeadline *d, pid_t pgid, double elapsed_s,
					 bool stop)
{
	if (!d->term_sent)
	{
		if (!stop && elapsed_s >= d->timeout_s)
			d->timed_out = true;
		if (stop || d->timed_out)
		{
			(void)kill(-pgid, SIGTERM);
			d->term_sent = true;
			d->kill_at_s = elapsed_s + d->grace_s;
		}
	}
	else if (!d->kill_sent && elapsed_s >= d->kill_at_s)
	{
		(void)kill(-pgid, SIGKILL);
		d->kill_sent = true;
	}
}

/* See runner_deadline.h. */
int
runner_child_exited(pid_t pid)
{
	siginfo_t info;

	memset(&info, 0, sizeof(info));
	if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0)
		return -1;
	return info.si_pid == pid ? 1 : 0;
}
