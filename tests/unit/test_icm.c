/*
 * test_icm.c
 *	  The ICM multi-task model: one task equals the single-task GP, the
 *	  Kronecker path equals the full path, the full path with missing
 *	  entries equals a brute-force computation, the gradient equals finite
 *	  differences, a fit learns correlated tasks and helps a sparse task,
 *	  and bad input is rejected.
 */
#include <math.h>
#include <string.h>

#include <lapacke.h>

#include "gp.h"
#include "icm.h"
#include "icm_posterior.h"
#include "matern.h"
#include "rng.h"
#include "unit.h"

#define MAXN 40
#define MAXT 3
#define MAXD 3

/* Fill a model's hyperparameters at random (distinct noise per task). */
static void
random_hyper(IcmModel *m, TunerRng *rng)
{
	int k;

	for (k = 0; k < m->d; k++)
		m->lengthscales[k] = 0.2 + 0.5 * rng_uniform(rng);
	for (k = 0; k < m->T * m->rank; k++)
		m->W[k] = rng_normal(rng);
	for (k = 0; k < m->T; k++)
	{
		m->v[k] = 0.05 + 0.3 * rng_uniform(rng);
		m->noise[k] = 0.01 * (k + 1) + 0.02 * rng_uniform(rng);
		m->mean[k] = 0.5 * rng_normal(rng);
	}
}

/* Copy hyperparameters and data of a into b (same shape). */
static void
copy_model(const IcmModel *a, IcmModel *b)
{
	memcpy(b->x, a->x, sizeof(double) * a->n * a->d);
	memcpy(b->y, a->y, sizeof(double) * a->n * a->T);
	memcpy(b->lengthscales, a->lengthscales, sizeof(double) * a->d);
	memcpy(b->W, a->W, sizeof(double) * a->T * a->rank);
	memcpy(b->v, a->v, sizeof(double) * a->T);
	memcpy(b->noise, a->noise, sizeof(double) * a->T);
	memcpy(b->mean, a->mean, sizeof(double) * a->T);
}

/* Relative closeness, for values that may be large (log likelihoods). */
static int
rel_close(double a, double b, double tol)
{
	return fabs(a - b) <= tol * fmax(fabs(a), fabs(b)) || fabs(a - b) < 1e-300;
}

/* 1. One task: ICM equals the single-task GP with B = s. */
static void
test_one_task(void)
{
	int n = 12, d = 2, i;
	double s = 1.7, noise = 0.03, mean = 0.4;
	double xs[5 * 2], mg[5], sg[5], mi[5], si[5];
	TunerStatus st;
	TunerRng rng;
	GpModel *gp = gp_model_create(n, d, &st);
	IcmModel *icm = icm_model_create(n, d, 1, 1, &st);
	int full;

	rng_seed(&rng, 11);
	for (i = 0; i < n * d; i++)
		gp->x[i] = icm->x[i] = rng_uniform(&rng);
	for (i = 0; i < n; i++)
		gp->y[i] = icm->y[i] = sin(4 * gp->x[i * d]) + 0.1 * rng_normal(&rng);
	for (i = 0; i < 5 * d; i++)
		xs[i] = rng_uniform(&rng);
	gp->lengthscales[0] = icm->lengthscales[0] = 0.3;
	gp->lengthscales[1] = icm->lengthscales[1] = 0.6;
	gp->outputscale = s;
	gp->noise = icm->noise[0] = noise;
	gp->mean = icm->mean[0] = mean;
	icm->W[0] = sqrt(0.5 * s);
	icm->v[0] = 0.5 * s;
	CHECK(gp_prepare(gp, &st) == TUNER_OK);
	CHECK(gp_predict(gp, xs, 5, mg, sg, &st) == TUNER_OK);
	for (full = 0; full <= 1; full++)
	{
		icm->force_full = full;
		CHECK(icm_prepare(icm, &st) == TUNER_OK);
		CHECK(icm->kronecker == !full);
		CHECK(rel_close(icm->log_likelihood, gp->log_likelihood, 1e-10));
		CHECK(icm_predict(icm, xs, 5, 0, mi, si, &st) == TUNER_OK);
		for (i = 0; i < 5; i++)
		{
			CHECK(rel_close(mi[i], mg[i], 1e-10));
			CHECK(rel_close(si[i], sg[i], 1e-10));
		}
	}
	gp_model_free(gp);
	icm_model_free(icm);
}

