/*
 * test_icm_units.c
 *	  The ICM model in the caller's units (icm_units.h): per-task
 *	  standardisation with missing entries and its fallbacks, unit-cube
 *	  scaling of x, the exact equivalence of a standardised model and its
 *	  converted hyperparameters (on both the full and the Kronecker path),
 *	  and a fit in the caller's units that does not depend on them.
 */
#include <math.h>
#include <string.h>

#include "icm.h"
#include "icm_units.h"
#include "rng.h"
#include "unit.h"

/* 1. Per-task mean and sd over observed values, and the fallbacks. */
static void
test_standardise(void)
{
	/* tasks: plain, one observation, constant, scaled with a gap */
	double y[4 * 4] = {
		1.0, NAN, 7.0, 10.0, /* */
		2.0, 5.0, 7.0, 30.0, /* */
		3.0, NAN, 7.0, NAN,	 /* */
		NAN, NAN, 7.0, 20.0,
	};
	double yn[16], mu[4], s[4];
	double bad[2 * 2] = {1.0, NAN, 2.0, NAN};
	double inf[2 * 1] = {1.0, INFINITY};
	TunerStatus st;

	CHECK(icm_units_standardise_y(y, 4, 4, yn, mu, s, &st) == TUNER_OK);
	CHECK_CLOSE(mu[0], 2.0, 1e-15);
	CHECK_CLOSE(s[0], 1.0, 1e-15);
	CHECK_CLOSE(yn[0 * 4 + 0], -1.0, 1e-15);
	CHECK(isnan(yn[3 * 4 + 0]));
	/* one observation: centred, not scaled */
	CHECK_CLOSE(mu[1], 5.0, 1e-15);
	CHECK(s[1] == 1.0);
	CHECK(yn[1 * 4 + 1] == 0.0);
	CHECK(isnan(yn[0 * 4 + 1]) && isnan(yn[2 * 4 + 1]));
	/* zero variance: centred, not scaled */
	CHECK_CLOSE(mu[2], 7.0, 1e-15);
	CHECK(s[2] == 1.0);
	CHECK(yn[2 * 4 + 2] == 0.0);
	/* sample sd over the three observed values */
	CHECK_CLOSE(mu[3], 20.0, 1e-15);
	CHECK_CLOSE(s[3], 10.0, 1e-15);
	CHECK_CLOSE(yn[1 * 4 + 3], 1.0, 1e-15);
	CHECK(isnan(yn[2 * 4 + 3]));

	CHECK(icm_units_standardise_y(bad, 2, 2, yn, mu, s, &st) ==
		  TUNER_ERR_INVALID);
	CHECK(strstr(st.message, "task 2") != NULL);
	CHECK(icm_units_standardise_y(inf, 2, 1, yn, mu, s, &st) ==
		  TUNER_ERR_INVALID);
}

/* 2. Unit-cube scaling; a constant column is only shifted. */
static void
test_scale_x(void)
{
	double x[3 * 2] = {-5.0, 2.0, 5.0, 2.0, 0.0, 2.0};
	double xn[6], lo[2], range[2];

	icm_units_scale_x(x, 3, 2, xn, lo, range);
	CHECK(lo[0] == -5.0 && range[0] == 10.0);
	CHECK(lo[1] == 2.0 && range[1] == 1.0);
	CHECK(xn[0] == 0.0 && xn[2] == 1.0 && xn[4] == 0.5);
	CHECK(xn[1] == 0.0 && xn[3] == 0.0 && xn[5] == 0.0);
}

/*
 * 3. A model on standardised data and its converted hyperparameters on the
 * caller's data are the same distribution: predictions map by mu + s * f,
 * sd by s, and the log likelihood differs by the Jacobian -sum n_t log s_t.
 */
