/*
 * suggest_clustered.c
 *	  The model step of SUGGEST_ALG_CLUSTERED_ICM, after section 3.4 of the
 *	  RocksDB multi-task BO paper: when the objective is roughly a sum of
 *	  components, each driven by a few parameters and visible as an
 *	  auxiliary metric, one small model per group of parameters (a 2-task
 *	  ICM of the objective and the group's metric, suggest_cluster.c) sees
 *	  few dimensions and learns faster, and costs far less than one ICM over
 *	  every parameter and metric.
 *
 *	  The step is suggest_additive.c's, one additive model of the objective
 *	  over every cluster's metric, whenever it applies.  Otherwise each
 *	  cluster proposes values for its own parameters (log EI of the
 *	  objective over its subspace); the configuration combines them:
 *	    - a parameter in one cluster takes that cluster's value;
 *	    - a parameter in several takes the value of the cluster whose
 *	      proposal has the highest log EI (on a tie, the first such
 *	      cluster).  That cluster expects the most
 *	      from its move, and its values were optimised jointly, so it keeps
 *	      all of them; the others lose only the shared ones.  (Averaging
 *	      would give a point no cluster chose, and is meaningless for
 *	      discrete parameters.)
 *	    - a parameter in no cluster keeps the value of the best observed
 *	      trial: nothing models it, and the incumbent's value is the one
 *	      known to work with the rest.
 *	  If that configuration was already tried, single deviations follow:
 *	  one cluster at a time takes its next-best proposal, the smallest loss
 *	  of log EI first; then a single-task GP-EI step over every parameter
 *	  (full_space_step), and a random untried point only if that fit fails.
 *
 *	  The prediction reported is the lead cluster's, the one whose proposal
 *	  has the highest log EI: by the rule above it set all of its own
 *	  parameters, so its prediction is at exactly the point it chose.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "suggest_additive.h"
#include "suggest_cluster.h"

/* One deviation from the best combination: cluster c at proposal r. */
typedef struct Deviation
{
	double loss; /* log EI of proposal 0 minus that of proposal r */
	int c;
	int r;
} Deviation;

static int
deviation_cmp(const void *a, const void *b)
{
	const Deviation *da = a;
	const Deviation *db = b;

	if (da->loss != db->loss)
		return da->loss < db->loss ? -1 : 1;
	if (da->c != db->c)
		return da->c - db->c; /* stable, so results are reproducible */
	return da->r - db->r;
}

/* Can cluster c propose (fitted, with at least one proposal)? */
static int
usable(const ClusterProposal *p)
{
	return p->fitted != NULL && p->n_cand > 0;
}

/*
 * The configuration from each cluster's proposal rank_of[c] (see the top
 * of the file): unit (d, snapped), out->config, owner[j] = the cluster
 * that set parameter j (-1: the incumbent's value).  Returns 1 if it was
 * not tried before.
 */
static int
combine(const SuggestInput *in, const ClusterProposal *props,
		const int *rank_of, const double *incumbent, double *unit, int *owner,
		SuggestResult *out)
{
	int d = in->d;
	int c, j, k;

	for (j = 0; j < d; j++)
		owner[j] = -1;
	memcpy(unit, incumbent, sizeof(double) * d);
	for (c = 0; c < in->n_clusters; c++)
	{
		const ClusterProposal *p = &props[c];

		if (!usable(p))
			continue;
		for (k = 0; k < p->m; k++)
		{
			j = p->members[k];
			if (owner[j] < 0 || p->value[rank_of[c]] >
									props[owner[j]].value[rank_of[owner[j]]])
				owner[j] = c;
		}
	}
	for (c = 0; c < in->n_clusters; c++)
	{
		const ClusterProposal *p = &props[c];

		if (!usable(p))
			continue;
		for (k = 0; k < p->m; k++)
			if (owner[p->members[k]] == c)
				unit[p->members[k]] = p->cand[(size_t)rank_of[c] * p->m + k];
	}
	space_snap_unit(in->params, d, unit);
	suggest_native(in, unit, out->config);
	return !suggest_is_taken(in, out->config);
}