/* 2. Kronecker path equals full path on fully observed data. */
static void
test_kronecker(void)
{
	int n = 30, d = 2, T = 3, i, t;
	double xs[8 * 2], mk[8], sk[8], mf[8], sf[8];
	TunerStatus st;
	TunerRng rng;
	IcmModel *kr = icm_model_create(n, d, T, 2, &st);
	IcmModel *fu = icm_model_create(n, d, T, 2, &st);

	rng_seed(&rng, 22);
	for (i = 0; i < n * d; i++)
		kr->x[i] = rng_uniform(&rng);
	for (i = 0; i < n; i++)
		for (t = 0; t < T; t++)
			kr->y[i * T + t] = sin(3 * kr->x[i * d] + t) +
							   0.2 * t * kr->x[i * d + 1] +
							   0.1 * rng_normal(&rng);
	for (i = 0; i < 8 * d; i++)
		xs[i] = rng_uniform(&rng);
	random_hyper(kr, &rng);
	copy_model(kr, fu);
	fu->force_full = 1;
	CHECK(icm_prepare(kr, &st) == TUNER_OK);
	CHECK(icm_prepare(fu, &st) == TUNER_OK);
	CHECK(kr->kronecker == 1 && fu->kronecker == 0);
	CHECK(fu->jitter == 0.0);
	CHECK(rel_close(kr->log_likelihood, fu->log_likelihood, 1e-8));
	for (t = 0; t < T; t++)
	{
		CHECK(icm_predict(kr, xs, 8, t, mk, sk, &st) == TUNER_OK);
		CHECK(icm_predict(fu, xs, 8, t, mf, sf, &st) == TUNER_OK);
		for (i = 0; i < 8; i++)
		{
			CHECK_CLOSE(mk[i], mf[i], 1e-8);
			CHECK_CLOSE(sk[i], sf[i], 1e-8);
		}
	}
	icm_model_free(kr);
	icm_model_free(fu);
}

/*
 * 2b. likelihood_only (T Cholesky factors, no eigen-decomposition of Kx)
 * gives the likelihood, alpha and every gradient piece of the eigen path and
 * of the full path; a model prepared that way refuses to predict.
 */
static void
test_likelihood_only(void)
{
	int n = 25, d = 2, T = 4, rank = 2, i, t;
	double c[3][25 * 25], mm[3][16], gdiag[3][4], asum[3][4];
	TunerStatus st;
	TunerRng rng;
	IcmModel *m[3];
	IcmPosterior *post;
	double mu, sd;
	int path;

	rng_seed(&rng, 23);
	for (path = 0; path < 3; path++)
		m[path] = icm_model_create(n, d, T, rank, &st);
	for (i = 0; i < n * d; i++)
		m[0]->x[i] = rng_uniform(&rng);
	for (i = 0; i < n; i++)
		for (t = 0; t < T; t++)
			m[0]->y[i * T + t] = cos(2 * m[0]->x[i * d] + t) +
								 0.3 * t * m[0]->x[i * d + 1] +
								 0.1 * rng_normal(&rng);
	random_hyper(m[0], &rng);
	copy_model(m[0], m[1]);
	copy_model(m[0], m[2]);
	m[1]->likelihood_only = 1;
	m[2]->force_full = 1;
	for (path = 0; path < 3; path++)
	{
		CHECK(icm_prepare(m[path], &st) == TUNER_OK);
		CHECK(icm_gradient_parts(m[path], c[path], mm[path], gdiag[path],
								 asum[path], &st) == TUNER_OK);
	}
	CHECK(m[1]->kronecker == 1 && m[2]->kronecker == 0);
	CHECK(m[2]->jitter == 0.0);
	for (path = 0; path < 3; path += 2)
	{
		CHECK(rel_close(m[1]->log_likelihood, m[path]->log_likelihood, 1e-10));
		for (i = 0; i < n * T; i++)
			CHECK_CLOSE(m[1]->alpha[i], m[path]->alpha[i], 1e-8);
		for (i = 0; i < n * n; i++)
			CHECK_CLOSE(c[1][i], c[path][i], 1e-8);
		for (i = 0; i < T * T; i++)
			CHECK_CLOSE(mm[1][i], mm[path][i], 1e-8);
		for (t = 0; t < T; t++)
		{
			CHECK_CLOSE(gdiag[1][t], gdiag[path][t], 1e-8);
			CHECK_CLOSE(asum[1][t], asum[path][t], 1e-8);
		}
	}

	tuner_status_clear(&st);
	CHECK(icm_predict(m[1], m[1]->x, 1, 0, &mu, &sd, &st) ==
		  TUNER_ERR_INVALID);
	CHECK(strstr(st.message, "likelihood only") != NULL);
	tuner_status_clear(&st);
	post = icm_posterior_create(m[1], 0, &st);
	CHECK(post == NULL && st.code == TUNER_ERR_INVALID);
	/* with missing entries the flag changes nothing: the full path */
	m[1]->y[3] = NAN;
	CHECK(icm_prepare(m[1], &st) == TUNER_OK);
	CHECK(m[1]->kronecker == 0);
	CHECK(icm_predict(m[1], m[1]->x, 1, 0, &mu, &sd, &st) == TUNER_OK);
	for (path = 0; path < 3; path++)
		icm_model_free(m[path]);
}

