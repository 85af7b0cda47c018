/*
 * runner_exec.c
 *	  Run a runner program from a server process (a tuner background worker
 *	  or a session in tuner.step), never through a shell.
 *
 *	  The forked child, a keeper (src/exec/runner_child.c, shared with
 *	  tuner-agent), leaves the server's shared memory, leads a process
 *	  group of its own and execs the runner as its child, with an empty
 *	  signal mask and default handlers, PR_SET_PDEATHSIG where available,
 *	  no inherited file descriptors besides 0, 1, 2 (and 3 for progress), in the system's
 *	  temporary directory; it exits as the runner does, and kills the
 *	  whole group if this process dies without cleanup.  The runner's stdin is a file
 *	  holding the configuration; its stdout and stderr go to files, and
 *	  so does its fd 3 when the caller takes progress lines
 *	  (src/exec/progress_channel.h: a file, so a write never blocks the
 *	  runner).  The files live in base/pgsql_tmp and are unlinked as soon
 *	  as they are opened, so nothing is left behind.
 *
 *	  Progress: at every poll the new lines of fd 3 are read and checked;
 *	  about once a second (and once after the runner exits) the caller's
 *	  progress callback gets them.  A bad line or a flood stops the runner
 *	  as a stop from the check does, with progress_error set.
 *
 *	  The parent polls with waitid(WNOWAIT) between WaitLatch() naps and
 *	  CHECK_FOR_INTERRUPTS().  At the deadline, or when the caller's check
 *	  asks to stop, the whole group gets SIGTERM, then SIGKILL after the
 *	  grace period (src/exec/runner_deadline.c).  When the runner exits,
 *	  whatever is left of its group is killed before the child is reaped
 *	  (the zombie keeps the group id from being reused).  An error or cancel
 *	  while it runs kills the group before the error propagates; a FATAL
 *	  exit kills it from a before_shmem_exit callback.
 *
 *	  Privilege: every run checks that the current role has the privileges
 *	  of pg_execute_server_program, right before the fork; in a background
 *	  worker that role is the one that called tuner.run().  It also checks
 *	  right before the fork that the program is safe to exec (no one but
 *	  root and the server's user can change it or its path:
 *	  src/exec/program_safety.c) and execs the path that check resolved;
 *	  a program that fails the check never runs.
 *
 *	  State: one runner at a time per process (active_pgid).
 */
#include "postgres.h"

#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "access/xact.h"
#include "catalog/pg_authid_d.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/pg_shmem.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "measure_context.h"
#include "progress_channel.h"
#include "runner_child.h"
#include "runner_deadline.h"
#include "runner_exec.h"
#include "runner_program.h"

PG_FUNCTION_INFO_V1(tuner_check_program_privilege);

/* Process group of the runner now running in this process, or 0. */
static pid_t active_pgid = 0;
static bool exit_callback_registered = false;

/*
 * The runner's stdin, stdout, stderr and progress (fd 3) files (static:
 * kept over longjmp).
 */
#define N_SCRATCH 4
static int scratch_fds[N_SCRATCH] = {-1, -1, -1, -1};

/* Progress lines read and not yet handed on (see collect_progress). */
typedef struct ProgressState
{
	ProgressChannel channel;
	TunerProgressBatch batch;
	MemoryContext cxt; /* the batch's memory, reset once handed on */
	long handed_ms;    /* when the last batch was handed on */
} ProgressState;

/* Hand on a batch at most this often, in milliseconds. */
#define TUNER_PROGRESS_EVERY_MS 1000

/* Longest nap between two looks at the child, in milliseconds. */
#define TUNER_POLL_MAX_MS 100

/*
 * before_shmem_exit callback: a process that exits (FATAL, postmaster
 * death, pg_terminate_backend of a session) takes its runner's whole
 * process group with it.
 */
static void
kill_active_runner(int code, Datum arg)
{
	if (active_pgid > 0)
	{
		(void)kill(-active_pgid, SIGKILL);
		(void)waitpid(active_pgid, NULL, 0);
		active_pgid = 0;
	}
}

/* See runner_exec.h. */
void
tuner_check_program_privilege_for(const char *action)
{
	if (!has_privs_of_role(GetUserId(), ROLE_PG_EXECUTE_SERVER_PROGRAM))
		ereport(
			ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied to %s", action),
			 errdetail(
				 "Only superusers and roles with privileges of the \"%s\" role may make the server run programs.",
				 "pg_execute_server_program"),
			 errhint(
				 "A superuser can run GRANT pg_execute_server_program TO %s.",
				 quote_identifier(GetUserNameFromId(GetUserId(), false)))));
}

/*
 * tuner._check_program_privilege(action text): the privilege check for
 * the SQL functions that register or run runners.
 */
