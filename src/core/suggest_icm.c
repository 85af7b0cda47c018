/*
 * suggest_icm.c
 *	  The model step of SUGGEST_ALG_ICM: an ICM multi-task GP (icm.h) over
 *	  the objective (task 0) and the auxiliary metrics the trials reported,
 *	  each standardised separately over its observed values, and
 *	  suggest_choose on the objective task's posterior (icm_posterior.h).
 *	  Auxiliary metrics carry information about the objective through the
 *	  learned task covariance B, so that a metric that tracks the objective
 *	  sharpens its posterior.
 *
 *	  Transfer: the trials of earlier studies are extra rows whose only
 *	  observed task is their own study's objective (one task per earlier
 *	  study, standardised on its own, so another machine's scale or offset
 *	  does not matter); B learns how far each predicts this objective,
 *	  from a prior that expects it to predict it well (TRANSFER_LOADING).
 *
 *	  A metric with fewer than two values or no spread says nothing a
 *	  correlation could use and would make its task's fit degenerate: it is
 *	  left out.  With no metric left the step is exactly SUGGEST_ALG_GP_EI.
 *
 *	  So is every step before ICM_MIN_TRIALS complete trials, unless earlier
 *	  studies' trials (transfer) are modelled too.
 *
 *	  Joint optimisation (aux_weights, suggest.h): the acquisition works on
 *	  g = sum_t a_t f_t, a_0 = 1 and a_t the signed weight of the auxiliary
 *	  metric modelled as task t, which under ICM is exactly Gaussian
 *	  (icm_posterior_create_weighted); the fit and the believer are the
 *	  same as without it.
 */
#include <math.h>
#include <string.h>

#include "icm.h"
#include "icm_posterior.h"
#include "suggest_internal.h"

/* The default number of columns of W: one shared factor and one more. */
#define DEFAULT_RANK 2

/*
 * The warm start's refinement stops after this many likelihood evaluations
 * (an eigen-decomposition each): a refinement cut short resumes at the next
 * trial from where it stopped.  At n = 100, T = 4, d = 10 an uncapped
 * refinement took 37-72 evaluations; capped at 40 the log likelihood ended
 * within 0.4 of it, and the suggestion took 40-48 ms instead of 36-83 ms.
 */
#define WARM_MAX_EVALS 40

/*
 * Below this many complete trials (and without transfer) the step is
 * GP-EI's: with d + T (rank + 3) hyperparameters (33 at d = 13, T = 4,
 * rank 2) the ICM's task covariance is mostly its prior, and on the
 * multi-task benchmark (bench/README.md, section 4; n_initial 3) ICM's
 * best@10 trailed GP-EI's on the cost problem (mean regret 25.1% against
 * 23.3%, 20 seeds).  Ten is the largest default initial design
 * (clamp(d + 1, 4, 10)), so with the default design ICM starts with the
 * model as before.  Re-measured with the GP steps warm-started (n_initial
 * 3, seeds 0..9 | 10..19, the k at which ICM's median best@k reaches
 * GP-EI's best@25, rocksdb; cost): ICM from n = 3: 16 | 16; 19 | 22.
 * From 3 with rank 1 below 10: 18 | 18; 17 | 17.  From 6: 22 | 18;
 * 15 | 18.  From 10 (this): 15 | 16; 10 | 15.
 */
#define ICM_MIN_TRIALS 10

