/*
 * relevance.c
 *	  The GP's evidence for each parameter and the ranking policy of
 *	  tuner.lasso_rank (relevance.h).
 *
 *	  The bound of dimension k (the drop at the full fit's hyperparameters)
 *	  needs one factorisation: r^2 of every pair is computed once, and for
 *	  each k its term delta_k^2 / l_k^2 is taken out and the Gram matrix
 *	  rebuilt from what remains.  A refit without k starts from the full
 *	  fit's hyperparameters (a warm start), then from the fit's usual
 *	  other starts.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gp.h"
#include "linalg.h"
#include "matern.h"
#include "relevance.h"

#define LOG_2PI 1.8378770664093454836

/* Defaults; see relevance.h. */
void
relevance_options_init(RelevanceOptions *options)
{
	memset(options, 0, sizeof(RelevanceOptions));
	options->restarts = 3;
	options->max_evals = 200;
	options->seed = 0;
	options->categories = NULL;
	options->measure = NULL;
	options->threshold = RELEVANCE_EVIDENCE_MIN;
}

/*
 * Log marginal likelihood of standardised y under outputscale s, noise,
 * mean and the scaled squared distances r2 of every pair (i > j, in the
 * order of matern52_pair_sqdiff).  k and work hold n * n doubles.
 */
static TunerErrorCode
log_likelihood(const double *r2, const double *y, int n, double s,
			   double noise, double mean, double *k, double *work,
			   double *alpha, double *value, TunerStatus *status)
{
	size_t pair = 0;
	double jitter;
	double quad = 0.0;
	int i, j;
	TunerErrorCode rc;

	for (j = 0; j < n; j++)
	{
		k[j + (size_t)j * n] = s + noise;
		for (i = j + 1; i < n; i++, pair++)
		{
			double v = s * matern52_unit(sqrt(r2[pair]));

			k[i + (size_t)j * n] = v;
			k[j + (size_t)i * n] = v;
		}
	}
	rc = linalg_cholesky(k, n, work, &jitter, status);
	if (rc != TUNER_OK)
		return rc;
	for (i = 0; i < n; i++)
		alpha[i] = y[i] - mean;
	linalg_cholesky_solve(k, n, alpha);
	for (i = 0; i < n; i++)
		quad += (y[i] - mean) * alpha[i];
	*value =
		-0.5 * quad - 0.5 * linalg_cholesky_logdet(k, n) - 0.5 * n * LOG_2PI;
	return TUNER_OK;
}

/* r^2 of every pair i > j of x (n x d) at inverse lengthscales inv_ls. */
static void
pair_r2(const double *x, int n, int d, const double *inv_ls,
		const int *categories, double *r2)
{
	size_t pair = 0;
	int i, j;

	for (j = 0; j < n; j++)
		for (i = j + 1; i < n; i++, pair++)
			r2[pair] = matern52_r2_metric(x + (size_t)i * d, x + (size_t)j * d,
										  inv_ls, categories, d);
}

/* A fit's log likelihood, through log_likelihood. */
static TunerErrorCode
model_log_likelihood(const GpModel *model, const double *x, const double *y,
					 const int *categories, double *inv_ls, double *r2,
					 double *kmat, double *work, double *alpha, double *value,
					 TunerStatus *status)
{
	int k;

	for (k = 0; k < model->d; k++)
		inv_ls[k] = 1.0 / model->lengthscales[k];
	pair_r2(x, model->n, model->d, inv_ls, categories, r2);
	return log_likelihood(r2, y, model->n, model->outputscale, model->noise,
						  model->mean, kmat, work, alpha, value, status);
}

