/*
 * bookkeeping_write.c
 *	  A study's jobs, views, grants, models and suggestion records, and the
 *	  presets, are written by tuner's functions only (issue 25).
 *
 *	  tuner's functions run as their caller, so that row-level security and
 *	  the guard triggers judge every write as the caller's own.  A role
 *	  that may run a function may therefore also write the tables it
 *	  writes; for these tables a direct statement skipped checks that only
 *	  the functions make (tuner.run's right to run programs, grant_study's
 *	  known role and privilege).  So their guard trigger
 *	  (tuner._bookkeeping_guard) refuses every write made outside the
 *	  fixed statements below, and each function writes through one of them.
 *
 *	  Each statement is fixed here and takes only values, so a caller can
 *	  do nothing through it that the statement does not say; while one
 *	  runs, a backend-local depth counter tells the trigger.  Nothing of the
 *	  caller's runs meanwhile: the tables' triggers and policies are
 *	  tuner's own, with a pinned search_path.  One C function serves every
 *	  statement; its SQL name says which (src/sql/bookkeeping_writes.sql).
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "tuner_pg.h"

typedef struct BookkeepingStatement
{
	const char *function; /* the SQL function's name in schema tuner */
	const char *sql;      /* run with the function's arguments as $1.. */
	bool returns_id;      /* INSERT ... RETURNING id, else a row count */
} BookkeepingStatement;

static const BookkeepingStatement statements[] = {
	{"_job_insert",
	 "INSERT INTO tuner.job (study_id, trials, parallel) "
	 "VALUES ($1, $2, $3) RETURNING id",
	 true},
	{"_job_set_launched", "UPDATE tuner.job SET launched = $2 WHERE id = $1",
	 false},
	{"_job_request_stop",
	 "UPDATE tuner.job SET stop_requested = true "
	 "WHERE study_id = $1 AND state = 'running' AND NOT stop_requested",
	 false},
	{"_job_count_claim",
	 "UPDATE tuner.job SET claimed = claimed + 1 WHERE id = $1", false},
	/* the last worker to finish decides how the job ended */
	{"_job_count_worker_done",
	 "UPDATE tuner.job j "
	 "SET workers_done = j.workers_done + 1, "
	 "error = COALESCE(j.error, $2), "
	 "state = CASE WHEN j.workers_done + 1 < j.launched THEN j.state "
	 "WHEN j.stop_requested THEN 'stopped' "
	 "WHEN COALESCE(j.error, $2) IS NOT NULL THEN 'failed' "
	 "ELSE 'finished' END, "
	 "finished_at = CASE WHEN j.workers_done + 1 < j.launched THEN NULL "
	 "ELSE pg_catalog.now() END "
	 "WHERE j.id = $1 AND j.state = 'running'",
	 false},
	{"_job_mark_interrupted",
	 "UPDATE tuner.job "
	 "SET state = 'interrupted', finished_at = pg_catalog.now(), "
	 "error = COALESCE(error, 'server restarted') "
	 "WHERE state = 'running' AND created_at < tuner._server_started_at()",
	 false},
	{"_view_insert",
	 "INSERT INTO tuner.study_view (study_id, view_schema, view_name) "
	 "VALUES ($1, $2, $3) RETURNING study_id",
	 true},
	/* a row is forgotten once its view is gone, never before */
	{"_view_forget",
	 "DELETE FROM tuner.study_view x "
	 "WHERE x.view_schema = $1 AND x.view_name = $2 AND NOT EXISTS ("
	 "SELECT 1 FROM pg_catalog.pg_class c "
	 "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
	 "WHERE n.nspname = $1 AND c.relname = $2)",
	 false},
	{"_grant_insert",
	 "INSERT INTO tuner.study_grant (study_id, grantee, privilege) "
	 "VALUES ($1, $2, $3) RETURNING study_id",
	 true},
	{"_preset_insert",
	 "INSERT INTO tuner.preset (name, owner, definition) "
	 "VALUES ($1, current_user, $2)",
	 false},
	{"_preset_delete",
	 "DELETE FROM tuner.preset p WHERE p.name = $1 AND p.owner = $2", false},
	/* rows of one suggestion's models: ids and times are the statement's */
	{"_model_insert",
	 "INSERT INTO tuner.model SELECT (pg_catalog.jsonb_populate_record(m, "
	 "pg_catalog.jsonb_build_object("
	 "'id', pg_catalog.nextval('tuner.model_id_seq'::pg_catalog.regclass), "
	 "'fitted_at', pg_catalog.now()))).* FROM pg_catalog.unnest($1) m",
	 false},
	{"_suggestion_insert",
	 "INSERT INTO tuner.suggestion SELECT (pg_catalog.jsonb_populate_record("
	 "$1, pg_catalog.jsonb_build_object('made_at', pg_catalog.now()))).*",
	 false},
	{"_progress_insert",
	 "INSERT INTO tuner.trial_progress (trial_id, step, metrics) "
	 "VALUES ($1, $2, $3)",
	 false},
	{"_grant_forget",
	 "DELETE FROM tuner.study_grant g "
	 "WHERE g.study_id = $1 AND g.grantee = $2",
	 false},
};

