/*
 * feasibility.c
 *	  The feasibility terms of constrained EI (see feasibility.h): one GP
 *	  per outcome (failures, each outcome constraint), fitted like the
 *	  objective's, and log P(feasible) = sum of log Phi((bound - mu) / sd)
 *	  with its gradient for the acquisition's L-BFGS.
 */
#include <math.h>
#include <string.h>

#include "feasibility.h"
#include "feasibility_calibration.h"
#include "linalg.h"
#include "log_ei.h"
#include "suggest_internal.h"

/* Posterior sd never goes below this fraction of the prior sd. */
#define MIN_SD_FRACTION 1e-6

/*
 * Shortest lengthscale of the failure model (unit cube).  The marginal
 * likelihood of a 0/1 step is highest with lengthscales about the spacing
 * of the trials: the model then interpolates each failure and reverts to
 * the base rate of failures right next to it, so P(feasible) stays middling
 * all over a failing region and the optimizer keeps probing it between
 * failed trials (seen here on a square whose right half fails: as many
 * failures as when they were only excluded).  Failing regions are regions,
 * not points, so the model is made smoother than that.
 */
#define FAILURE_MIN_LENGTHSCALE 0.2

/*
 * Smallest noise variance of the failure model (standardised outcome).
 * Without noise the smoother interpolant of a 0/1 step overshoots: below 0
 * between failed trials a little apart, where it then promised P(feasible)
 * near 1 in the middle of a failing region.  Noise makes it a smoothed
 * failure rate instead.
 */
#define FAILURE_MIN_NOISE 0.1

/*
 * Prior sd of each slope of the failure model's linear trend (standardised
 * outcome per unit of the cube).  Failed and running trials differ by at
 * least 2 in standardised units, so 2 lets the trend go from running to
 * failing across the cube and no further unless the data insist.
 */
#define FAILURE_TREND_PRIOR_SD 2.0

/*
 * The failure model starts from its previous fit (SuggestInput's
 * warm_feasibility_*) only from this many trials (ran and failed) on;
 * below, it is fitted from three cold starts whatever the input says.
 * The likelihood of a few 0/1 outcomes has several modes close in value,
 * and a refinement stays in the one it starts from: on sql/constraints'
 * two failing regions (19 trials) the warm fits kept a long lengthscale
 * across one region that the cold fits had dropped, and P(feasible) in
 * it rose from 0.05 to 0.35.  Small fits cost little (40 trials: under a
 * millisecond); from a hundred trials on the cold fit was 10 of a
 * suggestion's 22 ms (bench/latency/suggest_core.c, n = 100, d = 10, 10
 * failed).
 */
#define FAILURE_WARM_MIN_N 50

/*
 * From FAILURE_WARM_MIN_N trials on, the failure model's hyperparameters
 * are refined at every this many-th trial and kept in between.  A
 * refinement costs about as much as the rest of the failure model's share
 * of a suggestion (n = 100, d = 10: 52 and 44 million instructions,
 * bench/latency/instructions.sh), so how often it runs sets most of
 * what failed trials add to a suggestion's latency.
 */
#define FAILURE_REFINE_EVERY 8

/*
 * Below FEASIBILITY_THRESHOLD (feasibility.h) each unit of the
 * acquisition's log P(feasible) costs 1 + BELOW_THRESHOLD_PENALTY.  10 and
 * 20 gave the same trials on bench/constraints' failing problems.
 */
#define BELOW_THRESHOLD_PENALTY 20.0

/* Does observed trial i meet every outcome constraint; see feasibility.h. */
int
feasibility_trial_ok(const SuggestInput *in, int i)
{
	int k;

	for (k = 0; k < in->n_constraints; k++)
	{
		double v = in->y_constraint[(size_t)i * in->n_constraints + k];

		if (isnan(v) || !(v <= in->constraint_bound[k]))
			return 0;
	}
	return 1;
}

/* The term's trend at u (0 without one), and its gradient added to grad. */
static double
trend_at(const FeasibilityTerm *term, int d, const double *u, double *grad)
{
	double v = term->trend_intercept;
	int k;

	if (term->trend_slopes == NULL)
		return 0.0;
	for (k = 0; k < d; k++)
	{
		v += term->trend_slopes[k] * (u[k] - 0.5);
		if (grad != NULL)
			grad[k] += term->trend_slopes[k];
	}
	return v;
}

