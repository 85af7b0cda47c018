/*
 * lasso_glue.c
 *	  SQL entry points of the Lasso (src/core/lasso.h): tuner._lasso and
 *	  tuner._lasso_cv take float8[] data and options already checked and
 *	  defaulted by the plpgsql wrappers tuner.lasso and tuner.lasso_cv
 *	  (which build the jsonb results); this file checks the arrays, runs
 *	  the core in a private memory context and returns its arrays.
 */
#include "postgres.h"

#include <math.h>
#include <string.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "lasso.h"
#include "tuner_pg.h"

PG_FUNCTION_INFO_V1(tuner_lasso_arrays);
PG_FUNCTION_INFO_V1(tuner_lasso_cv_arrays);

#define LASSO_NATTS    4
#define LASSO_CV_NATTS 15

/* Read x (n x p) and y (n) and check that they agree. */
static void
read_data(FunctionCallInfo fcinfo, double **x, double **y, int *n, int *p)
{
	int ny;

	tuner_require_arg(fcinfo, 0, "x");
	tuner_require_arg(fcinfo, 1, "y");
	*x = tuner_array_matrix(PG_GETARG_ARRAYTYPE_P(0), "x", false, n, p);
	*y = tuner_array_vector(PG_GETARG_ARRAYTYPE_P(1), "y", &ny);
	tuner_check_lasso_size(*n, *p);
	if (ny != *n)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("x and y have different lengths"),
				 errdetail("x has %d rows but y has %d elements.", *n, ny),
				 errhint("Pass one row of x per element of y.")));
}

/*
 * Options shared by both functions (standardize, tol and max_iter from
 * argument first on, the solver's name at argument solver_arg); NULL keeps
 * the core default, which for tol depends on the solver.
 */
static void
read_common_options(FunctionCallInfo fcinfo, int first, int solver_arg,
					LassoOptions *o)
{
	if (!PG_ARGISNULL(solver_arg))
	{
		char *name = text_to_cstring(PG_GETARG_TEXT_PP(solver_arg));

		if (strcmp(name, "fast") == 0)
			lasso_options_set_solver(o, LASSO_SOLVER_FAST);
		else if (strcmp(name, "sklearn") == 0)
			lasso_options_set_solver(o, LASSO_SOLVER_SKLEARN);
		else
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown lasso solver \"%s\"", name),
					 errhint("The solvers are \"fast\" and \"sklearn\".")));
	}
	if (!PG_ARGISNULL(first))
		o->standardize = PG_GETARG_BOOL(first) ? 1 : 0;
	if (!PG_ARGISNULL(first + 1))
	{
		o->tol = PG_GETARG_FLOAT8(first + 1);
		tuner_check_finite(o->tol, "tol");
		if (o->tol < 0.0)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("tol must not be negative"),
							errdetail("It is %g.", o->tol)));
	}
	if (!PG_ARGISNULL(first + 2))
	{
		o->max_iter = PG_GETARG_INT32(first + 2);
		if (o->max_iter < 1)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("max_iter must be at least 1")));
	}
}

/* An int4[] of n C ints. */
static ArrayType *
int4_vector(const int *values, int n)
{
	Datum *datums = palloc(mul_size(Max(n, 1), sizeof(Datum)));
	int i;

	for (i = 0; i < n; i++)
		datums[i] = Int32GetDatum(values[i]);
	return construct_array(datums, n, INT4OID, sizeof(int32), true,
						   TYPALIGN_INT);
}

/*
 * tuner._lasso(x float8[], y float8[], lambda float8, standardize bool,
 *				tol float8, max_iter int, solver text)
 * returns (intercept float8, coefficients float8[], n_iter int,
 *			converged bool): one fit from zero at lambda.
 */
