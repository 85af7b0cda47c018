/*
 * suggest.c
 *	  One Bayesian-optimisation step: space-filling design first, then a
 *	  model of the history (suggest_gp.c, suggest_icm.c or
 *	  suggest_clustered.c) and the point of
 *	  highest log EI that is not already a trial, or, for
 *	  SUGGEST_ALG_RANDOM, a uniform random untried point.  This file holds
 *	  the entry point, the input checks and what both models share.
 */
#include <math.h>
#include <string.h>

#include "acquisition.h"
#include "design.h"
#include "feasibility.h"
#include "suggest_internal.h"

#define MAX_RANKED   256
#define RESCORED     64
#define DESIGN_TRIES 1000
#define RANDOM_TRIES 20000

/*
 * An auxiliary metric whose sd is below this fraction of its mean is
 * constant.
 */
#define NO_SPREAD 1e-12

/* Does native config c break a linear parameter constraint of in? */
int
suggest_breaks_linear(const SuggestInput *in, const double *c)
{
	int r, j;

	for (r = 0; r < in->n_linear; r++)
	{
		double lhs = 0.0;

		for (j = 0; j < in->d; j++)
			lhs += in->linear_coef[(size_t)r * in->d + j] * c[j];
		if (in->linear_strict[r] ? !(lhs < in->linear_rhs[r])
								 : !(lhs <= in->linear_rhs[r]))
			return 1;
	}
	return 0;
}

/* The configuration of a unit-cube point; see suggest_internal.h. */
void
suggest_native(const SuggestInput *in, double *unit, double *native)
{
	int stack_active[256];
	int *active = NULL;

	if (!in->canonical)
	{
		space_from_unit(in->params, in->d, unit, native);
		return;
	}
	space_snap_unit(in->params, in->d, unit);
	space_from_unit(in->params, in->d, unit, native);
	if (in->conditions != NULL)
		active = in->d <= 256 ? stack_active
							  : tuner_alloc(sizeof(int) * (size_t)in->d);
	/* without scratch space_canonical walks up each parameter's parents */
	space_canonical(in->params, in->conditions, in->d, native, unit, active);
	if (active != stack_active)
		tuner_free(active);
}

/* Is native config c one of the trials; see suggest_internal.h. */
int
suggest_is_taken(const SuggestInput *in, const double *c)
{
	const double *sets[4] = {in->x_observed, in->x_pending, in->x_other,
							 in->x_failed};
	int counts[4] = {in->n_observed, in->n_pending, in->n_other, in->n_failed};
	int s, i;

	if (in->n_linear > 0 && suggest_breaks_linear(in, c))
		return 1;
	for (s = 0; s < 4; s++)
		for (i = 0; i < counts[s]; i++)
			if (space_same_config(in->params, in->d,
								  sets[s] + (size_t)i * in->d, c))
				return 1;
	return 0;
}