/*
 * Fit the trend a + b.(u - 1/2) to ys (n points x in d dimensions) by ridge
 * regression (the posterior mean under a N(0, FAILURE_TREND_PRIOR_SD^2)
 * prior on each slope, unit noise, a flat one on a), and subtract it from
 * ys.  Why a trend: systems fail past a threshold of a resource (memory
 * for buffers, a queue depth, a minimum), so failing regions reach the
 * edges of the box.  The GP alone reverts to the base rate away from its
 * failed trials, which makes the unexplored corners, where the objective
 * is most uncertain, look feasible enough to try one after the other; the
 * trend carries a failure towards the box's edge beyond it.  Categorical
 * dimensions get no slope: their order means nothing.
 */
static TunerErrorCode
fit_trend(const double *x, double *ys, int n, int d, const int *categories,
		  FeasibilityTerm *term, TunerStatus *status)
{
	int p = d + 1, i, j, k;
	double *a = tuner_alloc_zero(sizeof(double) * p * p);
	double *work = tuner_alloc(sizeof(double) * p * p);
	double *b = tuner_alloc_zero(sizeof(double) * p);
	double *z = tuner_alloc(sizeof(double) * p);
	double jitter = 0.0;
	TunerErrorCode rc = TUNER_OK;

	term->trend_slopes = tuner_alloc_zero(sizeof(double) * d);
	if (!a || !work || !b || !z || !term->trend_slopes)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory fitting a feasibility trend");
		goto done;
	}
	for (i = 0; i < n; i++)
	{
		z[0] = 1.0;
		for (k = 0; k < d; k++)
			z[k + 1] = categories != NULL && categories[k] > 0
						   ? 0.0
						   : x[(size_t)i * d + k] - 0.5;
		for (j = 0; j < p; j++)
		{
			b[j] += z[j] * ys[i];
			for (k = 0; k < p; k++)
				a[j * p + k] += z[j] * z[k];
		}
	}
	for (k = 1; k < p; k++)
		a[k * p + k] +=
			1.0 / (FAILURE_TREND_PRIOR_SD * FAILURE_TREND_PRIOR_SD);
	rc = linalg_cholesky(a, p, work, &jitter, status);
	if (rc != TUNER_OK)
		goto done;
	linalg_cholesky_solve(a, p, b);
	term->trend_intercept = b[0];
	for (k = 0; k < d; k++)
		term->trend_slopes[k] = b[k + 1];
	for (i = 0; i < n; i++)
		ys[i] -= trend_at(term, d, x + (size_t)i * d, NULL);
done:
	tuner_free(a);
	tuner_free(work);
	tuner_free(b);
	tuner_free(z);
	return rc;
}

/* Trend basis function dim at u: 1 for the intercept (-1), else u_dim - 1/2. */
static double
basis_value(int dim, const double *u)
{
	return dim < 0 ? 1.0 : u[dim] - 0.5;
}

/*
 * With the GP's covariance K (noise included) fitted to what the ridge
 * trend left, estimate the trend again with K as the noise of the
 * regression: beta = M^-1 H K^-1 ys, M = H K^-1 H^T + the prior's
 * precision, where H holds the basis functions at the trials.  The GP then
 * models ys - H^T beta with mean 0 (the intercept, flat prior, stands in
 * for the GP's constant mean), and M's Cholesky factor and K^-1 H^T are
 * kept for the trend's share of the prediction's variance
 * (trend_variance).  Without that share a handful of failed trials in six
 * dimensions gave slopes along dimensions that had nothing to do with
 * failing, and P(feasible) 0.91-0.997 at six configurations that all
 * failed (bench/README section 9, hartmann6-fail seed 7).
 */
