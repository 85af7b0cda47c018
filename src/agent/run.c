/*
 * run.c
 *	  Run one runner (see run.h).  The parent polls the child with
 *	  waitid(WNOWAIT) between naps of 5 to 100 ms and calls the tick; at the
 *	  deadline or on a stop from the tick the group gets SIGTERM, and
 *	  SIGKILL after the grace period (src/exec/runner_deadline.c, shared
 *	  with the server).  When the runner exits, whatever is
 *	  left of its group is killed before the child is reaped (the zombie
 *	  keeps the group id from being reused).
 *
 *	  Progress: fd 3 of the runner is a scratch file too; its new lines are
 *	  read and checked at every poll (src/exec/progress_channel.c) and
 *	  handed to the caller about once a second and after the runner
 *	  exits.  A bad line or a flood stops the runner like a stop from the
 *	  tick, with progress_failed set.
 *
 *	  State: the process group of the running runner (agent_active_pgid),
 *	  so that the agent can kill it when it must exit at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "measure_context.h"
#include "progress_channel.h"
#include "run.h"
#include "runner_child.h"
#include "runner_deadline.h"
#include "text.h"

/* Longest nap between two looks at the child, in milliseconds. */
#define POLL_MAX_MS 100

volatile pid_t agent_active_pgid = 0;

/* See run.h. */
bool
agent_is_executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		   access(path, X_OK) == 0;
}

