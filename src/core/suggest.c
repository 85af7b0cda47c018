/*
 * suggest.c
 *	  One Bayesian-optimisation step: space-filling design first, then a
 *	  Matern-5/2 GP on the unit cube with standardised y, running trials
 *	  fantasised at their posterior mean ("kriging believer"), and the point
 *	  of highest log EI that is not already a trial.
 */
#include <math.h>
#include <string.h>

#include "acquisition.h"
#include "design.h"
#include "gp.h"
#include "log_ei.h"
#include "rng.h"
#include "suggest.h"

#define MAX_RANKED     256
#define RESCORED       64
#define DESIGN_TRIES   1000
#define RANDOM_TRIES   20000
#define MAX_INCUMBENTS 5

/* Is native config c already one of the input's trials? */
static int
is_taken(const SuggestInput *in, const double *c)
{
	const double *sets[3] = {in->x_observed, in->x_pending, in->x_other};
	int counts[3] = {in->n_observed, in->n_pending, in->n_other};
	int s, i;

	for (s = 0; s < 3; s++)
		for (i = 0; i < counts[s]; i++)
			if (space_same_config(in->params, in->d,
								  sets[s] + (size_t)i * in->d, c))
				return 1;
	return 0;
}

static TunerErrorCode
validate_input(const SuggestInput *in, TunerStatus *status)
{
	const double *sets[3] = {in->x_observed, in->x_pending, in->x_other};
	int counts[3] = {in->n_observed, in->n_pending, in->n_other};
	int s;
	size_t i;
	TunerErrorCode rc = space_validate(in->params, in->d, status);

	if (rc != TUNER_OK)
		return rc;
	for (s = 0; s < 3; s++)
	{
		if (counts[s] < 0 || (counts[s] > 0 && sets[s] == NULL))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "trial arrays are inconsistent");
		for (i = 0; i < (size_t)counts[s] * in->d; i++)
			if (!isfinite(sets[s][i]))
				return tuner_fail(
					status, TUNER_ERR_INVALID,
					"a trial's configuration contains NaN or infinity");
	}
	if (in->n_observed > 0 && in->y_observed == NULL)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "objective values are missing");
	for (i = 0; i < (size_t)in->n_observed; i++)
		if (!isfinite(in->y_observed[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "an objective value is NaN or infinite");
	return TUNER_OK;
}

/* Uniform random points until one is new; EXHAUSTED if none is found. */
static TunerErrorCode
random_untaken(const SuggestInput *in, TunerRng *rng, double *unit,
			   SuggestResult *out, TunerStatus *status)
{
	int t, k;

	for (t = 0; t < RANDOM_TRIES; t++)
	{
		for (k = 0; k < in->d; k++)
			unit[k] = rng_uniform(rng);
		space_from_unit(in->params, in->d, unit, out->config);
		if (!is_taken(in, out->config))
		{
			out->source = SUGGEST_RANDOM;
			return TUNER_OK;
		}
	}
	return tuner_fail(status, TUNER_ERR_EXHAUSTED,
					  "every configuration of the space has been tried");
}

static TunerErrorCode
suggest_design(const SuggestInput *in, TunerRng *rng, double *unit,
			   SuggestResult *out, TunerStatus *status)
{
	int t;

	for (t = 0; t < DESIGN_TRIES; t++)
	{
		TunerErrorCode rc = design_halton_point(
			in->design_seed, in->design_index + t, in->d, unit, status);

		if (rc != TUNER_OK)
			return rc;
		space_from_unit(in->params, in->d, unit, out->config);
		if (!is_taken(in, out->config))
		{
			out->source = SUGGEST_DESIGN;
			return TUNER_OK;
		}
	}
	return random_untaken(in, rng, unit, out, status);
}

/* Build the model the acquisition uses: the fit plus fantasised trials. */
static TunerErrorCode
believer_model(const SuggestInput *in, const GpModel *fitted, GpModel **out,
			   TunerStatus *status)
{
	int n = fitted->n;
	int p = in->n_pending;
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
	for (i = 0; i < p; i++)
		space_to_unit(in->params, d, in->x_pending + (size_t)i * d,
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
		rc = gp_prepare(model, status);
	}
	if (rc != TUNER_OK)
	{
		gp_model_free(model);
		return rc;
	}
	*out = model;
	return TUNER_OK;
}

/* The lowest-y observed points, to search around. */
static int
pick_incumbents(const GpModel *fitted, double *incumbents)
{
	int n = fitted->n;
	int d = fitted->d;
	int k = n < MAX_INCUMBENTS ? n : MAX_INCUMBENTS;
	int chosen[MAX_INCUMBENTS];
	int c, i, j;

	for (c = 0; c < k; c++)
	{
		int best = -1;

		for (i = 0; i < n; i++)
		{
			int used = 0;

			for (j = 0; j < c; j++)
				used |= chosen[j] == i;
			if (!used && (best < 0 || fitted->y[i] < fitted->y[best]))
				best = i;
		}
		chosen[c] = best;
		memcpy(incumbents + (size_t)c * d, fitted->x + (size_t)best * d,
			   sizeof(double) * d);
	}
	return k;
}

static TunerErrorCode
suggest_model(const SuggestInput *in, TunerRng *rng, double *unit,
			  SuggestResult *out, TunerStatus *status)
{
	int n = in->n_observed;
	int d = in->d;
	double *x = tuner_alloc(sizeof(double) * n * d);
	double *y = tuner_alloc(sizeof(double) * n);
	double *ranked = tuner_alloc(sizeof(double) * MAX_RANKED * d);
	double *values = tuner_alloc(sizeof(double) * MAX_RANKED);
	double *native = tuner_alloc(sizeof(double) * d);
	double *scratch = NULL;
	double *incumbents = tuner_alloc(sizeof(double) * MAX_INCUMBENTS * d);
	double y_mean = 0.0, y_sd = 0.0, best;
	GpModel *fitted = NULL;
	GpModel *model = NULL;
	GpFitOptions fit_options;
	AcquisitionOptions acq_options;
	Posterior post;
	TunerErrorCode rc = TUNER_OK;
	int n_ranked = 0;
	int chosen = -1;
	double chosen_value = -HUGE_VAL;
	int i;

	if (!x || !y || !ranked || !values || !native || !incumbents)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory suggesting a trial");
		goto done;
	}
	for (i = 0; i < n; i++)
	{
		space_to_unit(in->params, d, in->x_observed + (size_t)i * d,
					  x + (size_t)i * d);
		y_mean += in->y_observed[i] / n;
	}
	for (i = 0; i < n; i++)
		y_sd += (in->y_observed[i] - y_mean) * (in->y_observed[i] - y_mean);
	y_sd = n > 1 ? sqrt(y_sd / (n - 1)) : 0.0;
	if (!(y_sd > 0.0) || !isfinite(y_sd))
		y_sd = 1.0;
	for (i = 0; i < n; i++)
		y[i] = (in->y_observed[i] - y_mean) / y_sd;

	gp_fit_options_init(&fit_options);
	fit_options.seed = rng_next(rng);
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
	}
	rc = gp_fit_standardized(x, y, n, d, &fit_options, &fitted, status);
	if (rc != TUNER_OK)
		goto done;

	if (in->n_pending > 0)
	{
		rc = believer_model(in, fitted, &model, status);
		if (rc != TUNER_OK)
			goto done;
	}
	else
		model = fitted;

	best = model->y[0];
	for (i = 1; i < model->n; i++)
		best = fmin(best, model->y[i]);

	acquisition_options_init(&acq_options, d);
	gp_posterior(model, &post);
	rc = acquisition_rank(&post, best, incumbents,
						  pick_incumbents(fitted, incumbents), &acq_options,
						  rng, MAX_RANKED, ranked, values, &n_ranked, status);
	if (rc != TUNER_OK)
		goto done;

	/*
	 * Snap the best few to the grid and score them again there (rounding
	 * moves discrete parameters); beyond those, take the first one free.
	 */
	scratch = tuner_alloc(sizeof(double) * acquisition_scratch_size(&post));
	if (scratch == NULL)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory suggesting a trial");
		goto done;
	}
	for (i = 0; i < n_ranked; i++)
	{
		double *u = ranked + (size_t)i * d;
		double v;

		if (i >= RESCORED && chosen >= 0)
			break;
		space_snap_unit(in->params, d, u);
		space_from_unit(in->params, d, u, native);
		if (is_taken(in, native))
			continue;
		v = i < RESCORED ? acquisition_log_ei(&post, best, u, NULL, scratch)
						 : values[i];
		if (chosen < 0 || v > chosen_value)
		{
			chosen = i;
			chosen_value = v;
		}
	}

	if (chosen >= 0)
	{
		double mu, sd;

		memcpy(unit, ranked + (size_t)chosen * d, sizeof(double) * d);
		space_from_unit(in->params, d, unit, out->config);
		rc = gp_predict(model, unit, 1, &mu, &sd, status);
		if (rc != TUNER_OK)
			goto done;
		out->source = SUGGEST_MODEL;
		out->predicted_mean = y_mean + mu * y_sd;
		out->predicted_sd = sd * y_sd;
		out->log_ei = chosen_value;
	}
	else
	{
		rc = random_untaken(in, rng, unit, out, status);
		if (rc != TUNER_OK)
			goto done;
	}

	if (out->lengthscales != NULL)
		memcpy(out->lengthscales, fitted->lengthscales, sizeof(double) * d);
	out->outputscale = fitted->outputscale;
	out->noise = fitted->noise;
	out->mean = fitted->mean;
	out->log_likelihood = fitted->log_likelihood;

