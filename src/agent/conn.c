/*
 * conn.c
 *	  tuner-agent's database connection (see conn.h).  Connections use
 *	  connect_timeout, tcp_user_timeout and TCP keepalives (before the
 *	  user's connection string, which may override them), so that a dead
 *	  network ends a call within seconds instead of the kernel's
 *	  retransmission timeout.  Those cannot see a peer whose kernel still
 *	  acknowledges every byte but that never answers (a hung relay or
 *	  proxy, a stopped server): so each call also has a deadline of its
 *	  own, after which the connection is dropped as lost.  The connection
 *	  is non-blocking for that, so that neither sending a call nor
 *	  closing a hung connection can block.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "conn.h"

static char last_sqlstate[6] = "";
static char last_error[1024] = "";

/* See conn.h. */
const char *
agent_last_sqlstate(void)
{
	return last_sqlstate;
}

/* See conn.h. */
const char *
agent_last_error(void)
{
	return last_error;
}

/* Forget a broken connection and schedule the next attempt. */
static void
drop_connection(AgentConn *c)
{
	if (c->conn != NULL)
		PQfinish(c->conn);
	c->conn = NULL;
	if (c->backoff_s <= 0)
		c->backoff_s = 0.1;
	c->next_try = agent_now_s();
}

/* See conn.h. */
bool
agent_try_connect(AgentConn *c)
{
	static const char *const keys[] = {"connect_timeout",
									   "tcp_user_timeout",
									   "keepalives_idle",
									   "keepalives_interval",
									   "keepalives_count",
									   "application_name",
									   "dbname",
									   "client_encoding",
									   NULL};
	const char *values[] = {"10",          "10000", "5",    "2", "3",
							"tuner-agent", c->dsn,  "UTF8", NULL};
	PGconn *conn;

	if (c->conn != NULL)
		return true;
	if (agent_now_s() < c->next_try)
		return false;
	conn = PQconnectdbParams(keys, values, 1);
	if (PQstatus(conn) != CONNECTION_OK || PQsetnonblocking(conn, 1) != 0)
	{
		char *msg = PQerrorMessage(conn);
		size_t len = strlen(msg);

		while (len > 0 && msg[len - 1] == '\n')
			msg[--len] = '\0';
		agent_log("could not connect (next try in %.1f s): %s",
				  c->backoff_s > 0 ? c->backoff_s : 0.1, msg);
		PQfinish(conn);
		if (c->backoff_s <= 0)
			c->backoff_s = 0.1;
		c->next_try = agent_now_s() + c->backoff_s;
		c->backoff_s = fmin(c->backoff_s * 2, c->max_backoff_s);
		return false;
	}
	c->conn = conn;
	c->backoff_s = 0.1;
	return true;
}

/* See conn.h. */
bool
agent_connect_wait(AgentConn *c, volatile sig_atomic_t *stop)
{
	while (!*stop)
	{
		double wait;
		struct timespec ts;

		if (agent_try_connect(c))
			return true;
		wait = c->next_try - agent_now_s();
		if (wait > 0)
		{
			ts.tv_sec = (time_t)wait;
			ts.tv_nsec = (long)((wait - ts.tv_sec) * 1e9);
			(void)nanosleep(&ts, NULL);
		}
	}
	return false;
}

/*
 * Wait until libpq has a whole result to give, sending what is left of the
 * query meanwhile, until the monotonic time deadline.  1: a result (or
 * the end of them) is ready, 0: the deadline passed, -1: the connection
 * broke.
 */
static int
await_result(PGconn *conn, double deadline)
{
	for (;;)
	{
		int flushed = PQflush(conn);
		struct pollfd pfd;
		double left;

		if (flushed < 0 || !PQconsumeInput(conn))
			return -1;
		if (!PQisBusy(conn))
			return 1;
		left = deadline - agent_now_s();
		if (left <= 0)
			return 0;
		pfd.fd = PQsocket(conn);
		pfd.events = POLLIN | (flushed == 1 ? POLLOUT : 0);
		pfd.revents = 0;
		if (poll(&pfd, 1, (int)ceil(left * 1000)) < 0 && errno != EINTR)
			return -1;
	}
}

/* Log why the connection is lost (last_error) and drop it. */
static AgentCall
lost(AgentConn *c)
{
	agent_log("lost the connection: %s", last_error);
	drop_connection(c);
	return CALL_LOST;
}

/*
 * Run one statement with text parameters, waiting at most timeout_s
 * seconds for its answer.  CALL_OK with *res set (the caller clears it),
 * CALL_ERROR with the error kept, or CALL_LOST (the connection is
 * dropped; the statement may or may not have run).
 */
