/*
 * suggest_cluster.c
 *	  One cluster of clustered ICM: an ICM over the cluster's parameters
 *	  alone with two tasks, the objective and the cluster's auxiliary
 *	  metric (each standardised separately; missing metric values stay NaN
 *	  and put the fit on the full path), kriging believer for the running
 *	  trials, and log EI of the objective task maximised over the cluster's
 *	  subspace by acquisition.c.  A metric with fewer than two values or no
 *	  spread cannot be correlated with anything: the cluster is then a
 *	  single-task model (a 1-task ICM, that is a GP) of the objective over
 *	  its parameters, and still proposes.
 */
#include <math.h>
#include <string.h>

#include "acquisition.h"
#include "suggest_cluster.h"

/* Acquisition's best points snapped to the grid and scored again there. */
#define RANKED 64

/*
 * A cluster without a previous fit is fitted cold, and there are several
 * per step: fewer starts and evaluations than icm_fit's defaults (3 x
 * 200).  At d = 10 in clusters of 3, 3 and 4, n = 100, this took the three
 * fits from 660 to 360 ms; on the additive test problem the best after 15
 * steps went from 0.43 to 0.48 (design 1.08, random search 0.76).  With
 * the previous step's fit, a cluster refines it as suggest_icm.c does, its
 * refinement capped the same way, and runs another start on
 * suggest_alternate_start's schedule (suggest_internal.h).
 */
#define CLUSTER_RESTARTS       2
#define CLUSTER_MAX_EVALS      100
#define CLUSTER_WARM_MAX_EVALS 40

/*
 * The previous fit of cluster c as a warm-start model over its m members,
 * or NULL when there is none or it does not match (tasks, rank, values).
 */
static IcmModel *
cluster_warm_model(const SuggestInput *in, int c, const int *members, int m,
				   int T, int rank)
{
	IcmModel *warm;
	TunerStatus ignored;
	int k;

	if (in->warm_cluster_T == NULL || in->warm_cluster_rank == NULL ||
		in->warm_cluster_lengthscales == NULL || in->warm_cluster_W == NULL ||
		in->warm_cluster_v == NULL || in->warm_cluster_noise == NULL ||
		in->warm_cluster_mean == NULL || in->warm_cluster_T[c] != T ||
		in->warm_cluster_rank[c] != rank)
		return NULL;
	for (k = 0; k < m; k++)
	{
		double l =
			in->warm_cluster_lengthscales[(size_t)c * in->d + members[k]];

		if (!(l > 0.0) || !isfinite(l))
			return NULL;
	}
	for (k = 0; k < T * rank; k++)
		if (!isfinite(in->warm_cluster_W[(size_t)c * 4 + k]))
			return NULL;
	for (k = 0; k < T; k++)
	{
		double v = in->warm_cluster_v[(size_t)c * 2 + k];
		double noise = in->warm_cluster_noise[(size_t)c * 2 + k];

		if (!(v > 0.0) || !isfinite(v) || !(noise > 0.0) || !isfinite(noise) ||
			!isfinite(in->warm_cluster_mean[(size_t)c * 2 + k]))
			return NULL;
	}
	/* icm_fit reads only the hyperparameters of a warm model */
	warm = icm_model_create(1, m, T, rank, &ignored);
	if (warm == NULL)
		return NULL;
	for (k = 0; k < m; k++)
		warm->lengthscales[k] =
			in->warm_cluster_lengthscales[(size_t)c * in->d + members[k]];
	memcpy(warm->W, in->warm_cluster_W + (size_t)c * 4,
		   sizeof(double) * T * rank);
	memcpy(warm->v, in->warm_cluster_v + (size_t)c * 2, sizeof(double) * T);
	memcpy(warm->noise, in->warm_cluster_noise + (size_t)c * 2,
		   sizeof(double) * T);
	memcpy(warm->mean, in->warm_cluster_mean + (size_t)c * 2,
		   sizeof(double) * T);
	return warm;
}

/* Free what cluster_propose allocated. */
void
cluster_proposal_free(ClusterProposal *proposal)
{
	icm_posterior_free(proposal->objective);
	if (proposal->model != proposal->fitted)
		icm_model_free(proposal->model);
	icm_model_free(proposal->fitted);
	tuner_free(proposal->members);
	tuner_free(proposal->cand);
	tuner_free(proposal->value);
	memset(proposal, 0, sizeof(ClusterProposal));
}

