/*
 * gp.c
 *	  A Gaussian-process model: allocation, factorisation (with jitter),
 *	  log marginal likelihood and the posterior of the latent function.
 */
#include <math.h>
#include <string.h>

#include <cblas.h>

#include "gp.h"
#include "linalg.h"
#include "matern.h"

#define LOG_2PI 1.8378770664093454836

/* Allocate a model with room for n points in d dimensions. */
GpModel *
gp_model_create(int n, int d, TunerStatus *status)
{
	GpModel *model;

	if (n < 1 || d < 1)
	{
		tuner_fail(status, TUNER_ERR_INVALID,
				   "a model needs at least one point and one dimension");
		return NULL;
	}
	model = tuner_alloc_zero(sizeof(GpModel));
	if (model == NULL)
		goto nomem;
	model->n = n;
	model->d = d;
	model->x = tuner_alloc(sizeof(double) * n * d);
	model->y = tuner_alloc(sizeof(double) * n);
	model->lengthscales = tuner_alloc(sizeof(double) * d);
	model->chol = tuner_alloc(sizeof(double) * n * n);
	model->alpha = tuner_alloc(sizeof(double) * n);
	if (!model->x || !model->y || !model->lengthscales || !model->chol ||
		!model->alpha)
	{
		gp_model_free(model);
		goto nomem;
	}
	return model;

nomem:
	tuner_fail(status, TUNER_ERR_NOMEM, "out of memory for a %d-point model",
			   n);
	return NULL;
}

/* Free a model and everything it owns. */
void
gp_model_free(GpModel *model)
{
	if (model == NULL)
		return;
	tuner_free(model->x);
	tuner_free(model->y);
	tuner_free(model->lengthscales);
	tuner_free(model->chol);
	tuner_free(model->alpha);
	tuner_free(model->categories);
	tuner_free(model->extra_noise);
	tuner_free(model);
}

/* Set the model's input metric; see gp.h. */
TunerErrorCode
gp_model_set_categories(GpModel *model, const int *categories,
						TunerStatus *status)
{
	return matern_copy_categories(&model->categories, categories, model->d,
								  status);
}

/* Any nonzero extra noise; see gp.h. */
int
gp_has_extra_noise(const double *extra_noise, int n)
{
	int i;

	if (extra_noise == NULL)
		return 0;
	for (i = 0; i < n; i++)
		if (extra_noise[i] != 0.0)
			return 1;
	return 0;
}

