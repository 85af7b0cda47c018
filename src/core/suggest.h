/*
 * suggest.h
 *	  One step of Bayesian optimisation: given the study's history, choose
 *	  the next configuration.  All configurations are native values (see
 *	  space.h), n * d row-major.  Objective values are minimised; the glue
 *	  negates them for a maximised objective.
 */
#ifndef TUNER_SUGGEST_H
#define TUNER_SUGGEST_H

#include <stdint.h>
#include "icm.h"
#include "space.h"
#include "tuner_status.h"

/*
 * How the model steps choose: the single-task GP with expected improvement,
 * the ICM multi-task GP over the objective and auxiliary metrics with
 * expected improvement on the objective task, uniform random points, or
 * clustered ICM: one small 2-task ICM per group of parameters (the
 * objective and the auxiliary metric that group drives), each proposing
 * values for its own parameters, combined into one configuration
 * (suggest_clustered.c).
 */
typedef enum SuggestAlgorithm
{
	SUGGEST_ALG_GP_EI = 0,
	SUGGEST_ALG_ICM,
	SUGGEST_ALG_RANDOM,
	SUGGEST_ALG_CLUSTERED_ICM
} SuggestAlgorithm;

/*
 * The extra noise variance of a disturbed trial's value that has no
 * standard error, in units of the variance of the standardised objective
 * (the observed values' sample variance, after the output warp): its noise
 * sd is at least half the spread of the values observed, so such a value
 * moves the model about as much as four undisturbed ones would at the same
 * point.
 */
#define SUGGEST_DISTURBED_NOISE 0.25

