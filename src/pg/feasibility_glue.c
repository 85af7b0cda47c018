/*
 * feasibility_glue.c
 *	  SQL access to a stored feasibility or constraint model's probability
 *	  (src/core/feasibility.h, feasibility_term_predict), with which
 *	  tuner.predict_feasibility answers as the acquisition's model does,
 *	  and to the normal CDF of src/core/log_ei.h.
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"
#include "utils/array.h"

#include "feasibility.h"
#include "log_ei.h"
#include "tuner_pg.h"

PG_FUNCTION_INFO_V1(tuner_normal_cdf);
PG_FUNCTION_INFO_V1(tuner_feasibility_predict);

/* tuner._normal_cdf(z float8): Phi(z). */
Datum
tuner_normal_cdf(PG_FUNCTION_ARGS)
{
	double z = PG_GETARG_FLOAT8(0);

	if (isnan(z))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("z must not be NaN")));
	if (isinf(z))
		PG_RETURN_FLOAT8(z > 0 ? 1.0 : 0.0);
	PG_RETURN_FLOAT8(exp(log_normal_cdf(z)));
}

/*
 * tuner._feasibility_predict(train_x float8[], y float8[], lengthscales
 * float8[], outputscale, noise, mean, categories int[], with_trend bool,
 * bound, calibration_threshold, calibration_spread, x float8[]):
 * P(holds) of one stored term at each row of x.  train_x and x are unit
 * cube points (rows), y the standardised outcome before any trend, the
 * calibration both NULL (none) or both set.
 */
Datum
tuner_feasibility_predict(PG_FUNCTION_ARGS)
{
	FeasibilityTermSpec spec;
	TunerStatus status;
	GpArgs args;
	double *x, *log_p;
	int *categories;
	int nc, m, dx, d, i;

	tuner_read_gp_training_data(fcinfo, 0, 1, "train_x", "y", &args);
	tuner_read_gp_hyperparameters(fcinfo, 2, &args);
	d = args.d;
	spec.lengthscales = args.lengthscales;
	spec.outputscale = args.outputscale;
	spec.noise = args.noise;
	spec.mean = args.mean;
	tuner_require_arg(fcinfo, 6, "categories");
	tuner_require_arg(fcinfo, 7, "with_trend");
	tuner_require_arg(fcinfo, 11, "x");
	categories = tuner_array_int4(PG_GETARG_ARRAYTYPE_P(6), "categories", &nc);
	if (nc != d)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("categories must have one element per column of "
						"train_x"),
				 errdetail("categories has %d elements but train_x has %d "
						   "columns.",
						   nc, d)));
	for (i = 0; i < d; i++)
		if (categories[i] < 0 || categories[i] == 1 || categories[i] == 2)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("categories must be 0 (ordered) or a number of "
							"choices of at least 3"),
					 errdetail("Element %d is %d.", i + 1, categories[i])));
	spec.with_trend = PG_GETARG_BOOL(7) ? 1 : 0;
	tuner_require_arg(fcinfo, 8, "bound");
	spec.bound = PG_GETARG_FLOAT8(8);
	tuner_check_finite(spec.bound, "bound");
	if (PG_ARGISNULL(9) != PG_ARGISNULL(10))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("calibration_threshold and calibration_spread must "
						"both be NULL or both be set")));
	spec.calibrated = !PG_ARGISNULL(9);
	spec.calibration_threshold = spec.calibration_spread = 0.0;
	if (spec.calibrated)
	{
		if (!spec.with_trend)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("only a model with a trend has a calibration"),
					 errhint("The failure model (kind 'feasibility') has "
							 "both; an outcome constraint's has neither.")));
		spec.calibration_threshold = PG_GETARG_FLOAT8(9);
		tuner_check_finite(spec.calibration_threshold,
						   "calibration_threshold");
		spec.calibration_spread = PG_GETARG_FLOAT8(10);
		tuner_check_finite(spec.calibration_spread, "calibration_spread");
		if (!(spec.calibration_spread > 0.0))
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("calibration_spread must be positive"),
							errdetail("It is %g.", spec.calibration_spread)));
	}
	x = tuner_array_matrix(PG_GETARG_ARRAYTYPE_P(11), "x", false, &m, &dx);
	if (dx != d)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("x must have as many columns as train_x"),
				 errdetail("x has %d columns but train_x has %d.", dx, d)));

	log_p = palloc(mul_size(m, sizeof(double)));
	tuner_status_clear(&status);
	if (feasibility_term_predict(args.x, args.y, args.n, d, categories, &spec,
								 x, m, log_p, &status) != TUNER_OK)
		tuner_report_status(&status, "feasibility prediction");
	for (i = 0; i < m; i++)
		log_p[i] = exp(log_p[i]);
	PG_RETURN_ARRAYTYPE_P(tuner_float8_array(log_p, m));
}