/*
 * Transfer: the prior mean of the first column of W for the objective and
 * each earlier study's objective task (the others keep the N(0, 1) prior
 * centred on 0).  Naming an earlier study says it is the same system, so
 * its objective should rise and fall with this one's: at the prior centre
 * the two correlate at 1 / 1.1 = +0.91, and the correlation-based starts
 * begin there, since no trial observes both.  With the symmetric prior, a
 * fit from this study's first few trials often settled on a negative
 * correlation and the warm starts kept it: at evaluation 10, 3 of 10 runs
 * per transfer method and problem had learned a negative correlation, and
 * on cost transfer did not beat a cold start (median best@10 122.5 and
 * 122.7 against 122.0).  Multi-task bench, gp-ei/icm + transfer, 20 seeds
 * (0..9 | 10..19), median best@10 and [runs negative at evaluation 10]:
 *   prior mean 0:   rocksdb 19864 | 20950, 20278 | 19710 [1-4 of 10];
 *                   cost 122.5 | 123.6, 122.7 | 124.5 [3 of 10]
 *   prior mean 0.7: rocksdb 20649 | 20778, 20365 | 20365 [0-1];
 *                   cost 115.6 | 120.0, 118.1 | 124.1 [0-1]
 *   prior mean 1.0: rocksdb 20445 | 21176, 20361 | 21239 [0];
 *                   cost 116.1 | 119.6, 118.4 | 121.5 [0-1]
 * (cold starts: rocksdb 18537 | 18662, cost 122.0 | 126.5).  The price is
 * at best@50 on rocksdb: 23577 | 23470 and 23897 | 23746 against 24001 |
 * 23395 and 24464 | 24151.
 */
#define TRANSFER_LOADING 1.0

/* Which metrics are modelled, and how each was standardised. */
typedef struct TaskLayout
{
	int T;        /* tasks modelled, objective included */
	int *task_of; /* 1 + n_aux + n_transfer_tasks: task of each metric,
				   * -1 = left out */
	double *mean; /* T */
	double *sd;   /* T */
} TaskLayout;

static void
layout_free(TaskLayout *layout)
{
	tuner_free(layout->task_of);
	tuner_free(layout->mean);
	tuner_free(layout->sd);
}

/*
 * Give metric slot (1 + its index) a task if its values (n, spaced stride
 * apart) can be standardised.
 */
static void
layout_add(TaskLayout *layout, int slot, const double *values, int n,
		   int stride)
{
	double mean, sd;

	if (suggest_usable_scale(values, n, stride, &mean, &sd))
	{
		layout->task_of[slot] = layout->T;
		layout->mean[layout->T] = mean;
		layout->sd[layout->T] = sd;
		layout->T++;
	}
	else
		layout->task_of[slot] = -1;
}

/*
 * Standardise the objective as the GP does; keep the usable auxiliary
 * metrics and transfer tasks.
 */
static TunerErrorCode
layout_tasks(const SuggestInput *in, TaskLayout *layout, TunerStatus *status)
{
	int n = in->n_observed, n_aux = in->n_aux;
	int slots = 1 + n_aux + in->n_transfer_tasks;
	int j;

	layout->T = 1;
	layout->task_of = tuner_alloc(sizeof(int) * slots);
	layout->mean = tuner_alloc(sizeof(double) * slots);
	layout->sd = tuner_alloc(sizeof(double) * slots);
	if (!layout->task_of || !layout->mean || !layout->sd)
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory suggesting a trial");
	layout->task_of[0] = 0;
	suggest_metric_scale(in->y_observed, n, 1, &layout->mean[0],
						 &layout->sd[0]);
	if (!(layout->sd[0] > 0.0) || !isfinite(layout->sd[0]))
		layout->sd[0] = 1.0;
	for (j = 0; j < n_aux; j++)
		layout_add(layout, 1 + j, in->y_aux + j, n, n_aux);
	for (j = 0; j < in->n_transfer_tasks; j++)
		layout_add(layout, 1 + n_aux + j, in->y_transfer + j, in->n_transfer,
				   in->n_transfer_tasks);
	return TUNER_OK;
}

/*
 * The previous fit as a warm-start model, or NULL when the input has none
 * or it does not match the tasks and rank modelled now (or is invalid).
 */
