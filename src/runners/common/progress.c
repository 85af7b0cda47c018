/*
 * progress.c: progress lines on file descriptor 3 (progress.h).
 */
#define _GNU_SOURCE
#include "progress.h"
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

static bool progress_on = false;
static bool progress_any = false;
static double progress_last = 0;

bool
progress_init(void)
{
	int fl;

	progress_on = false;
	if (fcntl(PROGRESS_FD, F_SETFD, FD_CLOEXEC) != 0)
		return false; /* not open: write nothing */
	fl = fcntl(PROGRESS_FD, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)
		return false;
	/* a pipe nobody drains must not stop the trial: EAGAIN ends streaming */
	(void)fcntl(PROGRESS_FD, F_SETFL, fl | O_NONBLOCK);
	progress_on = true;
	return true;
}

bool
progress_active(void)
{
	return progress_on;
}

double
progress_last_step(void)
{
	return progress_last;
}

bool
progress_emit(double step, int n, const char *const *names,
			  const double *values)
{
	strbuf sb;
	ssize_t w;
	int i;

	if (!progress_on || !isfinite(step) || step < 0 ||
		(progress_any && !(step > progress_last)))
		return false;
	sb_init(&sb);
	sb_append(&sb, "{\"step\": ");
	sb_json_number(&sb, step);
	sb_append(&sb, ", \"metrics\": {");
	for (i = 0; i < n; i++)
	{
		if (i)
			sb_append(&sb, ", ");
		sb_json_string(&sb, names[i]);
		sb_append(&sb, ": ");
		sb_json_number(&sb, values[i]);
	}
	sb_append(&sb, "}}\n");
	/* A reader that went away must not kill the runner: SIGPIPE is
	 * blocked in this thread for the write (whatever the runner's own
	 * disposition, which its children inherit) and a pending one taken. */
	{
		sigset_t pipe_set, old;
		struct timespec zero = {0, 0};
		int saved;

		sigemptyset(&pipe_set);
		sigaddset(&pipe_set, SIGPIPE);
		pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
		do
			w = write(PROGRESS_FD, sb.data, sb.len);
		while (w < 0 && errno == EINTR);
		saved = errno;
		if (w < 0 && errno == EPIPE && !sigismember(&old, SIGPIPE))
			(void)sigtimedwait(&pipe_set, NULL, &zero);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		errno = saved;
	}
	if (w < 0 || (size_t)w != sb.len)
		progress_on = false; /* EPIPE, EAGAIN, short: the trial goes on */
	else
	{
		progress_any = true;
		progress_last = step;
	}
	sb_free(&sb);
	return progress_on;
}
