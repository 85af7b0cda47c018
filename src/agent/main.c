/*
 * main.c
 *	  tuner-agent: claims trials of one study (tuner.agent_claim), runs the
 *	  local runner for each with the background workers' protocol and
 *	  timeout rules (run.c), renews the trial's lease while it runs
 *	  (tuner.heartbeat), stores the progress lines it writes on fd 3
 *	  (tuner.report_progress) and stops and prunes it when the study's
 *	  pruning rule says so (tuner.should_stop, tuner.prune), and records
 *	  the outcome (tuner.agent_finish).
 *
 *	  A lost connection is retried with backoff; the runner keeps running
 *	  meanwhile.  If the lease expired before the agent is back, the trial
 *	  was reaped (interrupted, its retry queued): a heartbeat that finds it
 *	  so stops the runner, and a late outcome is refused by the database
 *	  (logged, not recorded), so a trial is reported or reaped, never both.
 *
 *	  SIGTERM or SIGINT: the runner's group gets SIGTERM, SIGKILL after the
 *	  study's kill_grace_s, the trial is recorded as interrupted ("agent
 *	  terminated", like a background worker that is terminated), and the
 *	  agent exits 0.  If the database cannot be reached then, the trial is
 *	  left to be reaped when its lease expires.  A second signal kills the
 *	  runner's group and exits at once.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "conn.h"
#include "run.h"

volatile sig_atomic_t agent_stop_requested = 0;
const char *agent_log_worker = "";

/* What the tick needs while a runner runs. */
typedef struct TickState
{
	AgentConn *conn;
	long long trial;
	double every_s;    /* heartbeat interval */
	double wait_s;     /* longest wait for a heartbeat's answer */
	double last_s;     /* elapsed time of the last heartbeat */
	bool lease_lost;   /* a heartbeat found the trial no longer running */
	char pruned[160];  /* the study's pruning rule stopped it: why, or "" */
	char refused[560]; /* the database refused its progress: why */
} TickState;

/* See agent.h. */
void
agent_log(const char *fmt, ...)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	va_list ap;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S UTC", &tm);
	fprintf(stderr, "%s tuner-agent[%s]: ", stamp, agent_log_worker);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

/*
 * SIGTERM, SIGINT: ask the loop to stop; a second one kills the runner's
 * group and exits at once.
 */
static void
on_stop_signal(int sig)
{
	if (agent_stop_requested)
	{
		if (agent_active_pgid > 0)
			(void)kill(-agent_active_pgid, SIGKILL);
		_exit(1);
	}
	agent_stop_requested = 1;
}

/*
 * The tick while a runner runs: stop on a signal; renew the lease every
 * every_s seconds, reconnecting (with backoff) when the connection is
 * gone; stop when the trial is no longer running in the database.
 */
static const char *
tick(void *arg, double elapsed_s)
{
	TickState *st = (TickState *)arg;
	bool was_connected = st->conn->conn != NULL;

	if (agent_stop_requested)
		return "agent terminated";
	if (!was_connected)
	{
		if (!agent_try_connect(st->conn))
			return NULL;
		agent_log("reconnected; renewing the lease of trial id %lld",
				  st->trial);
	}
	else if (elapsed_s - st->last_s < st->every_s)
		return NULL;
	st->last_s = elapsed_s;
	switch (agent_heartbeat(st->conn, st->trial, st->wait_s))
	{
		case CALL_OK:
		case CALL_LOST:
			return NULL;
		case CALL_ERROR:
			if (strcmp(agent_last_sqlstate(), "55000") == 0)
			{
				agent_log("trial id %lld is no longer running (%s); "
						  "stopping its runner",
						  st->trial, agent_last_error());
				st->lease_lost = true;
				return "lease lost before the agent could renew it";
			}
			agent_log("heartbeat of trial id %lld failed: %s", st->trial,
					  agent_last_error());
			return NULL;
	}
	return NULL;
}

/*
 * The runner's progress, as the background workers store it: a batch
 * about once a second (tuner.report_progress), then tuner.should_stop;
 * when the study's rule says stop, the runner is stopped (and the trial
 * pruned once it is gone).  A batch lost with the connection is dropped
 * (logged); one the database refuses fails the trial.
 */
