/*
 * gp_posterior.c
 *	  The single-task GP as a Posterior (posterior.h).  The gradient uses
 *	  dmu/dx = sum_i alpha_i dk_i/dx and dvar/dx = -2 (K^-1 k)^T dk/dx.
 *	  Along a categorical dimension (matern.h) k is constant within each
 *	  choice's bin, so both gradients are 0 there.
 */
#include <math.h>

#include <cblas.h>

#include "linalg.h"
#include "matern.h"
#include "posterior.h"

/*
 * k(u, x_i) and, when radial is not NULL, -(1/r) dk/dr at each training
 * point x_i; see gp.h.  One exp per point serves both: each is the
 * expression of matern52_unit and matern52_radial with the same exp(-sr),
 * so the values are those of the two functions bit for bit.
 */
void
gp_kernel_row(const GpModel *model, const double *u, double *kvec,
			  double *radial)
{
	int d = model->d;
	double s = model->outputscale;
	int i, k;

	for (i = 0; i < model->n; i++)
	{
		const double *xi = model->x + (size_t)i * d;
		double r2 = 0.0;
		double sr, e;

		for (k = 0; k < d; k++)
		{
			double t = (u[k] - xi[k]) / model->lengthscales[k];

			if (model->categories != NULL && model->categories[k] > 0)
				t = matern_differ(u[k], xi[k], model->categories[k])
						? 1.0 / model->lengthscales[k]
						: 0.0;
			r2 += t * t;
		}
		sr = MATERN_SQRT5 * sqrt(r2);
		/* as matern52_unit and matern52_radial: 0 from sr = 750 on */
		if (sr >= 750.0)
		{
			kvec[i] = 0.0;
			if (radial != NULL)
				radial[i] = 0.0;
			continue;
		}
		e = exp(-sr);
		kvec[i] = s * ((1.0 + sr + sr * sr / 3.0) * e);
		if (radial != NULL)
			radial[i] = s * ((5.0 / 3.0) * (1.0 + sr) * e);
	}
}

/* The posterior at u from its kernel row; see gp.h. */
void
gp_point_from_row(const GpModel *model, const double *u, double *kvec,
				  const double *radial, double *mean, double *var,
				  double *dmean, double *dvar)
{
	int n = model->n;
	int d = model->d;
	double s = model->outputscale;
	double kk;
	int i, k;

	*mean = model->mean + cblas_ddot(n, kvec, 1, model->alpha, 1);

	/* var = s - k^T K^-1 k; keep K^-1 k in kvec for the gradient */
	linalg_lower_solve(model->chol, n, kvec);
	kk = cblas_ddot(n, kvec, 1, kvec, 1);
	cblas_dtrsv(CblasColMajor, CblasLower, CblasTrans, CblasNonUnit, n,
				model->chol, n, kvec, 1);
	*var = s - kk;

	if (dmean == NULL)
		return;
	for (k = 0; k < d; k++)
	{
		double inv_l2 =
			1.0 / (model->lengthscales[k] * model->lengthscales[k]);
		double dmu = 0.0;
		double dv = 0.0;

		if (model->categories != NULL && model->categories[k] > 0)
		{
			dmean[k] = 0.0;
			dvar[k] = 0.0;
			continue;
		}
		for (i = 0; i < n; i++)
		{
			/* dk_i/du_k = -radial_i (u_k - x_ik) / l_k^2 */
			double dk =
				-radial[i] * (u[k] - model->x[(size_t)i * d + k]) * inv_l2;

			dmu += model->alpha[i] * dk;
			dv += -2.0 * kvec[i] * dk;
		}
		dmean[k] = dmu;
		dvar[k] = dv;
	}
}

/* Mean and variance at one point; scratch 2n.  See PosteriorPointFn. */
static void
gp_point(const void *state, const double *u, double *mean, double *var,
		 double *dmean, double *dvar, double *scratch)
{
	const GpModel *model = state;
	double *kvec = scratch;              /* k(u, x_i), then K^-1 k */
	double *radial = scratch + model->n; /* -(1/r) dk/dr at each x_i */

	gp_kernel_row(model, u, kvec, dmean != NULL ? radial : NULL);
	gp_point_from_row(model, u, kvec, radial, mean, var, dmean, dvar);
}

/* k(u)^T a and its gradient from the kernel row; see gp.h. */
void
gp_kernel_weights_from_row(const GpModel *model, const double *u,
						   const double *kvec, const double *radial,
						   const double *a, int p, double *out, double *dout)
{
	int n = model->n;
	int d = model->d;
	int i, j, k;

	/* each out[j] summed over i in order, a's rows read in turn */
	for (j = 0; j < p; j++)
		out[j] = 0.0;
	for (i = 0; i < n; i++)
	{
		const double *ai = a + (size_t)i * p;

		for (j = 0; j < p; j++)
			out[j] += kvec[i] * ai[j];
	}
	if (dout == NULL)
		return;
	for (k = 0; k < d; k++)
	{
		double inv_l2 =
			1.0 / (model->lengthscales[k] * model->lengthscales[k]);

		for (j = 0; j < p; j++)
			dout[(size_t)j * d + k] = 0.0;
		if (model->categories != NULL && model->categories[k] > 0)
			continue;
		for (i = 0; i < n; i++)
		{
			double dk =
				-radial[i] * (u[k] - model->x[(size_t)i * d + k]) * inv_l2;

			for (j = 0; j < p; j++)
				dout[(size_t)j * d + k] += dk * a[(size_t)i * p + j];
		}
	}
}

/* sum_i c_i dk(u, x_i)/du from the kernel row's radial part; see gp.h. */
void
gp_kernel_row_gradient(const GpModel *model, const double *u,
					   const double *radial, const double *c, double *out)
{
	int n = model->n;
	int d = model->d;
	int i, k;

	for (k = 0; k < d; k++)
	{
		double inv_l2 =
			1.0 / (model->lengthscales[k] * model->lengthscales[k]);
		double sum = 0.0;

		if (model->categories == NULL || model->categories[k] <= 0)
			for (i = 0; i < n; i++)
				sum += c[i] * -radial[i] *
					   (u[k] - model->x[(size_t)i * d + k]) * inv_l2;
		out[k] = sum;
	}
}

/* k(u)^T a and its gradient; see gp.h. */
void
gp_kernel_weights(const GpModel *model, const double *u, const double *a,
				  int p, double *out, double *dout, double *scratch)
{
	double *kvec = scratch;
	double *radial = scratch + model->n;

	gp_kernel_row(model, u, kvec, dout != NULL ? radial : NULL);
	gp_kernel_weights_from_row(model, u, kvec, radial, a, p, out, dout);
}

/* gp_predict with the signature of PosteriorBatchFn. */
static TunerErrorCode
gp_batch(const void *state, const double *u, int m, double *mean, double *sd,
		 TunerStatus *status)
{
	return gp_predict(state, u, m, mean, sd, status);
}

/* The posterior of a prepared GP; see posterior.h. */
void
gp_posterior(const GpModel *model, Posterior *post)
{
	post->d = model->d;
	post->prior_var = model->outputscale;
	post->n_scratch = 2 * model->n;
	post->point = gp_point;
	post->batch = gp_batch;
	post->state = model;
	post->categories = model->categories;
	post->feasibility = NULL;
}
