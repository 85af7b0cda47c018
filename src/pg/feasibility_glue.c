/*
 * feasibility_glue.c
 *	  SQL access to the normal CDF of src/core/log_ei.h, with which
 *	  tuner.predict_feasibility turns a feasibility or constraint model's
 *	  posterior into a probability.
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"

#include "log_ei.h"
#include "tuner_pg.h"

PG_FUNCTION_INFO_V1(tuner_normal_cdf);

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