static TunerErrorCode
refine_trend(const double *ys, const int *categories, FeasibilityTerm *term,
			 TunerStatus *status)
{
	GpModel *model = term->model;
	int n = model->n, d = model->d, p = 1, i, j, l, k;
	double *h, *col, *m, *work;
	double jitter = 0.0;
	TunerErrorCode rc = TUNER_OK;

	for (k = 0; k < d; k++)
		p += !(categories != NULL && categories[k] > 0);
	term->basis_dim = tuner_alloc(sizeof(int) * p);
	term->basis_weights = tuner_alloc(sizeof(double) * (size_t)n * p);
	term->trend_chol = tuner_alloc(sizeof(double) * p * p);
	h = tuner_alloc(sizeof(double) * (size_t)n * p);
	col = tuner_alloc(sizeof(double) * (n > p ? n : p));
	work = tuner_alloc(sizeof(double) * p * p);
	if (!term->basis_dim || !term->basis_weights || !term->trend_chol || !h ||
		!col || !work)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory fitting a feasibility trend");
		goto done;
	}
	term->basis_dim[0] = -1;
	for (k = 0, j = 1; k < d; k++)
		if (!(categories != NULL && categories[k] > 0))
			term->basis_dim[j++] = k;
	for (i = 0; i < n; i++)
		for (j = 0; j < p; j++)
			h[(size_t)i * p + j] =
				basis_value(term->basis_dim[j], model->x + (size_t)i * d);
	for (j = 0; j < p; j++)
	{
		for (i = 0; i < n; i++)
			col[i] = h[(size_t)i * p + j];
		linalg_cholesky_solve(model->chol, n, col);
		for (i = 0; i < n; i++)
			term->basis_weights[(size_t)i * p + j] = col[i];
	}
	m = term->trend_chol;
	for (j = 0; j < p; j++)
		for (l = 0; l <= j; l++)
		{
			double v = 0.0;

			for (i = 0; i < n; i++)
				v += h[(size_t)i * p + j] *
					 term->basis_weights[(size_t)i * p + l];
			m[j * p + l] = m[l * p + j] = v;
		}
	for (j = 1; j < p; j++)
		m[j * p + j] +=
			1.0 / (FAILURE_TREND_PRIOR_SD * FAILURE_TREND_PRIOR_SD);
	rc = linalg_cholesky(m, p, work, &jitter, status);
	if (rc != TUNER_OK)
		goto done;

	memcpy(col, ys, sizeof(double) * n);
	linalg_cholesky_solve(model->chol, n, col);
	for (j = 0; j < p; j++)
	{
		double v = 0.0;

		for (i = 0; i < n; i++)
			v += h[(size_t)i * p + j] * col[i];
		work[j] = v;
	}
	linalg_cholesky_solve(m, p, work);
	term->trend_intercept = work[0];
	memset(term->trend_slopes, 0, sizeof(double) * d);
	for (j = 1; j < p; j++)
		term->trend_slopes[term->basis_dim[j]] = work[j];
	for (i = 0; i < n; i++)
		model->y[i] =
			ys[i] - trend_at(term, d, model->x + (size_t)i * d, NULL);
	model->mean = 0.0;
	term->n_basis = p;
	rc = gp_prepare(model, status);
done:
	tuner_free(h);
	tuner_free(col);
	tuner_free(work);
	return rc;
}

/*
 * The first half of trend_variance: r = k(u)^T K^-1 H^T from u's kernel
 * row (kvec: gp_kernel_row) into scratch as trend_variance lays it out.
 */
static void
trend_weights(const FeasibilityTerm *term, const double *u, const double *kvec,
			  double *scratch)
{
	int n = term->model->n, p = term->n_basis;

	gp_kernel_weights_from_row(term->model, u, kvec, NULL, term->basis_weights,
							   p, scratch + 2 * n, NULL);
}

/*
 * The second half of trend_variance, after trend_weights; radial is u's
 * kernel row's (gp_kernel_row), read only with dvar.  The gradient of
 * r^T M^-1 r is 2 w^T dr with w = M^-1 r, and dr = dh - (K^-1 H^T)^T dk:
 * its second part is taken as (K^-1 H^T w)^T dk, one kernel gradient
 * (gp_kernel_row_gradient) instead of one per basis function.
 */
static double
trend_variance_finish(const FeasibilityTerm *term, const double *u,
					  const double *radial, double *dvar, double *scratch)
{
	int n = term->model->n, d = term->model->d, p = term->n_basis, i, j, k;
	double *r = scratch + 2 * n;
	double *w = r + p;
	double *c = w + p;
	double *g = c + n;
	double v = 0.0;

	for (j = 0; j < p; j++)
	{
		r[j] = basis_value(term->basis_dim[j], u) - r[j];
		w[j] = r[j];
	}
	linalg_cholesky_solve(term->trend_chol, p, w);
	for (j = 0; j < p; j++)
		v += r[j] * w[j];
	if (dvar == NULL)
		return v;
	for (i = 0; i < n; i++)
	{
		const double *ai = term->basis_weights + (size_t)i * p;

		c[i] = 0.0;
		for (j = 0; j < p; j++)
			c[i] += ai[j] * w[j];
	}
	gp_kernel_row_gradient(term->model, u, radial, c, g);
	for (k = 0; k < d; k++)
		dvar[k] -= 2.0 * g[k];
	for (j = 0; j < p; j++)
		if (term->basis_dim[j] >= 0)
			dvar[term->basis_dim[j]] += 2.0 * w[j];
	return v;
}

