/*
 * gp_fit.c
 *	  Hyperparameters of the Matern-5/2 GP by maximising the log marginal
 *	  likelihood plus log priors, with analytic gradients and NLopt's bounded
 *	  L-BFGS from several starts.  Under an input metric with categorical
 *	  dimensions (matern.h) the precomputed squared differences of those
 *	  dimensions are the overlap indicators, and the lengthscale gradient,
 *	  coef * delta_k^2 / l_k^2, uses the same indicator.
 *
 *	  theta = (log l_1..l_d, log s, log noise, mean).  The priors are meant
 *	  for inputs on the unit cube and standardised y (gp_fit_prior):
 *	    log l     ~ N(-1.5 + log(d)/4, 3)   median l 0.35 at d = 6
 *	    log s     ~ N(0, 1)
 *	    log noise ~ N(-10, 4)               systems metrics are often nearly
 *	                                        deterministic; the data can
 *	                                        still raise it
 *	    mean      ~ N(0, 1)
 *	  The lengthscale prior grows slowly with d (as Hvarfner et al. 2024
 *	  argue) but is centred far shorter than theirs: with 25-50 trials the
 *	  long-lengthscale mode reads most of the space as a linear trend plus
 *	  noise and sends EI to the corners.  These were chosen on
 *	  Hartmann6/Ackley-10 in bench/ (see bench/README.md).
 *
 *	  From GP_HIGH_DIM dimensions on (issue 28) two of them change:
 *	    log l     ~ N(-1 + log(d)/4, 1/3)   median l 0.65 at d = 10
 *	    log noise ~ N(-6, 4)
 *	  With the wide lengthscale prior, 10-20 dimensions and 5-50 points the
 *	  fit took a few lengthscales very short and the rest long; EI was
 *	  then highest a hair from the incumbent and the search stalled there
 *	  (median distance of a suggestion from the incumbent 0.01-0.1 on
 *	  Ackley-10).  A tight prior (about the spread of BoTorch's Gamma(3, 6)
 *	  lengthscale prior, log-variance 0.39) a little longer than the
 *	  low-dimensional centre keeps every dimension's lengthscale in about
 *	  [0.2, 2], and a noise prior that lets the fit explain small ripples
 *	  (Ackley's cosine term) as noise keeps the lengthscales on the trend.
 *	  Measured in bench/ (README, "10-20 dimensions"): Ackley-10, Levy-10,
 *	  Rosenbrock-10 medians halved or better.  Below GP_HIGH_DIM the priors,
 *	  and so every low-dimensional trajectory, are unchanged.
 */
#include <math.h>
#include <string.h>

#include <cblas.h>
#include <nlopt.h>

#include "gp.h"
#include "linalg.h"
#include "matern.h"
#include "nlopt_guard.h"
#include "rng.h"

#define LOG_2PI 1.8378770664093454836

#define LOG_LS_MIN    (-5.298317366548036) /* log 0.005 */
#define LOG_LS_MAX    (5.298317366548036)  /* log 200 */
#define LOG_OS_MIN    (-5.298317366548036) /* log 0.005 */
#define LOG_OS_MAX    (3.912023005428146)  /* log 50 */
#define LOG_NOISE_MAX (0.6931471805599453) /* log 2 */
#define MEAN_BOUND    10.0

/* Everything one evaluation of the objective needs, allocated once. */
typedef struct FitProblem
{
	const double *x;
	const double *y;
	int n;
	int d;
	int use_priors;
	const double *extra; /* n extra noise variances, or NULL */
	GpPrior prior;
	double *k;       /* n * n: K, then L, then K^-1 */
	double *work;    /* n * n scratch for the Cholesky retries */
	double *alpha;   /* n */
	double *inv_ls;  /* d */
	double *grad_ls; /* d */
	/*
	 * Pairs i > j in the order (j, then i).  The squared differences do not
	 * depend on theta, so r^2 for all pairs is one matrix-vector product,
	 * and so is the lengthscale gradient.
	 */
	size_t n_pairs;
	double *sqdiff;  /* n_pairs x d, column-major */
	double *r2;      /* n_pairs: scaled squared distance */
	double *decay;   /* n_pairs: exp(-sqrt5 r) */
	double *coef;    /* n_pairs: gradient weights */
	double *inv_ls2; /* d: 1 / l_k^2 */

	/* best point seen by any start (NLopt may stop on a worse one) */
	double *best_theta;

	TunerStatus *status;
	TunerErrorCode error;
} FitProblem;

