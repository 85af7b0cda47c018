/*
 * worker.c
 *	  Trials run by the server: the dynamic background workers behind
 *	  tuner.run() and the synchronous tuner.step().
 *
 *	  tuner.run() inserts a tuner.job row (tuner._run_prepare) and registers
 *	  dynamic workers (BGW_NEVER_RESTART, no
 *	  shared_preload_libraries needed) with the database, role, job and the
 *	  launching transaction's xid in bgw_extra.  Each worker first waits for
 *	  that transaction to end (XactLockTableWait), so it sees the job row
 *	  once tuner.run() commits and exits quietly if it rolled back.  Then it
 *	  loops, each step in its own transaction: claim a trial
 *	  (tuner._claim_trial: locks the job row, suggests, records the worker),
 *	  run the runner outside any transaction (runner_exec.c), record the
 *	  outcome (tuner._finish_trial).  Between trials, and about once a
 *	  second while a runner runs, it looks at the job's stop flag
 *	  (tuner.stop()); every few seconds it also renews the trial's lease
 *	  (tuner._worker_heartbeat), so tuner.reap() leaves it running.
 *
 *	  Signals: SIGTERM (pg_terminate_backend, shutdown) acts like die()
 *	  except while a runner runs; then it only sets a flag, the runner's
 *	  group is stopped (SIGTERM, SIGKILL after the grace period), the trial
 *	  is recorded as interrupted and the worker exits.  SIGINT
 *	  (pg_cancel_backend) cancels the current trial (interrupted,
 *	  "cancelled") and the worker goes on with the next.
 *
 *	  tuner.step() does suggest + run + record in the caller's transaction
 *	  with the same runner machinery.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "runner_exec.h"

PG_FUNCTION_INFO_V1(tuner_run);
PG_FUNCTION_INFO_V1(tuner_step);

PGDLLEXPORT void tuner_worker_main(Datum main_arg);

/* What a worker gets in bgw_extra (plain values, no pointers). */
typedef struct TunerWorkerArgs
{
	Oid dboid;
	Oid roleoid;
	TransactionId launcher_xid;
	int32 index; /* 1-based */
	int32 count;
	int64 job_id;
} TunerWorkerArgs;

StaticAssertDecl(sizeof(TunerWorkerArgs) <= BGW_EXTRALEN,
				 "TunerWorkerArgs must fit in bgw_extra");

/* What running one trial needs (tuner._trial_launch). */
typedef struct TrialLaunch
{
	int64 trial;
	char *study;
	int32 number;
	char *runner;
	char *program;
	char **args;
	int nargs;
	char *input;
	double timeout_s;
	double grace_s;
	char *refusal; /* why the input must not reach the runner, or NULL */
} TrialLaunch;

/* State of the check callback while a runner runs. */
typedef struct RunCheckState
{
	const TrialLaunch *launch;
	int64 job_id; /* 0 in tuner.step */
	int64 trial_id;
	const char *label;
	double renewed_s;   /* elapsed time of the last lease renewal */
	MemoryContext cxt;  /* lives as long as the trial */
	const char *pruned; /* the study's pruning rule stopped it: why */
} RunCheckState;

/*
 * How often a worker renews its trial's lease while the runner runs: well
 * inside the shortest lease a study is likely to set, without writing the
 * trial row every second.
 */
#define LEASE_RENEW_S 3.0

static volatile sig_atomic_t got_sigterm = false;
static volatile sig_atomic_t in_runner = false;

/*
 * SIGTERM in a worker: die() normally; while a runner runs, a flag that the
 * runner loop turns into an orderly stop.
 */
static void
tuner_worker_sigterm(SIGNAL_ARGS)
{
	int save_errno = errno;

	got_sigterm = true;
	if (in_runner)
		SetLatch(MyLatch);
	else
		die(postgres_signal_arg);
	errno = save_errno;
}

/* Run one SQL statement with int8/text arguments; returns SPI's result. */
static int
run_sql(const char *sql, int nargs, Oid *types, Datum *values,
		const char *nulls, bool read_only)
{
	int rc =
		SPI_execute_with_args(sql, nargs, types, values, nulls, read_only, 0);

	if (rc < 0)
		elog(ERROR, "SPI_execute_with_args failed (%d): %s", rc, sql);
	return rc;
}