/* Fit and measure; see relevance.h. */
TunerErrorCode
gp_relevance(const double *x, const double *y, int n, int d,
			 const RelevanceOptions *options, double *lengthscale,
			 double *evidence, TunerStatus *status)
{
	const int *cats = options->categories;
	double *xv = NULL; /* the m varying columns, scaled */
	double *xs = NULL; /* the same without one column */
	double *yn = NULL;
	double *r2 = NULL;
	double *r2k = NULL;
	double *kmat = NULL;
	double *work = NULL;
	double *alpha = NULL;
	double *inv_ls = NULL;
	double *inv_s = NULL; /* the reduced fit's */
	double *warm = NULL;
	int *col = NULL;  /* the original column of each varying one */
	int *catv = NULL; /* their metric */
	int *cats_s = NULL;
	size_t n_pairs;
	GpFitOptions fo;
	GpModel *model = NULL;
	double y_mean = 0.0;
	double y_sd = 0.0;
	double full;
	size_t pair;
	size_t c;
	int m = 0;
	int i, j, k;
	TunerErrorCode rc = TUNER_OK;

	if (n < 2 || d < 1)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "the GP relevance needs at least two points and "
						  "one dimension");
	for (c = 0; c < (size_t)n * d; c++)
		if (!isfinite(x[c]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "x contains NaN or infinity");
	for (i = 0; i < n; i++)
		if (!isfinite(y[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "y contains NaN or infinity");
	if (!isfinite(options->threshold))
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "the evidence threshold must be finite");

	n_pairs = (size_t)n * (n - 1) / 2;
	xv = tuner_alloc(sizeof(double) * n * d);
	xs = tuner_alloc(sizeof(double) * n * d);
	yn = tuner_alloc(sizeof(double) * n);
	r2 = tuner_alloc(sizeof(double) * n_pairs);
	r2k = tuner_alloc(sizeof(double) * n_pairs);
	kmat = tuner_alloc(sizeof(double) * n * n);
	work = tuner_alloc(sizeof(double) * n * n);
	alpha = tuner_alloc(sizeof(double) * n);
	inv_ls = tuner_alloc(sizeof(double) * d);
	inv_s = tuner_alloc(sizeof(double) * d);
	warm = tuner_alloc(sizeof(double) * d);
	col = tuner_alloc(sizeof(int) * d);
	catv = tuner_alloc(sizeof(int) * d);
	cats_s = tuner_alloc(sizeof(int) * d);
	if (!xv || !xs || !yn || !r2 || !r2k || !kmat || !work || !alpha ||
		!inv_ls || !inv_s || !warm || !col || !catv || !cats_s)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory measuring the relevance of %d "
						"parameters over %d trials",
						d, n);
		goto done;
	}

	/* the varying columns; ordered ones scaled to [0, 1] */
	for (k = 0; k < d; k++)
	{
		double mn = x[k], mx = x[k];
		int varies = 0;

		lengthscale[k] = NAN;
		evidence[k] =
			options->measure == NULL || options->measure[k] ? 0.0 : NAN;
		for (i = 1; i < n; i++)
		{
			mn = fmin(mn, x[(size_t)i * d + k]);
			mx = fmax(mx, x[(size_t)i * d + k]);
		}
		if (cats != NULL && cats[k] > 0)
		{
			if (mn < 0.0 || mx > 1.0)
			{
				rc = tuner_fail(status, TUNER_ERR_INVALID,
								"categorical column %d is not on the unit "
								"interval",
								k + 1);
				goto done;
			}
			for (i = 1; i < n && !varies; i++)
				varies = matern_differ(x[k], x[(size_t)i * d + k], cats[k]);
		}
		else
			varies = mx > mn;
		if (!varies)
			continue;
		col[m] = k;
		catv[m] = cats != NULL ? cats[k] : 0;
		m++;
	}
	for (j = 0; j < m; j++)
	{
		double mn = x[col[j]], mx = x[col[j]];

		for (i = 1; i < n; i++)
		{
			mn = fmin(mn, x[(size_t)i * d + col[j]]);
			mx = fmax(mx, x[(size_t)i * d + col[j]]);
		}
		for (i = 0; i < n; i++)
		{
			double v = x[(size_t)i * d + col[j]];

			xv[(size_t)i * m + j] = catv[j] > 0 ? v : (v - mn) / (mx - mn);
		}
	}

	/* y standardised (sd with ddof 1) */
	for (i = 0; i < n; i++)
		y_mean += y[i] / n;
	for (i = 0; i < n; i++)
		y_sd += (y[i] - y_mean) * (y[i] - y_mean);
	y_sd = sqrt(y_sd / (n - 1));
	if (!(y_sd > 0.0) || !isfinite(y_sd))
	{
		rc = tuner_fail(status, TUNER_ERR_INVALID,
						"y has the same value at every point");
		goto done;
	}
	for (i = 0; i < n; i++)
		yn[i] = (y[i] - y_mean) / y_sd;
	if (m == 0)
		goto done;

	gp_fit_options_init(&fo);
	fo.restarts = options->restarts;
	fo.max_evals = options->max_evals;
	fo.seed = options->seed;
	fo.categories = catv;
	rc = gp_fit_standardized(xv, yn, n, m, &fo, &model, status);
	if (rc != TUNER_OK)
		goto done;
	for (j = 0; j < m; j++)
		lengthscale[col[j]] = model->lengthscales[j];
	rc = model_log_likelihood(model, xv, yn, catv, inv_ls, r2, kmat, work,
							  alpha, &full, status);
	if (rc != TUNER_OK)
		goto done;

	for (j = 0; j < m; j++)
	{
		double bound;
		double without;
		GpModel *reduced = NULL;
		int ms = m > 1 ? m - 1 : 1;
		int r, t;

		if (options->measure != NULL && !options->measure[col[j]])
			continue;
		rc = tuner_check_interrupt(status);
		if (rc != TUNER_OK)
			goto done;

		/* the bound: the full fit without j's term */
		for (r = 0, pair = 0; r < n; r++)
			for (i = r + 1; i < n; i++, pair++)
			{
				double a = xv[(size_t)i * m + j] - xv[(size_t)r * m + j];
				double sq =
					catv[j] > 0
						? (matern_differ(xv[(size_t)i * m + j],
										 xv[(size_t)r * m + j], catv[j])
							   ? 1.0
							   : 0.0)
						: a * a;
				double v = r2[pair] - sq * inv_ls[j] * inv_ls[j];

				r2k[pair] = v > 0.0 ? v : 0.0;
			}
		rc = log_likelihood(r2k, yn, n, model->outputscale, model->noise,
							model->mean, kmat, work, alpha, &without, status);
		if (rc != TUNER_OK)
			goto done;
		bound = full - without;
		if (bound < options->threshold)
		{
			evidence[col[j]] = bound > 0.0 ? bound : 0.0;
			continue;
		}

		/*
		 * The profile: refit without j, warm-started from the full fit.
		 * Without any other column, one column of zeros stands for none
		 * (K = s + noise I, a constant with correlated noise).
		 */
		for (i = 0; i < n; i++)
			for (r = 0, t = 0; r < m; r++)
				if (r != j)
					xs[(size_t)i * ms + t++] = xv[(size_t)i * m + r];
		for (r = 0, t = 0; r < m; r++)
			if (r != j)
			{
				cats_s[t] = catv[r];
				warm[t++] = model->lengthscales[r];
			}
		if (m == 1)
		{
			for (i = 0; i < n; i++)
				xs[i] = 0.0;
			cats_s[0] = 0;
			warm[0] = 1.0;
		}
		fo.categories = cats_s;
		fo.warm_lengthscales = warm;
		fo.warm_outputscale = model->outputscale;
		fo.warm_noise = model->noise;
		fo.warm_mean = model->mean;
		rc = gp_fit_standardized(xs, yn, n, ms, &fo, &reduced, status);
		if (rc == TUNER_OK)
			rc = model_log_likelihood(reduced, xs, yn, cats_s, inv_s, r2k,
									  kmat, work, alpha, &without, status);
		gp_model_free(reduced);
		if (rc != TUNER_OK)
			goto done;
		/* the profile drop, at most the bound (the prior's pull aside) */
		without = fmin(full - without, bound);
		evidence[col[j]] = without > 0.0 ? without : 0.0;
	}

