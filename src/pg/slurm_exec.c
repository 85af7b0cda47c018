/*
 * slurm_exec.c
 *	  The Slurm executor's commands (src/sql/slurm.sql): run sbatch,
 *	  squeue, sacct or scancel with an argv (no shell) through the
 *	  runners' exec path (runner_exec.c: fork/exec of a checked program,
 *	  stdin given, stdout and stderr captured, a deadline), and the
 *	  settings tuner.slurm_conf, tuner.agent_path and tuner.slurm_conninfo.
 *
 *	  Why the commands and not libslurm: their options and --parsable
 *	  output are stable across Slurm releases while libslurm's ABI changes
 *	  with every one (the library is linked against one version); they
 *	  need no admin rights; and a hung controller costs a killed child,
 *	  not a hung backend.  The jobs are submitted as the server's OS user.
 */
#include "postgres.h"

#include <stdlib.h>

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"

#include "runner_exec.h"
#include "tuner_pg.h"

PG_FUNCTION_INFO_V1(tuner_slurm_command);
PG_FUNCTION_INFO_V1(tuner_slurm_agent_path);

static char *slurm_conf = NULL;
static char *agent_path = NULL;
static char *slurm_conninfo = NULL;

/* Define the settings; called by _PG_init. */
void
tuner_define_slurm_settings(void)
{
	DefineCustomStringVariable(
		"tuner.slurm_conf",
		"The slurm.conf the Slurm commands of the Slurm executor read "
		"(their SLURM_CONF).",
		"Empty: the server's environment or Slurm's default.", &slurm_conf, "",
		PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomStringVariable(
		"tuner.agent_path",
		"The tuner-agent a Slurm job runs (an absolute path on the nodes).",
		"Empty: tuner-agent in PostgreSQL's bindir.", &agent_path, "",
		PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomStringVariable(
		"tuner.slurm_conninfo",
		"The libpq connection string a Slurm job's agent connects with.",
		"Empty: this server's first Unix socket directory and port, the "
		"database and role of the job.",
		&slurm_conninfo, "", PGC_SUSET, 0, NULL, NULL, NULL);
}

/*
 * tuner._slurm_command(command text, args text[], input text,
 *	   OUT exit_code int, OUT stdout text, OUT stderr text)
 */
Datum
tuner_slurm_command(PG_FUNCTION_ARGS)
{
	static const char *const allowed[] = {"sbatch", "squeue", "sacct",
										  "scancel"};
	const char *command;
	TunerRunSpec spec;
	TunerRunResult r;
	TupleDesc desc;
	Datum values[3];
	bool nulls[3] = {false, false, false};
	Datum *elems;
	bool *elem_nulls;
	int n = 0;
	int i;
	bool ok = false;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						errmsg("command and args must not be NULL")));
	command = text_to_cstring(PG_GETARG_TEXT_PP(0));
	for (i = 0; i < (int)lengthof(allowed); i++)
		if (strcmp(command, allowed[i]) == 0)
			ok = true;
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("\"%s\" is not a Slurm command the executor runs",
						command),
				 errhint("The commands are sbatch, squeue, sacct and "
						 "scancel.")));
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(1), TEXTOID, -1, false,
					  TYPALIGN_INT, &elems, &elem_nulls, &n);
	memset(&spec, 0, sizeof(spec));
	spec.program = command;
	spec.nargs = n;
	spec.args = palloc0(sizeof(char *) * (n + 1));
	for (i = 0; i < n; i++)
	{
		if (elem_nulls[i])
			ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
							errmsg("args must not hold NULL")));
		((const char **)spec.args)[i] = TextDatumGetCString(elems[i]);
	}
	spec.input = PG_ARGISNULL(2) ? "" : text_to_cstring(PG_GETARG_TEXT_PP(2));
	spec.timeout_s = 60;
	spec.grace_s = 5;
	if (slurm_conf != NULL && slurm_conf[0] != '\0')
		setenv("SLURM_CONF", slurm_conf, 1);
	tuner_run_program(&spec, &r);

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "tuner._slurm_command must return a record");
	desc = BlessTupleDesc(desc);
	if (r.started && r.exit_code >= 0 && !r.timed_out)
		values[0] = Int32GetDatum(r.exit_code);
	else
		nulls[0] = true;
	values[1] = CStringGetTextDatum(r.out ? r.out : "");
	if (!r.started || r.timed_out || r.exit_code < 0)
		values[2] = CStringGetTextDatum(psprintf(
			"%s %s%s", command, r.timed_out ? "timed out after 60 s; " : "",
			r.exit_text ? r.exit_text : "did not run"));
	else
		values[2] = CStringGetTextDatum(r.err_tail ? r.err_tail : "");
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

/* tuner._slurm_agent_path(): tuner.agent_path, else bindir/tuner-agent. */
Datum
tuner_slurm_agent_path(PG_FUNCTION_ARGS)
{
	char bindir[MAXPGPATH];

	if (agent_path != NULL && agent_path[0] != '\0')
		PG_RETURN_TEXT_P(cstring_to_text(agent_path));
	strlcpy(bindir, my_exec_path, sizeof(bindir));
	get_parent_directory(bindir);
	PG_RETURN_TEXT_P(cstring_to_text(psprintf("%s/tuner-agent", bindir)));
}