/*
 * The best combination not tried before: all proposals 0, then single
 * deviations; *found = 1 with rank_of, unit, owner and out->config set if
 * one was found.
 */
static TunerErrorCode
choose(const SuggestInput *in, const ClusterProposal *props,
	   const double *incumbent, int *rank_of, double *unit, int *owner,
	   SuggestResult *out, int *found, TunerStatus *status)
{
	int K = in->n_clusters;
	Deviation *dev;
	int n_dev = 0;
	int c, r, i;

	for (c = 0; c < K; c++)
		rank_of[c] = 0;
	*found = combine(in, props, rank_of, incumbent, unit, owner, out);
	if (*found)
		return TUNER_OK;

	dev = tuner_alloc(sizeof(Deviation) * K * CLUSTER_MAX_CANDIDATES);
	if (dev == NULL)
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory suggesting a trial");
	for (c = 0; c < K; c++)
		for (r = 1; usable(&props[c]) && r < props[c].n_cand; r++)
		{
			dev[n_dev].loss = props[c].value[0] - props[c].value[r];
			dev[n_dev].c = c;
			dev[n_dev++].r = r;
		}
	qsort(dev, n_dev, sizeof(Deviation), deviation_cmp);
	for (i = 0; i < n_dev && !*found; i++)
	{
		rank_of[dev[i].c] = dev[i].r;
		*found = combine(in, props, rank_of, incumbent, unit, owner, out);
		if (!*found)
			rank_of[dev[i].c] = 0;
	}
	tuner_free(dev);
	/* none: owner as for the best combination, for the report */
	if (!*found)
		(void)combine(in, props, rank_of, incumbent, unit, owner, out);
	return TUNER_OK;
}

/*
 * Fill what the fits learned (see suggest.h): the lead cluster's
 * hyperparameters, each parameter's lengthscale from its owner, and with
 * model_point the lead's prediction at its proposal.
 */
static TunerErrorCode
report(const SuggestInput *in, const ClusterProposal *props,
	   const int *rank_of, const int *owner, int model_point, double y_mean,
	   double y_sd, SuggestResult *out, TunerStatus *status)
{
	int lead = -1;
	const ClusterProposal *p;
	int c, j, k;

	for (c = 0; c < in->n_clusters; c++)
		if (usable(&props[c]) &&
			(lead < 0 ||
			 props[c].value[rank_of[c]] > props[lead].value[rank_of[lead]]))
			lead = c;
	p = &props[lead];
	if (model_point)
	{
		double mu, sd;
		TunerErrorCode rc = icm_posterior_predict(
			p->objective, p->cand + (size_t)rank_of[lead] * p->m, 1, &mu, &sd,
			status);

		if (rc != TUNER_OK)
			return rc;
		out->source = SUGGEST_MODEL;
		out->predicted_mean = y_mean + mu * y_sd;
		out->predicted_sd = sd * y_sd;
		out->log_ei = p->value[rank_of[lead]];
	}
	out->outputscale = p->fitted->B[0];
	out->noise = p->fitted->noise[0];
	out->mean = p->fitted->mean[0];
	out->log_likelihood = p->fitted->log_likelihood;

	for (j = 0; j < in->d && out->lengthscales != NULL; j++)
	{
		out->lengthscales[j] = NAN;
		if (owner[j] < 0)
			continue;
		for (k = 0; k < props[owner[j]].m; k++)
			if (props[owner[j]].members[k] == j)
				out->lengthscales[j] = props[owner[j]].fitted->lengthscales[k];
	}
	for (j = 0; j < in->d && out->cluster_used != NULL && model_point; j++)
		if (owner[j] >= 0)
			out->cluster_used[owner[j]] = 1;
	if (out->task_used != NULL)
	{
		out->task_used[0] = 0;
		for (c = 0; c < in->n_clusters; c++)
			if (props[c].fitted != NULL && props[c].T == 2)
				out->task_used[1 + in->cluster_metric[c]] = 1;
	}
	return TUNER_OK;
}

