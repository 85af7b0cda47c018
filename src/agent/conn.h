/*
 * conn.h
 *	  tuner-agent's connection to the database: connecting with backoff,
 *	  telling a lost connection from an SQL error, and the calls it makes
 *	  (tuner.agent_claim, tuner.heartbeat, tuner.report_progress,
 *	  tuner.should_stop, tuner.prune, tuner.agent_finish).
 */
#ifndef AGENT_CONN_H
#define AGENT_CONN_H

#include <stdbool.h>

#include <libpq-fe.h>

#include "run.h"

typedef struct AgentConn
{
	const char *dsn;
	double max_backoff_s;
	double call_timeout_s; /* longest wait for a claim's or outcome's answer */
	PGconn *conn;          /* NULL while disconnected */
	double backoff_s;      /* wait before the next attempt */
	double next_try;       /* monotonic time of the next attempt */
} AgentConn;

/* How a call ended. */
typedef enum AgentCall
{
	CALL_OK,
	CALL_LOST,  /* the connection broke: the outcome is unknown */
	CALL_ERROR, /* the database answered with an error */
} AgentCall;

/* A claimed trial (tuner.agent_claim). */
typedef struct AgentTrial
{
	long long id;
	int number;
	char *input; /* malloc'ed */
	double timeout_s;
	double grace_s;
	double lease_s;
	/* agent_claim_trial only: the registered runner, or NULL; malloc'ed */
	char *program;
	char **args; /* nargs arguments */
	int nargs;
} AgentTrial;

/* What tuner.agent_finish answered. */
typedef struct AgentFinish
{
	bool recorded;
	char state[32];
	char value[64];  /* "" when none */
	char error[512]; /* "" when none */
} AgentFinish;

/*
 * Try to connect if disconnected and the backoff has passed (one attempt).
 * Returns whether it is connected now.
 */
extern bool agent_try_connect(AgentConn *c);

/*
 * Connect, retrying with exponential backoff (0.1 s doubling up to
 * max_backoff_s) until connected or *stop is set.  Returns whether it is
 * connected.
 */
extern bool agent_connect_wait(AgentConn *c, volatile sig_atomic_t *stop);

/* The SQLSTATE and message of the last CALL_ERROR. */
extern const char *agent_last_sqlstate(void);
extern const char *agent_last_error(void);

/*
 * tuner.agent_claim(study, worker) into *trial.  This call and
 * agent_finish wait at most call_timeout_s for the answer.
 */
extern AgentCall agent_claim(AgentConn *c, const char *study,
							 const char *worker, AgentTrial *trial);

/*
 * tuner.agent_claim_trial(trial, worker) into *trial (its input NULL when
 * the database failed the trial at the claim: its configuration is no
 * longer a point of the study's space).  Safe to repeat.
 */
extern AgentCall agent_claim_trial(AgentConn *c, long long id,
								   const char *worker, AgentTrial *trial);

/* Free what a claim allocated in *trial. */
extern void agent_trial_free(AgentTrial *trial);

/*
 * tuner.heartbeat(trial), waiting at most timeout_s seconds for the answer
 * (CALL_LOST after that).
 */
extern AgentCall agent_heartbeat(AgentConn *c, long long trial,
								 double timeout_s);

/*
 * tuner.agent_finish for a run's result; forced_state and forced_reason
 * are NULL to let the database parse the output.
 */
extern AgentCall agent_finish(AgentConn *c, long long trial,
							  const char *worker, const AgentRunResult *r,
							  const char *forced_state,
							  const char *forced_reason, AgentFinish *out);

/*
 * Store a batch of the runner's progress lines (tuner.report_progress, in
 * one statement: all or none); with ask_stop, then ask tuner.should_stop
 * into *stop.  Not safe to repeat after CALL_LOST (steps only increase).
 */
extern AgentCall agent_progress(AgentConn *c, long long trial,
								const AgentProgressBatch *b, bool ask_stop,
								double timeout_s, bool *stop);

/*
 * tuner.prune(trial, reason) for a trial the study's pruning rule stopped,
 * unless it is no longer running.
 */
extern AgentCall agent_prune(AgentConn *c, long long trial,
							 const char *reason);

#endif /* AGENT_CONN_H */
