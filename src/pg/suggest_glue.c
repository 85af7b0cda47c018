/*
 * suggest_glue.c
 *	  SQL entry point of one Bayesian-optimisation step.  tuner.suggest_next
 *	  (plpgsql) locks the study, gathers its history as arrays of native
 *	  values and calls tuner._suggest_point, which checks the arrays, runs
 *	  src/core/suggest.h in a private memory context and returns the chosen
 *	  configuration with what the model predicted for it.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "space.h"
#include "suggest.h"
#include "tuner_pg.h"

PG_FUNCTION_INFO_V1(tuner_suggest_point);

#define SUGGEST_NATTS 10

/* Check that a parameter array has one element per parameter. */
static void
check_space_length(int n, int d, const char *name)
{
	if (n != d)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must have one element per parameter", name),
				 errdetail("%s has %d elements but there are %d parameters.",
						   name, n, d)));
}

/* Read the search space from five parallel arrays (arguments 0 .. 4). */
static ParamSpec *
read_space(FunctionCallInfo fcinfo, int *d)
{
	int *kinds;
	double *lows;
	double *highs;
	bool *log_scales;
	int *n_choices;
	ParamSpec *params;
	int n;
	int i;

	tuner_require_arg(fcinfo, 0, "kinds");
	tuner_require_arg(fcinfo, 1, "lows");
	tuner_require_arg(fcinfo, 2, "highs");
	tuner_require_arg(fcinfo, 3, "log_scales");
	tuner_require_arg(fcinfo, 4, "n_choices");

	kinds = tuner_array_int4(PG_GETARG_ARRAYTYPE_P(0), "kinds", d);
	if (*d == 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("the search space has no parameters")));
	lows = tuner_array_vector(PG_GETARG_ARRAYTYPE_P(1), "lows", &n);
	check_space_length(n, *d, "lows");
	highs = tuner_array_vector(PG_GETARG_ARRAYTYPE_P(2), "highs", &n);
	check_space_length(n, *d, "highs");
	log_scales = tuner_array_bool(PG_GETARG_ARRAYTYPE_P(3), "log_scales", &n);
	check_space_length(n, *d, "log_scales");
	n_choices = tuner_array_int4(PG_GETARG_ARRAYTYPE_P(4), "n_choices", &n);
	check_space_length(n, *d, "n_choices");

	params = palloc0(mul_size(*d, sizeof(ParamSpec)));
	for (i = 0; i < *d; i++)
	{
		if (kinds[i] < PARAM_FLOAT || kinds[i] > PARAM_CATEGORICAL)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("parameter %d has unknown kind code %d",
								   i + 1, kinds[i])));
		params[i].kind = (TunerParamKind)kinds[i];
		params[i].low = lows[i];
		params[i].high = highs[i];
		params[i].log_scale = log_scales[i] ? 1 : 0;
		params[i].n_choices = n_choices[i];
	}
	return params;
}

/*
 * Read an optional n x d matrix of configurations; NULL or '{}' is zero
 * rows.
 */
static double *
read_configs(FunctionCallInfo fcinfo, int argno, const char *name, int d,
			 int *rows)
{
	double *values;
	int cols;

	if (PG_ARGISNULL(argno))
	{
		*rows = 0;
		return NULL;
	}
	values = tuner_array_matrix(PG_GETARG_ARRAYTYPE_P(argno), name, true, rows,
								&cols);
	if (*rows == 0)
		return NULL;
	if (cols != d)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must have one column per parameter", name),
				 errdetail("%s has %d columns but there are %d parameters.",
						   name, cols, d)));
	return values;
}

/*
 * tuner._suggest_point(kinds int[], lows float8[], highs float8[],
 *		log_scales bool[], n_choices int[], x_observed float8[],
 *		y_observed float8[], x_pending float8[], x_other float8[],
 *		n_initial int, design_index int, seed bigint, design_seed bigint,
 *		warm_lengthscales float8[], warm_outputscale float8,
 *		warm_noise float8, warm_mean float8)
 * returns (config float8[], source text, predicted_mean, predicted_sd,
 *		acquisition, lengthscales float8[], outputscale, noise,
 *		log_likelihood, mean).  Configurations are native values, objective values
 * are minimised.
 */
