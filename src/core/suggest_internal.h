/*
 * suggest_internal.h
 *	  What the parts of the suggestion step share: suggest.c (entry point,
 *	  design, random points and the choice among the acquisition's best
 *	  points), suggest_gp.c (single-task GP), suggest_icm.c (ICM),
 *	  suggest_cluster.c and suggest_clustered.c (clustered ICM).  Not for
 *	  callers outside src/core/suggest*.c.
 */
#ifndef TUNER_SUGGEST_INTERNAL_H
#define TUNER_SUGGEST_INTERNAL_H

#include <time.h>

#include "icm.h"
#include "posterior.h"
#include "rng.h"
#include "suggest.h"

/* How many of the best observed points the acquisition searches around. */
#define SUGGEST_MAX_INCUMBENTS 5

/*
 * A warm-started ICM fit (suggest_icm.c, and each cluster of
 * suggest_cluster.c) refines the previous fit and, at some trials, also
 * runs one other start to convergence, rotating through them: every 4th
 * trial below SUGGEST_ALTERNATE_SPARSE_N trials, every
 * SUGGEST_ALTERNATE_SPARSE_PERIOD-th from there.  Why sparse there: the
 * other start needs an eigen-decomposition per evaluation, and some 100
 * evaluations to reach its basin.  Stopped after 40 (the earlier rule,
 * every 4th trial), it left every fit as it was in six simulated studies
 * (d = 10, T = 4, n = 50..100, bench/multitask/alternate_schedule.sh).
 * Run to the end every 16th trial, it found the better fit that the
 * refinement had missed in one of them, and cost less per trial on
 * average in all six.
 */
#define SUGGEST_ALTERNATE_SPARSE_N      50
#define SUGGEST_ALTERNATE_SPARSE_PERIOD 16

/*
 * The single-task GP's warm fit (suggest_gp.c) runs its other start every
 * 4th trial, and from SUGGEST_GP_SPARSE_N trials on every
 * SUGGEST_ALTERNATE_SPARSE_PERIOD-th (suggest_alternate_start).  Why: the
 * other start is a fit from afar, some 40 evaluations of the O(n^3)
 * likelihood where the refinement of the previous fit takes about 4; at
 * n = 500, d = 20 it was 200 of a step's 270 ms
 * (bench/latency/suggest_core.c), 25x the step at n = 100, d = 10.  With
 * hundreds of trials one more point rarely moves the likelihood's modes,
 * and a fit stuck in one still gets its other start every 16th trial.
 * Below SUGGEST_GP_SPARSE_N nothing changed: every benchmark of
 * bench/README.md stops before it.  Only in canonical steps (0.3.0 on):
 * the steps of tuner 0.2.0 replay as they were computed.
 */
#define SUGGEST_GP_SPARSE_N 200

/*
 * Below GP_HIGH_DIM dimensions and SUGGEST_GP_ALL_STARTS_N trials, a
 * canonical (0.3.0) warm fit runs the previous fit and two other starts at
 * every trial, not every 4th (issue 28).  Small fits are cheap (each start
 * some 40 evaluations of a likelihood of fewer than 50 points), and early
 * in a study one more point can move the likelihood's best mode: on
 * Hartmann6 with 5 initial points, 80 seeds, the best value after 25
 * trials reached -3.15 in 43 runs against 36 (median -3.168 against
 * -3.109), Branin unchanged (bench/README.md section 2).
 */
#define SUGGEST_GP_ALL_STARTS_N 50

/*
 * Does a warm fit at n trials also run another start?  If so, sets
 * *first_alternate to the one whose turn it is.
 */
extern int suggest_alternate_start(int n, int *first_alternate);

/*
 * The configuration a unit-cube point stands for, into native: in
 * canonical form (and unit moved onto it) when the input asks for it,
 * else space_from_unit alone.
 */
extern void suggest_native(const SuggestInput *in, double *unit,
						   double *native);

/* Does native config c break one of the input's parameter constraints? */
extern int suggest_breaks_linear(const SuggestInput *in, const double *c);

/*
 * Is native config c already one of the input's trials, or ruled out by
 * a parameter constraint?
 */
extern int suggest_is_taken(const SuggestInput *in, const double *c);

/*
 * Copy the (up to SUGGEST_MAX_INCUMBENTS) lowest-y of the n points x (n x d)
 * to incumbents, lowest first; returns how many.
 */
extern int suggest_pick_incumbents(const double *x, const double *y, int n,
								   int d, double *incumbents);

/* Uniform random points until one is new; EXHAUSTED if none is found. */
extern TunerErrorCode suggest_random_untaken(const SuggestInput *in,
											 TunerRng *rng, double *unit,
											 SuggestResult *out,
											 TunerStatus *status);

/*
 * Mean and sample sd of the non-NaN values among n values spaced stride
 * apart; returns how many there were (sd is 0 below two).
 */
extern int suggest_metric_scale(const double *values, int n, int stride,
								double *mean, double *sd);

/*
 * Maximise log EI of post (standardised objective, incumbent best), search
 * around the lowest of the n observed points x (unit cube) with
 * standardised objective y, snap to the grid, skip taken points, and fill
 * out's config, source and prediction (in objective units via y_mean and
 * y_sd).  Falls back to a random untaken point.
 */
extern TunerErrorCode suggest_choose(const SuggestInput *in,
									 const Posterior *post, double best,
									 const double *x, const double *y, int n,
									 double y_mean, double y_sd, TunerRng *rng,
									 double *unit, SuggestResult *out,
									 TunerStatus *status);

/*
 * Mean and sd of the non-NaN values among n spaced stride apart; returns 1
 * if they can be modelled as a task (two values or more, with spread),
 * else 0.
 */
extern int suggest_usable_scale(const double *values, int n, int stride,
								double *mean, double *sd);

/* suggest_usable_scale of auxiliary metric j over the observed trials. */
extern int suggest_aux_scale(const SuggestInput *in, int j, double *mean,
							 double *sd);

/* The ICM rank for T tasks: the input's, or the default, clamped to T. */
extern int suggest_icm_rank(const SuggestInput *in, int T);

/*
 * Kriging believer: the prepared model of fitted plus p more points
 * (pending_unit, p x fitted->d, unit cube) with every task fantasised at
 * its posterior mean.
 */
extern TunerErrorCode suggest_icm_believer(const IcmModel *fitted,
										   const double *pending_unit, int p,
										   IcmModel **out,
										   TunerStatus *status);

/* Seconds elapsed on CLOCK_MONOTONIC since start. */
extern double suggest_seconds_since(const struct timespec *start);

/*
 * GP-EI's extra noise variance of each observed value (suggest_gp.c says
 * how): warp as the step chose it, z the warped values, y_sd their
 * standardisation.  *out is n_observed values, or NULL when none has any.
 */
struct OutputWarp;
extern TunerErrorCode suggest_gp_extra_noise(const SuggestInput *in,
											 const struct OutputWarp *warp,
											 const double *z, double y_sd,
											 double **out,
											 TunerStatus *status);

/* The model steps of each algorithm. */
extern TunerErrorCode suggest_gp(const SuggestInput *in, TunerRng *rng,
								 double *unit, SuggestResult *out,
								 TunerStatus *status);
extern TunerErrorCode suggest_icm(const SuggestInput *in, TunerRng *rng,
								  double *unit, SuggestResult *out,
								  TunerStatus *status);
extern TunerErrorCode suggest_clustered_icm(const SuggestInput *in,
											TunerRng *rng, double *unit,
											SuggestResult *out,
											TunerStatus *status);

#endif /* TUNER_SUGGEST_INTERNAL_H */