/*
 * The trend's share of the prediction's variance at u: r^T M^-1 r with r =
 * h(u) - H K^-1 k(u), the basis functions at u less what the trials
 * already pin down of them (0 at a trial without noise, h(u) far from
 * every trial).  When dvar is not NULL the share's gradient is added to
 * it.  scratch holds trend_scratch doubles.
 */
static double
trend_variance(const FeasibilityTerm *term, const double *u, double *dvar,
			   double *scratch)
{
	int n = term->model->n;

	if (term->n_basis == 0)
		return 0.0;
	gp_kernel_row(term->model, u, scratch, dvar != NULL ? scratch + n : NULL);
	trend_weights(term, u, scratch, scratch);
	return trend_variance_finish(term, u, scratch + n, dvar, scratch);
}

/* Doubles of scratch trend_variance needs for term. */
static int
trend_scratch(const FeasibilityTerm *term, int d)
{
	return term->n_basis > 0 ? 3 * term->model->n + 2 * term->n_basis + d : 0;
}

/*
 * Calibrate the failure term's probability on its leave-one-out
 * predictions (feasibility_calibration.h).  ys is the standardised
 * outcome, y the raw one (above bound: failed).  When a step fails
 * numerically the term stays uncalibrated: its probability is still a
 * usable ranking.
 */
static void
calibrate(const double *ys, const double *y, int n, double bound,
		  FeasibilityTerm *term)
{
	double *mu = tuner_alloc(sizeof(double) * n);
	double *var = tuner_alloc(sizeof(double) * n);
	int *failed = tuner_alloc(sizeof(int) * n);
	TunerStatus status;
	int i;

	term->calibrated = 0;
	if (mu != NULL && var != NULL && failed != NULL &&
		feasibility_loo(term, ys, mu, var, &status) == TUNER_OK)
	{
		for (i = 0; i < n; i++)
			failed[i] = y[i] > bound;
		if (probit_calibration_fit(
				mu, var, failed, n, term->bound, &term->calibration_threshold,
				&term->calibration_spread, &status) == TUNER_OK)
			term->calibrated = 1;
	}
	tuner_free(mu);
	tuner_free(var);
	tuner_free(failed);
}

/*
 * The threshold and the variance added to the posterior's in the term's
 * z = (threshold - mu) / sqrt(var + extra).
 */
static void
term_threshold(const FeasibilityTerm *term, double *threshold, double *extra)
{
	if (term->calibrated)
	{
		*threshold = term->calibration_threshold;
		*extra = term->calibration_spread * term->calibration_spread +
				 term->model->noise + term->model->jitter;
	}
	else
	{
		*threshold = term->bound;
		*extra = 0.0;
	}
}

/* Is in's warm start of the failure model complete and valid? */
int
feasibility_warm_usable(const SuggestInput *in)
{
	int k;

	if (in->warm_feasibility_lengthscales == NULL ||
		!(in->warm_feasibility_outputscale > 0.0) ||
		!isfinite(in->warm_feasibility_outputscale) ||
		!(in->warm_feasibility_noise > 0.0) ||
		!isfinite(in->warm_feasibility_noise) ||
		!isfinite(in->warm_feasibility_mean))
		return 0;
	for (k = 0; k < in->d; k++)
		if (!(in->warm_feasibility_lengthscales[k] > 0.0) ||
			!isfinite(in->warm_feasibility_lengthscales[k]))
			return 0;
	return 1;
}

/*
 * Fit one term on the n unit points x with outcome y (raw units), holding
 * where y <= bound.  Standardised like the objective; with_trend fits a
 * linear trend first (fit_trend).
 */
