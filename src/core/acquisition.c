/*
 * acquisition.c
 *	  Log expected improvement and its maximisation over any Posterior: the
 *	  chain rule from the posterior's mean and variance gradients to the
 *	  gradient of log EI, candidate scoring in one batch, and L-BFGS.
 *
 *	  Categorical dimensions (the posterior's categories, matern.h): the
 *	  model is constant within each choice's bin, so L-BFGS never moves
 *	  them.  The uniform candidates cover every choice (a choice is a bin of
 *	  equal width); a candidate around an incumbent that moves a
 *	  categorical takes another choice uniformly (no choice is nearer than
 *	  another); and each refined point then tries every choice of each
 *	  categorical dimension in turn, keeping the best log EI, for rounds
 *	  until no choice changes (at most CHOICE_PASSES), then, if one did,
 *	  refines the ordered dimensions once more and sweeps the choices again.
 *	  Without categorical dimensions none of this runs and the search is
 *	  exactly the continuous one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <nlopt.h>

#include "acquisition.h"
#include "log_ei.h"
#include "matern.h"

/* Posterior sd never goes below this fraction of the prior sd. */
#define MIN_SD_FRACTION 1e-6

/* Rounds of the coordinate-wise search over categorical choices. */
#define CHOICE_PASSES 3

void
acquisition_options_init(AcquisitionOptions *options, int d)
{
	options->n_random = 512;
	options->n_local = 512;
	options->n_refine = 4;
	options->max_evals = 60;
	options->n_exact = 0;
	(void)d;
}

/*
 * Doubles of scratch for acquisition_log_ei: the posterior's and 2 d, and
 * with a feasibility term its own and d for its gradient.
 */
int
acquisition_scratch_size(const Posterior *post)
{
	return post->n_scratch + 2 * post->d +
		   (post->feasibility != NULL ? post->feasibility->n_scratch + post->d
									  : 0);
}

/*
 * log EI value (gradient grad, may be NULL) plus the posterior's log
 * P(feasible) at u, or that log probability alone when there is no
 * incumbent; scratch as for acquisition_log_ei.
 */
static double
add_feasibility(const Posterior *post, const double *u, double value,
				double *grad, double *scratch)
{
	const PosteriorFeasibility *f = post->feasibility;
	double *fgrad = scratch + post->n_scratch + 2 * post->d;
	double log_p =
		f->point(f->state, u, grad != NULL ? fgrad : NULL, fgrad + post->d);
	int k;

	if (grad != NULL)
		for (k = 0; k < post->d; k++)
			grad[k] = f->without_ei ? fgrad[k] : grad[k] + fgrad[k];
	return f->without_ei ? log_p : value + log_p;
}

/* log EI at one point and its gradient; see acquisition.h. */
double
acquisition_log_ei(const Posterior *post, double best, const double *u,
				   double *grad, double *scratch)
{
	int d = post->d;
	double *dmu = scratch + post->n_scratch;
	double *dvar = dmu + d;
	double mu, var, sd, sd_min = MIN_SD_FRACTION * sqrt(post->prior_var), z,
						value;
	int k;

	post->point(post->state, u, &mu, &var, grad != NULL ? dmu : NULL, dvar,
				scratch);
	sd = var > sd_min * sd_min ? sqrt(var) : sd_min;
	z = (best - mu) / sd;
	value = log(sd) + log_ei_log_h(z);

	if (grad != NULL)
	{
		double g = log_ei_dlog_h(z);
		int sd_floored = !(var > sd_min * sd_min);

		for (k = 0; k < d; k++)
		{
			double dsd = sd_floored ? 0.0 : dvar[k] / (2.0 * sd);

			grad[k] = dsd / sd + g * (-dmu[k] / sd - z * dsd / sd);
		}
	}
	if (post->feasibility != NULL)
		value = add_feasibility(post, u, value, grad, scratch);
	return value;
}

typedef struct RefineProblem
{
	const Posterior *post;
	double best;
	double *scratch;
	nlopt_opt opt;   /* force-stopped on an interrupt */
	int interrupted; /* set once tuner_interrupted() said so */
} RefineProblem;

