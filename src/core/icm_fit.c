/*
 * icm_fit.c
 *	  Hyperparameters of the ICM model (icm.h) by maximising the log marginal
 *	  likelihood plus log priors, with analytic gradients and NLopt's bounded
 *	  L-BFGS from several starts.  The likelihood and its gradient use the
 *	  path icm_prepare chooses, so a fully observed fit costs O(T n^3)
 *	  per evaluation (likelihood_only: T Cholesky factorisations, no
 *	  eigen-decomposition; the fitted model is prepared for prediction).
 *
 *	  theta = (log l_1..d, W (T x rank, row-major), log v_1..T,
 *	           log noise_1..T, mean_1..T), for x on the unit cube and each
 *	  task standardised.  Priors:
 *	    log l     ~ N(-1.5 + log(d)/4, 3)   as the single-task GP
 *	    W_tr      ~ N(M_tr, 1)              M = options->w_prior_mean, or 0
 *	    log v     ~ N(log 0.1, 4)           most of a task's variance is
 *	                                        expected to be shared
 *	    log noise ~ N(-6, 9)                milder than the single-task
 *	                                        N(-10, 4): auxiliary metrics
 *	                                        (latencies, compaction times)
 *	                                        are often noisy
 *	    mean      ~ N(0, 1)
 *	  Gradient: dL/dtheta = 1/2 tr((alpha alpha^T - K^-1) dK/dtheta), reduced
 *	  by icm_gradient_parts to an n x n and a T x T matrix.  A categorical
 *	  dimension (matern.h) has overlap indicators for squared differences,
 *	  in the likelihood and its lengthscale gradient alike.
 */
#include <math.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>
#include <nlopt.h>

#include "icm.h"
#include "matern.h"
#include "nlopt_guard.h"
#include "rng.h"

#define LOG_LS_MIN    (-5.298317366548036)  /* log 0.005 */
#define LOG_LS_MAX    (5.298317366548036)   /* log 200 */
#define LOG_V_MIN     (-13.815510557964274) /* log 1e-6 */
#define LOG_V_MAX     (3.912023005428146)   /* log 50 */
#define LOG_NOISE_MAX (0.6931471805599453)  /* log 2 */
#define W_BOUND       10.0
#define MEAN_BOUND    10.0

#define LS_PRIOR_VAR     3.0
#define W_PRIOR_VAR      1.0
#define V_PRIOR_MEAN     (-2.3025850929940455) /* log 0.1 */
#define V_PRIOR_VAR      4.0
#define NOISE_PRIOR_MEAN (-6.0)
#define NOISE_PRIOR_VAR  9.0

/* Everything one evaluation needs, allocated once. */
typedef struct IcmProblem
{
	IcmModel *model; /* scratch model holding x, y and the current theta */
	int n, d, T, rank, dim;
	int use_priors;
	const double *w_prior_mean; /* T x rank, or NULL = 0 */
	size_t n_pairs;
	double *sqdiff;  /* n_pairs x d, column-major, pairs (j, i > j) */
	double *r2;      /* n_pairs */
	double *coef;    /* n_pairs */
	double *inv_ls2; /* d */
	double *c;       /* n * n */
	double *mm;      /* T * T */
	double *gdiag;   /* T */
	double *asum;    /* T */
	double *best_theta;
	TunerStatus *status;
} IcmProblem;

/* Length of theta; see icm.h. */
int
icm_theta_size(int d, int T, int rank)
{
	return d + T * rank + 3 * T;
}

static double
lengthscale_prior_mean(int d)
{
	return -1.5 + 0.25 * log((double)d);
}

static void
problem_free(IcmProblem *p)
{
	icm_model_free(p->model);
	tuner_free(p->sqdiff);
	tuner_free(p->r2);
	tuner_free(p->coef);
	tuner_free(p->inv_ls2);
	tuner_free(p->c);
	tuner_free(p->mm);
	tuner_free(p->gdiag);
	tuner_free(p->asum);
	tuner_free(p->best_theta);
}

