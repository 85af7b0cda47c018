/*
 * run.h
 *	  Run one runner on this host the way the server's background workers
 *	  do (src/pg/runner_exec.c): a fixed argv, no shell, its own process
 *	  group, the configuration on stdin, stdout and stderr captured in
 *	  unlinked scratch files, the study's trial timeout enforced with
 *	  SIGTERM then SIGKILL to the whole group.  While it runs the caller's
 *	  tick (heartbeats, signals) is called a few times a second.
 */
#ifndef AGENT_RUN_H
#define AGENT_RUN_H

#include <stdbool.h>

/*
 * Called every poll (at most 100 ms apart) while the runner runs; returns
 * NULL to keep going, or the reason to stop the runner.
 */
typedef const char *(*AgentTick)(void *arg, double elapsed_s);

/*
 * The progress lines the runner wrote on fd 3 since the last batch,
 * checked (src/exec/progress_channel.h).
 */
typedef struct AgentProgressBatch
{
	int n;
	int cap;
	double *steps;
	char **metrics;
} AgentProgressBatch;

/*
 * Called about once a second while the runner runs, with what it wrote
 * since (n > 0), and once after it exited (final) with the rest.  Returns
 * NULL to keep going, or the reason to stop the runner; with *failed set
 * the reason is a failure of the channel that fails the trial.
 */
typedef const char *(*AgentProgress)(void *arg, const AgentProgressBatch *b,
									 bool final, bool *failed);

typedef struct AgentRunSpec
{
	const char *path;  /* the runner program, absolute */
	char *const *argv; /* argv[0] and its arguments, NULL-terminated */
	const char *input; /* written to stdin */
	double timeout_s;  /* then SIGTERM to the group */
	double grace_s;    /* then SIGKILL to the group */
	AgentTick tick;    /* may be NULL */
	void *tick_arg;
	AgentProgress progress; /* may be NULL: fd 3 is then closed */
	void *progress_arg;
} AgentRunSpec;

typedef struct AgentRunResult
{
	bool started;             /* false: not run (exit_text says why) */
	int exit_code;            /* -1 when a signal ended it */
	char exit_text[256];      /* "exited with exit code 3", or why not */
	bool timed_out;           /* the deadline killed it */
	const char *stop_reason;  /* the tick or progress stopped it, or NULL */
	bool progress_failed;     /* its progress channel failed: */
	char progress_error[400]; /* why */
	char *out;                /* stdout as UTF-8 text (malloc'ed) */
	bool out_truncated;       /* stdout was longer than the limit */
	char *err_tail;           /* the last bytes of stderr (malloc'ed) */
	double elapsed_s;
	char context[512]; /* how busy the machine was (JSON), or "" */
} AgentRunResult;

/* Bytes of stdout read, and of stderr kept: the server's limits. */
#define AGENT_STDOUT_MAX  (16 * 1024 * 1024)
#define AGENT_STDERR_TAIL 2048

/*
 * Run spec's runner to completion, its deadline or a stop from the tick,
 * and fill result.  Returns 0, or -1 when this host could not run it
 * (scratch files, fork: result->exit_text says why; the runner did not
 * start).
 */
extern int agent_run(const AgentRunSpec *spec, AgentRunResult *result);

/* Free what agent_run allocated in result. */
extern void agent_run_free(AgentRunResult *result);

/* Is path an executable regular file? */
extern bool agent_is_executable(const char *path);

#endif /* AGENT_RUN_H */