static AgentCall
call(AgentConn *c, const char *sql, int n, const char *const *values,
	 double timeout_s, PGresult **res)
{
	PGresult *r = NULL;
	PGresult *next;
	const char *state;
	double deadline = agent_now_s() + timeout_s;
	int ready;

	*res = NULL;
	if (c->conn == NULL)
		return CALL_LOST;
	if (!PQsendQueryParams(c->conn, sql, n, NULL, values, NULL, NULL, 0))
	{
		snprintf(last_error, sizeof(last_error), "%s",
				 PQerrorMessage(c->conn));
		return lost(c);
	}
	/* One statement: keep its result, read on to the end of them. */
	while ((ready = await_result(c->conn, deadline)) == 1 &&
		   (next = PQgetResult(c->conn)) != NULL)
	{
		if (r == NULL)
			r = next;
		else
			PQclear(next);
	}
	if (ready == 0)
	{
		snprintf(last_error, sizeof(last_error),
				 "no answer from the database in %g s", timeout_s);
		PQclear(r);
		return lost(c);
	}
	if (ready < 0 && r == NULL)
	{
		snprintf(last_error, sizeof(last_error), "%s",
				 PQerrorMessage(c->conn));
		return lost(c);
	}
	if (r != NULL && PQresultStatus(r) == PGRES_TUPLES_OK && ready == 1)
	{
		*res = r;
		return CALL_OK;
	}
	state = r != NULL ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	if (PQstatus(c->conn) == CONNECTION_BAD || state == NULL ||
		strncmp(state, "08", 2) == 0 || strncmp(state, "57P", 3) == 0)
	{
		/*
		 * No SQLSTATE (libpq's own error), a connection exception, or the
		 * server ending the session (pg_terminate_backend, shutdown).
		 */
		snprintf(last_error, sizeof(last_error), "%s",
				 PQerrorMessage(c->conn));
		PQclear(r);
		return lost(c);
	}
	snprintf(last_sqlstate, sizeof(last_sqlstate), "%s", state);
	snprintf(last_error, sizeof(last_error), "%s",
			 PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY));
	PQclear(r);
	return CALL_ERROR;
}

/* See conn.h. */
AgentCall
agent_claim(AgentConn *c, const char *study, const char *worker,
			AgentTrial *trial)
{
	const char *values[2] = {study, worker};
	PGresult *r;
	AgentCall rc;

	rc = call(c,
			  "SELECT trial, number, input, timeout_s, grace_s, lease_s "
			  "FROM tuner.agent_claim($1, $2)",
			  2, values, c->call_timeout_s, &r);
	if (rc != CALL_OK)
		return rc;
	trial->id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	trial->number = atoi(PQgetvalue(r, 0, 1));
	trial->input = strdup(PQgetvalue(r, 0, 2));
	trial->timeout_s = strtod(PQgetvalue(r, 0, 3), NULL);
	trial->grace_s = strtod(PQgetvalue(r, 0, 4), NULL);
	trial->lease_s = strtod(PQgetvalue(r, 0, 5), NULL);
	PQclear(r);
	return CALL_OK;
}

/* See conn.h: one row per runner argument (one, arg NULL, without). */
AgentCall
agent_claim_trial(AgentConn *c, long long id, const char *worker,
				  AgentTrial *trial)
{
	char idtext[32];
	const char *values[2] = {idtext, worker};
	PGresult *r;
	AgentCall rc;
	int i;

	snprintf(idtext, sizeof(idtext), "%lld", id);
	rc = call(c,
			  "SELECT x.trial, x.number, x.input, x.timeout_s, x.grace_s, "
			  "x.lease_s, x.program, a.arg "
			  "FROM tuner.agent_claim_trial($1, $2) x "
			  "LEFT JOIN LATERAL pg_catalog.unnest(x.args) WITH ORDINALITY "
			  "a(arg, i) ON true ORDER BY a.i",
			  2, values, c->call_timeout_s, &r);
	if (rc != CALL_OK)
		return rc;
	trial->id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	trial->number = atoi(PQgetvalue(r, 0, 1));
	trial->input = PQgetisnull(r, 0, 2) ? NULL : strdup(PQgetvalue(r, 0, 2));
	trial->timeout_s = strtod(PQgetvalue(r, 0, 3), NULL);
	trial->grace_s = strtod(PQgetvalue(r, 0, 4), NULL);
	trial->lease_s = strtod(PQgetvalue(r, 0, 5), NULL);
	trial->program = PQgetisnull(r, 0, 6) ? NULL : strdup(PQgetvalue(r, 0, 6));
	trial->args = calloc(PQntuples(r) + 1, sizeof(char *));
	trial->nargs = 0;
	for (i = 0; i < PQntuples(r); i++)
		if (!PQgetisnull(r, i, 7))
			trial->args[trial->nargs++] = strdup(PQgetvalue(r, i, 7));
	PQclear(r);
	return CALL_OK;
}

/* See conn.h. */
void
agent_trial_free(AgentTrial *trial)
{
	int i;

	free(trial->input);
	free(trial->program);
	for (i = 0; i < trial->nargs; i++)
		free(trial->args[i]);
	free(trial->args);
	memset(trial, 0, sizeof(*trial));
}

