/*
 * arrays.c
 *	  Conversions between SQL arrays and the plain C arrays src/core works
 *	  on, with the input checks every entry point shares (dimensions, NULL
 *	  elements, NaN and infinity), and the mapping of TunerStatus codes to
 *	  SQL errors.
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/float.h"
#include "utils/lsyscache.h"

#include "tuner_pg.h"

/* Reject an array that is not of the expected element type (internal). */
static void
check_element_type(ArrayType *array, Oid type, const char *name)
{
	if (ARR_ELEMTYPE(array) != type)
		elog(ERROR, "%s has element type %u, expected %u", name,
			 ARR_ELEMTYPE(array), type);
}

/* Reject NULL elements. */
static void
check_no_nulls(ArrayType *array, const char *name)
{
	if (array_contains_nulls(array))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						errmsg("%s must not contain NULL elements", name)));
}

/* Reject NaN and infinity in n values; cols > 0 names row and column. */
static void
check_finite_values(const double *values, int n, int cols, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
	{
		if (isfinite(values[i]))
			continue;
		if (cols > 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("%s must not contain NaN or infinity", name),
					 errdetail("Row %d, column %d is %s.", i / cols + 1,
							   i % cols + 1,
							   isnan(values[i]) ? "NaN" : "infinite")));
		else
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("%s must not contain NaN or infinity", name),
					 errdetail("Element %d is %s.", i + 1,
							   isnan(values[i]) ? "NaN" : "infinite")));
	}
}

/* Copy the float8 payload of an array without NULLs. */
static double *
copy_float8_payload(ArrayType *array, int n)
{
	double *values;

	values = palloc(mul_size(Max(n, 1), sizeof(double)));
	if (n > 0)
		memcpy(values, ARR_DATA_PTR(array), mul_size(n, sizeof(double)));
	return values;
}

/* A 1-D, non-empty float8[] without NULLs, NaN or infinity. */
double *
tuner_array_vector(ArrayType *array, const char *name, int *n)
{
	double *values;

	check_element_type(array, FLOAT8OID, name);
	if (ARR_NDIM(array) == 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("%s must not be empty", name)));
	if (ARR_NDIM(array) != 1)
		ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
						errmsg("%s must be a one-dimensional array", name),
						errdetail("It has %d dimensions.", ARR_NDIM(array))));
	check_no_nulls(array, name);
	*n = ARR_DIMS(array)[0];
	values = copy_float8_payload(array, *n);
	check_finite_values(values, *n, 0, name);
	return values;
}

/*
 * A 2-D float8[] (rows x columns) without NULLs, NaN or infinity.  With
 * allow_empty, an empty array gives zero rows and zero columns.
 */
double *
tuner_array_matrix(ArrayType *array, const char *name, bool allow_empty,
				   int *rows, int *cols)
{
	double *values;
	int n;

	check_element_type(array, FLOAT8OID, name);
	if (ARR_NDIM(array) == 0)
	{
		if (!allow_empty)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("%s must not be empty", name)));
		*rows = 0;
		*cols = 0;
		return palloc(sizeof(double));
	}
	if (ARR_NDIM(array) == 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must be a two-dimensional array", name),
				 errdetail("It is a one-dimensional array of %d elements.",
						   ARR_DIMS(array)[0]),
				 errhint("Pass one row per point, for example "
						 "ARRAY[[0.1, 0.2], [0.3, 0.4]].")));
	if (ARR_NDIM(array) != 2)
		ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
						errmsg("%s must be a two-dimensional array", name),
						errdetail("It has %d dimensions.", ARR_NDIM(array))));
	check_no_nulls(array, name);
	*rows = ARR_DIMS(array)[0];
	*cols = ARR_DIMS(array)[1];
	n = ArrayGetNItems(2, ARR_DIMS(array));
	values = copy_float8_payload(array, n);
	check_finite_values(values, n, *cols, name);
	return values;
}

