/*
 * suggest_gp.c
 *	  The model step of SUGGEST_ALG_GP_EI: a Matern-5/2 GP on the unit cube
 *	  with standardised y, warm-started from the previous fit, running
 *	  trials fantasised at their posterior mean ("kriging believer"), and
 *	  suggest_choose on its posterior.  Categorical parameters of three or
 *	  more choices are unordered in the kernel (space_kernel_categories).
 *	  In 10 or more dimensions a strongly right-skewed objective is modelled
 *	  through output_warp.h's monotone transform (not with outcome
 *	  constraints, whose incumbent suggest_choose takes from raw values).
 */
#include <math.h>
#include <string.h>

#include "gp.h"
#include "output_warp.h"
#include "suggest_internal.h"

/*
 * Build the model the acquisition uses: the fit plus fantasised trials,
 * the running ones and then the failed ones.  A failed trial is not a
 * value of the objective (it is left out of the fit) but it is a point
 * that will never be observed: fantasised at its posterior mean it leaves
 * the mean alone and takes away the objective's uncertainty there, which
 * otherwise drew EI back to every failed point (a corner of Branin's box
 * was proposed again and again while its P(feasible) was 0.001).
 */
static TunerErrorCode
believer_model(const SuggestInput *in, const GpModel *fitted, GpModel **out,
			   TunerStatus *status)
{
	int n = fitted->n;
	int p = in->n_pending + in->n_failed;
	int d = in->d;
	GpModel *model;
	double *sd;
	int i;
	TunerErrorCode rc;

	*out = NULL;
	model = gp_model_create(n + p, d, status);
	sd = tuner_alloc(sizeof(double) * p);
	if (model == NULL || sd == NULL)
	{
		gp_model_free(model);
		tuner_free(sd);
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory for pending trials");
	}
	memcpy(model->x, fitted->x, sizeof(double) * n * d);
	memcpy(model->y, fitted->y, sizeof(double) * n);
	if (fitted->extra_noise != NULL)
	{
		/* the fantasies are the model's own means: no extra noise */
		model->extra_noise = tuner_alloc_zero(sizeof(double) * (n + p));
		if (model->extra_noise == NULL)
		{
			gp_model_free(model);
			tuner_free(sd);
			return tuner_fail(status, TUNER_ERR_NOMEM,
							  "out of memory for pending trials");
		}
		memcpy(model->extra_noise, fitted->extra_noise, sizeof(double) * n);
	}
	for (i = 0; i < p; i++)
		space_to_unit(in->params, d,
					  i < in->n_pending
						  ? in->x_pending + (size_t)i * d
						  : in->x_failed + (size_t)(i - in->n_pending) * d,
					  model->x + (size_t)(n + i) * d);
	rc = gp_predict(fitted, model->x + (size_t)n * d, p, model->y + n, sd,
					status);
	tuner_free(sd);
	if (rc == TUNER_OK)
	{
		memcpy(model->lengthscales, fitted->lengthscales, sizeof(double) * d);
		model->outputscale = fitted->outputscale;
		model->noise = fitted->noise;
		model->mean = fitted->mean;
		rc = gp_model_set_categories(model, fitted->categories, status);
	}
	if (rc == TUNER_OK)
		rc = gp_prepare(model, status);
	if (rc != TUNER_OK)
	{
		gp_model_free(model);
		return rc;
	}
	*out = model;
	return TUNER_OK;
}

/*
 * Each observed value's extra noise variance in the standardised units the
 * GP models (SuggestInput.y_std_error, .disturbed): a standard error se of
 * y becomes, by the delta method through the warp z(y) and the
 * standardisation (z - y_mean) / y_sd,
 *
 *   extra = (se * z'(y) / y_sd)^2,   z'(y) = 1 / output_warp_slope(z(y)),
 *
 * and a disturbed value without one SUGGEST_DISTURBED_NOISE.  Returns NULL
 * in *out when no value has any (the homoscedastic step, bit for bit).
 */
