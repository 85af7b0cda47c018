/*
 * clusters_glue.c
 *	  SQL entry point of learning parameter clusters (src/core/clusters.h):
 *	  tuner.learn_clusters (plpgsql) gathers the study's trials as a matrix
 *	  of parameter values and one of auxiliary metrics (NULL where a trial
 *	  did not report one) and calls tuner._learn_clusters, which checks the
 *	  arrays, runs the core in a private memory context and returns its
 *	  per-(parameter, metric) and per-metric results as arrays.
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

#include "clusters.h"
#include "tuner_pg.h"

PG_FUNCTION_INFO_V1(tuner_learn_clusters_arrays);

#define CLUSTERS_NATTS 10

/* An int4[] of rows x cols (cols 0: one-dimensional) from C ints. */
static ArrayType *
int4_array(const int *values, int rows, int cols)
{
	Datum *datums;
	int dims[2] = {rows, cols};
	int lbs[2] = {1, 1};
	int n = cols > 0 ? rows * cols : rows;
	int i;

	datums = palloc(mul_size(Max(n, 1), sizeof(Datum)));
	for (i = 0; i < n; i++)
		datums[i] = Int32GetDatum(values[i]);
	return construct_md_array(datums, NULL, cols > 0 ? 2 : 1, dims, lbs,
							  INT4OID, sizeof(int32), true, TYPALIGN_INT);
}

/*
 * tuner._learn_clusters(x float8[], y float8[], permutations int,
 *		alpha float8, refine_rounds int, seed bigint)
 * returns (score, partial, pvalue, adjusted float8[] (d x T), member,
 *		weak int[] (d x T), n_obs int[], valid int[], size int[],
 *		confidence float8[] (T)).  x is n x d, y is n x T with NULL where a
 * metric was not observed; NULL options take the core's defaults.
 */
Datum
tuner_learn_clusters_arrays(PG_FUNCTION_ARGS)
{
	MemoryContext cxt;
	MemoryContext oldcxt;
	TupleDesc tupdesc;
	ClusterOptions options;
	ClusterResult *result = NULL;
	TunerStatus status;
	double *x;
	double *y;
	int n;
	int d;
	int ny;
	int T;
	Datum values[CLUSTERS_NATTS];
	bool nulls[CLUSTERS_NATTS];
	HeapTuple tuple;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tuner_require_arg(fcinfo, 0, "x");
	tuner_require_arg(fcinfo, 1, "y");

	cxt = AllocSetContextCreate(CurrentMemoryContext, "tuner clusters",
								ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(cxt);

	x = tuner_array_matrix(PG_GETARG_ARRAYTYPE_P(0), "x", false, &n, &d);
	y = tuner_array_matrix_missing(PG_GETARG_ARRAYTYPE_P(1), "y", &ny, &T);
	/* the conditional passes hold d * n / 4 * n doubles */
	tuner_check_fit_rows(n, "x");
	if (ny != n)
		ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
						errmsg("x and y have different numbers of rows"),
						errdetail("x has %d rows but y has %d.", n, ny)));

	cluster_options_init(&options);
	if (!PG_ARGISNULL(2))
		options.permutations = PG_GETARG_INT32(2);
	if (!PG_ARGISNULL(3))
		options.alpha = PG_GETARG_FLOAT8(3);
	if (!PG_ARGISNULL(4))
		options.refine_rounds = PG_GETARG_INT32(4);
	if (!PG_ARGISNULL(5))
		options.seed = (uint64_t)PG_GETARG_INT64(5);

	CHECK_FOR_INTERRUPTS();
	tuner_status_clear(&status);
	if (cluster_learn(x, y, n, d, T, &options, &result, &status) != TUNER_OK)
		tuner_report_status(&status, "learn_clusters");

	memset(nulls, false, sizeof(nulls));
	values[0] = PointerGetDatum(tuner_float8_matrix(result->score, d, T));
	values[1] = PointerGetDatum(tuner_float8_matrix(result->partial, d, T));
	values[2] = PointerGetDatum(tuner_float8_matrix(result->pvalue, d, T));
	values[3] = PointerGetDatum(tuner_float8_matrix(result->adjusted, d, T));
	values[4] = PointerGetDatum(int4_array(result->member, d, T));
	values[5] = PointerGetDatum(int4_array(result->weak, d, T));
	values[6] = PointerGetDatum(int4_array(result->n_obs, T, 0));
	values[7] = PointerGetDatum(int4_array(result->valid, T, 0));
	values[8] = PointerGetDatum(int4_array(result->size, T, 0));
	values[9] = PointerGetDatum(tuner_float8_array(result->confidence, T));

	MemoryContextSwitchTo(oldcxt);
	tupdesc = BlessTupleDesc(tupdesc);
	tuple = heap_form_tuple(tupdesc, values, nulls);
	MemoryContextDelete(cxt);
	PG_RETURN_DATUM(HeapTupleGetDatum(tuple));
}