static TunerErrorCode
fit_term_parts(const SuggestInput *in, const double *x, const double *y, int n,
			   double bound, uint64_t seed, const int *categories,
			   double min_lengthscale, double min_noise, int with_trend,
			   FeasibilityTerm *term, TunerStatus *status)
{
	double *ys = tuner_alloc(sizeof(double) * (n > 0 ? n : 1));
	GpFitOptions options;
	TunerErrorCode rc;
	int i;

	if (ys == NULL)
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory fitting a feasibility model");
	suggest_metric_scale(y, n, 1, &term->y_mean, &term->y_sd);
	if (!(term->y_sd > 0.0) || !isfinite(term->y_sd))
		term->y_sd = 1.0;
	for (i = 0; i < n; i++)
		ys[i] = (y[i] - term->y_mean) / term->y_sd;
	if (with_trend)
	{
		rc = fit_trend(x, ys, n, in->d, categories, term, status);
		if (rc != TUNER_OK)
		{
			tuner_free(ys);
			return rc;
		}
	}
	term->bound = (bound - term->y_mean) / term->y_sd;
	gp_fit_options_init(&options);
	options.seed = seed;
	options.categories = categories;
	options.legacy_priors = !in->canonical;
	if (with_trend && n >= FAILURE_WARM_MIN_N && feasibility_warm_usable(in))
	{
		/*
		 * From the failure model's previous fit (tuner.suggestion
		 * .warm_feasibility_model): every FAILURE_REFINE_EVERY-th trial
		 * refine it and search from one other start, rotating as the
		 * objective's GP does (suggest_gp.c); in between keep its
		 * hyperparameters for the new data (gp_fit_standardized: one
		 * evaluation keeps them).  The posterior holds every trial, a
		 * failure since included, at once; only its lengthscales wait for
		 * the next refinement.  A new failure does not call for cold
		 * starts: at 10% failures those were a tenth of the steps, each
		 * costing about two steps (n = 100, d = 10).
		 */
		options.warm_lengthscales = in->warm_feasibility_lengthscales;
		options.warm_outputscale = in->warm_feasibility_outputscale;
		options.warm_noise = in->warm_feasibility_noise;
		options.warm_mean = in->warm_feasibility_mean;
		options.restarts = (n % FAILURE_REFINE_EVERY == 0) ? 2 : 1;
		if (n % FAILURE_REFINE_EVERY != 0 && in->canonical)
			options.max_evals = 1;
		options.first_alternate = (n / FAILURE_REFINE_EVERY) % 3;
		term->warm_started = 1;
	}
	if (min_noise > options.min_noise)
		options.min_noise = min_noise;
	rc = gp_fit_standardized(x, ys, n, in->d, &options, &term->model, status);
	if (rc == TUNER_OK && min_lengthscale > 0.0)
	{
		int k, raised = 0;

		for (k = 0; k < in->d; k++)
			if (term->model->lengthscales[k] < min_lengthscale)
			{
				term->model->lengthscales[k] = min_lengthscale;
				raised = 1;
			}
		if (raised)
			rc = gp_prepare(term->model, status);
	}
	if (rc == TUNER_OK && with_trend)
	{
		/* the outcome before the ridge trend was taken out */
		for (i = 0; i < n; i++)
			ys[i] += trend_at(term, in->d, x + (size_t)i * in->d, NULL);
		rc = refine_trend(ys, categories, term, status);
		if (rc == TUNER_OK)
			calibrate(ys, y, n, bound, term);
	}
	tuner_free(ys);
	if (rc != TUNER_OK)
		return rc;
	gp_posterior(term->model, &term->post);
	return TUNER_OK;
}

/* Free what a term holds and leave it empty. */
static void
term_free(FeasibilityTerm *term)
{
	gp_model_free(term->model);
	term->model = NULL;
	tuner_free(term->trend_slopes);
	term->trend_slopes = NULL;
	tuner_free(term->basis_dim);
	term->basis_dim = NULL;
	tuner_free(term->basis_weights);
	term->basis_weights = NULL;
	tuner_free(term->trend_chol);
	term->trend_chol = NULL;
	term->n_basis = 0;
}

/* fit_term_parts, leaving nothing allocated in term when it fails */
static TunerErrorCode
fit_term(const SuggestInput *in, const double *x, const double *y, int n,
		 double bound, uint64_t seed, const int *categories,
		 double min_lengthscale, double min_noise, int with_trend,
		 FeasibilityTerm *term, TunerStatus *status)
{
	TunerErrorCode rc =
		fit_term_parts(in, x, y, n, bound, seed, categories, min_lengthscale,
					   min_noise, with_trend, term, status);

	if (rc != TUNER_OK)
		term_free(term);
	return rc;
}