static IcmModel *
warm_model(const SuggestInput *in, int T, int rank)
{
	int d = in->d;
	IcmModel *warm;
	TunerStatus ignored;
	int k;

	if (in->warm_T != T || in->warm_rank != rank ||
		in->warm_lengthscales == NULL || in->warm_W == NULL ||
		in->warm_v == NULL || in->warm_task_noise == NULL ||
		in->warm_task_mean == NULL)
		return NULL;
	for (k = 0; k < d; k++)
		if (!(in->warm_lengthscales[k] > 0.0) ||
			!isfinite(in->warm_lengthscales[k]))
			return NULL;
	for (k = 0; k < T * rank; k++)
		if (!isfinite(in->warm_W[k]))
			return NULL;
	for (k = 0; k < T; k++)
		if (!(in->warm_v[k] > 0.0) || !isfinite(in->warm_v[k]) ||
			!(in->warm_task_noise[k] > 0.0) ||
			!isfinite(in->warm_task_noise[k]) ||
			!isfinite(in->warm_task_mean[k]))
			return NULL;
	/* icm_fit reads only the hyperparameters of a warm model */
	warm = icm_model_create(1, d, T, rank, &ignored);
	if (warm == NULL)
		return NULL;
	memcpy(warm->lengthscales, in->warm_lengthscales, sizeof(double) * d);
	memcpy(warm->W, in->warm_W, sizeof(double) * T * rank);
	memcpy(warm->v, in->warm_v, sizeof(double) * T);
	memcpy(warm->noise, in->warm_task_noise, sizeof(double) * T);
	memcpy(warm->mean, in->warm_task_mean, sizeof(double) * T);
	return warm;
}

/* Kriging believer over unit-cube pending points; see suggest_internal.h. */
TunerErrorCode
suggest_icm_believer(const IcmModel *fitted, const double *pending_unit, int p,
					 IcmModel **out, TunerStatus *status)
{
	int n = fitted->n, d = fitted->d, T = fitted->T;
	IcmModel *model;
	double *mean, *sd;
	TunerErrorCode rc = TUNER_OK;
	int i, t;

	/*
	 * Every task is fantasised, not only the objective, so that a fully
	 * observed history stays fully observed (and on the Kronecker path).
	 */
	*out = NULL;
	model = icm_model_create(n + p, d, T, fitted->rank, status);
	mean = tuner_alloc(sizeof(double) * p);
	sd = tuner_alloc(sizeof(double) * p);
	if (model == NULL || mean == NULL || sd == NULL)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory for pending trials");
		goto done;
	}
	memcpy(model->x, fitted->x, sizeof(double) * n * d);
	memcpy(model->y, fitted->y, sizeof(double) * n * T);
	memcpy(model->x + (size_t)n * d, pending_unit, sizeof(double) * p * d);
	for (t = 0; t < T && rc == TUNER_OK; t++)
	{
		rc = icm_predict(fitted, model->x + (size_t)n * d, p, t, mean, sd,
						 status);
		for (i = 0; i < p && rc == TUNER_OK; i++)
			model->y[(size_t)(n + i) * T + t] = mean[i];
	}
	if (rc != TUNER_OK)
		goto done;
	memcpy(model->lengthscales, fitted->lengthscales, sizeof(double) * d);
	memcpy(model->W, fitted->W, sizeof(double) * T * fitted->rank);
	memcpy(model->v, fitted->v, sizeof(double) * T);
	memcpy(model->noise, fitted->noise, sizeof(double) * T);
	memcpy(model->mean, fitted->mean, sizeof(double) * T);
	model->force_full = fitted->force_full;
	rc = icm_model_set_categories(model, fitted->categories, status);
	if (rc == TUNER_OK)
		rc = icm_prepare(model, status);

done:
	tuner_free(mean);
	tuner_free(sd);
	if (rc != TUNER_OK)
		icm_model_free(model);
	else
		*out = model;
	return rc;
}

/* The rank for T tasks; see suggest_internal.h. */
int
suggest_icm_rank(const SuggestInput *in, int T)
{
	if (in->icm_rank == 0)
		return T < DEFAULT_RANK ? T : DEFAULT_RANK;
	return in->icm_rank < T ? in->icm_rank : T;
}

/*
 * The model the acquisition uses: the fit plus the running trials (the
 * kriging believer).
 */
