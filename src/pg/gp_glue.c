/*
 * gp_glue.c
 *	  SQL entry points of the low-level Gaussian process: fit, predict and
 *	  log marginal likelihood over float8[] data.  The jsonb model format is
 *	  read and written by the plpgsql wrappers tuner.gp_fit, tuner.gp_predict
 *	  and tuner.gp_log_likelihood; this file only checks arrays, calls
 *	  src/core/gp.h in a private memory context and returns the results.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/memutils.h"

#include "gp.h"
#include "tuner_pg.h"

PG_FUNCTION_INFO_V1(tuner_gp_fit_arrays);
PG_FUNCTION_INFO_V1(tuner_gp_predict_arrays);
PG_FUNCTION_INFO_V1(tuner_gp_log_likelihood_arrays);

/* Read x (n x d) and y (n) and check that they agree; see tuner_pg.h. */
void
tuner_read_gp_training_data(FunctionCallInfo fcinfo, int xarg, int yarg,
							const char *xname, const char *yname, GpArgs *args)
{
	int ny;

	args->extra_noise = NULL;
	tuner_require_arg(fcinfo, xarg, xname);
	tuner_require_arg(fcinfo, yarg, yname);
	args->x = tuner_array_matrix(PG_GETARG_ARRAYTYPE_P(xarg), xname, false,
								 &args->n, &args->d);
	args->y = tuner_array_vector(PG_GETARG_ARRAYTYPE_P(yarg), yname, &ny);
	tuner_check_fit_rows(args->n, xname);
	if (ny != args->n)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s and %s have different lengths", xname, yname),
				 errdetail("%s has %d rows but %s has %d elements.", xname,
						   args->n, yname, ny)));
}

/*
 * Read hyperparameters starting at argument first: lengthscales,
 * outputscale, noise, mean.
 */
void
tuner_read_gp_hyperparameters(FunctionCallInfo fcinfo, int first, GpArgs *args)
{
	int nl;

	tuner_require_arg(fcinfo, first, "lengthscales");
	tuner_require_arg(fcinfo, first + 1, "outputscale");
	tuner_require_arg(fcinfo, first + 2, "noise");
	tuner_require_arg(fcinfo, first + 3, "mean");

	args->lengthscales =
		tuner_array_vector(PG_GETARG_ARRAYTYPE_P(first), "lengthscales", &nl);
	if (nl != args->d)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("lengthscales must have one element per column of x"),
				 errdetail("lengthscales has %d elements but x has %d "
						   "columns.",
						   nl, args->d)));
	tuner_check_lengthscales(args->lengthscales, nl);

	args->outputscale = PG_GETARG_FLOAT8(first + 1);
	args->noise = PG_GETARG_FLOAT8(first + 2);
	args->mean = PG_GETARG_FLOAT8(first + 3);
	tuner_check_scale(args->outputscale, "outputscale", 0, false);
	tuner_check_scale(args->noise, "noise", 0, true);
	tuner_check_finite(args->mean, "mean");
}

/*
 * The extra noise variances of the n training points from the optional
 * std_error float8[] argument argno (n standard errors in y's units, NULL
 * where a point has none): their squares, or NULL when the argument is
 * absent or NULL.
 */
static double *
read_extra_noise(FunctionCallInfo fcinfo, int argno, int n)
{
	ArrayType *a;
	Datum *datums;
	bool *isnull;
	double *extra;
	int len;
	int i;

	if (PG_NARGS() <= argno || PG_ARGISNULL(argno))
		return NULL;
	a = PG_GETARG_ARRAYTYPE_P(argno);
	if (ARR_ELEMTYPE(a) != FLOAT8OID || ARR_NDIM(a) > 1)
		ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
						errmsg("std_error must be a float8[] vector")));
	deconstruct_array(a, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL,
					  TYPALIGN_DOUBLE, &datums, &isnull, &len);
	if (len != n)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("std_error must have one element per row of x"),
				 errdetail("std_error has %d elements but x has %d rows.", len,
						   n)));
	extra = palloc(mul_size(Max(n, 1), sizeof(double)));
	for (i = 0; i < n; i++)
	{
		double se = isnull[i] ? 0.0 : DatumGetFloat8(datums[i]);

		if (!(se >= 0.0) || !isfinite(se))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("std_error must be finite and not negative"),
					 errdetail("Element %d is %g.", i + 1, se),
					 errhint("Use NULL for a point whose standard error is "
							 "not known.")));
		extra[i] = se * se;
		if (!isfinite(extra[i]))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("std_error is too large: its square overflows"),
					 errdetail("Element %d is %g.", i + 1, se)));
	}
	return extra;
}

