/*
 * icm_glue.c
 *	  SQL entry points of the ICM multi-task GP (src/core/icm.h): fit and
 *	  predict over float8[] data whose y is n x T with NULL for a task not
 *	  observed at a point.  The jsonb model format and the options are read
 *	  and written by the plpgsql wrappers tuner.icm_fit and tuner.icm_predict;
 *	  this file checks shapes and values, calls src/core in a private memory
 *	  context and returns the results.  Everything is in the caller's units
 *	  (icm_units.h does the standardisation the fit needs).
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/memutils.h"

#include "icm.h"
#include "icm_units.h"
#include "tuner_pg.h"

PG_FUNCTION_INFO_V1(tuner_icm_fit_arrays);
PG_FUNCTION_INFO_V1(tuner_icm_predict_arrays);

/* Training data read from SQL arguments. */
typedef struct IcmData
{
	int n;
	int d;
	int T;
	double *x; /* n * d */
	double *y; /* n * T, NaN = missing */
} IcmData;

/*
 * Read x (n x d) and y (n x T, NULL = missing) and check that they agree
 * and that every task was observed at least once.
 */
static void
read_icm_data(FunctionCallInfo fcinfo, int xarg, int yarg, IcmData *data)
{
	int ny;
	int i;
	int t;

	tuner_require_arg(fcinfo, xarg, "x");
	tuner_require_arg(fcinfo, yarg, "y");
	data->x = tuner_array_matrix(PG_GETARG_ARRAYTYPE_P(xarg), "x", false,
								 &data->n, &data->d);
	data->y = tuner_array_matrix_missing(PG_GETARG_ARRAYTYPE_P(yarg), "y", &ny,
										 &data->T);
	if (ny != data->n)
		ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
						errmsg("x and y have different numbers of rows"),
						errdetail("x has %d rows but y has %d.", data->n, ny),
						errhint("y needs one row per point (row of x) and one "
								"column per task.")));
	/* the full path factorises one row and column per observed value */
	{
		int observed = 0;

		for (i = 0; i < data->n * data->T; i++)
			observed += !isnan(data->y[i]);
		tuner_check_fit_size(observed, "y", "observed values");
	}
	for (t = 0; t < data->T; t++)
	{
		bool seen = false;

		for (i = 0; i < data->n && !seen; i++)
			seen = !isnan(data->y[(size_t)i * data->T + t]);
		if (!seen)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("task %d of y has no observations", t + 1),
					 errdetail("Column %d of y is NULL in every row.", t + 1),
					 errhint("Every task needs at least one observed value; "
							 "drop the column or observe the task.")));
	}
}

/*
 * A vector argument of one element per task (name is the model key); with
 * a hint, every element must be positive and the hint says why.
 */
static double *
read_task_vector(FunctionCallInfo fcinfo, int argno, const char *name, int T,
				 const char *positive_hint)
{
	double *values;
	int len;
	int t;

	tuner_require_arg(fcinfo, argno, name);
	values = tuner_array_vector(PG_GETARG_ARRAYTYPE_P(argno), name, &len);
	if (len != T)
		ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
						errmsg("%s must have one element per task", name),
						errdetail("%s has %d elements but y has %d columns.",
								  name, len, T)));
	if (positive_hint != NULL)
		for (t = 0; t < T; t++)
		{
			if (values[t] <= 0.0)
				ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
								errmsg("%s must be positive", name),
								errdetail("Element %d (task %d) is %g.", t + 1,
										  t + 1, values[t]),
								errhint("%s", positive_hint)));
			tuner_check_scale(values[t], name, t + 1, false);
		}
	return values;
}

/*
 * tuner._icm_fit(x float8[], y float8[], rank int, restarts int,
 *				  max_evals int, seed bigint, use_priors bool,
 *				  min_noise float8, force_full bool)
 * returns the fitted hyperparameters, the task covariance and correlation,
 * the log likelihood and the path used, in the caller's units.  NULL
 * options take the defaults (rank min(2, T)).
 */