TunerErrorCode
suggest_gp_extra_noise(const SuggestInput *in, const OutputWarp *warp,
					   const double *z, double y_sd, double **out,
					   TunerStatus *status)
{
	int n = in->n_observed;
	double *extra;
	int any = 0;
	int i;

	*out = NULL;
	if (in->y_std_error == NULL && in->disturbed == NULL)
		return TUNER_OK;
	extra = tuner_alloc_zero(sizeof(double) * n);
	if (extra == NULL)
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory suggesting a trial");
	for (i = 0; i < n; i++)
	{
		double se = in->y_std_error != NULL ? in->y_std_error[i] : NAN;

		if (isfinite(se) && se >= 0.0)
		{
			double t = se / output_warp_slope(warp, z[i]) / y_sd;

			/* a huge (or overflowing) one: the point is as good as gone */
			extra[i] = fmin(t * t, GP_MAX_EXTRA_NOISE);
		}
		else if (in->disturbed != NULL && in->disturbed[i])
			extra[i] = SUGGEST_DISTURBED_NOISE;
		if (extra[i] > 0.0 && isfinite(extra[i]))
			any = 1;
		else
			extra[i] = 0.0;
	}
	if (!any)
	{
		tuner_free(extra);
		return TUNER_OK;
	}
	*out = extra;
	return TUNER_OK;
}

/*
 * The incumbent among the observed and running trials.  A value with extra
 * noise counts by the posterior mean at its point, not by itself: a lucky
 * draw of a noisy measurement is not a level to improve on.  The others
 * count by their values, as without extra noise.
 */
static TunerErrorCode
incumbent(const SuggestInput *in, const GpModel *model, const double *extra,
		  double *best, TunerStatus *status)
{
	int n = in->n_observed;
	int i;

	*best = model->y[0];
	for (i = 1; i < n + in->n_pending; i++)
		*best = fmin(*best, model->y[i]);
	if (extra == NULL)
		return TUNER_OK;
	*best = INFINITY;
	for (i = 0; i < n + in->n_pending; i++)
	{
		double v = model->y[i];

		if (i < n && extra[i] > 0.0)
		{
			double mu, sd;
			TunerErrorCode rc = gp_predict(model, model->x + (size_t)i * in->d,
										   1, &mu, &sd, status);

			if (rc != TUNER_OK)
				return rc;
			v = mu;
		}
		*best = fmin(*best, v);
	}
	return TUNER_OK;
}