/* Build and factorise a model from checked arguments. */
static GpModel *
prepare_model(const GpArgs *args, const char *what)
{
	TunerStatus status;
	GpModel *model;

	tuner_status_clear(&status);
	model = gp_model_create(args->n, args->d, &status);
	if (model == NULL)
		tuner_report_status(&status, what);
	memcpy(model->x, args->x,
		   mul_size(mul_size(args->n, args->d), sizeof(double)));
	memcpy(model->y, args->y, mul_size(args->n, sizeof(double)));
	memcpy(model->lengthscales, args->lengthscales,
		   mul_size(args->d, sizeof(double)));
	model->outputscale = args->outputscale;
	model->noise = args->noise;
	model->mean = args->mean;
	if (gp_model_set_extra_noise(model, args->extra_noise, &status) !=
		TUNER_OK)
		tuner_report_status(&status, what);
	if (gp_prepare(model, &status) != TUNER_OK)
		tuner_report_status(&status, what);
	return model;
}

/*
 * tuner._gp_fit(x float8[], y float8[], restarts int, max_evals int,
 *				 seed bigint, use_priors bool, min_noise float8,
 *				 std_error float8[])
 * returns (lengthscales, outputscale, noise, mean, log_likelihood) in the
 * caller's coordinates.  NULL options take the core defaults; std_error
 * (each point's known standard error, NULL = none) is the fit's extra
 * noise, std_error^2 on K's diagonal.
 */
