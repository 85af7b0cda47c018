/*
 * pareto_glue.c
 *	  SQL entry points of the multi-objective numerics (src/core/pareto.h,
 *	  hypervolume.h, parego.h).  tuner.pareto_front, tuner.hypervolume and
 *	  tuner.suggest_next (plpgsql) gather each trial's objectives as one
 *	  row of a matrix, already signed so that every objective is minimized.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/memutils.h"

#include "hypervolume.h"
#include "parego.h"
#include "pareto.h"
#include "tuner_pg.h"

/* rows of the front computed between two checks for interrupts */
#define PARETO_BLOCK 256

PG_FUNCTION_INFO_V1(tuner_pareto_first_front);
PG_FUNCTION_INFO_V1(tuner_hypervolume_points);
PG_FUNCTION_INFO_V1(tuner_parego_scalarize);
PG_FUNCTION_INFO_V1(tuner_parego_weights);

/* tuner._pareto_first_front(points float8[][]) -> bool[] (one per row). */
Datum
tuner_pareto_first_front(PG_FUNCTION_ARGS)
{
	MemoryContext cxt;
	MemoryContext oldcxt;
	double *points;
	int *front;
	int first;
	int n;
	int m;
	Datum *datums;
	ArrayType *result;
	int i;

	tuner_require_arg(fcinfo, 0, "points");
	cxt = AllocSetContextCreate(CurrentMemoryContext, "tuner pareto",
								ALLOCSET_SMALL_SIZES);
	oldcxt = MemoryContextSwitchTo(cxt);
	points =
		tuner_array_matrix(PG_GETARG_ARRAYTYPE_P(0), "points", true, &n, &m);
	front = palloc(mul_size(Max(n, 1), sizeof(int)));
	/*
	 * tuner_array_matrix rejected NULL, NaN and infinity; O(n^2) pairs, in
	 * blocks of rows with a check for interrupts between them.
	 */
	for (first = 0; first < n; first += PARETO_BLOCK)
	{
		CHECK_FOR_INTERRUPTS();
		pareto_first_front_rows(points, n, m, first,
								Min(PARETO_BLOCK, n - first), front);
	}
	MemoryContextSwitchTo(oldcxt);

	datums = palloc(mul_size(Max(n, 1), sizeof(Datum)));
	for (i = 0; i < n; i++)
		datums[i] = BoolGetDatum(front[i] != 0);
	result = construct_array(datums, n, BOOLOID, 1, true, TYPALIGN_CHAR);
	MemoryContextDelete(cxt);
	PG_RETURN_ARRAYTYPE_P(result);
}

/*
 * tuner._hypervolume(points float8[][], reference float8[]) -> float8.
 * points may be empty ('{}'); otherwise one column per reference value.
 */
Datum
tuner_hypervolume_points(PG_FUNCTION_ARGS)
{
	MemoryContext cxt;
	MemoryContext oldcxt;
	TunerStatus status;
	double *points;
	double *reference;
	double volume;
	int n;
	int m;
	int n_ref;

	tuner_require_arg(fcinfo, 0, "points");
	tuner_require_arg(fcinfo, 1, "reference");
	cxt = AllocSetContextCreate(CurrentMemoryContext, "tuner hypervolume",
								ALLOCSET_SMALL_SIZES);
	oldcxt = MemoryContextSwitchTo(cxt);
	points =
		tuner_array_matrix(PG_GETARG_ARRAYTYPE_P(0), "points", true, &n, &m);
	reference =
		tuner_array_vector(PG_GETARG_ARRAYTYPE_P(1), "reference", &n_ref);
	if (n > 0 && m != n_ref)
		ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
						errmsg("reference must have one value per objective"),
						errdetail("reference has %d values but there are %d "
								  "objectives.",
								  n_ref, m)));
	CHECK_FOR_INTERRUPTS();
	if (hypervolume(points, n, n_ref, reference, &volume, &status) != TUNER_OK)
		tuner_report_status(&status, "hypervolume");
	MemoryContextSwitchTo(oldcxt);
	MemoryContextDelete(cxt);
	PG_RETURN_FLOAT8(volume);
}

/*
 * tuner._parego_scalarize(points float8[][], seed bigint) -> float8[]:
 * each row's augmented Chebyshev value under the weights of seed.
 */
Datum
tuner_parego_scalarize(PG_FUNCTION_ARGS)
{
	MemoryContext cxt;
	MemoryContext oldcxt;
	TunerStatus status;
	double *points;
	double *values;
	int n;
	int m;
	ArrayType *result;

	tuner_require_arg(fcinfo, 0, "points");
	tuner_require_arg(fcinfo, 1, "seed");
	cxt = AllocSetContextCreate(CurrentMemoryContext, "tuner parego",
								ALLOCSET_SMALL_SIZES);
	oldcxt = MemoryContextSwitchTo(cxt);
	points =
		tuner_array_matrix(PG_GETARG_ARRAYTYPE_P(0), "points", false, &n, &m);
	values = palloc(mul_size(n, sizeof(double)));
	if (parego_scalarize(points, n, m, (uint64_t)PG_GETARG_INT64(1), values,
						 &status) != TUNER_OK)
		tuner_report_status(&status, "parego");
	MemoryContextSwitchTo(oldcxt);
	result = tuner_float8_array(values, n);
	MemoryContextDelete(cxt);
	PG_RETURN_ARRAYTYPE_P(result);
}

/* tuner._parego_weights(objectives int, seed bigint) -> float8[]. */
Datum
tuner_parego_weights(PG_FUNCTION_ARGS)
{
	TunerStatus status;
	double *weights;
	int m;

	tuner_require_arg(fcinfo, 0, "objectives");
	tuner_require_arg(fcinfo, 1, "seed");
	m = PG_GETARG_INT32(0);
	if (m < 1 || m > 1000)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("objectives must be between 1 and 1000"),
						errdetail("Got %d.", m)));
	weights = palloc(mul_size(m, sizeof(double)));
	if (parego_weights((uint64_t)PG_GETARG_INT64(1), m, weights, &status) !=
		TUNER_OK)
		tuner_report_status(&status, "parego");
	PG_RETURN_ARRAYTYPE_P(tuner_float8_array(weights, m));
}
