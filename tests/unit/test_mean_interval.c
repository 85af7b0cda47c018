/*
 * test_mean_interval.c
 *	  The confirmation's statistics (mean_interval.c) against closed forms
 *	  (df 1 is Cauchy, df 2 has an algebraic cdf) and against SciPy 1.10
 *	  (Debian's python3-scipy: stats.t.cdf, stats.t.ppf, stats.t.interval,
 *	  stats.ttest_1samp), whose values are quoted below; and the refusals.
 */
#include <math.h>

#include "mean_interval.h"
#include "unit.h"

static void
closed_forms(void)
{
	for (double t = -30; t <= 30; t += 0.37)
	{
		CHECK_CLOSE(tuner_student_t_cdf(t, 1), 0.5 + atan(t) / M_PI, 1e-12);
		CHECK_CLOSE(tuner_student_t_cdf(t, 2),
					0.5 + t / (2 * sqrt(2 + t * t)), 1e-12);
	}
	for (double p = 0.01; p < 1; p += 0.049)
	{
		CHECK_CLOSE(tuner_student_t_quantile(p, 1), tan(M_PI * (p - 0.5)),
					1e-9);
		CHECK_CLOSE(tuner_student_t_cdf(tuner_student_t_quantile(p, 6.5), 6.5),
					p, 1e-12);
	}
}

/*
 * SciPy's ppf is good to about 1e-9 here (its own cdf at its ppf(0.995, 9)
 * is 0.995 + 1.9e-11; at ours, 0.995 - 1e-16), hence 1e-8 for quantiles.
 */
static void
against_scipy(void)
{
	CHECK_CLOSE(tuner_student_t_cdf(2.0, 3), 0.9303370157205785, 1e-12);
	CHECK_CLOSE(tuner_student_t_cdf(-1.5, 7.5), 0.08724028529323215, 1e-12);
	CHECK_CLOSE(tuner_student_t_cdf(0.3, 1), 0.5927735790777423, 1e-12);
	CHECK_CLOSE(tuner_student_t_cdf(4.0, 2), 0.9714045207910317, 1e-12);
	CHECK_CLOSE(tuner_student_t_cdf(10.0, 30), 0.9999999999771237, 1e-12);
	CHECK_CLOSE(tuner_student_t_cdf(1.96, 1e6), 0.9750019662073651, 1e-10);
	CHECK_CLOSE(tuner_student_t_quantile(0.975, 2), 4.302652729911275, 1e-8);
	CHECK_CLOSE(tuner_student_t_quantile(0.975, 4), 2.7764451051977987, 1e-8);
	CHECK_CLOSE(tuner_student_t_quantile(0.995, 9), 3.2498355440153697, 1e-8);
	CHECK_CLOSE(tuner_student_t_quantile(0.025, 5), -2.57058183661474, 1e-8);
	CHECK_CLOSE(tuner_student_t_quantile(0.9, 1), 3.0776835372078066, 1e-8);
}

/* Five paired ratios 1.12, 1.05, 0.98, 1.20, 1.09, as their logs. */
static void
interval(void)
{
	double ratios[5] = {1.12, 1.05, 0.98, 1.20, 1.09};
	double x[5];
	TunerMeanInterval mi;
	TunerStatus status;

	for (int i = 0; i < 5; i++)
		x[i] = log(ratios[i]);
	CHECK(tuner_mean_interval(x, 5, 0.95, &mi, &status) == TUNER_OK);
	CHECK(mi.n == 5);
	CHECK_CLOSE(mi.mean, 0.08208307903878458, 1e-12);
	CHECK_CLOSE(mi.sd, 0.07518578072814168, 1e-12);
	CHECK_CLOSE(mi.low, -0.011272398068191511, 1e-9);
	CHECK_CLOSE(mi.high, 0.17543855614576065, 1e-9);
	CHECK_CLOSE(mi.p_value, 0.07111653652071598, 1e-10);

	/* identical measurements: no spread, the interval is the point */
	x[0] = x[1] = x[2] = 0.25;
	CHECK(tuner_mean_interval(x, 3, 0.95, &mi, &status) == TUNER_OK);
	CHECK(mi.low == 0.25 && mi.high == 0.25 && mi.p_value == 0.0);
	x[0] = x[1] = 0.0;
	CHECK(tuner_mean_interval(x, 2, 0.95, &mi, &status) == TUNER_OK);
	CHECK(mi.p_value == 1.0);
}

static void
refusals(void)
{
	double x[3] = {0.1, NAN, 0.2};
	TunerMeanInterval mi;
	TunerStatus status;

	CHECK(tuner_mean_interval(x, 1, 0.95, &mi, &status) == TUNER_ERR_INVALID);
	CHECK(tuner_mean_interval(x, 3, 0.95, &mi, &status) == TUNER_ERR_INVALID);
	x[1] = INFINITY;
	CHECK(tuner_mean_interval(x, 3, 0.95, &mi, &status) == TUNER_ERR_INVALID);
	x[1] = 0.3;
	CHECK(tuner_mean_interval(x, 3, 1.0, &mi, &status) == TUNER_ERR_INVALID);
	CHECK(tuner_mean_interval(x, 3, 0.0, &mi, &status) == TUNER_ERR_INVALID);
	CHECK(tuner_mean_interval(x, 3, NAN, &mi, &status) == TUNER_ERR_INVALID);
	CHECK(isnan(tuner_student_t_cdf(1.0, 0.0)));
	CHECK(isnan(tuner_student_t_cdf(NAN, 3.0)));
	CHECK(isnan(tuner_student_t_quantile(1.0, 3.0)));
	CHECK(tuner_student_t_cdf(INFINITY, 3.0) == 1.0);
}

void
test_mean_interval(void)
{
	closed_forms();
	against_scipy();
	interval();
	refusals();
}