/* Set the model's per-point extra noise; see gp.h. */
TunerErrorCode
gp_model_set_extra_noise(GpModel *model, const double *extra_noise,
						 TunerStatus *status)
{
	int i;

	tuner_free(model->extra_noise);
	model->extra_noise = NULL;
	if (!gp_has_extra_noise(extra_noise, model->n))
		return TUNER_OK;
	for (i = 0; i < model->n; i++)
		if (!(extra_noise[i] >= 0.0) || !isfinite(extra_noise[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "extra noise %d must be non-negative and finite",
							  i + 1);
	model->extra_noise = tuner_alloc(sizeof(double) * model->n);
	if (model->extra_noise == NULL)
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory for a %d-point model", model->n);
	memcpy(model->extra_noise, extra_noise, sizeof(double) * model->n);
	return TUNER_OK;
}

/* Check that the hyperparameters can define a kernel. */
static TunerErrorCode
check_hyperparameters(const GpModel *model, TunerStatus *status)
{
	int k;

	for (k = 0; k < model->d; k++)
		if (!(model->lengthscales[k] > 0.0) ||
			!isfinite(model->lengthscales[k]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "lengthscale %d must be positive and finite",
							  k + 1);
	if (!(model->outputscale > 0.0) || !isfinite(model->outputscale))
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "outputscale must be positive and finite");
	if (!(model->noise >= 0.0) || !isfinite(model->noise))
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "noise must be non-negative and finite");
	if (!isfinite(model->mean))
		return tuner_fail(status, TUNER_ERR_INVALID, "mean must be finite");
	return TUNER_OK;
}

/* Factorise K + noise I and compute alpha and the log likelihood. */
TunerErrorCode
gp_prepare(GpModel *model, TunerStatus *status)
{
	int n = model->n;
	int d = model->d;
	double *inv_ls;
	double *work;
	double quad;
	int i;
	TunerErrorCode rc;

	rc = check_hyperparameters(model, status);
	if (rc != TUNER_OK)
		return rc;

	inv_ls = tuner_alloc(sizeof(double) * d);
	work = tuner_alloc(sizeof(double) * n * n);
	if (inv_ls == NULL || work == NULL)
	{
		tuner_free(inv_ls);
		tuner_free(work);
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory for a %d-point model", n);
	}
	for (i = 0; i < d; i++)
		inv_ls[i] = 1.0 / model->lengthscales[i];

	matern52_gram(model->x, n, d, inv_ls, model->categories,
				  model->outputscale, model->chol);
	for (i = 0; i < n; i++)
		model->chol[i + (size_t)i * n] += model->noise;
	if (model->extra_noise != NULL)
		for (i = 0; i < n; i++)
			model->chol[i + (size_t)i * n] += model->extra_noise[i];
	rc = linalg_cholesky(model->chol, n, work, &model->jitter, status);
	tuner_free(work);
	tuner_free(inv_ls);
	if (rc != TUNER_OK)
		return rc;

	for (i = 0; i < n; i++)
		model->alpha[i] = model->y[i] - model->mean;
	linalg_cholesky_solve(model->chol, n, model->alpha);

	quad = 0.0;
	for (i = 0; i < n; i++)
		quad += (model->y[i] - model->mean) * model->alpha[i];
	model->log_likelihood = -0.5 * quad -
							0.5 * linalg_cholesky_logdet(model->chol, n) -
							0.5 * n * LOG_2PI;
	return TUNER_OK;
}

/*
 * Above this much work (n^2 m flops of triangular solves) the points are
 * predicted in chunks of PREDICT_CHUNK, polling for an interrupt between
 * them; below it in one piece, as always.
 */
#define PREDICT_CHUNK     256
#define PREDICT_CHUNK_MIN 1e9

/* Posterior mean and sd of the latent function at m points. */
TunerErrorCode
gp_predict(const GpModel *model, const double *xs, int m, double *mean,
		   double *sd, TunerStatus *status)
{
	return gp_predict_weights(model, xs, m, NULL, 0, NULL, mean, sd, status);
}

/* gp_predict, and k(u)^T a at each point; see gp.h. */
TunerErrorCode
gp_predict_weights(const GpModel *model, const double *xs, int m,
				   const double *a, int p, double *weights, double *mean,
				   double *sd, TunerStatus *status)
{
	int n = model->n;
	int d = model->d;
	int chunk = m;
	double *inv_ls;
	double *kx;
	int i, j, first;

	if ((double)n * n * m > PREDICT_CHUNK_MIN && m > PREDICT_CHUNK)
		chunk = PREDICT_CHUNK;
	inv_ls = tuner_alloc(sizeof(double) * d);
	kx = tuner_alloc(sizeof(double) * n * (size_t)(chunk > 0 ? chunk : 1));
	if (inv_ls == NULL || kx == NULL)
	{
		tuner_free(inv_ls);
		tuner_free(kx);
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory predicting %d points", m);
	}
	for (i = 0; i < d; i++)
		inv_ls[i] = 1.0 / model->lengthscales[i];

	for (first = 0; first < m; first += chunk)
	{
		int c = m - first < chunk ? m - first : chunk;

		if (chunk < m && tuner_check_interrupt(status) != TUNER_OK)
		{
			tuner_free(kx);
			tuner_free(inv_ls);
			return TUNER_ERR_INTERRUPTED;
		}
		matern52_cross(model->x, n, xs + (size_t)first * d, c, d, inv_ls,
					   model->categories, model->outputscale, kx);
		for (j = 0; j < c; j++)
			mean[first + j] = model->mean + cblas_ddot(n, kx + (size_t)j * n,
													   1, model->alpha, 1);
		/* kx is c x n row-major (a column per point), a n x p row-major */
		if (a != NULL && p > 0)
			cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, c, p, n,
						1.0, kx, n, a, p, 0.0, weights + (size_t)first * p, p);
		linalg_lower_solve_many(model->chol, n, kx, c);
		for (j = 0; j < c; j++)
		{
			double v =
				cblas_ddot(n, kx + (size_t)j * n, 1, kx + (size_t)j * n, 1);
			double var = model->outputscale - v;

			sd[first + j] = var > 0.0 ? sqrt(var) : 0.0;
		}
	}
	tuner_free(kx);
	tuner_free(inv_ls);
	return TUNER_OK;
}