Datum
tuner_check_program_privilege(PG_FUNCTION_ARGS)
{
	tuner_check_program_privilege_for(text_to_cstring(PG_GETARG_TEXT_PP(0)));
	PG_RETURN_VOID();
}

/* Open an anonymous scratch file (created and unlinked in pgsql_tmp). */
static int
open_scratch_file(const char *tag)
{
	static uint32 counter = 0;
	const char *dir = "base/" PG_TEMP_FILES_DIR;
	char path[MAXPGPATH];
	int fd;

	if (MakePGDirectory(dir) < 0 && errno != EEXIST)
		ereport(ERROR, (errcode_for_file_access(),
						errmsg("could not create directory \"%s\": %m", dir)));
	snprintf(path, sizeof(path), "%s/%s%d.tuner.%u.%s", dir,
			 PG_TEMP_FILE_PREFIX, MyProcPid, counter++, tag);
	ReserveExternalFD();
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, S_IRUSR | S_IWUSR);
	if (fd < 0)
	{
		int save_errno = errno;

		ReleaseExternalFD();
		errno = save_errno;
		ereport(ERROR, (errcode_for_file_access(),
						errmsg("could not create file \"%s\": %m", path)));
	}
	(void)unlink(path);
	return fd;
}

/* Close the scratch files that are open. */
static void
close_scratch_files(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
	{
		if (fds[i] >= 0)
		{
			close(fds[i]);
			ReleaseExternalFD();
			fds[i] = -1;
		}
	}
}

/* Write all of buf to fd. */
static void
write_all(int fd, const char *buf, size_t len)
{
	while (len > 0)
	{
		ssize_t n = write(fd, buf, len);

		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			ereport(ERROR, (errcode_for_file_access(),
							errmsg("could not write the runner's input: %m")));
		}
		buf += n;
		len -= n;
	}
}

/*
 * The bytes as text in the server encoding: NUL bytes and invalid
 * sequences become '?'.  With from_middle, a sequence cut at the start is
 * skipped.
 */
static char *
clean_text(const char *buf, size_t len, bool from_middle)
{
	int encoding = GetDatabaseEncoding();
	StringInfoData out;
	size_t i = 0;

	if (from_middle && encoding == PG_UTF8)
		while (i < len && (((unsigned char)buf[i]) & 0xC0) == 0x80)
			i++;
	initStringInfo(&out);
	while (i < len)
	{
		if (buf[i] == '\0')
		{
			appendStringInfoChar(&out, '?');
			i++;
		}
		else if (!IS_HIGHBIT_SET(buf[i]))
			appendStringInfoChar(&out, buf[i++]);
		else
		{
			int l = pg_encoding_verifymbchar(encoding, buf + i,
											 (int)Min(len - i, 8));

			if (l <= 0)
			{
				appendStringInfoChar(&out, '?');
				i++;
			}
			else
			{
				appendBinaryStringInfo(&out, buf + i, l);
				i += l;
			}
		}
	}
	return out.data;
}

/*
 * Read a scratch file: its first max bytes (setting *truncated when there
 * were more), or with tail its last max bytes.
 */
