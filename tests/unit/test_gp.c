/*
 * test_gp.c
 *	  GP numerics against closed forms, the likelihood gradient against
 *	  finite differences, and the fit on a smooth function.
 */
#include <math.h>
#include <string.h>

#include "gp.h"
#include "matern.h"
#include "rng.h"
#include "unit.h"

static void
check_gradient(int n, int d, int use_priors, uint64_t seed)
{
	double		x[40 * 12];
	double		y[40];
	double		theta[12 + 3];
	double		grad[12 + 3];
	double		value;
	TunerRng	rng;
	TunerStatus status;
	int			i,
				k;

	rng_seed(&rng, seed);
	for (i = 0; i < n * d; i++)
		x[i] = rng_uniform(&rng);
	for (i = 0; i < n; i++)
		y[i] = sin(5 * x[i * d]) + 0.3 * rng_normal(&rng);
	for (k = 0; k < d; k++)
		theta[k] = log(0.2 + 0.5 * rng_uniform(&rng));
	theta[d] = 0.3;
	theta[d + 1] = log(0.05);
	theta[d + 2] = 0.2;

	CHECK(gp_fit_objective(x, y, n, d, use_priors, theta, &value, grad, &status) == TUNER_OK);
	for (k = 0; k < d + 3; k++)
	{
		double		h = 1e-6;
		double		tp[12 + 3],
					tm[12 + 3];
		double		vp,
					vm;

		memcpy(tp, theta, sizeof(tp));
		memcpy(tm, theta, sizeof(tm));
		tp[k] += h;
		tm[k] -= h;
		gp_fit_objective(x, y, n, d, use_priors, tp, &vp, NULL, &status);
		gp_fit_objective(x, y, n, d, use_priors, tm, &vm, NULL, &status);
		CHECK_CLOSE(grad[k], (vp - vm) / (2 * h), 1e-5);
	}
}

