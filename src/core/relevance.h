/*
 * relevance.h
 *	  The second signal of the parameter ranking (tuner.lasso_rank,
 *	  tuner.select_top): how much a Gaussian process fitted to the explored
 *	  trials needs each parameter, and the ranking policy that puts the
 *	  Lasso's evidence first, this signal's evidence next and parameters
 *	  without evidence last.
 *
 *	  Why a second signal: with few trials (16-32) a cross-validated Lasso
 *	  often keeps only the strongest monotone effect, or nothing at all
 *	  (every fold's test error is smallest at lambda_max), and a
 *	  non-monotone driver (an optimum inside the range) has no linear
 *	  effect to find.  The GP's ARD kernel sees any smooth effect.
 *
 *	  Evidence of the GP for parameter k: the log marginal likelihood of a
 *	  GP fitted to every varying parameter (Matern-5/2 ARD, the MAP fit of
 *	  gp.h with its priors; ordered inputs scaled to their observed span,
 *	  y standardised) minus that of the same GP refitted without k.  It is
 *	  a log likelihood ratio (a profile one: each model at its own fitted
 *	  hyperparameters) for "the objective varies along k": about 0 when the
 *	  other parameters explain the trials as well, large when without k
 *	  they cannot.  Refitting matters: with few trials a GP can interpolate
 *	  pure noise with short lengthscales, and removing one of them from
 *	  that fit, every other hyperparameter kept, loses a lot although a
 *	  refit without it explains the noise as well.  The drop at the kept
 *	  hyperparameters bounds the profile drop from above (up to the prior's
 *	  pull, which the minimum of the two removes) and costs one
 *	  factorisation, so only a dimension whose bound reaches the threshold
 *	  is refitted.  A parameter has evidence when its drop is at least the
 *	  threshold, RELEVANCE_EVIDENCE_MIN by default.
 *
 *	  No PostgreSQL here.
 */
#ifndef TUNER_RELEVANCE_H
#define TUNER_RELEVANCE_H

#include <stdint.h>

#include "tuner_status.h"

/*
 * The least log-likelihood drop that counts as evidence: a likelihood
 * ratio of e^3 (about 20).  On pure noise (y independent of x; d 6-30
 * columns, n 16-32 points, 40 studies each) 0-2.1% of the columns reach
 * it, where the bound alone (no refit) passes 5-40% at d 6-10
 * (bench/lasso/relevance_null.sh; bench/README.md, section 5).
 */
#define RELEVANCE_EVIDENCE_MIN 3.0

/* Which signal ranked a parameter (rank_by_evidence). */
#define RANK_SIGNAL_NONE  0 /* no evidence from either */
#define RANK_SIGNAL_LASSO 1 /* a non-zero Lasso coefficient */
#define RANK_SIGNAL_GP    2 /* the GP's evidence, not the Lasso's */

typedef struct RelevanceOptions
{
	int restarts;                 /* starts of each GP fit (3) */
	int max_evals;                /* evaluations per start (200) */
	uint64_t seed;                /* of the fits' random starts (0) */
	const int *categories;        /* d: the input metric of matern.h, or
								   * NULL */
	const unsigned char *measure; /* d: the dimensions to measure (non-zero),
								   * or NULL for all */
	double threshold;             /* evidence (RELEVANCE_EVIDENCE_MIN) */
} RelevanceOptions;

/* The defaults. */
extern void relevance_options_init(RelevanceOptions *options);

/*
 * Fit the GP to x (n x d, row-major) and y (n) and measure the evidence of
 * each dimension options->measure selects (see the top of the file).
 * Ordered columns are scaled to [0, 1] by their observed minimum and
 * maximum; a categorical column (categories[k] > 0) must hold unit
 * coordinates (its choice's bin, matern.h) and is used as it is.  Constant
 * columns are left out of the fit.  lengthscale (d) receives the fitted
 * lengthscales in those units (1 is the observed span; NaN for a constant
 * column); evidence (d) the drops (>= 0): the profile drop when the bound
 * reaches options->threshold, else the bound; 0 for a constant column, NaN
 * where not measured.  y must not be constant.
 */
extern TunerErrorCode gp_relevance(const double *x, const double *y, int n,
								   int d, const RelevanceOptions *options,
								   double *lengthscale, double *evidence,
								   TunerStatus *status);

/*
 * The ranking policy over p parameters.  importance (p) is the Lasso's
 * (>= 0; > 0 is evidence), entered_at (p) the 1-based position on the
 * Lasso path where the parameter entered (0: never), gp_evidence (p) the
 * GP's evidence (NaN: not measured) or NULL when the GP was not fitted.
 * Parameters with Lasso evidence come first, by importance; then those
 * with GP evidence (>= threshold), by it; then the rest, without evidence,
 * by their entry on the path (earlier first).  Ties go to the earlier
 * entry, then the earlier position.  rank (p) receives 1..p, signal (p)
 * RANK_SIGNAL_*.
 */
extern TunerErrorCode rank_by_evidence(int p, const double *importance,
									   const int *entered_at,
									   const double *gp_evidence,
									   double threshold, int *rank,
									   int *signal, TunerStatus *status);

#endif /* TUNER_RELEVANCE_H */
