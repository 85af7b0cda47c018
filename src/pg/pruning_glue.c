/*
 * pruning_glue.c
 *	  SQL entry point of the pruning rules (src/core/pruning.h):
 *	  tuner._prune_decision(rule, others, value, maximize, min_trials,
 *	  reduction) says whether a trial whose value is value should stop,
 *	  given the other trials' values at the same step (median) or rung
 *	  (halving); tuner._prune_model_probability(partial, final, value,
 *	  incumbent, maximize, min_trials) is the model rule's probability
 *	  that a trial ends better than the incumbent.  tuner.should_stop
 *	  gathers those values.  tuner._pruned_observation(partial, final,
 *	  last_value, finals) is what the optimizer observes of a pruned
 *	  trial.
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "pruning.h"
#include "tuner_pg.h"

PG_FUNCTION_INFO_V1(tuner_prune_decision);

Datum
tuner_prune_decision(PG_FUNCTION_ARGS)
{
	char *rule;
	ArrayType *array;
	double *others = NULL;
	int n = 0;
	double value;
	double sign;
	int min_trials;
	double reduction;
	int stop = 0;
	TunerStatus status;
	TunerErrorCode rc;

	tuner_require_arg(fcinfo, 0, "rule");
	tuner_require_arg(fcinfo, 1, "others");
	tuner_require_arg(fcinfo, 2, "value");
	tuner_require_arg(fcinfo, 3, "maximize");
	tuner_require_arg(fcinfo, 4, "min_trials");
	rule = text_to_cstring(PG_GETARG_TEXT_PP(0));
	array = PG_GETARG_ARRAYTYPE_P(1);
	if (ArrayGetNItems(ARR_NDIM(array), ARR_DIMS(array)) > 0)
		others = tuner_array_vector(array, "others", &n);
	value = PG_GETARG_FLOAT8(2);
	tuner_check_finite(value, "value");
	sign = PG_GETARG_BOOL(3) ? -1.0 : 1.0;
	min_trials = PG_GETARG_INT32(4);
	reduction = PG_ARGISNULL(5) ? 3.0 : PG_GETARG_FLOAT8(5);

	if (strcmp(rule, "median") == 0)
		rc = tuner_prune_median(others, n, value, sign, min_trials, &stop,
								&status);
	else if (strcmp(rule, "halving") == 0)
		rc = tuner_prune_halving(others, n, value, sign, reduction, min_trials,
								 &stop, &status);
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown pruning rule \"%s\"", rule),
				 errhint("The rules are median and halving; the model rule "
						 "is tuner._prune_model_probability.")));
	if (rc != TUNER_OK)
		tuner_report_status(&status, "the pruning rule");
	PG_RETURN_BOOL(stop != 0);
}

PG_FUNCTION_INFO_V1(tuner_prune_rung_sql);

/* tuner._prune_rung(step, min_step, reduction): see pruning.h. */
Datum
tuner_prune_rung_sql(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(tuner_prune_rung(PG_GETARG_FLOAT8(0), PG_GETARG_FLOAT8(1),
									  PG_GETARG_FLOAT8(2)));
}

/*
 * partial and final of a forecast (arguments 0 and 1): the complete
 * trials' values at a step and their final values, paired by position.
 */
static int
forecast_pairs(FunctionCallInfo fcinfo, double **partial, double **final)
{
	int n = 0;
	int n_final = 0;
	ArrayType *array;

	*partial = NULL;
	*final = NULL;
	tuner_require_arg(fcinfo, 0, "partial");
	tuner_require_arg(fcinfo, 1, "final");
	array = PG_GETARG_ARRAYTYPE_P(0);
	if (ArrayGetNItems(ARR_NDIM(array), ARR_DIMS(array)) > 0)
		*partial = tuner_array_vector(array, "partial", &n);
	array = PG_GETARG_ARRAYTYPE_P(1);
	if (ArrayGetNItems(ARR_NDIM(array), ARR_DIMS(array)) > 0)
		*final = tuner_array_vector(array, "final", &n_final);
	if (n != n_final)
		ereport(
			ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("partial has %d values and final %d", n, n_final),
			 errhint("Pass each complete trial's value at the step and its "
					 "final value, in the same order.")));
	return n;
}

PG_FUNCTION_INFO_V1(tuner_prune_model_probability);

/*
 * tuner._prune_model_probability(partial, final, value, incumbent,
 * maximize, min_trials): the predictive probability that a trial whose
 * value at a step is value ends better than incumbent, from the complete
 * trials' values at that step (partial) and their final values (final),
 * paired by position; NULL when the rule abstains (see pruning.h).
 */
Datum
tuner_prune_model_probability(PG_FUNCTION_ARGS)
{
	double *partial;
	double *final;
	int n;
	int abstain;
	TunerPruneForecast forecast;
	TunerStatus status;

	n = forecast_pairs(fcinfo, &partial, &final);
	tuner_require_arg(fcinfo, 2, "value");
	tuner_require_arg(fcinfo, 3, "incumbent");
	tuner_require_arg(fcinfo, 4, "maximize");
	tuner_require_arg(fcinfo, 5, "min_trials");
	tuner_check_finite(PG_GETARG_FLOAT8(2), "value");
	tuner_check_finite(PG_GETARG_FLOAT8(3), "incumbent");
	if (tuner_prune_model(partial, final, n, PG_GETARG_FLOAT8(2),
						  PG_GETARG_FLOAT8(3), PG_GETARG_BOOL(4) ? -1.0 : 1.0,
						  PG_GETARG_INT32(5), &abstain, &forecast,
						  &status) != TUNER_OK)
		tuner_report_status(&status, "the model pruning rule");
	if (abstain)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(forecast.prob);
}

PG_FUNCTION_INFO_V1(tuner_pruned_observation_sql);

/*
 * tuner._pruned_observation(partial, final, last_value, finals, OUT value,
 * OUT std_error): what the optimizer observes of a trial pruned at a step
 * where its value was last_value (see pruning.h); std_error NULL when not
 * known.
 */
Datum
tuner_pruned_observation_sql(PG_FUNCTION_ARGS)
{
	TupleDesc tupdesc;
	double *partial;
	double *final;
	double *finals = NULL;
	int n;
	int n_finals = 0;
	TunerPrunedObservation observed;
	TunerStatus status;
	ArrayType *array;
	Datum values[2];
	bool nulls[2] = {false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	n = forecast_pairs(fcinfo, &partial, &final);
	tuner_require_arg(fcinfo, 2, "last_value");
	tuner_require_arg(fcinfo, 3, "finals");
	tuner_check_finite(PG_GETARG_FLOAT8(2), "last_value");
	array = PG_GETARG_ARRAYTYPE_P(3);
	if (ArrayGetNItems(ARR_NDIM(array), ARR_DIMS(array)) > 0)
		finals = tuner_array_vector(array, "finals", &n_finals);
	if (tuner_pruned_observation(partial, final, n, PG_GETARG_FLOAT8(2),
								 finals, n_finals, &observed,
								 &status) != TUNER_OK)
		tuner_report_status(&status, "a pruned trial's observation");
	values[0] = Float8GetDatum(observed.value);
	values[1] = Float8GetDatum(observed.std_error);
	nulls[1] = isnan(observed.std_error);
	tupdesc = BlessTupleDesc(tupdesc);
	PG_RETURN_DATUM(
		HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