/* log Phi((bound - mu) / sd) of one term, and its gradient into grad. */
static double
term_log_prob(const FeasibilityTerm *term, const double *u, double *grad,
			  double *scratch)
{
	const Posterior *post = &term->post;
	int d = post->d;
	double *dmu = scratch + post->n_scratch;
	double *dvar = dmu + d;
	double sd_min = MIN_SD_FRACTION * sqrt(post->prior_var);
	double mu, var, sd, z, threshold, extra;
	int k;

	term_threshold(term, &threshold, &extra);
	/*
	 * The posterior (post is term->model's, gp_posterior) and the trend's
	 * variance share u's kernel row: the trend's weights are taken from it
	 * before the posterior turns it into K^-1 k.  The same values as
	 * post->point followed by trend_variance, at half the exps.
	 */
	gp_kernel_row(term->model, u, scratch,
				  grad != NULL ? scratch + term->model->n : NULL);
	if (term->n_basis > 0)
		trend_weights(term, u, scratch, dvar + d);
	gp_point_from_row(term->model, u, scratch, scratch + term->model->n, &mu,
					  &var, grad != NULL ? dmu : NULL, dvar);
	mu += trend_at(term, d, u, grad != NULL ? dmu : NULL);
	if (term->n_basis > 0)
		var += trend_variance_finish(term, u, scratch + term->model->n,
									 grad != NULL ? dvar : NULL, dvar + d);
	var += extra;
	sd = var > sd_min * sd_min ? sqrt(var) : sd_min;
	z = (threshold - mu) / sd;
	if (grad != NULL)
	{
		double r = dlog_normal_cdf(z);
		int floored = !(var > sd_min * sd_min);

		for (k = 0; k < d; k++)
		{
			double dsd = floored ? 0.0 : dvar[k] / (2.0 * sd);

			grad[k] = r * (-dmu[k] - z * dsd) / sd;
		}
	}
	return log_normal_cdf(z);
}

/* log P(feasible) at u; see feasibility.h. */
double
feasibility_log_prob(const FeasibilityModel *model, const double *u,
					 double *grad, double *scratch)
{
	double *tgrad = scratch;
	double *tscratch = scratch + model->d;
	double total = 0.0;
	int t, k;

	if (grad != NULL)
		memset(grad, 0, sizeof(double) * model->d);
	for (t = 0; t < model->n_terms; t++)
	{
		total += term_log_prob(&model->terms[t], u,
							   grad != NULL ? tgrad : NULL, tscratch);
		if (grad != NULL)
			for (k = 0; k < model->d; k++)
				grad[k] += tgrad[k];
	}
	return total;
}

/*
 * The acquisition's feasibility term: log P(feasible), less a steep
 * penalty below FEASIBILITY_THRESHOLD.  EI x P(feasible) alone is largest
 * just across the edge of a failing region when the objective improves
 * towards it (Branin's optimum beyond the edge u2 = 0.75 drew trial after
 * trial to P(feasible) 0.3-0.45 there).  The penalty keeps the model's
 * trials where a configuration is predicted to run; as a penalty rather
 * than a cut, the most probable point still wins where no point reaches
 * the threshold.
 */
static double
penalised(double log_p, double *grad, int d)
{
	double excess = log_p - log(FEASIBILITY_THRESHOLD);
	int k;

	if (excess >= 0.0)
		return log_p;
	if (grad != NULL)
		for (k = 0; k < d; k++)
			grad[k] *= 1.0 + BELOW_THRESHOLD_PENALTY;
	return log_p + BELOW_THRESHOLD_PENALTY * excess;
}

static double
hook_point(const void *state, const double *u, double *grad, double *scratch)
{
	const FeasibilityModel *model = state;

	return penalised(feasibility_log_prob(model, u, grad, scratch), grad,
					 model->d);
}

/* log P(feasible) at m points, one batch prediction per term. */
static TunerErrorCode
hook_batch(const void *state, const double *u, int m, double *log_p,
		   TunerStatus *status)
{
	const FeasibilityModel *model = state;
	double *mean = tuner_alloc(sizeof(double) * (m > 0 ? m : 1));
	double *sd = tuner_alloc(sizeof(double) * (m > 0 ? m : 1));
	/* hook.n_scratch covers every term's trend_variance */
	double *scratch = tuner_alloc(sizeof(double) * model->hook.n_scratch);
	/* the trend's weights of every point, for a warm-started term */
	double *weights = NULL;
	int shared_p = 0;
	TunerErrorCode rc = TUNER_OK;
	int t, j;

	for (t = 0; t < model->n_terms; t++)
		if (model->terms[t].warm_started && model->terms[t].n_basis > shared_p)
			shared_p = model->terms[t].n_basis;
	if (shared_p > 0)
		weights =
			tuner_alloc(sizeof(double) * (size_t)(m > 0 ? m : 1) * shared_p);
	if (mean == NULL || sd == NULL || scratch == NULL ||
		(shared_p > 0 && weights == NULL))
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory scoring feasibility");
		goto done;
	}
	for (j = 0; j < m; j++)
		log_p[j] = 0.0;
	for (t = 0; t < model->n_terms; t++)
	{
		const FeasibilityTerm *term = &model->terms[t];
		double sd_min = MIN_SD_FRACTION * sqrt(term->post.prior_var);
		double threshold, extra;

		int shared = term->warm_started && term->n_basis > 0;

		term_threshold(term, &threshold, &extra);
		rc = gp_predict_weights(term->model, u, m,
								shared ? term->basis_weights : NULL,
								term->n_basis, weights, mean, sd, status);
		if (rc != TUNER_OK)
			goto done;
		for (j = 0; j < m; j++)
		{
			const double *uj = u + (size_t)j * model->d;
			double trend_var;
			double var, s;

			if (shared)
			{
				/* trend_variance with the weights from the prediction */
				memcpy(scratch + 2 * term->model->n,
					   weights + (size_t)j * term->n_basis,
					   sizeof(double) * term->n_basis);
				trend_var =
					trend_variance_finish(term, uj, NULL, NULL, scratch);
			}
			else
				trend_var = trend_variance(term, uj, NULL, scratch);
			var = sd[j] * sd[j] + trend_var + extra;
			s = sqrt(var);

			log_p[j] += log_normal_cdf(
				(threshold - mean[j] - trend_at(term, model->d, uj, NULL)) /
				(s > sd_min ? s : sd_min));
		}
	}
	for (j = 0; j < m; j++)
		log_p[j] = penalised(log_p[j], NULL, model->d);