static TunerErrorCode
problem_init(IcmProblem *p, const double *x, const double *y, int n, int d,
			 int T, int rank, const int *categories, int use_priors,
			 int force_full, TunerStatus *status)
{
	memset(p, 0, sizeof(IcmProblem));
	p->n = n;
	p->d = d;
	p->T = T;
	p->rank = rank;
	p->dim = icm_theta_size(d, T, rank);
	p->use_priors = use_priors;
	p->status = status;
	p->model = icm_model_create(n, d, T, rank, status);
	if (p->model == NULL)
		return status ? status->code : TUNER_ERR_INVALID;
	memcpy(p->model->x, x, sizeof(double) * n * d);
	memcpy(p->model->y, y, sizeof(double) * n * T);
	p->model->force_full = force_full;
	p->model->likelihood_only = 1;
	if (icm_model_set_categories(p->model, categories, status) != TUNER_OK)
		return status ? status->code : TUNER_ERR_NOMEM;
	p->n_pairs = (size_t)n * (n - 1) / 2;
	p->sqdiff = tuner_alloc(sizeof(double) * (p->n_pairs * d + 1));
	p->r2 = tuner_alloc(sizeof(double) * (p->n_pairs + 1));
	p->coef = tuner_alloc(sizeof(double) * (p->n_pairs + 1));
	p->inv_ls2 = tuner_alloc(sizeof(double) * d);
	p->c = tuner_alloc(sizeof(double) * n * n);
	p->mm = tuner_alloc(sizeof(double) * T * T);
	p->gdiag = tuner_alloc(sizeof(double) * T);
	p->asum = tuner_alloc(sizeof(double) * T);
	p->best_theta = tuner_alloc(sizeof(double) * p->dim);
	if (!p->sqdiff || !p->r2 || !p->coef || !p->inv_ls2 || !p->c || !p->mm ||
		!p->gdiag || !p->asum || !p->best_theta)
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory fitting a %d-point model", n);
	/* under a categorical metric, overlap indicators (matern.h) */
	matern52_pair_sqdiff(x, n, d, categories, p->sqdiff);
	return TUNER_OK;
}

/* Copy theta into the scratch model's hyperparameters. */
static void
set_theta(IcmProblem *p, const double *theta)
{
	IcmModel *m = p->model;
	int d = p->d, T = p->T, tr = p->T * p->rank;
	int k;

	for (k = 0; k < d; k++)
		m->lengthscales[k] = exp(theta[k]);
	memcpy(m->W, theta + d, sizeof(double) * tr);
	for (k = 0; k < T; k++)
	{
		m->v[k] = exp(theta[d + tr + k]);
		m->noise[k] = exp(theta[d + tr + T + k]);
		m->mean[k] = theta[d + tr + 2 * T + k];
	}
}

/* Sum of the log priors, and their gradient added into grad. */
static double
log_prior(const IcmProblem *p, const double *theta, double *grad)
{
	int d = p->d, T = p->T, tr = p->T * p->rank;
	double mu = lengthscale_prior_mean(d);
	double lp = 0.0;
	int k;

	for (k = 0; k < p->dim; k++)
	{
		double centre, var;

		if (k < d)
			centre = mu, var = LS_PRIOR_VAR;
		else if (k < d + tr)
			centre = p->w_prior_mean != NULL ? p->w_prior_mean[k - d] : 0.0,
			var = W_PRIOR_VAR;
		else if (k < d + tr + T)
			centre = V_PRIOR_MEAN, var = V_PRIOR_VAR;
		else if (k < d + tr + 2 * T)
			centre = NOISE_PRIOR_MEAN, var = NOISE_PRIOR_VAR;
		else
			centre = 0.0, var = 1.0;
		lp -= (theta[k] - centre) * (theta[k] - centre) / (2.0 * var);
		if (grad != NULL)
			grad[k] -= (theta[k] - centre) / var;
	}
	return lp;
}

/*
 * Kx into the scratch model and, in coef, matern52_radial of every pair:
 * one distance and one exp per pair serve the likelihood and its gradient.
 */
