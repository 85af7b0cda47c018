/*
 * relevance_glue.c
 *	  SQL entry point of the ranking policy (src/core/relevance.h):
 *	  tuner._rank_parameters takes what tuner.lasso_rank computed (the
 *	  Lasso's importance and entry on the path per parameter) and the
 *	  trials in the GP's coordinates, measures the GP's evidence for the
 *	  parameters without Lasso evidence, and returns each parameter's rank,
 *	  the signal that ranked it and the GP's evidence.
 */
#include "postgres.h"

#include <math.h>
#include <limits.h>
#include <stdlib.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "relevance.h"
#include "tuner_pg.h"

PG_FUNCTION_INFO_V1(tuner_rank_parameters);

#define RANK_NATTS 3

/* A float8[] of n values, NaN written as NULL. */
static ArrayType *
float8_array_nulls(const double *values, int n)
{
	Datum *datums = palloc(mul_size(Max(n, 1), sizeof(Datum)));
	bool *nulls = palloc(mul_size(Max(n, 1), sizeof(bool)));
	int dims[1];
	int lbs[1] = {1};
	int i;

	for (i = 0; i < n; i++)
	{
		nulls[i] = isnan(values[i]);
		datums[i] = Float8GetDatum(nulls[i] ? 0.0 : values[i]);
	}
	dims[0] = n;
	return construct_md_array(datums, nulls, 1, dims, lbs, FLOAT8OID,
							  sizeof(float8), FLOAT8PASSBYVAL,
							  TYPALIGN_DOUBLE);
}

/* An int4[] of n C ints. */
static ArrayType *
int4_array(const int *values, int n)
{
	Datum *datums = palloc(mul_size(Max(n, 1), sizeof(Datum)));
	int i;

	for (i = 0; i < n; i++)
		datums[i] = Int32GetDatum(values[i]);
	return construct_array(datums, n, INT4OID, sizeof(int32), true,
						   TYPALIGN_INT);
}

/* A text[] naming each signal. */
static ArrayType *
signal_array(const int *signal, int n)
{
	Datum *datums = palloc(mul_size(Max(n, 1), sizeof(Datum)));
	int i;

	for (i = 0; i < n; i++)
		datums[i] =
			CStringGetTextDatum(signal[i] == RANK_SIGNAL_LASSO ? "lasso"
								: signal[i] == RANK_SIGNAL_GP  ? "gp"
															   : "none");
	return construct_array(datums, n, TEXTOID, -1, false, TYPALIGN_INT);
}

/* tuner.max_fit_rows, read through the GUC machinery (limits.c owns it). */
static int
max_fit_rows(void)
{
	const char *value = GetConfigOption("tuner.max_fit_rows", true, false);

	return value != NULL ? atoi(value) : INT_MAX;
}

/*
 * tuner._rank_parameters(importance float8[], entered_at int[],
 *						  x float8[], y float8[], categories int[],
 *						  seed bigint)
 * returns (rank int[], signal text[], gp_evidence float8[]).
 *
 * importance (p) >= 0 and entered_at (p, 0 for never) are the Lasso's per
 * parameter.  x (n x p) holds the trials in the GP's coordinates (one
 * column per parameter: a number or its log, a bool 0/1, a categorical's
 * bin centre), y (n) the objective; categories (p) the input metric of
 * matern.h (C for an unordered categorical of C choices, else 0).  With x
 * NULL the GP is not used (the ranking of 0.2.0).  The GP is fitted only
 * when some parameter lacks Lasso evidence, and measures only those;
 * gp_evidence is NULL elsewhere.  Over tuner.max_fit_rows trials the GP is
 * skipped with a notice.
 */
