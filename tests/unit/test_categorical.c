/*
 * test_categorical.c
 *	  Unordered categorical parameters (the overlap distance of matern.h):
 *	  the choice a coordinate rounds to, the kernel against a hand-computed
 *	  overlap kernel, the likelihood gradients (GP and ICM) and the
 *	  posterior's input gradient against finite differences, closed-form
 *	  posteriors, invariance of the fit under relabelling the choices, the
 *	  acquisition's search over choices, and whole suggestion steps (GP-EI,
 *	  ICM, clustered ICM) on a problem whose best choice is in the middle.
 */
#include <math.h>
#include <string.h>

#include "acquisition.h"
#include "gp.h"
#include "icm.h"
#include "icm_posterior.h"
#include "matern.h"
#include "rng.h"
#include "space.h"
#include "suggest.h"
#include "unit.h"

/* The unit coordinate of choice c of C (its bin centre, as space.c). */
static double
centre(int c, int C)
{
	return (c + 0.5) / C;
}

/* matern_choice is the rounding of space_from_unit; the metric of a space. */
static void
test_choice_and_metric(void)
{
	ParamSpec sp[6] = {{PARAM_FLOAT, 0, 1, 0, 0},
					   {PARAM_INT, 1, 9, 0, 0},
					   {PARAM_BOOL, 0, 0, 0, 0},
					   {PARAM_CATEGORICAL, 0, 0, 0, 2},
					   {PARAM_CATEGORICAL, 0, 0, 0, 3},
					   {PARAM_CATEGORICAL, 0, 0, 0, 7}};
	int cat[6];
	int C, i;

	CHECK(space_kernel_categories(sp, 6, cat) == 2);
	CHECK(cat[0] == 0 && cat[1] == 0 && cat[2] == 0 && cat[3] == 0);
	CHECK(cat[4] == 3 && cat[5] == 7);
	CHECK(matern_n_categorical(cat, 6) == 2);
	CHECK(matern_n_categorical(NULL, 6) == 0);

	for (C = 2; C <= 9; C++)
	{
		ParamSpec p = {PARAM_CATEGORICAL, 0, 0, 0, C};
		int agree = 1;

		for (i = -20; i <= 1020; i++)
		{
			double u = i / 1000.0, native;

			space_from_unit(&p, 1, &u, &native);
			agree &= matern_choice(u, C) == (int)native;
		}
		/* bin edges and centres */
		for (i = 0; i <= C; i++)
		{
			double u = (double)i / C, native;

			space_from_unit(&p, 1, &u, &native);
			agree &= matern_choice(u, C) == (int)native;
			if (i < C)
			{
				double v = i;

				space_to_unit(&p, 1, &v, &u);
				agree &= u == centre(i, C) && matern_choice(u, C) == i;
			}
		}
		CHECK(agree);
	}
}