static double
refine_objective(unsigned dim, const double *u, double *grad, void *data)
{
	RefineProblem *p = data;
	double v;

	if (p->interrupted || tuner_interrupted())
	{
		/* never longjmp out of NLopt: stop it, the caller reports */
		p->interrupted = 1;
		nlopt_force_stop(p->opt);
		if (grad != NULL)
			memset(grad, 0, sizeof(double) * dim);
		return -1e300;
	}
	v = acquisition_log_ei(p->post, p->best, u, grad, p->scratch);
	if (!isfinite(v))
	{
		if (grad != NULL)
			memset(grad, 0, sizeof(double) * dim);
		return -1e300;
	}
	return v;
}

typedef struct Ranked
{
	double value;
	int index;
	int tie; /* the order among equal values: index, or log EI rank */
} Ranked;

static int
ranked_desc(const void *a, const void *b)
{
	const Ranked *ra = a;
	const Ranked *rb = b;

	if (ra->value > rb->value)
		return -1;
	if (ra->value < rb->value)
		return 1;
	return ra->tie - rb->tie; /* stable, so results are reproducible */
}

static int
double_desc(const void *a, const void *b)
{
	double x = *(const double *)a;
	double y = *(const double *)b;

	return x > y ? -1 : x < y ? 1 : 0;
}

/* The n_keep-th largest value of ranked[0 .. n) (n >= n_keep >= 1). */
static double
kth_value(const Ranked *ranked, int n, int n_keep, double *values)
{
	int j;

	for (j = 0; j < n; j++)
		values[j] = ranked[j].value;
	qsort(values, n, sizeof(double), double_desc);
	return values[n_keep - 1];
}

/*
 * Add the feasibility term to the n candidates' log EI (ranked[j], in
 * candidate order), or with without_ei make it their value.  The term is
 * a log probability, never positive, so a candidate whose log EI is below
 * the n_keep-th best sum found so far cannot be among the n_keep best
 * (the starts refined and the points ranked exactly): candidates are
 * scored in blocks in order of log EI until the next one's log EI falls
 * below that bar, and the rest get -inf, ordered among themselves by log
 * EI.  A scored candidate's sum is the one scoring all of them gives (up
 * to the last bits of the term's BLAS products, which are blocked by the
 * batch's size), so the n_keep best are the same.  log_p and values are
 * scratch of n doubles each.
 */
static TunerErrorCode
score_feasibility(const PosteriorFeasibility *f, const double *cand, int d,
				  int n, int n_keep, Ranked *ranked, double *log_p,
				  double *values, TunerStatus *status)
{
	double *gathered;
	TunerErrorCode rc = TUNER_OK;
	int scored = 0;
	int j;

	if (f->without_ei || n_keep >= n)
	{
		rc = f->batch(f->state, cand, n, log_p, status);
		for (j = 0; rc == TUNER_OK && j < n; j++)
			ranked[j].value =
				f->without_ei ? log_p[j] : ranked[j].value + log_p[j];
		return rc;
	}
	gathered = tuner_alloc(sizeof(double) * (size_t)n * d);
	if (gathered == NULL)
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory scoring feasibility");
	qsort(ranked, n, sizeof(Ranked), ranked_desc);
	while (scored < n)
	{
		int block = scored == 0 ? n_keep : n_keep / 2 + 1;

		if (block > n - scored)
			block = n - scored;
		for (j = 0; j < block; j++)
			memcpy(gathered + (size_t)j * d,
				   cand + (size_t)ranked[scored + j].index * d,
				   sizeof(double) * d);
		rc = f->batch(f->state, gathered, block, log_p, status);
		if (rc != TUNER_OK)
			break;
		for (j = 0; j < block; j++)
			ranked[scored + j].value += log_p[j];
		scored += block;
		if (scored < n &&
			ranked[scored].value < kth_value(ranked, scored, n_keep, values))
			break;
	}
	for (j = scored; j < n; j++)
	{
		ranked[j].value = -INFINITY;
		ranked[j].tie = n + j;
	}
	tuner_free(gathered);
	return rc;
}

/*
 * Fill candidates: uniform points, then perturbations of the incumbents (a
 * categorical dimension, categories[k] > 0, moves to another choice's
 * centre).
 */