/* The first column of the first row as a C string in cxt (NULL if NULL). */
static char *
first_value(MemoryContext cxt)
{
	MemoryContext old;
	char *value;

	if (SPI_processed < 1)
		return NULL;
	old = MemoryContextSwitchTo(cxt);
	value = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	MemoryContextSwitchTo(old);
	return value;
}

/* Load what running a trial needs, into cxt.  SPI must be connected. */
static void
load_launch(int64 trial, TrialLaunch *launch, MemoryContext cxt)
{
	Oid types[1] = {INT8OID};
	Datum values[1] = {Int64GetDatum(trial)};
	HeapTuple tuple;
	TupleDesc desc;
	bool isnull;
	Datum args;
	MemoryContext old;

	run_sql(
		"SELECT study, number, runner, program, args, input, timeout_s, grace_s FROM tuner._trial_launch($1)",
		1, types, values, NULL, false);
	if (SPI_processed != 1)
		elog(ERROR, "no launch data for trial " INT64_FORMAT, trial);
	tuple = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;

	old = MemoryContextSwitchTo(cxt);
	launch->trial = trial;
	launch->study = SPI_getvalue(tuple, desc, 1);
	launch->number = DatumGetInt32(SPI_getbinval(tuple, desc, 2, &isnull));
	launch->runner = SPI_getvalue(tuple, desc, 3);
	launch->program = SPI_getvalue(tuple, desc, 4);
	args = SPI_getbinval(tuple, desc, 5, &isnull);
	launch->nargs = 0;
	launch->args = NULL;
	if (!isnull)
	{
		ArrayType *array = DatumGetArrayTypeP(args);
		Datum *elems;
		bool *elem_nulls;
		int n;
		int i;

		deconstruct_array(array, TEXTOID, -1, false, TYPALIGN_INT, &elems,
						  &elem_nulls, &n);
		launch->args = palloc(mul_size(Max(n, 1), sizeof(char *)));
		for (i = 0; i < n; i++)
			if (!elem_nulls[i])
				launch->args[launch->nargs++] = TextDatumGetCString(elems[i]);
	}
	launch->input = SPI_getvalue(tuple, desc, 6);
	launch->timeout_s = DatumGetFloat8(SPI_getbinval(tuple, desc, 7, &isnull));
	launch->grace_s = DatumGetFloat8(SPI_getbinval(tuple, desc, 8, &isnull));
	MemoryContextSwitchTo(old);

	/*
	 * The configuration was checked when the trial was written; the space
	 * may have changed since, so it is checked again right before exec.
	 */
	run_sql("SELECT tuner._runner_input_problem($1)", 1, types, values, NULL,
			false);
	launch->refusal = first_value(cxt);
}

/*
 * Record a trial's outcome with tuner._finish_trial, then the machine's
 * context of its run; forced_state and
 * forced_reason override the protocol (NULL: parse the output).  Returns
 * the summary jsonb as text, in cxt.  SPI must be connected.
 */
static char *
record_outcome(int64 trial, const TunerRunResult *r, const char *forced_state,
			   const char *forced_reason, MemoryContext cxt)
{
	Oid types[8] = {INT8OID, INT4OID,   TEXTOID, TEXTOID,
					TEXTOID, FLOAT8OID, TEXTOID, TEXTOID};
	Datum values[8];
	char nulls[8] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
	char *summary;

	values[0] = Int64GetDatum(trial);
	values[1] = Int32GetDatum(r->exit_code);
	if (!r->started || r->exit_code < 0)
		nulls[1] = 'n';
	values[2] = CStringGetTextDatum(r->exit_text ? r->exit_text : "");
	if (r->exit_text == NULL)
		nulls[2] = 'n';
	values[3] = CStringGetTextDatum(r->out ? r->out : "");
	values[4] = CStringGetTextDatum(r->err_tail ? r->err_tail : "");
	values[5] = Float8GetDatum(r->elapsed_s);
	values[6] = CStringGetTextDatum(forced_state ? forced_state : "");
	if (forced_state == NULL)
		nulls[6] = 'n';
	values[7] = CStringGetTextDatum(forced_reason ? forced_reason : "");
	if (forced_reason == NULL)
		nulls[7] = 'n';
	run_sql("SELECT tuner._finish_trial($1, $2, $3, $4, $5, $6, $7, $8)::text",
			8, types, values, nulls, false);
	summary = first_value(cxt);
	/* how busy the machine was meanwhile (measurement_context.sql) */
	if (r->started && r->context[0] != '\0')
	{
		Oid ctypes[2] = {INT8OID, TEXTOID};
		Datum cvalues[2];

		cvalues[0] = Int64GetDatum(trial);
		cvalues[1] = CStringGetTextDatum(r->context);
		run_sql("SELECT tuner._record_context($1, $2::jsonb)", 2, ctypes,
				cvalues, NULL, false);
	}
	return summary;
}