/* The Gram and cross covariances against the overlap kernel by hand. */
static void
test_kernel_values(void)
{
	/* dims: ordered, categorical of 4, ordered, categorical of 3 */
	int cat[4] = {0, 4, 0, 3};
	double inv_ls[4] = {1 / 0.3, 1 / 0.7, 1 / 0.5, 1 / 1.3};
	double x[5 * 4];
	double k[25], kc[5 * 2], ko[25];
	double s = 1.7;
	TunerRng rng;
	int i, j, q;

	rng_seed(&rng, 5);
	for (i = 0; i < 5 * 4; i++)
		x[i] = rng_uniform(&rng);
	/* two points share choices away from the bin centre */
	x[1 * 4 + 1] = 0.26; /* choice 1 of 4 */
	x[2 * 4 + 1] = 0.49; /* choice 1 of 4 */
	x[1 * 4 + 3] = 0.01; /* choice 0 of 3 */
	x[2 * 4 + 3] = 0.32; /* choice 0 of 3 */
	matern52_gram(x, 5, 4, inv_ls, cat, s, k);
	matern52_cross(x, 5, x + 3 * 4, 2, 4, inv_ls, cat, s, kc);
	for (i = 0; i < 5; i++)
		for (j = 0; j < 5; j++)
		{
			const double *a = x + i * 4, *b = x + j * 4;
			double r2 = 0.0, r, want;

			r2 += (a[0] - b[0]) * (a[0] - b[0]) * inv_ls[0] * inv_ls[0];
			r2 += (floor(a[1] * 4) != floor(b[1] * 4)) * inv_ls[1] * inv_ls[1];
			r2 += (a[2] - b[2]) * (a[2] - b[2]) * inv_ls[2] * inv_ls[2];
			r2 += (floor(a[3] * 3) != floor(b[3] * 3)) * inv_ls[3] * inv_ls[3];
			r = sqrt(r2);
			want = s * (1 + sqrt(5) * r + 5 * r2 / 3) * exp(-sqrt(5) * r);
			CHECK_CLOSE(k[i + j * 5], want, 1e-13);
			if (j >= 3)
				CHECK_CLOSE(kc[i + (j - 3) * 5], want, 1e-13);
		}
	/* the shared choices of points 1 and 2 add nothing to their distance */
	{
		double d2 = (x[4] - x[8]) * (x[4] - x[8]) * inv_ls[0] * inv_ls[0] +
					(x[6] - x[10]) * (x[6] - x[10]) * inv_ls[2] * inv_ls[2];

		CHECK_CLOSE(k[1 + 2 * 5], s * matern52_unit(sqrt(d2)), 1e-13);
	}
	/* NULL and all-zero metrics are the ordered kernel, bit for bit */
	{
		int zero[4] = {0, 0, 0, 0};
		double kn[25];

		matern52_gram(x, 5, 4, inv_ls, NULL, s, kn);
		matern52_gram(x, 5, 4, inv_ls, zero, s, ko);
		CHECK(memcmp(kn, ko, sizeof(kn)) == 0);
		for (i = 0; i < 5; i++)
			for (j = 0; j < 5; j++)
				CHECK(kn[i + j * 5] ==
					  s * matern52_unit(sqrt(matern52_r2(x + i * 4, x + j * 4,
														 inv_ls, 4))) ||
					  i == j);
	}
	/* choices 0, 1 and 2 of 3 are equidistant; ordered, 0 and 2 are far */
	{
		int c3[1] = {3};
		double u[3] = {centre(0, 3), centre(1, 3), centre(2, 3)};
		double il = 1 / 0.4;
		double kk[9];

		matern52_gram(u, 3, 1, &il, c3, 1.0, kk);
		CHECK(kk[0 + 1 * 3] == kk[0 + 2 * 3]);
		CHECK(kk[1 + 2 * 3] == kk[0 + 2 * 3]);
		CHECK_CLOSE(kk[0 + 2 * 3], matern52_unit(il), 1e-15);
		matern52_gram(u, 3, 1, &il, NULL, 1.0, kk);
		CHECK(kk[0 + 2 * 3] < kk[0 + 1 * 3]);
	}
	/* the fits' pairwise differences: indicators on categorical dims */
	{
		double sq[10 * 4];

		matern52_pair_sqdiff(x, 5, 4, cat, sq);
		for (j = 0, q = 0; j < 5; j++)
			for (i = j + 1; i < 5; i++, q++)
			{
				CHECK(sq[q + 1 * 10] ==
					  (floor(x[i * 4 + 1] * 4) != floor(x[j * 4 + 1] * 4)));
				CHECK(sq[q + 0 * 10] ==
					  (x[i * 4] - x[j * 4]) * (x[i * 4] - x[j * 4]));
			}
	}
}

/*
 * n points in (ordered, categorical of C, ordered), the categorical at its
 * choices' centres; y depends on the choice without order.
 */
static void
mixed_data(int n, int C, uint64_t seed, double *x, double *y)
{
	static const double offset[5] = {0.0, 1.2, 0.1, -0.6, 0.8};
	TunerRng rng;
	int i;

	rng_seed(&rng, seed);
	for (i = 0; i < n; i++)
	{
		int c = (int)rng_below(&rng, (uint64_t)C);

		x[i * 3] = rng_uniform(&rng);
		x[i * 3 + 1] = centre(c, C);
		x[i * 3 + 2] = rng_uniform(&rng);
		y[i] = sin(4 * x[i * 3]) + offset[c] + 0.3 * x[i * 3 + 2] +
			   0.05 * rng_normal(&rng);
	}
}