/* The inputs of the ICM algorithm: auxiliary metrics and rank. */
static TunerErrorCode
validate_icm_input(const SuggestInput *in, TunerStatus *status)
{
	size_t i;

	if (in->n_aux < 0)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "the number of auxiliary metrics must not be "
						  "negative (got %d)",
						  in->n_aux);
	if (in->n_aux > 0 && in->y_aux == NULL)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "auxiliary metric values are missing");
	for (i = 0; i < (size_t)in->n_observed * in->n_aux; i++)
		if (isinf(in->y_aux[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "auxiliary metric %d of trial %d is infinite",
							  (int)(i % in->n_aux) + 1,
							  (int)(i / in->n_aux) + 1);
	if (in->aux_weights != NULL)
		for (i = 0; i < (size_t)in->n_aux; i++)
			if (!isfinite(in->aux_weights[i]))
				return tuner_fail(status, TUNER_ERR_INVALID,
								  "the joint weight of auxiliary metric %d is "
								  "NaN or infinite",
								  (int)i + 1);
	if (in->icm_rank < 0)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "the ICM rank must not be negative (got %d)",
						  in->icm_rank);
	if (in->n_transfer < 0 || in->n_transfer_tasks < 0 ||
		(in->n_transfer > 0 &&
		 (in->x_transfer == NULL || in->y_transfer == NULL ||
		  in->n_transfer_tasks == 0)))
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "transfer arrays are inconsistent");
	for (i = 0; i < (size_t)in->n_transfer * in->d; i++)
		if (!isfinite(in->x_transfer[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "an earlier study's configuration contains NaN "
							  "or infinity");
	for (i = 0; i < (size_t)in->n_transfer * in->n_transfer_tasks; i++)
		if (isinf(in->y_transfer[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "an earlier study's objective is infinite");
	return TUNER_OK;
}

/* The clusters of clustered ICM: members and metric of each. */
static TunerErrorCode
validate_clusters(const SuggestInput *in, TunerStatus *status)
{
	int c, j;

	if (in->n_clusters < 1)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "clustered ICM needs at least one cluster (got %d)",
						  in->n_clusters);
	if (in->cluster_members == NULL || in->cluster_metric == NULL)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "the clusters' members or metrics are missing");
	for (c = 0; c < in->n_clusters; c++)
	{
		int members = 0;

		if (in->cluster_metric[c] < 0 || in->cluster_metric[c] >= in->n_aux)
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "cluster %d names auxiliary metric %d, but "
							  "there are %d",
							  c + 1, in->cluster_metric[c] + 1, in->n_aux);
		for (j = 0; j < in->d; j++)
		{
			int m = in->cluster_members[(size_t)c * in->d + j];

			if (m != 0 && m != 1)
				return tuner_fail(status, TUNER_ERR_INVALID,
								  "membership of parameter %d in cluster %d "
								  "must be 0 or 1 (got %d)",
								  j + 1, c + 1, m);
			members += m;
		}
		if (members == 0)
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "cluster %d has no parameters", c + 1);
	}
	return TUNER_OK;
}