/*
 * The state and reason that override the protocol for a result: a runner
 * that never started, timed out, was stopped, or printed too much.
 */
static void
forced_outcome(const TrialLaunch *launch, const TunerRunResult *r,
			   const char **state, const char **reason)
{
	*state = NULL;
	*reason = NULL;
	if (!r->started)
	{
		*state = "failed";
		*reason = r->exit_text;
	}
	else if (r->progress_error != NULL)
	{
		*state = "failed";
		*reason = psprintf("%s; the runner's process group was stopped",
						   r->progress_error);
	}
	else if (r->stop_reason != NULL)
	{
		*state = "interrupted";
		*reason = r->stop_reason;
	}
	else if (r->timed_out)
	{
		*state = "failed";
		*reason = psprintf(
			"runner timed out after %g s (trial_timeout_s); its process group was killed",
			launch->timeout_s);
	}
	else if (r->out_truncated)
	{
		*state = "failed";
		*reason = psprintf("runner printed more than %d bytes on stdout",
						   TUNER_STDOUT_MAX);
	}
}

/* Show what this process does in pg_stat_activity. */
static void
report_running(const RunCheckState *st, double elapsed_s)
{
	char *activity;

	activity = psprintf(
		"tuner: study \"%s\" trial %d running for %.0f s (runner \"%s\", %s)",
		st->launch->study, st->launch->number, elapsed_s, st->launch->runner,
		st->label);
	pgstat_report_activity(STATE_RUNNING, activity);
	pfree(activity);
}

/* Start a transaction with SPI and a snapshot (worker). */
static void
worker_begin(void)
{
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	PushActiveSnapshot(GetTransactionSnapshot());
}

/* Commit what worker_begin started. */
static void
worker_commit(void)
{
	if (SPI_finish() != SPI_OK_FINISH)
		elog(ERROR, "SPI_finish failed");
	PopActiveSnapshot();
	CommitTransactionCommand();
	pgstat_report_stat(false);
}

/*
 * The worker's check while a runner runs: SIGTERM stops it at once; about
 * once a second it shows the elapsed time, reloads the configuration on
 * SIGHUP and looks at the job's stop flag.
 */
static const char *
worker_check(void *arg, bool slow, double elapsed_s)
{
	RunCheckState *st = (RunCheckState *)arg;
	Oid types[2] = {INT8OID, INT8OID};
	Datum values[2];
	bool renew;
	bool stop;
	char *v;
	MemoryContext old;

	if (got_sigterm)
		return "worker terminated";
	if (!slow)
		return NULL;
	if (ConfigReloadPending)
	{
		ConfigReloadPending = false;
		ProcessConfigFile(PGC_SIGHUP);
	}
	values[0] = Int64GetDatum(st->job_id);
	values[1] = Int64GetDatum(st->trial_id);
	renew = elapsed_s - st->renewed_s >= LEASE_RENEW_S;
	old = CurrentMemoryContext;
	worker_begin();
	if (renew)
	{
		/* The trial's lease (tuner.heartbeat) lives while the runner does. */
		run_sql("SELECT tuner._worker_heartbeat($1)", 1, &types[1], &values[1],
				NULL, false);
		st->renewed_s = elapsed_s;
	}
	run_sql("SELECT tuner._job_stop_requested($1)", 1, types, values, NULL,
			true);
	v = first_value(CurrentMemoryContext);
	stop = v == NULL || strcmp(v, "t") == 0;
	worker_commit();
	MemoryContextSwitchTo(old);
	report_running(st, elapsed_s);
	return stop ? "stopped" : NULL;
}

