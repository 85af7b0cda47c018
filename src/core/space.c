/*
 * space.c
 *	  Encoding between native values and the unit cube.  Integers get bins of
 *	  equal width (in log space when log-scaled) so that rounding a uniform
 *	  point picks every integer about equally often; bools and categoricals
 *	  sit at the centres of their bins.
 */
#include <math.h>

#include "space.h"

static double
clamp01(double v)
{
	return v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
}

TunerErrorCode
space_validate(const ParamSpec *params, int d, TunerStatus *status)
{
	int j;

	if (d < 1)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "the space has no parameters");
	for (j = 0; j < d; j++)
	{
		const ParamSpec *p = &params[j];

		switch (p->kind)
		{
			case PARAM_FLOAT:
			case PARAM_INT:
				if (!isfinite(p->low) || !isfinite(p->high))
					return tuner_fail(status, TUNER_ERR_INVALID,
									  "parameter %d has non-finite bounds",
									  j + 1);
				if (!(p->low < p->high) &&
					!(p->kind == PARAM_INT && p->low == p->high))
					return tuner_fail(status, TUNER_ERR_INVALID,
									  "parameter %d has low >= high", j + 1);
				if (p->log_scale && !(p->low > 0.0))
					return tuner_fail(
						status, TUNER_ERR_INVALID,
						"parameter %d is log-scaled but low <= 0", j + 1);
				if (p->kind == PARAM_INT &&
					(p->low != floor(p->low) || p->high != floor(p->high)))
					return tuner_fail(
						status, TUNER_ERR_INVALID,
						"integer parameter %d has fractional bounds", j + 1);
				break;
			case PARAM_BOOL:
				break;
			case PARAM_CATEGORICAL:
				if (p->n_choices < 1)
					return tuner_fail(
						status, TUNER_ERR_INVALID,
						"categorical parameter %d has no choices", j + 1);
				break;
			default:
				return tuner_fail(status, TUNER_ERR_INVALID,
								  "parameter %d has an unknown kind", j + 1);
		}
	}
	return TUNER_OK;
}

/* Edges of an integer parameter's bins, in the encoding's (log) space. */
static void
int_edges(const ParamSpec *p, double *lo, double *hi)
{
	if (p->log_scale)
	{
		*lo = log(p->low - 0.5 > 0.0 ? p->low - 0.5 : p->low * 0.5);
		*hi = log(p->high + 0.5);
	}
	else
	{
		*lo = p->low - 0.5;
		*hi = p->high + 0.5;
	}
}

static double
to_unit_one(const ParamSpec *p, double v)
{
	double lo, hi;

	switch (p->kind)
	{
		case PARAM_FLOAT:
			if (p->log_scale)
				return clamp01((log(v) - log(p->low)) /
							   (log(p->high) - log(p->low)));
			return clamp01((v - p->low) / (p->high - p->low));
		case PARAM_INT:
			int_edges(p, &lo, &hi);
			if (p->log_scale)
				return clamp01((log(v) - lo) / (hi - lo));
			return clamp01((v - lo) / (hi - lo));
		case PARAM_BOOL:
			return v >= 0.5 ? 0.75 : 0.25;
		case PARAM_CATEGORICAL:
			return clamp01((floor(v) + 0.5) / p->n_choices);
	}
	return 0.5;
}

static double
from_unit_one(const ParamSpec *p, double u)
{
	double lo, hi, v;

	u = clamp01(u);
	switch (p->kind)
	{
		case PARAM_FLOAT:
			if (p->log_scale)
				v = exp(log(p->low) + u * (log(p->high) - log(p->low)));
			else
				v = p->low + u * (p->high - p->low);
			return v < p->low ? p->low : (v > p->high ? p->high : v);
		case PARAM_INT:
			int_edges(p, &lo, &hi);
			v = lo + u * (hi - lo);
			if (p->log_scale)
				v = exp(v);
			v = floor(v + 0.5);
			return v < p->low ? p->low : (v > p->high ? p->high : v);
		case PARAM_BOOL:
			return u >= 0.5 ? 1.0 : 0.0;
		case PARAM_CATEGORICAL:
			v = floor(u * p->n_choices);
			return v > p->n_choices - 1 ? p->n_choices - 1 : v;
	}
	return 0.0;
}

void
space_to_unit(const ParamSpec *params, int d, const double *native,
			  double *unit)
{
	int j;

	for (j = 0; j < d; j++)
		unit[j] = to_unit_one(&params[j], native[j]);
}

void
space_from_unit(const ParamSpec *params, int d, const double *unit,
				double *native)
{
	int j;

	for (j = 0; j < d; j++)
		native[j] = from_unit_one(&params[j], unit[j]);
}

void
space_snap_unit(const ParamSpec *params, int d, double *unit)
{
	int j;

	for (j = 0; j < d; j++)
		if (params[j].kind != PARAM_FLOAT)
			unit[j] =
				to_unit_one(&params[j], from_unit_one(&params[j], unit[j]));
		else
			unit[j] = clamp01(unit[j]);
}

int
space_same_config(const ParamSpec *params, int d, const double *a,
				  const double *b)
{
	int j;

	for (j = 0; j < d; j++)
	{
		if (params[j].kind == PARAM_FLOAT)
		{
			/* floats closer than 1e-9 of their range are the same setting */
			double tol = 1e-9 * fabs(params[j].high - params[j].low);

			if (fabs(a[j] - b[j]) > tol)
				return 0;
		}
		else if (a[j] != b[j])
			return 0;
	}
	return 1;
}

double
space_cardinality(const ParamSpec *params, int d)
{
	double count = 1.0;
	int j;

	for (j = 0; j < d; j++)
	{
		switch (params[j].kind)
		{
			case PARAM_FLOAT:
				return -1.0;
			case PARAM_INT:
				count *= params[j].high - params[j].low + 1.0;
				break;
			case PARAM_BOOL:
				count *= 2.0;
				break;
			case PARAM_CATEGORICAL:
				count *= params[j].n_choices;
				break;
		}
		if (count > 1e15)
			return -1.0;
	}
	return count;
}

/* The models' input metric; see space.h. */
int
space_kernel_categories(const ParamSpec *params, int d, int *categories)
{
	int count = 0;
	int j;

	for (j = 0; j < d; j++)
	{
		categories[j] = 0;
		if (params[j].kind == PARAM_CATEGORICAL && params[j].n_choices >= 3)
		{
			categories[j] = params[j].n_choices;
			count++;
		}
	}
	return count;
}