/*
 * 3. Missing entries: the full path against the big matrix built here and
 * inverted by LU (dgetrf/dgetri).
 */
static void
test_missing_bruteforce(void)
{
	int n = 15, d = 2, T = 3, rank = 2, m = 4;
	int idx[MAXN * MAXT];
	double K[45 * 45], ks[45], resid[45], kinv_r[45];
	lapack_int ipiv[45];
	double xs[4 * 2], mu[4], sd[4], B[9];
	double quad = 0.0, logdet = 0.0, lml;
	TunerStatus st;
	TunerRng rng;
	IcmModel *mo = icm_model_create(n, d, T, rank, &st);
	int i, j, t, s, a, b, N = 0, q;

	rng_seed(&rng, 33);
	for (i = 0; i < n * d; i++)
		mo->x[i] = rng_uniform(&rng);
	for (i = 0; i < n; i++)
		for (t = 0; t < T; t++)
			mo->y[i * T + t] =
				(i + t) % 4 == 1
					? NAN
					: cos(2 * mo->x[i * d] * (t + 1)) + 0.1 * rng_normal(&rng);
	for (i = 0; i < m * d; i++)
		xs[i] = rng_uniform(&rng);
	random_hyper(mo, &rng);
	CHECK(icm_prepare(mo, &st) == TUNER_OK);
	CHECK(mo->kronecker == 0);

	for (t = 0; t < T; t++)
		for (s = 0; s < T; s++)
		{
			B[t + s * T] = t == s ? mo->v[t] : 0.0;
			for (q = 0; q < rank; q++)
				B[t + s * T] += mo->W[t * rank + q] * mo->W[s * rank + q];
		}
	for (i = 0; i < n; i++)
		for (t = 0; t < T; t++)
			if (!isnan(mo->y[i * T + t]))
				idx[N++] = i * T + t;
	CHECK(N == mo->n_obs);
	for (a = 0; a < N; a++)
		for (b = 0; b < N; b++)
		{
			double r2 = 0.0;

			i = idx[a] / T;
			j = idx[b] / T;
			for (q = 0; q < d; q++)
			{
				double z = (mo->x[i * d + q] - mo->x[j * d + q]) /
						   mo->lengthscales[q];

				r2 += z * z;
			}
			K[a + b * N] = B[idx[a] % T + (idx[b] % T) * T] *
							   (1 + sqrt(5 * r2) + 5 * r2 / 3) *
							   exp(-sqrt(5 * r2)) +
						   (a == b ? mo->noise[idx[a] % T] : 0.0);
		}
	CHECK(LAPACKE_dgetrf(LAPACK_COL_MAJOR, N, N, K, N, ipiv) == 0);
	for (a = 0; a < N; a++)
		logdet += log(fabs(K[a + a * N]));
	CHECK(LAPACKE_dgetri(LAPACK_COL_MAJOR, N, K, N, ipiv) == 0);
	for (a = 0; a < N; a++)
		resid[a] = mo->y[idx[a]] - mo->mean[idx[a] % T];
	for (a = 0; a < N; a++)
	{
		kinv_r[a] = 0.0;
		for (b = 0; b < N; b++)
			kinv_r[a] += K[a + b * N] * resid[b];
		quad += resid[a] * kinv_r[a];
	}
	lml = -0.5 * quad - 0.5 * logdet - 0.5 * N * log(2 * M_PI);
	CHECK(rel_close(mo->log_likelihood, lml, 1e-10));

	for (t = 0; t < T; t++)
	{
		CHECK(icm_predict(mo, xs, m, t, mu, sd, &st) == TUNER_OK);
		for (j = 0; j < m; j++)
		{
			double mean = mo->mean[t], var = B[t + t * T];

			for (a = 0; a < N; a++)
			{
				double r2 = 0.0;

				i = idx[a] / T;
				for (q = 0; q < d; q++)
				{
					double z = (mo->x[i * d + q] - xs[j * d + q]) /
							   mo->lengthscales[q];

					r2 += z * z;
				}
				ks[a] = B[idx[a] % T + t * T] *
						(1 + sqrt(5 * r2) + 5 * r2 / 3) * exp(-sqrt(5 * r2));
				mean += ks[a] * kinv_r[a];
			}
			for (a = 0; a < N; a++)
				for (b = 0; b < N; b++)
					var -= ks[a] * K[a + b * N] * ks[b];
			CHECK_CLOSE(mu[j], mean, 1e-10);
			CHECK_CLOSE(sd[j], sqrt(var), 1e-9);
		}
	}
	icm_model_free(mo);
}