/* Outcome constraints and linear parameter constraints. */
static TunerErrorCode
validate_constraints(const SuggestInput *in, TunerStatus *status)
{
	size_t i;

	if (in->n_constraints < 0 ||
		(in->n_constraints > 0 &&
		 (in->y_constraint == NULL || in->constraint_bound == NULL)))
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "outcome constraint arrays are inconsistent");
	for (i = 0; i < (size_t)in->n_constraints; i++)
		if (!isfinite(in->constraint_bound[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "the bound of outcome constraint %d is NaN or "
							  "infinite",
							  (int)i + 1);
	for (i = 0; i < (size_t)in->n_observed * in->n_constraints; i++)
		if (isinf(in->y_constraint[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "a constraint metric value is infinite");
	if (in->n_constraints > 0 && in->aux_weights != NULL)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "outcome constraints cannot be combined with a "
						  "joint multi-task target");
	if (in->n_linear < 0 || (in->n_linear > 0 && (in->linear_coef == NULL ||
												  in->linear_rhs == NULL ||
												  in->linear_strict == NULL)))
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "parameter constraint arrays are inconsistent");
	for (i = 0; i < (size_t)in->n_linear * in->d; i++)
		if (!isfinite(in->linear_coef[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "a parameter constraint's coefficient is NaN "
							  "or infinite");
	for (i = 0; i < (size_t)in->n_linear; i++)
		if (!isfinite(in->linear_rhs[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "a parameter constraint's bound is NaN or "
							  "infinite");
	return TUNER_OK;
}

static TunerErrorCode
validate_input(const SuggestInput *in, TunerStatus *status)
{
	const double *sets[4] = {in->x_observed, in->x_pending, in->x_other,
							 in->x_failed};
	int counts[4] = {in->n_observed, in->n_pending, in->n_other, in->n_failed};
	int s;
	size_t i;
	TunerErrorCode rc = space_validate(in->params, in->d, status);

	if (rc != TUNER_OK)
		return rc;
	if (in->algorithm != SUGGEST_ALG_GP_EI &&
		in->algorithm != SUGGEST_ALG_ICM &&
		in->algorithm != SUGGEST_ALG_RANDOM &&
		in->algorithm != SUGGEST_ALG_CLUSTERED_ICM)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "unknown suggestion algorithm %d",
						  (int)in->algorithm);
	for (s = 0; s < 4; s++)
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
	if (in->canonical)
	{
		rc = space_validate_conditions(in->params, in->conditions, in->d,
									   status);
		if (rc != TUNER_OK)
			return rc;
	}
	rc = validate_icm_input(in, status);
	if (rc == TUNER_OK)
		rc = validate_constraints(in, status);
	if (rc == TUNER_OK && in->algorithm == SUGGEST_ALG_CLUSTERED_ICM)
		rc = validate_clusters(in, status);
	return rc;
}

/* Uniform random untaken point; see suggest_internal.h. */
TunerErrorCode
suggest_random_untaken(const SuggestInput *in, TunerRng *rng, double *unit,
					   SuggestResult *out, TunerStatus *status)
{
	int t, k;

	for (t = 0; t < RANDOM_TRIES; t++)
	{
		for (k = 0; k < in->d; k++)
			unit[k] = rng_uniform(rng);
		suggest_native(in, unit, out->config);
		if (!suggest_is_taken(in, out->config))
		{
			out->source = SUGGEST_RANDOM;
			return TUNER_OK;
		}
	}
	if (in->n_linear > 0)
		return tuner_fail(status, TUNER_ERR_EXHAUSTED,
						  "no untried configuration satisfies the parameter "
						  "constraints");
	return tuner_fail(status, TUNER_ERR_EXHAUSTED,
					  "every configuration of the space has been tried");
}

/*
 * The next untaken point of the space-filling design.  Once trials have
 * both run and failed, the failure model (feasibility.h) is fitted on them
 * and the design passes over points it predicts to fail (P(feasible) below
 * one half, the classifier's own decision boundary), since a failed design
 * point teaches the objective's model nothing.  When every remaining point
 * is predicted to fail, the first untaken one is taken as before.  Without
 * failed trials the design is the plain sequence.  The design ends once
 * n_initial trials have run; tuner.suggest_next lowers n_initial by the
 * failed trials, down to 2, so that failures count towards its length.
 */
static TunerErrorCode
suggest_design(const SuggestInput *in, TunerRng *rng, double *unit,
			   SuggestResult *out, TunerStatus *status)
{
	FeasibilityModel *feasibility = NULL;
	double *scratch = NULL;
	int first_untaken = -1;
	TunerErrorCode rc = TUNER_OK;
	int t;

	if (in->n_failed > 0 && in->n_observed > 0)
	{
		/* the failures alone: a broken constraint still gives a value */
		SuggestInput runs = *in;

		runs.n_constraints = 0;
		rc = feasibility_fit(&runs, rng_next(rng), &feasibility, status);
		if (rc != TUNER_OK)
			return rc;
		if (feasibility != NULL)
		{
			scratch =
				tuner_alloc(sizeof(double) * feasibility->hook.n_scratch);
			if (scratch == NULL)
			{
				rc = tuner_fail(status, TUNER_ERR_NOMEM,
								"out of memory suggesting a trial");
				goto done;
			}
		}
	}
	for (t = 0; t < DESIGN_TRIES; t++)
	{
		rc = design_halton_point(in->design_seed, in->design_index + t, in->d,
								 unit, status);
		if (rc != TUNER_OK)
			goto done;
		suggest_native(in, unit, out->config);
		if (suggest_is_taken(in, out->config))
			continue;
		if (first_untaken < 0)
			first_untaken = t;
		if (feasibility == NULL ||
			feasibility_log_prob(feasibility, unit, NULL, scratch) >= log(0.5))
		{
			out->source = SUGGEST_DESIGN;
			goto done;
		}
	}
	if (first_untaken >= 0)
	{
		rc = design_halton_point(in->design_seed,
								 in->design_index + first_untaken, in->d, unit,
								 status);
		if (rc == TUNER_OK)
		{
			suggest_native(in, unit, out->config);
			out->source = SUGGEST_DESIGN;
		}
	}
	else
		rc = suggest_random_untaken(in, rng, unit, out, status);
done:
	feasibility_free(feasibility);
	tuner_free(scratch);
	return rc;
}

/* Another start at n trials?  See suggest_internal.h. */
int
suggest_alternate_start(int n, int *first_alternate)
{
	int period =
		n < SUGGEST_ALTERNATE_SPARSE_N ? 4 : SUGGEST_ALTERNATE_SPARSE_PERIOD;

	*first_alternate = (n / period) % 3;
	return n % period == 0;
}

/* Mean and sd of the non-NaN values; see suggest_internal.h. */
int
suggest_metric_scale(const double *values, int n, int stride, double *mean,
					 double *sd)
{
	double m = 0.0, ss = 0.0;
	int count = 0;
	int i;

	for (i = 0; i < n; i++)
		count += !isnan(values[(size_t)i * stride]);
	for (i = 0; i < n; i++)
		if (!isnan(values[(size_t)i * stride]))
			m += values[(size_t)i * stride] / count;
	for (i = 0; i < n; i++)
		if (!isnan(values[(size_t)i * stride]))
			ss += (values[(size_t)i * stride] - m) *
				  (values[(size_t)i * stride] - m);
	*mean = m;
	*sd = count > 1 ? sqrt(ss / (count - 1)) : 0.0;
	return count;
}

/* Scale of a metric and whether to model it; see suggest_internal.h. */
int
suggest_usable_scale(const double *values, int n, int stride, double *mean,
					 double *sd)
{
	int count = suggest_metric_scale(values, n, stride, mean, sd);

	/*
	 * A constant's computed sd is round-off of its mean, not exactly zero:
	 * count it as no spread relative to the mean.
	 */
	return count >= 2 && *sd > NO_SPREAD * fabs(*mean) && *sd > 0.0 &&
		   isfinite(*sd) && isfinite(*mean);
}

/* Scale of an auxiliary metric; see suggest_internal.h. */
int
suggest_aux_scale(const SuggestInput *in, int j, double *mean, double *sd)
{
	return suggest_usable_scale(in->y_aux + j, in->n_observed, in->n_aux, mean,
								sd);
}

/* Seconds since start; see suggest_internal.h. */
double
suggest_seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) +
		   1e-9 * (double)(now.tv_nsec - start->tv_nsec);
}

/* The lowest-y observed points; see suggest_internal.h. */
int
suggest_pick_incumbents(const double *x, const double *y, int n, int d,
						double *incumbents)
{
	int k = n < SUGGEST_MAX_INCUMBENTS ? n : SUGGEST_MAX_INCUMBENTS;
	int chosen[SUGGEST_MAX_INCUMBENTS];
	int c, i, j;

	for (c = 0; c < k; c++)
	{
		int best = -1;

		for (i = 0; i < n; i++)
		{
			int used = 0;

			for (j = 0; j < c; j++)
				used |= chosen[j] == i;
			if (!used && (best < 0 || y[i] < y[best]))
				best = i;
		}
		chosen[c] = best;
		memcpy(incumbents + (size_t)c * d, x + (size_t)best * d,
			   sizeof(double) * d);
	}
	return k;
}

/* Maximise log EI and pick an untaken point; see suggest_internal.h. */
TunerErrorCode
suggest_choose(const SuggestInput *in, const Posterior *post, double best,
			   const double *x, const double *y, int n, double y_mean,
			   double y_sd, TunerRng *rng, double *unit, SuggestResult *out,
			   TunerStatus *status)
{
	int d = in->d;
	double *ranked = tuner_alloc(sizeof(double) * MAX_RANKED * d);
	double *values = tuner_alloc(sizeof(double) * MAX_RANKED);
	double *native = tuner_alloc(sizeof(double) * d);
	double *incumbents =
		tuner_alloc(sizeof(double) * SUGGEST_MAX_INCUMBENTS * d);
	double *scratch = NULL;
	double *feasible_x = NULL;
	double *feasible_y = NULL;
	FeasibilityModel *feasibility = NULL;
	Posterior constrained;
	AcquisitionOptions acq_options;
	TunerErrorCode rc = TUNER_OK;
	int n_ranked = 0;
	int chosen = -1;
	double chosen_value = -HUGE_VAL;
	int i;

	/*
	 * Constrained EI: with failed trials or outcome constraints the
	 * acquisition is log EI + log P(feasible), the incumbent the best
	 * trial meeting every outcome constraint, and without one the
	 * acquisition is log P(feasible) alone.  Without either, nothing here
	 * runs and the step is the unconstrained one.
	 */
	if (in->n_failed > 0 || in->n_constraints > 0)
	{
		rc = feasibility_fit(in, rng_next(rng), &feasibility, status);
		if (rc != TUNER_OK)
			goto done;
	}
	if (feasibility != NULL)
	{
		constrained = *post;
		constrained.feasibility = &feasibility->hook;
		post = &constrained;
	}
	if (in->n_constraints > 0)
	{
		int n_feasible = 0;

		feasible_x = tuner_alloc(sizeof(double) * (size_t)(n > 0 ? n : 1) * d);
		feasible_y = tuner_alloc(sizeof(double) * (n > 0 ? n : 1));
		if (!feasible_x || !feasible_y)
		{
			rc = tuner_fail(status, TUNER_ERR_NOMEM,
							"out of memory suggesting a trial");
			goto done;
		}
		for (i = 0; i < in->n_observed; i++)
			if (feasibility_trial_ok(in, i))
			{
				space_to_unit(in->params, d, in->x_observed + (size_t)i * d,
							  feasible_x + (size_t)n_feasible * d);
				feasible_y[n_feasible] = (in->y_observed[i] - y_mean) / y_sd;
				if (n_feasible == 0 || feasible_y[n_feasible] < best)
					best = feasible_y[n_feasible];
				n_feasible++;
			}
		if (n_feasible > 0)
		{
			x = feasible_x;
			y = feasible_y;
			n = n_feasible;
		}
		else if (feasibility != NULL)
			feasibility->hook.without_ei = 1;
	}
	scratch = tuner_alloc(sizeof(double) * acquisition_scratch_size(post));
	if (!ranked || !values || !native || !incumbents || !scratch)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory suggesting a trial");
		goto done;
	}
	acquisition_options_init(&acq_options, d);
	/* past the RESCORED best, the first one free is taken */
	acq_options.n_exact = RESCORED;
	rc = acquisition_rank(post, best, incumbents,
						  suggest_pick_incumbents(x, y, n, d, incumbents),
						  &acq_options, rng, MAX_RANKED, ranked, values,
						  &n_ranked, status);
	if (rc != TUNER_OK)
		goto done;

	/*
	 * Snap the best few to the grid and score them again there (rounding
	 * moves discrete parameters); beyond those, take the first one free.
	 */
	for (i = 0; i < n_ranked; i++)
	{
		double *u = ranked + (size_t)i * d;
		double v;

		if (i >= RESCORED && chosen >= 0)
			break;
		space_snap_unit(in->params, d, u);
		suggest_native(in, u, native);
		if (suggest_is_taken(in, native))
			continue;
		/* (-inf: a point whose feasibility term was not computed) */
		v = i < RESCORED || !isfinite(values[i])
				? acquisition_log_ei(post, best, u, NULL, scratch)
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
		suggest_native(in, unit, out->config);
		rc = post->batch(post->state, unit, 1, &mu, &sd, status);
		if (rc != TUNER_OK)
			goto done;
		out->source = SUGGEST_MODEL;
		out->predicted_mean = y_mean + mu * y_sd;
		out->predicted_sd = sd * y_sd;
		out->log_ei = chosen_value;
	}
	else
		rc = suggest_random_untaken(in, rng, unit, out, status);
	if (rc == TUNER_OK && feasibility != NULL)
	{
		/* the scratch of acquisition_log_ei holds the term's after 2 d */
		out->feasibility = exp(feasibility_log_prob(
			feasibility, unit, NULL, scratch + post->n_scratch + 2 * d + d));
		if (out->constraint_fits != NULL)
			for (i = 0; i < feasibility->n_terms; i++)
				feasibility_describe(
					feasibility, i,
					&out->constraint_fits[1 + feasibility->terms[i].source]);
	}

done:
	feasibility_free(feasibility);
	tuner_free(feasible_x);
	tuner_free(feasible_y);
	tuner_free(ranked);
	tuner_free(values);
	tuner_free(native);
	tuner_free(incumbents);
	tuner_free(scratch);
	return rc;
}

/*
 * The trials in canonical form (see SuggestInput.canonical): copies of
 * the four configuration arrays of in, with the conditions applied, into
 * *work and *copy (one block to free; none without conditions).  A trial
 * stored before its conditions were applied, or applied transitively,
 * then compares, fits and fantasises as the configuration it ran.  Their
 * values are on their grid as stored (tuner.suggest_next's history);
 * floats are not rounded again: they compare within a tolerance far
 * wider than their grid, and a trial's parent value is decided on as
 * stored, as tuner._apply_conditions decided on it.
 */
static TunerErrorCode
canonical_trials(const SuggestInput *in, SuggestInput *work, double **copy,
				 TunerStatus *status)
{
	const double **sets[4] = {&work->x_observed, &work->x_pending,
							  &work->x_other, &work->x_failed};
	int counts[4] = {in->n_observed, in->n_pending, in->n_other, in->n_failed};
	size_t rows = 0, at = 0;
	int *active;
	int s, i;

	*work = *in;
	*copy = NULL;
	for (s = 0; s < 4; s++)
		rows += (size_t)counts[s];
	if (rows == 0 || !space_has_conditions(in->conditions, in->d))
		return TUNER_OK;
	*copy = tuner_alloc(sizeof(double) * rows * in->d);
	active = tuner_alloc(sizeof(int) * in->d);
	if (*copy == NULL || active == NULL)
	{
		tuner_free(*copy);
		tuner_free(active);
		*copy = NULL;
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory suggesting a trial");
	}
	for (s = 0; s < 4; s++)
	{
		double *rows_s = *copy + at * in->d;

		if (counts[s] == 0)
			continue;
		memcpy(rows_s, *sets[s], sizeof(double) * (size_t)counts[s] * in->d);
		for (i = 0; i < counts[s]; i++)
			space_apply_conditions(in->params, in->conditions, in->d,
								   rows_s + (size_t)i * in->d, NULL, active);
		*sets[s] = rows_s;
		at += (size_t)counts[s];
	}
	tuner_free(active);
	return TUNER_OK;
}

TunerErrorCode
tuner_suggest(const SuggestInput *input, SuggestResult *out,
			  TunerStatus *status)
{
	SuggestInput work;
	const SuggestInput *in = input;
	double *canonical_copy = NULL;
	TunerRng rng;
	double *unit;
	TunerErrorCode rc;
	int min_model = in->n_initial > 2 ? in->n_initial : 2;
	int j;

	tuner_status_clear(status);
	out->icm = NULL;
	out->cluster_icm = NULL;
	out->n_cluster_models = 0;
	rc = validate_input(in, status);
	if (rc != TUNER_OK)
		return rc;
	if (in->canonical)
	{
		rc = canonical_trials(input, &work, &canonical_copy, status);
		if (rc != TUNER_OK)
			return rc;
		in = &work;
	}

	out->source = SUGGEST_DESIGN;
	out->predicted_mean = NAN;
	out->predicted_sd = NAN;
	out->log_ei = NAN;
	out->outputscale = NAN;
	out->noise = NAN;
	out->mean = NAN;
	out->log_likelihood = NAN;
	out->fit_seconds = NAN;
	if (out->task_used != NULL)
		for (j = 0; j <= in->n_aux + in->n_transfer_tasks; j++)
			out->task_used[j] = -1;
	out->feasibility = NAN;
	if (out->constraint_fits != NULL)
		for (j = 0; j <= in->n_constraints; j++)
		{
			ConstraintFit *f = &out->constraint_fits[j];

			f->fitted = 0;
			f->n = 0;
			f->outputscale = f->noise = f->mean = f->log_likelihood = NAN;
			f->y_mean = f->y_sd = f->bound = NAN;
			f->trend_intercept = NAN;
			f->calibration_threshold = f->calibration_spread = NAN;
		}
	if (in->algorithm == SUGGEST_ALG_CLUSTERED_ICM &&
		out->cluster_used != NULL)
		for (j = 0; j < in->n_clusters; j++)
			out->cluster_used[j] = 0;

	unit = tuner_alloc(sizeof(double) * in->d);
	if (unit == NULL)
	{
		tuner_free(canonical_copy);
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory suggesting a trial");
	}
	rng_seed(&rng, in->seed);
	if (in->algorithm == SUGGEST_ALG_RANDOM)
		rc = suggest_random_untaken(in, &rng, unit, out, status);
	else if (in->n_observed < min_model)
		rc = suggest_design(in, &rng, unit, out, status);
	else if (in->algorithm == SUGGEST_ALG_ICM)
		rc = suggest_icm(in, &rng, unit, out, status);
	else if (in->algorithm == SUGGEST_ALG_CLUSTERED_ICM)
		rc = suggest_clustered_icm(in, &rng, unit, out, status);
	else
		rc = suggest_gp(in, &rng, unit, out, status);
	tuner_free(unit);
	tuner_free(canonical_copy);
	return rc;
}