done:
	gp_model_free(model);
	tuner_free(xv);
	tuner_free(xs);
	tuner_free(yn);
	tuner_free(r2);
	tuner_free(r2k);
	tuner_free(kmat);
	tuner_free(work);
	tuner_free(alpha);
	tuner_free(inv_ls);
	tuner_free(inv_s);
	tuner_free(warm);
	tuner_free(col);
	tuner_free(catv);
	tuner_free(cats_s);
	return rc;
}

/* One parameter's sort key in rank_by_evidence. */
typedef struct RankKey
{
	int tier;       /* 0 Lasso evidence, 1 GP evidence, 2 none */
	double score;   /* larger first (0 in tier 2) */
	int entered_at; /* 1-based, 0 never: earlier first, never last */
	int position;   /* 0-based */
} RankKey;

static int
rank_key_cmp(const void *a, const void *b)
{
	const RankKey *ka = a;
	const RankKey *kb = b;

	if (ka->tier != kb->tier)
		return ka->tier < kb->tier ? -1 : 1;
	if (ka->score != kb->score)
		return ka->score > kb->score ? -1 : 1;
	if (ka->entered_at != kb->entered_at)
	{
		if (ka->entered_at == 0)
			return 1;
		if (kb->entered_at == 0)
			return -1;
		return ka->entered_at < kb->entered_at ? -1 : 1;
	}
	return ka->position < kb->position ? -1
									   : (ka->position > kb->position ? 1 : 0);
}