Datum
tuner_icm_fit_arrays(PG_FUNCTION_ARGS)
{
	MemoryContext fitcxt;
	MemoryContext oldcxt;
	TupleDesc tupdesc;
	IcmFitOptions options;
	IcmData data;
	TunerStatus status;
	IcmModel *model = NULL;
	double *corr;
	double *cov;
	Datum values[9];
	bool nulls[9] = {false};
	int T;
	int i;
	int j;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	fitcxt = AllocSetContextCreate(CurrentMemoryContext, "tuner icm_fit",
								   ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(fitcxt);

	read_icm_data(fcinfo, 0, 1, &data);
	T = data.T;

	icm_fit_options_init(&options);
	options.rank = Min(2, T);
	if (!PG_ARGISNULL(2))
	{
		options.rank = PG_GETARG_INT32(2);
		if (options.rank < 1 || options.rank > T)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("rank must be between 1 and the number of tasks"),
					 errdetail("rank is %d and y has %d task%s.", options.rank,
							   T, T == 1 ? "" : "s"),
					 errhint("rank is the number of columns of W in the "
							 "task covariance B = W W^T + diag(v).")));
	}
	if (!PG_ARGISNULL(3))
	{
		options.restarts = PG_GETARG_INT32(3);
		if (options.restarts < 1)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("restarts must be at least 1")));
	}
	if (!PG_ARGISNULL(4))
	{
		options.max_evals = PG_GETARG_INT32(4);
		if (options.max_evals < 1)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("max_evals must be at least 1")));
	}
	if (!PG_ARGISNULL(5))
		options.seed = (uint64_t)PG_GETARG_INT64(5);
	if (!PG_ARGISNULL(6))
		options.use_priors = PG_GETARG_BOOL(6) ? 1 : 0;
	if (!PG_ARGISNULL(7))
	{
		options.min_noise = PG_GETARG_FLOAT8(7);
		tuner_check_finite(options.min_noise, "min_noise");
		if (options.min_noise < 0.0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("min_noise must not be negative"),
					 errhint("min_noise is a variance in the units of the "
							 "standardised tasks, for example 1e-6.")));
	}
	if (!PG_ARGISNULL(8))
		options.force_full = PG_GETARG_BOOL(8) ? 1 : 0;

	CHECK_FOR_INTERRUPTS();
	tuner_status_clear(&status);
	if (icm_fit_caller_units(data.x, data.y, data.n, data.d, T, &options,
							 &model, &status) != TUNER_OK)
		tuner_report_status(&status, "icm_fit");

	corr = palloc(mul_size(mul_size(T, T), sizeof(double)));
	cov = palloc(mul_size(mul_size(T, T), sizeof(double)));
	tuner_status_clear(&status);
	if (icm_task_correlation(model, corr, &status) != TUNER_OK)
		tuner_report_status(&status, "icm_fit");
	/* model->B is column-major; it is symmetric, but keep the order exact */
	for (i = 0; i < T; i++)
		for (j = 0; j < T; j++)
			cov[i * T + j] = model->B[i + j * T];

	MemoryContextSwitchTo(oldcxt);
	values[0] =
		PointerGetDatum(tuner_float8_array(model->lengthscales, model->d));
	values[1] = PointerGetDatum(tuner_float8_matrix(model->W, T, model->rank));
	values[2] = PointerGetDatum(tuner_float8_array(model->v, T));
	values[3] = PointerGetDatum(tuner_float8_array(model->noise, T));
	values[4] = PointerGetDatum(tuner_float8_array(model->mean, T));
	values[5] = PointerGetDatum(tuner_float8_matrix(cov, T, T));
	values[6] = PointerGetDatum(tuner_float8_matrix(corr, T, T));
	values[7] = Float8GetDatum(model->log_likelihood);
	values[8] = BoolGetDatum(model->kronecker != 0);
	MemoryContextDelete(fitcxt);

	tupdesc = BlessTupleDesc(tupdesc);
	PG_RETURN_DATUM(
		HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * tuner._icm_predict(train_x, train_y, lengthscales, w, v, noise, mean,
 *					  force_full bool, x float8[], task int)
 * returns (mean float8[], sd float8[], kronecker bool): the posterior of
 * the latent function of task (1-based) at each row of x, and the path
 * the model was factorised on.
 */
Datum
tuner_icm_predict_arrays(PG_FUNCTION_ARGS)
{
	MemoryContext predcxt;
	MemoryContext oldcxt;
	TupleDesc tupdesc;
	IcmData data;
	TunerStatus status;
	IcmModel *model;
	double *lengthscales;
	double *W;
	double *v;
	double *noise;
	double *mean;
	double *xs;
	double *pmean;
	double *psd;
	int nl;
	int wrows;
	int rank;
	int m;
	int dq;
	int task;
	Datum values[3];
	bool nulls[3] = {false, false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	predcxt = AllocSetContextCreate(CurrentMemoryContext, "tuner icm_predict",
									ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(predcxt);

	read_icm_data(fcinfo, 0, 1, &data);

	tuner_require_arg(fcinfo, 2, "lengthscales");
	lengthscales =
		tuner_array_vector(PG_GETARG_ARRAYTYPE_P(2), "lengthscales", &nl);
	if (nl != data.d)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("lengthscales must have one element per column of x"),
				 errdetail("lengthscales has %d elements but x has %d "
						   "columns.",
						   nl, data.d)));
	tuner_check_lengthscales(lengthscales, nl);

	tuner_require_arg(fcinfo, 3, "W");
	W = tuner_array_matrix(PG_GETARG_ARRAYTYPE_P(3), "W", false, &wrows,
						   &rank);
	if (wrows != data.T)
		ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
						errmsg("W must have one row per task"),
						errdetail("W has %d rows but y has %d columns.", wrows,
								  data.T),
						errhint("W is T x rank: B = W W^T + diag(v).")));
	if (rank > data.T)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("W must not have more columns than there are tasks"),
				 errdetail("W has %d columns but y has %d.", rank, data.T),
				 errhint("W is T x rank with 1 <= rank <= T.")));

	v = read_task_vector(fcinfo, 4, "v", data.T,
						 "v holds each task's own variance in B = W W^T + "
						 "diag(v); it keeps B positive definite.");
	noise = read_task_vector(fcinfo, 5, "noise", data.T,
							 "noise holds each task's noise variance; use a "
							 "small positive value for exact observations.");
	mean = read_task_vector(fcinfo, 6, "mean", data.T, NULL);

	tuner_require_arg(fcinfo, 8, "x");
	xs = tuner_array_matrix(PG_GETARG_ARRAYTYPE_P(8), "x", false, &m, &dq);
	if (dq != data.d)
		ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
						errmsg("x must have as many columns as the model's x"),
						errdetail("x has %d columns but the model has %d.", dq,
								  data.d)));
	tuner_require_arg(fcinfo, 9, "task");
	task = PG_GETARG_INT32(9);
	if (task < 1 || task > data.T)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("task %d is out of range", task),
						errdetail("The model has %d task%s.", data.T,
								  data.T == 1 ? "" : "s"),
						errhint("Tasks are numbered from 1 to the number of "
								"columns of the model's y.")));

	tuner_status_clear(&status);
	model = icm_model_create(data.n, data.d, data.T, rank, &status);
	if (model == NULL)
		tuner_report_status(&status, "icm_predict");
	memcpy(model->x, data.x,
		   mul_size(mul_size(data.n, data.d), sizeof(double)));
	memcpy(model->y, data.y,
		   mul_size(mul_size(data.n, data.T), sizeof(double)));
	memcpy(model->lengthscales, lengthscales,
		   mul_size(data.d, sizeof(double)));
	memcpy(model->W, W, mul_size(mul_size(data.T, rank), sizeof(double)));
	memcpy(model->v, v, mul_size(data.T, sizeof(double)));
	memcpy(model->noise, noise, mul_size(data.T, sizeof(double)));
	memcpy(model->mean, mean, mul_size(data.T, sizeof(double)));
	model->force_full = !PG_ARGISNULL(7) && PG_GETARG_BOOL(7);

	CHECK_FOR_INTERRUPTS();
	if (icm_prepare(model, &status) != TUNER_OK)
		tuner_report_status(&status, "icm_predict");
	pmean = palloc(mul_size(m, sizeof(double)));
	psd = palloc(mul_size(m, sizeof(double)));
	if (icm_predict(model, xs, m, task - 1, pmean, psd, &status) != TUNER_OK)
		tuner_report_status(&status, "icm_predict");

	MemoryContextSwitchTo(oldcxt);
	values[0] = PointerGetDatum(tuner_float8_array(pmean, m));
	values[1] = PointerGetDatum(tuner_float8_array(psd, m));
	values[2] = BoolGetDatum(model->kronecker != 0);
	MemoryContextDelete(predcxt);

	tupdesc = BlessTupleDesc(tupdesc);
	PG_RETURN_DATUM(
		HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