Datum
tuner_gp_fit_arrays(PG_FUNCTION_ARGS)
{
	MemoryContext fitcxt;
	MemoryContext oldcxt;
	TupleDesc tupdesc;
	GpFitOptions options;
	GpArgs args;
	TunerStatus status;
	GpModel *model = NULL;
	Datum values[5];
	bool nulls[5] = {false, false, false, false, false};
	ArrayType *lengthscales;
	double outputscale;
	double noise;
	double mean;
	double log_likelihood;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	fitcxt = AllocSetContextCreate(CurrentMemoryContext, "tuner gp_fit",
								   ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(fitcxt);

	tuner_read_gp_training_data(fcinfo, 0, 1, "x", "y", &args);

	gp_fit_options_init(&options);
	if (!PG_ARGISNULL(2))
	{
		options.restarts = PG_GETARG_INT32(2);
		if (options.restarts < 1)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("restarts must be at least 1")));
	}
	if (!PG_ARGISNULL(3))
	{
		options.max_evals = PG_GETARG_INT32(3);
		if (options.max_evals < 1)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("max_evals must be at least 1")));
	}
	if (!PG_ARGISNULL(4))
		options.seed = (uint64_t)PG_GETARG_INT64(4);
	if (!PG_ARGISNULL(5))
		options.use_priors = PG_GETARG_BOOL(5) ? 1 : 0;
	if (!PG_ARGISNULL(6))
	{
		options.min_noise = PG_GETARG_FLOAT8(6);
		tuner_check_finite(options.min_noise, "min_noise");
		if (options.min_noise < 0.0)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("min_noise must not be negative")));
	}
	options.extra_noise = read_extra_noise(fcinfo, 7, args.n);

	tuner_status_clear(&status);
	if (gp_fit(args.x, args.y, args.n, args.d, &options, &model, &status) !=
		TUNER_OK)
		tuner_report_status(&status, "gp_fit");

	MemoryContextSwitchTo(oldcxt);
	lengthscales = tuner_float8_array(model->lengthscales, model->d);
	outputscale = model->outputscale;
	noise = model->noise;
	mean = model->mean;
	log_likelihood = model->log_likelihood;
	MemoryContextDelete(fitcxt);

	values[0] = PointerGetDatum(lengthscales);
	values[1] = Float8GetDatum(outputscale);
	values[2] = Float8GetDatum(noise);
	values[3] = Float8GetDatum(mean);
	values[4] = Float8GetDatum(log_likelihood);
	tupdesc = BlessTupleDesc(tupdesc);
	PG_RETURN_DATUM(
		HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * tuner._gp_predict(x, y, lengthscales, outputscale, noise, mean,
 *					 xs float8[], std_error float8[]) returns (mean float8[],
 * sd float8[]): the posterior of the latent function at each row of xs.
 */
Datum
tuner_gp_predict_arrays(PG_FUNCTION_ARGS)
{
	MemoryContext predcxt;
	MemoryContext oldcxt;
	TupleDesc tupdesc;
	GpArgs args;
	TunerStatus status;
	GpModel *model;
	double *xs;
	double *mean;
	double *sd;
	int m;
	int dq;
	Datum values[2];
	bool nulls[2] = {false, false};
	ArrayType *mean_array;
	ArrayType *sd_array;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	predcxt = AllocSetContextCreate(CurrentMemoryContext, "tuner gp_predict",
									ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(predcxt);

	tuner_read_gp_training_data(fcinfo, 0, 1, "x", "y", &args);
	tuner_read_gp_hyperparameters(fcinfo, 2, &args);
	args.extra_noise = read_extra_noise(fcinfo, 7, args.n);
	tuner_require_arg(fcinfo, 6, "x");
	xs = tuner_array_matrix(PG_GETARG_ARRAYTYPE_P(6), "x", false, &m, &dq);
	if (dq != args.d)
		ereport(
			ERROR,
			(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
			 errmsg("x must have as many columns as the model's data"),
			 errdetail("x has %d columns but the model has %d.", dq, args.d)));

	model = prepare_model(&args, "gp_predict");
	mean = palloc(mul_size(m, sizeof(double)));
	sd = palloc(mul_size(m, sizeof(double)));
	tuner_status_clear(&status);
	if (gp_predict(model, xs, m, mean, sd, &status) != TUNER_OK)
		tuner_report_status(&status, "gp_predict");

	MemoryContextSwitchTo(oldcxt);
	mean_array = tuner_float8_array(mean, m);
	sd_array = tuner_float8_array(sd, m);
	MemoryContextDelete(predcxt);

	values[0] = PointerGetDatum(mean_array);
	values[1] = PointerGetDatum(sd_array);
	tupdesc = BlessTupleDesc(tupdesc);
	PG_RETURN_DATUM(
		HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * tuner._gp_log_likelihood(x, y, lengthscales, outputscale, noise, mean,
 * std_error float8[]) returns the log marginal likelihood of y under the
 * hyperparameters.
 */
Datum
tuner_gp_log_likelihood_arrays(PG_FUNCTION_ARGS)
{
	MemoryContext llcxt;
	MemoryContext oldcxt;
	GpArgs args;
	GpModel *model;
	double log_likelihood;

	llcxt =
		AllocSetContextCreate(CurrentMemoryContext, "tuner gp_log_likelihood",
							  ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(llcxt);

	tuner_read_gp_training_data(fcinfo, 0, 1, "x", "y", &args);
	tuner_read_gp_hyperparameters(fcinfo, 2, &args);
	args.extra_noise = read_extra_noise(fcinfo, 6, args.n);
	model = prepare_model(&args, "gp_log_likelihood");
	log_likelihood = model->log_likelihood;

	MemoryContextSwitchTo(oldcxt);
	MemoryContextDelete(llcxt);
	PG_RETURN_FLOAT8(log_likelihood);
}