static const char *
progress(void *arg, const AgentProgressBatch *b, bool final, bool *failed)
{
	TickState *st = (TickState *)arg;
	bool stop = false;

	if (agent_stop_requested)
		return NULL;
	if (st->conn->conn == NULL)
	{
		agent_log("trial id %lld: not connected, %d progress lines dropped",
				  st->trial, b->n);
		return NULL;
	}
	switch (agent_progress(st->conn, st->trial, b, !final, st->wait_s, &stop))
	{
		case CALL_LOST:
			agent_log("trial id %lld: %d progress lines may be lost with the "
					  "connection",
					  st->trial, b->n);
			return NULL;
		case CALL_ERROR:
			if (strcmp(agent_last_sqlstate(), "55000") == 0)
			{
				agent_log("trial id %lld is no longer running (%s); "
						  "stopping its runner",
						  st->trial, agent_last_error());
				st->lease_lost = true;
				return "lease lost before the agent could renew it";
			}
			snprintf(st->refused, sizeof(st->refused),
					 "runner progress was refused: %s", agent_last_error());
			*failed = true;
			return st->refused;
		case CALL_OK:
			break;
	}
	if (!stop)
		return NULL;
	snprintf(st->pruned, sizeof(st->pruned),
			 "pruned at step %g by the study's pruning rule; its process "
			 "group was stopped",
			 b->steps[b->n - 1]);
	return st->pruned;
}

/*
 * The state and reason that override the protocol, as the background
 * workers decide them (forced_outcome in src/pg/worker.c).
 */
static void
forced_outcome(const AgentTrial *t, const AgentRunResult *r,
			   const char **state, char *reason, size_t size)
{
	*state = NULL;
	reason[0] = '\0';
	if (!r->started)
	{
		*state = "failed";
		snprintf(reason, size, "%s", r->exit_text);
	}
	else if (r->progress_failed)
	{
		*state = "failed";
		snprintf(reason, size, "%s; the runner's process group was stopped",
				 r->progress_error);
	}
	else if (r->stop_reason != NULL)
	{
		*state = "interrupted";
		snprintf(reason, size, "%s", r->stop_reason);
	}
	else if (r->timed_out)
	{
		*state = "failed";
		snprintf(reason, size,
				 "runner timed out after %g s (trial_timeout_s); its "
				 "process group was killed",
				 t->timeout_s);
	}
	else if (r->out_truncated)
	{
		*state = "failed";
		snprintf(reason, size, "runner printed more than %d bytes on stdout",
				 AGENT_STDOUT_MAX);
	}
}

/* Is an SQLSTATE worth trying again (deadlock, serialization)? */
static bool
transient(const char *sqlstate)
{
	return strcmp(sqlstate, "40P01") == 0 || strcmp(sqlstate, "40001") == 0;
}

/*
 * Connect to record an outcome: with backoff until connected, but once the
 * agent is asked to stop only a few more tries.
 */
static bool
connect_for_outcome(AgentConn *c)
{
	int i;

	if (c->conn != NULL)
		return true;
	if (!agent_stop_requested && agent_connect_wait(c, &agent_stop_requested))
		return true;
	for (i = 0; i < 3; i++)
	{
		sleep(1);
		c->next_try = 0;
		if (agent_try_connect(c))
			return true;
	}
	return false;
}

/* Record a run's outcome, retrying over lost connections; logs it. */
static void
record(AgentConn *c, const AgentOptions *opts, const AgentTrial *t,
	   const AgentRunResult *r)
{
	const char *state;
	char reason[512];
	AgentFinish f;
	int lost = 0;

	forced_outcome(t, r, &state, reason, sizeof(reason));
	for (;;)
	{
		/* Once asked to stop, a few lost calls are enough. */
		if (!connect_for_outcome(c) || (agent_stop_requested && lost > 3))
		{
			agent_log("trial %d (id %lld): could not reach the database; "
					  "its lease will expire and tuner.reap() interrupts it",
					  t->number, t->id);
			return;
		}
		switch (agent_finish(c, t->id, opts->worker, r, state,
							 state ? reason : NULL, &f))
		{
			case CALL_LOST:
				lost++;
				continue; /* agent_finish is safe to repeat */
			case CALL_ERROR:
				if (transient(agent_last_sqlstate()) && !agent_stop_requested)
				{
					agent_log("recording trial id %lld failed, retrying: %s",
							  t->id, agent_last_error());
					sleep(1);
					continue;
				}
				agent_log("trial %d (id %lld): the database refused its "
						  "outcome: %s",
						  t->number, t->id, agent_last_error());
				return;
			case CALL_OK:
				break;
		}
		if (!f.recorded && strcmp(f.state, "pruned") == 0)
			agent_log("trial %d (id %lld): pruned: %s", t->number, t->id,
					  f.error);
		else if (!f.recorded)
			agent_log("trial %d (id %lld): not recorded, the trial is "
					  "already %s%s%s",
					  t->number, t->id, f.state, f.error[0] ? ": " : "",
					  f.error);
		else if (strcmp(f.state, "complete") == 0)
			agent_log("trial %d (id %lld): complete, value %s (%.1f s)",
					  t->number, t->id, f.value, r->elapsed_s);
		else
			agent_log("trial %d (id %lld): %s: %s", t->number, t->id, f.state,
					  f.error);
		return;
	}
}

