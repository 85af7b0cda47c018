/*
 * space.c
 *	  Encoding between native values and the unit cube.  Integers get bins of
 *	  equal width (in log space when log-scaled) so that rounding a uniform
 *	  point picks every integer about equally often; bools and categoricals
 *	  sit at the centres of their bins.  Also each value's grid and the
 *	  conditions of conditional parameters: a configuration's canonical
 *	  form.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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

TunerErrorCode
space_validate_conditions(const ParamSpec *params, const ParamCondition *conds,
						  int d, TunerStatus *status)
{
	int j, k;

	if (conds == NULL)
		return TUNER_OK;
	for (j = 0; j < d; j++)
	{
		const ParamCondition *c = &conds[j];

		if (c->op == COND_NONE)
			continue;
		if (c->op < COND_NONE || c->op > COND_NEVER)
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "the condition of parameter %d has an unknown "
							  "operator",
							  j + 1);
		if (!isfinite(c->inactive_value))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "the default of conditional parameter %d is "
							  "NaN or infinite",
							  j + 1);
		if (c->op == COND_NEVER)
			continue;
		if (c->parent < 0 || c->parent >= j)
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "the condition of parameter %d tests parameter "
							  "%d, which is not an earlier one",
							  j + 1, c->parent + 1);
		if (c->n_values < 0 || (c->n_values > 0 && c->values == NULL))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "the condition of parameter %d has no values",
							  j + 1);
		for (k = 0; k < c->n_values; k++)
			if (!isfinite(c->values[k]))
				return tuner_fail(status, TUNER_ERR_INVALID,
								  "the condition of parameter %d compares "
								  "with NaN or infinity",
								  j + 1);
		if (c->op >= COND_LT && c->op <= COND_GE)
		{
			if (c->n_values != 1)
				return tuner_fail(status, TUNER_ERR_INVALID,
								  "the condition of parameter %d compares "
								  "with %d values, not one",
								  j + 1, c->n_values);
			if (params[c->parent].kind != PARAM_FLOAT &&
				params[c->parent].kind != PARAM_INT)
				return tuner_fail(status, TUNER_ERR_INVALID,
								  "the condition of parameter %d orders "
								  "parameter %d, which is not a number",
								  j + 1, c->parent + 1);
		}
	}
	return TUNER_OK;
}

/* powers of ten that are exact doubles */
static const double exact_pow10[] = {
	1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/*
 * v rounded to `decimals` decimal places (negative: to a multiple of
 * 10^-decimals), as the double nearest that decimal.  With an exact power
 * of ten p, round(v p) is an exact integer below 2^53 here and one
 * division (or multiplication) by p rounds correctly; beyond them, by way
 * of the decimal text.
 */
static double
round_decimal(double v, int decimals)
{
	char buf[400];
	double scaled;

	if (decimals >= -22 && decimals <= 22)
	{
		scaled = decimals >= 0 ? v * exact_pow10[decimals]
							   : v / exact_pow10[-decimals];
		/* already a whole number of steps (a value far off its range) */
		if (!(fabs(scaled) < 4503599627370496.0)) /* 2^52 */
			return v;
		return decimals >= 0 ? round(scaled) / exact_pow10[decimals]
							 : round(scaled) * exact_pow10[-decimals];
	}
	if (decimals > 0 && decimals <= 340)
		snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	else
		snprintf(buf, sizeof(buf), "%.*e", FLOAT_GRID_DIGITS - 1, v);
	return strtod(buf, NULL);
}

/* A native value on its grid; see space.h. */
double
space_grid_value(const ParamSpec *p, double v)
{
	double scale, r;

	if (!isfinite(v))
		return v;
	switch (p->kind)
	{
		case PARAM_FLOAT:
			scale = p->log_scale ? fabs(v) : fmax(fabs(p->low), fabs(p->high));
			if (scale == 0.0)
				return 0.0;
			r = round_decimal(v, FLOAT_GRID_DIGITS - 1 -
									 (int)floor(log10(scale)));
			/* stay inside the bounds; +0.0 turns -0 into 0 */
			if (v >= p->low && r < p->low)
				r = p->low;
			if (v <= p->high && r > p->high)
				r = p->high;
			return r + 0.0;
		case PARAM_INT:
		case PARAM_CATEGORICAL:
			return floor(v + 0.5) + 0.0;
		case PARAM_BOOL:
			return v >= 0.5 ? 1.0 : 0.0;
	}
	return v;
}

/* Does the parent's value x satisfy condition c? */
static int
condition_holds(const ParamCondition *c, double x)
{
	int k;

	switch (c->op)
	{
		case COND_NONE:
			return 1;
		case COND_IN:
		case COND_NOT_IN:
			for (k = 0; k < c->n_values; k++)
				if (x == c->values[k])
					return c->op == COND_IN;
			return c->op == COND_NOT_IN;
		case COND_LT:
			return x < c->values[0];
		case COND_LE:
			return x <= c->values[0];
		case COND_GT:
			return x > c->values[0];
		case COND_GE:
			return x >= c->values[0];
		case COND_NEVER:
			return 0;
	}
	return 0;
}

/*
 * Is parameter j active?  With active (the flags of the parameters before
 * j, parents coming first), from its parent's flag; without, by walking
 * up its ancestors.
 */
static int
is_active(const ParamCondition *conds, const double *native, const int *active,
		  int j)
{
	const ParamCondition *c = &conds[j];

	if (active != NULL)
		return c->op == COND_NONE ||
			   (c->op != COND_NEVER && active[c->parent] &&
				condition_holds(c, native[c->parent]));
	for (;;)
	{
		c = &conds[j];
		if (c->op == COND_NONE)
			return 1;
		if (c->op == COND_NEVER || !condition_holds(c, native[c->parent]))
			return 0;
		j = c->parent;
	}
}

/* Which parameters are active; see space.h. */
int
space_active(const ParamCondition *conds, int d, const double *native,
			 int *active)
{
	int inactive = 0;
	int j;

	for (j = 0; j < d; j++)
	{
		active[j] = conds == NULL || is_active(conds, native, active, j);
		inactive += !active[j];
	}
	return inactive;
}

/* Canonical form; see space.h. */
void
space_canonical(const ParamSpec *params, const ParamCondition *conds, int d,
				double *native, double *unit, int *active)
{
	int j;

	for (j = 0; j < d; j++)
		native[j] = space_grid_value(&params[j], native[j]);
	space_apply_conditions(params, conds, d, native, unit, active);
}

/* Inactive parameters at their defaults; see space.h. */
void
space_apply_conditions(const ParamSpec *params, const ParamCondition *conds,
					   int d, double *native, double *unit, int *active)
{
	int j;

	if (conds == NULL)
		return;
	/*
	 * One pass, parents first: a parent's value and activity are final
	 * before its children test them.
	 */
	for (j = 0; j < d; j++)
	{
		const ParamCondition *c = &conds[j];
		int on = is_active(conds, native, active, j);

		if (active != NULL)
			active[j] = on;
		if (!on && native[j] != c->inactive_value)
		{
			native[j] = c->inactive_value;
			if (unit != NULL)
				unit[j] = to_unit_one(&params[j], native[j]);
		}
	}
}

/* Any condition?  See space.h. */
int
space_has_conditions(const ParamCondition *conds, int d)
{
	int j;

	for (j = 0; conds != NULL && j < d; j++)
		if (conds[j].op != COND_NONE)
			return 1;
	return 0;
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