/* How many bookkeeping statements are running in this backend. */
static int bookkeeping_depth = 0;

PG_FUNCTION_INFO_V1(tuner_bookkeeping_write);
PG_FUNCTION_INFO_V1(tuner_in_bookkeeping_write);
PG_FUNCTION_INFO_V1(tuner_trial_made_here);

static const BookkeepingStatement *
find_statement(const char *function)
{
	for (size_t i = 0; i < lengthof(statements); i++)
		if (strcmp(statements[i].function, function) == 0)
			return &statements[i];
	return NULL;
}

/*
 * tuner._in_bookkeeping_write() RETURNS bool: is one of the statements
 * above running?  For the guard trigger.
 */
Datum
tuner_in_bookkeeping_write(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(bookkeeping_depth > 0);
}

/*
 * tuner._trial_made_here(trial bigint) RETURNS bool: was the trial's row
 * written by this transaction (or one of its subtransactions)?  A
 * suggestion's record and its models belong to the suggestion that made
 * the trial, in the same transaction.
 */
Datum
tuner_trial_made_here(PG_FUNCTION_ARGS)
{
	Oid types[1] = {INT8OID};
	Datum values[1];
	bool made = false;

	if (PG_ARGISNULL(0))
		PG_RETURN_BOOL(false);
	values[0] = PG_GETARG_DATUM(0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args(
			"SELECT t.xmin FROM tuner.trial t WHERE t.id = $1", 1, types,
			values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the trial's row");
	if (SPI_processed == 1)
	{
		bool isnull;
		Datum xmin = SPI_getbinval(SPI_tuptable->vals[0],
								   SPI_tuptable->tupdesc, 1, &isnull);

		made = !isnull && TransactionIdIsCurrentTransactionId(
							  DatumGetTransactionId(xmin));
	}
	if (SPI_finish() != SPI_OK_FINISH)
		elog(ERROR, "SPI_finish failed");
	PG_RETURN_BOOL(made);
}

/*
 * Every bookkeeping function: run its statement with its arguments and
 * return the new row's id, or how many rows it changed.
 */
Datum
tuner_bookkeeping_write(PG_FUNCTION_ARGS)
{
	Oid fn = fcinfo->flinfo->fn_oid;
	char *name = get_func_name(fn);
	const BookkeepingStatement *statement;
	Oid *types;
	int nargs;
	Datum *values;
	char *nulls;
	int64 result = 0;

	statement = name != NULL ? find_statement(name) : NULL;
	if (statement == NULL)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
						errmsg("function %s has no bookkeeping statement",
							   name != NULL ? name : "(unknown)")));
	get_func_signature(fn, &types, &nargs);
	values = palloc0(sizeof(Datum) * Max(nargs, 1));
	nulls = palloc(Max(nargs, 1));
	for (int i = 0; i < nargs; i++)
	{
		nulls[i] = PG_ARGISNULL(i) ? 'n' : ' ';
		values[i] = PG_ARGISNULL(i) ? (Datum)0 : PG_GETARG_DATUM(i);
	}

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	bookkeeping_depth++;
	PG_TRY();
	{
		int rc = SPI_execute_with_args(statement->sql, nargs, types, values,
									   nulls, false, 0);

		if (rc < 0)
			elog(ERROR, "bookkeeping statement of %s failed: %s", name,
				 SPI_result_code_string(rc));
		if (!statement->returns_id)
			result = (int64)SPI_processed;
		else if (SPI_processed == 1)
		{
			bool isnull;
			Datum id = SPI_getbinval(SPI_tuptable->vals[0],
									 SPI_tuptable->tupdesc, 1, &isnull);

			result = isnull ? 0 : DatumGetInt64(id);
		}
	}
	PG_FINALLY();
	{
		bookkeeping_depth--;
	}
	PG_END_TRY();
	if (SPI_finish() != SPI_OK_FINISH)
		elog(ERROR, "SPI_finish failed");
	PG_RETURN_INT64(result);
}