/* See conn.h. */
AgentCall
agent_heartbeat(AgentConn *c, long long trial, double timeout_s)
{
	char id[32];
	const char *values[1] = {id};
	PGresult *r;
	AgentCall rc;

	snprintf(id, sizeof(id), "%lld", trial);
	rc = call(c, "SELECT tuner.heartbeat($1)", 1, values, timeout_s, &r);
	PQclear(r);
	return rc;
}

/* Copy a column of the first row into buf ("" when NULL). */
static void
copy_value(PGresult *r, int col, char *buf, size_t size)
{
	snprintf(buf, size, "%s",
			 PQgetisnull(r, 0, col) ? "" : PQgetvalue(r, 0, col));
}

/* See conn.h. */
AgentCall
agent_finish(AgentConn *c, long long trial, const char *worker,
			 const AgentRunResult *res, const char *forced_state,
			 const char *forced_reason, AgentFinish *out)
{
	char id[32];
	char code[16];
	char elapsed[32];
	const char *values[10];
	PGresult *r;
	AgentCall rc;

	snprintf(id, sizeof(id), "%lld", trial);
	snprintf(code, sizeof(code), "%d", res->exit_code);
	snprintf(elapsed, sizeof(elapsed), "%.3f", res->elapsed_s);
	values[0] = id;
	values[1] = worker;
	values[2] = res->started && res->exit_code >= 0 ? code : NULL;
	values[3] = res->exit_text;
	values[4] = res->out != NULL ? res->out : "";
	values[5] = res->err_tail != NULL ? res->err_tail : "";
	values[6] = elapsed;
	values[7] = forced_state;
	values[8] = forced_reason;
	/* how busy this host was while the runner ran */
	values[9] = res->started && res->context[0] != '\0' ? res->context : NULL;
	rc = call(c,
			  "SELECT f ->> 'recorded', f ->> 'state', f ->> 'value', "
			  "f ->> 'error' FROM tuner.agent_finish($1, $2, $3, $4, $5, "
			  "$6, $7, $8, $9, $10::jsonb) f",
			  10, values, c->call_timeout_s, &r);
	if (rc != CALL_OK)
		return rc;
	out->recorded = strcmp(PQgetvalue(r, 0, 0), "true") == 0;
	copy_value(r, 1, out->state, sizeof(out->state));
	copy_value(r, 2, out->value, sizeof(out->value));
	copy_value(r, 3, out->error, sizeof(out->error));
	PQclear(r);
	return CALL_OK;
}

/* See conn.h. */
AgentCall
agent_progress(AgentConn *c, long long trial, const AgentProgressBatch *b,
			   bool ask_stop, double timeout_s, bool *stop)
{
	char id[32];
	const char *values[2];
	PGresult *r;
	AgentCall rc;
	size_t size = 3;
	char *json;
	size_t len = 0;
	int i;

	*stop = false;
	snprintf(id, sizeof(id), "%lld", trial);
	for (i = 0; i < b->n; i++)
		size += strlen(b->metrics[i]) + 64;
	json = malloc(size);
	if (json == NULL)
	{
		snprintf(last_sqlstate, sizeof(last_sqlstate), "53200");
		snprintf(last_error, sizeof(last_error), "out of memory");
		return CALL_ERROR;
	}
	json[len++] = '[';
	for (i = 0; i < b->n; i++)
		len += snprintf(json + len, size - len,
						"%s{\"step\": %.17g, \"metrics\": %s}",
						i > 0 ? "," : "", b->steps[i], b->metrics[i]);
	json[len++] = ']';
	json[len] = '\0';
	values[0] = id;
	values[1] = json;
	/* one statement: the batch is stored whole or not at all */
	rc = call(c,
			  "SELECT count(*) FROM (SELECT tuner.report_progress($1, "
			  "(e ->> 'step')::float8, e -> 'metrics') "
			  "FROM pg_catalog.jsonb_array_elements($2::jsonb) e) x",
			  2, values, timeout_s, &r);
	free(json);
	PQclear(r);
	if (rc != CALL_OK || !ask_stop)
		return rc;
	rc = call(c, "SELECT tuner.should_stop($1)", 1, values, timeout_s, &r);
	if (rc == CALL_OK)
		*stop = strcmp(PQgetvalue(r, 0, 0), "t") == 0;
	PQclear(r);
	return rc;
}

/* See conn.h. */
AgentCall
agent_prune(AgentConn *c, long long trial, const char *reason)
{
	char id[32];
	const char *values[2] = {id, reason};
	PGresult *r;
	AgentCall rc;

	snprintf(id, sizeof(id), "%lld", trial);
	rc = call(c,
			  "SELECT tuner.prune(x.id, $2) FROM tuner.trial x "
			  "WHERE x.id = $1 AND x.state = 'running'",
			  2, values, c->call_timeout_s, &r);
	PQclear(r);
	return rc;
}
