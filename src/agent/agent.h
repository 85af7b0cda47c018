/*
 * agent.h
 *	  tuner-agent: runs trials of a study on this host (README.md, "Remote
 *	  runner agents").  Its options, its log and the state its signal
 *	  handler shares with the main loop.
 */
#ifndef AGENT_H
#define AGENT_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

typedef struct AgentOptions
{
	const char *dsn;       /* libpq connection string ("" : PG* variables) */
	const char *study;     /* the study whose trials it runs */
	long long trial_id;    /* --trial: run exactly this trial (0: none) */
	char *runner_path;     /* the local runner program, absolute; NULL with
							* --trial: the study's registered runner */
	char **runner_argv;    /* argv[0] = runner_path, then -- arguments */
	char *worker;          /* its worker name in tuner.trial.worker */
	long trials;           /* trials to run, 0: until stopped */
	bool leave_on_signal;  /* SIGTERM: stop the runner, record nothing */
	double heartbeat_s;    /* 0: a third of the study's lease_s, <= 10 s */
	double max_backoff_s;  /* longest wait between two reconnects */
	double call_timeout_s; /* longest wait for a claim or an outcome */
} AgentOptions;

/*
 * Parse the command line into opts; on a usage error print it and exit 2,
 * for --help print the usage and exit 0.
 */
extern void agent_parse_options(int argc, char **argv, AgentOptions *opts);

/* A log line on stderr: UTC time, "tuner-agent", worker, message. */
extern void agent_log(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* The worker name used in log lines (set once the options are parsed). */
extern const char *agent_log_worker;

/* Set by SIGTERM and SIGINT: finish up and exit. */
extern volatile sig_atomic_t agent_stop_requested;

/* Seconds on the monotonic clock (run.c). */
extern double agent_now_s(void);

/* The process group of the runner running now, or 0 (run.c). */
extern volatile pid_t agent_active_pgid;

#endif /* AGENT_H */
