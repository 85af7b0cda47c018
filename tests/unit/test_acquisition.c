/*
 * test_acquisition.c
 *	  The log-EI gradient against finite differences, agreement with the
 *	  batch prediction path, and that maximisation finds a known optimum.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "acquisition.h"
#include "gp.h"
#include "posterior.h"
#include "log_ei.h"
#include "matern.h"
#include "rng.h"
#include "unit.h"

static GpModel *
toy_model(int n, int d, uint64_t seed)
{
	TunerStatus status;
	GpModel    *m = gp_model_create(n, d, &status);
	TunerRng	rng;
	int			i,
				k;

	rng_seed(&rng, seed);
	for (i = 0; i < n * d; i++)
		m->x[i] = rng_uniform(&rng);
	for (i = 0; i < n; i++)
	{
		double		r2 = 0.0;

		for (k = 0; k < d; k++)
			r2 += (m->x[i * d + k] - 0.3) * (m->x[i * d + k] - 0.3);
		m->y[i] = r2 - 0.5;
	}
	for (k = 0; k < d; k++)
		m->lengthscales[k] = 0.3 + 0.1 * k;
	m->outputscale = 1.0;
	m->noise = 1e-4;
	m->mean = 0.0;
	gp_prepare(m, &status);
	return m;
}

/*
 * A feasibility term for the tests: log P(feasible) = log Phi((0.8 - u0 -
 * u1) / 0.1), counting the points its batch scores.
 */
static int toy_scored;

static double
toy_log_p(const void *state, const double *u, double *grad, double *scratch)
{
	double		z = (0.8 - u[0] - u[1]) / 0.1;
	int			k;

	if (grad != NULL)
	{
		int			d = *(const int *) state;

		for (k = 0; k < d; k++)
			grad[k] = 0.0;
		grad[0] = grad[1] = -dlog_normal_cdf(z) / 0.1;
	}
	return log_normal_cdf(z);
}

static TunerErrorCode
toy_log_p_batch(const void *state, const double *u, int m, double *log_p,
				TunerStatus *status)
{
	int			d = *(const int *) state;
	int			j;

	for (j = 0; j < m; j++)
		log_p[j] = toy_log_p(state, u + (size_t) j * d, NULL, NULL);
	toy_scored += m;
	return TUNER_OK;
}

/* Equal up to rounding in the last bits. */
static int
close_rel(double a, double b)
{
	return fabs(a - b) <= 1e-12 * (1.0 + fabs(a));
}

/*
 * With a feasibility term the candidates are scored lazily in order of
 * log EI: the head of the ranking (the max_out points returned) is the
 * one scoring every candidate gives, from fewer scored candidates (bit
 * for bit with a term computed point by point).  A GP's batch prediction
 * of a point depends on the other points of the batch only in the last
 * bits (BLAS blocks its products by the batch's size).
 */