/*
 * Fill what the fits learned after the additive step: the hyperparameters
 * of the cluster whose metric weighs most in the link (coef), each
 * parameter's lengthscale from the heaviest cluster it is in.
 */
static void
report_additive(const SuggestInput *in, const ClusterProposal *props,
				const double *coef, SuggestResult *out)
{
	int lead = 0;
	int c, j, k;

	for (c = 1; c < in->n_clusters; c++)
		if (fabs(coef[c]) > fabs(coef[lead]))
			lead = c;
	out->outputscale = props[lead].fitted->B[0];
	out->noise = props[lead].fitted->noise[0];
	out->mean = props[lead].fitted->mean[0];
	out->log_likelihood = props[lead].fitted->log_likelihood;
	for (j = 0; j < in->d && out->lengthscales != NULL; j++)
	{
		int owner = -1;

		for (c = 0; c < in->n_clusters; c++)
			if (in->cluster_members[(size_t)c * in->d + j] &&
				(owner < 0 || fabs(coef[c]) > fabs(coef[owner])))
				owner = c;
		out->lengthscales[j] = NAN;
		for (k = 0; owner >= 0 && k < props[owner].m; k++)
			if (props[owner].members[k] == j)
				out->lengthscales[j] = props[owner].fitted->lengthscales[k];
	}
	for (c = 0; c < in->n_clusters && out->cluster_used != NULL; c++)
		if (out->source == SUGGEST_MODEL)
			out->cluster_used[c] = 1;
	if (out->task_used != NULL)
	{
		out->task_used[0] = 0;
		for (c = 0; c < in->n_clusters; c++)
			out->task_used[1 + in->cluster_metric[c]] = 1;
	}
}

/* Hand the clusters' fits to the caller (out->cluster_icm). */
static TunerErrorCode
hand_over(const SuggestInput *in, ClusterProposal *props, SuggestResult *out,
		  TunerStatus *status)
{
	int c;

	out->cluster_icm = tuner_alloc_zero(sizeof(IcmModel *) * in->n_clusters);
	if (out->cluster_icm == NULL)
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory suggesting a trial");
	out->n_cluster_models = 0;
	for (c = 0; c < in->n_clusters; c++)
	{
		ClusterProposal *p = &props[c];

		if (p->fitted == NULL)
			continue;
		out->cluster_icm[c] = p->fitted;
		out->n_cluster_models++;
		if (p->model == p->fitted)
			p->model = NULL;
		p->fitted = NULL;
	}
	return TUNER_OK;
}

/*
 * Every combination the clusters proposed was already tried, which happens
 * when clusters are small or their parameters discrete: each cluster has
 * converged inside its own subspace.  What can still improve is a
 * parameter in no cluster or a joint move across clusters, and one GP over
 * every parameter sees both.  A random point here threw a model step away
 * (2 of 7 model steps of one real RocksDB study, bench/README section 3).
 * The model row then reports that GP: its lengthscales and prediction, and
 * no cluster as used.
 */
static TunerErrorCode
full_space_step(const SuggestInput *in, TunerRng *rng, double *unit,
				SuggestResult *out, TunerStatus *status)
{
	SuggestInput gp_in = *in;
	double cluster_seconds = out->fit_seconds;
	TunerStatus gp_status;
	TunerErrorCode rc;

	/* the warm start holds the clusters' lengthscales, not one GP's */
	gp_in.warm_lengthscales = NULL;
	gp_in.warm_outputscale = 0.0;
	gp_in.warm_noise = 0.0;
	tuner_status_clear(&gp_status);
	rc = suggest_gp(&gp_in, rng, unit, out, &gp_status);
	if (rc == TUNER_ERR_NUMERIC)
		return suggest_random_untaken(in, rng, unit, out, status);
	if (rc != TUNER_OK)
	{
		if (status != NULL)
			*status = gp_status;
		return rc;
	}
	out->fit_seconds += cluster_seconds;
	return TUNER_OK;
}