typedef struct SuggestInput
{
	const ParamSpec *params;
	int d;

	const double *x_observed; /* completed trials, n_observed * d */
	const double *y_observed; /* their objective, to be minimised */
	int n_observed;

	/*
	 * Known noise of each observed value (GP-EI only; the other algorithms
	 * ignore it).  y_std_error: n_observed standard errors in the units of
	 * y_observed, NaN = not known, or NULL = none; disturbed: n_observed
	 * flags (1 = the trial ran on a disturbed machine), or NULL.  A value
	 * with a standard error gets the extra noise variance se^2 carried
	 * through the output warp and the standardisation; a disturbed one
	 * without, SUGGEST_DISTURBED_NOISE (suggest_gp.c).  With neither, the
	 * step is exactly the homoscedastic one.
	 */
	const double *y_std_error;
	const int *disturbed;

	const double *x_pending; /* running trials, fantasised */
	int n_pending;

	const double *x_other; /* other unmodelled trials: never repeated */
	int n_other;

	/*
	 * Failed trials (the runner crashed, timed out or the trial was
	 * failed): never repeated, and the data of the feasibility model
	 * (feasibility.h), never values of the objective.  With none, the
	 * step is exactly the one without a feasibility model.
	 */
	const double *x_failed;
	int n_failed;

	/*
	 * Outcome constraints: constraint k holds for a trial when its metric
	 * is at most constraint_bound[k] (the glue negates a metric and its
	 * bound for a >= constraint).  y_constraint is n_observed *
	 * n_constraints, row-major, NaN = not reported (the trial is then not
	 * known to meet it).  Each constraint with two values or more, with
	 * spread, gets a GP; the acquisition adds its log P(holds).  The
	 * incumbent is the best trial meeting every constraint; with none,
	 * the acquisition maximises the probability of feasibility alone.
	 */
	const double *y_constraint;
	const double *constraint_bound;
	int n_constraints;

	/*
	 * Known-invalid combinations: a native configuration x is allowed
	 * only if, for every row r, sum_j linear_coef[r * d + j] x_j is at
	 * most linear_rhs[r] (strictly below it when linear_strict[r]).  No
	 * design, random or model point breaks one.
	 */
	const double *linear_coef;
	const double *linear_rhs;
	const int *linear_strict;
	int n_linear;

	/*
	 * Conditional parameters: d conditions (space.h), or NULL = none.
	 * With canonical set, configurations are compared in their canonical
	 * form (space_canonical): the trials' before anything else uses them
	 * (the model, the fantasies of the running ones, the feasibility
	 * model, the check for repeats), and every design, random and model
	 * point before it is checked against them; the suggestion is in
	 * canonical form.  canonical = 0 is the step of tuner 0.2.0, for
	 * replaying its suggestions: conditions ignored, floats off their
	 * grid.
	 */
	const ParamCondition *conditions;
	int canonical;

	int n_initial;        /* space-filling points before the GP */
	int design_index;     /* which space-filling point comes next */
	uint64_t design_seed; /* the study's: fixes the whole design */
	uint64_t seed;        /* this suggestion's: restarts, candidates */

	/* Optional warm start from the previous fit (normalised; NULL = none). */
	const double *warm_lengthscales;
	double warm_outputscale;
	double warm_noise;
	double warm_mean;

	/*
	 * Optional warm start of the failure model (feasibility.h): the
	 * hyperparameters of its previous fit (normalised, as ConstraintFit
	 * reports them; NULL = none).  From 50 trials (ran and failed) on the
	 * failure model then refines that fit, plus one other start every 4th
	 * trial, instead of fitting from three cold starts (feasibility.c,
	 * FAILURE_WARM_MIN_N).  Without it, or below 50 trials, every step is
	 * as before.
	 */
	const double *warm_feasibility_lengthscales;
	double warm_feasibility_outputscale;
	double warm_feasibility_noise;
	double warm_feasibility_mean;

	SuggestAlgorithm algorithm;
	/*
	 * ICM: auxiliary metrics of the observed trials, n_observed * n_aux,
	 * row-major, NaN = not reported.  A metric with fewer than two values or
	 * no spread is left out of the model; with none left, ICM is GP-EI.
	 */
	const double *y_aux;
	int n_aux;
	int icm_rank; /* columns of W; 0 = default; clamped to the number of
				   * tasks modelled */
	/*
	 * ICM warm start (standardised units), used only when warm_T and
	 * warm_rank equal the tasks and rank modelled now; warm_lengthscales
	 * above is shared by both algorithms.
	 */
	int warm_T;
	int warm_rank;
	const double *warm_W;          /* warm_T * warm_rank, row-major */
	const double *warm_v;          /* warm_T */
	const double *warm_task_noise; /* warm_T */
	const double *warm_task_mean;  /* warm_T */
	/*
	 * ICM transfer: trials of earlier studies, in this study's space
	 * (native values), each earlier study's objective a task of its own
	 * (minimised, NaN where a trial is not that study's).  They enter the
	 * model as extra tasks, never as observations of this objective; a
	 * task with fewer than two values or no spread is left out.
	 */
	const double *x_transfer; /* n_transfer * d */
	const double *y_transfer; /* n_transfer * n_transfer_tasks */
	int n_transfer;
	int n_transfer_tasks;

	/*
	 * Clustered ICM (ignored by the other algorithms).  The ICM fields
	 * above apply per cluster: y_aux holds the metrics, icm_rank is clamped
	 * to the cluster's tasks (1 or 2); the warm start is not used.
	 */
	int n_clusters;             /* number of clusters, >= 1 */
	const int *cluster_members; /* n_clusters * d, row-major: 1 if parameter
								 * j is in cluster c, else 0 (a parameter
								 * may be in several, or in none) */
	const int *cluster_metric;  /* n_clusters: column of y_aux that cluster
								 * c models with the objective */

	/*
	 * ICM only: optimise the auxiliary metrics jointly with the objective.
	 * n_aux signed weights, or NULL = the objective alone.  The acquisition
	 * then maximises log EI of g = y_0 + sum_j aux_weights[j] y_j in
	 * standardised units (each metric as the model standardised it; y_0
	 * minimised), so a weight > 0 asks for a lower metric, < 0 for a
	 * higher one, 0 leaves the metric out of g (it still informs the
	 * model), as do metrics the model left out.  The incumbent is the
	 * lowest g over the trials that reported every metric in g (and the
	 * running trials, fantasised); with none, the lowest posterior mean of
	 * g at the observed trials.  predicted_mean and predicted_sd stay the
	 * objective's, log_ei is g's.  When no metric with a nonzero weight is
	 * modelled, the step is exactly the one without weights.
	 */
	const double *aux_weights;
	/*
	 * Clustered ICM warm start: the previous step's fit of each cluster
	 * (standardised units), NULL = none.  Cluster c starts from it when
	 * warm_cluster_T[c] and warm_cluster_rank[c] equal the tasks and rank
	 * it models now and its values are valid; 0 tasks = no previous fit.
	 */
	const int *warm_cluster_T;               /* n_clusters */
	const int *warm_cluster_rank;            /* n_clusters */
	const double *warm_cluster_lengthscales; /* n_clusters * d, members only */
	const double *warm_cluster_W;            /* n_clusters * 4: T x rank */
	const double *warm_cluster_v;            /* n_clusters * 2 */
	const double *warm_cluster_noise;        /* n_clusters * 2 */
	const double *warm_cluster_mean;         /* n_clusters * 2 */
} SuggestInput;

