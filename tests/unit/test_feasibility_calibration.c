/*
 * test_feasibility_calibration.c
 *	  The failure model's leave-one-out predictions against conditioning
 *	  the Gaussian model with its trend's coefficients as random effects
 *	  directly, and the probit calibration: its gradient against finite
 *	  differences, recovery of a known threshold and spread from sampled
 *	  outcomes, and separable outcomes.
 */
#include <math.h>
#include <string.h>

#include "feasibility.h"
#include "feasibility_calibration.h"
#include "linalg.h"
#include "matern.h"
#include "rng.h"
#include "suggest.h"
#include "unit.h"

#define N_RAN 14
#define N_FAILED 4

/* feasibility.c's FAILURE_TREND_PRIOR_SD, the slopes' prior sd */
#define SLOPE_PRIOR_SD 2.0
/* a flat intercept, approximated by a proper prior this wide */
#define INTERCEPT_PRIOR_VAR 1e6

/*
 * Trial i left out of N(0, C), C = K + H^T S H with S = diag(intercept,
 * slopes' prior variances): mean C_i,-i C_-i,-i^-1 y_-i and variance
 * C_ii - C_i,-i C_-i,-i^-1 C_-i,i, by solving the n - 1 system.
 */
static void
direct_loo(const double *c, const double *y, int n, int i, double *mu,
		   double *var)
{
	int m = n - 1, a, b, ra, rb;
	double sub[64 * 64], work[64 * 64], rhs[64], col[64], jitter = 0.0;
	TunerStatus status;

	for (a = 0, ra = 0; a < n; a++)
	{
		if (a == i)
			continue;
		for (b = 0, rb = 0; b < n; b++)
		{
			if (b == i)
				continue;
			sub[ra * m + rb++] = c[a * n + b];
		}
		rhs[ra] = y[a];
		col[ra++] = c[a * n + i];
	}
	CHECK(linalg_cholesky(sub, m, work, &jitter, &status) == TUNER_OK);
	CHECK(jitter == 0.0);
	linalg_cholesky_solve(sub, m, rhs);
	*mu = 0.0;
	*var = c[i * n + i];
	for (a = 0; a < m; a++)
		*mu += col[a] * rhs[a];
	linalg_cholesky_solve(sub, m, col);
	for (a = 0, ra = 0; a < n; a++)
	{
		if (a == i)
			continue;
		*var -= c[a * n + i] * col[ra++];
	}
}

/*
 * A failure model on the square (ran left of x0 = 0.6, failed right of
 * it): feasibility_loo equals conditioning the model's Gaussian directly.
 */
static void
test_loo_against_conditioning(void)
{
	ParamSpec sq[2] = {{PARAM_FLOAT, 0, 1, 0, 0}, {PARAM_FLOAT, 0, 1, 0, 0}};
	double xo[N_RAN * 2], yo[N_RAN], xf[N_FAILED * 2];
	double x[(N_RAN + N_FAILED) * 2], ys[N_RAN + N_FAILED];
	double c[(N_RAN + N_FAILED) * (N_RAN + N_FAILED)];
	double mu[N_RAN + N_FAILED], var[N_RAN + N_FAILED], inv_ls[2];
	int n = N_RAN + N_FAILED, i, j;
	SuggestInput in;
	FeasibilityModel *model = NULL;
	const FeasibilityTerm *term;
	TunerStatus status;

	memset(&in, 0, sizeof(in));
	in.params = sq;
	in.d = 2;
	in.n_initial = 5;
	for (i = 0; i < N_RAN; i++)
	{
		xo[2 * i] = 0.04 * i;
		xo[2 * i + 1] = fmod(0.13 + 0.41 * i, 1.0);
		yo[i] = xo[2 * i] + xo[2 * i + 1];
	}
	for (i = 0; i < N_FAILED; i++)
	{
		xf[2 * i] = 0.65 + 0.1 * i;
		xf[2 * i + 1] = fmod(0.3 + 0.23 * i, 1.0);
	}
	in.x_observed = xo;
	in.y_observed = yo;
	in.n_observed = N_RAN;
	in.x_failed = xf;
	in.n_failed = N_FAILED;
	CHECK(feasibility_fit(&in, 3, &model, &status) == TUNER_OK);
	CHECK(model != NULL && model->n_terms == 1);
	if (model == NULL)
		return;
	term = &model->terms[0];
	CHECK(term->n_basis == 3);
	memcpy(x, xo, sizeof(xo));
	memcpy(x + 2 * N_RAN, xf, sizeof(xf));
	for (i = 0; i < n; i++)
		ys[i] = ((i < N_RAN ? 0.0 : 1.0) - term->y_mean) / term->y_sd;
	CHECK(feasibility_loo(term, ys, mu, var, &status) == TUNER_OK);

	for (j = 0; j < 2; j++)
		inv_ls[j] = 1.0 / term->model->lengthscales[j];
	matern52_gram(x, n, 2, inv_ls, NULL, term->model->outputscale, c);
	for (i = 0; i < n; i++)
	{
		c[i * n + i] += term->model->noise + term->model->jitter;
		for (j = 0; j < n; j++)
			c[i * n + j] +=
				INTERCEPT_PRIOR_VAR + SLOPE_PRIOR_SD * SLOPE_PRIOR_SD *
										  ((x[2 * i] - 0.5) * (x[2 * j] - 0.5) +
										   (x[2 * i + 1] - 0.5) *
											   (x[2 * j + 1] - 0.5));
	}
	for (i = 0; i < n; i++)
	{
		double m, v;

		direct_loo(c, ys, n, i, &m, &v);
		CHECK_CLOSE(mu[i], m, 1e-4);
		CHECK_CLOSE(var[i], v, 1e-4);
		CHECK(var[i] > term->model->noise);
	}
	/* a failure the others predict less strongly than it is */
	CHECK(mu[N_RAN] < ys[N_RAN]);
	feasibility_free(model);
}