static void
make_candidates(int d, const int *categories, const double *incumbents,
				int n_incumbents, const AcquisitionOptions *options,
				TunerRng *rng, double *cand)
{
	int c = 0;
	int j, k;
	/* perturb about 5 coordinates at a time, so high dimensions stay local */
	double p_move = d <= 5 ? 1.0 : 5.0 / d;

	for (j = 0; j < options->n_random; j++, c++)
		for (k = 0; k < d; k++)
			cand[(size_t)c * d + k] = rng_uniform(rng);
	for (j = 0; j < (n_incumbents > 0 ? options->n_local : 0); j++, c++)
	{
		const double *base = incumbents + (size_t)(j % n_incumbents) * d;
		double scale = (j % 3 == 0) ? 0.2 : ((j % 3 == 1) ? 0.05 : 0.01);
		int moved = 0;
		int forced = (int)rng_below(rng, (uint64_t)d);

		for (k = 0; k < d; k++)
		{
			double v = base[k];

			if (rng_uniform(rng) < p_move || (k == forced && !moved))
			{
				if (categories != NULL && categories[k] > 1)
				{
					int choices = categories[k];
					int other =
						(matern_choice(v, choices) + 1 +
						 (int)rng_below(rng, (uint64_t)(choices - 1))) %
						choices;

					v = (other + 0.5) / choices;
				}
				else
					v += scale * rng_normal(rng);
				moved = 1;
			}
			cand[(size_t)c * d + k] = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
		}
	}
}

/*
 * One round of the coordinate-wise search over the choices of the
 * categorical dimensions at x (value: its log EI): each dimension in turn
 * takes its best choice given the others.  Returns 1 if a choice changed;
 * x and *value are the best found.
 */
static int
sweep_choices(const Posterior *post, double best, double *x, double *value,
			  double *scratch, int *interrupted)
{
	int changed = 0;
	int k, c;

	for (k = 0; k < post->d; k++)
	{
		int choices = post->categories[k];
		int current;
		double keep = x[k];

		if (choices <= 1)
			continue;
		current = matern_choice(x[k], choices);
		for (c = 0; c < choices; c++)
		{
			double v;

			if (c == current)
				continue;
			/* a categorical can have millions of choices: poll */
			if (c % 1024 == 0 && tuner_interrupted())
			{
				*interrupted = 1;
				x[k] = keep;
				return 0;
			}
			x[k] = (c + 0.5) / choices;
			v = acquisition_log_ei(post, best, x, NULL, scratch);
			if (isfinite(v) && v > *value)
			{
				*value = v;
				keep = x[k];
				changed = 1;
			}
		}
		x[k] = keep;
	}
	return changed;
}

/*
 * The search over choices at a refined point x (value: its log EI):
 * rounds of sweep_choices until none changes a choice (at most
 * CHOICE_PASSES); if one did, the ordered dimensions are refined again by
 * opt once (their optimum moves with the choices) and the choices swept
 * once more.  Returns the best log EI, with x its point.  trial holds d
 * doubles.
 */
static double
search_choices(const Posterior *post, double best, nlopt_opt opt,
			   int n_ordered, double *x, double value, double *trial,
			   double *scratch, int *interrupted)
{
	int changed = 0;
	int pass;

	for (pass = 0; pass < CHOICE_PASSES; pass++)
	{
		if (!sweep_choices(post, best, x, &value, scratch, interrupted))
			break;
		changed = 1;
	}
	if (changed && n_ordered > 0 && !*interrupted)
	{
		double v = value;

		memcpy(trial, x, sizeof(double) * post->d);
		(void)nlopt_optimize(opt, trial, &v);
		if (isfinite(v) && v > value)
		{
			memcpy(x, trial, sizeof(double) * post->d);
			value = v;
			(void)sweep_choices(post, best, x, &value, scratch, interrupted);
		}
	}
	return value;
}

