/*
 * feasibility_calibration.c
 *	  The failure model's leave-one-out predictions and the probit that
 *	  calibrates its probability on them; see feasibility_calibration.h.
 */
#include <math.h>
#include <nlopt.h>
#include <string.h>

#include "feasibility_calibration.h"
#include "linalg.h"
#include "log_ei.h"

/* Leave-one-out predictions; see feasibility_calibration.h. */
TunerErrorCode
feasibility_loo(const FeasibilityTerm *term, const double *ys, double *mu,
				double *var, TunerStatus *status)
{
	const GpModel *model = term->model;
	int n = model->n, p = term->n_basis, i, j;
	double *kinv = tuner_alloc(sizeof(double) * (size_t)n * n);
	double *py = tuner_alloc(sizeof(double) * n);
	double *beta = tuner_alloc(sizeof(double) * (p > 0 ? p : 1));
	double *w = tuner_alloc(sizeof(double) * (p > 0 ? p : 1));
	TunerErrorCode rc = TUNER_OK;

	if (!kinv || !py || !beta || !w)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory calibrating a feasibility model");
		goto done;
	}
	if (p == 0)
	{
		rc = tuner_fail(status, TUNER_ERR_INVALID,
						"a feasibility model without a trend has no "
						"leave-one-out calibration");
		goto done;
	}
	/*
	 * With the trend's coefficients integrated out, the outcome's
	 * covariance is K + H^T S H (S the coefficients' prior covariance,
	 * infinite for the intercept), whose inverse is P = K^-1 - W A^-1 W^T
	 * with W = K^-1 H^T and A = H K^-1 H^T + S^-1, both kept by the fit.
	 * Leaving trial i out of a Gaussian model with precision P predicts
	 * mean ys_i - [P ys]_i / P_ii and variance 1 / P_ii.
	 */
	memcpy(kinv, model->chol, sizeof(double) * (size_t)n * n);
	rc = linalg_cholesky_inverse(kinv, n, status);
	if (rc != TUNER_OK)
		goto done;
	memcpy(py, ys, sizeof(double) * n);
	linalg_cholesky_solve(model->chol, n, py);
	for (j = 0; j < p; j++)
	{
		double v = 0.0;

		for (i = 0; i < n; i++)
			v += term->basis_weights[(size_t)i * p + j] * ys[i];
		beta[j] = v;
	}
	linalg_cholesky_solve(term->trend_chol, p, beta);
	for (i = 0; i < n; i++)
	{
		double pii = kinv[(size_t)i * n + i], q = 0.0;

		for (j = 0; j < p; j++)
		{
			py[i] -= term->basis_weights[(size_t)i * p + j] * beta[j];
			w[j] = term->basis_weights[(size_t)i * p + j];
		}
		linalg_lower_solve(term->trend_chol, p, w);
		for (j = 0; j < p; j++)
			q += w[j] * w[j];
		pii -= q;
		if (!(pii > 0.0) || !isfinite(pii))
		{
			rc = tuner_fail(status, TUNER_ERR_NUMERIC,
							"a leave-one-out variance of the failure model "
							"is not positive");
			goto done;
		}
		mu[i] = ys[i] - py[i] / pii;
		var[i] = 1.0 / pii;
	}
done:
	tuner_free(kinv);
	tuner_free(py);
	tuner_free(beta);
	tuner_free(w);
	return rc;
}

typedef struct CalibrationProblem
{
	const double *mu;
	const double *var;
	const int *failed;
	int n;
	double prior_c;
} CalibrationProblem;

/* The objective; see feasibility_calibration.h.  grad: d/dc, d/d log tau. */
double
probit_calibration_objective(const double *mu, const double *var,
							 const int *failed, int n, double prior_c,
							 double c, double tau, double *grad)
{
	double total = -0.5 * (c - prior_c) * (c - prior_c);
	int i;

	if (grad != NULL)
	{
		grad[0] = -(c - prior_c);
		grad[1] = 0.0;
	}
	for (i = 0; i < n; i++)
	{
		double s2 = tau * tau + var[i];
		double s = sqrt(s2);
		double sign = failed[i] ? -1.0 : 1.0;
		/* P(runs) = Phi((c - mu) / s), P(fails) = Phi((mu - c) / s) */
		double z = sign * (c - mu[i]) / s;

		total += log_normal_cdf(z);
		if (grad != NULL)
		{
			double r = dlog_normal_cdf(z);

			grad[0] += r * sign / s;
			grad[1] += r * (-z * tau * tau / s2);
		}
	}
	return total;
}

static double
calibration_nlopt(unsigned dim, const double *theta, double *grad, void *data)
{
	const CalibrationProblem *problem = data;

	(void)dim;
	return probit_calibration_objective(
		problem->mu, problem->var, problem->failed, problem->n,
		problem->prior_c, theta[0], exp(theta[1]), grad);
}

/* Fit the probit; see feasibility_calibration.h. */
TunerErrorCode
probit_calibration_fit(const double *mu, const double *var, const int *failed,
					   int n, double prior_c, double *c, double *tau,
					   TunerStatus *status)
{
	CalibrationProblem problem = {mu, var, failed, n, prior_c};
	double lower[2] = {prior_c - 10.0, log(CALIBRATION_MIN_TAU)};
	double upper[2] = {prior_c + 10.0, log(CALIBRATION_MAX_TAU)};
	double theta[2] = {prior_c, log(0.5)};
	double best = -HUGE_VAL;
	nlopt_opt opt = nlopt_create(NLOPT_LD_LBFGS, 2);
	nlopt_result result;

	if (opt == NULL)
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory calibrating a feasibility model");
	nlopt_set_lower_bounds(opt, lower);
	nlopt_set_upper_bounds(opt, upper);
	nlopt_set_max_objective(opt, calibration_nlopt, &problem);
	nlopt_set_xtol_rel(opt, 1e-8);
	nlopt_set_ftol_abs(opt, 1e-12);
	nlopt_set_maxeval(opt, 500);
	result = nlopt_optimize(opt, theta, &best);
	nlopt_destroy(opt);
	if (result < 0 && result != NLOPT_ROUNDOFF_LIMITED)
		return tuner_fail(status, TUNER_ERR_NUMERIC,
						  "the failure model's calibration did not converge "
						  "(NLopt status %d)",
						  (int)result);
	*c = theta[0];
	*tau = exp(theta[1]);
	return TUNER_OK;
}