static char *
read_scratch_file(int fd, size_t max, bool tail, bool *truncated)
{
	struct stat st;
	size_t size;
	size_t len;
	off_t off = 0;
	char *buf;
	size_t got = 0;

	if (fstat(fd, &st) != 0)
		ereport(ERROR, (errcode_for_file_access(),
						errmsg("could not read the runner's output: %m")));
	size = (size_t)st.st_size;
	len = size;
	if (size > max)
	{
		len = max;
		if (tail)
			off = (off_t)(size - max);
		else if (truncated != NULL)
			*truncated = true;
	}
	buf = palloc(add_size(len, 1));
	while (got < len)
	{
		ssize_t n = pread(fd, buf + got, len - got, off + (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			ereport(ERROR, (errcode_for_file_access(),
							errmsg("could not read the runner's output: %m")));
		if (n == 0)
			break;
		got += n;
	}
	return clean_text(buf, got, off > 0);
}

/* Milliseconds from start to now. */
static long
ms_since(TimestampTz start)
{
	return TimestampDifferenceMilliseconds(start, GetCurrentTimestamp());
}

/* ProgressSink: keep a good line in the batch. */
static void
collect_line(void *arg, double step, const char *metrics)
{
	ProgressState *ps = (ProgressState *)arg;
	TunerProgressBatch *b = &ps->batch;
	MemoryContext old = MemoryContextSwitchTo(ps->cxt);

	if (b->n == b->cap)
	{
		b->cap = b->cap == 0 ? 64 : b->cap * 2;
		b->steps = b->steps == NULL
					   ? palloc(mul_size(b->cap, sizeof(double)))
					   : repalloc(b->steps, mul_size(b->cap, sizeof(double)));
		b->metrics =
			b->metrics == NULL
				? palloc(mul_size(b->cap, sizeof(char *)))
				: repalloc(b->metrics, mul_size(b->cap, sizeof(char *)));
	}
	b->steps[b->n] = step;
	b->metrics[b->n] = pstrdup(metrics);
	b->n++;
	MemoryContextSwitchTo(old);
}

/*
 * Read the runner's new progress lines; hand the batch on when due (or
 * final: the runner is gone, so also after a failure of the channel).
 * Returns the reason to stop the runner, or NULL; a failure of the
 * channel goes to result->progress_error.
 */
static const char *
collect_progress(const TunerRunSpec *spec, ProgressState *ps, long elapsed_ms,
				 bool final, TunerRunResult *result)
{
	const char *reason = NULL;
	bool failed = false;

	if (spec->progress == NULL)
		return NULL;
	if (result->progress_error == NULL &&
		!progress_channel_read(&ps->channel, final, collect_line, ps))
	{
		/* stop it now; the good lines before go on once it is gone */
		result->progress_error = pstrdup(ps->channel.error);
		if (!final)
			return result->progress_error;
	}
	if (ps->batch.n == 0 ||
		(!final && elapsed_ms - ps->handed_ms < TUNER_PROGRESS_EVERY_MS))
		return NULL;
	ps->handed_ms = elapsed_ms;
	reason = spec->progress(spec->progress_arg, &ps->batch, final, &failed);
	MemoryContextReset(ps->cxt);
	memset(&ps->batch, 0, sizeof(ps->batch));
	if (reason != NULL && failed && result->progress_error == NULL)
		result->progress_error = reason;
	return reason;
}

/*
 * Wait for the child of group pid, enforcing the deadline, the caller's
 * check and what its progress says.  Returns when the child has exited
 * (not yet reaped).
 */
static void
wait_for_runner(const TunerRunSpec *spec, pid_t pid, TimestampTz start,
				ProgressState *ps, TunerRunResult *result)
{
	RunnerDeadline deadline;
	long last_slow_ms = 0;
	long poll_ms = 5;

	runner_deadline_init(&deadline, spec->timeout_s, spec->grace_s);
	for (;;)
	{
		int exited = runner_child_exited(pid);
		long elapsed_ms;
		const char *reason = NULL;

		if (exited > 0)
			return;
		if (exited < 0 && errno != EINTR)
			elog(ERROR, "waitid failed for runner process %d: %m", (int)pid);

		elapsed_ms = ms_since(start);
		if (!deadline.term_sent && spec->check != NULL)
		{
			bool slow = elapsed_ms - last_slow_ms >= 1000;

			if (slow)
				last_slow_ms = elapsed_ms;
			reason = spec->check(spec->check_arg, slow, elapsed_ms / 1000.0);
			if (reason != NULL)
				result->stop_reason = reason;
		}
		if (!deadline.term_sent && reason == NULL)
		{
			reason = collect_progress(spec, ps, elapsed_ms, false, result);
			if (reason != NULL && result->progress_error == NULL)
				result->stop_reason = reason;
		}
		runner_deadline_step(&deadline, pid, elapsed_ms / 1000.0,
							 reason != NULL);
		result->timed_out = deadline.timed_out;

		(void)WaitLatch(MyLatch,
						WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						poll_ms, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		poll_ms = Min(poll_ms * 2, TUNER_POLL_MAX_MS);
	}
}

/* Create the scratch files and write the runner's input. */
static void
prepare_scratch_files(const TunerRunSpec *spec)
{
	int *fds = scratch_fds;

	PG_TRY();
	{
		fds[0] = open_scratch_file("in");
		fds[1] = open_scratch_file("out");
		fds[2] = open_scratch_file("err");
		if (spec->progress != NULL)
			fds[3] = open_scratch_file("progress");
		write_all(fds[0], spec->input, strlen(spec->input));
		if (lseek(fds[0], 0, SEEK_SET) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not rewind the runner's input: %m")));
	}
	PG_CATCH();
	{
		close_scratch_files(fds, N_SCRATCH);
		PG_RE_THROW();
	}
	PG_END_TRY();
}

/*
 * wait_for_runner, but an error or cancel kills the group, reaps the child
 * and closes the files before it propagates.
 */
static void
wait_guarded(const TunerRunSpec *spec, pid_t pid, TimestampTz start,
			 ProgressState *ps, TunerRunResult *result)
{
	PG_TRY();
	{
		wait_for_runner(spec, pid, start, ps, result);
	}
	PG_CATCH();
	{
		(void)kill(-pid, SIGKILL);
		(void)waitpid(pid, NULL, 0);
		active_pgid = 0;
		close_scratch_files(scratch_fds, N_SCRATCH);
		PG_RE_THROW();
	}
	PG_END_TRY();
}

/*
 * Hand on the rest of the progress lines, read stdout and the tail of
 * stderr, then close the files.
 */
static void
read_outputs(const TunerRunSpec *spec, ProgressState *ps,
			 TunerRunResult *result)
{
	PG_TRY();
	{
		(void)collect_progress(spec, ps, 0, true, result);
		result->out = read_scratch_file(scratch_fds[1], TUNER_STDOUT_MAX,
										false, &result->out_truncated);
		result->err_tail =
			read_scratch_file(scratch_fds[2], TUNER_STDERR_TAIL, true, NULL);
	}
	PG_CATCH();
	{
		close_scratch_files(scratch_fds, N_SCRATCH);
		PG_RE_THROW();
	}
	PG_END_TRY();
	close_scratch_files(scratch_fds, N_SCRATCH);
}

/* See runner_exec.h. */
void
tuner_run_program(const TunerRunSpec *spec, TunerRunResult *result)
{
	char *path;
	char *why = NULL;
	ProgramSafety safety;
	char **argv;
	int *fds = scratch_fds;
	pid_t parent = getpid();
	sigset_t all;
	sigset_t old;
	pid_t pid;
	int fork_errno;
	int status = 0;
	TimestampTz start;
	MeasureSnapshot before;
	struct rusage usage;
	ProgressState *ps;
	int i;

	memset(result, 0, sizeof(*result));
	result->exit_code = -1;
	result->out = "";
	result->err_tail = "";

	/*
	 * Look again before every exec: the role may have lost the privilege
	 * since it started the job.  A background worker runs its runners
	 * outside any transaction, and the check reads the catalogs, so it gets
	 * a short transaction of its own; starting it also takes in the
	 * invalidations of a REVOKE committed meanwhile.
	 */
	if (IsTransactionState())
		tuner_check_program_privilege_for("run a runner");
	else
	{
		StartTransactionCommand();
		tuner_check_program_privilege_for("run a runner");
		CommitTransactionCommand();
	}
	if (active_pgid != 0)
		elog(ERROR, "a runner is already running in this process");
	close_scratch_files(fds, N_SCRATCH); /* none are open; never leak */

	/*
	 * Right before the fork, and exec exactly the path checked: everything
	 * on it can be changed only by root or the server's user.
	 */
	path = tuner_safe_program_path(spec->program, &safety, &why);
	if (path == NULL)
	{
		result->exit_text = why;
		return;
	}
	argv = palloc(mul_size(spec->nargs + 2, sizeof(char *)));
	argv[0] = pstrdup(spec->program);
	for (i = 0; i < spec->nargs; i++)
		argv[i + 1] = pstrdup(spec->args[i]);
	argv[spec->nargs + 1] = NULL;

	if (!exit_callback_registered)
	{
		before_shmem_exit(kill_active_runner, (Datum)0);
		exit_callback_registered = true;
	}
	prepare_scratch_files(spec);
	ps = palloc0(sizeof(ProgressState));
	progress_channel_init(&ps->channel, fds[3]);
	ps->cxt = AllocSetContextCreate(
		CurrentMemoryContext, "tuner runner progress", ALLOCSET_SMALL_SIZES);
	measure_take(&before);

	/* No PostgreSQL signal handler may run in the child. */
	fflush(NULL);
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == 0)
		runner_child_exec(path, argv, fds[0], fds[1], fds[2], fds[3], parent,
						  PGSharedMemoryDetach);
	fork_errno = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0)
	{
		close_scratch_files(fds, N_SCRATCH);
		errno = fork_errno;
		ereport(ERROR, (errcode(ERRCODE_SYSTEM_ERROR),
						errmsg("could not fork the runner process: %m")));
	}
	/* Also here, so that the group exists before we may signal it. */
	(void)setpgid(pid, pid);
	active_pgid = pid;
	result->started = true;
	start = GetCurrentTimestamp();

	wait_guarded(spec, pid, start, ps, result);

	/* Whatever the runner left in its group goes with it. */
	(void)kill(-pid, SIGKILL);
	/* the keeper's usage includes the runner's and all it waited for */
	memset(&usage, 0, sizeof(usage));
	while (wait4(pid, &status, 0, &usage) < 0)
	{
		if (errno != EINTR)
		{
			active_pgid = 0;
			close_scratch_files(fds, N_SCRATCH);
			elog(ERROR, "waitpid failed for runner process %d: %m", (int)pid);
		}
	}
	active_pgid = 0;
	result->elapsed_s = ms_since(start) / 1000.0;
	measure_finish(&before, &usage, result->context, sizeof(result->context));
	result->exit_status = status;
	if (WIFEXITED(status))
		result->exit_code = WEXITSTATUS(status);
	result->exit_text = wait_result_to_str(status);
	if (strncmp(result->exit_text, "child process ", 14) == 0)
		result->exit_text += 14;
	read_outputs(spec, ps, result);
	MemoryContextDelete(ps->cxt);
}
