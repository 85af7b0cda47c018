/*
 * suggest_additive.c
 *	  Clustered ICM's model step as one additive model.  Each cluster's fit
 *	  (suggest_cluster.c) also predicts its auxiliary metric over the
 *	  cluster's few parameters, and the metrics, not the objective, are
 *	  what each cluster's parameters drive alone: seen over one cluster's
 *	  subspace the objective carries every other cluster's variation as
 *	  noise, its metric does not.  So the objective is modelled as
 *
 *	    y0(x) ~ a0 + sum_c a_c z_c(x_c)
 *
 *	  with z_c cluster c's standardised metric over its parameters and a
 *	  learned from the observed trials by ridge regression of the objective
 *	  on the metrics (the sign and weight of each metric are learned, never
 *	  declared).  The sum is Gaussian (additive_posterior.h), and one log EI
 *	  maximisation over the whole space sees every cluster at once: a
 *	  parameter that several clusters share is set for its effect on all of
 *	  them, where per-cluster proposals had to let one cluster win it.
 *	  Parameters in no cluster keep the incumbent's values, as before.
 *
 *	  Used when every fitted cluster models its metric (T = 2) and enough
 *	  trials reported all of them; otherwise the per-cluster proposals of
 *	  suggest_clustered.c decide.
 */
#include <math.h>
#include <string.h>

#include "additive_posterior.h"
#include "linalg.h"
#include "suggest_additive.h"

/*
 * Ridge penalty of the link, in standardised units: with n rows the data
 * weigh about n, so 1 shrinks the first few steps' weights (a handful of
 * trials and as many metrics) and hardly matters after ten.
 */
#define LINK_RIDGE 1.0

/*
 * A cluster whose fit explains less than this share of its metric's
 * variance (signal / (signal + noise)) is missing parameters that drive
 * the metric: its term would steer the sum with noise.
 */
#define MIN_EXPLAINED_SHARE 0.5

/* Fewest trials reporting every cluster's metric for the link. */
#define LINK_MIN_ROWS 3

/*
 * Fit y0 ~ a0 + sum_c a_c z_c over the rows where every metric was
 * reported: the centred ridge normal equations, K x K.  Returns the rows
 * used (0: too few, or the system could not be solved).
 */
static int
fit_link(const ClusterProposal *props, int K, const double *y0, int n,
		 double *coef, double *intercept, TunerStatus *status)
{
	double *z = tuner_alloc(sizeof(double) * (size_t)n * K);
	double *zbar = tuner_alloc(sizeof(double) * K);
	double *a = tuner_alloc(sizeof(double) * K * K);
	double *work = tuner_alloc(sizeof(double) * K * K);
	double *resp = tuner_alloc(sizeof(double) * n);
	double ybar = 0.0, jitter = 0.0;
	int rows = 0;
	int i, c, e;

	if (!z || !zbar || !a || !work || !resp)
		goto done;
	for (i = 0; i < n; i++)
	{
		int complete = 1;

		for (c = 0; c < K; c++)
		{
			double v = props[c].fitted->y[(size_t)i * 2 + 1];

			complete &= isfinite(v);
			z[(size_t)rows * K + c] = v;
		}
		if (!complete)
			continue;
		ybar += y0[i];
		resp[rows] = y0[i];
		rows++;
	}
	if (rows < LINK_MIN_ROWS || rows < 2)
	{
		rows = 0;
		goto done;
	}
	ybar /= rows;
	for (c = 0; c < K; c++)
	{
		zbar[c] = 0.0;
		for (i = 0; i < rows; i++)
			zbar[c] += z[(size_t)i * K + c];
		zbar[c] /= rows;
	}
	/* a = Zc^T Zc + ridge I; the right-hand side Zc^T yc into work[0..K) */
	for (c = 0; c < K; c++)
	{
		double rhs = 0.0;

		for (e = 0; e < K; e++)
		{
			double s = 0.0;

			for (i = 0; i < rows; i++)
				s += (z[(size_t)i * K + c] - zbar[c]) *
					 (z[(size_t)i * K + e] - zbar[e]);
			a[(size_t)c * K + e] = s + (c == e ? LINK_RIDGE : 0.0);
		}
		for (i = 0; i < rows; i++)
			rhs += (z[(size_t)i * K + c] - zbar[c]) * (resp[i] - ybar);
		work[c] = rhs;
	}
	memcpy(coef, work, sizeof(double) * K);
	if (linalg_cholesky(a, K, work, &jitter, status) != TUNER_OK)
	{
		rows = 0;
		goto done;
	}
	linalg_cholesky_solve(a, K, coef);
	*intercept = ybar;
	for (c = 0; c < K; c++)
	{
		if (!isfinite(coef[c]))
		{
			rows = 0;
			goto done;
		}
		*intercept -= coef[c] * zbar[c];
	}
done:
	tuner_free(z);
	tuner_free(zbar);
	tuner_free(a);
	tuner_free(work);
	tuner_free(resp);
	return rows;
}