static void
pair_kernel(IcmProblem *p)
{
	IcmModel *m = p->model;
	int n = p->n, d = p->d;
	size_t pair = 0;
	int i, j, k;

	for (k = 0; k < d; k++)
		p->inv_ls2[k] = 1.0 / (m->lengthscales[k] * m->lengthscales[k]);
	if (p->n_pairs > 0)
		cblas_dgemv(CblasColMajor, CblasNoTrans, (int)p->n_pairs, d, 1.0,
					p->sqdiff, (int)p->n_pairs, p->inv_ls2, 1, 0.0, p->r2, 1);
	for (j = 0; j < n; j++)
	{
		m->kx[j + (size_t)j * n] = 1.0;
		for (i = j + 1; i < n; i++, pair++)
		{
			double sr = MATERN_SQRT5 * sqrt(p->r2[pair]);
			double e = exp(-sr);
			double kij = (1.0 + sr + sr * sr / 3.0) * e;

			m->kx[i + (size_t)j * n] = kij;
			m->kx[j + (size_t)i * n] = kij;
			p->coef[pair] = (5.0 / 3.0) * (1.0 + sr) * e;
		}
	}
	m->kx_ready = 1;
}

/* -(log likelihood + log prior) at theta and its gradient. */
static TunerErrorCode
problem_eval(IcmProblem *p, const double *theta, double *value, double *grad)
{
	IcmModel *m = p->model;
	int n = p->n, d = p->d, T = p->T, r = p->rank, tr = T * r;
	double lp = 0.0;
	size_t pair = 0;
	int i, j, k, s;
	TunerErrorCode rc;

	set_theta(p, theta);
	pair_kernel(p);
	rc = tuner_check_interrupt(p->status);
	if (rc != TUNER_OK)
		return rc;
	rc = icm_prepare(m, p->status);
	if (rc != TUNER_OK)
		return rc;
	if (grad != NULL)
		memset(grad, 0, sizeof(double) * p->dim);
	if (p->use_priors)
		lp = log_prior(p, theta, grad);
	*value = -(m->log_likelihood + lp);
	if (grad == NULL)
		return TUNER_OK;

	rc = icm_gradient_parts(m, p->c, p->mm, p->gdiag, p->asum, p->status);
	if (rc == TUNER_OK)
		rc = tuner_check_interrupt(p->status);
	if (rc != TUNER_OK)
		return rc;

	/* lengthscales: sum_{i<j} c_ij radial(r_ij) delta_ijk^2 / l_k^2 */
	if (p->n_pairs > 0)
	{
		for (j = 0; j < n; j++)
			for (i = j + 1; i < n; i++, pair++)
				p->coef[pair] *= p->c[i + (size_t)j * n];
		/* the lengthscale slots of grad hold the prior part: add to it */
		for (k = 0; k < d; k++)
			grad[k] += p->inv_ls2[k] * cblas_ddot((int)p->n_pairs,
												  p->sqdiff + k * p->n_pairs,
												  1, p->coef, 1);
	}
	/* W: (mm W); log v: mm_ss v_s / 2; log noise: gdiag_s noise_s / 2 */
	for (s = 0; s < T; s++)
	{
		for (k = 0; k < r; k++)
		{
			double sum = 0.0;

			for (j = 0; j < T; j++)
				sum += p->mm[s + j * T] * m->W[j * r + k];
			grad[d + s * r + k] += sum;
		}
		grad[d + tr + s] += 0.5 * p->mm[s + s * T] * m->v[s];
		grad[d + tr + T + s] += 0.5 * p->gdiag[s] * m->noise[s];
		grad[d + tr + 2 * T + s] += p->asum[s];
	}
	for (k = 0; k < p->dim; k++)
		grad[k] = -grad[k];
	return TUNER_OK;
}

/* problem_eval with the signature nlopt_guard.h expects. */
static TunerErrorCode
guarded_eval(void *problem, const double *theta, double *value, double *grad)
{
	return problem_eval(problem, theta, value, grad);
}

/* Defaults for the fit. */
void
icm_fit_options_init(IcmFitOptions *options)
{
	memset(options, 0, sizeof(IcmFitOptions));
	options->rank = 1;
	options->restarts = 3;
	options->max_evals = 200;
	options->use_priors = 1;
	options->min_noise = 1e-6;
}