/* The GP likelihood gradient under a categorical metric. */
static void
test_gp_gradient(void)
{
	int cat[3] = {0, 4, 0};
	double x[25 * 3], y[25];
	double theta[6], grad[6], value, gplain[6], vplain;
	TunerStatus st;
	int k, use_priors;

	mixed_data(25, 4, 3, x, y);
	for (use_priors = 0; use_priors <= 1; use_priors++)
	{
		theta[0] = log(0.3);
		theta[1] = log(0.8);
		theta[2] = log(0.6);
		theta[3] = 0.2;
		theta[4] = log(0.03);
		theta[5] = 0.1;
		CHECK(gp_fit_objective_metric(x, y, 25, 3, cat, use_priors, theta,
									  &value, grad, &st) == TUNER_OK);
		for (k = 0; k < 6; k++)
		{
			double tp[6], tm[6], vp, vm, h = 1e-6;

			memcpy(tp, theta, sizeof(tp));
			memcpy(tm, theta, sizeof(tm));
			tp[k] += h;
			tm[k] -= h;
			gp_fit_objective_metric(x, y, 25, 3, cat, use_priors, tp, &vp,
									NULL, &st);
			gp_fit_objective_metric(x, y, 25, 3, cat, use_priors, tm, &vm,
									NULL, &st);
			CHECK_CLOSE(grad[k], (vp - vm) / (2 * h), 1e-5);
		}
		/* the metric matters: the ordered kernel is another likelihood */
		CHECK(gp_fit_objective(x, y, 25, 3, use_priors, theta, &vplain,
							   gplain, &st) == TUNER_OK);
		CHECK(fabs(vplain - value) > 1e-3);
	}
}

/* The ICM likelihood gradient under a categorical metric, both paths. */
static void
test_icm_gradient(void)
{
	int cat[3] = {0, 3, 0};
	int n = 14, d = 3, T = 2, rank = 2;
	int dim = icm_theta_size(d, T, rank);
	double x[14 * 3], y0[14], y[14 * 2];
	double theta[32], grad[32], g2[32], v2, value;
	TunerStatus st;
	TunerRng rng;
	int i, k, force_full, missing;

	mixed_data(n, 3, 9, x, y0);
	rng_seed(&rng, 17);
	for (missing = 0; missing <= 1; missing++)
	{
		for (i = 0; i < n; i++)
		{
			y[i * 2] = y0[i];
			y[i * 2 + 1] = missing && i % 4 == 1
							   ? NAN
							   : 0.7 * y0[i] + 0.3 * rng_normal(&rng);
		}
		for (k = 0; k < d; k++)
			theta[k] = log(0.3 + 0.2 * k);
		for (k = d; k < d + T * rank; k++)
			theta[k] = 0.5 - 0.3 * (k - d);
		for (k = 0; k < T; k++)
		{
			theta[d + T * rank + k] = log(0.2);
			theta[d + T * rank + T + k] = log(0.05);
			theta[d + T * rank + 2 * T + k] = 0.1;
		}
		for (force_full = 0; force_full <= 1; force_full++)
		{
			CHECK(icm_fit_objective_metric(x, y, n, d, T, rank, cat, 1,
										   force_full, theta, &value, grad,
										   &st) == TUNER_OK);
			for (k = 0; k < dim; k++)
			{
				double tp[32], tm[32], vp, vm, h = 1e-5, fd;

				memcpy(tp, theta, sizeof(double) * dim);
				memcpy(tm, theta, sizeof(double) * dim);
				tp[k] += h;
				tm[k] -= h;
				icm_fit_objective_metric(x, y, n, d, T, rank, cat, 1,
										 force_full, tp, &vp, NULL, &st);
				icm_fit_objective_metric(x, y, n, d, T, rank, cat, 1,
										 force_full, tm, &vm, NULL, &st);
				fd = (vp - vm) / (2 * h);
				CHECK(fabs(grad[k] - fd) <= 1e-5 * fmax(fabs(fd), 1e-2));
			}
		}
		/* fully observed: Kronecker and full paths agree */
		if (!missing)
		{
			CHECK(icm_fit_objective_metric(x, y, n, d, T, rank, cat, 1, 1,
										   theta, &v2, g2, &st) == TUNER_OK);
			CHECK_CLOSE(v2, value, 1e-10);
			for (k = 0; k < dim; k++)
				CHECK_CLOSE(g2[k], grad[k], 1e-8);
		}
	}
}