/* Priors of log lengthscale and log noise in d dimensions; see gp.h. */
void
gp_fit_prior(int d, int legacy, GpPrior *prior)
{
	int high = d >= GP_HIGH_DIM && !legacy;

	prior->ls_mean = (high ? -1.0 : -1.5) + 0.25 * log((double)d);
	prior->ls_var = high ? 1.0 / 3.0 : 3.0;
	prior->noise_mean = high ? -6.0 : -10.0;
	prior->noise_var = 4.0;
}

static TunerErrorCode
problem_init(FitProblem *p, const double *x, const double *y, int n, int d,
			 const int *categories, int use_priors, int legacy_priors,
			 TunerStatus *status)
{
	memset(p, 0, sizeof(FitProblem));
	p->x = x;
	p->y = y;
	p->n = n;
	p->d = d;
	p->use_priors = use_priors;
	gp_fit_prior(d, legacy_priors, &p->prior);
	p->status = status;
	p->k = tuner_alloc(sizeof(double) * n * n);
	p->work = tuner_alloc(sizeof(double) * n * n);
	p->alpha = tuner_alloc(sizeof(double) * n);
	p->inv_ls = tuner_alloc(sizeof(double) * d);
	p->grad_ls = tuner_alloc(sizeof(double) * d);
	p->n_pairs = (size_t)n * (n - 1) / 2;
	p->sqdiff = tuner_alloc(sizeof(double) * p->n_pairs * d);
	p->r2 = tuner_alloc(sizeof(double) * p->n_pairs);
	p->decay = tuner_alloc(sizeof(double) * p->n_pairs);
	p->coef = tuner_alloc(sizeof(double) * p->n_pairs);
	p->inv_ls2 = tuner_alloc(sizeof(double) * d);
	p->best_theta = tuner_alloc(sizeof(double) * (d + 3));
	if (!p->k || !p->work || !p->alpha || !p->inv_ls || !p->grad_ls ||
		!p->sqdiff || !p->r2 || !p->decay || !p->coef || !p->inv_ls2 ||
		!p->best_theta)
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory fitting a %d-point model", n);
	matern52_pair_sqdiff(x, n, d, categories, p->sqdiff);
	return TUNER_OK;
}

static void
problem_free(FitProblem *p)
{
	tuner_free(p->k);
	tuner_free(p->work);
	tuner_free(p->alpha);
	tuner_free(p->inv_ls);
	tuner_free(p->grad_ls);
	tuner_free(p->sqdiff);
	tuner_free(p->r2);
	tuner_free(p->decay);
	tuner_free(p->coef);
	tuner_free(p->inv_ls2);
	tuner_free(p->best_theta);
}

/*
 * K = s k52 + noise I, keeping each pair's exp(-sqrt5 r) for the gradient:
 * exp is much of the cost of an evaluation.
 */
static TunerErrorCode
problem_gram(FitProblem *p, double s, double noise)
{
	int n = p->n;
	int d = p->d;
	size_t pair = 0;
	int i, j, k;

	for (k = 0; k < d; k++)
		p->inv_ls2[k] = p->inv_ls[k] * p->inv_ls[k];
	if (p->n_pairs > 0)
		cblas_dgemv(CblasColMajor, CblasNoTrans, (int)p->n_pairs, d, 1.0,
					p->sqdiff, (int)p->n_pairs, p->inv_ls2, 1, 0.0, p->r2, 1);
	for (j = 0; j < n; j++)
	{
		if (j % 256 == 0 && tuner_check_interrupt(p->status) != TUNER_OK)
			return TUNER_ERR_INTERRUPTED;
		p->k[j + (size_t)j * n] = s + noise;
		if (p->extra != NULL)
			p->k[j + (size_t)j * n] += p->extra[j];
		for (i = j + 1; i < n; i++, pair++)
		{
			double sr = MATERN_SQRT5 * sqrt(p->r2[pair]);
			double e = exp(-sr);
			double v = s * (1.0 + sr + sr * sr / 3.0) * e;

			p->decay[pair] = e;
			p->k[i + (size_t)j * n] = v;
			p->k[j + (size_t)i * n] = v;
		}
	}
	return TUNER_OK;
}

/*
 * Negative (log likelihood + log prior) at theta, and its gradient.  Uses
 * dL/dtheta = 1/2 tr((alpha alpha^T - K^-1) dK/dtheta).
 */