static TunerErrorCode
believer_model(const SuggestInput *in, const IcmModel *fitted, IcmModel **out,
			   TunerStatus *status)
{
	double *pending = tuner_alloc(sizeof(double) * in->n_pending * in->d);
	TunerErrorCode rc;
	int i;

	*out = NULL;
	if (pending == NULL)
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory for pending trials");
	for (i = 0; i < in->n_pending; i++)
		space_to_unit(in->params, in->d, in->x_pending + (size_t)i * in->d,
					  pending + (size_t)i * in->d);
	rc = suggest_icm_believer(fitted, pending, in->n_pending, out, status);
	tuner_free(pending);
	return rc;
}

/*
 * The weights a of the joint target over the T tasks of layout: a_0 = 1,
 * a_t the weight of the auxiliary metric modelled as task t, 0 for the
 * others.  Returns 0 when no modelled metric has a nonzero weight (g is
 * the objective).
 */
static int
joint_weights(const SuggestInput *in, const TaskLayout *layout, double *a)
{
	int any = 0;
	int j, t;

	for (t = 0; t < layout->T; t++)
		a[t] = 0.0;
	a[0] = 1.0;
	if (in->aux_weights == NULL)
		return 0;
	for (j = 0; j < in->n_aux; j++)
	{
		t = layout->task_of[1 + j];
		if (t >= 0 && in->aux_weights[j] != 0.0)
		{
			a[t] = in->aux_weights[j];
			any = 1;
		}
	}
	return any;
}

/*
 * g = a^T y (standardised) at row i of model, or NaN when a task of g was
 * not observed there.
 */
static double
joint_value(const IcmModel *model, const double *a, int i)
{
	double g = 0.0;
	int t;

	for (t = 0; t < model->T; t++)
		if (a[t] != 0.0)
		{
			double y = model->y[(size_t)i * model->T + t];

			if (isnan(y))
				return NAN;
			g += a[t] * y;
		}
	return g;
}

/*
 * The incumbent of the joint target and the points to search around: g
 * at this study's trials (rows 0 .. n-1) that reported every task of g,
 * copied with their x to xg and gv (n rows room); running trials
 * (fantasised after the transfer rows, from n_rows on) count for *best
 * only, as for the objective.  With no such trial, the posterior mean of
 * g at every trial instead.  Returns how many rows it filled.
 */
static int
joint_incumbent(const IcmModel *model, const IcmPosterior *target,
				const double *a, int n, int n_rows, double *xg, double *gv,
				double *best, TunerStatus *status)
{
	int d = model->d;
	int count = 0;
	int i;

	*best = HUGE_VAL;
	for (i = 0; i < model->n; i++)
	{
		double g;

		if (i >= n && i < n_rows)
			continue;
		g = joint_value(model, a, i);
		if (isnan(g))
			continue;
		*best = fmin(*best, g);
		if (i < n)
		{
			memcpy(xg + (size_t)count * d, model->x + (size_t)i * d,
				   sizeof(double) * d);
			gv[count++] = g;
		}
	}
	if (count > 0)
		return count;
	{
		double *sd = tuner_alloc(sizeof(double) * n);

		if (sd == NULL)
		{
			tuner_fail(status, TUNER_ERR_NOMEM,
					   "out of memory suggesting a trial");
			return -1;
		}
		memcpy(xg, model->x, sizeof(double) * n * d);
		if (icm_posterior_predict(target, xg, n, gv, sd, status) != TUNER_OK)
		{
			tuner_free(sd);
			return -1;
		}
		tuner_free(sd);
		for (i = 0; i < n; i++)
			*best = fmin(*best, gv[i]);
	}
	return n;
}