/* Run one claimed trial and record its outcome. */
static void
run_trial(AgentConn *c, const AgentOptions *opts, const AgentTrial *t)
{
	TickState st;
	AgentRunSpec spec;
	AgentRunResult r;

	memset(&st, 0, sizeof(st));
	st.conn = c;
	st.trial = t->id;
	st.every_s = opts->heartbeat_s;
	if (st.every_s <= 0)
	{
		st.every_s = t->lease_s / 3;
		if (st.every_s > 10)
			st.every_s = 10;
		if (st.every_s < 0.05)
			st.every_s = 0.05;
	}

	/*
	 * A heartbeat unanswered for one interval is taken for a hung
	 * connection: dropping it then leaves the rest of the lease to
	 * reconnect and renew.  The runner's deadline waits meanwhile, so it
	 * is not the long call timeout; at least 1 s for a busy server.
	 */
	st.wait_s = st.every_s < 1 ? 1 : st.every_s;
	if (st.wait_s > opts->call_timeout_s)
		st.wait_s = opts->call_timeout_s;
	memset(&spec, 0, sizeof(spec));
	spec.path = opts->runner_path;
	spec.argv = opts->runner_argv;
	spec.input = t->input;
	spec.timeout_s = t->timeout_s;
	spec.grace_s = t->grace_s;
	spec.tick = tick;
	spec.tick_arg = &st;
	spec.progress = progress;
	spec.progress_arg = &st;

	agent_log("trial %d (id %lld): running %s (timeout %g s, lease %g s)",
			  t->number, t->id, opts->runner_path, t->timeout_s, t->lease_s);
	if (agent_run(&spec, &r) != 0)
		agent_log("trial %d (id %lld): %s", t->number, t->id, r.exit_text);
	if (agent_stop_requested && opts->leave_on_signal)
	{
		/* a Slurm job's agent: its submitter records why the job ended */
		agent_log("trial %d (id %lld): runner stopped by a signal; the trial "
				  "is left to the job's submitter",
				  t->number, t->id);
		agent_run_free(&r);
		return;
	}
	if (st.pruned[0] != '\0' && !r.progress_failed && connect_for_outcome(c) &&
		agent_prune(c, t->id, st.pruned) != CALL_OK)
		agent_log("trial %d (id %lld): could not record its pruning: %s",
				  t->number, t->id, agent_last_error());
	record(c, opts, t, &r);
	agent_run_free(&r);
}

/*
 * The registered runner's program as this host finds it: a path with a
 * slash as it is; a bare name in this agent's own directory (PostgreSQL's
 * bindir when installed there, as the server looks first), then in PATH.
 * malloc'ed, or NULL.
 */
static char *
find_program(const char *program)
{
	char self[4096];
	char *candidate;
	const char *path = getenv("PATH");
	ssize_t n;

	if (strchr(program, '/') != NULL)
		return program[0] == '/' ? strdup(program) : NULL;
	candidate = malloc(8192);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0)
	{
		self[n] = '\0';
		*strrchr(self, '/') = '\0';
		snprintf(candidate, 8192, "%s/%s", self, program);
		if (agent_is_executable(candidate))
			return candidate;
	}
	while (path != NULL && *path != '\0')
	{
		const char *end = strchr(path, ':');
		size_t len = end ? (size_t)(end - path) : strlen(path);

		if (len > 0 && path[0] == '/' && len < 4096)
		{
			snprintf(candidate, 8192, "%.*s/%s", (int)len, path, program);
			if (agent_is_executable(candidate))
				return candidate;
		}
		path = end ? end + 1 : NULL;
	}
	free(candidate);
	return NULL;
}