done:
	tuner_free(mean);
	tuner_free(sd);
	tuner_free(scratch);
	tuner_free(weights);
	return rc;
}

void
feasibility_free(FeasibilityModel *model)
{
	int t;

	if (model == NULL)
		return;
	for (t = 0; t < model->n_terms; t++)
		term_free(&model->terms[t]);
	tuner_free(model->terms);
	tuner_free(model);
}

/* Fit the failure and constraint terms; see feasibility.h. */
TunerErrorCode
feasibility_fit(const SuggestInput *in, uint64_t seed, FeasibilityModel **out,
				TunerStatus *status)
{
	int d = in->d;
	int n_all = in->n_observed + in->n_failed;
	double *x =
		tuner_alloc(sizeof(double) * (size_t)(n_all > 0 ? n_all : 1) * d);
	double *xs =
		tuner_alloc(sizeof(double) * (size_t)(n_all > 0 ? n_all : 1) * d);
	double *y = tuner_alloc(sizeof(double) * (n_all > 0 ? n_all : 1));
	int *categories = tuner_alloc(sizeof(int) * d);
	const int *cats = NULL;
	FeasibilityModel *model = NULL;
	TunerErrorCode rc = TUNER_OK;
	int i, k, n, scratch = 0;

	*out = NULL;
	model = tuner_alloc_zero(sizeof(FeasibilityModel));
	if (model != NULL)
		model->terms = tuner_alloc_zero(sizeof(FeasibilityTerm) *
										(1 + in->n_constraints));
	if (!x || !xs || !y || !categories || !model || !model->terms)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory fitting a feasibility model");
		goto done;
	}
	model->d = d;
	if (space_kernel_categories(in->params, d, categories) > 0)
		cats = categories;
	for (i = 0; i < in->n_observed; i++)
		space_to_unit(in->params, d, in->x_observed + (size_t)i * d,
					  x + (size_t)i * d);
	for (i = 0; i < in->n_failed; i++)
		space_to_unit(in->params, d, in->x_failed + (size_t)i * d,
					  x + (size_t)(in->n_observed + i) * d);

	/* failures: 1 failed, 0 ran; feasible below one half */
	if (in->n_failed > 0 && in->n_observed > 0)
	{
		FeasibilityTerm *term = &model->terms[model->n_terms];

		for (i = 0; i < n_all; i++)
			y[i] = i < in->n_observed ? 0.0 : 1.0;
		rc =
			fit_term(in, x, y, n_all, 0.5, seed, cats, FAILURE_MIN_LENGTHSCALE,
					 FAILURE_MIN_NOISE, 1, term, status);
		if (rc != TUNER_OK)
			goto done;
		term->source = -1;
		model->n_terms++;
	}
	for (k = 0; k < in->n_constraints; k++)
	{
		FeasibilityTerm *term = &model->terms[model->n_terms];
		double mean, sd;

		if (!suggest_usable_scale(in->y_constraint + k, in->n_observed,
								  in->n_constraints, &mean, &sd))
			continue;
		for (i = 0, n = 0; i < in->n_observed; i++)
		{
			double v = in->y_constraint[(size_t)i * in->n_constraints + k];

			if (isnan(v))
				continue;
			memcpy(xs + (size_t)n * d, x + (size_t)i * d, sizeof(double) * d);
			y[n++] = v;
		}
		rc = fit_term(in, xs, y, n, in->constraint_bound[k], seed + 1 + k,
					  cats, 0.0, 0.0, 0, term, status);
		if (rc != TUNER_OK)
			goto done;
		term->source = k;
		model->n_terms++;
	}
	if (model->n_terms == 0)
		goto done;
	for (i = 0; i < model->n_terms; i++)
	{
		const FeasibilityTerm *term = &model->terms[i];
		int need = term->post.n_scratch + 2 * d + trend_scratch(term, d);

		if (need > scratch)
			scratch = need;
	}
	model->hook.point = hook_point;
	model->hook.batch = hook_batch;
	model->hook.state = model;
	/*
	 * each term's gradient (d), then its posterior's scratch, the mean's
	 * and variance's gradients (2 d) and the trend's scratch
	 */
	model->hook.n_scratch = scratch + d;
	model->hook.without_ei = 0;
	*out = model;
	model = NULL;