static TunerErrorCode
problem_eval(FitProblem *p, const double *theta, double *value, double *grad)
{
	int n = p->n;
	int d = p->d;
	double s = exp(theta[d]);
	double noise = exp(theta[d + 1]);
	double mean = theta[d + 2];
	double jitter;
	double quad = 0.0;
	double loglik;
	double logprior = 0.0;
	int i, j, k;
	TunerErrorCode rc;

	for (k = 0; k < d; k++)
		p->inv_ls[k] = exp(-theta[k]);

	rc = problem_gram(p, s, noise);
	if (rc != TUNER_OK)
		return rc;
	rc = linalg_cholesky(p->k, n, p->work, &jitter, p->status);
	if (rc != TUNER_OK)
		return rc;

	for (i = 0; i < n; i++)
		p->alpha[i] = p->y[i] - mean;
	linalg_cholesky_solve(p->k, n, p->alpha);
	for (i = 0; i < n; i++)
		quad += (p->y[i] - mean) * p->alpha[i];
	loglik = -0.5 * quad - 0.5 * linalg_cholesky_logdet(p->k, n) -
			 0.5 * n * LOG_2PI;

	if (p->use_priors)
	{
		const GpPrior *pr = &p->prior;

		for (k = 0; k < d; k++)
			logprior -= (theta[k] - pr->ls_mean) * (theta[k] - pr->ls_mean) /
						(2.0 * pr->ls_var);
		logprior -= theta[d] * theta[d] / 2.0;
		logprior -= (theta[d + 1] - pr->noise_mean) *
					(theta[d + 1] - pr->noise_mean) / (2.0 * pr->noise_var);
		logprior -= mean * mean / 2.0;
	}
	*value = -(loglik + logprior);

	if (grad == NULL)
		return TUNER_OK;

	rc = linalg_cholesky_inverse(p->k, n, p->status);
	if (rc != TUNER_OK)
		return rc;

	{
		double g_s = 0.0;
		double g_noise = 0.0;
		double g_mean = 0.0;
		size_t pair = 0;

		for (j = 0; j < n; j++)
		{
			double w_jj = p->alpha[j] * p->alpha[j] - p->k[j + (size_t)j * n];

			if (j % 256 == 0 && tuner_check_interrupt(p->status) != TUNER_OK)
				return TUNER_ERR_INTERRUPTED;
			g_s += 0.5 * w_jj * s;
			g_noise += 0.5 * w_jj * noise;
			g_mean += p->alpha[j];
			for (i = j + 1; i < n; i++, pair++)
			{
				double w = p->alpha[i] * p->alpha[j] - p->k[i + (size_t)j * n];
				double sr = MATERN_SQRT5 * sqrt(p->r2[pair]);
				double e = p->decay[pair];

				/* the pair (i, j) and (j, i): 2 * 1/2 */
				g_s += w * s * (1.0 + sr + sr * sr / 3.0) * e;
				/* s * matern52_radial(r) * w */
				p->coef[pair] = s * (5.0 / 3.0) * (1.0 + sr) * e * w;
			}
		}
		/* d K_ij / d log l_k = coef_ij * (x_ik - x_jk)^2 / l_k^2 */
		if (p->n_pairs > 0)
			cblas_dgemv(CblasColMajor, CblasTrans, (int)p->n_pairs, d, 1.0,
						p->sqdiff, (int)p->n_pairs, p->coef, 1, 0.0,
						p->grad_ls, 1);
		else
			memset(p->grad_ls, 0, sizeof(double) * d);
		for (k = 0; k < d; k++)
			p->grad_ls[k] *= p->inv_ls2[k];
		if (p->use_priors)
		{
			const GpPrior *pr = &p->prior;

			for (k = 0; k < d; k++)
				p->grad_ls[k] -= (theta[k] - pr->ls_mean) / pr->ls_var;
			g_s -= theta[d];
			g_noise -= (theta[d + 1] - pr->noise_mean) / pr->noise_var;
			g_mean -= mean;
		}
		for (k = 0; k < d; k++)
			grad[k] = -p->grad_ls[k];
		grad[d] = -g_s;
		grad[d + 1] = -g_noise;
		grad[d + 2] = -g_mean;
	}
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
gp_fit_options_init(GpFitOptions *options)
{
	memset(options, 0, sizeof(GpFitOptions));
	options->restarts = 3;
	options->max_evals = 200;
	options->seed = 0;
	options->use_priors = 1;
	options->min_noise = 1e-6;
	options->warm_lengthscales = NULL;
}

static double
clamp(double v, double lo, double hi)
{
	return v < lo ? lo : (v > hi ? hi : v);
}

/*
 * Starting point number start.  The likelihood has a "smooth trend plus
 * much noise" mode that a start near the prior centre tends to fall into;
 * an interpolating start (short lengthscales, little noise) reaches the
 * other mode, and the previous fit (warm start) keeps what was learned.
 */
static void
starting_point(const GpFitOptions *options, int d, int start, TunerRng *rng,
			   const double *lower, const double *upper, double *theta)
{
	GpPrior prior;
	double mu;
	int k;

	gp_fit_prior(d, options->legacy_priors, &prior);
	mu = prior.ls_mean;
	if (options->warm_lengthscales == NULL)
		start++; /* no warm start: skip its slot */
	if (start > 0)
		start += options->first_alternate;
	if (start == 0)
	{
		for (k = 0; k < d; k++)
			theta[k] = log(options->warm_lengthscales[k]);
		theta[d] = log(options->warm_outputscale);
		theta[d + 1] = log(options->warm_noise);
		theta[d + 2] = options->warm_mean;
	}
	else if (start == 1)
	{
		for (k = 0; k < d; k++)
			theta[k] = log(0.25 * sqrt((double)d));
		theta[d] = 0.0;
		theta[d + 1] = log(1e-4);
	}
	else if (start == 2)
	{
		for (k = 0; k < d; k++)
			theta[k] = mu;
		theta[d] = 0.0;
		theta[d + 1] = -4.0;
	}
	else
	{
		for (k = 0; k < d; k++)
			theta[k] = mu - 1.5 + 1.5 * rng_normal(rng);
		theta[d] = 0.5 * rng_normal(rng);
		theta[d + 1] = -6.0 + 2.0 * rng_normal(rng);
	}
	if (start != 0)
		theta[d + 2] = 0.0;
	for (k = 0; k < d + 3; k++)
	{
		if (!isfinite(theta[k]))
			theta[k] = 0.5 * (lower[k] + upper[k]);
		theta[k] = clamp(theta[k], lower[k], upper[k]);
	}
}

/* Fit on normalised data; see gp.h. */
TunerErrorCode
gp_fit_standardized(const double *x, const double *y, int n, int d,
					const GpFitOptions *options, GpModel **out,
					TunerStatus *status)
{
	FitProblem p;
	NloptGuard guard;
	int dim = d + 3;
	int kept = 0; /* the warm hyperparameters kept as they are */
	double *lower = NULL;
	double *upper = NULL;
	double *theta = NULL;
	nlopt_opt opt = NULL;
	TunerRng rng;
	GpModel *model = NULL;
	TunerErrorCode rc;
	int start;
	int k;

	*out = NULL;
	if (n < 1 || d < 1)
		return tuner_fail(
			status, TUNER_ERR_INVALID,
			"fitting needs at least one point and one dimension");
	for (k = 0; k < n * d; k++)
		if (!isfinite(x[k]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "x contains NaN or infinity");
	for (k = 0; k < n; k++)
		if (!isfinite(y[k]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "y contains NaN or infinity");

	if (gp_has_extra_noise(options->extra_noise, n))
		for (k = 0; k < n; k++)
			if (!(options->extra_noise[k] >= 0.0) ||
				!isfinite(options->extra_noise[k]))
				return tuner_fail(
					status, TUNER_ERR_INVALID,
					"extra noise %d must be non-negative and finite", k + 1);

	rc = problem_init(&p, x, y, n, d, options->categories, options->use_priors,
					  options->legacy_priors, status);
	if (gp_has_extra_noise(options->extra_noise, n))
		p.extra = options->extra_noise;
	lower = tuner_alloc(sizeof(double) * dim);
	upper = tuner_alloc(sizeof(double) * dim);
	theta = tuner_alloc(sizeof(double) * dim);
	if (rc == TUNER_OK && (!lower || !upper || !theta))
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory fitting a model");
	if (rc != TUNER_OK)
		goto done;

	for (k = 0; k < d; k++)
	{
		lower[k] = LOG_LS_MIN;
		upper[k] = LOG_LS_MAX;
	}
	lower[d] = LOG_OS_MIN;
	upper[d] = LOG_OS_MAX;
	lower[d + 1] = log(options->min_noise > 0.0 ? options->min_noise : 1e-6);
	upper[d + 1] = LOG_NOISE_MAX;
	lower[d + 2] = -MEAN_BOUND;
	upper[d + 2] = MEAN_BOUND;

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
	nlopt_set_maxeval(opt, options->max_evals > 0 ? options->max_evals : 200);
	nlopt_set_ftol_rel(opt, 1e-7);
	nlopt_set_xtol_rel(opt, 1e-5);

	rng_seed(&rng, options->seed);
	if (options->max_evals == 1 && options->restarts <= 1 &&
		options->warm_lengthscales != NULL)
	{
		/*
		 * One evaluation from the warm start keeps the warm hyperparameters
		 * (a caller that refines them only now and then): no likelihood
		 * gradient to take, and gp_prepare below factorises K once.
		 */
		starting_point(options, d, 0, &rng, lower, upper, p.best_theta);
		for (k = 0; k < dim; k++)
			p.best_theta[k] = fmin(fmax(p.best_theta[k], lower[k]), upper[k]);
		guard.have_best = 1;
		kept = 1;
	}
	for (start = 0;
		 !kept && start < (options->restarts > 0 ? options->restarts : 1);
		 start++)
	{
		double value;

		starting_point(options, d, start, &rng, lower, upper, theta);
		/* The result code is not needed: the callback keeps the best point. */
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
		/* Every evaluation failed: report why from one plain evaluation. */
		double value;

		starting_point(options, d, 0, &rng, lower, upper, theta);
		rc = problem_eval(&p, theta, &value, NULL);
		if (rc == TUNER_OK)
			rc = tuner_fail(
				status, TUNER_ERR_NUMERIC,
				"the likelihood could not be evaluated at any hyperparameters");
		goto done;
	}

	model = gp_model_create(n, d, status);
	if (model == NULL)
	{
		rc = status ? status->code : TUNER_ERR_NOMEM;
		goto done;
	}
	memcpy(model->x, x, sizeof(double) * n * d);
	memcpy(model->y, y, sizeof(double) * n);
	for (k = 0; k < d; k++)
		model->lengthscales[k] = exp(p.best_theta[k]);
	model->outputscale = exp(p.best_theta[d]);
	model->noise = exp(p.best_theta[d + 1]);
	model->mean = p.best_theta[d + 2];
	rc = gp_model_set_categories(model, options->categories, status);
	if (rc == TUNER_OK)
		rc = gp_model_set_extra_noise(model, p.extra, status);
	if (rc == TUNER_OK)
		rc = gp_prepare(model, status);
	if (rc != TUNER_OK)
	{
		gp_model_free(model);
		model = NULL;
	}

done:
	if (opt != NULL)
		nlopt_destroy(opt);
	tuner_free(lower);
	tuner_free(upper);
	tuner_free(theta);
	problem_free(&p);
	*out = model;
	return rc;
}

/* Fit in the caller's coordinates; see gp.h. */
TunerErrorCode
gp_fit(const double *x, const double *y, int n, int d,
	   const GpFitOptions *options, GpModel **out, TunerStatus *status)
{
	double *xn = NULL;
	double *yn = NULL;
	double *lo = NULL;
	double *range = NULL;
	double *extra = NULL;
	GpFitOptions scaled;
	double y_mean = 0.0;
	double y_sd = 0.0;
	GpModel *fitted = NULL;
	GpModel *model = NULL;
	TunerErrorCode rc;
	int i, k;

	*out = NULL;
	if (n < 1 || d < 1)
		return tuner_fail(
			status, TUNER_ERR_INVALID,
			"fitting needs at least one point and one dimension");
	xn = tuner_alloc(sizeof(double) * n * d);
	yn = tuner_alloc(sizeof(double) * n);
	lo = tuner_alloc(sizeof(double) * d);
	range = tuner_alloc(sizeof(double) * d);
	if (!xn || !yn || !lo || !range)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory fitting a model");
		goto done;
	}

	/*
	 * Inputs to [0, 1] per column; a constant column keeps unit range, and
	 * a categorical one its coordinates (they name choices by their bins).
	 */
	for (k = 0; k < d; k++)
	{
		double mn = x[k], mx = x[k];

		if (options->categories != NULL && options->categories[k] > 0)
		{
			lo[k] = 0.0;
			range[k] = 1.0;
			for (i = 0; i < n; i++)
				xn[(size_t)i * d + k] = x[(size_t)i * d + k];
			continue;
		}

		for (i = 1; i < n; i++)
		{
			mn = fmin(mn, x[(size_t)i * d + k]);
			mx = fmax(mx, x[(size_t)i * d + k]);
		}
		lo[k] = mn;
		range[k] = (mx - mn > 0.0 && isfinite(mx - mn)) ? mx - mn : 1.0;
		for (i = 0; i < n; i++)
			xn[(size_t)i * d + k] = (x[(size_t)i * d + k] - lo[k]) / range[k];
	}
	for (i = 0; i < n; i++)
		y_mean += y[i] / n;
	for (i = 0; i < n; i++)
		y_sd += (y[i] - y_mean) * (y[i] - y_mean);
	y_sd = n > 1 ? sqrt(y_sd / (n - 1)) : 0.0;
	if (!(y_sd > 0.0) || !isfinite(y_sd))
		y_sd = 1.0;
	for (i = 0; i < n; i++)
		yn[i] = (y[i] - y_mean) / y_sd;
	/* extra noise variances in units of y's variance */
	scaled = *options;
	if (gp_has_extra_noise(options->extra_noise, n))
	{
		extra = tuner_alloc(sizeof(double) * n);
		if (extra == NULL)
		{
			rc = tuner_fail(status, TUNER_ERR_NOMEM,
							"out of memory fitting a model");
			goto done;
		}
		for (i = 0; i < n; i++)
		{
			if (!(options->extra_noise[i] >= 0.0) ||
				!isfinite(options->extra_noise[i]))
			{
				rc = tuner_fail(
					status, TUNER_ERR_INVALID,
					"extra noise %d must be non-negative and finite", i + 1);
				goto done;
			}
			extra[i] = fmin(options->extra_noise[i] / (y_sd * y_sd),
							GP_MAX_EXTRA_NOISE);
		}
		scaled.extra_noise = extra;
	}

	rc = gp_fit_standardized(xn, yn, n, d, &scaled, &fitted, status);
	if (rc != TUNER_OK)
		goto done;

	model = gp_model_create(n, d, status);
	if (model == NULL)
	{
		rc = status ? status->code : TUNER_ERR_NOMEM;
		goto done;
	}
	memcpy(model->x, x, sizeof(double) * n * d);
	memcpy(model->y, y, sizeof(double) * n);
	for (k = 0; k < d; k++)
		model->lengthscales[k] = fitted->lengthscales[k] * range[k];
	model->outputscale = fitted->outputscale * y_sd * y_sd;
	model->noise = fitted->noise * y_sd * y_sd;
	model->mean = y_mean + fitted->mean * y_sd;
	rc = gp_model_set_categories(model, options->categories, status);
	if (rc == TUNER_OK)
		rc = gp_model_set_extra_noise(model, options->extra_noise, status);
	if (rc == TUNER_OK)
		rc = gp_prepare(model, status);
	if (rc != TUNER_OK)
	{
		gp_model_free(model);
		model = NULL;
	}

done:
	gp_model_free(fitted);
	tuner_free(xn);
	tuner_free(yn);
	tuner_free(lo);
	tuner_free(range);
	tuner_free(extra);
	*out = model;
	return rc;
}

/* One evaluation of the fit objective; see gp.h. */
TunerErrorCode
gp_fit_objective(const double *x, const double *y, int n, int d,
				 int use_priors, const double *theta, double *value,
				 double *grad, TunerStatus *status)
{
	return gp_fit_objective_metric(x, y, n, d, NULL, use_priors, theta, value,
								   grad, status);
}

/* One evaluation under an input metric; see gp.h. */
TunerErrorCode
gp_fit_objective_metric(const double *x, const double *y, int n, int d,
						const int *categories, int use_priors,
						const double *theta, double *value, double *grad,
						TunerStatus *status)
{
	return gp_fit_objective_noise(x, y, n, d, categories, NULL, use_priors,
								  theta, value, grad, status);
}

/* One evaluation with per-point extra noise; see gp.h. */
TunerErrorCode
gp_fit_objective_noise(const double *x, const double *y, int n, int d,
					   const int *categories, const double *extra_noise,
					   int use_priors, const double *theta, double *value,
					   double *grad, TunerStatus *status)
{
	FitProblem p;
	TunerErrorCode rc;

	rc = problem_init(&p, x, y, n, d, categories, use_priors, 0, status);
	if (rc == TUNER_OK && gp_has_extra_noise(extra_noise, n))
		p.extra = extra_noise;
	if (rc == TUNER_OK)
		rc = problem_eval(&p, theta, value, grad);
	problem_free(&p);
	return rc;
}