TunerErrorCode
acquisition_rank(const Posterior *post, double best, const double *incumbents,
				 int n_incumbents, const AcquisitionOptions *options,
				 TunerRng *rng, int max_out, double *points, double *values,
				 int *n_out, TunerStatus *status)
{
	int d = post->d;
	int n_cand = options->n_random + (n_incumbents > 0 ? options->n_local : 0);
	int n_refine = options->n_refine < n_cand ? options->n_refine : n_cand;
	int total = n_cand + n_refine;
	double *cand = NULL;
	double *mean = NULL;
	double *sd = NULL;
	double *scratch = NULL;
	double *lower = NULL;
	double *upper = NULL;
	double *trial = NULL;
	Ranked *ranked = NULL;
	nlopt_opt opt = NULL;
	TunerErrorCode rc = TUNER_OK;
	int n_categorical = matern_n_categorical(post->categories, d);
	int j, k;

	*n_out = 0;
	cand = tuner_alloc(sizeof(double) * (size_t)total * d);
	mean = tuner_alloc(sizeof(double) * total);
	sd = tuner_alloc(sizeof(double) * total);
	scratch = tuner_alloc(sizeof(double) * acquisition_scratch_size(post));
	lower = tuner_alloc_zero(sizeof(double) * d);
	upper = tuner_alloc(sizeof(double) * d);
	ranked = tuner_alloc(sizeof(Ranked) * total);
	trial = tuner_alloc(sizeof(double) * d);
	if (!cand || !mean || !sd || !scratch || !lower || !upper || !ranked ||
		!trial)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory maximising the acquisition");
		goto done;
	}

	make_candidates(d, post->categories, incumbents, n_incumbents, options,
					rng, cand);
	rc = post->batch(post->state, cand, n_cand, mean, sd, status);
	if (rc == TUNER_OK)
		rc = tuner_check_interrupt(status);
	if (rc != TUNER_OK)
		goto done;
	for (j = 0; j < n_cand; j++)
	{
		double sd_min = MIN_SD_FRACTION * sqrt(post->prior_var);

		ranked[j].value =
			log(sd[j] > sd_min ? sd[j] : sd_min) +
			log_ei_log_h((best - mean[j]) / (sd[j] > sd_min ? sd[j] : sd_min));
		ranked[j].index = j;
		ranked[j].tie = j;
	}
	if (post->feasibility != NULL)
	{
		/* mean and sd are free again: scratch for the feasibility term */
		int n_exact = options->n_exact > 0 && options->n_exact < max_out
						  ? options->n_exact
						  : max_out;

		rc = score_feasibility(post->feasibility, cand, d, n_cand,
							   n_refine > n_exact ? n_refine : n_exact, ranked,
							   mean, sd, status);
		if (rc != TUNER_OK)
			goto done;
	}
	qsort(ranked, n_cand, sizeof(Ranked), ranked_desc);

	/* Refine the best few starts; each refined point is a new candidate. */
	for (k = 0; k < d; k++)
		upper[k] = 1.0;
	opt = nlopt_create(NLOPT_LD_LBFGS, d);
	if (opt == NULL)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"could not create the NLopt optimiser");
		goto done;
	}
	{
		RefineProblem problem = {post, best, scratch, opt, 0};

		nlopt_set_lower_bounds(opt, lower);
		nlopt_set_upper_bounds(opt, upper);
		nlopt_set_max_objective(opt, refine_objective, &problem);
		nlopt_set_maxeval(opt, options->max_evals);
		nlopt_set_ftol_rel(opt, 1e-9);
		nlopt_set_xtol_rel(opt, 1e-7);
		for (j = 0; j < n_refine; j++)
		{
			double *x = cand + (size_t)(n_cand + j) * d;
			double value = ranked[j].value;
			double start = value;

			memcpy(x, cand + (size_t)ranked[j].index * d, sizeof(double) * d);
			(void)nlopt_optimize(opt, x, &value);
			if (problem.interrupted)
				break;
			/* NLopt may end on a worse point after a failed line search */
			if (!(value >= start) || !isfinite(value))
			{
				memcpy(x, cand + (size_t)ranked[j].index * d,
					   sizeof(double) * d);
				value = start;
			}
			if (n_categorical > 0)
				value = search_choices(post, best, opt, d - n_categorical, x,
									   value, trial, scratch,
									   &problem.interrupted);
			if (problem.interrupted)
				break;
			ranked[n_cand + j].value = value;
			ranked[n_cand + j].index = n_cand + j;
			ranked[n_cand + j].tie = n_cand + j;
		}
		if (problem.interrupted)
		{
			rc = tuner_fail(status, TUNER_ERR_INTERRUPTED,
							"maximising the acquisition was interrupted");
			goto done;
		}
	}
	qsort(ranked, total, sizeof(Ranked), ranked_desc);

	for (j = 0; j < total && j < max_out; j++)
	{
		memcpy(points + (size_t)j * d, cand + (size_t)ranked[j].index * d,
			   sizeof(double) * d);
		values[j] = ranked[j].value;
	}
	*n_out = j;

done:
	if (opt != NULL)
		nlopt_destroy(opt);
	tuner_free(cand);
	tuner_free(mean);
	tuner_free(sd);
	tuner_free(scratch);
	tuner_free(lower);
	tuner_free(upper);
	tuner_free(trial);
	tuner_free(ranked);
	return rc;
}
