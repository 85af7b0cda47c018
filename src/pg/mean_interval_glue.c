/*
 * mean_interval_glue.c
 *	  SQL entry point of the confirmation's statistics
 *	  (src/core/mean_interval.h): tuner._mean_interval(values, level)
 *	  returns n, mean, sd, the t interval of the mean and the p-value
 *	  against a mean of 0.  tuner.confirmation passes the log ratios of
 *	  the confirmation pairs.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"

#include "mean_interval.h"
#include "tuner_pg.h"

PG_FUNCTION_INFO_V1(tuner_mean_interval_sql);

#define INTERVAL_NATTS 6

Datum
tuner_mean_interval_sql(PG_FUNCTION_ARGS)
{
	TupleDesc tupdesc;
	Datum values[INTERVAL_NATTS];
	bool nulls[INTERVAL_NATTS] = {false};
	TunerMeanInterval mi;
	TunerStatus status;
	double *x;
	double level;
	int n;

	tuner_require_arg(fcinfo, 0, "values");
	tuner_require_arg(fcinfo, 1, "level");
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "tuner._mean_interval must return a record");
	tupdesc = BlessTupleDesc(tupdesc);
	x = tuner_array_vector(PG_GETARG_ARRAYTYPE_P(0), "values", &n);
	level = PG_GETARG_FLOAT8(1);
	tuner_check_finite(level, "level");
	if (tuner_mean_interval(x, n, level, &mi, &status) != TUNER_OK)
		tuner_report_status(&status, "the confidence interval");
	values[0] = Int32GetDatum(mi.n);
	values[1] = Float8GetDatum(mi.mean);
	values[2] = Float8GetDatum(mi.sd);
	values[3] = Float8GetDatum(mi.low);
	values[4] = Float8GetDatum(mi.high);
	values[5] = Float8GetDatum(mi.p_value);
	PG_RETURN_DATUM(
		HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