/*
 * Store a batch of progress lines with tuner.report_progress, in one
 * subtransaction, and unless final ask tuner.should_stop.  A row that
 * tuner.report_progress refuses fails the trial (*failed), as a bad line
 * does; a cancel still propagates.  SPI must be connected.
 */
static const char *
store_progress(RunCheckState *st, const TunerProgressBatch *batch, bool final,
			   bool *failed)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	Oid types[3] = {INT8OID, FLOAT8OID, TEXTOID};
	Datum values[3];
	const char *volatile reason = NULL;
	volatile bool stop = false;
	int i;

	values[0] = Int64GetDatum(st->launch->trial);
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		for (i = 0; i < batch->n; i++)
		{
			values[1] = Float8GetDatum(batch->steps[i]);
			values[2] = CStringGetTextDatum(batch->metrics[i]);
			run_sql("SELECT tuner.report_progress($1, $2, $3::jsonb)", 3,
					types, values, NULL, false);
		}
		if (!final)
		{
			char *v;

			run_sql("SELECT tuner.should_stop($1)", 1, types, values, NULL,
					false);
			v = first_value(CurrentMemoryContext);
			stop = v != NULL && strcmp(v, "t") == 0;
		}
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED ||
			edata->elevel > ERROR)
			PG_RE_THROW();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		*failed = true;
		reason = MemoryContextStrdup(
			st->cxt,
			psprintf("runner progress was refused: %s", edata->message));
	}
	PG_END_TRY();
	if (stop)
	{
		st->pruned = MemoryContextStrdup(
			st->cxt,
			psprintf("pruned at step %g by the study's pruning rule; its "
					 "process group was stopped",
					 batch->n > 0 ? batch->steps[batch->n - 1] : 0.0));
		reason = st->pruned;
	}
	return reason;
}

/* The worker's progress callback: store_progress in a transaction. */
static const char *
worker_progress(void *arg, const TunerProgressBatch *batch, bool final,
				bool *failed)
{
	RunCheckState *st = (RunCheckState *)arg;
	MemoryContext old = CurrentMemoryContext;
	const char *reason;

	if (got_sigterm)
		return NULL;
	worker_begin();
	pgstat_report_activity(STATE_RUNNING, "tuner: storing a trial's progress");
	reason = store_progress(st, batch, final, failed);
	worker_commit();
	MemoryContextSwitchTo(old);
	return reason;
}

/* tuner.step's progress callback, in the caller's transaction. */
static const char *
step_progress(void *arg, const TunerProgressBatch *batch, bool final,
			  bool *failed)
{
	return store_progress((RunCheckState *)arg, batch, final, failed);
}

/*
 * Record the pruning of a trial the study's rule stopped (tuner.prune),
 * unless something else ended it meanwhile.  SPI must be connected.
 */
static void
record_pruned(int64 trial, const char *reason)
{
	Oid types[2] = {INT8OID, TEXTOID};
	Datum values[2];

	values[0] = Int64GetDatum(trial);
	values[1] = CStringGetTextDatum(reason);
	run_sql("SELECT tuner.prune(x.id, $2) FROM tuner.trial x "
			"WHERE x.id = $1 AND x.state = 'running'",
			2, types, values, NULL, false);
}

/* tuner.step's check: show the elapsed time. */
static const char *
step_check(void *arg, bool slow, double elapsed_s)
{
	if (slow)
		report_running((RunCheckState *)arg, elapsed_s);
	return NULL;
}

