/*
 * icm_units.c
 *	  The ICM model in the caller's units (see icm_units.h): scaling of x,
 *	  per-task standardisation of y with missing entries, and the mapping of
 *	  fitted hyperparameters back.
 */
#include <math.h>
#include <string.h>

#include "icm_units.h"

/* Per-column unit-cube scaling; see icm_units.h. */
void
icm_units_scale_x(const double *x, int n, int d, double *xn, double *lo,
				  double *range)
{
	int i, k;

	for (k = 0; k < d; k++)
	{
		double mn = x[k], mx = x[k];

		for (i = 1; i < n; i++)
		{
			mn = fmin(mn, x[(size_t)i * d + k]);
			mx = fmax(mx, x[(size_t)i * d + k]);
		}
		lo[k] = mn;
		/* a constant column carries no length scale: only shift it */
		range[k] = (mx - mn > 0.0 && isfinite(mx - mn)) ? mx - mn : 1.0;
		for (i = 0; i < n; i++)
			xn[(size_t)i * d + k] = (x[(size_t)i * d + k] - lo[k]) / range[k];
	}
}

/* Per-task standardisation over the observed entries; see icm_units.h. */
TunerErrorCode
icm_units_standardise_y(const double *y, int n, int T, double *yn, double *mu,
						double *s, TunerStatus *status)
{
	int i, t;

	for (t = 0; t < T; t++)
	{
		double sum = 0.0, ss = 0.0;
		int count = 0;

		for (i = 0; i < n; i++)
		{
			double v = y[(size_t)i * T + t];

			if (isnan(v))
				continue;
			if (isinf(v))
				return tuner_fail(status, TUNER_ERR_INVALID,
								  "y contains infinity (point %d, task %d)",
								  i + 1, t + 1);
			sum += v;
			count++;
		}
		if (count == 0)
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "task %d has no observations", t + 1);
		mu[t] = sum / count;
		for (i = 0; i < n; i++)
		{
			double v = y[(size_t)i * T + t];

			if (!isnan(v))
				ss += (v - mu[t]) * (v - mu[t]);
		}
		s[t] = count > 1 ? sqrt(ss / (count - 1)) : 0.0;

		/*
		 * One observation or a constant task has no scale to learn from:
		 * centre it and leave its units alone, as gp_fit does.
		 */
		if (!(s[t] > 0.0) || !isfinite(s[t]))
			s[t] = 1.0;
		for (i = 0; i < n; i++)
		{
			double v = y[(size_t)i * T + t];

			yn[(size_t)i * T + t] = isnan(v) ? NAN : (v - mu[t]) / s[t];
		}
	}
	return TUNER_OK;
}

/* Standardised hyperparameters -> the caller's units; see icm_units.h. */
void
icm_units_to_caller(IcmModel *model, const double *range, const double *mu,
					const double *s)
{
	int k, t;

	for (k = 0; k < model->d; k++)
		model->lengthscales[k] *= range[k];
	for (t = 0; t < model->T; t++)
	{
		for (k = 0; k < model->rank; k++)
			model->W[(size_t)t * model->rank + k] *= s[t];
		model->v[t] *= s[t] * s[t];
		model->noise[t] *= s[t] * s[t];
		model->mean[t] = mu[t] + s[t] * model->mean[t];
	}
}

/* icm_fit in the caller's units; see icm_units.h. */
TunerErrorCode
icm_fit_caller_units(const double *x, const double *y, int n, int d, int T,
					 const IcmFitOptions *options, IcmModel **out,
					 TunerStatus *status)
{
	double *xn = NULL, *yn = NULL, *lo = NULL, *range = NULL;
	double *mu = NULL, *s = NULL;
	IcmModel *fitted = NULL;
	IcmModel *model = NULL;
	TunerErrorCode rc;
	int k;

	*out = NULL;
	if (n < 1 || d < 1 || T < 1)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "fitting needs at least one point, dimension and "
						  "task");
	xn = tuner_alloc(sizeof(double) * n * d);
	yn = tuner_alloc(sizeof(double) * n * T);
	lo = tuner_alloc(sizeof(double) * d);
	range = tuner_alloc(sizeof(double) * d);
	mu = tuner_alloc(sizeof(double) * T);
	s = tuner_alloc(sizeof(double) * T);
	if (!xn || !yn || !lo || !range || !mu || !s)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory fitting a model");
		goto done;
	}
	for (k = 0; k < n * d; k++)
		if (!isfinite(x[k]))
		{
			rc =
				tuner_fail(status, TUNER_ERR_INVALID,
						   "x contains NaN or infinity (point %d)", k / d + 1);
			goto done;
		}
	icm_units_scale_x(x, n, d, xn, lo, range);
	/* categorical coordinates name choices by their bins: keep them */
	for (k = 0; options->categories != NULL && k < d; k++)
		if (options->categories[k] > 0)
		{
			int i;

			lo[k] = 0.0;
			range[k] = 1.0;
			for (i = 0; i < n; i++)
				xn[(size_t)i * d + k] = x[(size_t)i * d + k];
		}
	rc = icm_units_standardise_y(y, n, T, yn, mu, s, status);
	if (rc != TUNER_OK)
		goto done;

	rc = icm_fit(xn, yn, n, d, T, options, &fitted, status);
	if (rc != TUNER_OK)
		goto done;

	model = icm_model_create(n, d, T, fitted->rank, status);
	if (model == NULL)
	{
		rc = status ? status->code : TUNER_ERR_NOMEM;
		goto done;
	}
	memcpy(model->x, x, sizeof(double) * n * d);
	memcpy(model->y, y, sizeof(double) * n * T);
	memcpy(model->lengthscales, fitted->lengthscales, sizeof(double) * d);
	memcpy(model->W, fitted->W, sizeof(double) * T * fitted->rank);
	memcpy(model->v, fitted->v, sizeof(double) * T);
	memcpy(model->noise, fitted->noise, sizeof(double) * T);
	memcpy(model->mean, fitted->mean, sizeof(double) * T);
	model->force_full = options->force_full;
	icm_units_to_caller(model, range, mu, s);
	rc = icm_model_set_categories(model, options->categories, status);
	if (rc == TUNER_OK)
		rc = icm_prepare(model, status);
	if (rc != TUNER_OK)
	{
		icm_model_free(model);
		model = NULL;
	}

done:
	icm_model_free(fitted);
	tuner_free(xn);
	tuner_free(yn);
	tuner_free(lo);
	tuner_free(range);
	tuner_free(mu);
	tuner_free(s);
	*out = model;
	return rc;
}