/*
 * The correlation of tasks t and s under the prior centre: B = M M^T +
 * diag(exp(V_PRIOR_MEAN)) with M the prior mean of W (0 without one).
 */
static double
prior_correlation(const double *m, int T, int rank, int t, int s)
{
	double btt = exp(V_PRIOR_MEAN), bss = exp(V_PRIOR_MEAN), bts = 0.0;
	int k;

	if (m == NULL)
		return 0.0;
	for (k = 0; k < rank; k++)
	{
		btt += m[t * rank + k] * m[t * rank + k];
		bss += m[s * rank + k] * m[s * rank + k];
		bts += m[t * rank + k] * m[s * rank + k];
	}
	return bts / sqrt(btt * bss);
}

/*
 * W from the empirical task correlation (pairwise complete rows; the prior
 * correlation for pairs with fewer than three): the top rank eigenvectors
 * scaled to 0.9 of the variance.  w0 is T x rank.
 */
static void
correlation_init(const double *y, int n, int T, int rank,
				 const double *w_prior_mean, double *w0)
{
	double *cm = tuner_alloc(sizeof(double) * T * T);
	double *ev = tuner_alloc(sizeof(double) * T);
	int t, s, i, k;

	memset(w0, 0, sizeof(double) * T * rank);
	if (cm == NULL || ev == NULL)
		goto done;
	for (t = 0; t < T; t++)
		for (s = 0; s < T; s++)
		{
			double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0, cnt = 0;
			double r = prior_correlation(w_prior_mean, T, rank, t, s);

			for (i = 0; i < n; i++)
			{
				double a = y[(size_t)i * T + t], b = y[(size_t)i * T + s];

				if (isnan(a) || isnan(b))
					continue;
				cnt++;
				sa += a;
				sb += b;
				saa += a * a;
				sbb += b * b;
				sab += a * b;
			}
			if (cnt >= 3)
			{
				double va = saa - sa * sa / cnt, vb = sbb - sb * sb / cnt;

				r = 0.0;
				if (va > 0 && vb > 0)
					r = (sab - sa * sb / cnt) / sqrt(va * vb);
			}
			cm[t + s * T] = t == s ? 1.0 : r;
		}
	if (LAPACKE_dsyev(LAPACK_COL_MAJOR, 'V', 'L', T, cm, T, ev) != 0)
		goto done;
	for (k = 0; k < rank; k++)
	{
		int col = T - 1 - k; /* eigenvalues ascend */
		double scale = sqrt(0.9 * fmax(ev[col], 0.0));

		for (t = 0; t < T; t++)
			w0[t * rank + k] = cm[t + col * T] * scale;
	}
done:
	tuner_free(cm);
	tuner_free(ev);
}

static double
clamp(double v, double lo, double hi)
{
	return v < lo ? lo : (v > hi ? hi : v);
}

/*
 * Starting point number start: the warm start if there is one, then two
 * starts from the empirical task correlation (prior-centre and short
 * lengthscales), then random ones.
 */