/* Run the runner of a loaded trial. */
static void
run_trial(const TrialLaunch *launch, RunCheckState *st, TunerRunCheck check,
		  TunerRunProgress progress, TunerRunResult *result)
{
	TunerRunSpec spec;

	if (launch->refusal != NULL)
	{
		/* never started: forced_outcome fails the trial with the reason */
		memset(result, 0, sizeof(*result));
		result->exit_code = -1;
		result->exit_text = launch->refusal;
		return;
	}
	memset(&spec, 0, sizeof(spec));
	spec.program = launch->program;
	spec.args = (const char *const *)launch->args;
	spec.nargs = launch->nargs;
	spec.input = launch->input;
	spec.timeout_s = launch->timeout_s;
	spec.grace_s = launch->grace_s;
	spec.check = check;
	spec.check_arg = st;
	spec.progress = progress;
	spec.progress_arg = st;
	report_running(st, 0);
	tuner_run_program(&spec, result);
}

/*
 * Register n dynamic background workers for a job inserted by the current
 * transaction; returns how many started.
 */
static int
launch_workers(int64 job, int32 n)
{
	TunerWorkerArgs args;
	HeapTuple role;
	bool can_login;
	int started = 0;
	int i;

	tuner_check_program_privilege_for("run a runner");
	if (n < 1 || n > 64)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the number of workers must be between 1 and 64")));
	if (IsBinaryUpgrade)
		ereport(
			ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("cannot start tuner workers during a binary upgrade")));

	role = SearchSysCache1(AUTHOID, ObjectIdGetDatum(GetUserId()));
	if (!HeapTupleIsValid(role))
		elog(ERROR, "cache lookup failed for role %u", GetUserId());
	can_login = ((Form_pg_authid)GETSTRUCT(role))->rolcanlogin;
	ReleaseSysCache(role);
	if (!can_login)
		ereport(
			ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg(
				 "role \"%s\" cannot log in, so tuner workers cannot run as it",
				 GetUserNameFromId(GetUserId(), false)),
			 errhint(
				 "Call tuner.run() as a role with LOGIN (after SET ROLE, the current role is used).")));

	memset(&args, 0, sizeof(args));
	args.dboid = MyDatabaseId;
	args.roleoid = GetUserId();
	args.launcher_xid = GetTopTransactionId();
	args.count = n;
	args.job_id = job;

	for (i = 0; i < n; i++)
	{
		BackgroundWorker worker;
		BackgroundWorkerHandle *handle;
		BgwHandleStatus status;
		pid_t pid;

		memset(&worker, 0, sizeof(worker));
		worker.bgw_flags =
			BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
		worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
		worker.bgw_restart_time = BGW_NEVER_RESTART;
		strlcpy(worker.bgw_library_name, "tuner", BGW_MAXLEN);
		strlcpy(worker.bgw_function_name, "tuner_worker_main", BGW_MAXLEN);
		snprintf(worker.bgw_name, BGW_MAXLEN,
				 "tuner worker %d/%d of job " INT64_FORMAT, i + 1, n, job);
		strlcpy(worker.bgw_type, "tuner worker", BGW_MAXLEN);
		args.index = i + 1;
		memcpy(worker.bgw_extra, &args, sizeof(args));
		worker.bgw_main_arg = Int32GetDatum(i + 1);
		worker.bgw_notify_pid = MyProcPid;

		if (!RegisterDynamicBackgroundWorker(&worker, &handle))
			break;
		status = WaitForBackgroundWorkerStartup(handle, &pid);
		if (status == BGWH_POSTMASTER_DIED)
			ereport(
				ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("cannot start tuner workers without the postmaster")));
		if (status == BGWH_STARTED)
			started++;
	}
	if (started == 0)
		ereport(
			ERROR,
			(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
			 errmsg("could not start a tuner background worker"),
			 errhint(
				 "Every background worker slot may be in use; raise max_worker_processes (now %d).",
				 max_worker_processes)));
	if (started < n)
		ereport(
			NOTICE,
			(errmsg("started %d of %d tuner workers", started, n),
			 errhint(
				 "Raise max_worker_processes (now %d) to run more at a time.",
				 max_worker_processes)));
	return started;
}

/*
 * tuner.run(study text, trials int, parallel int): insert the job
 * (tuner._run_prepare) and launch its workers.
 */