/* The GP model step; see suggest_internal.h. */
TunerErrorCode
suggest_gp(const SuggestInput *in, TunerRng *rng, double *unit,
		   SuggestResult *out, TunerStatus *status)
{
	int n = in->n_observed;
	int d = in->d;
	double *x = tuner_alloc(sizeof(double) * n * d);
	double *y = tuner_alloc(sizeof(double) * n);
	int *categories = tuner_alloc(sizeof(int) * d);
	double *z = tuner_alloc(sizeof(double) * n);
	double *extra = NULL;
	double y_mean, y_sd, best;
	OutputWarp warp;
	GpModel *fitted = NULL;
	GpModel *model = NULL;
	GpFitOptions fit_options;
	Posterior post;
	struct timespec fit_start;
	TunerErrorCode rc = TUNER_OK;
	int i;

	if (!x || !y || !categories || !z)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory suggesting a trial");
		goto done;
	}
	for (i = 0; i < n; i++)
		space_to_unit(in->params, d, in->x_observed + (size_t)i * d,
					  x + (size_t)i * d);
	/* y holds the (warped) objective, then its standardised values */
	/* (not for a step of tuner 0.2.0, canonical 0: it had no warp) */
	output_warp_choose(in->y_observed, n, d,
					   in->canonical && in->n_constraints == 0, &warp);
	for (i = 0; i < n; i++)
		y[i] = output_warp_apply(&warp, in->y_observed[i]);
	suggest_metric_scale(y, n, 1, &y_mean, &y_sd);
	if (!(y_sd > 0.0) || !isfinite(y_sd))
		y_sd = 1.0;
	memcpy(z, y, sizeof(double) * n);
	for (i = 0; i < n; i++)
		y[i] = (y[i] - y_mean) / y_sd;
	rc = suggest_gp_extra_noise(in, &warp, z, y_sd, &extra, status);
	if (rc != TUNER_OK)
		goto done;

	gp_fit_options_init(&fit_options);
	fit_options.seed = rng_next(rng);
	fit_options.legacy_priors = !in->canonical;
	fit_options.extra_noise = extra;
	if (space_kernel_categories(in->params, d, categories) > 0)
		fit_options.categories = categories;
	if (in->warm_lengthscales != NULL && in->warm_outputscale > 0.0 &&
		in->warm_noise > 0.0)
	{
		fit_options.warm_lengthscales = in->warm_lengthscales;
		fit_options.warm_outputscale = in->warm_outputscale;
		fit_options.warm_noise = in->warm_noise;
		fit_options.warm_mean = in->warm_mean;
		/*
		 * One more point rarely moves the optimum far: refine the previous
		 * fit, and every fourth trial also search from one other start,
		 * rotating through the interpolating, prior-centre and random
		 * starts, so that a fit stuck in one mode of the likelihood can
		 * leave it.  (Same medians on Hartmann6/Ackley-10 over 20 seeds as
		 * all three starts every fourth trial, at two thirds of the cost.)
		 */
		fit_options.restarts = (n % 4 == 0) ? 2 : 1;
		fit_options.first_alternate = (n / 4) % 3;
		/*
		 * From SUGGEST_GP_SPARSE_N trials on, the other start runs every
		 * SUGGEST_ALTERNATE_SPARSE_PERIOD-th trial only (suggest_internal.h
		 * says why); a step of tuner 0.2.0 (canonical 0) keeps every 4th.
		 */
		if (in->canonical && n >= SUGGEST_GP_SPARSE_N)
			fit_options.restarts =
				suggest_alternate_start(n, &fit_options.first_alternate) ? 2
																		 : 1;
		/* small low-dimensional fits: every start at every trial */
		if (in->canonical && d < GP_HIGH_DIM && n < SUGGEST_GP_ALL_STARTS_N)
			fit_options.restarts = 3;
	}
	clock_gettime(CLOCK_MONOTONIC, &fit_start);
	rc = gp_fit_standardized(x, y, n, d, &fit_options, &fitted, status);
	if (rc != TUNER_OK)
		goto done;
	out->fit_seconds = suggest_seconds_since(&fit_start);

	if (in->n_pending > 0 || in->n_failed > 0)
	{
		rc = believer_model(in, fitted, &model, status);
		if (rc != TUNER_OK)
			goto done;
	}
	else
		model = fitted;

	/* the incumbent: observed and running trials, never a failed one */
	rc = incumbent(in, model, extra, &best, status);
	if (rc != TUNER_OK)
		goto done;

	gp_posterior(model, &post);
	rc = suggest_choose(in, &post, best, fitted->x, fitted->y, n, y_mean, y_sd,
						rng, unit, out, status);
	if (rc != TUNER_OK)
		goto done;
	if (warp.active && out->source == SUGGEST_MODEL)
	{
		/* the prediction back in the objective's units (delta method) */
		double z = out->predicted_mean;

		out->predicted_mean = output_warp_invert(&warp, z);
		out->predicted_sd *= output_warp_slope(&warp, z);
	}

	if (out->lengthscales != NULL)
		memcpy(out->lengthscales, fitted->lengthscales, sizeof(double) * d);
	out->outputscale = fitted->outputscale;
	out->noise = fitted->noise;
	out->mean = fitted->mean;
	out->log_likelihood = fitted->log_likelihood;
	if (out->task_used != NULL)
		out->task_used[0] = 0;

done:
	if (model != fitted)
		gp_model_free(model);
	gp_model_free(fitted);
	tuner_free(x);
	tuner_free(y);
	tuner_free(z);
	tuner_free(extra);
	tuner_free(categories);
	return rc;
}