static void
starting_point(const IcmProblem *p, const IcmFitOptions *options,
			   const double *w0, int start, TunerRng *rng, const double *lower,
			   const double *upper, double *theta)
{
	int d = p->d, T = p->T, tr = p->T * p->rank;
	double mu = lengthscale_prior_mean(d);
	const IcmModel *w = options->warm;
	int k;

	if (w == NULL)
		start++; /* no warm start: skip its slot */
	if (start > 0)
		start += options->first_alternate;
	for (k = 0; k < T; k++)
		theta[d + tr + 2 * T + k] = 0.0;
	if (start == 0)
	{
		for (k = 0; k < d; k++)
			theta[k] = log(w->lengthscales[k]);
		memcpy(theta + d, w->W, sizeof(double) * tr);
		for (k = 0; k < T; k++)
		{
			theta[d + tr + k] = log(w->v[k]);
			theta[d + tr + T + k] = log(w->noise[k]);
			theta[d + tr + 2 * T + k] = w->mean[k];
		}
	}
	else if (start <= 2)
	{
		for (k = 0; k < d; k++)
			theta[k] = start == 1 ? mu : log(0.25 * sqrt((double)d));
		memcpy(theta + d, w0, sizeof(double) * tr);
		for (k = 0; k < T; k++)
		{
			theta[d + tr + k] = log(0.1);
			theta[d + tr + T + k] = start == 1 ? log(1e-2) : log(1e-4);
		}
	}
	else
	{
		for (k = 0; k < d; k++)
			theta[k] = mu - 1.5 + 1.5 * rng_normal(rng);
		for (k = 0; k < tr; k++)
			theta[d + k] = 0.5 * rng_normal(rng);
		for (k = 0; k < T; k++)
		{
			theta[d + tr + k] = log(0.1) + rng_normal(rng);
			theta[d + tr + T + k] = -6.0 + 2.0 * rng_normal(rng);
		}
	}
	for (k = 0; k < p->dim; k++)
	{
		if (!isfinite(theta[k]))
			theta[k] = 0.5 * (lower[k] + upper[k]);
		theta[k] = clamp(theta[k], lower[k], upper[k]);
	}
}

/* Check the data before fitting. */
static TunerErrorCode
check_fit_input(const double *x, const double *y, int n, int d, int T,
				const IcmFitOptions *options, TunerStatus *status)
{
	int i, t;

	if (n < 1 || d < 1 || T < 1)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "fitting needs at least one point, dimension and "
						  "task");
	if (options->rank < 1 || options->rank > T)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "rank %d is out of range: it must be between 1 and "
						  "the number of tasks (%d)",
						  options->rank, T);
	if (options->warm != NULL &&
		(options->warm->d != d || options->warm->T != T ||
		 options->warm->rank != options->rank))
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "the warm-start model has a different shape");
	for (i = 0; i < n * d; i++)
		if (!isfinite(x[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "x contains NaN or infinity (point %d)",
							  i / d + 1);
	for (t = 0; t < T; t++)
	{
		int seen = 0;

		for (i = 0; i < n; i++)
		{
			double v = y[(size_t)i * T + t];

			if (isinf(v))
				return tuner_fail(status, TUNER_ERR_INVALID,
								  "y contains infinity (point %d, task %d)",
								  i + 1, t + 1);
			seen += !isnan(v);
		}
		if (seen == 0)
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "task %d has no observations", t + 1);
	}
	return TUNER_OK;
}