/* See agent.h. */
double
agent_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* An anonymous scratch file in $TMPDIR (created and unlinked), or -1. */
static int
scratch_file(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	if (dir == NULL || dir[0] == '\0')
		dir = P_tmpdir;
	snprintf(path, sizeof(path), "%s/tuner-agent.XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		(void)unlink(path);
	return fd;
}

/* Write all of buf to fd; false on an error. */
static bool
write_all(int fd, const char *buf, size_t len)
{
	while (len > 0)
	{
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return false;
		buf += n;
		len -= n;
	}
	return true;
}

/*
 * A scratch file as text: its first max bytes (setting *truncated when
 * there were more), or with tail its last max bytes.  "" on a read error.
 */
static char *
read_scratch(int fd, size_t max, bool tail, bool *truncated)
{
	struct stat st;
	size_t len = 0;
	off_t off = 0;
	size_t got = 0;
	char *buf;
	char *text;

	if (fstat(fd, &st) == 0)
		len = (size_t)st.st_size;
	if (len > max)
	{
		if (tail)
			off = (off_t)(len - max);
		else if (truncated != NULL)
			*truncated = true;
		len = max;
	}
	buf = malloc(len + 1);
	if (buf == NULL)
		return strdup("");
	while (got < len)
	{
		ssize_t n = pread(fd, buf + got, len - got, off + (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	text = agent_clean_utf8(buf, got, off > 0);
	free(buf);
	return text != NULL ? text : strdup("");
}

/* Progress lines read and not yet handed on. */
typedef struct ProgressState
{
	ProgressChannel channel;
	AgentProgressBatch batch;
	bool no_memory;
	double handed_s; /* when the last batch was handed on */
} ProgressState;

/* Hand on a batch at most this often, in seconds. */
#define PROGRESS_EVERY_S 1.0

/* Free the lines of a batch. */
static void
batch_clear(AgentProgressBatch *b)
{
	int i;

	for (i = 0; i < b->n; i++)
		free(b->metrics[i]);
	free(b->metrics);
	free(b->steps);
	memset(b, 0, sizeof(*b));
}

/* ProgressSink: keep a good line in the batch. */
static void
collect_line(void *arg, double step, const char *metrics)
{
	ProgressState *ps = (ProgressState *)arg;
	AgentProgressBatch *b = &ps->batch;
	char *copy;

	if (b->n == b->cap)
	{
		int cap = b->cap == 0 ? 64 : b->cap * 2;
		double *steps = realloc(b->steps, cap * sizeof(double));
		char **m;

		if (steps != NULL)
			b->steps = steps;
		m = realloc(b->metrics, cap * sizeof(char *));
		if (m != NULL)
			b->metrics = m;
		if (steps == NULL || m == NULL)
		{
			ps->no_memory = true;
			return;
		}
		b->cap = cap;
	}
	copy = strdup(metrics);
	if (copy == NULL)
	{
		ps->no_memory = true;
		return;
	}
	b->steps[b->n] = step;
	b->metrics[b->n++] = copy;
}

/*
 * Read the runner's new progress lines; hand the batch on when due (or
 * final: the runner is gone, so also after a failure of the channel).
 * Returns the reason to stop the runner, or NULL.
 */
static const char *
collect_progress(const AgentRunSpec *spec, ProgressState *ps, double elapsed,
				 bool final, AgentRunResult *result)
{
	const char *reason;
	bool failed = false;

	if (spec->progress == NULL)
		return NULL;
	if (!result->progress_failed &&
		(!progress_channel_read(&ps->channel, final, collect_line, ps) ||
		 ps->no_memory))
	{
		/* stop it now; the good lines before go on once it is gone */
		result->progress_failed = true;
		snprintf(result->progress_error, sizeof(result->progress_error), "%s",
				 ps->no_memory ? "out of memory reading the runner's progress"
							   : ps->channel.error);
		if (!final)
			return result->progress_error;
	}
	if (ps->batch.n == 0 ||
		(!final && elapsed - ps->handed_s < PROGRESS_EVERY_S))
		return NULL;
	ps->handed_s = elapsed;
	reason = spec->progress(spec->progress_arg, &ps->batch, final, &failed);
	batch_clear(&ps->batch);
	if (reason != NULL && failed && !result->progress_failed)
	{
		result->progress_failed = true;
		snprintf(result->progress_error, sizeof(result->progress_error), "%s",
				 reason);
	}
	return reason;
}

/* Sleep ms milliseconds (a signal may end it early). */
static void
nap_ms(long ms)
{
	struct timespec ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	(void)nanosleep(&ts, NULL);
}

/*
 * Wait until the child of group pid has exited (not yet reaped), enforcing
 * the deadline and the tick's stops.
 */
static void
wait_for_runner(const AgentRunSpec *spec, pid_t pid, double start,
				ProgressState *ps, AgentRunResult *result)
{
	RunnerDeadline deadline;
	long poll_ms = 5;

	runner_deadline_init(&deadline, spec->timeout_s, spec->grace_s);
	for (;;)
	{
		int exited = runner_child_exited(pid);
		double elapsed;
		const char *reason = NULL;

		if (exited != 0 && (exited > 0 || errno != EINTR))
			return; /* exited, or an error that waitpid reports */
		elapsed = agent_now_s() - start;
		if (!deadline.term_sent && spec->tick != NULL)
		{
			reason = spec->tick(spec->tick_arg, elapsed);
			if (reason != NULL)
				result->stop_reason = reason;
		}
		if (!deadline.term_sent && reason == NULL)
		{
			reason = collect_progress(spec, ps, elapsed, false, result);
			if (reason != NULL && !result->progress_failed)
				result->stop_reason = reason;
		}
		runner_deadline_step(&deadline, pid, elapsed, reason != NULL);
		result->timed_out = deadline.timed_out;
		nap_ms(poll_ms);
		poll_ms = poll_ms * 2 > POLL_MAX_MS ? POLL_MAX_MS : poll_ms * 2;
	}
}

/* Close the scratch files that are open. */
static void
close_all(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
		{
			close(fds[i]);
			fds[i] = -1;
		}
}

/* See run.h. */
int
agent_run(const AgentRunSpec *spec, AgentRunResult *result)
{
	int fds[4] = {-1, -1, -1, -1};
	ProgressState *ps;
	pid_t parent = getpid();
	sigset_t all;
	sigset_t old;
	pid_t pid;
	int status = 0;
	double start;
	MeasureSnapshot before;
	struct rusage usage;
	int i;

	memset(result, 0, sizeof(*result));
	result->exit_code = -1;
	if (!agent_is_executable(spec->path))
	{
		snprintf(result->exit_text, sizeof(result->exit_text),
				 "runner program \"%s\" is not an executable file",
				 spec->path);
		return 0;
	}
	ps = calloc(1, sizeof(ProgressState));
	for (i = 0; i < (spec->progress != NULL ? 4 : 3); i++)
		if ((fds[i] = scratch_file()) < 0)
			break;
	if (ps == NULL || i < (spec->progress != NULL ? 4 : 3) ||
		!write_all(fds[0], spec->input, strlen(spec->input)) ||
		lseek(fds[0], 0, SEEK_SET) != 0)
	{
		snprintf(result->exit_text, sizeof(result->exit_text),
				 "could not prepare the runner's scratch files: %s",
				 strerror(errno));
		close_all(fds, 4);
		free(ps);
		return -1;
	}
	progress_channel_init(&ps->channel, fds[3]);

	measure_take(&before);
	/* The agent's signal handlers must not run in the child. */
	fflush(NULL);
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == 0)
		runner_child_exec(spec->path, spec->argv, fds[0], fds[1], fds[2],
						  fds[3], parent, NULL);
	if (pid < 0)
	{
		int fork_errno = errno;

		sigprocmask(SIG_SETMASK, &old, NULL);
		snprintf(result->exit_text, sizeof(result->exit_text),
				 "could not fork the runner process: %s",
				 strerror(fork_errno));
		close_all(fds, 4);
		free(ps);
		return -1;
	}
	/* Also here, so that the group exists before we may signal it. */
	(void)setpgid(pid, pid);
	agent_active_pgid = pid;
	sigprocmask(SIG_SETMASK, &old, NULL);
	result->started = true;
	start = agent_now_s();

	wait_for_runner(spec, pid, start, ps, result);

	/* Whatever the runner left in its group goes with it. */
	(void)kill(-pid, SIGKILL);
	/* the keeper's usage includes the runner's and all it waited for */
	memset(&usage, 0, sizeof(usage));
	while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR)
		;
	agent_active_pgid = 0;
	result->elapsed_s = agent_now_s() - start;
	measure_finish(&before, &usage, result->context, sizeof(result->context));
	if (WIFEXITED(status))
		result->exit_code = WEXITSTATUS(status);
	agent_exit_text(status, result->exit_text, sizeof(result->exit_text));
	result->out =
		read_scratch(fds[1], AGENT_STDOUT_MAX, false, &result->out_truncated);
	result->err_tail = read_scratch(fds[2], AGENT_STDERR_TAIL, true, NULL);
	(void)collect_progress(spec, ps, result->elapsed_s, true, result);
	batch_clear(&ps->batch);
	free(ps);
	close_all(fds, 4);
	return 0;
}

/* See run.h. */
void
agent_run_free(AgentRunResult *result)
{
	free(result->out);
	free(result->err_tail);
	result->out = NULL;
	result->err_tail = NULL;
}
