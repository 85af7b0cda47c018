/*
 * soft_bounds_glue.c
 *	  SQL entry points of src/core/soft_bounds.h over a tuner.parameter row:
 *	  tuner._near_bound(p, value, side, margin) and
 *	  tuner._widened_bound(p, side).  tuner._widen_soft_bounds decides with
 *	  them and records each change.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "executor/executor.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/float.h"

#include "soft_bounds.h"
#include "tuner_pg.h"

PG_FUNCTION_INFO_V1(tuner_near_bound);
PG_FUNCTION_INFO_V1(tuner_widened_bound);

static double
float_field(HeapTupleHeader p, const char *name)
{
	bool isnull;
	Datum d = GetAttributeByName(p, name, &isnull);

	return isnull ? get_float8_nan() : DatumGetFloat8(d);
}

/* The bounds of a float or int parameter with soft bounds. */
static void
read_bound(HeapTupleHeader p, SoftBound *b)
{
	bool isnull;
	Datum kind = GetAttributeByName(p, "kind", &isnull);
	Datum log_scale;

	if (isnull)
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						errmsg("the parameter has no kind")));
	b->is_int = strcmp(TextDatumGetCString(kind), "int") == 0;
	log_scale = GetAttributeByName(p, "log_scale", &isnull);
	b->log_scale = !isnull && DatumGetBool(log_scale);
	b->low = float_field(p, "low");
	b->high = float_field(p, "high");
	b->hard_low = float_field(p, "hard_low");
	b->hard_high = float_field(p, "hard_high");
	if (!isfinite(b->low) || !isfinite(b->high))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("a soft bound needs a float or int parameter "
							   "with finite bounds")));
}

/* 'low' or 'high'. */
static int
read_side(FunctionCallInfo fcinfo, int argno)
{
	char *side;

	tuner_require_arg(fcinfo, argno, "side");
	side = text_to_cstring(PG_GETARG_TEXT_PP(argno));
	if (strcmp(side, "low") == 0)
		return 0;
	if (strcmp(side, "high") == 0)
		return 1;
	ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					errmsg("side must be low or high, not \"%s\"", side)));
	return 0;
}

Datum
tuner_near_bound(PG_FUNCTION_ARGS)
{
	SoftBound b;
	double margin;

	tuner_require_arg(fcinfo, 0, "p");
	tuner_require_arg(fcinfo, 3, "margin");
	if (PG_ARGISNULL(1))
		PG_RETURN_BOOL(false);
	read_bound(PG_GETARG_HEAPTUPLEHEADER(0), &b);
	margin = PG_GETARG_FLOAT8(3);
	PG_RETURN_BOOL(soft_bound_near(&b, PG_GETARG_FLOAT8(1),
								   read_side(fcinfo, 2), margin) != 0);
}

Datum
tuner_widened_bound(PG_FUNCTION_ARGS)
{
	SoftBound b;

	tuner_require_arg(fcinfo, 0, "p");
	read_bound(PG_GETARG_HEAPTUPLEHEADER(0), &b);
	PG_RETURN_FLOAT8(soft_bound_widened(&b, read_side(fcinfo, 1)));
}