/*
 * --trial ID: claim that trial (tuner.agent_claim_trial), run it with the
 * given runner or the registered one, record it.  Returns the exit status.
 */
static int
run_one_trial(AgentConn *conn, const AgentOptions *opts)
{
	AgentOptions o = *opts;
	AgentTrial t;
	int i;

	for (;;)
	{
		if (!agent_connect_wait(conn, &agent_stop_requested))
			return 0;
		memset(&t, 0, sizeof(t));
		switch (agent_claim_trial(conn, opts->trial_id, opts->worker, &t))
		{
			case CALL_LOST:
				continue; /* agent_claim_trial is safe to repeat */
			case CALL_ERROR:
				if (transient(agent_last_sqlstate()))
				{
					agent_log("claim failed, retrying: %s",
							  agent_last_error());
					sleep(1);
					continue;
				}
				agent_log("the database refused trial id %lld: %s",
						  opts->trial_id, agent_last_error());
				return 1;
			case CALL_OK:
				break;
		}
		break;
	}
	if (t.input == NULL)
	{
		agent_log("trial %d (id %lld): failed at its claim (its configuration "
				  "is no longer in the study's space); see its error",
				  t.number, t.id);
		agent_trial_free(&t);
		return 1;
	}
	if (o.runner_path == NULL)
	{
		char reason[600];
		AgentRunResult r;

		o.runner_path = t.program ? find_program(t.program) : NULL;
		if (o.runner_path == NULL)
		{
			memset(&r, 0, sizeof(r));
			r.exit_code = -1;
			snprintf(reason, sizeof(reason),
					 t.program ? "runner program \"%s\" was not found on this "
								 "host (agent's directory, PATH)"
							   : "the study has no registered runner%s; pass "
								 "--runner-path",
					 t.program ? t.program : "");
			snprintf(r.exit_text, sizeof(r.exit_text), "%.255s", reason);
			agent_log("trial %d (id %lld): %s", t.number, t.id, reason);
			record(conn, &o, &t, &r);
			agent_trial_free(&t);
			return 1;
		}
		o.runner_argv = calloc(t.nargs + 2, sizeof(char *));
		o.runner_argv[0] = o.runner_path;
		for (i = 0; i < t.nargs; i++)
			o.runner_argv[i + 1] = t.args[i];
	}
	run_trial(conn, &o, &t);
	agent_trial_free(&t);
	return 0;
}

/* tuner-agent (see the header comment and agent_parse_options). */
int
main(int argc, char **argv)
{
	AgentOptions opts;
	AgentConn conn;
	struct sigaction sa;
	long done = 0;
	int status = 0;

	agent_parse_options(argc, argv, &opts);
	agent_log_worker = opts.worker;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);

	memset(&conn, 0, sizeof(conn));
	conn.dsn = opts.dsn;
	conn.max_backoff_s = opts.max_backoff_s;
	conn.call_timeout_s = opts.call_timeout_s;
	if (opts.trial_id != 0)
	{
		agent_log("trial id %lld, runner %s", opts.trial_id,
				  opts.runner_path ? opts.runner_path : "(registered)");
		status = run_one_trial(&conn, &opts);
		if (conn.conn != NULL)
			PQfinish(conn.conn);
		agent_log("%s", agent_stop_requested ? "stopped" : "done");
		return status;
	}
	agent_log("study \"%s\", runner %s", opts.study, opts.runner_path);

	while (!agent_stop_requested && (opts.trials == 0 || done < opts.trials))
	{
		AgentTrial t;

		if (!agent_connect_wait(&conn, &agent_stop_requested))
			break;
		memset(&t, 0, sizeof(t));
		switch (agent_claim(&conn, opts.study, opts.worker, &t))
		{
			case CALL_LOST:
				continue; /* agent_claim is idempotent per worker */
			case CALL_ERROR:
				if (transient(agent_last_sqlstate()))
				{
					agent_log("claim failed, retrying: %s",
							  agent_last_error());
					sleep(1);
					continue;
				}
				agent_log("the database refused to give a trial: %s",
						  agent_last_error());
				status = 1;
				break;
			case CALL_OK:
				run_trial(&conn, &opts, &t);
				free(t.input);
				done++;
				continue;
		}
		break;
	}
	if (conn.conn != NULL)
		PQfinish(conn.conn);
	agent_log("%s after %ld trials", agent_stop_requested ? "stopped" : "done",
			  done);
	return status;
}