static void
test_lazy_feasibility(void)
{
	int			d = 4;
	GpModel    *m = toy_model(40, d, 3);
	GpModel    *big = toy_model(110, 10, 5);
	Posterior	post;
	PosteriorFeasibility f = {toy_log_p, toy_log_p_batch, &d, 0, 0};
	AcquisitionOptions opt;
	TunerStatus status;
	TunerRng	rng;
	double		best = m->y[0];
	double		lazy_points[32 * 4],
				lazy_values[32];
	double	   *all_points = malloc(sizeof(double) * 2000 * 4);
	double	   *all_values = malloc(sizeof(double) * 2000);
	int			n_lazy = 0,
				n_all = 0,
				scored_lazy,
				scored_all,
				i;

	for (i = 1; i < m->n; i++)
		best = fmin(best, m->y[i]);
	gp_posterior(m, &post);
	post.feasibility = &f;
	acquisition_options_init(&opt, d);

	toy_scored = 0;
	rng_seed(&rng, 99);
	CHECK(acquisition_rank(&post, best, m->x, 2, &opt, &rng, 32, lazy_points,
						   lazy_values, &n_lazy, &status) == TUNER_OK);
	scored_lazy = toy_scored;
	toy_scored = 0;
	rng_seed(&rng, 99);
	CHECK(acquisition_rank(&post, best, m->x, 2, &opt, &rng, 2000, all_points,
						   all_values, &n_all, &status) == TUNER_OK);
	scored_all = toy_scored;
	CHECK(n_lazy == 32 && n_all > 32);
	CHECK(scored_all == opt.n_random + opt.n_local);
	CHECK(scored_lazy >= 32 && scored_lazy < scored_all);
	CHECK(memcmp(lazy_points, all_points, sizeof(lazy_points)) == 0);
	CHECK(memcmp(lazy_values, all_values, sizeof(lazy_values)) == 0);

	/*
	 * n_exact: only the first 8 of the 32 ranked exactly, fewer scored;
	 * the rest are either scored (a finite value, in order) or not (-inf,
	 * after them)
	 */
	{
		int scored_exact, n_exact_out = 0, first_unscored = 32;

		opt.n_exact = 8;
		toy_scored = 0;
		rng_seed(&rng, 99);
		CHECK(acquisition_rank(&post, best, m->x, 2, &opt, &rng, 32,
							   lazy_points, lazy_values, &n_exact_out,
							   &status) == TUNER_OK);
		scored_exact = toy_scored;
		CHECK(n_exact_out == 32);
		CHECK(scored_exact >= 8 && scored_exact < scored_lazy);
		CHECK(memcmp(lazy_points, all_points, sizeof(double) * 8 * 4) == 0);
		CHECK(memcmp(lazy_values, all_values, sizeof(double) * 8) == 0);
		for (i = 0; i < 32; i++)
			if (lazy_values[i] == -INFINITY && first_unscored == 32)
				first_unscored = i;
		CHECK(first_unscored >= 8 && first_unscored < 32);
		for (i = 1; i < 32; i++)
			CHECK(i >= first_unscored ? lazy_values[i] == -INFINITY
									  : lazy_values[i] <= lazy_values[i - 1]);
		opt.n_exact = 0;
	}

	/* without an incumbent the term alone ranks: every candidate scored */
	f.without_ei = 1;
	toy_scored = 0;
	CHECK(acquisition_rank(&post, best, m->x, 2, &opt, &rng, 32, lazy_points,
						   lazy_values, &n_lazy, &status) == TUNER_OK);
	CHECK(toy_scored == opt.n_random + opt.n_local);

	/* batch independence: 1024 points at once, in blocks, and reversed */
	{
		int			n_pts = 1024;
		double	   *u = malloc(sizeof(double) * n_pts * 10);
		double	   *rev = malloc(sizeof(double) * n_pts * 10);
		double	   *mean = malloc(sizeof(double) * n_pts);
		double	   *sd = malloc(sizeof(double) * n_pts);
		double	   *mean2 = malloc(sizeof(double) * n_pts);
		double	   *sd2 = malloc(sizeof(double) * n_pts);
		double	   *a = malloc(sizeof(double) * 110 * 11);
		double	   *w = malloc(sizeof(double) * n_pts * 11);
		double	   *w2 = malloc(sizeof(double) * n_pts * 11);
		int			first,
					same = 1;

		rng_seed(&rng, 5);
		for (i = 0; i < n_pts * 10; i++)
			u[i] = rng_uniform(&rng);
		for (i = 0; i < 110 * 11; i++)
			a[i] = rng_uniform(&rng) - 0.5;
		for (i = 0; i < n_pts; i++)
			memcpy(rev + (size_t) i * 10, u + (size_t) (n_pts - 1 - i) * 10,
				   sizeof(double) * 10);
		CHECK(gp_predict_weights(big, u, n_pts, a, 11, w, mean, sd, &status) == TUNER_OK);
		for (first = 0; first < n_pts; first += 129)
		{
			int			c = n_pts - first < 129 ? n_pts - first : 129;

			CHECK(gp_predict_weights(big, u + (size_t) first * 10, c, a, 11,
									 w2 + (size_t) first * 11, mean2 + first,
									 sd2 + first, &status) == TUNER_OK);
		}
		for (i = 0; i < n_pts; i++)
			if (!close_rel(mean[i], mean2[i]) || !close_rel(sd[i], sd2[i]) ||
				!close_rel(w[i * 11], w2[i * 11]) ||
				!close_rel(w[i * 11 + 10], w2[i * 11 + 10]))
				same = 0;
		CHECK(same);
		CHECK(gp_predict_weights(big, rev, n_pts, a, 11, w2, mean2, sd2, &status) == TUNER_OK);
		for (i = 0; i < n_pts; i++)
			if (!close_rel(mean2[i], mean[n_pts - 1 - i]) ||
				!close_rel(sd2[i], sd[n_pts - 1 - i]) ||
				!close_rel(w2[i * 11 + 3], w[(n_pts - 1 - i) * 11 + 3]))
				same = 0;
		CHECK(same);
		free(u);
		free(rev);
		free(mean);
		free(sd);
		free(mean2);
		free(sd2);
		free(a);
		free(w);
		free(w2);
	}
	free(all_points);
	free(all_values);
	gp_model_free(m);
	gp_model_free(big);
}