Datum
tuner_rank_parameters(PG_FUNCTION_ARGS)
{
	MemoryContext cxt;
	MemoryContext oldcxt;
	TupleDesc tupdesc;
	TunerStatus status;
	double *importance;
	int *entered;
	double *x = NULL;
	double *y = NULL;
	int *categories = NULL;
	double *evidence;
	double *lengthscale;
	unsigned char *measure;
	int *rank;
	int *signal;
	int p;
	int ne;
	int n = 0;
	int k;
	int n_measure = 0;
	bool use_gp;
	Datum values[RANK_NATTS];
	bool nulls[RANK_NATTS] = {false, false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	cxt = AllocSetContextCreate(CurrentMemoryContext, "tuner rank",
								ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(cxt);

	tuner_require_arg(fcinfo, 0, "importance");
	tuner_require_arg(fcinfo, 1, "entered_at");
	importance =
		tuner_array_vector(PG_GETARG_ARRAYTYPE_P(0), "importance", &p);
	entered = tuner_array_int4(PG_GETARG_ARRAYTYPE_P(1), "entered_at", &ne);
	if (ne != p)
		ereport(
			ERROR,
			(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
			 errmsg("importance and entered_at have different lengths"),
			 errdetail("importance has %d elements, entered_at %d.", p, ne)));
	for (k = 0; k < p; k++)
	{
		if (importance[k] < 0.0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("importance must not be negative"),
					 errdetail("Element %d is %g.", k + 1, importance[k])));
		if (entered[k] < 0)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("entered_at must not be negative"),
							errdetail("Element %d is %d.", k + 1, entered[k]),
							errhint("0 means the parameter never entered "
									"the path.")));
		if (importance[k] == 0.0)
			n_measure++;
	}

	use_gp = !PG_ARGISNULL(2) && n_measure > 0;
	if (use_gp)
	{
		int cols;
		int ny;
		int nc;

		tuner_require_arg(fcinfo, 3, "y");
		x = tuner_array_matrix(PG_GETARG_ARRAYTYPE_P(2), "x", false, &n,
							   &cols);
		y = tuner_array_vector(PG_GETARG_ARRAYTYPE_P(3), "y", &ny);
		if (cols != p)
			ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
							errmsg("x must have one column per parameter"),
							errdetail("x has %d columns for %d parameters.",
									  cols, p)));
		if (ny != n)
			ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
							errmsg("x and y have different lengths"),
							errdetail("x has %d rows but y has %d elements.",
									  n, ny)));
		if (!PG_ARGISNULL(4))
		{
			categories =
				tuner_array_int4(PG_GETARG_ARRAYTYPE_P(4), "categories", &nc);
			if (nc != p)
				ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
								errmsg("categories must have one element per "
									   "parameter"),
								errdetail("categories has %d elements for %d "
										  "parameters.",
										  nc, p)));
			for (k = 0; k < p; k++)
				if (categories[k] < 0 || categories[k] == 1)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("categories must be 0 or at least 2"),
							 errdetail("Element %d is %d.", k + 1,
									   categories[k])));
				else if (categories[k] > 0)
				{
					int i;

					tuner_check_choices(categories[k], k + 1);
					for (i = 0; i < n; i++)
						if (x[(size_t)i * p + k] < 0.0 ||
							x[(size_t)i * p + k] > 1.0)
							ereport(
								ERROR,
								(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
								 errmsg("x of a categorical parameter must "
										"be in [0, 1]"),
								 errdetail("Row %d, column %d is %g.", i + 1,
										   k + 1, x[(size_t)i * p + k]),
								 errhint("A choice's coordinate is the "
										 "centre of its bin, (index + 0.5) "
										 "/ choices.")));
				}
		}
		if (n < 2)
			use_gp = false;
		else if (n > max_fit_rows())
		{
			ereport(NOTICE,
					(errmsg("the GP signal of the ranking was skipped: %d "
							"trials, more than tuner.max_fit_rows (%d)",
							n, max_fit_rows()),
					 errdetail("Parameters without Lasso evidence are "
							   "ranked by their entry on the Lasso path.")));
			use_gp = false;
		}
	}

	evidence = palloc(mul_size(Max(p, 1), sizeof(double)));
	lengthscale = palloc(mul_size(Max(p, 1), sizeof(double)));
	measure = palloc0(Max(p, 1));
	rank = palloc(mul_size(Max(p, 1), sizeof(int)));
	signal = palloc(mul_size(Max(p, 1), sizeof(int)));
	for (k = 0; k < p; k++)
	{
		evidence[k] = NAN;
		measure[k] = importance[k] == 0.0;
	}
	tuner_status_clear(&status);
	if (use_gp)
	{
		RelevanceOptions options;

		relevance_options_init(&options);
		if (!PG_ARGISNULL(5))
			options.seed = (uint64_t)PG_GETARG_INT64(5);
		options.categories = categories;
		options.measure = measure;
		CHECK_FOR_INTERRUPTS();
		if (gp_relevance(x, y, n, p, &options, lengthscale, evidence,
						 &status) != TUNER_OK)
			tuner_report_status(&status, "the GP signal of the ranking");
	}
	if (rank_by_evidence(p, importance, entered, use_gp ? evidence : NULL,
						 RELEVANCE_EVIDENCE_MIN, rank, signal,
						 &status) != TUNER_OK)
		tuner_report_status(&status, "the ranking");

	MemoryContextSwitchTo(oldcxt);
	values[0] = PointerGetDatum(int4_array(rank, p));
	values[1] = PointerGetDatum(signal_array(signal, p));
	values[2] = PointerGetDatum(float8_array_nulls(evidence, p));
	MemoryContextDelete(cxt);

	tupdesc = BlessTupleDesc(tupdesc);
	PG_RETURN_DATUM(
		HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
