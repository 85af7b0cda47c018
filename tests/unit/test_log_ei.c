/*
 * test_log_ei.c
 *	  log h(z) against the direct formula where that is accurate, against the
 *	  asymptotic expansion where it is not, continuity across the branches,
 *	  and the derivative against finite differences.
 */
#include <math.h>

#include "log_ei.h"
#include "unit.h"

static double
direct_h(double z)
{
	return z * 0.5 * erfc(-z / M_SQRT2) + exp(-0.5 * z * z) / sqrt(2 * M_PI);
}

void
test_log_ei(void)
{
	double		z;
	double		prev = -HUGE_VAL;

	/* where the direct formula has no cancellation */
	for (z = -3.0; z <= 5.0; z += 0.25)
		CHECK_CLOSE(log_ei_log_h(z), log(direct_h(z)), 1e-12);

	/* h(0) = phi(0) */
	CHECK_CLOSE(log_ei_log_h(0.0), -0.5 * log(2 * M_PI), 1e-15);

	/* far left: h(z) ~ phi(z) / z^2 (1 - 3/z^2 + 15/z^4) */
	for (z = -40.0; z >= -1e7; z *= 3.0)
	{
		double		expect = -0.5 * z * z - 0.5 * log(2 * M_PI) - 2 * log(-z)
			+ log1p(-3 / (z * z) + 15 / (z * z * z * z));

		CHECK_CLOSE(log_ei_log_h(z), expect, 1e-9);
		CHECK(isfinite(log_ei_log_h(z)));
	}

	/* monotone increasing and continuous across the branch points */
	for (z = -2e4; z < 10.0; z = z < -10 ? z * 0.93 : z + 0.01)
	{
		double		v = log_ei_log_h(z);

		if (!(v > prev))
		{
			CHECK(v > prev);
			break;
		}
		prev = v;
	}
	CHECK_CLOSE(log_ei_log_h(-1.0 - 1e-12), log_ei_log_h(-1.0 + 1e-12), 1e-9);
	CHECK_CLOSE(log_ei_log_h(-1e4 - 1e-8), log_ei_log_h(-1e4 + 1e-8), 1e-9);

	/* derivative against a central difference */
	{
		double		zs[] = {-5000.0, -300.0, -30.0, -8.0, -1.5, -0.5, 0.0, 1.0, 4.0};
		int			i;

		for (i = 0; i < (int) (sizeof(zs) / sizeof(zs[0])); i++)
		{
			double		h = 1e-5 * fmax(1.0, fabs(zs[i]));
			double		fd = (log_ei_log_h(zs[i] + h) - log_ei_log_h(zs[i] - h)) / (2 * h);

			CHECK_CLOSE(log_ei_dlog_h(zs[i]), fd, 1e-6);
		}
	}

	/* log_ei: zero sd is handled, a huge gap stays finite */
	CHECK_CLOSE(log_ei(1.0, 0.0, 3.0), log(2.0), 1e-15);
	CHECK(log_ei(3.0, 0.0, 1.0) == -HUGE_VAL);
	CHECK(isfinite(log_ei(1e6, 1e-3, 0.0)));
}