Datum
tuner_run(PG_FUNCTION_ARGS)
{
	Oid types[3] = {TEXTOID, INT4OID, INT4OID};
	Datum values[3];
	char nulls[3] = {' ', ' ', ' '};
	Oid types2[2] = {INT8OID, INT4OID};
	Datum values2[2];
	int i;
	char *v;
	int64 job;
	int32 trials;
	int32 parallel;
	int started;

	tuner_check_program_privilege_for("run a runner");
	for (i = 0; i < 3; i++)
	{
		values[i] = PG_ARGISNULL(i) ? (Datum)0 : PG_GETARG_DATUM(i);
		if (PG_ARGISNULL(i))
			nulls[i] = 'n';
	}
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	run_sql("SELECT tuner._run_prepare($1, $2, $3)", 3, types, values, nulls,
			false);
	v = first_value(CurrentMemoryContext);
	if (v == NULL)
		elog(ERROR, "tuner._run_prepare returned no job");
	job = pg_strtoint64(v);
	trials = PG_GETARG_INT32(1);
	parallel = PG_GETARG_INT32(2);
	started = launch_workers(job, Min(trials, parallel));
	values2[0] = Int64GetDatum(job);
	values2[1] = Int32GetDatum(started);
	run_sql("SELECT tuner._job_set_launched($1, $2)", 2, types2, values2, NULL,
			false);
	if (SPI_finish() != SPI_OK_FINISH)
		elog(ERROR, "SPI_finish failed");
	PG_RETURN_INT32(started);
}

/*
 * Claim the next trial of the job (0 when there is none), and load what
 * running it needs into cxt.
 */
static int64
worker_claim(const TunerWorkerArgs *args, const char *name,
			 TrialLaunch *launch, MemoryContext cxt)
{
	Oid types[2] = {INT8OID, TEXTOID};
	Datum values[2];
	char *v;
	int64 trial = 0;

	values[0] = Int64GetDatum(args->job_id);
	values[1] = CStringGetTextDatum(name);
	worker_begin();
	pgstat_report_activity(STATE_RUNNING, "tuner: suggesting a trial");
	run_sql("SELECT tuner._claim_trial($1, $2)", 2, types, values, NULL,
			false);
	v = first_value(cxt);
	if (v != NULL)
	{
		trial = pg_strtoint64(v);
		load_launch(trial, launch, cxt);
	}
	worker_commit();
	return trial;
}

/*
 * Record an outcome in a transaction of its own (worker); pruned (or
 * NULL) says why the study's pruning rule stopped it.
 */
static void
worker_record(int64 trial, const TunerRunResult *r, const char *state,
			  const char *reason, const char *pruned, MemoryContext cxt)
{
	worker_begin();
	pgstat_report_activity(STATE_RUNNING, "tuner: recording a trial");
	if (pruned != NULL)
		record_pruned(trial, pruned);
	(void)record_outcome(trial, r, state, reason, cxt);
	worker_commit();
}

/*
 * The Slurm executor (src/sql/slurm.sql): submit the claimed trial as a
 * Slurm job, then once a second reconcile it with the job
 * (tuner._slurm_poll) until both are over and the job's accounting is in
 * the trial.  tuner.stop() or SIGTERM cancel the job (scancel) and
 * interrupt the trial; after a stop the loop goes on until the cancelled
 * job's accounting is recorded, after SIGTERM it returns at once.  Each
 * step is a transaction of its own.
 */