/*
 * The posterior's input gradient (through log EI): 0 along the
 * categorical dimension, finite differences along the ordered ones; the
 * point path agrees with the batch path.  For the GP and an ICM task.
 */
static void
check_posterior_gradient(const Posterior *post, double best, TunerRng *rng)
{
	double scratch[512];
	TunerStatus st;
	int t, k;

	CHECK(acquisition_scratch_size(post) <= 512);
	for (t = 0; t < 6; t++)
	{
		double u[3], grad[3], mu, sd, v;

		u[0] = 0.05 + 0.9 * rng_uniform(rng);
		u[1] = 0.02 + 0.96 * rng_uniform(rng);
		u[2] = 0.05 + 0.9 * rng_uniform(rng);
		/* keep the categorical away from a bin edge for the difference */
		if (fabs(u[1] * 4 - floor(u[1] * 4 + 0.5)) < 0.01)
			u[1] += 0.01;
		v = acquisition_log_ei(post, best, u, grad, scratch);
		CHECK(post->batch(post->state, u, 1, &mu, &sd, &st) == TUNER_OK);
		CHECK_CLOSE(v, acquisition_log_ei(post, best, u, NULL, scratch),
					1e-12);
		CHECK(grad[1] == 0.0);
		for (k = 0; k < 3; k++)
		{
			double up[3], um[3], h = 1e-6;

			memcpy(up, u, sizeof(up));
			memcpy(um, u, sizeof(um));
			up[k] += h;
			um[k] -= h;
			CHECK_CLOSE(grad[k],
						(acquisition_log_ei(post, best, up, NULL, scratch) -
						 acquisition_log_ei(post, best, um, NULL, scratch)) /
							(2 * h),
						1e-5);
		}
		/* the whole bin is the choice */
		{
			double w[3] = {u[0], centre((int)floor(u[1] * 4), 4), u[2]};
			double mw, sw;

			CHECK(post->batch(post->state, w, 1, &mw, &sw, &st) == TUNER_OK);
			CHECK_CLOSE(mw, mu, 1e-12);
			CHECK_CLOSE(sw, sd, 1e-12);
		}
	}
}

static void
test_posterior_gradients(void)
{
	int cat[3] = {0, 4, 0};
	double x[20 * 3], y[20], y2[20 * 2];
	TunerStatus st;
	TunerRng rng;
	GpModel *m = gp_model_create(20, 3, &st);
	IcmModel *im = icm_model_create(20, 3, 2, 1, &st);
	IcmPosterior *ip;
	Posterior post;
	double best = HUGE_VAL;
	int i;

	mixed_data(20, 4, 21, x, y);
	memcpy(m->x, x, sizeof(x));
	memcpy(m->y, y, sizeof(y));
	m->lengthscales[0] = 0.3;
	m->lengthscales[1] = 0.9;
	m->lengthscales[2] = 0.5;
	m->outputscale = 1.3;
	m->noise = 0.01;
	m->mean = 0.2;
	CHECK(gp_model_set_categories(m, cat, &st) == TUNER_OK);
	CHECK(m->categories != NULL && m->categories[1] == 4);
	CHECK(gp_prepare(m, &st) == TUNER_OK);
	for (i = 0; i < 20; i++)
		best = fmin(best, y[i]);
	gp_posterior(m, &post);
	CHECK(post.categories == m->categories);
	rng_seed(&rng, 4);
	check_posterior_gradient(&post, best, &rng);

	memcpy(im->x, x, sizeof(x));
	for (i = 0; i < 20; i++)
	{
		y2[i * 2] = y[i];
		y2[i * 2 + 1] = i % 3 == 0 ? NAN : 0.5 * y[i] + 0.1 * sin(7.0 * i);
	}
	memcpy(im->y, y2, sizeof(y2));
	im->lengthscales[0] = 0.3;
	im->lengthscales[1] = 0.9;
	im->lengthscales[2] = 0.5;
	im->W[0] = 1.0;
	im->W[1] = 0.6;
	im->v[0] = 0.1;
	im->v[1] = 0.2;
	im->noise[0] = 0.01;
	im->noise[1] = 0.02;
	im->mean[0] = 0.1;
	im->mean[1] = 0.0;
	CHECK(icm_model_set_categories(im, cat, &st) == TUNER_OK);
	CHECK(icm_prepare(im, &st) == TUNER_OK);
	ip = icm_posterior_create(im, 0, &st);
	CHECK(ip != NULL);
	if (ip != NULL)
	{
		icm_posterior_as_posterior(ip, &post);
		CHECK(post.categories == im->categories);
		check_posterior_gradient(&post, best, &rng);
		/* icm_predict and the posterior agree under the metric */
		{
			double u[3] = {0.4, 0.61, 0.2}, m1, s1, m2, s2;

			CHECK(icm_predict(im, u, 1, 0, &m1, &s1, &st) == TUNER_OK);
			CHECK(icm_posterior_predict(ip, u, 1, &m2, &s2, &st) == TUNER_OK);
			CHECK_CLOSE(m1, m2, 1e-10);
			CHECK_CLOSE(s1, s2, 1e-10);
		}
		icm_posterior_free(ip);
	}
	icm_model_free(im);
	gp_model_free(m);
}

