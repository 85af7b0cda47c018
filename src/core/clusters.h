/*
 * clusters.h
 *	  Learn which parameters act on which auxiliary metric from observed
 *	  trials, so that the clustered multi-task model (one GP per metric over
 *	  its own parameters) need not be given its groups by hand.
 *
 *	  For every (parameter j, metric t) the association is a rank quadratic
 *	  correlation: the multiple correlation of rank(y_t) on rank(x_j) and
 *	  rank(x_j)^2 over the trials that observed y_t.  It depends on ranks
 *	  only (any monotone rescaling of x or y leaves it unchanged) and the
 *	  quadratic term catches an interior optimum (a U-shaped effect)
 *	  wherever it lies.  It is tested by permutation and the p-values of all
 *	  d * T tests are adjusted by Benjamini-Hochberg (false discovery rate
 *	  alpha).
 *
 *	  A marginal test sees the metric's other parameters as noise, so with
 *	  three or four parameters per metric each explains only a third or a
 *	  quarter of it.  After the marginal pass, refine_rounds conditional
 *	  passes test each parameter given the metric's other members (partial
 *	  rank quadratic correlation, Freedman-Lane permutation of the reduced
 *	  model's residuals), and the membership is recomputed; the passes stop
 *	  early when it no longer changes.
 *
 *	  x is n * d and y is n * T, both row-major.  x must be finite (the unit
 *	  cube is expected but not required: only ranks are used); y must be
 *	  finite or NaN (not observed for that trial).  A metric with fewer than
 *	  four observations or no variance forms no cluster (valid = 0).
 */
#ifndef TUNER_CLUSTERS_H
#define TUNER_CLUSTERS_H

#include <stdint.h>
#include "tuner_status.h"

#define CLUSTER_MIN_OBS 4

typedef struct ClusterOptions
{
	int permutations;  /* per test; 0 = from the number of tests (below) */
	double alpha;      /* false discovery rate, in (0, 1) */
	int refine_rounds; /* conditional passes after the marginal one, 0..10 */
	uint64_t seed;     /* the permutations; same seed, same result */
} ClusterOptions;

typedef struct ClusterResult
{
	int d;
	int T;
	int permutations; /* the count actually used */
	int rounds;       /* conditional passes actually run */

	/* Per (parameter j, metric t), at j * T + t; NaN for invalid metrics. */
	double *score;    /* marginal rank quadratic correlation, [0, 1] */
	double *partial;  /* the same given the metric's other members */
	double *pvalue;   /* of the last pass, with the +1 correction */
	double *adjusted; /* Benjamini-Hochberg over all valid tests */
	int *member;      /* 1 if adjusted < alpha, or a weak assignment */
	int *weak;        /* 1 if j is significant for no metric: put here */

	/* Per metric t. */
	int *n_obs;         /* trials that observed it */
	int *valid;         /* >= CLUSTER_MIN_OBS observations, not constant */
	int *size;          /* members, weak ones included */
	double *confidence; /* [0, 1], see cluster_learn; 0 when invalid */
} ClusterResult;

/*
 * Defaults: permutations = 0 (automatic), alpha = 0.05, refine_rounds = 2,
 * seed = 0.
 */
extern void cluster_options_init(ClusterOptions *options);

/*
 * Learn the clusters.  With permutations = 0 the count B is
 * max(499, 1.25 m / alpha - 1) capped at 9999, m the number of valid
 * tests: the smallest attainable p-value 1 / (B + 1) is then 0.8 of
 * Benjamini-Hochberg's smallest threshold alpha / m, so a lone strong
 * effect can still be found (with 199 no p-value is below 0.005, and at
 * m = 40, alpha = 0.05 nothing could pass unless five tests did together).
 * For d = 10, T = 4 this is 999.
 *
 * A cluster's confidence is certainty * separation:
 *   certainty = max(0, 1 - q / alpha), q the largest adjusted p-value of
 *     its members (0 as soon as it holds a weak member);
 *   separation = (s_in - s_out) / s_in clamped to [0, 1], s_in the
 *     smallest partial score of its members and s_out the largest of its
 *     non-members (1 when every parameter is a member).
 * So it is near 1 when every member is clearly significant and no
 * non-member comes close to the weakest member.
 *
 * TUNER_ERR_INVALID for n < 4, d or T < 1, a non-finite x, an infinite y,
 * bad options, or no valid metric at all (then no parameter could be
 * placed).  *result is set only on success; free it with
 * cluster_result_free.
 */
extern TunerErrorCode cluster_learn(const double *x, const double *y, int n,
									int d, int T,
									const ClusterOptions *options,
									ClusterResult **result,
									TunerStatus *status);

extern void cluster_result_free(ClusterResult *result);

#endif /* TUNER_CLUSTERS_H */