/* 4. Gradient against central differences, on both paths. */
static void
check_gradient(int missing, int force_full, int use_priors, uint64_t seed)
{
	int n = 14, d = 2, T = 3, rank = 2;
	int dim = icm_theta_size(d, T, rank);
	double x[MAXN * MAXD], y[MAXN * MAXT];
	double theta[32], grad[32], tp[32], tm[32];
	double value, vp, vm;
	TunerStatus st;
	TunerRng rng;
	int i, t, k;

	rng_seed(&rng, seed);
	for (i = 0; i < n * d; i++)
		x[i] = rng_uniform(&rng);
	for (i = 0; i < n; i++)
		for (t = 0; t < T; t++)
			y[i * T + t] =
				missing && (i * 7 + t) % 5 == 2
					? NAN
					: sin(3 * x[i * d] + t) + 0.2 * rng_normal(&rng);
	for (k = 0; k < d; k++)
		theta[k] = log(0.2 + 0.4 * rng_uniform(&rng));
	for (k = d; k < d + T * rank; k++)
		theta[k] = 0.7 * rng_normal(&rng);
	for (t = 0; t < T; t++)
	{
		theta[d + T * rank + t] = log(0.1 + 0.2 * rng_uniform(&rng));
		theta[d + T * rank + T + t] = log(0.02 + 0.05 * rng_uniform(&rng));
		theta[d + T * rank + 2 * T + t] = 0.3 * rng_normal(&rng);
	}
	CHECK(icm_fit_objective(x, y, n, d, T, rank, use_priors, force_full, theta,
							&value, grad, &st) == TUNER_OK);
	for (k = 0; k < dim; k++)
	{
		double h = 1e-5, fd;

		memcpy(tp, theta, sizeof(double) * dim);
		memcpy(tm, theta, sizeof(double) * dim);
		tp[k] += h;
		tm[k] -= h;
		icm_fit_objective(x, y, n, d, T, rank, use_priors, force_full, tp, &vp,
						  NULL, &st);
		icm_fit_objective(x, y, n, d, T, rank, use_priors, force_full, tm, &vm,
						  NULL, &st);
		fd = (vp - vm) / (2 * h);
		if (fabs(grad[k] - fd) > 1e-5 * fmax(fabs(fd), 1e-2))
			fprintf(stderr, "icm gradient %d: %.10g vs fd %.10g\n", k, grad[k],
					fd);
		CHECK(fabs(grad[k] - fd) <= 1e-5 * fmax(fabs(fd), 1e-2));
	}
	/* fully observed: the other path gives the same value and gradient */
	if (!missing)
	{
		double g2[32], v2;

		CHECK(icm_fit_objective(x, y, n, d, T, rank, use_priors, !force_full,
								theta, &v2, g2, &st) == TUNER_OK);
		CHECK(rel_close(v2, value, 1e-10));
		for (k = 0; k < dim; k++)
			CHECK_CLOSE(g2[k], grad[k], 1e-8);
	}
}

/* Standardise each task's observed values in place. */
static void
standardize(double *y, int n, int T)
{
	int i, t;

	for (t = 0; t < T; t++)
	{
		double sum = 0, sq = 0, cnt = 0, mean, sd;

		for (i = 0; i < n; i++)
			if (!isnan(y[i * T + t]))
			{
				sum += y[i * T + t];
				cnt++;
			}
		mean = sum / cnt;
		for (i = 0; i < n; i++)
			if (!isnan(y[i * T + t]))
				sq += (y[i * T + t] - mean) * (y[i * T + t] - mean);
		sd = sqrt(sq / (cnt - 1));
		for (i = 0; i < n; i++)
			y[i * T + t] = (y[i * T + t] - mean) / sd;
	}
}