/*
 * A 2-D, non-empty float8[] (rows x columns) whose NULL elements mark
 * missing entries: they come back as NaN.  NaN and infinity in the input
 * are rejected, so that NaN means only "missing" afterwards.
 */
double *
tuner_array_matrix_missing(ArrayType *array, const char *name, int *rows,
						   int *cols)
{
	Datum *datums;
	bool *isnull;
	double *values;
	int n;
	int i;

	check_element_type(array, FLOAT8OID, name);
	if (ARR_NDIM(array) == 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("%s must not be empty", name)));
	if (ARR_NDIM(array) != 2)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must be a two-dimensional array", name),
				 errdetail("It has %d dimension%s.", ARR_NDIM(array),
						   ARR_NDIM(array) == 1 ? "" : "s"),
				 errhint("Pass one row per point and one column per task, "
						 "with NULL where a task was not observed, for "
						 "example ARRAY[[1.0, NULL], [2.0, 3.0]].")));
	*rows = ARR_DIMS(array)[0];
	*cols = ARR_DIMS(array)[1];
	deconstruct_array(array, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL,
					  TYPALIGN_DOUBLE, &datums, &isnull, &n);
	values = palloc(mul_size(Max(n, 1), sizeof(double)));
	for (i = 0; i < n; i++)
	{
		if (isnull[i])
		{
			values[i] = get_float8_nan();
			continue;
		}
		values[i] = DatumGetFloat8(datums[i]);
		if (!isfinite(values[i]))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("%s must not contain NaN or infinity", name),
					 errdetail("Row %d, column %d is %s.", i / *cols + 1,
							   i % *cols + 1,
							   isnan(values[i]) ? "NaN" : "infinite"),
					 errhint("Use NULL for an entry that was not observed.")));
	}
	pfree(datums);
	pfree(isnull);
	return values;
}

/* A 1-D int4[] without NULLs; *n is its length (0 for '{}'). */
int *
tuner_array_int4(ArrayType *array, const char *name, int *n)
{
	int *values;

	check_element_type(array, INT4OID, name);
	if (ARR_NDIM(array) > 1)
		ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
						errmsg("%s must be a one-dimensional array", name)));
	check_no_nulls(array, name);
	*n = ARR_NDIM(array) == 0 ? 0 : ARR_DIMS(array)[0];
	values = palloc(mul_size(Max(*n, 1), sizeof(int)));
	if (*n > 0)
		memcpy(values, ARR_DATA_PTR(array), mul_size(*n, sizeof(int32)));
	return values;
}

/* A 1-D bool[] without NULLs; *n is its length (0 for '{}'). */
bool *
tuner_array_bool(ArrayType *array, const char *name, int *n)
{
	bool *values;

	check_element_type(array, BOOLOID, name);
	if (ARR_NDIM(array) > 1)
		ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
						errmsg("%s must be a one-dimensional array", name)));
	check_no_nulls(array, name);
	*n = ARR_NDIM(array) == 0 ? 0 : ARR_DIMS(array)[0];
	values = palloc(mul_size(Max(*n, 1), sizeof(bool)));
	if (*n > 0)
		memcpy(values, ARR_DATA_PTR(array), mul_size(*n, sizeof(bool)));
	return values;
}

/* A float8[] of n values, in the current memory context. */
ArrayType *
tuner_float8_array(const double *values, int n)
{
	Datum *datums;
	int i;

	datums = palloc(mul_size(Max(n, 1), sizeof(Datum)));
	for (i = 0; i < n; i++)
		datums[i] = Float8GetDatum(values[i]);
	return construct_array(datums, n, FLOAT8OID, sizeof(float8),
						   FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
}

/*
 * A 2-D float8[] (rows x cols) of row-major values, NaN written as NULL, in
 * the current memory context.
 */
ArrayType *
tuner_float8_matrix(const double *values, int rows, int cols)
{
	Datum *datums;
	bool *nulls;
	int dims[2];
	int lbs[2] = {1, 1};
	int n = rows * cols;
	int i;

	datums = palloc(mul_size(Max(n, 1), sizeof(Datum)));
	nulls = palloc(mul_size(Max(n, 1), sizeof(bool)));
	for (i = 0; i < n; i++)
	{
		nulls[i] = isnan(values[i]);
		datums[i] = Float8GetDatum(nulls[i] ? 0.0 : values[i]);
	}
	dims[0] = rows;
	dims[1] = cols;
	return construct_md_array(datums, nulls, 2, dims, lbs, FLOAT8OID,
							  sizeof(float8), FLOAT8PASSBYVAL,
							  TYPALIGN_DOUBLE);
}

/* Raise an error for a NULL argument the SQL wrappers should never pass. */
void
tuner_require_arg(FunctionCallInfo fcinfo, int argno, const char *name)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						errmsg("%s must not be NULL", name)));
}

