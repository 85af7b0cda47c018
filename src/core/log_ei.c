/*
 * log_ei.c
 *	  Numerically stable log expected improvement.
 *
 *	  For z < 0 we write h(z) = phi(z) (1 - |z| sqrt(pi/2) erfcx(|z|/sqrt2)),
 *	  where erfcx(t) = exp(t^2) erfc(t) stays O(1/t).  For z far below zero
 *	  the bracket suffers cancellation and we use the asymptotic
 *	  h(z) ~ phi(z) / z^2 (1 - 3/z^2 + 15/z^4).
 */
#include <math.h>

#include "log_ei.h"

#define LOG_SQRT_2PI   0.91893853320467274178
#define SQRT_PI_OVER_2 1.25331413731550025121

/* exp(t^2) erfc(t) for t >= 0, accurate to a few ulp over the whole range. */
static double
erfcx_nonneg(double t)
{
	if (t < 25.0)
		return exp(t * t) * erfc(t);
	/* asymptotic series; at t >= 25 the first omitted term is below 1e-14 */
	{
		double inv2 = 1.0 / (t * t);

		return (1.0 / (t * sqrt(M_PI))) *
			   (1.0 +
				inv2 * (-0.5 +
						inv2 * (0.75 +
								inv2 * (-1.875 +
										inv2 * (6.5625 - 29.53125 * inv2)))));
	}
}

/* log(1 - exp(a)) for a < 0. */
static double
log1mexp(double a)
{
	return a > -M_LN2 ? log(-expm1(a)) : log1p(-exp(a));
}

double
log_ei_log_h(double z)
{
	double log_phi = -0.5 * z * z - LOG_SQRT_2PI;

	if (z > -1.0)
	{
		double cdf = 0.5 * erfc(-z / M_SQRT2);
		double pdf = exp(log_phi);

		return log(z * cdf + pdf);
	}
	if (z > -1e4)
	{
		double a = -z;
		/* log(a sqrt(pi/2) erfcx(a / sqrt2)), slightly below 0 */
		double log_t = log(a * SQRT_PI_OVER_2 * erfcx_nonneg(a / M_SQRT2));

		return log_phi + log1mexp(log_t);
	}
	{
		double inv2 = 1.0 / (z * z);

		return log_phi + log(inv2) + log1p(-3.0 * inv2 + 15.0 * inv2 * inv2);
	}
}

double
log_ei_dlog_h(double z)
{
	/* Phi(z) / h(z) = exp(log Phi(z) - log h(z)) */
	double log_cdf;

	if (z > -1.0)
		log_cdf = log(0.5 * erfc(-z / M_SQRT2));
	else
	{
		double a = -z;

		/* Phi(z) = phi(z) sqrt(pi/2) erfcx(a / sqrt2) */
		log_cdf = -0.5 * z * z - LOG_SQRT_2PI +
				  log(SQRT_PI_OVER_2 * erfcx_nonneg(a / M_SQRT2));
	}
	return exp(log_cdf - log_ei_log_h(z));
}

/* log Phi(z); see log_ei.h.  Below -1 through erfcx, as in dlog_h. */
double
log_normal_cdf(double z)
{
	if (z > -1.0)
		return log(0.5 * erfc(-z / M_SQRT2));
	return -0.5 * z * z - LOG_SQRT_2PI +
		   log(SQRT_PI_OVER_2 * erfcx_nonneg(-z / M_SQRT2));
}

/* phi(z) / Phi(z); see log_ei.h. */
double
dlog_normal_cdf(double z)
{
	if (z > -1.0)
		return exp(-0.5 * z * z - LOG_SQRT_2PI - log_normal_cdf(z));
	return 1.0 / (SQRT_PI_OVER_2 * erfcx_nonneg(-z / M_SQRT2));
}

double
log_ei(double mu, double sd, double best)
{
	if (!(sd > 0.0))
		return mu < best ? log(best - mu) : -HUGE_VAL;
	return log(sd) + log_ei_log_h((best - mu) / sd);
}