done:
	feasibility_free(model);
	tuner_free(x);
	tuner_free(xs);
	tuner_free(y);
	tuner_free(categories);
	return rc;
}

/* log P(holds) of a stored term; see feasibility.h. */
TunerErrorCode
feasibility_term_predict(const double *x, const double *ys, int n, int d,
						 const int *categories,
						 const FeasibilityTermSpec *spec, const double *u,
						 int m, double *log_p, TunerStatus *status)
{
	FeasibilityTerm term;
	double *scratch = NULL;
	TunerErrorCode rc;
	int i;

	memset(&term, 0, sizeof(term));
	term.model = gp_model_create(n, d, status);
	if (term.model == NULL)
		return TUNER_ERR_NOMEM;
	memcpy(term.model->x, x, sizeof(double) * (size_t)n * d);
	memcpy(term.model->y, ys, sizeof(double) * n);
	memcpy(term.model->lengthscales, spec->lengthscales, sizeof(double) * d);
	term.model->outputscale = spec->outputscale;
	term.model->noise = spec->noise;
	term.model->mean = spec->mean;
	term.bound = spec->bound;
	rc = gp_model_set_categories(term.model, categories, status);
	if (rc == TUNER_OK)
		rc = gp_prepare(term.model, status);
	if (rc == TUNER_OK && spec->with_trend)
	{
		/* the fit's GLS trend is a function of the hyperparameters */
		term.trend_slopes = tuner_alloc_zero(sizeof(double) * d);
		rc = term.trend_slopes == NULL
				 ? tuner_fail(status, TUNER_ERR_NOMEM,
							  "out of memory rebuilding a feasibility model")
				 : refine_trend(ys, categories, &term, status);
	}
	if (rc != TUNER_OK)
		goto done;
	term.calibrated = spec->calibrated;
	term.calibration_threshold = spec->calibration_threshold;
	term.calibration_spread = spec->calibration_spread;
	gp_posterior(term.model, &term.post);
	scratch = tuner_alloc(sizeof(double) * (term.post.n_scratch + 2 * d +
											trend_scratch(&term, d) + 1));
	if (scratch == NULL)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory rebuilding a feasibility model");
		goto done;
	}
	for (i = 0; i < m; i++)
		log_p[i] = term_log_prob(&term, u + (size_t)i * d, NULL, scratch);
done:
	tuner_free(scratch);
	term_free(&term);
	return rc;
}

/* Describe term t; see feasibility.h. */
void
feasibility_describe(const FeasibilityModel *model, int t, ConstraintFit *fit)
{
	const FeasibilityTerm *term = &model->terms[t];

	fit->fitted = 1;
	fit->n = term->model->n;
	if (fit->lengthscales != NULL)
		memcpy(fit->lengthscales, term->model->lengthscales,
			   sizeof(double) * model->d);
	fit->outputscale = term->model->outputscale;
	fit->noise = term->model->noise;
	fit->mean = term->model->mean;
	fit->log_likelihood = term->model->log_likelihood;
	fit->y_mean = term->y_mean;
	fit->y_sd = term->y_sd;
	fit->bound = term->bound;
	fit->trend_intercept =
		term->trend_slopes != NULL ? term->trend_intercept : NAN;
	fit->calibration_threshold =
		term->calibrated ? term->calibration_threshold : NAN;
	fit->calibration_spread =
		term->calibrated ? term->calibration_spread : NAN;
	if (fit->trend_slopes != NULL)
	{
		int k;

		for (k = 0; k < model->d; k++)
			fit->trend_slopes[k] =
				term->trend_slopes != NULL ? term->trend_slopes[k] : NAN;
	}
}