/* The clustered ICM model step; see suggest_internal.h. */
TunerErrorCode
suggest_clustered_icm(const SuggestInput *in, TunerRng *rng, double *unit,
					  SuggestResult *out, TunerStatus *status)
{
	int n = in->n_observed, d = in->d, K = in->n_clusters;
	ClusterProposal *props = tuner_alloc_zero(sizeof(ClusterProposal) * K);
	double *x = tuner_alloc(sizeof(double) * n * d);
	double *y0 = tuner_alloc(sizeof(double) * n);
	double *incumbent = tuner_alloc(sizeof(double) * d);
	int *rank_of = tuner_alloc(sizeof(int) * K);
	int *owner = tuner_alloc(sizeof(int) * d);
	double *coef = tuner_alloc(sizeof(double) * K);
	TunerStatus cluster_status;
	double y_mean, y_sd, fit_seconds = 0.0;
	TunerErrorCode rc = TUNER_OK;
	int fitted = 0, best_trial = 0, found = 0, additive = 0;
	int c, i;

	tuner_status_clear(&cluster_status);
	if (!props || !x || !y0 || !incumbent || !rank_of || !owner || !coef)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory suggesting a trial");
		goto done;
	}
	/* one standardisation of the objective, so clusters' log EI compare */
	suggest_metric_scale(in->y_observed, n, 1, &y_mean, &y_sd);
	if (!(y_sd > 0.0) || !isfinite(y_sd))
		y_sd = 1.0;
	for (i = 0; i < n; i++)
	{
		space_to_unit(in->params, d, in->x_observed + (size_t)i * d,
					  x + (size_t)i * d);
		y0[i] = (in->y_observed[i] - y_mean) / y_sd;
		if (in->y_observed[i] < in->y_observed[best_trial])
			best_trial = i;
	}
	memcpy(incumbent, x + (size_t)best_trial * d, sizeof(double) * d);

	/*
	 * A cluster whose fit fails numerically is left out (its parameters
	 * keep the incumbent's values); the step fails only if all do.
	 */
	for (c = 0; c < K; c++)
	{
		rc = cluster_propose(in, c, x, y0, rng, &props[c], &cluster_status);
		if (rc == TUNER_ERR_NUMERIC)
		{
			cluster_proposal_free(&props[c]);
			rc = TUNER_OK;
			continue;
		}
		if (rc != TUNER_OK)
		{
			if (status != NULL)
				*status = cluster_status;
			goto done;
		}
		fit_seconds += props[c].fit_seconds;
		fitted += usable(&props[c]);
	}
	if (fitted == 0)
	{
		if (status != NULL)
			*status = cluster_status;
		rc = TUNER_ERR_NUMERIC;
		goto done;
	}
	out->fit_seconds = fit_seconds;

	rc = suggest_additive(in, props, x, y0, incumbent, y_mean, y_sd, rng, unit,
						  out, coef, &additive, status);
	if (rc == TUNER_OK && additive)
	{
		report_additive(in, props, coef, out);
		rc = hand_over(in, props, out, status);
		goto done;
	}
	if (rc != TUNER_OK)
		goto done;
	rc = choose(in, props, incumbent, rank_of, unit, owner, out, &found,
				status);
	if (rc != TUNER_OK)
		goto done;
	rc = report(in, props, rank_of, owner, found, y_mean, y_sd, out, status);
	if (rc == TUNER_OK && !found)
		rc = full_space_step(in, rng, unit, out, status);
	if (rc == TUNER_OK)
		rc = hand_over(in, props, out, status);

done:
	for (c = 0; props != NULL && c < K; c++)
		cluster_proposal_free(&props[c]);
	tuner_free(props);
	tuner_free(x);
	tuner_free(y0);
	tuner_free(incumbent);
	tuner_free(rank_of);
	tuner_free(owner);
	tuner_free(coef);
	return rc;
}