static void
run_slurm_trial(const TunerWorkerArgs *args, int64 trial, const char *label)
{
	Oid types[3] = {INT8OID, INT8OID, TEXTOID};
	Datum values[3];
	char *v;
	int64 slurm_job;
	bool cancelled = false;
	int polls = 0;

	values[0] = Int64GetDatum(trial);
	worker_begin();
	pgstat_report_activity(STATE_RUNNING, "tuner: submitting a Slurm job");
	run_sql("SELECT tuner._slurm_submit($1)", 1, types, values, NULL, false);
	v = first_value(CurrentMemoryContext);
	slurm_job = v == NULL ? 0 : pg_strtoint64(v);
	worker_commit();
	if (slurm_job == 0)
		return;
	values[1] = Int64GetDatum(slurm_job);
	in_runner = true;
	for (;;)
	{
		bool stop;
		bool done;
		char *activity;

		if (polls++ > 0 && !got_sigterm)
		{
			(void)WaitLatch(MyLatch,
							WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							1000L, PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
		}
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		worker_begin();
		if (!cancelled)
		{
			Datum job = Int64GetDatum(args->job_id);

			run_sql("SELECT tuner._job_stop_requested($1)", 1, types, &job,
					NULL, true);
			v = first_value(CurrentMemoryContext);
			stop = got_sigterm || v == NULL || strcmp(v, "t") == 0;
			if (stop)
			{
				values[2] = CStringGetTextDatum(
					got_sigterm ? "worker terminated" : "stopped");
				run_sql("SELECT tuner._slurm_cancel($1, $2, $3)", 3, types,
						values, NULL, false);
				cancelled = true;
			}
		}
		if (got_sigterm)
		{
			worker_commit();
			break;
		}
		run_sql("SELECT tuner._slurm_poll($1, $2)", 2, types, values, NULL,
				false);
		v = first_value(CurrentMemoryContext);
		done = v == NULL || strcmp(v, "done") == 0;
		worker_commit();
		if (done)
			break;
		activity = psprintf("tuner: trial id " INT64_FORMAT
							" is Slurm job " INT64_FORMAT " (%s)",
							trial, slurm_job, label);
		pgstat_report_activity(STATE_RUNNING, activity);
		pfree(activity);
	}
	in_runner = false;
}

/* Main of a tuner background worker (see the header comment). */
void
tuner_worker_main(Datum main_arg)
{
	TunerWorkerArgs args;
	char name[64];
	char *volatile job_error = NULL;
	MemoryContext trial_cxt;
	Oid types[2] = {INT8OID, TEXTOID};
	Datum values[2];
	char nulls[2] = {' ', ' '};
	char *executor;
	bool slurm;

	memcpy(&args, MyBgworkerEntry->bgw_extra, sizeof(args));
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, tuner_worker_sigterm);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(args.dboid, args.roleoid, 0);
	snprintf(name, sizeof(name), "job " INT64_FORMAT " worker %d/%d",
			 args.job_id, args.index, args.count);
	pgstat_report_appname("tuner worker");

	/* Wait until tuner.run()'s transaction ends; then reconcile. */
	worker_begin();
	pgstat_report_activity(STATE_RUNNING,
						   "tuner: waiting for tuner.run() to commit");
	XactLockTableWait(args.launcher_xid, NULL, NULL, XLTW_None);
	worker_commit();
	worker_begin();
	run_sql("SELECT tuner._reconcile()", 0, NULL, NULL, NULL, false);
	worker_commit();

	/* Where the job's trials run (the study's setting executor). */
	worker_begin();
	values[0] = Int64GetDatum(args.job_id);
	run_sql("SELECT tuner._study_executor(j.study_id) FROM tuner.job j "
			"WHERE j.id = $1",
			1, types, values, NULL, true);
	executor = first_value(CurrentMemoryContext);
	slurm = executor != NULL && strcmp(executor, "slurm") == 0;
	worker_commit();

	trial_cxt = AllocSetContextCreate(TopMemoryContext, "tuner worker trial",
									  ALLOCSET_DEFAULT_SIZES);
	for (;;)
	{
		volatile int64 trial = 0;
		volatile bool recorded = false;
		volatile bool done = false;

		MemoryContextReset(trial_cxt);
		CHECK_FOR_INTERRUPTS();
		if (got_sigterm)
			break;
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}

		PG_TRY();
		{
			TrialLaunch *launch =
				MemoryContextAllocZero(trial_cxt, sizeof(TrialLaunch));
			TunerRunResult *result =
				MemoryContextAllocZero(trial_cxt, sizeof(TunerRunResult));
			RunCheckState st;
			const char *state;
			const char *reason;

			trial = worker_claim(&args, name, launch, trial_cxt);
			if (trial == 0)
				done = true;
			else if (slurm)
			{
				run_slurm_trial(&args, trial, name);
				recorded = true;
				if (got_sigterm)
					done = true;
			}
			else
			{
				MemoryContext old = MemoryContextSwitchTo(trial_cxt);

				st.launch = launch;
				st.job_id = args.job_id;
				st.trial_id = trial;
				st.label = name;
				st.renewed_s = 0;
				st.cxt = trial_cxt;
				st.pruned = NULL;
				in_runner = true;
				run_trial(launch, &st, worker_check, worker_progress, result);
				in_runner = false;
				forced_outcome(launch, result, &state, &reason);
				MemoryContextSwitchTo(old);
				worker_record(trial, result, state, reason,
							  result->progress_error == NULL ? st.pruned
															 : NULL,
							  trial_cxt);
				recorded = true;
			}
		}
		PG_CATCH();
		{
			ErrorData *edata;
			TunerRunResult empty;

			in_runner = false;
			MemoryContextSwitchTo(trial_cxt);
			EmitErrorReport();
			edata = CopyErrorData();
			FlushErrorState();
			AbortCurrentTransaction();
			if (trial != 0 && !recorded)
			{
				memset(&empty, 0, sizeof(empty));
				empty.exit_code = -1;
				if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED)
					worker_record(trial, &empty, "interrupted",
								  psprintf("cancelled: %s", edata->message),
								  NULL, trial_cxt);
				else
					worker_record(
						trial, &empty, "failed",
						psprintf("tuner worker error: %s", edata->message),
						NULL, trial_cxt);
			}
			if (edata->sqlerrcode != ERRCODE_QUERY_CANCELED)
			{
				job_error =
					MemoryContextStrdup(TopMemoryContext, edata->message);
				done = true;
			}
		}
		PG_END_TRY();
		pgstat_report_activity(STATE_IDLE, NULL);
		if (done)
			break;
	}

	/* This worker is done with the job. */
	values[0] = Int64GetDatum(args.job_id);
	values[1] = CStringGetTextDatum(job_error ? job_error : "");
	if (job_error == NULL)
		nulls[1] = 'n';
	worker_begin();
	run_sql("SELECT tuner._job_worker_done($1, $2)", 2, types, values, nulls,
			false);
	worker_commit();
	pgstat_report_activity(STATE_IDLE, NULL);
	proc_exit(0);
}