void
test_acquisition(void)
{
	int			d = 3;
	GpModel    *m = toy_model(15, d, 7);
	Posterior	post;
	double		scratch[64];
	double		best = m->y[0];
	TunerRng	rng;
	TunerStatus status;
	int			i,
				k,
				t;

	for (i = 1; i < m->n; i++)
		best = fmin(best, m->y[i]);
	gp_posterior(m, &post);
	CHECK(acquisition_scratch_size(&post) <= 64);

	rng_seed(&rng, 11);
	for (t = 0; t < 5; t++)
	{
		double		u[3],
					grad[3],
					mu,
					sd;
		double		v;

		for (k = 0; k < d; k++)
			u[k] = 0.05 + 0.9 * rng_uniform(&rng);
		v = acquisition_log_ei(&post, best, u, grad, scratch);
		/* same value as the batch path */
		gp_predict(m, u, 1, &mu, &sd, &status);
		CHECK_CLOSE(v, log_ei(mu, sd, best), 1e-9);
		for (k = 0; k < d; k++)
		{
			double		up[3],
						um[3],
						h = 1e-6;

			memcpy(up, u, sizeof(up));
			memcpy(um, u, sizeof(um));
			up[k] += h;
			um[k] -= h;
			CHECK_CLOSE(grad[k],
						(acquisition_log_ei(&post, best, up, NULL, scratch) -
						 acquisition_log_ei(&post, best, um, NULL, scratch)) / (2 * h),
						1e-5);
		}
	}

	/* the ranked list is sorted and its head beats every random point */
	{
		AcquisitionOptions opt;
		double		points[32 * 3],
					values[32];
		int			n_out = 0;

		acquisition_options_init(&opt, d);
		CHECK(acquisition_rank(&post, best, m->x, 2, &opt, &rng, 32, points, values,
							   &n_out, &status) == TUNER_OK);
		CHECK(n_out == 32);
		for (i = 1; i < n_out; i++)
			CHECK(values[i] <= values[i - 1]);
		for (t = 0; t < 200; t++)
		{
			double		u[3];

			for (k = 0; k < d; k++)
				u[k] = rng_uniform(&rng);
			if (acquisition_log_ei(&post, best, u, NULL, scratch) > values[0] + 1e-9)
			{
				CHECK(!"a random point beat the maximiser");
				break;
			}
		}
		for (i = 0; i < n_out * d; i++)
			CHECK(points[i] >= 0.0 && points[i] <= 1.0);
	}

	/*
	 * gp_kernel_weights: with a's first column alpha, k(u)^T a is the
	 * posterior mean less the constant mean; its gradient against
	 * differences, for that column and an arbitrary second one.
	 */
	{
		double		a[15 * 2],
					w[2],
					dw[2 * 3],
					wp[2],
					wm[2],
					u[3] = {0.3, 0.6, 0.45},
					mu,
					sd;

		CHECK(m->n == 15);
		for (i = 0; i < m->n; i++)
		{
			a[2 * i] = m->alpha[i];
			a[2 * i + 1] = sin(1.0 + i);
		}
		gp_kernel_weights(m, u, a, 2, w, dw, scratch);
		gp_predict(m, u, 1, &mu, &sd, &status);
		CHECK_CLOSE(w[0], mu - m->mean, 1e-10);
		for (k = 0; k < d; k++)
		{
			double		up[3],
						um[3],
						h = 1e-6;

			memcpy(up, u, sizeof(up));
			memcpy(um, u, sizeof(um));
			up[k] += h;
			um[k] -= h;
			gp_kernel_weights(m, up, a, 2, wp, NULL, scratch);
			gp_kernel_weights(m, um, a, 2, wm, NULL, scratch);
			for (t = 0; t < 2; t++)
				CHECK_CLOSE(dw[t * d + k], (wp[t] - wm[t]) / (2 * h), 1e-6);
		}
	}

	/*
	 * gp_kernel_row and the *_from_row functions (one exp per training
	 * point for the kernel and its radial derivative) give exactly, bit
	 * for bit, the values of the formulas they replace: s matern52_unit(r)
	 * and s matern52_radial(r) with r from the divided differences, the
	 * posterior's point function, and k(u)^T a summed column by column.
	 */
	{
		double		u[3] = {0.81, 0.07, 0.52},
					kvec[15],
					radial[15],
					kvec2[15],
					a[15 * 2],
					w[2],
					dw[2 * 3],
					w2[2],
					dw2[2 * 3],
					mu,
					var,
					dmu[3],
					dvar[3],
					mu2,
					var2,
					dmu2[3],
					dvar2[3];
		int			j;

		gp_kernel_row(m, u, kvec, radial);
		gp_kernel_row(m, u, kvec2, NULL);
		for (i = 0; i < m->n; i++)
		{
			double		r2 = 0.0,
						r;

			for (k = 0; k < d; k++)
			{
				double		t = (u[k] - m->x[i * d + k]) / m->lengthscales[k];

				r2 += t * t;
			}
			r = sqrt(r2);
			CHECK(kvec[i] == m->outputscale * matern52_unit(r));
			CHECK(radial[i] == m->outputscale * matern52_radial(r));
			CHECK(kvec2[i] == kvec[i]);
			a[2 * i] = cos(0.3 * i);
			a[2 * i + 1] = sin(1.0 + i);
		}
		gp_kernel_weights_from_row(m, u, kvec, radial, a, 2, w, dw);
		gp_kernel_weights(m, u, a, 2, w2, dw2, scratch);
		for (j = 0; j < 2; j++)
		{
			double		sum = 0.0;

			for (i = 0; i < m->n; i++)
				sum += kvec[i] * a[i * 2 + j];
			CHECK(w[j] == sum);
			CHECK(w2[j] == sum);
			for (k = 0; k < d; k++)
				CHECK(dw[j * d + k] == dw2[j * d + k]);
		}
		gp_point_from_row(m, u, kvec, radial, &mu, &var, dmu, dvar);
		post.point(post.state, u, &mu2, &var2, dmu2, dvar2, scratch);
		CHECK(mu == mu2 && var == var2);
		for (k = 0; k < d; k++)
			CHECK(dmu[k] == dmu2[k] && dvar[k] == dvar2[k]);
		gp_point_from_row(m, u, kvec2, NULL, &mu, &var, NULL, NULL);
		CHECK(mu == mu2 && var == var2);

		/*
		 * gp_predict_weights: gp_predict's mean and sd exactly, and k(u)^T
		 * a as gp_kernel_weights gives it (up to rounding: the cross
		 * covariance multiplies by 1 / l where the row divides by l).
		 */
		{
			double		us[3 * 3] = {0.81, 0.07, 0.52, 0.1, 0.9, 0.3, 0.5, 0.5, 0.5},
						pm[3],
						ps[3],
						wm2[3],
						ws2[3],
						pw[3 * 2];

			CHECK(gp_predict(m, us, 3, pm, ps, &status) == TUNER_OK);
			CHECK(gp_predict_weights(m, us, 3, a, 2, pw, wm2, ws2, &status) == TUNER_OK);
			for (t = 0; t < 3; t++)
			{
				CHECK(pm[t] == wm2[t] && ps[t] == ws2[t]);
				gp_kernel_weights(m, us + 3 * t, a, 2, w, NULL, scratch);
				for (j = 0; j < 2; j++)
					CHECK_CLOSE(pw[t * 2 + j], w[j], 1e-12 * (1.0 + fabs(w[j])));
			}
		}
	}
	gp_model_free(m);
	test_lazy_feasibility();
}