Datum
tuner_lasso_arrays(PG_FUNCTION_ARGS)
{
	MemoryContext cxt;
	MemoryContext oldcxt;
	TupleDesc tupdesc;
	LassoOptions options;
	TunerStatus status;
	double *x;
	double *y;
	double *coef;
	double lambda;
	double intercept;
	int n;
	int p;
	int n_iter;
	int converged;
	ArrayType *coef_array;
	Datum values[LASSO_NATTS];
	bool nulls[LASSO_NATTS] = {false, false, false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	cxt = AllocSetContextCreate(CurrentMemoryContext, "tuner lasso",
								ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(cxt);

	read_data(fcinfo, &x, &y, &n, &p);
	tuner_require_arg(fcinfo, 2, "lambda");
	lambda = PG_GETARG_FLOAT8(2);
	if (isnan(lambda) || isinf(lambda) || lambda < 0.0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("lambda must be a non-negative finite number"),
						errdetail("It is %g.", lambda),
						errhint("lambda is the weight of the L1 penalty, "
								"alpha in scikit-learn's Lasso.")));
	lasso_options_init(&options);
	read_common_options(fcinfo, 3, 6, &options);

	coef = palloc(mul_size(p, sizeof(double)));
	tuner_status_clear(&status);
	if (lasso_fit(x, y, n, p, lambda, &options, coef, &intercept, &n_iter,
				  &converged, &status) != TUNER_OK)
		tuner_report_status(&status, "lasso");

	MemoryContextSwitchTo(oldcxt);
	coef_array = tuner_float8_array(coef, p);
	MemoryContextDelete(cxt);

	values[0] = Float8GetDatum(intercept);
	values[1] = PointerGetDatum(coef_array);
	values[2] = Int32GetDatum(n_iter);
	values[3] = BoolGetDatum(converged != 0);
	tupdesc = BlessTupleDesc(tupdesc);
	PG_RETURN_DATUM(
		HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * tuner._lasso_cv(x float8[], y float8[], standardize bool, tol float8,
 *				   max_iter int, n_lambdas int, eps float8, folds int,
 *				   lambdas float8[], solver text)
 * returns the arrays of LassoCvResult (see the SQL declaration).
 */
Datum
tuner_lasso_cv_arrays(PG_FUNCTION_ARGS)
{
	MemoryContext cxt;
	MemoryContext oldcxt;
	TupleDesc tupdesc;
	LassoOptions options;
	LassoCvResult r;
	TunerStatus status;
	double *x;
	double *y;
	int n;
	int p;
	int k;
	int *entered;
	Datum values[LASSO_CV_NATTS];
	bool nulls[LASSO_CV_NATTS];
	HeapTuple tuple;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	cxt = AllocSetContextCreate(CurrentMemoryContext, "tuner lasso_cv",
								ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(cxt);

	read_data(fcinfo, &x, &y, &n, &p);
	lasso_options_init(&options);
	read_common_options(fcinfo, 2, 9, &options);
	if (!PG_ARGISNULL(5))
	{
		options.n_lambdas = PG_GETARG_INT32(5);
		if (options.n_lambdas < 1)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("n_lambdas must be at least 1")));
	}
	if (!PG_ARGISNULL(6))
	{
		options.eps = PG_GETARG_FLOAT8(6);
		tuner_check_finite(options.eps, "eps");
		if (options.eps <= 0.0)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("eps must be positive"),
							errdetail("It is %g.", options.eps)));
	}
	if (!PG_ARGISNULL(7))
		options.folds = PG_GETARG_INT32(7);
	if (options.folds < 2)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("folds must be at least 2"),
						errdetail("It is %d.", options.folds)));
	if (n < options.folds)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%d rows are too few for %d-fold cross-validation", n,
						options.folds),
				 errhint("Every fold needs at least one row: add rows or "
						 "lower the option folds (at least 2).")));
	if (!PG_ARGISNULL(8))
	{
		double *grid;
		int ng;

		grid = tuner_array_vector(PG_GETARG_ARRAYTYPE_P(8), "lambdas", &ng);
		for (k = 0; k < ng; k++)
			if (grid[k] < 0.0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("lambdas must not be negative"),
						 errdetail("Element %d is %g.", k + 1, grid[k])));
		options.lambdas = grid;
		options.n_given = ng;
	}

	tuner_status_clear(&status);
	if (lasso_cv(x, y, n, p, &options, &r, &status) != TUNER_OK)
		tuner_report_status(&status, "lasso_cv");

	MemoryContextSwitchTo(oldcxt);
	memset(nulls, 0, sizeof(nulls));
	/* entered_at 1-based, NULL for features that never enter */
	entered = palloc(mul_size(Max(p, 1), sizeof(int)));
	for (k = 0; k < p; k++)
		entered[k] = r.entered_at[k] + 1;
	values[0] = Float8GetDatum(r.lambda);
	values[1] = Float8GetDatum(r.lambda_1se);
	values[2] = Float8GetDatum(r.intercept);
	values[3] = PointerGetDatum(tuner_float8_array(r.coef, p));
	values[4] = PointerGetDatum(tuner_float8_array(r.lambdas, r.n_lambdas));
	values[5] = PointerGetDatum(tuner_float8_array(r.cv_mean, r.n_lambdas));
	values[6] = PointerGetDatum(tuner_float8_array(r.cv_std, r.n_lambdas));
	values[7] = PointerGetDatum(int4_vector(entered, p));
	values[8] = PointerGetDatum(tuner_float8_array(r.coef_scaled, p));
	values[9] = PointerGetDatum(tuner_float8_array(r.scale, p));
	values[10] = Int32GetDatum(r.best + 1);
	values[11] = Int32GetDatum(r.best_1se + 1);
	values[12] = PointerGetDatum(int4_vector(r.path_nonzero, r.n_lambdas));
	values[13] = Int32GetDatum(r.n_iter);
	values[14] = BoolGetDatum(r.converged != 0);
	MemoryContextDelete(cxt);

	tupdesc = BlessTupleDesc(tupdesc);
	tuple = heap_form_tuple(tupdesc, values, nulls);
	PG_RETURN_DATUM(HeapTupleGetDatum(tuple));
}