static double
task_f(const double *x)
{
	return sin(5 * x[0]) + 0.7 * cos(3 * x[1]) + x[0] * x[1];
}

static double
task_g(const double *x)
{
	return cos(9 * x[1] + 1.0) - 0.8 * x[0] * x[0];
}

/* 5. Fit learns correlated tasks and helps a sparse task. */
static void
test_fit_correlated(void)
{
	int n = 30, d = 2, T = 3, few = 6, nt = 50;
	double x[30 * 2], y[30 * 3], x1[6 * 2], y1[6];
	double xt[50 * 2], mu[50], sd[50], gmu[50], gsd[50], corr[9];
	double mean1 = 0, sd1 = 0, err_icm = 0, err_gp = 0;
	IcmFitOptions opt;
	GpFitOptions gopt;
	IcmModel *fit = NULL;
	GpModel *gp = NULL;
	TunerStatus st;
	TunerRng rng;
	int i;

	rng_seed(&rng, 55);
	for (i = 0; i < n * d; i++)
		x[i] = rng_uniform(&rng);
	for (i = 0; i < nt * d; i++)
		xt[i] = rng_uniform(&rng);
	for (i = 0; i < n; i++)
	{
		double f = task_f(x + i * d);

		y[i * T + 0] = i < few ? f + 0.01 * rng_normal(&rng) : NAN;
		y[i * T + 1] = f + 0.05 * rng_normal(&rng);
		y[i * T + 2] = task_g(x + i * d) + 0.05 * rng_normal(&rng);
	}
	/* task 1's standardisation, to score both models in its units */
	for (i = 0; i < few; i++)
		mean1 += y[i * T] / few;
	for (i = 0; i < few; i++)
		sd1 += (y[i * T] - mean1) * (y[i * T] - mean1);
	sd1 = sqrt(sd1 / (few - 1));
	standardize(y, n, T);
	for (i = 0; i < few; i++)
	{
		memcpy(x1 + i * d, x + i * d, sizeof(double) * d);
		y1[i] = y[i * T];
	}

	icm_fit_options_init(&opt);
	opt.rank = 2;
	opt.seed = 5;
	CHECK(icm_fit(x, y, n, d, T, &opt, &fit, &st) == TUNER_OK);
	if (fit == NULL)
	{
		fprintf(stderr, "icm_fit: %s\n", st.message);
		return;
	}
	CHECK(icm_task_correlation(fit, corr, &st) == TUNER_OK);
	CHECK(corr[0 + 1 * T] > 0.8);
	CHECK(fabs(corr[0 + 2 * T]) < 0.5);
	CHECK(icm_predict(fit, xt, nt, 0, mu, sd, &st) == TUNER_OK);

	gp_fit_options_init(&gopt);
	CHECK(gp_fit_standardized(x1, y1, few, d, &gopt, &gp, &st) == TUNER_OK);
	if (gp == NULL)
	{
		icm_model_free(fit);
		return;
	}
	CHECK(gp_predict(gp, xt, nt, gmu, gsd, &st) == TUNER_OK);
	for (i = 0; i < nt; i++)
	{
		double truth = (task_f(xt + i * d) - mean1) / sd1;

		err_icm += (mu[i] - truth) * (mu[i] - truth) / nt;
		err_gp += (gmu[i] - truth) * (gmu[i] - truth) / nt;
	}
	if (!(sqrt(err_icm) < 0.5 * sqrt(err_gp)))
		fprintf(stderr, "icm rmse %g, gp rmse %g, corr12 %g corr13 %g\n",
				sqrt(err_icm), sqrt(err_gp), corr[T], corr[2 * T]);
	CHECK(sqrt(err_icm) < 0.5 * sqrt(err_gp));

	/* the Kronecker fit (everything observed) learns the same structure */
	{
		IcmModel *fk = NULL;

		for (i = 0; i < n; i++)
			y[i * T] = y[i * T + 1];
		CHECK(icm_fit(x, y, n, d, T, &opt, &fk, &st) == TUNER_OK);
		if (fk != NULL)
		{
			CHECK(fk->kronecker == 1);
			CHECK(icm_task_correlation(fk, corr, &st) == TUNER_OK);
			CHECK(corr[T] > 0.95);
			CHECK(fabs(corr[2 * T]) < 0.5);
			icm_model_free(fk);
		}
	}
	/* a warm start from the fit keeps what it learned */
	{
		IcmModel *fw = NULL;

		opt.warm = fit;
		opt.restarts = 1;
		CHECK(icm_fit(x, y, n, d, T, &opt, &fw, &st) == TUNER_OK);
		if (fw != NULL)
		{
			CHECK(icm_task_correlation(fw, corr, &st) == TUNER_OK);
			CHECK(corr[T] > 0.8);
			icm_model_free(fw);
		}
	}
	gp_model_free(gp);
	icm_model_free(fit);
}

