/*
 * runner_exec.h
 *	  Run a runner program from a server process: fork/exec of a fixed
 *	  argv (no shell) in its own process group, the configuration on its
 *	  stdin, stdout and stderr captured, a deadline enforced with SIGTERM
 *	  then SIGKILL to the whole group.  Used by the background workers
 *	  (tuner.run) and by tuner.step.
 */
#ifndef RUNNER_EXEC_H
#define RUNNER_EXEC_H

#include "postgres.h"

/*
 * Called about every poll (a few times a second) while the runner runs;
 * slow is true about once a second (for checks that cost a query).
 * Returns NULL to keep going, or the reason to stop the runner.
 */
typedef const char *(*TunerRunCheck)(void *arg, bool slow, double elapsed_s);

/*
 * The progress lines the runner wrote on fd 3 (progress_channel.h) since
 * the last batch, checked: steps increase, metrics are JSON objects.
 */
typedef struct TunerProgressBatch
{
	int n;
	int cap;
	double *steps;
	char **metrics;
} TunerProgressBatch;

/*
 * Called about once a second while the runner runs, with what it wrote
 * since (n > 0), and once after it exited (final) with the rest.  Returns
 * NULL to keep going, or the reason to stop the runner; with *failed set,
 * the reason is a failure of the channel that fails the trial.
 */
typedef const char *(*TunerRunProgress)(void *arg,
										const TunerProgressBatch *batch,
										bool final, bool *failed);

typedef struct TunerRunSpec
{
	const char *program;     /* as registered: absolute path or bare name */
	const char *const *args; /* fixed arguments */
	int nargs;
	const char *input;   /* written to stdin */
	double timeout_s;    /* then SIGTERM to the group */
	double grace_s;      /* then SIGKILL to the group */
	TunerRunCheck check; /* may be NULL */
	void *check_arg;
	TunerRunProgress progress; /* may be NULL: fd 3 is then closed */
	void *progress_arg;
} TunerRunSpec;

typedef struct TunerRunResult
{
	bool started;            /* false: program not found or not executable */
	int exit_status;         /* wait status when started */
	int exit_code;           /* exit code, -1 when a signal ended it */
	char *exit_text;         /* "exited with exit code 3", or why not */
	bool timed_out;          /* the deadline killed it */
	const char *stop_reason; /* the check or progress stopped it, or NULL */
	const char *progress_error; /* its progress channel failed: why */
	char *out;                  /* stdout as server-encoding text */
	bool out_truncated;         /* stdout was longer than the limit */
	char *err_tail;             /* last TUNER_STDERR_TAIL bytes of stderr */
	double elapsed_s;
	char context[512]; /* how busy the machine was (JSON), or "" */
} TunerRunResult;

/* Bytes of stdout read, and of stderr kept (its tail). */
#define TUNER_STDOUT_MAX  (16 * 1024 * 1024)
#define TUNER_STDERR_TAIL 2048

/*
 * Raise insufficient_privilege unless the current user has the privileges
 * of pg_execute_server_program; action says what was attempted.
 */
extern void tuner_check_program_privilege_for(const char *action);

/*
 * Run the program of spec to completion (or its deadline, or a stop from
 * the check) and fill result.  Checks the privilege first.  Errors and
 * interrupts (query cancel) raised while it runs kill the runner's
 * process group before they propagate; a FATAL exit kills it from a
 * before_shmem_exit callback.
 */
extern void tuner_run_program(const TunerRunSpec *spec,
							  TunerRunResult *result);

#endif /* RUNNER_EXEC_H */