/*
 * The observed trials restricted to the members: inputs xs (n x m) and
 * tasks ys (n x T), the objective first.
 */
static void
cluster_data(const SuggestInput *in, const ClusterProposal *p, int metric,
			 double aux_mean, double aux_sd, const double *x, const double *y0,
			 double *xs, double *ys)
{
	int n = in->n_observed, d = in->d, m = p->m, T = p->T;
	int i, k;

	for (i = 0; i < n; i++)
	{
		for (k = 0; k < m; k++)
			xs[(size_t)i * m + k] = x[(size_t)i * d + p->members[k]];
		ys[(size_t)i * T] = y0[i];
		if (T == 2)
		{
			double v = in->y_aux[(size_t)i * in->n_aux + metric];

			ys[(size_t)i * T + 1] = isnan(v) ? NAN : (v - aux_mean) / aux_sd;
		}
	}
}

/* The running trials restricted to the members, in the unit cube. */
static TunerErrorCode
pending_unit(const SuggestInput *in, const ClusterProposal *p, double **out,
			 TunerStatus *status)
{
	double *full = tuner_alloc(sizeof(double) * in->d);
	double *sub = tuner_alloc(sizeof(double) * in->n_pending * p->m);
	int i, k;

	*out = NULL;
	if (full == NULL || sub == NULL)
	{
		tuner_free(full);
		tuner_free(sub);
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory for pending trials");
	}
	for (i = 0; i < in->n_pending; i++)
	{
		space_to_unit(in->params, in->d, in->x_pending + (size_t)i * in->d,
					  full);
		for (k = 0; k < p->m; k++)
			sub[(size_t)i * p->m + k] = full[p->members[k]];
	}
	tuner_free(full);
	*out = sub;
	return TUNER_OK;
}

/*
 * Snap the acquisition's ranked points to the members' grid, score them
 * again there (rounding moves discrete parameters, as in suggest_choose),
 * and keep the best distinct ones, best first.
 */