/* The lowest mean of the sum at the n points u (n x d): EI's incumbent. */
static TunerErrorCode
lowest_mean(const Posterior *post, const double *u, int n, double *best,
			TunerStatus *status)
{
	double *mean = tuner_alloc(sizeof(double) * n);
	double *sd = tuner_alloc(sizeof(double) * n);
	TunerErrorCode rc;
	int i;

	if (!mean || !sd)
	{
		tuner_free(mean);
		tuner_free(sd);
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory suggesting a trial");
	}
	rc = post->batch(post->state, u, n, mean, sd, status);
	for (i = 0; rc == TUNER_OK && i < n; i++)
		if (i == 0 || mean[i] < *best)
			*best = mean[i];
	tuner_free(mean);
	tuner_free(sd);
	return rc;
}

/*
 * Parameters in no cluster take the incumbent's values when that gives an
 * untried configuration (the sum does not depend on them).
 */
static void
keep_unclustered(const SuggestInput *in, const double *incumbent, double *unit,
				 SuggestResult *out, double *native)
{
	double *u = native + in->d;
	int j, c, changed = 0;

	memcpy(u, unit, sizeof(double) * in->d);
	for (j = 0; j < in->d; j++)
	{
		int member = 0;

		for (c = 0; c < in->n_clusters; c++)
			member |= in->cluster_members[(size_t)c * in->d + j];
		if (!member && u[j] != incumbent[j])
		{
			u[j] = incumbent[j];
			changed = 1;
		}
	}
	if (!changed)
		return;
	space_snap_unit(in->params, in->d, u);
	suggest_native(in, u, native);
	if (suggest_is_taken(in, native))
		return;
	memcpy(unit, u, sizeof(double) * in->d);
	memcpy(out->config, native, sizeof(double) * in->d);
}

/* See suggest_additive.h. */
TunerErrorCode
suggest_additive(const SuggestInput *in, const ClusterProposal *props,
				 const double *x, const double *y0, const double *incumbent,
				 double y_mean, double y_sd, TunerRng *rng, double *unit,
				 SuggestResult *out, double *coef, int *used,
				 TunerStatus *status)
{
	int n = in->n_observed, d = in->d, K = in->n_clusters;
	IcmPosterior **metric = tuner_alloc_zero(sizeof(IcmPosterior *) * K);
	Posterior *term = tuner_alloc_zero(sizeof(Posterior) * K);
	const int **members = tuner_alloc_zero(sizeof(int *) * K);
	int *m = tuner_alloc_zero(sizeof(int) * K);
	double *points = tuner_alloc(sizeof(double) * (n + in->n_pending) * d);
	double *native = tuner_alloc(sizeof(double) * 2 * d);
	AdditivePosterior additive;
	Posterior post;
	double intercept = 0.0, best = 0.0;
	TunerErrorCode rc = TUNER_OK;
	int c, i;

	*used = 0;
	memset(&additive, 0, sizeof(additive));
	if (!metric || !term || !members || !m || !points || !native)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory suggesting a trial");
		goto done;
	}
	for (c = 0; c < K; c++)
	{
		const IcmModel *f = props[c].fitted;

		if (f == NULL || f->T != 2)
			goto done; /* a cluster without its metric: per-cluster step */
		if (f->B[3] < MIN_EXPLAINED_SHARE * (f->B[3] + f->noise[1]))
			goto done;
	}
	if (fit_link(props, K, y0, n, coef, &intercept, status) == 0)
		goto done;

	for (c = 0; c < K; c++)
	{
		metric[c] = icm_posterior_create(props[c].model, 1, status);
		if (metric[c] == NULL)
		{
			rc = status != NULL ? status->code : TUNER_ERR_NOMEM;
			goto done;
		}
		icm_posterior_as_posterior(metric[c], &term[c]);
		members[c] = props[c].members;
		m[c] = props[c].m;
	}
	additive.d = d;
	additive.k = K;
	additive.term = term;
	additive.members = members;
	additive.m = m;
	additive.coef = coef;
	additive.intercept = intercept;
	rc = additive_posterior_init(&additive, &post, status);
	if (rc != TUNER_OK)
		goto done;

	/* incumbent: the lowest mean at the trials, running ones included */
	memcpy(points, x, sizeof(double) * n * d);
	for (i = 0; i < in->n_pending; i++)
		space_to_unit(in->params, d, in->x_pending + (size_t)i * d,
					  points + (size_t)(n + i) * d);
	rc = lowest_mean(&post, points, n + in->n_pending, &best, status);
	if (rc != TUNER_OK)
		goto done;
	rc = suggest_choose(in, &post, best, x, y0, n, y_mean, y_sd, rng, unit,
						out, status);
	if (rc != TUNER_OK)
		goto done;
	if (out->source == SUGGEST_MODEL)
		keep_unclustered(in, incumbent, unit, out, native);
	*used = 1;

done:
	for (c = 0; metric != NULL && c < K; c++)
		icm_posterior_free(metric[c]);
	additive_posterior_free(&additive);
	tuner_free(metric);
	tuner_free(term);
	tuner_free(members);
	tuner_free(m);
	tuner_free(points);
	tuner_free(native);
	return rc;
}