/*
 * Closed forms with explicit hyperparameters.  One categorical of 3
 * choices; choices 0 and 1 observed (y = a, b), choice 2 not.  Under the
 * overlap kernel every pair of different choices has covariance s rho,
 * rho = k52(1 / l), so
 *	 mean(2) = m + s rho (a' + b') / (s + noise + s rho),
 *	 var(2) = s - 2 (s rho)^2 / (s + noise + s rho),
 * with a' = a - m, b' = b - m: symmetric in a and b, whereas the ordered
 * encoding puts choice 2 next to choice 1 and leans towards b.  Without
 * noise the mean at the training points is y.
 */
static void
test_closed_forms(void)
{
	int cat[1] = {3};
	double s = 1.5, l = 0.8, noise = 1e-10, m0 = 0.1, a = 0.0, b = 2.0;
	double rho = matern52_unit(1.0 / l);
	TunerStatus st;
	int ordered;

	for (ordered = 0; ordered <= 1; ordered++)
	{
		GpModel *m = gp_model_create(2, 1, &st);
		double u[3] = {centre(0, 3), centre(1, 3), centre(2, 3)};
		double mean[3], sd[3];
		double want_mean = m0 + s * rho * (a - m0 + b - m0) / (s + noise + s * rho);
		double want_var = s - 2 * s * rho * s * rho / (s + noise + s * rho);

		m->x[0] = u[0];
		m->x[1] = u[1];
		m->y[0] = a;
		m->y[1] = b;
		m->lengthscales[0] = l;
		m->outputscale = s;
		m->noise = noise;
		m->mean = m0;
		if (!ordered)
			CHECK(gp_model_set_categories(m, cat, &st) == TUNER_OK);
		CHECK(gp_prepare(m, &st) == TUNER_OK);
		CHECK(gp_predict(m, u, 3, mean, sd, &st) == TUNER_OK);
		CHECK_CLOSE(mean[0], a, 1e-8);
		CHECK_CLOSE(mean[1], b, 1e-8);
		if (!ordered)
		{
			CHECK_CLOSE(mean[2], want_mean, 1e-12);
			CHECK_CLOSE(sd[2] * sd[2], want_var, 1e-12);
		}
		else
		{
			/* ordered: choice 2 is "near" choice 1, so it leans to b */
			CHECK(mean[2] > want_mean + 0.1);
		}
		gp_model_free(m);
	}

	/*
	 * y = [0, 1, 0] over the choices at two ordered settings: without
	 * noise the posterior mean is y at every training point, and the
	 * middle choice's spike does not leak into its neighbours' prediction
	 * at a new ordered setting any more than the others' do: the mean at
	 * choices 0 and 2 is the same there (they have the same data).
	 */
	{
		int c2[2] = {0, 3};
		GpModel *m = gp_model_create(6, 2, &st);
		double mean[6], sd[6], q[6];
		int i;

		for (i = 0; i < 6; i++)
		{
			m->x[i * 2] = i < 3 ? 0.2 : 0.7;
			m->x[i * 2 + 1] = centre(i % 3, 3);
			m->y[i] = i % 3 == 1 ? 1.0 : 0.0;
		}
		m->lengthscales[0] = 0.4;
		m->lengthscales[1] = 0.6;
		m->outputscale = 1.0;
		m->noise = 1e-10;
		m->mean = 0.0;
		CHECK(gp_model_set_categories(m, c2, &st) == TUNER_OK);
		CHECK(gp_prepare(m, &st) == TUNER_OK);
		CHECK(gp_predict(m, m->x, 6, mean, sd, &st) == TUNER_OK);
		for (i = 0; i < 6; i++)
			CHECK_CLOSE(mean[i], m->y[i], 1e-7);
		for (i = 0; i < 3; i++)
		{
			q[i * 2] = 0.45;
			q[i * 2 + 1] = centre(i, 3);
		}
		CHECK(gp_predict(m, q, 3, mean, sd, &st) == TUNER_OK);
		CHECK_CLOSE(mean[0], mean[2], 1e-12);
		CHECK_CLOSE(sd[0], sd[2], 1e-12);
		CHECK(mean[1] > mean[0] + 0.5);
		gp_model_free(m);
	}
}

