/*
 * suggest_policy_glue.c
 *	  SQL entry point of the suggestion policy (src/core/suggest_policy.h):
 *	  tuner._suggest_plan(study_algorithm, sapphire_phase, sapphire_model,
 *	  d, n_initial, n_aux, n_transfer, n_clusters, n_observed, n_failed)
 *	  returns a tuner.suggest_plan: the model code to run, the design
 *	  length and which data the model learns from.  tuner._plan_suggestion
 *	  gathers the counts.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"

#include "suggest_policy.h"
#include "tuner_pg.h"

PG_FUNCTION_INFO_V1(tuner_suggest_plan);

static SapphirePhase
read_sapphire_phase(FunctionCallInfo fcinfo, StudyAlgorithm algorithm)
{
	char *phase;

	if (algorithm != STUDY_ALG_SAPPHIRE)
		return SAPPHIRE_NONE;
	tuner_require_arg(fcinfo, 1, "sapphire_phase");
	phase = text_to_cstring(PG_GETARG_TEXT_PP(1));
	if (strcmp(phase, "explore") == 0)
		return SAPPHIRE_EXPLORE;
	if (strcmp(phase, "model") == 0)
		return SAPPHIRE_MODEL;
	ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					errmsg("unknown sapphire phase \"%s\"", phase),
					errhint("The phases are explore and model.")));
	return SAPPHIRE_NONE;
}

Datum
tuner_suggest_plan(PG_FUNCTION_ARGS)
{
	static const char *const count_names[] = {
		"d",          "n_initial",  "n_aux",   "n_transfer",
		"n_clusters", "n_observed", "n_failed"};
	SuggestPolicyInput in;
	SuggestPlan plan;
	TunerStatus status;
	TupleDesc tupdesc;
	Datum values[4];
	bool nulls[4] = {false, false, false, false};
	char *algorithm;
	int study_algorithm;
	int argno;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tuner_require_arg(fcinfo, 0, "study_algorithm");
	for (argno = 3; argno <= 9; argno++)
		tuner_require_arg(fcinfo, argno, count_names[argno - 3]);
	algorithm = text_to_cstring(PG_GETARG_TEXT_PP(0));
	study_algorithm = study_algorithm_from_name(algorithm);
	if (study_algorithm < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown algorithm \"%s\"", algorithm),
				 errhint("The algorithms are gp-ei, icm, clustered-icm, "
						 "random and sapphire.")));
	memset(&in, 0, sizeof(in));
	in.algorithm = (StudyAlgorithm)study_algorithm;
	in.sapphire_phase = read_sapphire_phase(fcinfo, in.algorithm);
	in.sapphire_icm =
		!PG_ARGISNULL(2) &&
		strcmp(text_to_cstring(PG_GETARG_TEXT_PP(2)), "icm") == 0;
	in.d = PG_GETARG_INT32(3);
	in.n_initial = PG_GETARG_INT32(4);
	in.n_aux = PG_GETARG_INT32(5);
	in.n_transfer = PG_GETARG_INT32(6);
	in.n_clusters = PG_GETARG_INT32(7);
	in.n_observed = PG_GETARG_INT32(8);
	in.n_failed = PG_GETARG_INT32(9);
	tuner_status_clear(&status);
	if (suggest_policy_plan(&in, &plan, &status) != TUNER_OK)
		tuner_report_status(&status, "the suggestion's plan");

	values[0] = CStringGetTextDatum(suggest_algorithm_name(plan.algorithm));
	values[1] = Int32GetDatum(plan.n_initial);
	values[2] = BoolGetDatum(plan.use_aux != 0);
	values[3] = BoolGetDatum(plan.use_transfer != 0);
	tupdesc = BlessTupleDesc(tupdesc);
	PG_RETURN_DATUM(
		HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

PG_FUNCTION_INFO_V1(tuner_sapphire_plan);

/*
 * tuner._sapphire_plan(d, explore_setting, top_k_setting, ranked,
 * n_complete, OUT explore, OUT top_k, OUT step): sapphire's settings with
 * their defaults and its next step (explore, rank or model).  A setting
 * NULL is not set.
 */
Datum
tuner_sapphire_plan(PG_FUNCTION_ARGS)
{
	static const char *const steps[] = {"explore", "rank", "model"};
	SapphirePlan plan;
	TunerStatus status;
	TupleDesc tupdesc;
	Datum values[3];
	bool nulls[3] = {false, false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tuner_require_arg(fcinfo, 0, "d");
	tuner_require_arg(fcinfo, 3, "ranked");
	tuner_require_arg(fcinfo, 4, "n_complete");
	tuner_status_clear(&status);
	if (sapphire_plan(PG_GETARG_INT32(0),
					  PG_ARGISNULL(1) ? 0 : PG_GETARG_INT32(1),
					  PG_ARGISNULL(2) ? 0 : PG_GETARG_INT32(2),
					  PG_GETARG_BOOL(3) ? 1 : 0, PG_GETARG_INT32(4), &plan,
					  &status) != TUNER_OK)
		tuner_report_status(&status, "sapphire's plan");
	values[0] = Int32GetDatum(plan.explore);
	values[1] = Int32GetDatum(plan.top_k);
	values[2] = CStringGetTextDatum(steps[plan.step]);
	tupdesc = BlessTupleDesc(tupdesc);
	PG_RETURN_DATUM(
		HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