void
test_gp(void)
{
	TunerStatus status;

	check_gradient(12, 3, 0, 1);
	check_gradient(30, 4, 1, 2);
	check_gradient(5, 1, 1, 3);
	/* the high-dimensional priors (GP_HIGH_DIM) */
	check_gradient(20, 12, 1, 4);
	check_gradient(20, GP_HIGH_DIM, 1, 5);

	/*
	 * The priors: unchanged below GP_HIGH_DIM (so are low-dimensional
	 * trajectories), tight and a little longer from it on.
	 */
	{
		GpPrior		prior;
		int			d;

		for (d = 1; d < GP_HIGH_DIM; d++)
		{
			gp_fit_prior(d, 0, &prior);
			CHECK_CLOSE(prior.ls_mean, -1.5 + 0.25 * log((double) d), 1e-15);
			CHECK(prior.ls_var == 3.0);
			CHECK(prior.noise_mean == -10.0);
			CHECK(prior.noise_var == 4.0);
		}
		gp_fit_prior(GP_HIGH_DIM, 0, &prior);
		CHECK_CLOSE(prior.ls_mean, -1.0 + 0.25 * log((double) GP_HIGH_DIM), 1e-15);
		CHECK_CLOSE(prior.ls_var, 1.0 / 3.0, 1e-15);
		CHECK(prior.noise_mean == -6.0);
		gp_fit_prior(20, 0, &prior);
		CHECK_CLOSE(exp(prior.ls_mean), exp(-1.0) * pow(20.0, 0.25), 1e-12);
		/* 0.2.0's, in every dimension, for its suggestions' replays */
		gp_fit_prior(20, 1, &prior);
		CHECK_CLOSE(prior.ls_mean, -1.5 + 0.25 * log(20.0), 1e-15);
		CHECK(prior.ls_var == 3.0);
		CHECK(prior.noise_mean == -10.0);
	}

	/* one point: y ~ N(m, s + noise) */
	{
		GpModel    *m = gp_model_create(1, 1, &status);
		double		xs = 0.0,
					mu,
					sd;

		m->x[0] = 0.0;
		m->y[0] = 2.0;
		m->lengthscales[0] = 1.0;
		m->outputscale = 1.5;
		m->noise = 0.5;
		m->mean = 1.0;
		CHECK(gp_prepare(m, &status) == TUNER_OK);
		CHECK_CLOSE(m->log_likelihood,
					-0.5 * 1.0 / 2.0 - 0.5 * log(2.0) - 0.5 * log(2 * M_PI), 1e-14);
		/* at the point: mean m + s/(s+noise) (y - m), var s - s^2/(s+noise) */
		CHECK(gp_predict(m, &xs, 1, &mu, &sd, &status) == TUNER_OK);
		CHECK_CLOSE(mu, 1.0 + 1.5 / 2.0, 1e-14);
		CHECK_CLOSE(sd * sd, 1.5 - 1.5 * 1.5 / 2.0, 1e-14);
		gp_model_free(m);
	}

	/* two points, prediction in between, against a 2x2 inverse by hand */
	{
		GpModel    *m = gp_model_create(2, 1, &status);
		double		xs = 0.5,
					mu,
					sd;
		double		s = 2.0,
					noise = 0.1,
					ls = 0.7,
					mean = 0.3;
		double		k01 = s * matern52_unit(1.0 / ls);
		double		ks = s * matern52_unit(0.5 / ls);
		double		a = s + noise,
					det = a * a - k01 * k01;
		double		r0 = 1.0 - mean,
					r1 = -1.0 - mean;
		/* K^-1 = [[a, -k01], [-k01, a]] / det */
		double		w0 = (a * r0 - k01 * r1) / det,
					w1 = (-k01 * r0 + a * r1) / det;
		double		v = 2.0 * ks * ks * (a - k01) / det;

		m->x[0] = 0.0;
		m->x[1] = 1.0;
		m->y[0] = 1.0;
		m->y[1] = -1.0;
		m->lengthscales[0] = ls;
		m->outputscale = s;
		m->noise = noise;
		m->mean = mean;
		CHECK(gp_prepare(m, &status) == TUNER_OK);
		CHECK(gp_predict(m, &xs, 1, &mu, &sd, &status) == TUNER_OK);
		CHECK_CLOSE(mu, mean + ks * (w0 + w1), 1e-13);
		/* k^T K^-1 k with k = (ks, ks): 2 ks^2 (a - k01) / det */
		CHECK_CLOSE(sd * sd, s - v, 1e-13);
		CHECK_CLOSE(m->log_likelihood,
					-0.5 * (r0 * w0 + r1 * w1) - 0.5 * log(det) - log(2 * M_PI), 1e-13);
		gp_model_free(m);
	}

	/* fitting a smooth function recovers it between the points */
	{
		double		x[15],
					y[15];
		GpModel    *fit = NULL;
		GpFitOptions opt;
		int			i;
		double		worst = 0.0;

		for (i = 0; i < 15; i++)
		{
			x[i] = i / 14.0;
			y[i] = sin(6.0 * x[i]);
		}
		gp_fit_options_init(&opt);
		CHECK(gp_fit(x, y, 15, 1, &opt, &fit, &status) == TUNER_OK);
		for (i = 0; i < 14; i++)
		{
			double		xs = (i + 0.5) / 14.0,
						mu,
						sd;

			gp_predict(fit, &xs, 1, &mu, &sd, &status);
			worst = fmax(worst, fabs(mu - sin(6.0 * xs)));
		}
		CHECK(worst < 0.01);
		gp_model_free(fit);
	}

	/*
	 * the fit is expressed in the caller's units: rescaling data rescales it
	 * (up to the optimiser's tolerance: rounding moves its path slightly)
	 */
	{
		double		x[20],
					xb[20],
					y[20],
					yb[20];
		GpModel    *a = NULL,
				   *b = NULL;
		GpFitOptions opt;
		int			i;

		for (i = 0; i < 20; i++)
		{
			x[i] = (i * 7 % 20) / 19.0;
			y[i] = cos(4.0 * x[i]) + x[i];
			xb[i] = 100.0 * x[i] - 50.0;
			yb[i] = 1000.0 * y[i] + 5.0;
		}
		gp_fit_options_init(&opt);
		CHECK(gp_fit(x, y, 20, 1, &opt, &a, &status) == TUNER_OK);
		CHECK(gp_fit(xb, yb, 20, 1, &opt, &b, &status) == TUNER_OK);
		CHECK_CLOSE(b->lengthscales[0], 100.0 * a->lengthscales[0], 1e-3);
		CHECK_CLOSE(b->outputscale, 1e6 * a->outputscale, 1e-3);
		CHECK_CLOSE(b->mean, 1000.0 * a->mean + 5.0, 1e-3);
		gp_model_free(a);
		gp_model_free(b);
	}

	/* bad input is an error, not a crash */
	{
		double		x[2] = {0.0, NAN},
					y[2] = {1.0, 2.0};
		GpModel    *fit = NULL;
		GpFitOptions opt;

		gp_fit_options_init(&opt);
		CHECK(gp_fit(x, y, 2, 1, &opt, &fit, &status) == TUNER_ERR_INVALID);
		CHECK(fit == NULL);
		CHECK(gp_model_create(0, 1, &status) == NULL);
	}
	/* duplicated points with no noise still factorise (jitter) */
	{
		GpModel    *m = gp_model_create(3, 1, &status);

		m->x[0] = m->x[1] = m->x[2] = 0.5;
		m->y[0] = 1.0;
		m->y[1] = 1.0;
		m->y[2] = 1.0;
		m->lengthscales[0] = 1.0;
		m->outputscale = 1.0;
		m->noise = 0.0;
		m->mean = 0.0;
		CHECK(gp_prepare(m, &status) == TUNER_OK);
		CHECK(m->jitter > 0.0);
		gp_model_free(m);
	}
}