/*
 * Relabelling the choices changes nothing under the overlap kernel: the
 * fit to relabelled data is the same fit (same likelihood, lengthscales,
 * and predictions at the relabelled points), bit for bit, since every
 * pairwise indicator is the same.  The ordered encoding is not invariant.
 */
static void
test_relabelling(void)
{
	static const int perm[4] = {2, 0, 3, 1};
	int cat[3] = {0, 4, 0};
	double x[24 * 3], xp[24 * 3], y[24];
	GpFitOptions opt;
	GpModel *f1 = NULL, *f2 = NULL, *o1 = NULL, *o2 = NULL;
	TunerStatus st;
	int i, k;

	mixed_data(24, 4, 33, x, y);
	memcpy(xp, x, sizeof(x));
	for (i = 0; i < 24; i++)
		xp[i * 3 + 1] = centre(perm[(int)floor(x[i * 3 + 1] * 4)], 4);
	gp_fit_options_init(&opt);
	opt.seed = 8;
	opt.categories = cat;
	CHECK(gp_fit_standardized(x, y, 24, 3, &opt, &f1, &st) == TUNER_OK);
	CHECK(gp_fit_standardized(xp, y, 24, 3, &opt, &f2, &st) == TUNER_OK);
	opt.categories = NULL;
	CHECK(gp_fit_standardized(x, y, 24, 3, &opt, &o1, &st) == TUNER_OK);
	CHECK(gp_fit_standardized(xp, y, 24, 3, &opt, &o2, &st) == TUNER_OK);
	if (f1 && f2 && o1 && o2)
	{
		double q[4 * 3], qp[4 * 3], m1[4], s1[4], m2[4], s2[4];

		CHECK(f1->categories != NULL && f1->categories[1] == 4);
		CHECK(o1->categories == NULL);
		CHECK(f1->log_likelihood == f2->log_likelihood);
		for (k = 0; k < 3; k++)
			CHECK(f1->lengthscales[k] == f2->lengthscales[k]);
		CHECK(fabs(o1->log_likelihood - o2->log_likelihood) > 1e-6);
		for (i = 0; i < 4; i++)
		{
			q[i * 3] = qp[i * 3] = 0.37;
			q[i * 3 + 2] = qp[i * 3 + 2] = 0.61;
			q[i * 3 + 1] = centre(i, 4);
			qp[i * 3 + 1] = centre(perm[i], 4);
		}
		gp_predict(f1, q, 4, m1, s1, &st);
		gp_predict(f2, qp, 4, m2, s2, &st);
		for (i = 0; i < 4; i++)
		{
			CHECK_CLOSE(m1[i], m2[i], 1e-12);
			CHECK_CLOSE(s1[i], s2[i], 1e-12);
		}
	}
	/* gp_fit in the caller's units leaves categorical columns alone */
	{
		GpModel *g = NULL;
		double xs[24 * 3];
		double mean[24], sd[24];

		for (i = 0; i < 24; i++)
		{
			xs[i * 3] = 100 + 50 * x[i * 3];
			xs[i * 3 + 1] = x[i * 3 + 1];
			xs[i * 3 + 2] = -3 + 2 * x[i * 3 + 2];
		}
		opt.categories = cat;
		CHECK(gp_fit(xs, y, 24, 3, &opt, &g, &st) == TUNER_OK);
		if (g != NULL)
		{
			double worst = 0.0;

			CHECK(g->categories != NULL && g->categories[1] == 4);
			CHECK(gp_predict(g, xs, 24, mean, sd, &st) == TUNER_OK);
			for (i = 0; i < 24; i++)
				worst = fmax(worst, fabs(mean[i] - y[i]));
			CHECK(worst < 0.3);
		}
		gp_model_free(g);
	}
	gp_model_free(f1);
	gp_model_free(f2);
	gp_model_free(o1);
	gp_model_free(o2);
}