static void
keep_candidates(ClusterProposal *p, const ParamSpec *sub_params,
				const Posterior *post, double best, double *ranked,
				int n_ranked, double *scratch)
{
	int m = p->m;
	double values[RANKED];
	int order[RANKED];
	int i, j;

	for (i = 0; i < n_ranked; i++)
	{
		space_snap_unit(sub_params, m, ranked + (size_t)i * m);
		values[i] = acquisition_log_ei(post, best, ranked + (size_t)i * m,
									   NULL, scratch);
		if (!isfinite(values[i]))
			values[i] = -HUGE_VAL;
	}
	/* insertion sort, stable, so equal values keep the acquisition's order */
	for (i = 0; i < n_ranked; i++)
	{
		for (j = i; j > 0 && values[order[j - 1]] < values[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	p->n_cand = 0;
	for (i = 0; i < n_ranked && p->n_cand < CLUSTER_MAX_CANDIDATES; i++)
	{
		const double *u = ranked + (size_t)order[i] * m;
		int seen = 0;

		for (j = 0; j < p->n_cand && !seen; j++)
			seen = memcmp(p->cand + (size_t)j * m, u, sizeof(double) * m) == 0;
		if (seen)
			continue;
		memcpy(p->cand + (size_t)p->n_cand * m, u, sizeof(double) * m);
		p->value[p->n_cand++] = values[order[i]];
	}
}

/* Fit one cluster and rank its proposals; see suggest_cluster.h. */
TunerErrorCode
cluster_propose(const SuggestInput *in, int c, const double *x,
				const double *y0, TunerRng *rng, ClusterProposal *p,
				TunerStatus *status)
{
	int n = in->n_observed, d = in->d;
	int metric = in->cluster_metric[c];
	const int *row = in->cluster_members + (size_t)c * d;
	ParamSpec *sub_params = NULL;
	int *categories = NULL;
	double *xs = NULL, *ys = NULL, *pending = NULL, *incumbents = NULL;
	double *ranked = NULL, *ranked_values = NULL, *scratch = NULL;
	double aux_mean = 0.0, aux_sd = 1.0, best;
	IcmModel *warm = NULL;
	IcmFitOptions fit_options;
	AcquisitionOptions acq_options;
	Posterior post;
	struct timespec fit_start;
	TunerErrorCode rc = TUNER_OK;
	int n_ranked = 0;
	int i, j, m = 0;

	memset(p, 0, sizeof(ClusterProposal));
	for (j = 0; j < d; j++)
		m += row[j];
	p->m = m;
	p->T = suggest_aux_scale(in, metric, &aux_mean, &aux_sd) ? 2 : 1;
	p->members = tuner_alloc(sizeof(int) * m);
	p->cand = tuner_alloc(sizeof(double) * CLUSTER_MAX_CANDIDATES * m);
	p->value = tuner_alloc(sizeof(double) * CLUSTER_MAX_CANDIDATES);
	sub_params = tuner_alloc(sizeof(ParamSpec) * m);
	xs = tuner_alloc(sizeof(double) * n * m);
	ys = tuner_alloc(sizeof(double) * n * p->T);
	incumbents = tuner_alloc(sizeof(double) * SUGGEST_MAX_INCUMBENTS * m);
	ranked = tuner_alloc(sizeof(double) * RANKED * m);
	ranked_values = tuner_alloc(sizeof(double) * RANKED);
	if (!p->members || !p->cand || !p->value || !sub_params || !xs || !ys ||
		!incumbents || !ranked || !ranked_values)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory fitting cluster %d", c + 1);
		goto done;
	}
	for (i = 0, j = 0; j < d; j++)
		if (row[j])
		{
			sub_params[i] = in->params[j];
			p->members[i++] = j;
		}
	cluster_data(in, p, metric, aux_mean, aux_sd, x, y0, xs, ys);
	/* the members' categoricals of three or more choices are unordered */
	categories = tuner_alloc(sizeof(int) * m);
	if (categories == NULL)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory fitting cluster %d", c + 1);
		goto done;
	}

	icm_fit_options_init(&fit_options);
	fit_options.rank = suggest_icm_rank(in, p->T);
	fit_options.seed = rng_next(rng);
	fit_options.restarts = CLUSTER_RESTARTS;
	fit_options.max_evals = CLUSTER_MAX_EVALS;
	if (space_kernel_categories(sub_params, m, categories) > 0)
		fit_options.categories = categories;
	warm = cluster_warm_model(in, c, p->members, m, p->T, fit_options.rank);
	if (warm != NULL)
	{
		fit_options.warm = warm;
		fit_options.restarts =
			suggest_alternate_start(n, &fit_options.first_alternate) ? 2 : 1;
		fit_options.warm_max_evals = CLUSTER_WARM_MAX_EVALS;
	}
	clock_gettime(CLOCK_MONOTONIC, &fit_start);
	rc = icm_fit(xs, ys, n, m, p->T, &fit_options, &p->fitted, status);
	if (rc != TUNER_OK)
		goto done;
	p->fit_seconds = suggest_seconds_since(&fit_start);

	p->model = p->fitted;
	if (in->n_pending > 0)
	{
		rc = pending_unit(in, p, &pending, status);
		if (rc == TUNER_OK)
			rc = suggest_icm_believer(p->fitted, pending, in->n_pending,
									  &p->model, status);
		if (rc != TUNER_OK)
		{
			p->model = p->fitted;
			goto done;
		}
	}
	p->objective = icm_posterior_create(p->model, 0, status);
	if (p->objective == NULL)
	{
		rc = status != NULL ? status->code : TUNER_ERR_NOMEM;
		goto done;
	}
	icm_posterior_as_posterior(p->objective, &post);

	/* incumbent: the best objective, fantasised ones included, as ICM */
	best = p->model->y[0];
	for (i = 1; i < p->model->n; i++)
		best = fmin(best, p->model->y[(size_t)i * p->T]);

	scratch = tuner_alloc(sizeof(double) * acquisition_scratch_size(&post));
	if (scratch == NULL)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory fitting cluster %d", c + 1);
		goto done;
	}
	acquisition_options_init(&acq_options, m);
	rc = acquisition_rank(&post, best, incumbents,
						  suggest_pick_incumbents(xs, y0, n, m, incumbents),
						  &acq_options, rng, RANKED, ranked, ranked_values,
						  &n_ranked, status);
	if (rc != TUNER_OK)
		goto done;
	keep_candidates(p, sub_params, &post, best, ranked, n_ranked, scratch);

done:
	icm_model_free(warm);
	tuner_free(categories);
	tuner_free(sub_params);
	tuner_free(xs);
	tuner_free(ys);
	tuner_free(pending);
	tuner_free(incumbents);
	tuner_free(ranked);
	tuner_free(ranked_values);
	tuner_free(scratch);
	return rc;
}