/* 6. Bad input. */
static void
test_bad_input(void)
{
	int n = 5, d = 2, T = 2, i;
	double x[5 * 2], y[5 * 2];
	IcmFitOptions opt;
	IcmModel *m, *out = NULL;
	TunerStatus st;

	for (i = 0; i < n * d; i++)
		x[i] = i / 10.0;
	for (i = 0; i < n * T; i++)
		y[i] = sin(i);

	tuner_status_clear(&st);
	CHECK(icm_model_create(n, d, T, 3, &st) == NULL);
	CHECK(st.code == TUNER_ERR_INVALID && strstr(st.message, "rank") != NULL);
	tuner_status_clear(&st);
	CHECK(icm_model_create(n, d, T, 0, &st) == NULL);
	CHECK(st.code == TUNER_ERR_INVALID && strstr(st.message, "rank") != NULL);

	icm_fit_options_init(&opt);
	opt.rank = 3;
	tuner_status_clear(&st);
	CHECK(icm_fit(x, y, n, d, T, &opt, &out, &st) == TUNER_ERR_INVALID);
	CHECK(out == NULL && strstr(st.message, "rank") != NULL);
	opt.rank = 0;
	CHECK(icm_fit(x, y, n, d, T, &opt, &out, &st) == TUNER_ERR_INVALID);
	opt.rank = 1;

	/* a task with no observations */
	for (i = 0; i < n; i++)
		y[i * T + 1] = NAN;
	tuner_status_clear(&st);
	CHECK(icm_fit(x, y, n, d, T, &opt, &out, &st) == TUNER_ERR_INVALID);
	CHECK(strstr(st.message, "task 2 has no observations") != NULL);
	m = icm_model_create(n, d, T, 1, &st);
	memcpy(m->x, x, sizeof(x));
	memcpy(m->y, y, sizeof(y));
	for (i = 0; i < d; i++)
		m->lengthscales[i] = 0.5;
	for (i = 0; i < T; i++)
	{
		m->W[i] = 1.0;
		m->v[i] = 0.1;
		m->noise[i] = 0.01;
		m->mean[i] = 0.0;
	}
	tuner_status_clear(&st);
	CHECK(icm_prepare(m, &st) == TUNER_ERR_INVALID);
	CHECK(strstr(st.message, "no observations") != NULL);

	/* NaN in x */
	for (i = 0; i < n; i++)
		y[i * T + 1] = cos(i);
	memcpy(m->y, y, sizeof(y));
	m->x[3] = NAN;
	tuner_status_clear(&st);
	CHECK(icm_prepare(m, &st) == TUNER_ERR_INVALID);
	CHECK(strstr(st.message, "x contains NaN") != NULL);
	x[3] = NAN;
	tuner_status_clear(&st);
	CHECK(icm_fit(x, y, n, d, T, &opt, &out, &st) == TUNER_ERR_INVALID);
	CHECK(out == NULL && strstr(st.message, "x contains NaN") != NULL);

	/* a valid model predicting an unknown task */
	x[3] = 0.3;
	memcpy(m->x, x, sizeof(x));
	CHECK(icm_prepare(m, &st) == TUNER_OK);
	{
		double mu, sd;

		tuner_status_clear(&st);
		CHECK(icm_predict(m, x, 1, 2, &mu, &sd, &st) == TUNER_ERR_INVALID);
	}
	icm_model_free(m);
}

void
test_icm(void)
{
	test_one_task();
	test_kronecker();
	test_likelihood_only();
	test_missing_bruteforce();
	check_gradient(1, 0, 0, 1); /* missing: full path */
	check_gradient(1, 0, 1, 2);
	check_gradient(0, 0, 1, 3); /* fully observed: Kronecker path */
	check_gradient(0, 1, 1, 4); /* fully observed, forced full */
	test_fit_correlated();
	test_bad_input();
}