/* The ICM model step; see suggest_internal.h. */
TunerErrorCode
suggest_icm(const SuggestInput *in, TunerRng *rng, double *unit,
			SuggestResult *out, TunerStatus *status)
{
	int n = in->n_observed, d = in->d, n_aux = in->n_aux;
	int n_tt = in->n_transfer_tasks;
	int n_rows = n + in->n_transfer;
	TaskLayout layout;
	double *x = NULL, *y = NULL, *y0 = NULL;
	IcmModel *warm = NULL, *fitted = NULL, *model = NULL;
	IcmPosterior *objective = NULL, *target = NULL;
	double *a = NULL, *xg = NULL, *gv = NULL, *w_prior = NULL;
	int *categories = NULL;
	int joint = 0;
	IcmFitOptions fit_options;
	Posterior post;
	struct timespec fit_start;
	double best;
	TunerErrorCode rc;
	int T, rank, i, j;

	memset(&layout, 0, sizeof(layout));
	rc = layout_tasks(in, &layout, status);
	if (rc != TUNER_OK)
		goto done;
	T = layout.T;
	if (T == 1 || (n < ICM_MIN_TRIALS && in->n_transfer == 0))
	{
		/* rng untouched so far: exactly the GP-EI step */
		rc = suggest_gp(in, rng, unit, out, status);
		goto done;
	}

	x = tuner_alloc(sizeof(double) * n_rows * d);
	y = tuner_alloc(sizeof(double) * n_rows * T);
	y0 = tuner_alloc(sizeof(double) * n);
	a = tuner_alloc(sizeof(double) * T);
	if (!x || !y || !y0 || !a)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory suggesting a trial");
		goto done;
	}
	for (i = 0; i < n; i++)
	{
		space_to_unit(in->params, d, in->x_observed + (size_t)i * d,
					  x + (size_t)i * d);
		y0[i] = (in->y_observed[i] - layout.mean[0]) / layout.sd[0];
		y[(size_t)i * T] = y0[i];
		for (j = 0; j < n_aux; j++)
		{
			int t = layout.task_of[1 + j];
			double v = in->y_aux[(size_t)i * n_aux + j];

			if (t >= 0)
				y[(size_t)i * T + t] =
					isnan(v) ? NAN : (v - layout.mean[t]) / layout.sd[t];
		}
		for (j = 0; j < n_tt; j++)
			if (layout.task_of[1 + n_aux + j] >= 0)
				y[(size_t)i * T + layout.task_of[1 + n_aux + j]] = NAN;
	}
	/* earlier studies' trials: only their own objective is observed */
	for (i = n; i < n_rows; i++)
	{
		const double *yt = in->y_transfer + (size_t)(i - n) * n_tt;

		space_to_unit(in->params, d, in->x_transfer + (size_t)(i - n) * d,
					  x + (size_t)i * d);
		for (j = 0; j < T; j++)
			y[(size_t)i * T + j] = NAN;
		for (j = 0; j < n_tt; j++)
		{
			int t = layout.task_of[1 + n_aux + j];

			if (t >= 0 && !isnan(yt[j]))
				y[(size_t)i * T + t] = (yt[j] - layout.mean[t]) / layout.sd[t];
		}
	}

	rank = suggest_icm_rank(in, T);
	icm_fit_options_init(&fit_options);
	fit_options.rank = rank;
	fit_options.seed = rng_next(rng);
	if (in->n_transfer > 0)
	{
		/* earlier studies: a positive prior correlation, see above */
		w_prior = tuner_alloc_zero(sizeof(double) * T * rank);
		if (w_prior == NULL)
		{
			rc = tuner_fail(status, TUNER_ERR_NOMEM,
							"out of memory suggesting a trial");
			goto done;
		}
		w_prior[0] = TRANSFER_LOADING;
		for (j = 0; j < n_tt; j++)
			if (layout.task_of[1 + n_aux + j] >= 0)
				w_prior[layout.task_of[1 + n_aux + j] * rank] =
					TRANSFER_LOADING;
		fit_options.w_prior_mean = w_prior;
	}
	/* categoricals of three or more choices unordered (matern.h) */
	categories = tuner_alloc(sizeof(int) * d);
	if (categories == NULL)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory suggesting a trial");
		goto done;
	}
	if (space_kernel_categories(in->params, d, categories) > 0)
		fit_options.categories = categories;
	warm = warm_model(in, T, rank);
	if (warm != NULL)
	{
		/* refine the previous fit, now and then also one other start */
		fit_options.warm = warm;
		fit_options.restarts =
			suggest_alternate_start(n, &fit_options.first_alternate) ? 2 : 1;
		fit_options.warm_max_evals = WARM_MAX_EVALS;
	}
	clock_gettime(CLOCK_MONOTONIC, &fit_start);
	rc = icm_fit(x, y, n_rows, d, T, &fit_options, &fitted, status);
	if (rc != TUNER_OK)
		goto done;
	out->fit_seconds = suggest_seconds_since(&fit_start);

	if (in->n_pending > 0)
	{
		rc = believer_model(in, fitted, &model, status);
		if (rc != TUNER_OK)
			goto done;
	}
	else
		model = fitted;
	objective = icm_posterior_create(model, 0, status);
	if (objective == NULL)
	{
		rc = status != NULL ? status->code : TUNER_ERR_NOMEM;
		goto done;
	}
	joint = joint_weights(in, &layout, a);
	if (!joint)
	{
		/* the incumbent among this study's trials (rows 0 .. n-1) and the
		 * pending ones fantasised after the transfer rows */
		best = y0[0];
		for (i = 1; i < model->n; i++)
			if (i < n || i >= n_rows)
				best = fmin(best, model->y[(size_t)i * T]);

		icm_posterior_as_posterior(objective, &post);
		rc = suggest_choose(in, &post, best, x, y0, n, layout.mean[0],
							layout.sd[0], rng, unit, out, status);
		if (rc != TUNER_OK)
			goto done;
	}
	else
	{
		int n_g;

		target = icm_posterior_create_weighted(model, a, status);
		xg = tuner_alloc(sizeof(double) * n * d);
		gv = tuner_alloc(sizeof(double) * n);
		if (target == NULL || xg == NULL || gv == NULL)
		{
			rc = target == NULL && status != NULL
					 ? status->code
					 : tuner_fail(status, TUNER_ERR_NOMEM,
								  "out of memory suggesting a trial");
			goto done;
		}
		n_g = joint_incumbent(model, target, a, n, n_rows, xg, gv, &best,
							  status);
		if (n_g < 0)
		{
			rc = status != NULL ? status->code : TUNER_ERR_NOMEM;
			goto done;
		}
		icm_posterior_as_posterior(target, &post);
		rc = suggest_choose(in, &post, best, xg, gv, n_g, layout.mean[0],
							layout.sd[0], rng, unit, out, status);
		if (rc != TUNER_OK)
			goto done;
		/* the prediction reported is the objective's, log EI g's */
		if (out->source == SUGGEST_MODEL)
		{
			double mu, sd;

			rc = icm_posterior_predict(objective, unit, 1, &mu, &sd, status);
			if (rc != TUNER_OK)
				goto done;
			out->predicted_mean = layout.mean[0] + mu * layout.sd[0];
			out->predicted_sd = sd * layout.sd[0];
		}
	}

	if (out->lengthscales != NULL)
		memcpy(out->lengthscales, fitted->lengthscales, sizeof(double) * d);
	out->outputscale = fitted->B[0];
	out->noise = fitted->noise[0];
	out->mean = fitted->mean[0];
	out->log_likelihood = fitted->log_likelihood;
	if (out->task_used != NULL)
		memcpy(out->task_used, layout.task_of,
			   sizeof(int) * (1 + n_aux + n_tt));
	out->icm = fitted;
	fitted = NULL;

done:
	icm_posterior_free(objective);
	icm_posterior_free(target);
	tuner_free(a);
	tuner_free(w_prior);
	tuner_free(xg);
	tuner_free(gv);
	if (model != fitted && model != out->icm)
		icm_model_free(model);
	icm_model_free(fitted);
	icm_model_free(warm);
	tuner_free(categories);
	tuner_free(x);
	tuner_free(y);
	tuner_free(y0);
	layout_free(&layout);
	return rc;
}
