/*
 * mean_interval.c
 *	  Student's t interval and test of a mean (see mean_interval.h).
 *
 *	  The t distribution's cdf is the regularized incomplete beta function
 *	  I_x(df/2, 1/2) at x = df / (df + t^2), evaluated by its continued
 *	  fraction (modified Lentz), which converges fast for x below
 *	  (a + 1) / (a + b + 2) and otherwise through the symmetry
 *	  I_x(a, b) = 1 - I_{1-x}(b, a).  The quantile inverts the cdf by
 *	  bisection: confirmations are a handful of calls, and bisection cannot
 *	  fail where Newton's method on a heavy tail can.
 */
#include "mean_interval.h"

#include <math.h>

#define BETA_CF_ITERATIONS 300
#define BETA_CF_EPS        1e-15
#define BETA_CF_TINY       1e-300

/* The continued fraction of I_x(a, b) (without its prefactor). */
static double
beta_continued_fraction(double a, double b, double x)
{
	double c = 1.0;
	double d = 1.0 - (a + b) * x / (a + 1.0);
	double h;

	if (fabs(d) < BETA_CF_TINY)
		d = BETA_CF_TINY;
	d = 1.0 / d;
	h = d;
	for (int m = 1; m <= BETA_CF_ITERATIONS; m++)
	{
		double m2 = 2.0 * m;
		double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
		double delta;

		/* the even step */
		d = 1.0 + num * d;
		if (fabs(d) < BETA_CF_TINY)
			d = BETA_CF_TINY;
		c = 1.0 + num / c;
		if (fabs(c) < BETA_CF_TINY)
			c = BETA_CF_TINY;
		d = 1.0 / d;
		h *= d * c;
		/* the odd step */
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
		d = 1.0 + num * d;
		if (fabs(d) < BETA_CF_TINY)
			d = BETA_CF_TINY;
		c = 1.0 + num / c;
		if (fabs(c) < BETA_CF_TINY)
			c = BETA_CF_TINY;
		d = 1.0 / d;
		delta = d * c;
		h *= delta;
		if (fabs(delta - 1.0) < BETA_CF_EPS)
			break;
	}
	return h;
}

/* The regularized incomplete beta function I_x(a, b), 0 <= x <= 1. */
static double
regularized_beta(double a, double b, double x)
{
	double front;

	if (x <= 0.0)
		return 0.0;
	if (x >= 1.0)
		return 1.0;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
				b * log1p(-x));
	if (x < (a + 1.0) / (a + b + 2.0))
		return front * beta_continued_fraction(a, b, x) / a;
	return 1.0 - front * beta_continued_fraction(b, a, 1.0 - x) / b;
}

double
tuner_student_t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || !(df > 0.0))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1.0 : 0.0;
	/* P(T > |t|) = I_x(df/2, 1/2) / 2 */
	tail = 0.5 * regularized_beta(0.5 * df, 0.5, df / (df + t * t));
	return t >= 0 ? 1.0 - tail : tail;
}

double
tuner_student_t_quantile(double p, double df)
{
	double low = 0.0;
	double high = 1.0;
	double target;

	if (!(p > 0.0 && p < 1.0) || !(df > 0.0))
		return NAN;
	if (p == 0.5)
		return 0.0;
	/* the upper half, by symmetry */
	target = p > 0.5 ? p : 1.0 - p;
	while (tuner_student_t_cdf(high, df) < target && high < 1e300)
		high *= 2.0;
	for (int i = 0; i < 200 && high - low > 1e-15 * high; i++)
	{
		double mid = 0.5 * (low + high);

		if (tuner_student_t_cdf(mid, df) < target)
			low = mid;
		else
			high = mid;
	}
	return p > 0.5 ? 0.5 * (low + high) : -0.5 * (low + high);
}

TunerErrorCode
tuner_mean_interval(const double *x, int n, double level,
					TunerMeanInterval *out, TunerStatus *status)
{
	double sum = 0.0;
	double ss = 0.0;
	double mean;
	double se;
	double q;

	tuner_status_clear(status);
	if (n < 2)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "an interval needs at least 2 measurements, got %d",
						  n);
	if (!(level > 0.0 && level < 1.0))
		return tuner_fail(
			status, TUNER_ERR_INVALID,
			"the level must lie strictly between 0 and 1, got %g", level);
	for (int i = 0; i < n; i++)
	{
		if (!isfinite(x[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "measurement %d is not finite", i + 1);
		sum += x[i];
	}
	mean = sum / n;
	for (int i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	out->n = n;
	out->mean = mean;
	out->sd = sqrt(ss / (n - 1));
	se = out->sd / sqrt((double)n);
	if (se == 0.0)
	{
		out->low = out->high = mean;
		out->p_value = mean == 0.0 ? 1.0 : 0.0;
		return TUNER_OK;
	}
	q = tuner_student_t_quantile(0.5 + 0.5 * level, n - 1);
	out->low = mean - q * se;
	out->high = mean + q * se;
	out->p_value = 2.0 * tuner_student_t_cdf(-fabs(mean / se), n - 1);
	return TUNER_OK;
}