/*
 * The acquisition finds the best choice from a single start in another
 * choice: L-BFGS cannot move a categorical, the search over choices must.
 */
static void
test_acquisition_choices(void)
{
	int cat[2] = {0, 4};
	GpModel *m;
	TunerStatus st;
	Posterior post;
	AcquisitionOptions opt;
	TunerRng rng;
	double scratch[64];
	int i, seed, found = 0, trials = 0;

	/* choice 2 is much better than 0, 1 and 3 */
	m = gp_model_create(16, 2, &st);
	for (i = 0; i < 16; i++)
	{
		int c = i % 4;
		double t = (i / 4) / 3.0;

		m->x[i * 2] = t;
		m->x[i * 2 + 1] = centre(c, 4);
		m->y[i] = (t - 0.6) * (t - 0.6) + (c == 2 ? -1.5 : 0.5 * (c % 2));
	}
	m->lengthscales[0] = 0.3;
	m->lengthscales[1] = 0.7;
	m->outputscale = 1.0;
	m->noise = 1e-4;
	m->mean = 0.0;
	CHECK(gp_model_set_categories(m, cat, &st) == TUNER_OK);
	CHECK(gp_prepare(m, &st) == TUNER_OK);
	gp_posterior(m, &post);
	acquisition_options_init(&opt, 2);
	opt.n_random = 1;
	opt.n_local = 0;
	opt.n_refine = 1;
	for (seed = 1; seed <= 12; seed++)
	{
		double points[2 * 2], values[2];
		int n_out = 0;
		double best = HUGE_VAL;

		for (i = 0; i < 16; i++)
			best = fmin(best, m->y[i]);
		rng_seed(&rng, seed);
		CHECK(acquisition_rank(&post, best, NULL, 0, &opt, &rng, 2, points,
							   values, &n_out, &st) == TUNER_OK);
		trials++;
		if (n_out < 1)
			continue;
		/* the best choice, and no other choice is better at that point */
		found += matern_choice(points[1], 4) == 2;
		for (i = 0; i < 4; i++)
		{
			double u[2] = {points[0], centre(i, 4)};

			CHECK(acquisition_log_ei(&post, best, u, NULL, scratch) <=
				  values[0] + 1e-12);
		}
	}
	CHECK(found == trials);
	gp_model_free(m);
}

/*
 * f over (t, categorical of 4, s): choice 1 (in the middle) is far better
 * than its neighbours 0 and 2, choice 3 mediocre.
 */
static double
middle_best(const double *c)
{
	static const double offset[4] = {1.0, 0.0, 1.1, 0.6};

	return (c[0] - 0.7) * (c[0] - 0.7) + (c[2] - 0.3) * (c[2] - 0.3) +
		   offset[(int)c[1]];
}

/*
 * A whole run of algorithm alg: the best configuration found has the
 * middle choice, and the model steps choose it once it is known.  Returns
 * the best value.
 */
