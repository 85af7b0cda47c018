/*
 * server_lifetime.c
 *	  When the server last (re)started, and since when a server process
 *	  has run, read from the backend status array without the per-role
 *	  filter of pg_stat_activity.  tuner._reconcile needs both to tell the
 *	  trials and jobs an earlier server lifetime left running from live
 *	  ones, and pg_stat_activity hides backend_type and backend_start of
 *	  other roles' processes (the checkpointer's included) from a role
 *	  without pg_read_all_stats: a non-superuser's tuner.reap() then took
 *	  the postmaster's start time for the last restart and missed every
 *	  crash restart.  Only times are returned, never a query or a role.
 *	  No locking: the status array is read through the transaction's
 *	  snapshot of it (pgstat_fetch_stat_local_beentry).
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/backend_status.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(tuner_server_started_at);
PG_FUNCTION_INFO_V1(tuner_backend_started_at);

/*
 * tuner._server_started_at(): when the server last started or restarted
 * after a crash.  A crash restart keeps the postmaster's start time but
 * starts a new checkpointer, so this is the later of the two.
 */
Datum
tuner_server_started_at(PG_FUNCTION_ARGS)
{
	TimestampTz started = PgStartTime;
	int n = pgstat_fetch_stat_numbackends();
	int i;

	for (i = 1; i <= n; i++)
	{
		LocalPgBackendStatus *local = pgstat_fetch_stat_local_beentry(i);

		if (local == NULL)
			continue;
		if (local->backendStatus.st_backendType == B_CHECKPOINTER &&
			local->backendStatus.st_proc_start_timestamp > started)
			started = local->backendStatus.st_proc_start_timestamp;
	}
	PG_RETURN_TIMESTAMPTZ(started);
}

/*
 * tuner._backend_started_at(pid): when the live server process with this
 * pid started, or NULL when there is none.
 */
Datum
tuner_backend_started_at(PG_FUNCTION_ARGS)
{
	int32 pid = PG_GETARG_INT32(0);
	int n = pgstat_fetch_stat_numbackends();
	int i;

	for (i = 1; i <= n; i++)
	{
		LocalPgBackendStatus *local = pgstat_fetch_stat_local_beentry(i);

		if (local != NULL && local->backendStatus.st_procpid == pid)
			PG_RETURN_TIMESTAMPTZ(
				local->backendStatus.st_proc_start_timestamp);
	}
	PG_RETURN_NULL();
}