Datum
tuner_suggest_point(PG_FUNCTION_ARGS)
{
	MemoryContext suggestcxt;
	MemoryContext oldcxt;
	TupleDesc tupdesc;
	SuggestInput input;
	SuggestResult result;
	TunerStatus status;
	ParamSpec *params;
	int d;
	int ny = 0;
	double *y_observed = NULL;
	double *warm = NULL;
	double *config;
	double *lengthscales;
	Datum values[SUGGEST_NATTS];
	bool nulls[SUGGEST_NATTS];
	const char *source;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	suggestcxt = AllocSetContextCreate(CurrentMemoryContext, "tuner suggest",
									   ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(suggestcxt);

	memset(&input, 0, sizeof(input));
	params = read_space(fcinfo, &d);
	input.params = params;
	input.d = d;

	tuner_status_clear(&status);
	if (space_validate(params, d, &status) != TUNER_OK)
		tuner_report_status(&status, "suggest");

	input.x_observed =
		read_configs(fcinfo, 5, "x_observed", d, &input.n_observed);
	if (!PG_ARGISNULL(6))
	{
		ArrayType *ya = PG_GETARG_ARRAYTYPE_P(6);

		if (ARR_NDIM(ya) != 0)
			y_observed = tuner_array_vector(ya, "y_observed", &ny);
	}
	if (ny != input.n_observed)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("x_observed and y_observed have different lengths"),
				 errdetail("x_observed has %d rows but y_observed has %d "
						   "elements.",
						   input.n_observed, ny)));
	input.y_observed = y_observed;
	input.x_pending =
		read_configs(fcinfo, 7, "x_pending", d, &input.n_pending);
	input.x_other = read_configs(fcinfo, 8, "x_other", d, &input.n_other);

	tuner_require_arg(fcinfo, 9, "n_initial");
	tuner_require_arg(fcinfo, 10, "design_index");
	tuner_require_arg(fcinfo, 11, "seed");
	tuner_require_arg(fcinfo, 12, "design_seed");
	input.n_initial = PG_GETARG_INT32(9);
	input.design_index = PG_GETARG_INT32(10);
	if (input.n_initial < 1)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("n_initial must be at least 1")));
	if (input.design_index < 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("design_index must not be negative")));
	input.seed = (uint64_t)PG_GETARG_INT64(11);
	input.design_seed = (uint64_t)PG_GETARG_INT64(12);

	/* The warm start is used only when complete and of the right size. */
	if (!PG_ARGISNULL(13) && !PG_ARGISNULL(14) && !PG_ARGISNULL(15))
	{
		ArrayType *wa = PG_GETARG_ARRAYTYPE_P(13);
		int nw = 0;

		if (ARR_NDIM(wa) != 0)
			warm = tuner_array_vector(wa, "warm_lengthscales", &nw);
		if (nw == d)
		{
			input.warm_lengthscales = warm;
			input.warm_outputscale = PG_GETARG_FLOAT8(14);
			input.warm_noise = PG_GETARG_FLOAT8(15);
			tuner_check_finite(input.warm_outputscale, "warm_outputscale");
			tuner_check_finite(input.warm_noise, "warm_noise");
			/* a model row from before the mean was stored has none */
			if (PG_NARGS() > 16 && !PG_ARGISNULL(16))
			{
				input.warm_mean = PG_GETARG_FLOAT8(16);
				tuner_check_finite(input.warm_mean, "warm_mean");
			}
		}
	}

	config = palloc0(mul_size(d, sizeof(double)));
	lengthscales = palloc0(mul_size(d, sizeof(double)));
	memset(&result, 0, sizeof(result));
	result.config = config;
	result.lengthscales = lengthscales;

	CHECK_FOR_INTERRUPTS();
	if (tuner_suggest(&input, &result, &status) != TUNER_OK)
		tuner_report_status(&status, "suggest");

	MemoryContextSwitchTo(oldcxt);

	memset(nulls, true, sizeof(nulls));
	values[0] = PointerGetDatum(tuner_float8_array(result.config, d));
	nulls[0] = false;
	switch (result.source)
	{
		case SUGGEST_DESIGN:
			source = "design";
			break;
		case SUGGEST_MODEL:
			source = "model";
			break;
		case SUGGEST_RANDOM:
			source = "random";
			break;
		default:
			elog(ERROR, "unknown suggestion source %d", (int)result.source);
	}
	values[1] = CStringGetTextDatum(source);
	nulls[1] = false;
	if (result.source == SUGGEST_MODEL)
	{
		values[2] = Float8GetDatum(result.predicted_mean);
		values[3] = Float8GetDatum(result.predicted_sd);
		values[4] = Float8GetDatum(result.log_ei);
		values[5] =
			PointerGetDatum(tuner_float8_array(result.lengthscales, d));
		values[6] = Float8GetDatum(result.outputscale);
		values[7] = Float8GetDatum(result.noise);
		values[8] = Float8GetDatum(result.log_likelihood);
		values[9] = Float8GetDatum(result.mean);
		memset(nulls + 2, false, sizeof(bool) * (SUGGEST_NATTS - 2));
	}
	MemoryContextDelete(suggestcxt);

	tupdesc = BlessTupleDesc(tupdesc);
	PG_RETURN_DATUM(
		HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