/* Reject NaN and infinity in a scalar argument. */
void
tuner_check_finite(double value, const char *name)
{
	if (!isfinite(value))
		ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
						errmsg("%s must not be NaN or infinity", name)));
}

/* Reject a scale hyperparameter that is not a positive normal number. */
void
tuner_check_scale(double value, const char *name, int element, bool allow_zero)
{
	char where[64];

	if (element > 0)
		snprintf(where, sizeof(where), "Element %d", element);
	else
		snprintf(where, sizeof(where), "It");
	tuner_check_finite(value, name);
	if (value < 0.0 || (value == 0.0 && !allow_zero))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg(allow_zero ? "%s must not be negative"
										  : "%s must be positive",
							   name),
						errdetail("%s is %g.", where, value)));
	if (fpclassify(value) == FP_SUBNORMAL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must not be subnormal", name),
				 errdetail("%s is %g, below the smallest normal double %g.",
						   where, value, DBL_MIN),
				 errhint("Such a value loses all precision in the kernel "
						 "and turns the model into NaN.")));
}

/* Lengthscales: positive, normal, and with a finite inverse square. */
void
tuner_check_lengthscales(const double *values, int n)
{
	int k;

	for (k = 0; k < n; k++)
	{
		tuner_check_scale(values[k], "lengthscales", k + 1, false);
		/* 1 / l^2 must stay finite (sqrt(DBL_MIN) is 1.5e-154) */
		if (values[k] < 1e-150)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("lengthscales must be at least 1e-150"),
					 errdetail("Element %d is %g; the kernel divides by its "
							   "square, which overflows.",
							   k + 1, values[k]),
					 errhint("Lengthscales are in the units of x; a "
							 "lengthscale this small makes the model NaN.")));
	}
}

/* Raise the error a failed src/core call recorded in status. */
void
tuner_report_status(const TunerStatus *status, const char *what)
{
	switch (status->code)
	{
		case TUNER_ERR_NOMEM:
			ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY),
							errmsg("out of memory in %s: %s", what,
								   status->message)));
			break;
		case TUNER_ERR_INVALID:
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("invalid input to %s: %s", what,
								   status->message)));
			break;
		case TUNER_ERR_NUMERIC:
			ereport(
				ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("numerical failure in %s: %s", what, status->message),
				 errhint("The covariance matrix stayed singular; look "
						 "for extreme values or rescale the inputs.")));
			break;
		case TUNER_ERR_EXHAUSTED:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("search space exhausted: %s", status->message),
					 errhint("Every configuration has been tried; widen the "
							 "bounds or add parameters or choices.")));
			break;
		case TUNER_ERR_INTERRUPTED:
			/*
			 * The core polled a pending cancel or termination and returned
			 * cleanly; let PostgreSQL raise its own error for it.  If the
			 * interrupt was absorbed in between, still stop the statement.
			 */
			CHECK_FOR_INTERRUPTS();
			ereport(ERROR,
					(errcode(ERRCODE_QUERY_CANCELED),
					 errmsg("canceling %s: %s", what, status->message)));
			break;
		case TUNER_OK:
			break;
	}
	elog(ERROR, "%s failed with unknown status %d: %s", what,
		 (int)status->code, status->message);
}