/*
 * tuner.step(study text): one trial, synchronously, in the caller's
 * transaction: suggest, run the runner, record its outcome.  A runner that
 * fails, hangs past trial_timeout_s or prints garbage gives a failed trial
 * and a normal return; a cancel or error kills the runner and rolls the
 * whole step back (no trial is left behind).
 */
Datum
tuner_step(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = CurrentMemoryContext;
	Oid types[1] = {TEXTOID};
	Datum values[1];
	char nulls[1] = {' '};
	char *v;
	int64 trial;
	TrialLaunch launch;
	TunerRunResult result;
	RunCheckState st;
	const char *state;
	const char *reason;
	char *summary;

	tuner_check_program_privilege_for("run a runner");
	values[0] = PG_ARGISNULL(0) ? (Datum)0 : PG_GETARG_DATUM(0);
	if (PG_ARGISNULL(0))
		nulls[0] = 'n';

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	run_sql("SELECT tuner._step_begin($1)", 1, types, values, nulls, false);
	v = first_value(cxt);
	if (v == NULL)
		elog(ERROR, "tuner._step_begin returned no trial");
	trial = pg_strtoint64(v);
	memset(&launch, 0, sizeof(launch));
	load_launch(trial, &launch, cxt);

	st.launch = &launch;
	st.job_id = 0;
	st.trial_id = 0;
	st.label = "tuner.step";
	st.renewed_s = 0;
	st.cxt = cxt;
	st.pruned = NULL;
	run_trial(&launch, &st, step_check, step_progress, &result);
	forced_outcome(&launch, &result, &state, &reason);
	if (st.pruned != NULL && result.progress_error == NULL)
		record_pruned(trial, st.pruned);
	summary = record_outcome(trial, &result, state, reason, cxt);
	if (SPI_finish() != SPI_OK_FINISH)
		elog(ERROR, "SPI_finish failed");
	if (debug_query_string != NULL)
		pgstat_report_activity(STATE_RUNNING, debug_query_string);

	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(summary)));
}