/* Fit; see icm.h. */
TunerErrorCode
icm_fit(const double *x, const double *y, int n, int d, int T,
		const IcmFitOptions *options, IcmModel **out, TunerStatus *status)
{
	IcmProblem p;
	NloptGuard guard;
	int rank = options->rank;
	int dim = icm_theta_size(d, T, rank);
	int tr = T * rank;
	double *lower = NULL, *upper = NULL, *theta = NULL, *w0 = NULL;
	nlopt_opt opt = NULL;
	IcmModel *model = NULL;
	TunerRng rng;
	TunerErrorCode rc;
	int max_evals = options->max_evals > 0 ? options->max_evals : 200;
	int start, k;

	*out = NULL;
	rc = check_fit_input(x, y, n, d, T, options, status);
	if (rc != TUNER_OK)
		return rc;
	rc = problem_init(&p, x, y, n, d, T, rank, options->categories,
					  options->use_priors, options->force_full, status);
	lower = tuner_alloc(sizeof(double) * dim);
	upper = tuner_alloc(sizeof(double) * dim);
	theta = tuner_alloc(sizeof(double) * dim);
	w0 = tuner_alloc(sizeof(double) * tr);
	if (rc == TUNER_OK && (!lower || !upper || !theta || !w0))
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory fitting a model");
	if (rc != TUNER_OK)
		goto done;

	for (k = 0; k < dim; k++)
	{
		if (k < d)
			lower[k] = LOG_LS_MIN, upper[k] = LOG_LS_MAX;
		else if (k < d + tr)
			lower[k] = -W_BOUND, upper[k] = W_BOUND;
		else if (k < d + tr + T)
			lower[k] = LOG_V_MIN, upper[k] = LOG_V_MAX;
		else if (k < d + tr + 2 * T)
		{
			lower[k] =
				log(options->min_noise > 0.0 ? options->min_noise : 1e-6);
			upper[k] = LOG_NOISE_MAX;
		}
		else
			lower[k] = -MEAN_BOUND, upper[k] = MEAN_BOUND;
	}
	p.w_prior_mean = options->use_priors ? options->w_prior_mean : NULL;
	correlation_init(y, n, T, rank, p.w_prior_mean, w0);

	opt = nlopt_create(NLOPT_LD_LBFGS, dim);
	if (opt == NULL)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"could not create the NLopt optimiser");
		goto done;
	}
	nlopt_set_lower_bounds(opt, lower);
	nlopt_set_upper_bounds(opt, upper);
	nlopt_guard_init(&guard, guarded_eval, &p, &p.status, p.best_theta, opt);
	nlopt_set_min_objective(opt, nlopt_guard_objective, &guard);
	nlopt_set_maxeval(opt, max_evals);
	nlopt_set_ftol_rel(opt, 1e-7);
	nlopt_set_xtol_rel(opt, 1e-5);

	rng_seed(&rng, options->seed);
	for (start = 0; start < (options->restarts > 0 ? options->restarts : 1);
		 start++)
	{
		double value;

		starting_point(&p, options, w0, start, &rng, lower, upper, theta);
		if (options->warm != NULL)
		{
			int cap = start == 0 ? options->warm_max_evals
								 : options->alternate_max_evals;

			nlopt_set_maxeval(opt, cap > 0 ? cap : max_evals);
		}
		/* the callback keeps the best point; the result code is not needed */
		(void)nlopt_optimize(opt, theta, &value);
		if (guard.interrupted)
		{
			rc = tuner_fail(status, TUNER_ERR_INTERRUPTED,
							"fitting a model was interrupted");
			goto done;
		}
	}
	if (!guard.have_best)
	{
		double value;

		starting_point(&p, options, w0, 0, &rng, lower, upper, theta);
		rc = problem_eval(&p, theta, &value, NULL);
		if (rc == TUNER_OK)
			rc = tuner_fail(
				status, TUNER_ERR_NUMERIC,
				"the likelihood could not be evaluated at any hyperparameters");
		goto done;
	}
	set_theta(&p, p.best_theta);
	p.model->likelihood_only = 0; /* the fitted model predicts */
	p.model->kx_ready = 0;        /* kx is from the last theta tried */
	tuner_free(p.model->lk);      /* T n x n factors only the search used */
	p.model->lk = NULL;
	rc = icm_prepare(p.model, status);
	if (rc == TUNER_OK)
	{
		model = p.model;
		model->fit_evals = guard.evals;
		p.model = NULL;
	}

done:
	if (opt != NULL)
		nlopt_destroy(opt);
	tuner_free(lower);
	tuner_free(upper);
	tuner_free(theta);
	tuner_free(w0);
	problem_free(&p);
	*out = model;
	return rc;
}

/* One evaluation of the fit objective; see icm.h. */
TunerErrorCode
icm_fit_objective(const double *x, const double *y, int n, int d, int T,
				  int rank, int use_priors, int force_full,
				  const double *theta, double *value, double *grad,
				  TunerStatus *status)
{
	return icm_fit_objective_metric(x, y, n, d, T, rank, NULL, use_priors,
									force_full, theta, value, grad, status);
}

/* One evaluation under an input metric; see icm.h. */
TunerErrorCode
icm_fit_objective_metric(const double *x, const double *y, int n, int d, int T,
						 int rank, const int *categories, int use_priors,
						 int force_full, const double *theta, double *value,
						 double *grad, TunerStatus *status)
{
	IcmProblem p;
	TunerErrorCode rc;

	rc = problem_init(&p, x, y, n, d, T, rank, categories, use_priors,
					  force_full, status);
	if (rc == TUNER_OK)
		rc = problem_eval(&p, theta, value, grad);
	problem_free(&p);
	return rc;
}