done:
	if (model != fitted)
		gp_model_free(model);
	gp_model_free(fitted);
	tuner_free(x);
	tuner_free(y);
	tuner_free(ranked);
	tuner_free(values);
	tuner_free(native);
	tuner_free(scratch);
	tuner_free(incumbents);
	return rc;
}

TunerErrorCode
tuner_suggest(const SuggestInput *in, SuggestResult *out, TunerStatus *status)
{
	TunerRng rng;
	double *unit;
	TunerErrorCode rc;
	int min_model = in->n_initial > 2 ? in->n_initial : 2;

	tuner_status_clear(status);
	rc = validate_input(in, status);
	if (rc != TUNER_OK)
		return rc;

	out->source = SUGGEST_DESIGN;
	out->predicted_mean = NAN;
	out->predicted_sd = NAN;
	out->log_ei = NAN;
	out->outputscale = NAN;
	out->noise = NAN;
	out->mean = NAN;
	out->log_likelihood = NAN;

	unit = tuner_alloc(sizeof(double) * in->d);
	if (unit == NULL)
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory suggesting a trial");
	rng_seed(&rng, in->seed);
	if (in->n_observed < min_model)
		rc = suggest_design(in, &rng, unit, out, status);
	else
		rc = suggest_model(in, &rng, unit, out, status);
	tuner_free(unit);
	return rc;
}