/* The ranking policy; see relevance.h. */
TunerErrorCode
rank_by_evidence(int p, const double *importance, const int *entered_at,
				 const double *gp_evidence, double threshold, int *rank,
				 int *signal, TunerStatus *status)
{
	RankKey *keys;
	int k;

	if (p < 0)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "the number of parameters is negative");
	if (!isfinite(threshold))
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "the evidence threshold must be finite");
	if (p == 0)
		return TUNER_OK;
	for (k = 0; k < p; k++)
	{
		if (!(importance[k] >= 0.0) || !isfinite(importance[k]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "importance %d must be finite and not negative",
							  k + 1);
		if (entered_at[k] < 0)
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "entered_at %d is negative", k + 1);
		if (gp_evidence != NULL && isinf(gp_evidence[k]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "GP evidence %d is infinite", k + 1);
	}
	keys = tuner_alloc(sizeof(RankKey) * p);
	if (keys == NULL)
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory ranking %d parameters", p);
	for (k = 0; k < p; k++)
	{
		keys[k].position = k;
		keys[k].entered_at = entered_at[k];
		if (importance[k] > 0.0)
		{
			keys[k].tier = 0;
			keys[k].score = importance[k];
		}
		else if (gp_evidence != NULL && !isnan(gp_evidence[k]) &&
				 gp_evidence[k] >= threshold)
		{
			keys[k].tier = 1;
			keys[k].score = gp_evidence[k];
		}
		else
		{
			keys[k].tier = 2;
			keys[k].score = 0.0;
		}
	}
	qsort(keys, p, sizeof(RankKey), rank_key_cmp);
	for (k = 0; k < p; k++)
	{
		int at = keys[k].position;

		rank[at] = k + 1;
		signal[at] = keys[k].tier == 0   ? RANK_SIGNAL_LASSO
					 : keys[k].tier == 1 ? RANK_SIGNAL_GP
										 : RANK_SIGNAL_NONE;
	}
	tuner_free(keys);
	return TUNER_OK;
}