/* The calibration objective's gradient against central differences. */
static void
test_objective_gradient(void)
{
	double mu[6] = {-1.2, -0.4, 0.1, 0.7, 1.5, 2.2};
	double var[6] = {0.3, 0.5, 0.2, 0.9, 0.4, 0.6};
	int failed[6] = {0, 0, 1, 0, 1, 1};
	double points[3][2] = {{0.3, 0.2}, {-0.5, 1.5}, {1.0, 0.01}};
	int p;

	for (p = 0; p < 3; p++)
	{
		double c = points[p][0], tau = points[p][1], grad[2], h = 1e-6;
		double dc =
			(probit_calibration_objective(mu, var, failed, 6, 0.5, c + h, tau,
										  NULL) -
			 probit_calibration_objective(mu, var, failed, 6, 0.5, c - h, tau,
										  NULL)) /
			(2.0 * h);
		double dlt =
			(probit_calibration_objective(mu, var, failed, 6, 0.5, c,
										  tau * exp(h), NULL) -
			 probit_calibration_objective(mu, var, failed, 6, 0.5, c,
										  tau * exp(-h), NULL)) /
			(2.0 * h);

		(void)probit_calibration_objective(mu, var, failed, 6, 0.5, c, tau,
										   grad);
		CHECK_CLOSE(grad[0], dc, 1e-6);
		CHECK_CLOSE(grad[1], dlt, 1e-6);
	}
}

/*
 * Outcomes drawn from the probit with c = 0.7 and tau = 0.8 at 4000
 * predictions: the fit recovers both.  Outcomes that the predictions
 * separate (failed exactly when mu > 0.3): tau at its floor, c in the gap.
 */
static void
test_recovers_probit(void)
{
	enum
	{
		N = 4000
	};
	static double mu[N], var[N];
	static int failed[N];
	double c, tau;
	TunerRng rng;
	TunerStatus status;
	int i;

	rng_seed(&rng, 11);
	for (i = 0; i < N; i++)
	{
		mu[i] = -3.0 + 6.0 * rng_uniform(&rng);
		var[i] = 0.1 + 0.9 * rng_uniform(&rng);
		failed[i] =
			mu[i] + sqrt(0.64 + var[i]) * rng_normal(&rng) > 0.7 ? 1 : 0;
	}
	CHECK(probit_calibration_fit(mu, var, failed, N, 0.0, &c, &tau,
								 &status) == TUNER_OK);
	fprintf(stderr, "  calibration: c %.3f (0.7), tau %.3f (0.8)\n", c, tau);
	CHECK(fabs(c - 0.7) < 0.1);
	CHECK(fabs(tau - 0.8) < 0.2);

	for (i = 0; i < N; i++)
	{
		var[i] = 1e-4;
		failed[i] = mu[i] > 0.3;
	}
	CHECK(probit_calibration_fit(mu, var, failed, N, 0.0, &c, &tau,
								 &status) == TUNER_OK);
	fprintf(stderr, "  calibration, separable: c %.4f, tau %.4f\n", c, tau);
	CHECK(tau < 0.01);
	CHECK(c > 0.29 && c < 0.31);
}

void
test_feasibility_calibration(void)
{
	test_loo_against_conditioning();
	test_objective_gradient();
	test_recovers_probit();
}