typedef enum SuggestSource
{
	SUGGEST_DESIGN = 0, /* space-filling initial design */
	SUGGEST_MODEL,      /* GP or ICM + expected improvement */
	SUGGEST_RANDOM      /* SUGGEST_ALG_RANDOM, or the model's picks were
						 * all taken */
} SuggestSource;

/*
 * One fitted feasibility term (feasibility.h): a GP on the unit cube over
 * the standardised outcome (failed = 1 / ran = 0, or a constraint metric
 * in its <= form), holding where the latent is at most bound.
 */
typedef struct ConstraintFit
{
	int fitted;           /* 0: not modelled (the rest is NaN) */
	int n;                /* trials it learned from */
	double *lengthscales; /* d, caller-allocated, or NULL */
	double outputscale;
	double noise;
	double mean;
	double log_likelihood;
	double y_mean; /* standardisation of the outcome */
	double y_sd;
	double bound; /* standardised */
	/*
	 * The failure model's linear trend of the standardised outcome,
	 * trend_intercept + trend_slopes . (u - 1/2) (feasibility.h); NaN when
	 * the term has none.  trend_slopes: d, caller-allocated, or NULL.
	 */
	double trend_intercept;
	double *trend_slopes;
	/*
	 * The failure model's calibration (feasibility_calibration.h), the
	 * threshold and spread of the standardised outcome; NaN when the term
	 * has none.
	 */
	double calibration_threshold;
	double calibration_spread;
} ConstraintFit;

typedef struct SuggestResult
{
	double *config; /* d native values, caller-allocated */
	SuggestSource source;

	/*
	 * Only when source == SUGGEST_MODEL, in the y units given; for ICM, of
	 * the objective task (also with aux_weights).
	 */
	double predicted_mean;
	double predicted_sd;
	double log_ei; /* log expected improvement, standardised units; with
					* aux_weights, of the joint target g */

	/*
	 * What the fit learned (normalised coordinates), for the model table;
	 * for ICM: its lengthscales, B[0][0], and the objective task's noise
	 * and mean.
	 */
	double *lengthscales; /* d, caller-allocated */
	double outputscale;
	double noise;
	double mean;
	double log_likelihood;

	/* wall time of the hyperparameter fit (CLOCK_MONOTONIC); NaN: no fit */
	double fit_seconds;
	/*
	 * Caller-allocated 1 + n_aux + n_transfer_tasks, or NULL: index of
	 * each task (objective, auxiliary metrics, transfer tasks) in the
	 * model fitted, -1 = left out (all -1 when no model).
	 */
	int *task_used;
	/*
	 * ICM fits: the fitted model in standardised units (also when every
	 * pick was taken and the point is random), else NULL; the caller frees
	 * it with icm_model_free.
	 */
	IcmModel *icm;

	/*
	 * Clustered ICM.  The prediction, log EI, outputscale, noise, mean and
	 * log likelihood above are the lead cluster's (the one whose proposal
	 * has the highest log EI), lengthscales[j] that of the cluster which
	 * set parameter j (NaN: in no cluster), fit_seconds the total of all
	 * fits, and task_used[1 + m] is 1 when some cluster modelled metric m.
	 * When every combination of the clusters' proposals was already tried,
	 * the point comes from one GP over every parameter instead: then the
	 * prediction and hyperparameters are that GP's, fit_seconds includes
	 * it, and no cluster_used is set.
	 */
	int n_cluster_models;   /* clusters that were fitted */
	IcmModel **cluster_icm; /* n_clusters entries (NULL for a cluster left
							 * out: its fit failed numerically), each an ICM over that cluster's
							 * parameters, standardised units: 2 tasks, or
							 * 1 when its metric was unusable; the caller
							 * frees each with icm_model_free and the
							 * array with tuner_free */
	int *cluster_used;      /* caller-allocated n_clusters or NULL: 1 if
							 * cluster c was fitted and set at least one
							 * parameter of config */

	/*
	 * The feasibility terms: caller-allocated 1 + n_constraints, or NULL;
	 * entry 0 the failure model, 1 + k outcome constraint k.  Filled when
	 * a model chose the point (gp-ei and icm).  feasibility is the
	 * modelled P(feasible) at config (NaN: no term was modelled).
	 */
	ConstraintFit *constraint_fits;
	double feasibility;
} SuggestResult;

extern TunerErrorCode tuner_suggest(const SuggestInput *input,
									SuggestResult *result,
									TunerStatus *status);

#endif /* TUNER_SUGGEST_H */