static double
run_middle(SuggestAlgorithm alg, int steps, int *model_on_best,
		   int *model_steps)
{
	ParamSpec sp[3] = {{PARAM_FLOAT, 0, 1, 0, 0},
					   {PARAM_CATEGORICAL, 0, 0, 0, 4},
					   {PARAM_FLOAT, 0, 1, 0, 0}};
	int members[2 * 3] = {1, 1, 0, 0, 1, 1};
	int metric[2] = {0, 1};
	double x[40 * 3], y[40], aux[40 * 2], cfg[3], ls[3];
	SuggestInput in;
	SuggestResult out;
	TunerStatus st;
	double best = HUGE_VAL;
	int n, j, c;

	memset(&in, 0, sizeof(in));
	memset(&out, 0, sizeof(out));
	in.params = sp;
	in.d = 3;
	in.n_initial = 5;
	in.design_seed = 3;
	in.x_observed = x;
	in.y_observed = y;
	in.algorithm = alg;
	if (alg != SUGGEST_ALG_GP_EI)
	{
		in.y_aux = aux;
		in.n_aux = 2;
		in.n_clusters = 2;
		in.cluster_members = members;
		in.cluster_metric = metric;
	}
	out.config = cfg;
	out.lengthscales = ls;
	*model_on_best = 0;
	*model_steps = 0;
	for (n = 0; n < steps; n++)
	{
		in.n_observed = n;
		in.design_index = n;
		in.seed = 77 + n;
		if (tuner_suggest(&in, &out, &st) != TUNER_OK)
		{
			fprintf(stderr, "suggest failed: %s\n", st.message);
			CHECK(0);
			return HUGE_VAL;
		}
		if (out.source == SUGGEST_MODEL && n >= 12)
		{
			(*model_steps)++;
			*model_on_best += cfg[1] == 1.0;
		}
		/* the fitted models carry the metric */
		if (out.icm != NULL)
			CHECK(out.icm->categories != NULL && out.icm->categories[1] == 4);
		for (c = 0; out.cluster_icm != NULL && c < 2; c++)
		{
			IcmModel *cm = out.cluster_icm[c];

			/* cluster 0 is (t, choice), cluster 1 (choice, s) */
			if (cm != NULL)
				CHECK(cm->categories != NULL &&
					  cm->categories[c == 0 ? 1 : 0] == 4);
			icm_model_free(cm);
		}
		tuner_free(out.cluster_icm);
		out.cluster_icm = NULL;
		icm_model_free(out.icm);
		out.icm = NULL;
		memcpy(x + n * 3, cfg, sizeof(cfg));
		y[n] = middle_best(cfg);
		aux[n * 2] = (cfg[0] - 0.7) * (cfg[0] - 0.7) + 0.5 * (cfg[1] != 1.0);
		aux[n * 2 + 1] = (cfg[2] - 0.3) * (cfg[2] - 0.3) + 0.5 * (cfg[1] != 1.0);
		best = fmin(best, y[n]);
		for (j = 0; j < 3; j++)
			CHECK(isfinite(cfg[j]));
	}
	return best;
}

static void
test_suggest_middle(void)
{
	SuggestAlgorithm algs[3] = {SUGGEST_ALG_GP_EI, SUGGEST_ALG_ICM,
								SUGGEST_ALG_CLUSTERED_ICM};
	const char *names[3] = {"gp-ei", "icm", "clustered-icm"};
	int a;

	for (a = 0; a < 3; a++)
	{
		int on_best, steps;
		double best = run_middle(algs[a], 30, &on_best, &steps);

		printf("  %s, best choice in the middle of 4: best %.4f after 30 "
			   "(optimum 0), %d of %d model steps from 12 on chose it\n",
			   names[a], best, on_best, steps);
		CHECK(best < 0.02);
		CHECK(steps > 0 && on_best * 3 >= steps * 2);
	}
}

void
test_categorical(void)
{
	test_choice_and_metric();
	test_kernel_values();
	test_gp_gradient();
	test_icm_gradient();
	test_posterior_gradients();
	test_closed_forms();
	test_relabelling();
	test_acquisition_choices();
	test_suggest_middle();
}