static void
check_equivalence(int missing)
{
	int n = 14, d = 2, T = 3, rank = 2, m = 5;
	double xs[5 * 2], xsn[5 * 2], ms[5], ss[5], mc[5], sc[5];
	double lo[2], range[2], mu[3], s[3];
	double scale[3] = {250.0, 0.01, 3.0}, shift[3] = {1000.0, -0.5, 7.0};
	double jacobian = 0.0;
	TunerStatus st;
	TunerRng rng;
	IcmModel *std = icm_model_create(n, d, T, rank, &st);
	IcmModel *cal = icm_model_create(n, d, T, rank, &st);
	int i, k, t;

	rng_seed(&rng, 44 + missing);
	for (i = 0; i < n; i++)
		for (k = 0; k < d; k++)
			cal->x[i * d + k] = (k == 0 ? -20.0 : 3.0) +
								(k == 0 ? 40.0 : 0.5) * rng_uniform(&rng);
	for (i = 0; i < n; i++)
		for (t = 0; t < T; t++)
			cal->y[i * T + t] =
				missing && (i + 2 * t) % 5 == 0
					? NAN
					: shift[t] + scale[t] * (sin(0.1 * cal->x[i * d] + t) +
											 0.1 * rng_normal(&rng));
	for (i = 0; i < m; i++)
	{
		xs[i * d] = -25.0 + 50.0 * rng_uniform(&rng);
		xs[i * d + 1] = 3.0 + 0.5 * rng_uniform(&rng);
	}

	icm_units_scale_x(cal->x, n, d, std->x, lo, range);
	CHECK(icm_units_standardise_y(cal->y, n, T, std->y, mu, s, &st) ==
		  TUNER_OK);
	for (i = 0; i < m; i++)
		for (k = 0; k < d; k++)
			xsn[i * d + k] = (xs[i * d + k] - lo[k]) / range[k];
	for (k = 0; k < d; k++)
		std->lengthscales[k] = 0.3 + 0.2 * k;
	for (k = 0; k < T * rank; k++)
		std->W[k] = rng_normal(&rng);
	for (t = 0; t < T; t++)
	{
		std->v[t] = 0.1 + 0.05 * t;
		std->noise[t] = 0.01 * (t + 1);
		std->mean[t] = 0.2 * t - 0.1;
	}
	memcpy(cal->lengthscales, std->lengthscales, sizeof(double) * d);
	memcpy(cal->W, std->W, sizeof(double) * T * rank);
	memcpy(cal->v, std->v, sizeof(double) * T);
	memcpy(cal->noise, std->noise, sizeof(double) * T);
	memcpy(cal->mean, std->mean, sizeof(double) * T);
	icm_units_to_caller(cal, range, mu, s);

	CHECK(icm_prepare(std, &st) == TUNER_OK);
	CHECK(icm_prepare(cal, &st) == TUNER_OK);
	CHECK(std->kronecker == !missing && cal->kronecker == !missing);
	for (t = 0; t < T; t++)
		for (i = 0; i < n; i++)
			if (!isnan(cal->y[i * T + t]))
				jacobian += log(s[t]);
	CHECK_CLOSE(cal->log_likelihood, std->log_likelihood - jacobian, 1e-9);
	for (t = 0; t < T; t++)
	{
		CHECK(icm_predict(std, xsn, m, t, ms, ss, &st) == TUNER_OK);
		CHECK(icm_predict(cal, xs, m, t, mc, sc, &st) == TUNER_OK);
		for (i = 0; i < m; i++)
		{
			CHECK(fabs(mc[i] - (mu[t] + s[t] * ms[i])) <=
				  1e-9 * fmax(fabs(mc[i]), s[t]));
			CHECK(fabs(sc[i] - s[t] * ss[i]) <= 1e-9 * s[t]);
		}
	}
	icm_model_free(std);
	icm_model_free(cal);
}

/*
 * 4. A fit in the caller's units keeps the caller's data, and an affine
 * change of one task's units (and of x) changes the predictions the same
 * way: the optimiser sees the same standardised problem.
 */
static void
test_fit_units(void)
{
	int n = 12, d = 1, T = 2, m = 4;
	double x[12], y[24], x2[12], y2[24], xs[4], xs2[4];
	double m1[4], s1[4], m2[4], s2[4];
	IcmFitOptions opt;
	TunerStatus st;
	IcmModel *a = NULL, *b = NULL;
	int i, t;

	for (i = 0; i < n; i++)
	{
		x[i] = i / (double)(n - 1);
		x2[i] = 100.0 + 50.0 * x[i];
		y[i * T] = sin(5.0 * x[i]);
		y[i * T + 1] = i % 3 == 0 ? NAN : sin(5.0 * x[i] + 0.3) + 0.5 * x[i];
		y2[i * T] = 1e4 * y[i * T] + 3e4;
		y2[i * T + 1] = y[i * T + 1];
	}
	for (i = 0; i < m; i++)
	{
		xs[i] = 0.1 + 0.27 * i;
		xs2[i] = 100.0 + 50.0 * xs[i];
	}
	icm_fit_options_init(&opt);
	opt.rank = 2;
	opt.restarts = 2;
	opt.seed = 5;
	CHECK(icm_fit_caller_units(x, y, n, d, T, &opt, &a, &st) == TUNER_OK);
	CHECK(icm_fit_caller_units(x2, y2, n, d, T, &opt, &b, &st) == TUNER_OK);
	if (a == NULL || b == NULL)
		goto done;
	CHECK(memcmp(b->x, x2, sizeof(x2)) == 0);
	CHECK(isnan(b->y[1]) && b->y[0] == y2[0]);
	CHECK(a->kronecker == 0);
	CHECK_CLOSE(b->lengthscales[0], 50.0 * a->lengthscales[0], 1e-4);
	CHECK_CLOSE(b->noise[0], 1e8 * a->noise[0], 1e-4);
	CHECK_CLOSE(b->v[1], a->v[1], 1e-4);
	for (t = 0; t < T; t++)
	{
		double sc = t == 0 ? 1e4 : 1.0, sh = t == 0 ? 3e4 : 0.0;

		CHECK(icm_predict(a, xs, m, t, m1, s1, &st) == TUNER_OK);
		CHECK(icm_predict(b, xs2, m, t, m2, s2, &st) == TUNER_OK);
		for (i = 0; i < m; i++)
		{
			CHECK(fabs(m2[i] - (sh + sc * m1[i])) <= 1e-5 * sc);
			CHECK(fabs(s2[i] - sc * s1[i]) <= 1e-5 * sc);
		}
	}
	/* the big-unit fit follows its data: task 1 near the observed values */
	for (i = 0; i < m; i++)
	{
		CHECK(icm_predict(b, x2 + 3 * i, 1, 0, m2, s2, &st) == TUNER_OK);
		CHECK(fabs(m2[0] - y2[3 * i * T]) < 0.1 * 1e4);
	}
done:
	icm_model_free(a);
	icm_model_free(b);
}

void
test_icm_units(void)
{
	test_standardise();
	test_scale_x();
	check_equivalence(1);
	check_equivalence(0);
	test_fit_units();
}
